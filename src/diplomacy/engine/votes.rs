//! How a game ends by vote: draws and concessions.

use crate::diplomacy::map::PowerId;
use crate::diplomacy::state::{Concession, GameEnd, NamedDraw};

use super::Game;

/// A power's vote on how the game ends (`draw`, `nodraw`, `concede`, `noconcede`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Vote {
    /// For a draw: between every survivor (no powers named), or between these powers.
    Draw {
        powers: Vec<PowerId>,
    },
    NoDraw,
    /// To concede the game to this power.
    Concede {
        to: PowerId,
    },
    NoConcede,
}

impl Game {
    /// "Italy wins the game." / "The game is drawn between France and Italy."
    pub fn end_notice(&self, end: &GameEnd) -> String {
        super::adjudicated::end_notice(&self.map, end)
    }

    /// Declare a draw between the surviving powers (the game master's decision).
    pub fn declare_draw(&mut self) -> String {
        let end = GameEnd::Draw(self.active_powers());
        let notice = self.end_notice(&end);
        self.state.end = Some(end);
        notice
    }

    /// A power votes for a draw. Returns the end notice when every surviving power has now
    /// voted (the game is drawn between them).
    pub fn vote_draw(&mut self, power: PowerId) -> Option<String> {
        if !self.state.draw_votes.contains(&power) {
            self.state.draw_votes.push(power);
        }
        let all = self.active_powers().iter().all(|p| self.state.draw_votes.contains(p));
        if all && self.state.end.is_none() {
            Some(self.declare_draw())
        } else {
            None
        }
    }

    /// The powers that vote on a draw or concession: those still in the game that a
    /// player plays (a vacant power has no vote, but shares a draw).
    pub fn voters(&self) -> Vec<PowerId> {
        let played = |p: &PowerId| self.settings.players.is_empty() || self.settings.player(&self.map, *p).is_some();
        self.active_powers().into_iter().filter(played).collect()
    }

    /// A power's vote on a draw or concession (it replaces the power's earlier vote of
    /// the same kind). Returns how the game ends when the vote makes a proposal pass: a
    /// draw every voter asked for (between every survivor, or, named, between the same
    /// powers in every vote), or a concession every other voter made to the same power.
    pub fn vote(&mut self, power: PowerId, vote: &Vote) -> Option<GameEnd> {
        let voters = self.voters();
        self.vote_among(power, vote, &voters)
    }

    /// [`Game::vote`], counted among the `voters` given (a journal's replay passes those
    /// of the time the vote was cast).
    pub fn vote_among(&mut self, power: PowerId, vote: &Vote, voters: &[PowerId]) -> Option<GameEnd> {
        let s = &mut self.state;
        match vote {
            Vote::Draw { powers } if powers.is_empty() => {
                if !s.draw_votes.contains(&power) {
                    s.draw_votes.push(power);
                }
            }
            Vote::Draw { powers } => {
                let mut powers = powers.clone();
                powers.sort_unstable();
                powers.dedup();
                s.draw_named.retain(|d| d.power != power);
                s.draw_named.push(NamedDraw { power, powers });
            }
            Vote::NoDraw => {
                s.draw_votes.retain(|p| *p != power);
                s.draw_named.retain(|d| d.power != power);
            }
            Vote::Concede { to } => {
                s.concessions.retain(|c| c.power != power);
                s.concessions.push(Concession { power, to: *to });
            }
            Vote::NoConcede => s.concessions.retain(|c| c.power != power),
        }
        if self.state.end.is_some() {
            return None;
        }
        let end = self.passed(voters)?;
        self.state.end = Some(end.clone());
        Some(end)
    }

    /// `power` has a new player, or none: the votes its player cast go with them.
    /// Whether it had any.
    pub fn withdraw_votes(&mut self, power: PowerId) -> bool {
        let s = &mut self.state;
        let before = s.draw_votes.len() + s.draw_named.len() + s.concessions.len();
        s.draw_votes.retain(|p| *p != power);
        s.draw_named.retain(|d| d.power != power);
        s.concessions.retain(|c| c.power != power);
        before != s.draw_votes.len() + s.draw_named.len() + s.concessions.len()
    }

    /// Count the votes again among `voters` (after a change of players: a resignation
    /// may leave every remaining voter agreed). How the game ends, if a proposal passes.
    pub fn recount(&mut self, voters: &[PowerId]) -> Option<GameEnd> {
        if self.state.end.is_some() {
            return None;
        }
        let end = self.passed(voters)?;
        self.state.end = Some(end.clone());
        Some(end)
    }

    /// The proposal every voter agrees to, if one does.
    fn passed(&self, voters: &[PowerId]) -> Option<GameEnd> {
        let s = &self.state;
        if voters.is_empty() {
            return None;
        }
        if voters.iter().all(|p| s.draw_votes.contains(p)) {
            return Some(GameEnd::Draw(self.active_powers()));
        }
        let named = |p: &PowerId| s.draw_named.iter().find(|d| d.power == *p).map(|d| &d.powers);
        if let Some(first) = named(&voters[0]) {
            if voters.iter().all(|p| named(p) == Some(first)) {
                return Some(GameEnd::Draw(first.clone()));
            }
        }
        let conceded = |p: &PowerId| s.concessions.iter().find(|c| c.power == *p).map(|c| c.to);
        voters
            .iter()
            .copied()
            .find(|winner| voters.iter().filter(|p| *p != winner).all(|p| conceded(p) == Some(*winner)))
            .filter(|_| voters.len() > 1)
            .map(GameEnd::Victory)
    }
}
