//! A rollback: the game back at the start of an earlier phase, journaled (nothing is
//! deleted).

use chrono::{DateTime, Utc};

use super::{GameError, OpenGame};
use crate::game::journal::{self, Entry};
use crate::phase::Phase;

impl OpenGame {
    /// Go back to the start of an earlier phase. Journaled: nothing is deleted.
    pub fn rollback(&mut self, to: Phase, now: DateTime<Utc>) -> Result<(), GameError> {
        let mut lock = self.relock()?;
        let now_at = self.game.state.phase;
        let back_to = || -> String {
            let codes: Vec<String> =
                journal::phases_started(&self.entries).iter().filter(|p| **p <= now_at).map(|p| p.code()).collect();
            codes.join(" ")
        };
        let state = journal::state_at(&self.entries, to).ok_or_else(|| {
            GameError::Invalid(format!("the game was never at the start of {to}; it may go back to {}", back_to()))
        })?;
        // A rollback goes back only: a phase after this one (undone by an earlier
        // rollback) is not part of the game now.
        if to > now_at {
            return Err(GameError::Invalid(format!(
                "{to} is after the phase the game is in ({now_at}): a rollback goes back only; it may go back to {}",
                back_to()
            )));
        }
        self.game.state = state.clone();
        self.record(&mut lock, now, Entry::RolledBack { to, state }).map(drop)
    }
}
