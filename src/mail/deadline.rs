//! Deadlines: when a phase is due ([`Schedule`]), and what the periodic tick must do
//! about it ([`plan_tick`]): remind players who have not submitted, send late notices in
//! the grace period, process, or stop and tell the master when the tick itself was down.
//!
//! The planner is pure: it reads the clock it is given and the [`TickLog`] of what was
//! already done, and returns actions. [`TickLog::record`] marks them done; the caller
//! keeps the log (with the game) so that two runs never act twice.

use std::collections::BTreeSet;

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc, Weekday};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::game::phase::PhaseKind;
use crate::mail::host::{Contact, ContactRole};
use crate::mail::reply::{format_deadline, format_duration, header_safe, MailKind, OutgoingMail};

/// A bad schedule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeadlineError {
    #[error("`{0}` is not a time zone name (e.g. `Europe/Paris`)")]
    UnknownZone(String),
    #[error("hour {0} is not between 0 and 23")]
    BadHour(u32),
}

/// When phases are due (`[deadlines.schedule]`).
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
    /// The deadline of a phase of this kind that starts at `start`.
    pub fn deadline_for(&self, kind: PhaseKind, start: DateTime<Utc>) -> Result<DateTime<Utc>, DeadlineError> {
        match self {
            Schedule::Interval { movement_hours, retreat_hours, adjustment_hours } => {
                let hours = match kind {
                    PhaseKind::Movement => movement_hours,
                    PhaseKind::Retreats => retreat_hours,
                    PhaseKind::Adjustments => adjustment_hours,
                };
                Ok(start + Duration::hours(i64::from(*hours)))
            }
            Schedule::Weekly { weekday, hour, zone, min_hours, short_phase_hours } => {
                if kind != PhaseKind::Movement {
                    return Ok(start + Duration::hours(i64::from(*short_phase_hours)));
                }
                if *hour > 23 {
                    return Err(DeadlineError::BadHour(*hour));
                }
                let tz: Tz = zone.parse().map_err(|_| DeadlineError::UnknownZone(zone.clone()))?;
                let earliest = start + Duration::hours(i64::from(*min_hours));
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
    /// A reminder goes this many hours before the deadline (0: none).
    pub remind_hours_before: u32,
    /// How often the tick is expected to run.
    pub tick_minutes: u32,
    /// A gap between ticks this many times longer than usual, across a deadline, is an
    /// outage: the judge holds the game and tells the master instead of processing.
    pub outage_factor: u32,
}

impl Default for DeadlinePolicy {
    fn default() -> DeadlinePolicy {
        DeadlinePolicy {
            schedule: Schedule::default(),
            grace_hours: 0,
            remind_hours_before: 24,
            tick_minutes: 15,
            outage_factor: 8,
        }
    }
}

impl DeadlinePolicy {
    fn outage_gap(&self) -> Duration {
        // Never less than an hour: a tick a few minutes late is not an outage.
        Duration::minutes(i64::from(self.tick_minutes.max(1)) * i64::from(self.outage_factor.max(2)))
            .max(Duration::hours(1))
    }
}

/// What the tick sees of one game now (from the game host).
#[derive(Clone, Copy, Debug)]
pub struct GameClock<'a> {
    pub game: &'a str,
    /// The current phase's id; a new id starts a fresh log.
    pub phase: &'a str,
    pub deadline: DateTime<Utc>,
    pub paused: bool,
    /// Powers that have not submitted complete orders.
    pub missing: &'a [String],
}

/// What the tick already did for a game (kept with the game).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TickLog {
    pub phase: String,
    pub reminded: BTreeSet<String>,
    pub late_noticed: BTreeSet<String>,
    pub processed: bool,
    /// The deadline an outage was reported for; the hold lasts until the deadline moves.
    pub outage_for: Option<DateTime<Utc>>,
    pub last_tick: Option<DateTime<Utc>>,
}

/// One thing the tick must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TickAction {
    Remind {
        power: String,
        deadline: DateTime<Utc>,
    },
    LateNotice {
        power: String,
        deadline: DateTime<Utc>,
        grace_until: DateTime<Utc>,
    },
    Process,
    /// No tick ran from `last_tick` until now and the deadline passed unseen: tell the
    /// master and wait for them (`extend`, `resume` or `process`).
    OutageSuspected {
        last_tick: DateTime<Utc>,
        deadline: DateTime<Utc>,
    },
}

/// The actions due at `now`. Pure; the same inputs always give the same actions, and
/// after [`TickLog::record`] of them, none again.
pub fn plan_tick(now: DateTime<Utc>, clock: &GameClock<'_>, log: &TickLog, policy: &DeadlinePolicy) -> Vec<TickAction> {
    let fresh = TickLog { last_tick: log.last_tick, ..TickLog::default() };
    let log = if log.phase == clock.phase { log } else { &fresh };
    if clock.paused || log.processed {
        return Vec::new();
    }
    if log.outage_for == Some(clock.deadline) {
        return Vec::new();
    }
    if let Some(last) = log.last_tick {
        if now - last > policy.outage_gap() && last < clock.deadline && clock.deadline <= now {
            return vec![TickAction::OutageSuspected { last_tick: last, deadline: clock.deadline }];
        }
    }
    let grace_until = clock.deadline + Duration::hours(i64::from(policy.grace_hours));
    let mut actions = Vec::new();
    if now < clock.deadline {
        let remind_from = clock.deadline - Duration::hours(i64::from(policy.remind_hours_before));
        if policy.remind_hours_before > 0 && now >= remind_from {
            for power in clock.missing.iter().filter(|p| !log.reminded.contains(*p)) {
                actions.push(TickAction::Remind { power: power.clone(), deadline: clock.deadline });
            }
        }
    } else if clock.missing.is_empty() || now >= grace_until {
        actions.push(TickAction::Process);
    } else {
        for power in clock.missing.iter().filter(|p| !log.late_noticed.contains(*p)) {
            actions.push(TickAction::LateNotice { power: power.clone(), deadline: clock.deadline, grace_until });
        }
    }
    actions
}

impl TickLog {
    /// Mark `actions` (as planned for `clock` at `now`) done, and `now` as the last tick.
    /// Call it after every tick, even one with no actions.
    pub fn record(&mut self, now: DateTime<Utc>, clock: &GameClock<'_>, actions: &[TickAction]) {
        if self.phase != clock.phase {
            *self = TickLog { phase: clock.phase.to_string(), ..TickLog::default() };
        }
        for action in actions {
            match action {
                TickAction::Remind { power, .. } => {
                    self.reminded.insert(power.clone());
                }
                TickAction::LateNotice { power, .. } => {
                    self.late_noticed.insert(power.clone());
                }
                TickAction::Process => self.processed = true,
                TickAction::OutageSuspected { deadline, .. } => self.outage_for = Some(*deadline),
            }
        }
        self.last_tick = Some(now);
    }
}

/// The mails for a tick's actions: reminders and late notices to the players concerned,
/// the outage notice to the master. `Process` mails nothing here (the results do).
pub fn tick_mails(game: &str, now: DateTime<Utc>, actions: &[TickAction], contacts: &[Contact]) -> Vec<OutgoingMail> {
    fn player<'c>(contacts: &'c [Contact], power: &'c str) -> impl Iterator<Item = &'c Contact> {
        contacts.iter().filter(move |c| matches!(&c.role, ContactRole::Player(p) if p.eq_ignore_ascii_case(power)))
    }
    let mail = |to: &Contact, subject: String, body: String| OutgoingMail {
        to: to.address.clone(),
        subject: header_safe(&subject, 120),
        body,
        in_reply_to: None,
        references: Vec::new(),
        kind: MailKind::Generated,
    };
    let mut mails = Vec::new();
    for action in actions {
        match action {
            TickAction::Remind { power, deadline } => {
                for c in player(contacts, power) {
                    let body = format!(
                        "{power} in {game} has not sent complete orders yet.\n\
                         Deadline: {} (in {}).\n",
                        format_deadline(*deadline, c.timezone),
                        format_duration(*deadline - now)
                    );
                    mails.push(mail(c, format!("{game}: reminder, orders due"), body));
                }
            }
            TickAction::LateNotice { power, deadline, grace_until } => {
                for c in player(contacts, power) {
                    let body = format!(
                        "The deadline for {game} ({}) has passed and {power} has not sent complete orders.\n\
                         Orders are still taken until {}; after that, units without orders hold.\n",
                        format_deadline(*deadline, c.timezone),
                        format_deadline(*grace_until, c.timezone)
                    );
                    mails.push(mail(c, format!("{game}: late, orders overdue"), body));
                }
            }
            TickAction::OutageSuspected { last_tick, deadline } => {
                for c in contacts.iter().filter(|c| c.role == ContactRole::Master) {
                    let body = format!(
                        "The judge did not run from {} until {}, and the deadline of {game} ({}) passed \
                         meanwhile. Mail may have been lost, so the game was NOT processed.\n\
                         Sign on as master and send `extend HOURS`, `resume` or `process`.\n",
                        format_deadline(*last_tick, c.timezone),
                        format_deadline(now, c.timezone),
                        format_deadline(*deadline, c.timezone)
                    );
                    mails.push(mail(c, format!("{game}: judge outage, game held"), body));
                }
            }
            TickAction::Process => {}
        }
    }
    mails
}
