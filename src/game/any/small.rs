//! [`GameSession`] for the turn games' session ([`session::turn`](crate::game::session::turn)).

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::{json, Value};

use super::{
    pretty, set_role_particulars, usage, Answer, ByMail, Clock, Contact, GameError, GameSession, History, HistoryRow,
    MailingOutcome, MailingPlan, Outcome, OwedMail, OwedResults, Play, Receipt, ReportVolume, Reports, Role,
    SeatChange, SeatOutcome, SeatRecord, Seats, Submit, Timed, Who,
};
use crate::diplomacy::report::{deadline_text, format_deadline};
use crate::game::by_mail::{self, names_master};
use crate::game::session::turn::{
    Forcing, OpenTurnGame, Seat, Submission, TurnEntry, TurnPlayer, VerifyFailure, MAX_TURN_BYTES,
};
use crate::phase::PhaseKind;
use crate::store::TaskLock;
use crate::text::count;

/// The steps one tick plays for vacant seats before it leaves the rest to the next.
const VACANT_STEPS_PER_TICK: usize = 20;
use crate::turn::MASTER;

/// One line of history for the journal entry at index `at`.
fn describe(g: &OpenTurnGame, at: usize) -> String {
    let Some((_, _, entry)) = g.entries.get(at) else { return String::new() };
    match entry {
        TurnEntry::Created { game, players, .. } => format!("created: {game} for {}", players.join(", ")),
        TurnEntry::Submitted { player, at, step, .. } => {
            format!(
                "turn from {player} (received {}); {}",
                at.format("%Y-%m-%d %H:%M:%S"),
                count(step.rolls.len(), "roll", "rolls")
            )
        }
        TurnEntry::Forced { step, .. } => {
            format!(
                "{}; {}",
                g.forcing(at).map(Forcing::words).unwrap_or_default(),
                count(step.rolls.len(), "roll", "rolls")
            )
        }
        TurnEntry::RolledBack { to_round, .. } => format!("rolled back to the start of round {to_round}"),
        TurnEntry::DeadlineSet { deadline } => format!("deadline set: {}", deadline_text(*deadline)),
        TurnEntry::Revealed { seed } => format!("seed revealed: {seed}"),
        TurnEntry::PlayerChanged { who, what, old, new } => format!(
            "{who}: {what} changed from {} to {}",
            old.as_deref().unwrap_or("none"),
            new.as_deref().unwrap_or("none")
        ),
        TurnEntry::Wait { player, wait: true } => format!("{player} waits for the deadline"),
        TurnEntry::Wait { player, wait: false } => format!("{player} no longer waits"),
        TurnEntry::Seats { event } => event.describe(),
        TurnEntry::Released { step } => {
            format!("every input in and nobody waiting: went on early; {}", count(step.rolls.len(), "roll", "rolls"))
        }
    }
}

impl GameSession for OpenTurnGame {
    fn play(&mut self) -> Option<&mut dyn Play> {
        Some(self)
    }

    fn kind(&self) -> String {
        self.meta.game.clone()
    }

    // -----------------------------------------------------------------------------------
    // By mail: a player signs on with their name (`SIGNON ann@duel secret`) and the body's
    // lines are their turn file. Every step owes its report to every player, observer and
    // the master.
    fn name(&self) -> String {
        self.settings.name.clone()
    }

    fn is_over(&self) -> bool {
        self.game.ending().is_some()
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn carry_out(&mut self, tag: Option<String>) {
        OpenTurnGame::carry_out(self, tag);
    }

    fn has_message(&self, tag: &str) -> bool {
        OpenTurnGame::has_message(self, tag)
    }

    fn status_text(&self) -> String {
        self.report_text()
    }

    fn status_json(&self) -> Value {
        OpenTurnGame::status_json(self)
    }

    fn history(&self) -> Result<History, GameError> {
        let mut rows = Vec::new();
        let mut label = String::new();
        for (index, (seq, at, entry)) in self.entries.iter().enumerate() {
            if let Some(step) = entry.step() {
                label = step.label.clone();
            }
            rows.push(HistoryRow { seq: *seq, at: *at, step: label.clone(), event: describe(self, index) });
        }
        Ok(History { step_key: "step", rows })
    }

    fn public(&self) -> crate::game::public::PublicGame {
        crate::game::public::of_turn_game(self)
    }

    fn seats(&mut self) -> Option<&mut dyn Seats> {
        Some(self)
    }

    fn reports(&mut self) -> Option<&mut dyn ReportVolume> {
        Some(self)
    }
}

impl Play for OpenTurnGame {
    fn results(&self, which: Option<&str>) -> Result<Answer, GameError> {
        let seq =
            match which {
                None => self
                    .entries
                    .iter()
                    .rev()
                    .find(|(_, _, e)| e.step().is_some())
                    .map(|(s, _, _)| *s)
                    .ok_or_else(|| usage("nothing has happened yet"))?,
                Some(n) => n.trim().trim_start_matches('#').parse::<u64>().map_err(|_| {
                    usage(format!("`{n}`: give the number of a journal entry, as `history` lists them"))
                })?,
            };
        let index = self
            .entries
            .iter()
            .position(|(s, _, _)| *s == seq)
            .ok_or_else(|| usage(format!("the journal has no entry {seq}")))?;
        let (_, at, entry) = &self.entries[index];
        let event = describe(self, index);
        let Some(step) = entry.step() else {
            return Err(usage(format!("entry {seq} ({event}) has no results")));
        };
        let json = json!({
            "seq": seq, "at": at, "step": step.label, "event": event,
            "events": step.events, "rolls": step.rolls, "state": step.state,
        });
        let text = format!(
            "Entry {seq}, {}: {}\n{}After it: {}\n",
            at.format("%Y-%m-%d %H:%M UTC"),
            event,
            self.entry_report(seq).unwrap_or_default(),
            step.label
        );
        Ok(Answer::new(text, pretty(&json)))
    }

    fn rollback(&mut self, to: &str, now: DateTime<Utc>) -> Result<String, GameError> {
        let text = to.trim().to_ascii_lowercase();
        let round: u32 = text
            .strip_prefix("round")
            .unwrap_or(&text)
            .trim()
            .parse()
            .map_err(|_| usage(format!("`{to}`: give a round number, like `3` or `round 3` (0 is the setup)")))?;
        let label = OpenTurnGame::rollback(self, round, now)?;
        Ok(format!(
            "Rolled back to the start of {label}. The journal keeps everything that came after;\n\
             the rounds from here roll the same dice again."
        ))
    }

    fn verify(&self) -> Result<Answer, GameError> {
        let (text, ok) = match OpenTurnGame::verify(self) {
            Ok(n) => (
                format!(
                    "verified {}; the journal's {} replay from the seed to every state recorded\n",
                    count(n, "roll", "rolls"),
                    count(self.entries.len(), "entry", "entries")
                ),
                true,
            ),
            Err(VerifyFailure::Dice(crate::dice::VerifyError::Rolls(mismatches))) => {
                let mut text: String = mismatches.iter().map(|m| format!("mismatch: {m}\n")).collect();
                text.push_str(&format!(
                    "{} of {} {} not match the seed\n",
                    mismatches.len(),
                    count(self.journaled_rolls().len(), "roll", "rolls"),
                    crate::text::plural(mismatches.len(), "does", "do")
                ));
                (text, false)
            }
            Err(e) => (format!("not verified: {e}\n"), false),
        };
        Ok(Answer { json: pretty(&json!({"verified": ok, "text": text.trim_end()})), text, ok })
    }

    fn reveal(&mut self, force: bool, now: DateTime<Utc>) -> Result<Answer, GameError> {
        let seed = OpenTurnGame::reveal(self, force, now)?;
        let text = format!(
            "Seed: {seed}\nCommitment: {} (sha256 of the seed)\nAnyone can now check every roll: shadowjudge verify {}\n",
            self.meta.commitment,
            self.dir.path().display()
        );
        Ok(Answer::new(text, pretty(&json!({"seed": seed, "commitment": self.meta.commitment}))))
    }

    fn process(&mut self, expected: Option<&str>, now: DateTime<Utc>) -> Result<String, GameError> {
        let before = self.game.step_label();
        // No step expected: the game master's `process`; else the tick at the deadline.
        self.force(true, expected, now)?;
        // The step processed, not what followed it (the seed revealed at the end).
        let forced = self.entries.iter().rposition(|(_, _, e)| matches!(e, TurnEntry::Forced { .. }));
        let why = forced.and_then(|at| self.forcing(at)).map(Forcing::brief).unwrap_or_default();
        Ok(format!(
            "{before} processed ({why}); the report goes to {}. Now: {}.",
            count(by_mail::recipients(ByMail::contacts(self)).len(), "address", "addresses"),
            self.game.step_label()
        ))
    }

    fn set_early(&mut self, on: bool, now: DateTime<Utc>) -> Result<(String, bool), GameError> {
        self.update_settings(now, |s| {
            s.deadlines.early = on;
            Ok(())
        })?;
        if !on {
            let said = "Early processing off: a step that takes every player's input together goes on only at its \
                        deadline.";
            return Ok((said.into(), false));
        }
        let went_on = self.release(now)?.is_some();
        let more = if went_on { " Every input was in and nobody waits: the game went on now." } else { "" };
        Ok((
            format!(
                "Early processing on: a step that takes every player's input together goes on as soon as all \
                 of it is in and nobody asked to wait.{more}"
            ),
            went_on,
        ))
    }

    fn replace(
        &mut self,
        seat: &str,
        address: &str,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<String, GameError> {
        let index =
            self.settings.players.iter().position(|p| p.name.eq_ignore_ascii_case(seat.trim())).ok_or_else(|| {
                usage(format!(
                    "no player `{}`; the players are {}",
                    crate::text::header_safe(seat, 40),
                    self.player_names().join(", ")
                ))
            })?;
        self.update_settings(now, |s| {
            let p: &mut TurnPlayer = &mut s.players[index];
            p.email = address.to_string();
            p.password_hash = Some(password_hash.to_string());
            p.timezone = None;
            Ok(p.name.clone())
        })
    }

    fn scheduled_deadline(&self, now: DateTime<Utc>) -> Result<DateTime<Utc>, GameError> {
        if self.game.ending().is_some() {
            return Err(GameError::Over);
        }
        let schedule = &self.settings.deadlines.schedule;
        schedule.deadline_for(PhaseKind::Movement, now).map_err(|e| usage(e.to_string()))
    }

    fn set_deadline(&mut self, deadline: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Result<(), GameError> {
        OpenTurnGame::set_deadline(self, deadline, now)
    }

    fn go_on_early(&mut self, now: DateTime<Utc>) -> Result<Option<String>, GameError> {
        // A step held only by a setting changed since (game.toml edited by hand) goes on.
        let released = if self.game.together().is_held() && !self.hold_now() { self.release(now)? } else { None };
        if let Some(events) = released {
            return Ok(Some(format!(
                "every input in and nobody waiting: went on early ({})",
                count(events.len(), "event", "events")
            )));
        }
        // Nobody can send what vacant seats are awaited for: their defaults now, step by
        // step while only they are awaited (a bounded number a tick).
        let mut steps = 0;
        let mut events = 0;
        while steps < VACANT_STEPS_PER_TICK {
            let Some(done) = self.go_on_for_vacant(now)? else { break };
            steps += 1;
            events += done.len();
        }
        Ok((steps > 0).then(|| {
            format!(
                "only vacant seats were awaited: went on early ({}, {})",
                count(steps, "step", "steps"),
                count(events, "event", "events")
            )
        }))
    }

    fn late_extension(&mut self, _expected: &str, _now: DateTime<Utc>) -> Result<Option<Outcome>, GameError> {
        // The small games give no late extension: the deadline defaults apply.
        Ok(None)
    }

    fn receive(&mut self, role: &Role, text: &str, now: DateTime<Utc>) -> Result<(Receipt, bool), GameError> {
        if text.len() > MAX_TURN_BYTES {
            return Err(usage(format!("a turn is at most {} KiB of text", MAX_TURN_BYTES / 1024)));
        }
        let seat = seat_of(self, role)?;
        // The step the turn was for, not the one it led to.
        let step = self.game.step_label();
        let sub = OpenTurnGame::submit(self, seat, text, now, now)?;
        Ok((receipt(self, seat, &step, &sub, now), sub.seq.is_some()))
    }

    fn set_wait(&mut self, role: &Role, wait: bool, now: DateTime<Utc>) -> Result<(String, bool), GameError> {
        let Seat::Player(seat) = seat_of(self, role)? else {
            return Err(usage("the game master plays no seat: `wait` is for players"));
        };
        let done = OpenTurnGame::set_wait(self, seat, wait, now)?;
        Ok((format!("{}.", crate::text::sentence(&done.said)), !done.events.is_empty()))
    }

    fn submit(&mut self, submit: Submit<'_>, now: DateTime<Utc>) -> Result<Answer, GameError> {
        let Who::Player(player) = submit.who else {
            return Err(usage("this is a small game: say whose turn file it is with --player NAME"));
        };
        let seat = if player.eq_ignore_ascii_case(MASTER) {
            Seat::Master
        } else {
            Seat::Player(self.player_index(player).ok_or_else(|| {
                usage(format!(
                    "no player `{player}` in this game; the players are {} (or `master`)",
                    self.player_names().join(", ")
                ))
            })?)
        };
        if submit.check {
            return check_turn(self, seat, submit.text, submit.at.unwrap_or(now));
        }
        // The step the turn was for, not the one it led to.
        let step = self.game.step_label();
        let sub = OpenTurnGame::submit(self, seat, submit.text, submit.at.unwrap_or(now), now)?;
        let events: Vec<&String> = sub.ack.events.iter().chain(&sub.events).collect();
        let lines: Vec<Value> = sub
            .ack
            .lines
            .iter()
            .map(
                |l| json!({"line": l.line, "column": l.column, "accepted": l.accepted, "text": l.text, "hint": l.hint}),
            )
            .collect();
        let json = json!({
            "lines": lines,
            "events": events,
            "kept": sub.seq.is_some(),
            "status": OpenTurnGame::status_json(self),
        });
        let mut receipt = receipt(self, seat, &step, &sub, now);
        let taken = sub.seq.is_some();
        if taken {
            // The report that follows says what is awaited now: once is enough.
            receipt.awaited = None;
        }
        let mut text = receipt.render(None);
        if taken {
            text.push('\n');
            text.push_str(&self.report_text());
        } else {
            // Nothing changed: the board is as `status` shows it.
            text.push_str("Nothing was taken; the game is as it was.\n");
        }
        Ok(Answer { text, json: pretty(&json), ok: sub.ack.lines.iter().all(|l| l.accepted) })
    }

    fn adjudicate(&mut self, force: bool, _by_mail: bool, now: DateTime<Utc>) -> Result<Answer, GameError> {
        // Every step of a small game is owed by mail to its players (the journal says so).
        let events = self.force(force, None, now)?;
        let mut text: String = events.iter().map(|e| format!("  {e}\n")).collect();
        text.push('\n');
        text.push_str(&self.report_text());
        Ok(Answer::new(text, pretty(&json!({"events": events, "status": OpenTurnGame::status_json(self)}))))
    }
}

impl ByMail for OpenTurnGame {
    fn seat(&self, who: &str) -> Result<SeatRecord, Vec<String>> {
        if names_master(who) {
            return Ok(by_mail::master_seat(&self.settings.master));
        }
        if who.contains('@') {
            let s = &self.settings;
            return by_mail::observer_seat(&s.observers, &s.observer_passwords, who).ok_or_else(|| self.player_names());
        }
        let p = self.player_settings(who).ok_or_else(|| self.player_names())?;
        Ok(SeatRecord {
            role: Role::Seat(p.name.clone()),
            address: Some(p.email.clone()).filter(|_| !self.is_vacant(&p.name)),
            timezone: by_mail::zone(p.timezone.as_deref()),
            password_hash: p.password_hash.clone(),
        })
    }

    fn offers(&self) -> crate::games::Offers {
        super::offers_of(Some(&GameSession::kind(self)))
    }

    fn status_for(&self, role: &Role, zone: Option<Tz>, now: DateTime<Utc>) -> String {
        status_for_reader(self, role, zone, now)
    }

    fn recent_history(&self, _role: &Role) -> Result<String, GameError> {
        let mut out = String::new();
        let skip = self.entries.len().saturating_sub(HISTORY_ENTRIES);
        for (index, (seq, at, entry)) in self.entries.iter().enumerate().skip(skip) {
            if let Some(report) = self.entry_report(*seq) {
                out.push_str(&format!("#{seq} {}: {}", at.format("%Y-%m-%d %H:%M UTC"), report));
            } else if let TurnEntry::DeadlineSet { deadline } = entry {
                let to = deadline.map_or("none (paused)".into(), |d| d.format("%Y-%m-%d %H:%M UTC").to_string());
                out.push_str(&format!("#{seq} {}: deadline set to {to}\n", at.format("%Y-%m-%d %H:%M UTC")));
            } else if matches!(entry, TurnEntry::Wait { .. }) {
                out.push_str(&format!("#{seq} {}: {}\n", at.format("%Y-%m-%d %H:%M UTC"), describe(self, index)));
            }
        }
        Ok(out)
    }

    fn contacts(&self) -> Vec<Contact> {
        let s = &self.settings;
        // A vacant seat is mailed nothing: its player resigned.
        let seats = s
            .players
            .iter()
            .filter(|p| !self.is_vacant(&p.name))
            .map(|p| (p.name.clone(), p.email.as_str(), p.timezone.as_deref()));
        by_mail::contacts(seats, &s.observers, &s.master)
    }

    fn set_particulars(
        &mut self,
        role: &Role,
        password_hash: Option<&str>,
        zone: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        self.update_settings(now, |s| {
            let players = &mut s.players;
            set_role_particulars(
                role,
                &mut s.master,
                &mut s.observer_passwords,
                move |name: &str| {
                    let p = players
                        .iter_mut()
                        .find(|p| p.name.eq_ignore_ascii_case(name))
                        .ok_or_else(|| usage(format!("no player `{name}`")))?;
                    Ok((&mut p.password_hash, &mut p.timezone))
                },
                password_hash,
                zone,
            )
        })
    }
}

impl Timed for OpenTurnGame {
    fn deadline(&self) -> Option<DateTime<Utc>> {
        self.meta.deadline.filter(|_| self.game.ending().is_none())
    }

    fn clock(&self) -> Option<Clock> {
        let (Some(deadline), None) = (self.meta.deadline, self.game.ending()) else { return None };
        let awaiting = self.game.awaiting();
        // A window the game sets itself (Duple's answers and challenges) closes at its
        // time: grace is for late turns at the schedule's deadlines, not for a race's
        // windows.
        let mut policy = self.settings.deadlines.clone();
        if crate::turn::own_deadline(self.game.as_ref()).is_some() {
            policy.grace_hours = crate::game::schedule::Span::default();
        }
        Some(Clock {
            step: self.clock_step(),
            deadline,
            started: None,
            // Input the game can do without (a challenge, if any) is not reminded or chased.
            missing: if awaiting.optional { Vec::new() } else { self.awaiting_names() },
            policy,
            awaited: Some(awaiting.what),
            defaults: "the deadline defaults apply".into(),
        })
    }

    fn keep_glance(&self, clock: Option<&Clock>) {
        let seen = crate::game::session::Seen {
            step: clock.map_or_else(|| self.clock_step(), |c| c.step.clone()),
            deadline: clock.map(|c| c.deadline),
            over: self.game.ending().is_some(),
            missing: clock.map(|c| c.missing.clone()).unwrap_or_default(),
            early: self.may_go_on_early(),
            deadlines: clock.map_or_else(|| self.settings.deadlines.clone(), |c| c.policy.clone()),
        };
        OpenTurnGame::keep_glance(self, seen);
    }
}

impl OwedResults for OpenTurnGame {
    fn owed(&self) -> Result<Vec<OwedMail>, GameError> {
        // The step that ended the game (no step comes after it): its mail says so.
        let last_step = self.entries.iter().rev().find(|(_, _, e)| e.step().is_some()).map(|(s, _, _)| *s);
        let ended = self.game.ending().map(|e| self.ending_text(&e));
        Ok(self
            .reports_owed()?
            .into_iter()
            .map(|owed| {
                let mut what = self.entry_report(owed.seq).unwrap_or_default();
                // Each report shows the board as it was right after its own step (the
                // latest: as it is now), so reports owed together each show their own
                // moment.
                let board = self.report_text_at(owed.seq).unwrap_or_else(|| self.report_text());
                let mut step = self.entry_label(owed.seq).unwrap_or_default();
                if let Some(words) = ended.as_ref().filter(|_| Some(owed.seq) == last_step) {
                    step = format!("{step}; the game is over: {words}");
                    what = format!(
                        "The game is over: {words}. The dice's seed is revealed: anyone can check every roll \
                         with `shadowjudge verify {}`.\n\n{what}",
                        self.settings.name
                    );
                }
                OwedMail {
                    seq: owed.seq,
                    title: format!("report #{} ({step})", owed.seq),
                    step,
                    text: format!("{what}\n{board}"),
                    next_deadline: None,
                    only_to: owed.only_to,
                    also_to: Vec::new(),
                    quiet: self.quiet_for(owed.seq, Some(owed.seq) == last_step && ended.is_some()),
                }
            })
            .collect())
    }

    fn lock_mailing(&self, wait: bool) -> Result<Option<TaskLock>, GameError> {
        OpenTurnGame::lock_mailing(self, wait)
    }

    fn begin_mailing(&mut self, seq: u64, to: &[String], now: DateTime<Utc>) -> Result<MailingPlan, GameError> {
        OpenTurnGame::begin_mailing(self, seq, to, now)
    }

    fn note_mailed(&mut self, seq: u64, outcome: &MailingOutcome) -> Result<(), GameError> {
        OpenTurnGame::note_mailed(self, seq, outcome)
    }

    fn record_mailed(&mut self, seq: u64, outcome: &MailingOutcome, now: DateTime<Utc>) -> Result<(), GameError> {
        // An address no mail can be built for is given up, not retried.
        OpenTurnGame::record_mailed(self, seq, outcome, now)
    }
}

impl Seats for OpenTurnGame {
    fn listing(&self) -> crate::game::seating::Listing {
        let (seats, vacant) = super::small_lobby::seat_lines(self);
        let observers = self.settings.observers.len();
        let notes = if observers > 0 { vec![format!("Observers: {observers}.")] } else { Vec::new() };
        crate::game::seating::Listing {
            name: self.settings.name.clone(),
            kind: self.meta.game.clone(),
            step: self.game.step_label(),
            deadline: self.meta.deadline,
            over: self.game.ending().is_some(),
            result: self.game.ending().map(|e| self.ending_text(&e)),
            open: None,
            vacant,
            seats,
            notes,
            powers: Vec::new(),
        }
    }

    fn change_seats(&mut self, change: &SeatChange<'_>, now: DateTime<Utc>) -> Result<SeatOutcome, GameError> {
        super::small_lobby::change_seats(self, change, now)
    }

    fn joined_hash(&self, _email: &str) -> Option<String> {
        None
    }
}

impl ReportVolume for OpenTurnGame {
    fn set_reports(&mut self, role: &Role, reports: Reports, now: DateTime<Utc>) -> Result<(), GameError> {
        let Role::Seat(name) = role else {
            return Err(usage("the master and observers are mailed every report; a player chooses with `reports`"));
        };
        let name = name.clone();
        self.update_settings(now, move |s| {
            let p = s
                .players
                .iter_mut()
                .find(|p| p.name.eq_ignore_ascii_case(&name))
                .ok_or_else(|| usage(format!("no player `{name}`")))?;
            p.reports = Some(reports);
            Ok(())
        })
    }
}

impl OpenTurnGame {
    /// The players not mailed the report of the step at `seq` (`last`: the one that ended
    /// the game), as they chose ([`crate::game::by_mail::Reports`]): a player who asked
    /// for their turns only gets the reports that leave something for them to do; one who
    /// asked for rounds, the report that begins each round; everyone the first and the last.
    fn quiet_for(&self, seq: u64, last: bool) -> Vec<String> {
        use crate::game::by_mail::Reports;
        let steps: Vec<(u64, &crate::game::session::turn::Step)> =
            self.entries.iter().filter_map(|(s, _, e)| e.step().map(|step| (*s, step))).collect();
        let Some(at) = steps.iter().position(|(s, _)| *s == seq) else { return Vec::new() };
        if at == 0 || last {
            return Vec::new();
        }
        let step = steps[at].1;
        let begins_round = step.round != steps[at - 1].1.round;
        let awaited =
            crate::games::load(&self.meta.game, &step.state).map(|g| g.awaiting().players).unwrap_or_default();
        let default = Reports::default_for(self.settings.players.len());
        let names = self.player_names();
        self.settings
            .players
            .iter()
            .filter(|p| match p.reports.unwrap_or(default) {
                Reports::Every => false,
                Reports::Round => !begins_round,
                Reports::Turn => {
                    let index = names.iter().position(|n| n.eq_ignore_ascii_case(&p.name));
                    !index.is_some_and(|i| awaited.contains(&i))
                }
            })
            .map(|p| p.email.clone())
            .collect()
    }
}

/// A reader's `status`: the report with the deadline in their own time zone too, and,
/// for a player, what is theirs to do.
fn status_for_reader(g: &OpenTurnGame, role: &Role, zone: Option<Tz>, now: DateTime<Utc>) -> String {
    let mut text = g.report_text();
    if let Some(d) = g.meta.deadline.filter(|_| zone.is_some()) {
        let utc = format!("Deadline: {}\n", deadline_text(Some(d)));
        text = text.replacen(&utc, &format!("Deadline: {}\n", format_deadline(d, zone)), 1);
    }
    // What is awaited as the reader asks: a window the game set itself that closed before
    // now is not named as open (the next tick settles it).
    let awaiting = crate::turn::awaiting_at(g.game.as_ref(), now);
    if awaiting != g.game.awaiting() && g.game.ending().is_none() {
        let names: Vec<String> = awaiting.players.iter().filter_map(|i| g.player_names().get(*i).cloned()).collect();
        let said = if names.is_empty() {
            format!("Waiting for {}.\n", awaiting.what)
        } else {
            format!("Waiting for {}: {}.\n", names.join(" and "), awaiting.what)
        };
        let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
        match lines.iter().position(|l| l.starts_with("Waiting for ")) {
            Some(at) => lines[at] = said,
            None => lines.push(said),
        }
        text = lines.concat();
    }
    let Role::Seat(name) = role else { return text };
    let Some(seat) = g.player_index(name) else { return text };
    let me = &g.player_names()[seat];
    let line = if g.game.ending().is_some() {
        return text;
    } else if awaiting.players.contains(&seat) {
        let by = g.meta.deadline.map(|d| format!(", by {}", format_deadline(d, zone))).unwrap_or_default();
        format!("You play {me}. Yours to do: {}{by}.", awaiting.what)
    } else {
        let names: Vec<String> = if awaiting == g.game.awaiting() {
            g.awaiting_names()
        } else {
            awaiting.players.iter().filter_map(|i| g.player_names().get(*i).cloned()).collect()
        };
        if names.is_empty() {
            format!("You play {me}. Nothing is yours to do now.")
        } else {
            format!("You play {me}. Nothing is yours to do now: the judge waits for {}.", names.join(" and "))
        }
    };
    text.push('\n');
    text.push_str(&line);
    text.push('\n');
    text
}

/// `submit --check` in a small game: every line's answer, as if sent now, and nothing kept.
fn check_turn(g: &OpenTurnGame, seat: Seat, text: &str, at: DateTime<Utc>) -> Result<Answer, GameError> {
    let (ack, rolled) = g.check(seat, text, at)?;
    let mut out = ack.receipt(&seat_name(g, seat), &g.game.step_label(), None).render(None);
    if text.lines().any(|l| matches!(l.trim().to_ascii_lowercase().as_str(), "wait" | "nowait")) {
        out.push_str("(`wait` and `nowait` are not checked: they are taken when the turn is sent.)\n");
    }
    out.push_str("Checked only: nothing was kept; the game is as it was.\n");
    if rolled {
        out.push_str(
            "The rolls above are stand-ins, not the game's dice: the real rolls are made when the turn is sent.\n",
        );
    }
    let lines: Vec<Value> = ack
        .lines
        .iter()
        .map(|l| json!({"line": l.line, "column": l.column, "accepted": l.accepted, "text": l.text, "hint": l.hint}))
        .collect();
    let json = json!({"lines": lines, "events": ack.events, "kept": false, "checked": true, "stand_in_rolls": rolled});
    Ok(Answer { text: out, json: pretty(&json), ok: ack.lines.iter().all(|l| l.accepted) })
}

/// What a turn caused: `seat`'s lines for `step`, the turn's own events and those of the
/// steps it let run, and what the game awaits now.
fn receipt(g: &OpenTurnGame, seat: Seat, step: &str, sub: &Submission, now: DateTime<Utc>) -> Receipt {
    let mut ack = sub.ack.clone();
    ack.events.extend(sub.events.iter().cloned());
    // As things are at `now`: a window that closed since is not named as awaited.
    let awaiting = crate::turn::awaiting_at(g.game.as_ref(), now);
    let names = g.names_awaited(&awaiting);
    let awaited = if let Some(ending) = g.game.ending() {
        vec![format!("nothing: the game is over ({})", g.ending_text(&ending))]
    } else if let Some(held) = g.hold_text().filter(|_| names.is_empty()) {
        vec![format!("nothing more. {held}")]
    } else if names.is_empty() {
        // Nobody is awaited; a window that closed before the tick says which.
        Some(awaiting.what).filter(|what| !what.is_empty()).into_iter().collect()
    } else {
        // The comma keeps a `what` that ends in words (", if any") apart from the names.
        vec![format!("{}, from {}", awaiting.what, names.join(" and "))]
    };
    ack.receipt(&seat_name(g, seat), step, Some(awaited))
}

/// How a seat is named in an answer: the player's name, or the game master.
fn seat_name(g: &OpenTurnGame, seat: Seat) -> String {
    match seat {
        Seat::Player(i) => g.player_names().get(i).cloned().unwrap_or_default(),
        Seat::Master => Role::Master.to_string(),
    }
}

/// How many journal entries a `history` mail goes back over.
const HISTORY_ENTRIES: usize = 20;

/// The seat a signed-on role plays.
fn seat_of(g: &OpenTurnGame, role: &Role) -> Result<Seat, GameError> {
    match role {
        Role::Seat(name) => {
            g.player_index(name).map(Seat::Player).ok_or_else(|| usage(format!("no player `{name}` in this game")))
        }
        Role::Master => Ok(Seat::Master),
        Role::Observer(_) => Err(usage("an observer plays no seat: observers read `status` and `history`")),
    }
}
