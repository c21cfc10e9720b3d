//! The rules of Duplexity as our rulings read them (docs/duplexity.md): setup, the round
//! (Energize, Initiative, Act, the March, the Future, the end check), the actions, and
//! landing.
//!
//! [`Duplexity`] is the whole game state, and its methods are a typed API for programs
//! that play it (the turn files of [`super::turnfile`] come down to the same calls):
//! [`Duplexity::place`], [`Duplexity::bid`], [`Duplexity::activate`],
//! [`Duplexity::choose`], then [`Duplexity::settle`] for the automatic steps, and
//! [`Duplexity::force`] for the deadline defaults. Every roll goes through the [`Dice`](crate::dice::Dice)
//! handed in; nothing here reads a clock or does IO. What happens is told in plain words
//! to a [`Log`], which a program that needs no words can switch off: the state is the
//! same either way.
//!
//! One file a job: `setup` (who places first, the placements), `bids` (Energize and the
//! Initiative), `activation` (an activation line and a Move's direction), `actions` (Move,
//! Shift, Gather, Alter), `landing` (paradox, Hazards and Havens), `time` (the March and
//! the Future), `round` (the automatic steps and the end of the game), `deadline` (the
//! deadline defaults), `refusal` (why a line is refused or an action not done), `input`
//! (what a player sends, as values) and `log` (the words).

use serde::{Deserialize, Serialize};

use super::board::{Board, Space};
use crate::turn::Ending;

#[macro_use]
mod log;

mod actions;
mod activation;
mod bids;
mod deadline;
mod input;
mod landing;
mod refusal;
mod round;
mod setup;
mod time;

pub use self::input::{Action, Bid, Kind, KindName, Order, Token, Way};
pub use self::log::Log;
pub use self::refusal::Refusal;

/// Energy each player starts with.
pub const START_ENERGY: u32 = 1;
/// The most energy one Shift spends (and zones it crosses).
pub const MAX_SHIFT: u32 = 4;

/// The rules options of one game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The most pawns a player may have on the board at once (`None`: unlimited).
    pub pawn_limit: Option<u32>,
    /// After this round the game is drawn (`None`: no limit).
    pub max_rounds: Option<u32>,
}

/// One player: a name and an energy supply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    pub name: String,
    pub energy: u32,
}

/// A Move rolled, waiting for the player to say where it goes (`to 7`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingMove {
    pub player: u8,
    /// Where the pawn stands.
    pub pawn: Space,
    pub roll: u8,
    /// The two spaces the roll reaches (rising, falling).
    pub choices: [Space; 2],
    /// The actions written after the Move, done once it is made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rest: Vec<Action>,
    /// The kinds of action this activation has used or holds (the Move included).
    pub used: Vec<KindName>,
}

/// Where the game stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case", deny_unknown_fields)]
pub enum Stage {
    /// `next` places a pawn in the Present (`first` placed, or places, the first pawn).
    /// `ahead`: the other player's placement, sent before the first pawn was down; it is
    /// made once it is, if it is still allowed.
    Setup {
        first: u8,
        next: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ahead: Option<Space>,
    },
    /// Sealed bids, as they come in.
    Bid { bids: [Option<Bid>; 2] },
    /// Activations: `turn` is the player to activate (or to say where a Move goes).
    Act {
        first: u8,
        turn: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pending: Option<PendingMove>,
    },
    /// The game is over.
    Over,
}

/// A whole game of Duplexity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Duplexity {
    pub settings: Settings,
    pub players: [Player; 2],
    pub board: Board,
    /// 0 during setup, then the round under way.
    pub round: u32,
    pub stage: Stage,
    pub ending: Option<Ending>,
}

fn other(p: u8) -> u8 {
    1 - p
}

impl Duplexity {
    pub fn name(&self, p: u8) -> &str {
        &self.players[usize::from(p)].name
    }

    pub fn energy(&self, p: u8) -> u32 {
        self.players[usize::from(p)].energy
    }

    fn energy_mut(&mut self, p: u8) -> &mut u32 {
        &mut self.players[usize::from(p)].energy
    }

    /// The players whose input the game waits for, in seat order.
    pub fn awaited(&self) -> Vec<u8> {
        (0..2u8).filter(|p| self.awaits(*p)).collect()
    }

    /// Whether the game waits for `player`'s input.
    pub fn awaits(&self, player: u8) -> bool {
        match &self.stage {
            Stage::Setup { next, .. } => *next == player,
            Stage::Bid { bids } => bids.get(usize::from(player)).is_some_and(|b| b.is_none()),
            Stage::Act { turn, .. } => *turn == player,
            Stage::Over => false,
        }
    }

    /// The unspent pawns of `player`, in board order.
    pub fn unspent(&self, player: u8) -> Vec<Space> {
        self.board.pawns_of(player).filter(|(_, p)| !p.acted).map(|(s, _)| s).collect()
    }

    /// Why the stored game is not a possible game, if it is not.
    pub fn fault(&self) -> Option<String> {
        if let Some((s, why)) = self.board.invariant_fault() {
            return Some(format!("{s}: {why}"));
        }
        match &self.stage {
            Stage::Setup { first, next, .. } if *first > 1 || *next > 1 => Some("a player's seat is 0 or 1".into()),
            Stage::Act { first, turn, .. } if *first > 1 || *turn > 1 => Some("a player's seat is 0 or 1".into()),
            Stage::Act { pending: Some(p), .. } if self.board.pawn(p.pawn).is_none_or(|x| x.owner != p.player) => {
                Some(format!("a Move waits for a pawn of seat {} at {}, and there is none", p.player, p.pawn))
            }
            Stage::Over if self.ending.is_none() => Some("the game is over but has no ending".into()),
            _ => None,
        }
    }
}
