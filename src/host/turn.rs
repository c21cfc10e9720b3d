//! The mail host's side of the small games: what [`crate::host::JudgeHost`] does
//! for a game directory whose game.toml names a `game`. Everything goes through
//! [`turn_session`] (the lock, the journal first); nothing here knows any particular game.
//!
//! A player signs on with their name (`SIGNON ann@duel secret`); the body's lines are
//! their turn file. Every accepted turn owes its report to every player, observer and the
//! master, mailed by [`mail_reports`] right after the message and by every tick until sent.

use std::path::Path;

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;

use crate::game::session::GameError;
use crate::game::turn_session::{self, OpenTurnGame, Seat, TurnPlayer};
use crate::mail::deadline::{plan_tick, turn_tick_mails, GameClock, TickAction, TickLog};
use crate::mail::host::{
    Ack, AckOrder, AckProblem, Contact, ContactRole, HostError, Identity, MasterCommand, Role, SignOnError,
    SignOnRecord,
};
use crate::mail::reply::{format_deadline, header_safe, MailKind, OutgoingMail};
use crate::mail::send::{results_mails, PhaseResults};

pub use crate::game::turn_session::MAX_TURN_BYTES;

/// A game error as the player sees it (see [`crate::host::player_error`]); the game
/// is named by its directory.
fn host_error(path: &Path) -> impl Fn(GameError) -> HostError + '_ {
    move |e| {
        let game = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        crate::host::player_error(&game, e)
    }
}

fn zone(name: Option<&str>) -> Option<Tz> {
    name.and_then(|z| z.parse().ok())
}

fn read(path: &Path) -> Result<OpenTurnGame, HostError> {
    turn_session::open_read_only(path).map_err(host_error(path))
}

fn seat_of(g: &OpenTurnGame, who: &Identity) -> Result<Seat, HostError> {
    match &who.role {
        Role::Power(name) => {
            g.player_index(name).map(Seat::Player).ok_or_else(|| HostError(format!("no player `{name}` in this game")))
        }
        Role::Master => Ok(Seat::Master),
    }
}

/// Find a seat or the master. `Err(Err(e))`: the game could not be opened (the caller
/// records why); `Err(Ok(e))`: no such seat.
pub fn sign_on(name: String, path: &Path, who: &str) -> Result<SignOnRecord, Result<SignOnError, GameError>> {
    let g = turn_session::open_read_only(path).map_err(Err)?;
    if matches!(who.to_ascii_lowercase().as_str(), "master" | "gm") {
        let m = &g.settings.master;
        return Ok(SignOnRecord {
            identity: Identity {
                game: name,
                role: Role::Master,
                address: m.email.clone(),
                timezone: zone(m.timezone.as_deref()),
            },
            password_hash: m.password_hash.clone(),
        });
    }
    let seat = g.player_index(who).ok_or_else(|| Ok(SignOnError::NoSuchPower { powers: g.player_names() }))?;
    let p = &g.settings.players[seat];
    Ok(SignOnRecord {
        identity: Identity {
            game: name,
            role: Role::Power(p.name.clone()),
            address: Some(p.email.clone()),
            timezone: zone(p.timezone.as_deref()),
        },
        password_hash: p.password_hash.clone(),
    })
}

/// Take a player's turn lines from a mail.
pub fn submit(path: &Path, who: &Identity, text: &str, now: DateTime<Utc>) -> Result<(Ack, bool), HostError> {
    if text.len() > MAX_TURN_BYTES {
        return Err(HostError(format!("a turn is at most {} KiB of text", MAX_TURN_BYTES / 1024)));
    }
    let mut g = read(path)?;
    let seat = seat_of(&g, who)?;
    // The step the turn was for, not the one it led to.
    let phase = g.game.step_label();
    let sub = g.submit(seat, text, now, now).map_err(host_error(path))?;
    for w in &g.warnings {
        crate::host::record_problem(&who.game, w.clone());
    }
    let mut accepted: Vec<AckOrder> = Vec::new();
    let mut problems: Vec<AckProblem> = Vec::new();
    for l in &sub.ack.lines {
        if l.accepted {
            accepted.push(AckOrder { line: l.line, order: l.text.clone() });
        } else {
            problems.push(AckProblem { line: l.line, message: l.text.clone(), hint: l.hint.clone() });
        }
    }
    for e in sub.ack.events.iter().chain(&sub.events) {
        accepted.push(AckOrder { line: 0, order: e.clone() });
    }
    let waiting = g.game.awaiting();
    let names = g.awaiting_names();
    let missing = if g.game.ending().is_some() {
        vec![format!("nothing: the game is over ({})", g.game.ending().map(|e| g.ending_text(&e)).unwrap_or_default())]
    } else if let Some(held) = g.hold_text().filter(|_| names.is_empty()) {
        vec![format!("nothing more. {held}")]
    } else if names.is_empty() {
        Vec::new()
    } else {
        // The comma keeps a `what` that ends in words (", if any") apart from the names.
        vec![format!("{}, from {}", waiting.what, names.join(" and "))]
    };
    Ok((Ack { phase, accepted, problems, missing, deadline: g.meta.deadline, turn_lines: true }, sub.seq.is_some()))
}

pub fn status(path: &Path) -> Result<String, HostError> {
    Ok(read(path)?.report_text())
}

pub fn history(path: &Path) -> Result<String, HostError> {
    let g = read(path)?;
    let mut out = String::new();
    for (seq, at, entry) in g.entries.iter().rev().take(20).collect::<Vec<_>>().into_iter().rev() {
        if let Some(report) = g.entry_report(*seq) {
            out.push_str(&format!("#{seq} {}: {}", at.format("%Y-%m-%d %H:%M UTC"), report));
        } else if let turn_session::TurnEntry::DeadlineSet { deadline } = entry {
            out.push_str(&format!("#{seq}: deadline set to {}\n", deadline.map_or("none".into(), |d| d.to_rfc3339())));
        } else if matches!(entry, turn_session::TurnEntry::Wait { .. }) {
            out.push_str(&format!("#{seq}: {}\n", crate::game::any::describe_turn_entry(entry)));
        }
    }
    Ok(out)
}

/// Store a password hash or a time zone for a role.
pub fn set_secret(path: &Path, role: &Role, hash: Option<&str>, tz: Option<&str>) -> Result<(), GameError> {
    let mut g = turn_session::open_read_only(path)?;
    g.update_settings(|s| {
        let (h, z) = match role {
            Role::Master => (&mut s.master.password_hash, &mut s.master.timezone),
            Role::Power(name) => {
                let p = s
                    .players
                    .iter_mut()
                    .find(|p| p.name.eq_ignore_ascii_case(name))
                    .ok_or_else(|| GameError::Invalid(format!("no player `{name}`")))?;
                (&mut p.password_hash, &mut p.timezone)
            }
        };
        if let Some(hash) = hash {
            *h = Some(hash.to_string());
        }
        if let Some(tz) = tz {
            *z = Some(tz.to_string());
        }
        Ok(())
    })
}

/// Set a role's password by name (`mail password`): the role and its address.
pub fn set_password_at(path: &Path, who: &str, hash: &str) -> Result<(Role, Option<String>), GameError> {
    let g = turn_session::open_read_only(path)?;
    let (role, address) = if matches!(who.to_ascii_lowercase().as_str(), "master" | "gm") {
        (Role::Master, g.settings.master.email.clone())
    } else {
        let seat = g.player_index(who).ok_or_else(|| {
            GameError::Invalid(format!(
                "no player `{who}`; the players are {} (or `master`)",
                g.player_names().join(", ")
            ))
        })?;
        let p = &g.settings.players[seat];
        (Role::Power(p.name.clone()), Some(p.email.clone()))
    };
    set_secret(path, &role, Some(hash), None)?;
    Ok((role, address))
}

/// A master's command. `Process` applies the deadline defaults now; the report is owed.
/// Returns what was done, and mails for others (a new player's password).
pub fn master(
    path: &Path,
    who: &Identity,
    command: &MasterCommand,
    now: DateTime<Utc>,
) -> Result<(String, Vec<OutgoingMail>), HostError> {
    let mut g = read(path)?;
    match command {
        MasterCommand::Process => {
            let events = g.force(true, now).map_err(host_error(path))?;
            Ok((
                format!(
                    "Processed: {} event(s); the report goes to everyone. Now: {}.",
                    events.len(),
                    g.game.step_label()
                ),
                vec![],
            ))
        }
        MasterCommand::Extend { hours } => {
            let base = g.meta.deadline.filter(|d| *d > now).unwrap_or(now);
            let at = base + Duration::hours(i64::from(*hours));
            g.set_deadline(Some(at), now).map_err(host_error(path))?;
            Ok((format!("Deadline extended by {hours} hour(s) to {}.", format_deadline(at, who.timezone)), vec![]))
        }
        MasterCommand::Pause => {
            g.set_deadline(None, now).map_err(host_error(path))?;
            Ok(("Game paused: no deadline until `resume`.".into(), vec![]))
        }
        MasterCommand::Resume => {
            if g.game.ending().is_some() {
                return Err(HostError("the game is over".into()));
            }
            let at = g
                .settings
                .deadlines
                .schedule
                .deadline_for(crate::phase::PhaseKind::Movement, now)
                .map_err(|e| HostError(e.to_string()))?;
            g.set_deadline(Some(at), now).map_err(host_error(path))?;
            Ok((format!("Game resumed. New deadline: {}.", format_deadline(at, who.timezone)), vec![]))
        }
        MasterCommand::Replace { power, address } => replace(&mut g, power, address),
        MasterCommand::Early { on } => early(&mut g, *on, now),
    }
}

/// The master turns early processing on or off: whether a step that takes every
/// player's input together goes on once all of it is in, or only at its deadline.
fn early(g: &mut OpenTurnGame, on: bool, now: DateTime<Utc>) -> Result<(String, Vec<OutgoingMail>), HostError> {
    let path = g.dir.path().to_path_buf();
    g.update_settings(|s| {
        s.deadlines.early = on;
        Ok(())
    })
    .map_err(host_error(&path))?;
    if !on {
        return Ok((
            "Early processing off: a step that takes every player's input together (bids) goes on \
                    only at its deadline."
                .into(),
            vec![],
        ));
    }
    let went_on = g.release(now).map_err(host_error(&path))?.is_some();
    let more = if went_on { " Every input was in and nobody waits: the game went on now." } else { "" };
    Ok((
        format!(
            "Early processing on: a step that takes every player's input together (bids) goes on as soon as \
             all of it is in and nobody asked to wait.{more}"
        ),
        vec![],
    ))
}

/// A player's `wait` or `nowait`. Returns the answer, and whether the game went on (a
/// held step let go: its report is owed).
pub fn set_wait(path: &Path, who: &Identity, wait: bool, now: DateTime<Utc>) -> Result<(String, bool), HostError> {
    let mut g = read(path)?;
    let Seat::Player(seat) = seat_of(&g, who)? else {
        return Err(HostError("the game master plays no seat: `wait` is for players".into()));
    };
    let done = g.set_wait(seat, wait, now).map_err(host_error(path))?;
    let mut said = done.said;
    if let Some(first) = said.get(..1) {
        said = format!("{}{}.", first.to_ascii_uppercase(), &said[1..]);
    }
    Ok((said, !done.events.is_empty()))
}

fn replace(g: &mut OpenTurnGame, player: &str, address: &str) -> Result<(String, Vec<OutgoingMail>), HostError> {
    use crate::mail::password::{generate_password, hash_password};
    if !address.contains('@') || address.contains(|c: char| c.is_whitespace() || c.is_control()) {
        return Err(HostError(format!("`{}` is not an email address", header_safe(address, 80))));
    }
    let seat = g.player_index(player).ok_or_else(|| {
        HostError(format!("no player `{}`; the players are {}", header_safe(player, 40), g.player_names().join(", ")))
    })?;
    let password = generate_password(10);
    let hash = hash_password(&password).map_err(|e| HostError(e.to_string()))?;
    let name = g
        .update_settings(|s| {
            let p: &mut TurnPlayer = &mut s.players[seat];
            p.email = address.to_string();
            p.password_hash = Some(hash.clone());
            p.timezone = None;
            Ok(p.name.clone())
        })
        .map_err(host_error(g.dir.path()))?;
    let game = g.settings.name.clone();
    let mail = OutgoingMail {
        to: address.to_string(),
        subject: header_safe(&format!("{game}: you now play {name}"), 120),
        body: format!(
            "The game master of {game} has given you the seat of {name}.\n\
             Sign on to the judge with:\n\n  SIGNON {name}@{game} {password}\n\n\
             Reply with `status` after that line to see the game.\n"
        ),
        in_reply_to: None,
        references: Vec::new(),
        kind: MailKind::Generated,
        attachments: Vec::new(),
    };
    Ok((format!("{name} is now played by {address}; a new password was mailed there."), vec![mail]))
}

/// Everyone who gets reports.
pub fn contacts(g: &OpenTurnGame) -> Vec<Contact> {
    let s = &g.settings;
    let mut out: Vec<Contact> = s
        .players
        .iter()
        .map(|p| Contact {
            role: ContactRole::Player(p.name.clone()),
            address: p.email.clone(),
            timezone: zone(p.timezone.as_deref()),
        })
        .collect();
    out.extend(s.observers.iter().map(|a| Contact { role: ContactRole::Observer, address: a.clone(), timezone: None }));
    if let Some(a) = &s.master.email {
        out.push(Contact {
            role: ContactRole::Master,
            address: a.clone(),
            timezone: zone(s.master.timezone.as_deref()),
        });
    }
    out
}

/// Mail every report still owed in the game at `path`, through `send`; record each.
/// One line per report mailed (or not).
pub fn mail_reports(
    name: &str,
    path: &Path,
    wait: bool,
    send: &mut crate::host::Sender<'_>,
) -> Result<Vec<String>, GameError> {
    let mut done = Vec::new();
    let g = turn_session::open_read_only(path)?;
    if g.reports_owed()?.is_empty() {
        return Ok(done);
    }
    let Some(_mailing) = g.dir.lock_task(crate::game::session::MAILING_TASK, wait)? else {
        done.push(format!("{name}: reports being mailed by another run; left to it"));
        return Ok(done);
    };
    let mut g = turn_session::open_read_only(path)?;
    let everyone = contacts(&g);
    for turn_session::OwedReport { seq, only_to } in g.reports_owed()? {
        let mut recipients: Vec<Contact> = Vec::new();
        for c in &everyone {
            let wanted = only_to.as_ref().is_none_or(|o| o.iter().any(|a| a.eq_ignore_ascii_case(&c.address)));
            if wanted && !recipients.iter().any(|r| r.address.eq_ignore_ascii_case(&c.address)) {
                recipients.push(c.clone());
            }
        }
        let what = g.entry_report(seq).unwrap_or_default();
        let label = g.entry_label(seq).unwrap_or_default();
        // Each report shows the board as it was right after its own step (the latest: as
        // it is now), so reports owed together each show their own moment.
        let board = g.report_text_at(seq).unwrap_or_else(|| g.report_text());
        let text = format!("{what}\n{board}");
        let results = PhaseResults { game: &g.settings.name, phase: &label, report: &text, next_deadline: None };
        let (mut sent, mut retry) = (Vec::new(), Vec::new());
        for mail in results_mails(&results, &recipients) {
            match send(&mail) {
                Ok(()) => sent.push(mail.to),
                Err(e) if e.is_permanent() => {} // not an address: given up, not retried
                Err(_) => retry.push(mail.to),
            }
        }
        done.push(format!("{name}: report #{seq} mailed to {} of {} address(es)", sent.len(), recipients.len()));
        g.record_reported(seq, &sent, &retry)?;
    }
    Ok(done)
}

/// One tick for a turn game: remind, and apply the deadline defaults when it passed.
/// Returns what was done, and mails (reminders, notices).
pub fn tick(
    name: &str,
    path: &Path,
    now: DateTime<Utc>,
    log: &mut TickLog,
) -> Result<(Vec<String>, Vec<OutgoingMail>, bool), GameError> {
    let mut g = turn_session::open_read_only(path)?;
    let mut done = Vec::new();
    // A step held only by a setting changed since (game.toml edited by hand) goes on now.
    let mut released = false;
    if g.game.held() {
        if let Some(events) = g.release(now)? {
            released = true;
            done.push(format!("{name}: every input in and nobody waiting: went on early ({} event(s))", events.len()));
        }
    }
    let (Some(deadline), None) = (g.meta.deadline, g.game.ending()) else {
        log.last_tick = Some(now);
        return Ok((done, Vec::new(), released));
    };
    // Input the game can do without (a challenge, if any) is not reminded or chased.
    let missing = if g.game.awaiting().optional { Vec::new() } else { g.awaiting_names() };
    let phase = format!("{} #{}", g.game.step_label(), g.meta.deadline_seq);
    let clock = GameClock { game: name, phase: &phase, deadline, paused: false, missing: &missing };
    // A window the game sets itself (Duple's answers and challenges) closes at its time:
    // grace is for late turns at the schedule's deadlines, not for a race's windows.
    let mut policy = g.settings.deadlines.clone();
    if g.game.deadline().is_some() {
        policy.grace_hours = 0;
    }
    let actions = plan_tick(now, &clock, log, &policy);
    let mut processed = released;
    for action in &actions {
        match action {
            TickAction::Process => {
                let mut g = turn_session::open_read_only(path)?;
                let own = g.game.deadline().is_some();
                match g.force(true, now) {
                    Ok(events) => {
                        processed = true;
                        let what = if own { "the game's window closed" } else { "deadline defaults applied" };
                        done.push(format!("{name}: {what} ({} event(s))", events.len()));
                    }
                    Err(e) => done.push(format!("{name}: not processed: {e}")),
                }
            }
            TickAction::Remind { power, .. } => done.push(format!("{name}: reminded {power}")),
            TickAction::LateNotice { power, .. } => done.push(format!("{name}: late notice to {power}")),
            TickAction::OutageSuspected { .. } => {
                done.push(format!("{name}: deadline passed during an outage; held, the master was told"))
            }
        }
    }
    let mails = turn_tick_mails(name, now, &actions, &contacts(&g), &g.game.awaiting().what);
    log.record(now, &clock, &actions);
    Ok((done, mails, processed))
}
