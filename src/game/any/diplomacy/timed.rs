//! A Diplomacy game's deadline: what the tick sees, going on early, extending for the late,
//! the glance.

use super::*;

impl Timed for OpenGame {
    fn deadline(&self) -> Option<DateTime<Utc>> {
        // A finished game (a passed vote ends it where it stands) has no next deadline.
        self.game.state.deadline.filter(|_| self.game.state.end.is_none())
    }

    fn scheduled_deadline(&self, now: DateTime<Utc>) -> Result<DateTime<Utc>, GameError> {
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        if let Some(left) = self.seats_left() {
            return Err(usage(format!(
                "the game waits for players ({} open); it starts by itself when the last one joins",
                count(left, "seat", "seats")
            )));
        }
        let schedule = &self.game.settings.deadlines.schedule;
        let at = schedule.deadline_for(self.game.state.phase.kind, now).map_err(|e| usage(e.to_string()))?;
        Ok(self.absent_until(at).map_or(at, |(moved, _)| moved))
    }

    fn set_deadline(&mut self, deadline: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Result<(), GameError> {
        OpenGame::set_deadline(self, deadline, now)
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

    fn go_on_early(&mut self, now: DateTime<Utc>) -> Result<Option<String>, GameError> {
        let state = &self.game.state;
        // Early means before the deadline; whether it may go on, `adjudicate_early` decides.
        if state.deadline.is_none_or(|d| d <= now) {
            return Ok(None);
        }
        let Some(report) = self.adjudicate_early(state.phase, now)? else { return Ok(None) };
        let readers = readers(&self.game);
        Ok(Some(format!(
            "{} processed early (every order in); the results go to {}.",
            report.phase,
            count(readers, "address", "addresses")
        )))
    }

    fn late_extension(&mut self, expected: &str, now: DateTime<Utc>) -> Result<Option<Outcome>, GameError> {
        let expected = parse_phase(expected)?;
        let Some((powers, at)) = self.extend_late(expected, now)? else { return Ok(None) };
        let map = &self.game.map;
        let names: Vec<String> = powers.iter().map(|p| map.power(*p).name.clone()).collect();
        let game = self.game.settings.name.clone();
        let phase = self.game.state.phase;
        let shown = crate::diplomacy::report::format_deadline(at, None);
        let mut notices = Vec::new();
        for p in &powers {
            let Some(address) = settings_address(&self.game, *p) else { continue };
            notices.push(Notice {
                final_board: false,
                to: vec![address],
                subject: format!("{game}: late, no orders from {}", map.power(*p).name),
                body: format!(
                    "The deadline of {phase} passed without orders from {}.\nThe phase is extended once, to \
                     {shown}: send your orders before then.\n",
                    map.power(*p).name
                ),
            });
        }
        if let Some(master) = self.game.settings.master.email.clone() {
            notices.push(Notice {
                final_board: false,
                to: vec![master],
                subject: format!("{game}: late, {phase} extended"),
                body: format!("No orders from {} by the deadline: {phase} is extended to {shown}.\n", names.join(", ")),
            });
        }
        Ok(Some(Outcome { said: format!("{phase} extended to {shown}: late {}", names.join(", ")), notices }))
    }

    fn keep_glance(&self, clock: Option<&Clock>) {
        let missing = clock.map_or_else(|| missing_powers(&self.game), |c| c.missing.clone());
        // Only a cache: if it cannot be kept, the next tick opens the game in full.
        let _ = OpenGame::keep_glance(self, missing);
    }
}
