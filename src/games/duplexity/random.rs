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
    let Some(who) = (0..2u8).find(|p| g.awaits(*p)) else { return false };
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
            let unspent = || g.board.pawns_of(who).filter(|(_, p)| !p.acted).map(|(s, _)| s);
            let n = unspent().count();
            if n == 0 {
                return false;
            }
            let Some(pawn) = unspent().nth(rng.gen_range(0..n)) else { return false };
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

/// Every turn line the grammar offers `p` at this step (the pawns' actions with small
/// shifts; not all of them are legal): the candidates of random play.
pub fn candidate_lines(g: &Duplexity, p: u8) -> Vec<String> {
    if !g.awaits(p) {
        return Vec::new();
    }
    match &g.stage {
        Stage::Setup { .. } => g.placeable(p).iter().map(|s| format!("place {s}")).collect(),
        Stage::Bid { .. } => (0..=g.energy(p))
            .flat_map(|a| [format!("bid {a}"), format!("bid {a} first"), format!("bid {a} second")])
            .collect(),
        Stage::Act { pending: Some(m), .. } => m.choices.iter().map(|s| format!("to {}", s.location())).collect(),
        Stage::Act { .. } => {
            let mut actions: Vec<String> = ["move", "move +", "move -", "gather"].map(String::from).to_vec();
            for n in [1, 2] {
                actions.push(format!("shift +{n}"));
                actions.push(format!("shift -{n}"));
            }
            for z in Zone::ALL {
                for token in ["hazard", "haven"] {
                    actions.push(format!("alter {} add {token}", z.code()));
                    actions.push(format!("alter {} remove {token}", z.code()));
                }
            }
            let mut lines = Vec::new();
            for (space, _) in g.board.pawns_of(p).filter(|(_, pawn)| !pawn.acted) {
                lines.push(format!("pawn {space}: pass"));
                lines.extend(actions.iter().map(|a| format!("pawn {space}: {a}")));
            }
            lines
        }
        Stage::Over => Vec::new(),
    }
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

    #[test]
    fn a_silent_log_changes_nothing_but_the_words() {
        for n in 0..30u8 {
            let seed = Seed::from_bytes([n; 32]);
            let (mut loud_dice, mut quiet_dice) = (Dice::new(seed.clone(), "g", 0), Dice::new(seed, "g", 0));
            let mut loud_rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(n));
            let mut quiet_rng = loud_rng.clone();
            let (mut loud_log, mut quiet_log) = (Log::new(), Log::silent());
            let settings = Settings { pawn_limit: None, max_rounds: Some(50) };
            let names = || ["ann".to_string(), "bob".to_string()];
            let mut loud = Duplexity::new(names(), settings, &mut loud_dice, &mut loud_log);
            let mut quiet = Duplexity::new(names(), settings, &mut quiet_dice, &mut quiet_log);
            while loud.ending.is_none() {
                let done = random_input(&mut loud, &mut loud_dice, &mut loud_rng, &mut loud_log);
                assert_eq!(random_input(&mut quiet, &mut quiet_dice, &mut quiet_rng, &mut quiet_log), done);
                if !done {
                    loud.force(&mut loud_dice, &mut loud_log);
                    quiet.force(&mut quiet_dice, &mut quiet_log);
                }
                assert_eq!(quiet, loud, "game {n}");
                assert_eq!(quiet_dice.pending_rolls(), loud_dice.pending_rolls(), "the same rolls, purposes and all");
            }
            assert_eq!(quiet.ending, loud.ending);
            assert!(!loud_log.lines.is_empty());
            assert!(quiet_log.lines.is_empty());
        }
    }

    #[test]
    fn a_silent_log_leaves_the_answers_empty_and_still_says_why_a_line_is_refused() {
        let mut dice = Dice::new(Seed::from_bytes([3; 32]), "g", 0);
        let mut g = Duplexity::new(["ann".into(), "bob".into()], Settings::default(), &mut dice, &mut Log::silent());
        let Stage::Setup { next, .. } = g.stage else { panic!("a new game places pawns") };
        let p3 = Space::new(Zone::Present, 3).unwrap_or_else(|| unreachable!());
        assert_eq!(g.clone().place(next, p3, &mut Log::new()), Ok("place P3".to_string()));
        assert_eq!(g.place(next, p3, &mut Log::silent()), Ok(String::new()));
        let refused = g.place(1 - next, p3, &mut Log::silent()).unwrap_err();
        assert!(refused.reason.contains("P3 already holds"), "{}", refused.reason);
    }
}
