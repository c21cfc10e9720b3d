//! The deadline of the phase under way: late extensions at the deadline, the deadline
//! set by the master, and a power's request to wait for it.

use chrono::{DateTime, Utc};

use super::{GameError, OpenGame};
use crate::diplomacy::map::PowerId;
use crate::game::journal::{self, Entry};
use crate::phase::Phase;

/// The powers a late extension was for, and the new deadline.
pub type LateExtension = (Vec<PowerId>, DateTime<Utc>);

impl OpenGame {
    /// At the deadline of `expected`: the powers with orders to give that sent nothing,
    /// each with a late extension left (`[deadlines] late_extensions`), get the phase
    /// extended by `late_extension_hours`, once per phase. The powers and the new
    /// deadline; `None` when the phase is to be processed.
    pub fn extend_late(&mut self, expected: Phase, now: DateTime<Utc>) -> Result<Option<LateExtension>, GameError> {
        if self.game.settings.deadlines.late_extension_hours.is_zero() {
            return Ok(None);
        }
        let mut lock = self.relock()?;
        let policy = self.game.settings.deadlines.clone();
        let g = &self.game;
        if g.state.end.is_some() || g.state.phase != expected {
            return Ok(None);
        }
        let since = self.entries.iter().rposition(journal::moves_the_game).unwrap_or(0);
        if self.entries[since..].iter().any(|e| matches!(e, Entry::LateExtension { .. })) {
            return Ok(None);
        }
        let used = |p: PowerId| {
            let key = &g.map.power(p).key;
            self.entries
                .iter()
                .filter(|e| matches!(e, Entry::LateExtension { powers, .. } if powers.contains(key)))
                .count()
        };
        let late: Vec<PowerId> = g
            .map
            .power_ids()
            .filter(|p| g.has_duty(*p) && !g.state.submitted.contains(p) && used(*p) < policy.late_extensions as usize)
            .collect();
        if late.is_empty() {
            return Ok(None);
        }
        let at = now + policy.late_extension_hours.duration();
        let powers = late.iter().map(|p| g.map.power(*p).key.clone()).collect();
        self.game.state.deadline = Some(at);
        self.record(&mut lock, now, Entry::LateExtension { powers, deadline: at })?;
        Ok(Some((late, at)))
    }

    /// Move the deadline of the current phase (`None`: no deadline, e.g. paused).
    pub fn set_deadline(&mut self, deadline: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Result<(), GameError> {
        let mut lock = self.relock()?;
        self.game.state.deadline = deadline;
        self.record(&mut lock, now, Entry::DeadlineSet { deadline }).map(drop)
    }

    /// A power asks that the phase wait for its deadline (`wait`), or takes that back.
    pub fn set_wait(&mut self, power: PowerId, wait: bool, now: DateTime<Utc>) -> Result<(), GameError> {
        self.relocked_once(
            |_| (),
            |g, lock| {
                if g.game.state.end.is_some() {
                    return Err(GameError::Over);
                }
                if g.game.state.waiting.contains(&power) == wait {
                    return Ok(());
                }
                crate::game::schedule::set_waiting(&mut g.game.state.waiting, power, wait);
                let entry = Entry::Wait { power: g.game.map.power(power).key.clone(), wait };
                g.record(lock, now, entry).map(drop)
            },
        )
    }
}
