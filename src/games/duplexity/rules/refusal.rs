//! Why a line is refused (the game stays as it was), or one action of an activation not
//! done (the activation goes on without it).

use super::super::board::{Space, Zone};
use super::{Duplexity, Stage, Token, MAX_SHIFT};

/// Why a line was refused: the one refusal of every game (the line is set by the caller).
pub use crate::answer::Refusal;

impl Duplexity {
    /// Refused once the game is over.
    pub(super) fn over(&self) -> Result<(), Refusal> {
        match self.ending {
            Some(_) => Err(Refusal::new("the game is over")),
            None => Ok(()),
        }
    }

    /// Why `player` may not send anything now, if so.
    pub(super) fn not_awaited(&self, player: u8, what: &str) -> Result<(), Refusal> {
        self.over()?;
        if self.awaits(player) {
            return Ok(());
        }
        let awaited = self.awaited();
        let waiting: Vec<&str> = awaited.iter().map(|p| self.name(*p)).collect();
        let now = match &self.stage {
            Stage::Setup { .. } => "to place a pawn",
            Stage::Bid { .. } => "for a bid",
            Stage::Act { pending: Some(_), .. } => "to say where a Move goes",
            Stage::Act { .. } => "to activate a pawn",
            Stage::Over => "",
        };
        Err(Refusal::new(format!(
            "not your turn to {what}: the judge is waiting for {} {now}",
            if waiting.is_empty() { "nobody".to_string() } else { waiting.join(" and ") }
        )))
    }
}

/// Why one action of an activation is not done (the activation goes on without it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unable {
    ShiftSize,
    ShiftCost { cost: u32, energy: u32 },
    OffBoard { at: Space },
    AlterOwnZone { zone: Zone },
    AlterEnergy,
    NoToken { token: Token, at: Space },
}

impl std::fmt::Display for Unable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unable::ShiftSize => write!(f, "a Shift spends 1 to {MAX_SHIFT} energy, one zone each"),
            Unable::ShiftCost { cost, energy } => {
                write!(f, "a Shift of {cost} costs {cost} energy and you have {energy}")
            }
            Unable::OffBoard { at } => write!(
                f,
                "it would leave the board ({at} is in the {}; the board runs from the Distant Past to the Far Future)",
                at.zone.name()
            ),
            Unable::AlterOwnZone { zone } => {
                write!(f, "Alter works in another zone than the pawn's own ({})", zone.code())
            }
            Unable::AlterEnergy => write!(f, "Alter costs 1 energy and you have none"),
            Unable::NoToken { token, at } => write!(f, "there is no {} at {at}", token.name()),
        }
    }
}
