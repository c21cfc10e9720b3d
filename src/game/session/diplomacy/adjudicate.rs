//! A phase adjudicated: when every power is ready or at the deadline, early, or for the
//! mail judge (its results owed in the same write); the next deadline; the phases a
//! power missed, and the powers declared vacant for it.

use chrono::{DateTime, Utc};

use super::particulars::player_changes;
use super::{schedule_error, GameError, OpenGame};
use crate::diplomacy::report::PhaseReport;
use crate::diplomacy::state::Missed;
use crate::game::journal::Entry;
use crate::phase::Phase;
use crate::store::GameLock;
use crate::text::count;

impl OpenGame {
    /// Adjudicate the current phase: when every power has sent orders, or with `force`.
    pub fn adjudicate(&mut self, force: bool, now: DateTime<Utc>) -> Result<PhaseReport, GameError> {
        self.adjudicate_phase(None, force, now)
    }

    /// [`adjudicate`](Self::adjudicate), but only if the game is still in `expected`: a
    /// caller that decided to adjudicate from an earlier read (the mail tick) must not
    /// adjudicate the next phase when someone else got there first.
    pub fn adjudicate_phase(
        &mut self,
        expected: Option<Phase>,
        force: bool,
        now: DateTime<Utc>,
    ) -> Result<PhaseReport, GameError> {
        self.adjudicate_entry(expected, force, false, false, now)
    }

    /// [`adjudicate_phase`](Self::adjudicate_phase) for the mail judge: the journal entry
    /// says its results are owed by mail (see [`results_owed`](Self::results_owed)), in
    /// the same durable write as the adjudication itself.
    pub fn adjudicate_to_mail(
        &mut self,
        expected: Option<Phase>,
        force: bool,
        now: DateTime<Utc>,
    ) -> Result<PhaseReport, GameError> {
        self.adjudicate_entry(expected, force, true, false, now)
    }

    /// Early processing, for the mail tick: adjudicate the phase `expected` now, before
    /// its deadline, if the game allows it (`[deadlines] early`, on by default), every
    /// power has complete orders and none asked to wait. `None` when it may not (yet).
    /// The results are owed by mail and say the phase was processed early.
    pub fn adjudicate_early(&mut self, expected: Phase, now: DateTime<Utc>) -> Result<Option<PhaseReport>, GameError> {
        if !self.may_process_early(expected) {
            return Ok(None);
        }
        // Looked at again under the lock, where it is decided.
        self.adjudicate_entry(Some(expected), false, true, true, now).map(Some)
    }

    /// Whether [`adjudicate_early`](Self::adjudicate_early) would process `expected`.
    pub fn may_process_early(&self, expected: Phase) -> bool {
        let g = &self.game;
        g.settings.deadlines.goes_on_early(g.state.waiting.is_empty())
            && g.state.end.is_none()
            && g.state.phase == expected
            && g.map
                .power_ids()
                .all(|p| !g.has_duty(p) || (g.state.submitted.contains(&p) && g.missing_orders(p).is_empty()))
    }

    fn adjudicate_entry(
        &mut self,
        expected: Option<Phase>,
        force: bool,
        mail_results: bool,
        early: bool,
        now: DateTime<Utc>,
    ) -> Result<PhaseReport, GameError> {
        let mut lock = self.relock()?;
        if early && !self.may_process_early(expected.unwrap_or(self.game.state.phase)) {
            return Err(GameError::Invalid("the phase may not be processed early any more".into()));
        }
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        if let Some(left) = self.seats_left() {
            return Err(GameError::Invalid(format!(
                "the game has not started: {} still open; nothing is processed before the last join",
                count(left, "seat is", "seats are")
            )));
        }
        if let Some(expected) = expected.filter(|p| *p != self.game.state.phase) {
            return Err(GameError::Invalid(format!(
                "{expected} was already adjudicated; the game is in {}",
                self.game.state.phase
            )));
        }
        let waiting = self.game.waiting_for();
        if !waiting.is_empty() && !force {
            return Err(GameError::NotReady(waiting.iter().map(|p| self.game.map.power(*p).name.clone()).collect()));
        }
        let schedule = self.game.settings.deadlines.schedule.clone();
        schedule.check().map_err(schedule_error)?;
        let phase = self.game.state.phase;
        let abandon_after = self.game.settings.deadlines.abandon_after;
        let missed = (abandon_after > 0).then(|| self.missed_phases());
        let report = self.game.adjudicate();
        self.game.state.deadline = match self.game.state.end {
            None => Some(schedule.deadline_for(self.game.state.phase.kind, now).map_err(schedule_error)?),
            Some(_) => None,
        };
        let mut report = report;
        if let Some((at, powers)) = self.game.state.deadline.and_then(|d| self.absent_until(d)) {
            self.game.state.deadline = Some(at);
            report.notices.push(self.absence_notice(&powers));
        }
        let mut abandoned = Vec::new();
        if let Some(missed) = missed {
            for m in missed.iter().filter(|m| m.phases >= abandon_after && self.game.state.end.is_none()) {
                let name = self.game.map.power(m.power).name.clone();
                report.notices.push(format!(
                    "{name} sent no orders for {} in a row and is declared vacant: its units hold, and are \
                     disbanded by the rules in Winter, until a new player takes it.",
                    count(m.phases, "phase", "phases")
                ));
                abandoned.push(m.clone());
            }
            self.game.state.missed = missed.into_iter().filter(|m| m.phases < abandon_after).collect();
        }
        let entry = Entry::Adjudicated {
            phase,
            forced: force,
            report: Box::new(report.clone()),
            state: self.game.state.clone(),
            mail_results,
            early,
        };
        self.record(&mut lock, now, entry)?;
        if !abandoned.is_empty() {
            self.vacate(&mut lock, &abandoned, now)?;
        }
        Ok(report)
    }

    /// The phases each power has missed in a row, counting the phase under way as
    /// missed by every power with orders to give that sent none (a power without any
    /// keeps its count; one that sent orders starts again).
    fn missed_phases(&self) -> Vec<Missed> {
        let g = &self.game;
        g.map
            .power_ids()
            .filter_map(|p| {
                let before = g.state.missed.iter().find(|m| m.power == p).map_or(0, |m| m.phases);
                let phases = match (g.has_duty(p), g.state.submitted.contains(&p)) {
                    (true, false) => before + 1,
                    (true, true) => 0,
                    (false, _) => before,
                };
                (phases > 0).then_some(Missed { power: p, phases })
            })
            .collect()
    }

    /// Declare powers vacant: journaled, then their players taken out of game.toml (a
    /// player change each), so the judge waits for them no more.
    fn vacate(&mut self, lock: &mut GameLock, powers: &[Missed], now: DateTime<Utc>) -> Result<(), GameError> {
        let map = self.game.map.clone();
        let mut settings = self.game.settings.clone();
        for m in powers {
            let key = map.power(m.power).key.clone();
            self.record(lock, now, Entry::Abandoned { power: key, missed: m.phases })?;
            settings.players.retain(|p| map.lookup_power(&p.power) != Some(m.power));
        }
        for entry in player_changes(&map, &self.game.settings, &settings) {
            self.record(lock, now, entry)?;
        }
        lock.write_settings(&settings)?;
        self.game.settings = settings;
        Ok(())
    }
}
