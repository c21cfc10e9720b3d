//! When phases are due: the [`Schedule`] of a game and the [`DeadlinePolicy`] around it
//! (grace, reminders, how often the tick runs), as `game.toml`'s `[deadlines]` holds them.
//!
//! One schedule type serves the whole judge: the session computes each new deadline with
//! [`Schedule::deadline_for`], and the mail tick ([`crate::mail::deadline`]) reads the same
//! policy. Pure: the start time is passed in, nothing reads the clock.
//!
//! Every length of time a master sets is a [`Span`]: a bare number is hours, as in every
//! older file; a string has units (`"90m"`, `"2h"`, `"1d12h"`).

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc, Weekday};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::phase::PhaseKind;
pub use crate::span::Span;

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
    /// A length of time above a year: the key and the value.
    #[error("`{0}` = {1} is more than a year ({year})", year = Span::YEAR)]
    TooLong(&'static str, Span),
}

/// The longest a phase, a grace period or a reminder lead may be, in hours: a year.
pub const MAX_HOURS: u32 = 24 * 366;

/// Deserializers for each key that holds a [`Span`], so that a bad value's error names
/// its key (`movement_hours: `90x`: a duration is ...`).
mod span_key {
    use super::Span;
    use serde::{Deserialize, Deserializer};

    macro_rules! keys {
        ($($key:ident),*) => {$(
            pub fn $key<'de, D: Deserializer<'de>>(d: D) -> Result<Span, D::Error> {
                Span::deserialize(d).map_err(|e| serde::de::Error::custom(format!("{}: {e}", stringify!($key))))
            }
        )*};
    }
    keys!(
        movement_hours,
        retreat_hours,
        adjustment_hours,
        min_hours,
        short_phase_hours,
        grace_hours,
        remind_hours_before,
        late_extension_hours
    );
}

/// When phases are due (`[deadlines.schedule]` in game.toml, or in judge.toml as the
/// default for new games). Every length is a [`Span`]: a number is hours, a string has
/// units (`movement_hours = "90m"`).
///
/// ```toml
/// [deadlines.schedule]
/// kind = "interval"          # a time after the phase starts
/// movement_hours = 48
/// retreat_hours = 24
/// adjustment_hours = "12h30m"
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
        #[serde(default = "h48", deserialize_with = "span_key::movement_hours")]
        movement_hours: Span,
        #[serde(default = "h24", deserialize_with = "span_key::retreat_hours")]
        retreat_hours: Span,
        #[serde(default = "h24", deserialize_with = "span_key::adjustment_hours")]
        adjustment_hours: Span,
    },
    Weekly {
        weekday: Weekday,
        hour: u32,
        zone: String,
        #[serde(default = "h24", deserialize_with = "span_key::min_hours")]
        min_hours: Span,
        #[serde(default = "h24", deserialize_with = "span_key::short_phase_hours")]
        short_phase_hours: Span,
    },
}

fn h48() -> Span {
    Span::hours(48)
}
fn h24() -> Span {
    Span::hours(24)
}

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule::Interval { movement_hours: h48(), retreat_hours: h24(), adjustment_hours: h24() }
    }
}

/// `key` = `value` within a year, or the error that names the key.
fn at_most_a_year(key: &'static str, value: Span) -> Result<(), DeadlineError> {
    if value > Span::YEAR {
        return Err(DeadlineError::TooLong(key, value));
    }
    Ok(())
}

impl Schedule {
    /// Whether the schedule can compute deadlines at all (a known zone, a real hour, no
    /// phase longer than a year).
    pub fn check(&self) -> Result<(), DeadlineError> {
        let spans: &[(&'static str, Span)] = match self {
            Schedule::Interval { movement_hours, retreat_hours, adjustment_hours } => &[
                ("movement_hours", *movement_hours),
                ("retreat_hours", *retreat_hours),
                ("adjustment_hours", *adjustment_hours),
            ],
            Schedule::Weekly { min_hours, short_phase_hours, .. } => {
                &[("min_hours", *min_hours), ("short_phase_hours", *short_phase_hours)]
            }
        };
        for (key, value) in spans {
            at_most_a_year(key, *value)?;
        }
        self.deadline_for(PhaseKind::Movement, DateTime::<Utc>::UNIX_EPOCH).map(|_| ())
    }

    /// The deadline of a phase of this kind that starts at `start`.
    pub fn deadline_for(&self, kind: PhaseKind, start: DateTime<Utc>) -> Result<DateTime<Utc>, DeadlineError> {
        match self {
            Schedule::Interval { movement_hours, retreat_hours, adjustment_hours } => {
                let span = match kind {
                    PhaseKind::Movement => movement_hours,
                    PhaseKind::Retreats => retreat_hours,
                    PhaseKind::Adjustments => adjustment_hours,
                };
                later(start, *span)
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

/// `start` plus `span`, or an error past the calendar's end (hand-edited huge values).
fn later(start: DateTime<Utc>, span: Span) -> Result<DateTime<Utc>, DeadlineError> {
    start.checked_add_signed(span.duration()).ok_or(DeadlineError::TooLong("a phase", span))
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
    /// How long after the deadline late orders are still taken.
    #[serde(deserialize_with = "span_key::grace_hours")]
    pub grace_hours: Span,
    /// A reminder goes this long before the deadline (0: none), and only once the phase
    /// is this old: a phase no longer than this gets none.
    #[serde(deserialize_with = "span_key::remind_hours_before")]
    pub remind_hours_before: Span,
    /// How often the tick is expected to run.
    pub tick_minutes: u32,
    /// Early processing: a tick processes the phase before its deadline once every power
    /// has complete orders and none asked to `wait`.
    pub early: bool,
    /// A gap between ticks this many times longer than usual, across a deadline, is an
    /// outage: the judge holds the game and tells the master instead of processing.
    pub outage_factor: u32,
    /// A phase at whose deadline a power with units sent nothing is extended once by
    /// this long (0: never), with a late notice to that power and the master.
    #[serde(deserialize_with = "span_key::late_extension_hours")]
    pub late_extension_hours: Span,
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
            grace_hours: Span::default(),
            remind_hours_before: Span::hours(24),
            tick_minutes: 15,
            early: true,
            outage_factor: 8,
            late_extension_hours: Span::default(),
            late_extensions: 1,
            abandon_after: 0,
            absence_days: 14,
            absences_at_once: 2,
        }
    }
}

/// Note that `who` sent `wait` (or `nowait`) for the step under way: those waiting stay in
/// the order they asked. Every game's waits go through here.
pub fn set_waiting<T: PartialEq>(waiting: &mut Vec<T>, who: T, wait: bool) {
    waiting.retain(|w| *w != who);
    if wait {
        waiting.push(who);
    }
}

impl DeadlinePolicy {
    /// The rule of early processing, one for every game: a step whose input is all in
    /// goes on before its deadline when early processing is on and nobody asked to
    /// `wait`; otherwise it is held until the deadline.
    pub fn goes_on_early(&self, nobody_waits: bool) -> bool {
        self.early && nobody_waits
    }

    /// The schedule ([`Schedule::check`]) and every number within its sensible range, so
    /// that no date sum can overflow.
    pub fn check(&self) -> Result<(), DeadlineError> {
        self.schedule.check()?;
        at_most_a_year("grace_hours", self.grace_hours)?;
        at_most_a_year("remind_hours_before", self.remind_hours_before)?;
        at_most_a_year("late_extension_hours", self.late_extension_hours)?;
        for (key, value, max) in [
            ("tick_minutes", self.tick_minutes, 7 * 24 * 60),
            ("outage_factor", self.outage_factor, 1000),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn every_schedule_setting_takes_minutes_and_the_deadline_lands_that_much_later() {
        let start = at("2026-03-04T10:00:00Z");
        for key in ["movement_hours", "retreat_hours", "adjustment_hours"] {
            let policy: DeadlinePolicy =
                toml::from_str(&format!("[schedule]\nkind = \"interval\"\n{key} = \"90m\"\n")).unwrap();
            policy.check().unwrap();
            let kind = match key {
                "movement_hours" => PhaseKind::Movement,
                "retreat_hours" => PhaseKind::Retreats,
                _ => PhaseKind::Adjustments,
            };
            assert_eq!(policy.schedule.deadline_for(kind, start), Ok(at("2026-03-04T11:30:00Z")), "{key}");
        }
        // Weekly: retreats and adjustments after `short_phase_hours`, movement no sooner
        // than `min_hours` (Wednesday 10:00 + 4d30m is past Sunday 12:00: the next Sunday).
        let weekly: DeadlinePolicy = toml::from_str(
            "[schedule]\nkind = \"weekly\"\nweekday = \"sun\"\nhour = 10\nzone = \"UTC\"\n\
             min_hours = \"4d30m\"\nshort_phase_hours = \"45m\"\n",
        )
        .unwrap();
        weekly.check().unwrap();
        assert_eq!(weekly.schedule.deadline_for(PhaseKind::Retreats, start), Ok(at("2026-03-04T10:45:00Z")));
        assert_eq!(weekly.schedule.deadline_for(PhaseKind::Movement, start), Ok(at("2026-03-15T10:00:00Z")));
        let policy: DeadlinePolicy =
            toml::from_str("grace_hours = \"90m\"\nremind_hours_before = \"1h30m\"\nlate_extension_hours = \"90m\"\n")
                .unwrap();
        for span in [policy.grace_hours, policy.remind_hours_before, policy.late_extension_hours] {
            assert_eq!(span.duration(), Duration::minutes(90));
        }
    }

    #[test]
    fn a_bad_or_too_long_span_names_its_key() {
        for key in [
            "movement_hours",
            "retreat_hours",
            "adjustment_hours",
            "grace_hours",
            "remind_hours_before",
            "late_extension_hours",
        ] {
            let table = if key.ends_with("_before") || key.starts_with("grace") || key.starts_with("late") {
                format!("{key} = \"90x\"\n")
            } else {
                format!("[schedule]\nkind = \"interval\"\n{key} = \"90x\"\n")
            };
            let e = toml::from_str::<DeadlinePolicy>(&table).unwrap_err();
            assert!(
                e.message().contains(&format!("{key}: `90x`: a duration is a number with m, h or d")),
                "{key}: {e}"
            );
            let long = table.replace("\"90x\"", "\"366d1m\"");
            let policy: DeadlinePolicy = toml::from_str(&long).unwrap();
            assert_eq!(policy.check().unwrap_err().to_string(), format!("`{key}` = 366d1m is more than a year (366d)"));
            let year: DeadlinePolicy = toml::from_str(&table.replace("\"90x\"", "\"366d\"")).unwrap();
            assert_eq!(year.check(), Ok(()), "{key}: a year is allowed");
        }
        for key in ["min_hours", "short_phase_hours"] {
            let e = toml::from_str::<DeadlinePolicy>(&format!(
                "[schedule]\nkind = \"weekly\"\nweekday = \"sun\"\nhour = 10\nzone = \"UTC\"\n{key} = \"-1h\"\n"
            ))
            .unwrap_err();
            assert!(e.message().contains(&format!("{key}: `-1h`: a duration")), "{key}: {e}");
        }
    }

    #[test]
    fn whole_hours_are_written_as_numbers_and_minutes_as_text() {
        let mut policy = DeadlinePolicy::default();
        let old = toml::to_string(&policy).unwrap();
        assert!(old.contains("remind_hours_before = 24\n") && old.contains("movement_hours = 48\n"), "{old}");
        policy.schedule = Schedule::Interval {
            movement_hours: Span::minutes(90),
            retreat_hours: Span::hours(24),
            adjustment_hours: Span::hours(24),
        };
        let new = toml::to_string(&policy).unwrap();
        assert!(new.contains("movement_hours = \"1h30m\"\n") && new.contains("retreat_hours = 24\n"), "{new}");
        assert_eq!(toml::from_str::<DeadlinePolicy>(&new).unwrap(), policy);
    }
}
