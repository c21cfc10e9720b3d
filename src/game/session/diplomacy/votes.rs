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

    /// `power_key` has a new player, or none: withdraw its player's votes and count them
    /// again among today's voters (journaled only when that changed something). How the
    /// game ends, if the recount passed a proposal. Under the caller's lock, after the
    /// change of player is in the settings.
    pub fn votes_follow_players(
        &mut self,
        lock: &mut crate::store::GameLock,
        power_key: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<GameEnd>, GameError> {
        let Some(power) = self.game.map.lookup_power(power_key) else { return Ok(None) };
        if self.game.state.end.is_some() {
            return Ok(None);
        }
        let withdrawn = self.game.withdraw_votes(power);
        let voters = self.game.voters();
        let end = self.game.recount(&voters);
        if withdrawn || end.is_some() {
            let key = |p: &PowerId| self.game.map.power(*p).key.clone();
            let entry = Entry::VotesCounted { power: key(&power), voters: voters.iter().map(key).collect() };
            self.record(lock, now, entry)?;
        }
        Ok(end)
    }

    /// [`votes_follow_players`](Self::votes_follow_players) under a lock of its own.
    pub fn new_player_votes(&mut self, power_key: &str, now: DateTime<Utc>) -> Result<Option<GameEnd>, GameError> {
        let mut lock = self.relock()?;
        self.votes_follow_players(&mut lock, power_key, now)
    }

    /// A power's vote on how the game ends; how it ends, if this vote made a proposal
    /// pass. Carried out again after an interruption, the vote is not kept twice.
    pub fn vote(&mut self, power: PowerId, vote: &Vote, now: DateTime<Utc>) -> Result<Option<GameEnd>, GameError> {
        self.relocked_once(
            |_| None,
            |g, lock| {
                if g.game.state.end.is_some() {
                    return Err(GameError::Over);
                }
                let key = |p: &PowerId| g.game.map.power(*p).key.clone();
                let (word, powers) = match vote {
                    Vote::Draw { powers } => ("draw", powers.iter().map(key).collect()),
                    Vote::NoDraw => ("nodraw", Vec::new()),
                    Vote::Concede { to } => ("concede", vec![key(to)]),
                    Vote::NoConcede => ("noconcede", Vec::new()),
                };
                let voters = Some(g.game.voters().iter().map(key).collect());
                let entry = Entry::Vote { power: key(&power), vote: word.to_string(), powers, voters };
                let end = g.game.vote(power, vote);
                g.record(lock, now, entry)?;
                Ok(end)
            },
        )
    }
}
