//! When phases are due: the [`Schedule`] of a game and the [`DeadlinePolicy`] around it
//! (grace, reminders, how often the tick runs), as `game.toml`'s `[deadlines]` holds them.
//!
//! One schedule type serves the whole judge: the session computes each new deadline with
//! [`Schedule::deadline_for`], and the mail tick ([`crate::mail::deadline`]) reads the same
//! policy. Pure: the start time is passed in, nothing reads the clock.

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc, Weekday};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::phase::PhaseKind;

/// A bad schedule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeadlineError {
    #[error("`{0}` is not a time zone name (e.g. `Europe/Paris`)")]
    UnknownZone(String),
    #[error("hour {0} is not between 0 and 23")]
    BadHour(u32),
    /// A setting above its largest sensible value: the key, the value, the limit.
    #[error("`{0}` = {1} is more than the {2} allowed")]
    TooLarge(&'static str, u32, u32),
}

/// The longest a phase, a grace period or a reminder lead may be, in hours: a year.
pub const MAX_HOURS: u32 = 24 * 366;

/// When phases are due (`[deadlines.schedule]` in game.toml, or in judge.toml as the
/// default for new games).
///
/// ```toml
/// [deadlines.schedule]
/// kind = "interval"          # hours after the phase starts
/// movement_hours = 48
/// retreat_hours = 24
/// adjustment_hours = 24
///
/// # kind = "weekly"          # movement due on a fixed weekday and hour
/// # weekday = "sun"
/// # hour = 20
/// # zone = "Europe/Paris"
/// # min_hours = 24           # a movement phase lasts at least this long
/// # short_phase_hours = 24   # retreats and adjustments
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Schedule {
    Interval {
        #[serde(default = "h48")]
        movement_hours: u32,
        #[serde(default = "h24")]
        retreat_hours: u32,
        #[serde(default = "h24")]
        adjustment_hours: u32,
    },
    Weekly {
        weekday: Weekday,
        hour: u32,
        zone: String,
        #[serde(default = "h24")]
        min_hours: u32,
        #[serde(default = "h24")]
        short_phase_hours: u32,
    },
}

fn h48() -> u32 {
    48
}
fn h24() -> u32 {
    24
}

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule::Interval { movement_hours: 48, retreat_hours: 24, adjustment_hours: 24 }
    }
}

impl Schedule {
    /// Whether the schedule can compute deadlines at all (a known zone, a real hour, no
    /// phase longer than [`MAX_HOURS`]).
    pub fn check(&self) -> Result<(), DeadlineError> {
        let hours: &[(&'static str, u32)] = match self {
            Schedule::Interval { movement_hours, retreat_hours, adjustment_hours } => &[
                ("movement_hours", *movement_hours),
                ("retreat_hours", *retreat_hours),
                ("adjustment_hours", *adjustment_hours),
            ],
            Schedule::Weekly { min_hours, short_phase_hours, .. } => {
                &[("min_hours", *min_hours), ("short_phase_hours", *short_phase_hours)]
            }
        };
        for (key, value) in hours {
            if *value > MAX_HOURS {
                return Err(DeadlineError::TooLarge(key, *value, MAX_HOURS));
            }
        }
        self.deadline_for(PhaseKind::Movement, DateTime::<Utc>::UNIX_EPOCH).map(|_| ())
    }

    /// The deadline of a phase of this kind that starts at `start`.
    pub fn deadline_for(&self, kind: PhaseKind, start: DateTime<Utc>) -> Result<DateTime<Utc>, DeadlineError> {
        match self {
            Schedule::Interval { movement_hours, retreat_hours, adjustment_hours } => {
                let hours = match kind {
                    PhaseKind::Movement => movement_hours,
                    PhaseKind::Retreats => retreat_hours,
                    PhaseKind::Adjustments => adjustment_hours,
                };
                later(start, *hours)
            }
            Schedule::Weekly { weekday, hour, zone, min_hours, short_phase_hours } => {
                if kind != PhaseKind::Movement {
                    return later(start, *short_phase_hours);
                }
                if *hour > 23 {
                    return Err(DeadlineError::BadHour(*hour));
                }
                let tz: Tz = zone.parse().map_err(|_| DeadlineError::UnknownZone(zone.clone()))?;
                let earliest = later(start, *min_hours)?;
                let first_day = earliest.with_timezone(&tz).date_naive();
                // Within 8 days of the earliest moment there is always the weekday; 15
                // covers a skipped hour too.
                for offset in 0..15 {
                    let day = first_day + Duration::days(offset);
                    if day.weekday() != *weekday {
                        continue;
                    }
                    if let Some(at) = local_hour(tz, day, *hour) {
                        if at >= earliest {
                            return Ok(at);
                        }
                    }
                }
                // Unreachable for a valid zone; fall back to the minimum rather than fail.
                Ok(earliest)
            }
        }
    }
}

/// `start` plus `hours`, or an error past the calendar's end (hand-edited huge values).
fn later(start: DateTime<Utc>, hours: u32) -> Result<DateTime<Utc>, DeadlineError> {
    start
        .checked_add_signed(Duration::hours(i64::from(hours)))
        .ok_or(DeadlineError::TooLarge("hours", hours, MAX_HOURS))
}

/// `hour`:00 local time on `day`; the earlier instant when clocks go back, the first
/// hour after the gap when they go forward.
fn local_hour(tz: Tz, day: NaiveDate, hour: u32) -> Option<DateTime<Utc>> {
    (hour..24).find_map(|h| {
        let naive = day.and_hms_opt(h, 0, 0)?;
        tz.from_local_datetime(&naive).earliest().map(|t| t.with_timezone(&Utc))
    })
}

/// How the tick treats deadlines (`[deadlines]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DeadlinePolicy {
    pub schedule: Schedule,
    /// Hours after the deadline during which late orders are still taken.
    pub grace_hours: u32,
    /// A reminder goes this many hours before the deadline (0: none), and only once the
    /// phase is this old: a phase no longer than this gets none.
    pub remind_hours_before: u32,
    /// How often the tick is expected to run.
    pub tick_minutes: u32,
    /// Early processing: a tick processes the phase before its deadline once every power
    /// has complete orders and none asked to `wait`.
    pub early: bool,
    /// A gap between ticks this many times longer than usual, across a deadline, is an
    /// outage: the judge holds the game and tells the master instead of processing.
    pub outage_factor: u32,
    /// A phase at whose deadline a power with units sent nothing is extended once by
    /// this many hours (0: never), with a late notice to that power and the master.
    pub late_extension_hours: u32,
    /// At most this many late extensions per power per game.
    pub late_extensions: u32,
    /// After this many missed phases in a row a power is declared vacant (0: never).
    pub abandon_after: u32,
    /// At most this many days of announced absence per player per game.
    pub absence_days: u32,
    /// At most this many absences running at once in a game.
    pub absences_at_once: u32,
}

impl Default for DeadlinePolicy {
    fn default() -> DeadlinePolicy {
        DeadlinePolicy {
            schedule: Schedule::default(),
            grace_hours: 0,
            remind_hours_before: 24,
            tick_minutes: 15,
            early: true,
            outage_factor: 8,
            late_extension_hours: 0,
            late_extensions: 1,
            abandon_after: 0,
            absence_days: 14,
            absences_at_once: 2,
        }
    }
}

impl DeadlinePolicy {
    /// The schedule ([`Schedule::check`]) and every number within its sensible range, so
    /// that no date sum can overflow.
    pub fn check(&self) -> Result<(), DeadlineError> {
        self.schedule.check()?;
        for (key, value, max) in [
            ("grace_hours", self.grace_hours, MAX_HOURS),
            ("remind_hours_before", self.remind_hours_before, MAX_HOURS),
            ("tick_minutes", self.tick_minutes, 7 * 24 * 60),
            ("outage_factor", self.outage_factor, 1000),
            ("late_extension_hours", self.late_extension_hours, MAX_HOURS),
            ("late_extensions", self.late_extensions, 1000),
            ("abandon_after", self.abandon_after, 1000),
            ("absence_days", self.absence_days, 366),
            ("absences_at_once", self.absences_at_once, 1000),
        ] {
            if value > max {
                return Err(DeadlineError::TooLarge(key, value, max));
            }
        }
        Ok(())
    }

    /// The gap between two ticks that counts as an outage.
    pub fn outage_gap(&self) -> Duration {
        // Never less than an hour: a tick a few minutes late is not an outage.
        Duration::minutes(i64::from(self.tick_minutes.max(1)) * i64::from(self.outage_factor.max(2)))
            .max(Duration::hours(1))
    }
}
