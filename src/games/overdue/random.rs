//! Random legal play, for the property tests and the benchmark: a seeded chooser that
//! writes turn files as a player would (a turn, sometimes several sent ahead, sometimes a
//! squeeze-in line), and a whole playout through the same calls the judge makes.
//!
//! The choices come from their own seeded generator; the game's rolls still come only
//! from its [`Dice`].

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Overdue, Squeeze, Turn};
use crate::dice::{Dice, Seed};
use crate::games::Options;
use crate::turn::{TurnContext, TurnGame};

/// Chooses random legal turn files.
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// A random number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n.max(1))
    }

    /// A turn file for the player whose turn it is: one legal turn, sometimes followed by
    /// more turns sent ahead (each legal after the ones before), sometimes with a squeeze
    /// line first.
    pub fn turn_file(&mut self, game: &Overdue, player: usize) -> String {
        let mut text = String::new();
        if self.rng.gen_bool(0.2) {
            let s = Squeeze { number: self.rng.gen_range(1..=6), rerolls: self.rng.gen_range(0..=5) };
            text.push_str(&format!("{s}\n"));
        }
        let mut ahead = game.players[player].clone();
        let turns = if self.rng.gen_bool(0.25) { self.rng.gen_range(2..=3) } else { 1 };
        for _ in 0..turns {
            let legal = super::legal_turns(&ahead);
            if legal.is_empty() {
                break;
            }
            let turn = legal[self.below(legal.len())];
            // A time turn may bring the deadline: nothing after it would be used.
            let last = matches!(turn, Turn::Time(_));
            super::apply_to(&mut ahead, turn);
            text.push_str(&format!("{turn}\n"));
            if last {
                break;
            }
        }
        text
    }
}

/// One random game: `players` seats, these options, the dice from `seed`, turns chosen
/// by `chooser`; a missed deadline now and then. Returns the finished game and the
/// number of calls made.
pub fn playout(players: usize, options: &Options, seed: Seed, chooser: &mut RandomPlayer) -> Result<Overdue, String> {
    let names: Vec<String> = (1..=players).map(|i| format!("p{i}")).collect();
    let mut dice = Dice::new(seed, "random", 0);
    let mut ctx = TurnContext { dice: &mut dice, now: chrono::DateTime::UNIX_EPOCH, hold: false };
    let mut game = Overdue::new(names, options, &mut ctx)?;
    game.advance(&mut ctx);
    for _ in 0..1_000_000 {
        let Some(player) = game.to_play() else { return Ok(game) };
        if chooser.below(20) == 0 {
            game.force(crate::turn::Defaulted::Deadline, &mut ctx);
        } else {
            let text = chooser.turn_file(&game, player);
            let ack = game.submit(player, &text, &mut ctx);
            // Turns sent ahead may be dropped by a deadline that comes first: legal all the same.
            if let Some(refused) = ack.lines.iter().find(|l| !l.accepted && !l.dropped) {
                return Err(format!("a legal turn file was refused: {text:?}: {}", refused.text));
            }
        }
        game.advance(&mut ctx);
        ctx.dice.take_rolls();
    }
    Err("the game did not end".into())
}
