//! Absences: announced by a power within the game's caps, refused by the master, and the
//! deadlines they move.

use chrono::{DateTime, Utc};

use super::{schedule_error, GameError, OpenGame};
use crate::diplomacy::map::PowerId;
use crate::game::journal::{self, Entry};
use crate::game::settings::{PressRule, Votes};
use crate::store::GameLock;
use crate::text::count;

/// An absence a power announced: from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Absence {
    pub power: PowerId,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

impl OpenGame {
    /// The absences announced and not refused, oldest first (a rollback keeps them: they
    /// are read from the whole journal).
    pub fn absences(&self) -> Vec<Absence> {
        let mut out: Vec<Absence> = Vec::new();
        for e in &self.entries {
            match e {
                Entry::Absence { power, from, to, .. } => {
                    if let Some(power) = self.game.map.lookup_power(power) {
                        out.push(Absence { power, from: *from, to: *to });
                    }
                }
                Entry::AbsenceRefused { power, .. } => {
                    let p = self.game.map.lookup_power(power);
                    out.retain(|a| Some(a.power) != p);
                }
                _ => {}
            }
        }
        out
    }

    /// Where a deadline moves for the absences announced: to the end of every absence it
    /// falls inside (of a power still in the game with a player), again and again while
    /// the end falls inside another. The new deadline and the powers whose absence moved
    /// it; `None` when none does.
    pub fn absent_until(&self, deadline: DateTime<Utc>) -> Option<(DateTime<Utc>, Vec<PowerId>)> {
        let voters = self.game.voters();
        let absences: Vec<Absence> = self.absences().into_iter().filter(|a| voters.contains(&a.power)).collect();
        let mut at = deadline;
        let mut powers = Vec::new();
        for _ in 0..=absences.len() {
            let Some(a) = absences.iter().filter(|a| a.from <= at && at < a.to).max_by_key(|a| a.to) else { break };
            at = a.to;
            if !powers.contains(&a.power) {
                powers.push(a.power);
            }
        }
        (at != deadline).then_some((at, powers))
    }

    /// A power announces an absence, from `from` to `to` (the instant it ends); refused
    /// beyond the game's caps. The deadline under way moves to its end if it falls inside
    /// it: the new deadline, if it moved.
    pub fn announce_absence(
        &mut self,
        power: PowerId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, GameError> {
        self.relocked_once(|_| None, |g, lock| g.announce_absence_locked(lock, power, from, to, now))
    }

    fn announce_absence_locked(
        &mut self,
        lock: &mut GameLock,
        power: PowerId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, GameError> {
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let policy = &self.game.settings.deadlines;
        let invalid = |s: String| Err(GameError::Invalid(s));
        if policy.absence_days == 0 {
            return invalid("this game takes no absences (absence_days = 0)".into());
        }
        if to <= from {
            return invalid("the absence ends before it begins".into());
        }
        if to <= now {
            return invalid("that absence is over already".into());
        }
        if from > now + chrono::Duration::days(366) {
            return invalid("an absence may be announced at most a year ahead".into());
        }
        let days = |a: DateTime<Utc>, b: DateTime<Utc>| ((b - a).num_hours() + 23) / 24;
        let absences = self.absences();
        let used: i64 = absences.iter().filter(|a| a.power == power).map(|a| days(a.from, a.to)).sum();
        let cap = i64::from(policy.absence_days);
        if used + days(from, to) > cap {
            return invalid(format!(
                "at most {} of absence per player in this game; this one is {} and {} left",
                count(cap, "day", "days"),
                count(days(from, to), "day", "days"),
                if used >= cap { "none is".to_string() } else { format!("{} are", count(cap - used, "day", "days")) }
            ));
        }
        let overlapping = absences.iter().filter(|a| a.from < to && from < a.to).count();
        if overlapping >= policy.absences_at_once as usize {
            return invalid(format!(
                "at most {} may run at once in this game, and {overlapping} already cover some of those days",
                count(policy.absences_at_once, "absence", "absences")
            ));
        }
        let key = self.game.map.power(power).key.clone();
        self.entries.push(Entry::Absence { power: key.clone(), from, to, moved_from: None, moved_to: None });
        let moved = self.game.state.deadline.and_then(|d| self.absent_until(d).map(|(at, _)| (d, at)));
        self.entries.pop();
        if let Some((_, at)) = moved {
            self.game.state.deadline = Some(at);
        }
        let entry =
            Entry::Absence { power: key, from, to, moved_from: moved.map(|m| m.0), moved_to: moved.map(|m| m.1) };
        self.record(lock, now, entry)?;
        Ok(moved.map(|m| m.1))
    }

    /// The master refuses a power's absences: they no longer move a deadline. A deadline
    /// under way that one of them moved goes back to the one the schedule gives the phase
    /// (not before now), moved again by the other absences: the new deadline, if it moved.
    pub fn refuse_absence_of(
        &mut self,
        power: PowerId,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, GameError> {
        self.relocked_once(|_| None, |g, lock| g.refuse_absence_locked(lock, power, now))
    }

    fn refuse_absence_locked(
        &mut self,
        lock: &mut GameLock,
        power: PowerId,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, GameError> {
        let name = self.game.map.power(power).name.clone();
        let refused: Vec<Absence> = self.absences().into_iter().filter(|a| a.power == power).collect();
        if refused.is_empty() {
            return Err(GameError::Invalid(format!("{name} announced no absence to refuse")));
        }
        let key = self.game.map.power(power).key.clone();
        let before = self.game.state.deadline;
        self.entries.push(Entry::AbsenceRefused { power: key.clone(), moved_to: None });
        let moved = match before {
            Some(d) if self.game.state.end.is_none() && refused.iter().any(|a| a.to == d) => {
                let started =
                    self.book.records().iter().rev().find(|r| journal::moves_the_game(&r.entry)).map_or(now, |r| r.at);
                let scheduled = self
                    .game
                    .settings
                    .deadlines
                    .schedule
                    .deadline_for(self.game.state.phase.kind, started)
                    .map_err(schedule_error)?
                    .max(now);
                let at = self.absent_until(scheduled).map_or(scheduled, |(at, _)| at);
                (at != d).then_some(at)
            }
            _ => None,
        };
        self.entries.pop();
        if let Some(at) = moved {
            self.game.state.deadline = Some(at);
        }
        self.record(lock, now, Entry::AbsenceRefused { power: key, moved_to: moved })?;
        Ok(moved)
    }

    /// What everyone is told of a deadline the absences of `powers` moved: not whose,
    /// unless the game's votes or press are public anyway.
    pub fn absence_notice(&self, powers: &[PowerId]) -> String {
        let settings = &self.game.settings;
        if settings.votes == Votes::Public && settings.press == PressRule::Full {
            let names: Vec<String> = powers.iter().map(|p| self.game.map.power(*p).name.clone()).collect();
            format!("The deadline is moved to the end of an absence {} announced.", names.join(" and "))
        } else {
            "The deadline is moved to the end of an announced absence.".to_string()
        }
    }
}
