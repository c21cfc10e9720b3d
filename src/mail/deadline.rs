//! Deadlines: when a phase is due ([`Schedule`]), and what the periodic tick must do
//! about it ([`plan_tick`]): remind players who have not submitted, send late notices in
//! the grace period, process, or stop and tell the master when the tick itself was down.
//!
//! The planner is pure: it reads the clock it is given and the [`TickLog`] of what was
//! already done, and returns actions. [`TickLog::record`] marks them done; the caller
//! keeps the log (with the game) so that two runs never act twice.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use crate::game::schedule::{DeadlineError, DeadlinePolicy, Schedule};
use crate::mail::host::{Contact, ContactRole};
use crate::mail::reply::{format_deadline, format_duration, header_safe, MailKind, OutgoingMail};

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
    /// When the phase began, when known: no reminder goes out before the phase is as old
    /// as the reminder's lead, so a phase no longer than the lead gets none.
    pub started: Option<DateTime<Utc>>,
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
    // Saturating: a hand-edited policy or deadline at the calendar's end must not panic.
    let grace_until =
        clock.deadline.checked_add_signed(policy.grace_hours.duration()).unwrap_or(DateTime::<Utc>::MAX_UTC);
    let mut actions = Vec::new();
    if now < clock.deadline {
        let remind_from = clock
            .deadline
            .checked_sub_signed(policy.remind_hours_before.duration())
            .unwrap_or(DateTime::<Utc>::MIN_UTC);
        let old_enough = clock.started.is_none_or(|s| now - s >= policy.remind_hours_before.duration());
        if !policy.remind_hours_before.is_zero() && now >= remind_from && old_enough {
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

/// [`tick_mails`] for a small game (Duplexity, Overdue, Duple): reminders and late
/// notices in the game's words, saying what it awaits (`what`, as its report says it) and
/// what the deadline does (`defaults`), not asking for orders.
pub fn turn_tick_mails(
    game: &str,
    now: DateTime<Utc>,
    actions: &[TickAction],
    contacts: &[Contact],
    what: &str,
    defaults: &str,
) -> Vec<OutgoingMail> {
    let mut mails = Vec::new();
    for action in actions {
        let (power, subject) = match action {
            TickAction::Remind { power, .. } => (power, format!("{game}: reminder, your turn is due")),
            TickAction::LateNotice { power, .. } => (power, format!("{game}: late, your turn is overdue")),
            _ => {
                mails.extend(tick_mails(game, now, std::slice::from_ref(action), contacts, ""));
                continue;
            }
        };
        let master = power == crate::turn::MASTER;
        let subject = if master { subject.replace("your turn is", "the game master's input is") } else { subject };
        let power = if master { "the game master" } else { power.as_str() };
        for c in player_contacts(contacts, if master { crate::turn::MASTER } else { power }) {
            let body = match action {
                TickAction::LateNotice { deadline, grace_until, .. } => format!(
                    "The deadline for {game} passed at {}, and {game} is still waiting for {power}: {what}.\n\
                     Turns are still taken until {}; after that, {defaults}.\n",
                    format_deadline(*deadline, c.timezone),
                    format_deadline(*grace_until, c.timezone)
                ),
                TickAction::Remind { deadline, .. } => format!(
                    "{game} is waiting for {power}: {what}.\nDeadline: {} (in {}).\n",
                    format_deadline(*deadline, c.timezone),
                    format_duration(*deadline - now)
                ),
                _ => continue,
            };
            mails.push(generated(c, &subject, body));
        }
    }
    mails
}

/// The contacts who play `power` (or, in a small game, are the player of that name).
fn player_contacts<'c>(contacts: &'c [Contact], power: &'c str) -> impl Iterator<Item = &'c Contact> {
    contacts.iter().filter(move |c| match &c.role {
        ContactRole::Player(p) => p.eq_ignore_ascii_case(power),
        ContactRole::Master => power == crate::turn::MASTER,
        ContactRole::Observer => false,
    })
}

/// A mail the judge writes by itself, to one contact.
fn generated(to: &Contact, subject: &str, body: String) -> OutgoingMail {
    OutgoingMail {
        to: to.address.clone(),
        subject: header_safe(subject, 120),
        body,
        in_reply_to: None,
        references: Vec::new(),
        kind: MailKind::Generated,
        attachments: Vec::new(),
    }
}

/// The mails for a tick's actions: reminders and late notices to the players concerned
/// (`defaults`: what the deadline does to orders still missing, `units without orders
/// hold`), the outage notice to the master. `Process` mails nothing here (the results do).
pub fn tick_mails(
    game: &str,
    now: DateTime<Utc>,
    actions: &[TickAction],
    contacts: &[Contact],
    defaults: &str,
) -> Vec<OutgoingMail> {
    let player = player_contacts;
    let mail = |to: &Contact, subject: String, body: String| generated(to, &subject, body);
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
                        "The deadline for {game} passed at {}, and {power} has not sent complete orders.\n\
                         Orders are still taken until {}; after that, {defaults}.\n",
                        format_deadline(*deadline, c.timezone),
                        format_deadline(*grace_until, c.timezone)
                    );
                    mails.push(mail(c, format!("{game}: late, orders overdue"), body));
                }
            }
            TickAction::OutageSuspected { last_tick, deadline } => {
                for c in contacts.iter().filter(|c| c.role == ContactRole::Master) {
                    let body = format!(
                        "The judge did not run from {} until {}, and meanwhile the deadline of {game} passed, \
                         at {}. Mail may have been lost, so the game was NOT processed.\n\
                         Sign on as master and send `extend TIME`, `resume` or `process`.\n",
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
