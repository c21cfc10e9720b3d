//! A Diplomacy game's deadline: what the tick sees, going on early, extending for the late,
//! the glance.

use super::*;

impl Timed for OpenGame {
    fn deadline(&self) -> Option<DateTime<Utc>> {
        // A finished game (a passed vote ends it where it stands) has no next deadline.
        self.game.state.deadline.filter(|_| self.game.state.end.is_none())
    }

    fn clock(&self) -> Option<Clock> {
        let state = &self.game.state;
        let (Some(deadline), None) = (state.deadline, &state.end) else { return None };
        // The phase began with the last entry that moved the game (a new phase, a rollback).
        let started = self.dir.journal::<crate::game::journal::Entry>().ok().and_then(|j| {
            j.records().iter().rev().find(|r| crate::game::journal::moves_the_game(&r.entry)).map(|r| r.at)
        });
        Some(Clock {
            step: state.phase.code(),
            deadline,
            started,
            missing: missing_powers(&self.game),
            policy: self.game.settings.deadlines.clone(),
            awaited: None,
            defaults: match state.phase.kind {
                PhaseKind::Movement => "units without orders hold",
                PhaseKind::Retreats => "dislodged units without orders are disbanded",
                PhaseKind::Adjustments => "builds not ordered are waived, and missing disbands are chosen by the rules",
            }
            .to_string(),
        })
    }

    fn keep_glance(&self, clock: Option<&Clock>) {
        let state = &self.game.state;
        let seen = crate::game::session::Seen {
            step: state.phase.code(),
            deadline: state.deadline,
            over: state.end.is_some(),
            missing: clock.map_or_else(|| missing_powers(&self.game), |c| c.missing.clone()),
            early: self.may_process_early(state.phase),
            deadlines: self.game.settings.deadlines.clone(),
        };
        OpenGame::keep_glance(self, seen);
    }
}
