//! Seeded random play through the typed API, for benchmarks and for programs that want
//! a baseline opponent. The players' choices come from the caller's generator; every
//! roll of the game still comes from its [`Dice`].

use rand::Rng;

use super::board::{Space, Zone, LOCATIONS};
use super::rules::{Action, Bid, Duplexity, Log, Order, Settings, Stage, Token, Way};
use crate::dice::Dice;

/// Make one random legal input for whoever is awaited (nothing when the game is over).
/// Returns whether something was done.
pub fn random_input(g: &mut Duplexity, dice: &mut Dice, rng: &mut impl Rng, log: &mut Log) -> bool {
    let Some(&who) = g.awaited().first() else { return false };
    let done = match &g.stage {
        Stage::Setup { .. } => {
            let taken = g.board.pawns().next().map(|(s, _)| s.location());
            let mut location = rng.gen_range(1..=LOCATIONS);
            while taken.is_some_and(|t| Space::ring_distance(t, location) % 4 == 0) {
                location = rng.gen_range(1..=LOCATIONS);
            }
            let space = Space::new(Zone::Present, location).unwrap_or_else(|| unreachable!("1 to 8"));
            g.place(who, space, log).is_ok()
        }
        Stage::Bid { .. } => {
            let amount = rng.gen_range(0..=g.energy(who).min(2));
            let order = [None, Some(Order::First), Some(Order::Second)][rng.gen_range(0..3)];
            g.bid(who, Bid { amount, order }, log).is_ok()
        }
        Stage::Act { pending: Some(p), .. } => {
            let to = p.choices[rng.gen_range(0..2)].location();
            g.choose(who, to, None, Vec::new(), dice, log).is_ok()
        }
        Stage::Act { .. } => {
            let unspent = g.unspent(who);
            if unspent.is_empty() {
                return false;
            }
            let pawn = unspent[rng.gen_range(0..unspent.len())];
            let mut actions = Vec::with_capacity(3);
            if rng.gen_bool(0.7) {
                let way = match rng.gen_range(0..4) {
                    0 => Way::Ask,
                    1 => Way::Rising,
                    2 => Way::Falling,
                    _ => Way::Prefer(vec![rng.gen_range(1..=LOCATIONS)]),
                };
                actions.push(Action::Move { way });
            }
            if rng.gen_bool(0.5) {
                let zone = Zone::ALL[rng.gen_range(0..5)];
                actions.push(match rng.gen_range(0..4) {
                    0 => Action::Gather,
                    1 => Action::Alter { zone, add: true, token: Token::Hazard },
                    2 => Action::Alter { zone, add: true, token: Token::Haven },
                    _ => Action::Alter { zone, add: false, token: Token::Hazard },
                });
            }
            if rng.gen_bool(0.3) {
                actions.push(Action::Shift { by: [-2, -1, 1, 2][rng.gen_range(0..4)] });
            }
            if actions.len() > 1 && rng.gen_bool(0.5) {
                actions.swap(0, 1);
            }
            g.activate(who, pawn, actions, dice, log).is_ok()
        }
        Stage::Over => false,
    };
    if done {
        g.settle(dice, log);
    }
    done
}

/// Play a whole game at random (at most `max_rounds` rounds, then drawn). The rolls made
/// are taken from the dice every round, as the judge journals them.
pub fn playout(dice: &mut Dice, rng: &mut impl Rng, max_rounds: u32) -> Duplexity {
    let mut log = Log::silent();
    let settings = Settings { pawn_limit: None, max_rounds: Some(max_rounds) };
    let mut g = Duplexity::new(["ann".into(), "bob".into()], settings, dice, &mut log);
    let mut round = 0;
    while g.ending.is_none() {
        if !random_input(&mut g, dice, rng, &mut log) {
            g.force(dice, &mut log);
        }
        if g.round != round {
            round = g.round;
            dice.take_rolls();
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::dice::Seed;

    #[test]
    fn random_playouts_end_and_keep_the_invariant() {
        for n in 0..50u8 {
            let mut dice = Dice::new(Seed::from_bytes([n; 32]), "bench", 0);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(n));
            let g = playout(&mut dice, &mut rng, 200);
            assert!(g.ending.is_some());
            assert!(g.round >= 1 && g.round <= 200, "{}", g.round);
            assert_eq!(g.board.invariant_fault(), None);
        }
    }
}
