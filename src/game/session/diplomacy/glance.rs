//! This game's [`Glance`] for the mail tick (see [`crate::game::glance`]).

use super::{GameError, OpenGame};
use crate::game::glance::{self, Glance};

impl OpenGame {
    /// Keep this game's [`Glance`] (`missing`: the powers that owe orders) for the next
    /// tick, if nobody holds the lock and the game's files are still as they were read;
    /// otherwise leave it (the next tick opens the game in full).
    pub fn keep_glance(&self, missing: Vec<String>) -> Result<(), GameError> {
        let Some(stamp) = &self.stamp else { return Ok(()) };
        let state = &self.game.state;
        let glance = Glance {
            stamp: stamp.clone(),
            step: state.phase.code(),
            deadline: state.deadline,
            over: state.end.is_some(),
            missing,
            early: self.may_process_early(state.phase),
            owed: !self.results_owed()?.is_empty(),
            deadlines: self.game.settings.deadlines.clone(),
        };
        Ok(glance::keep(&self.dir, &glance)?)
    }
}
