//! How a game ends by agreement: the master's draw, the powers' votes for a draw or a
//! concession.

use chrono::{DateTime, Utc};

use super::{GameError, OpenGame};
use crate::diplomacy::engine::Vote;
use crate::diplomacy::map::PowerId;
use crate::diplomacy::state::GameEnd;
use crate::game::journal::Entry;

impl OpenGame {
    /// The game master declares a draw between the surviving powers.
    pub fn declare_draw(&mut self, now: DateTime<Utc>) -> Result<String, GameError> {
        let mut lock = self.relock()?;
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let notice = self.game.declare_draw();
        let state = self.game.state.clone();
        self.record(&mut lock, now, Entry::DrawDeclared { notice: notice.clone(), state })?;
        Ok(notice)
    }

    /// A power votes for a draw; returns the end notice if that made the game a draw.
    pub fn vote_draw(&mut self, power: PowerId, now: DateTime<Utc>) -> Result<Option<String>, GameError> {
        let mut lock = self.relock()?;
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let notice = self.game.vote_draw(power);
        self.record(&mut lock, now, Entry::DrawVote { power: self.game.map.power(power).key.clone() })?;
        Ok(notice)
    }

    /// A power's vote on how the game ends; how it ends, if this vote made a proposal
    /// pass. Carried out again after an interruption, the vote is not kept twice.
    pub fn vote(&mut self, power: PowerId, vote: &Vote, now: DateTime<Utc>) -> Result<Option<GameEnd>, GameError> {
        let mut lock = self.relock()?;
        if self.done_before() {
            return Ok(None);
        }
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let key = |p: &PowerId| self.game.map.power(*p).key.clone();
        let (word, powers) = match vote {
            Vote::Draw { powers } => ("draw", powers.iter().map(key).collect()),
            Vote::NoDraw => ("nodraw", Vec::new()),
            Vote::Concede { to } => ("concede", vec![key(to)]),
            Vote::NoConcede => ("noconcede", Vec::new()),
        };
        let voters = Some(self.game.voters().iter().map(key).collect());
        let entry = Entry::Vote { power: key(&power), vote: word.to_string(), powers, voters };
        let end = self.game.vote(power, vote);
        self.record(&mut lock, now, entry)?;
        Ok(end)
    }
}
