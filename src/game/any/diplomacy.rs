//! [`GameSession`] for Diplomacy's store (standard and Shadow Worlds).

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use serde_json::Value;

use super::{
    parse_phase, pretty, usage, Answer, Board, ByMail, Clock, Contact, Desk, GameError, GameSession, History,
    HistoryRow, Listing, MailingOutcome, MailingPlan, Notice, Outcome, OwedMail, OwedResults, Pictures, PlayerCommand,
    Press, PressDelivery, PressTo, Receipt, Role, SeatChange, SeatOutcome, SeatRecord, Seats, Submit, Timed, Votes,
    Who,
};
use crate::diplomacy::engine::{Game, Vote};
use crate::diplomacy::map::{normalize_name, Map, PowerId};
use crate::diplomacy::report::deadline_text;
use crate::game::by_mail::{self, names_master};
use crate::game::session::OpenGame;
use crate::game::settings::{self, Draws, Player, PressRule, Settings};
use crate::phase::PhaseKind;
use crate::store::TaskLock;
use crate::text::count;

impl GameSession for OpenGame {
    fn kind(&self) -> String {
        self.game.settings.variant.name().to_string()
    }

    // -----------------------------------------------------------------------------------
    // By mail
    fn name(&self) -> String {
        self.game.settings.name.clone()
    }

    fn is_over(&self) -> bool {
        self.game.state.end.is_some()
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn carry_out(&mut self, tag: Option<String>) {
        OpenGame::carry_out(self, tag);
    }

    fn has_message(&self, tag: &str) -> bool {
        OpenGame::has_message(self, tag)
    }

    fn status_text(&self) -> String {
        crate::game::status::status_text(&self.game, None, None)
    }

    fn status_json(&self) -> Value {
        crate::game::status::status_json(&self.game)
    }

    fn history(&self) -> Result<History, GameError> {
        use crate::game::journal::Entry;
        let records = self.dir.journal::<Entry>()?;
        let mut rows = Vec::new();
        let map = &self.game.map;
        let name = |key: &str| map.lookup_power(key).map_or_else(|| key.to_string(), |p| map.power(p).name.clone());
        let names = |keys: &[String]| keys.iter().map(|k| name(k)).collect::<Vec<_>>();
        // The phase the game was in when each entry was written (an adjudication is shown
        // under the phase it adjudicated, the entries after it under the next).
        let mut current = self.game.state.phase;
        for r in records.records() {
            let (event, phase) = match &r.entry {
                Entry::Created { state } => ("created".to_string(), state.phase),
                Entry::Submitted { phase, power, .. } => (format!("orders from {power}"), *phase),
                Entry::Adjudicated { phase, forced, .. } => {
                    (if *forced { "adjudicated (forced)".into() } else { "adjudicated".to_string() }, *phase)
                }
                Entry::RolledBack { to, .. } => (format!("rolled back to {to}"), *to),
                Entry::DrawDeclared { notice, state } => (notice.clone(), state.phase),
                Entry::DrawVote { power } => (format!("{power} votes for a draw"), current),
                Entry::Vote { power, vote, powers, .. } => (vote_event(&name(power), vote, &names(powers)), current),
                Entry::Absence { power, from, to, moved_to, .. } => (
                    format!(
                        "{} announces an absence from {} to {}{}",
                        name(power),
                        from.format("%Y-%m-%d %H:%M"),
                        to.format("%Y-%m-%d %H:%M"),
                        moved_to
                            .map(|d| format!("; deadline moved to {}", d.format("%Y-%m-%d %H:%M")))
                            .unwrap_or_default()
                    ),
                    current,
                ),
                Entry::AbsenceRefused { power, .. } => {
                    (format!("{}'s absences refused by the master", name(power)), current)
                }
                Entry::LateExtension { powers, deadline } => (
                    format!(
                        "late: {} sent nothing; deadline extended to {}",
                        names(powers).join(", "),
                        deadline_text(Some(*deadline))
                    ),
                    current,
                ),
                Entry::Abandoned { power, missed } => (
                    format!(
                        "{} declared vacant after {} missed in a row",
                        name(power),
                        count(*missed, "phase", "phases")
                    ),
                    current,
                ),
                Entry::DeadlineSet { deadline } => (format!("deadline set: {}", deadline_text(*deadline)), current),
                Entry::Press { from, to, .. } => (format!("press from {from} to {}", to.join(", ")), current),
                Entry::Wait { power, wait: true } => (format!("{power} waits for the deadline"), current),
                Entry::Wait { power, wait: false } => (format!("{power} no longer waits"), current),
                Entry::Seats { event } => (event.describe(), current),
                Entry::PlayerChanged { who, what, old, new } => (
                    format!(
                        "{who}: {what} changed from {} to {}",
                        old.as_deref().unwrap_or("none"),
                        new.as_deref().unwrap_or("none")
                    ),
                    current,
                ),
            };
            current = match &r.entry {
                Entry::Created { state } | Entry::Adjudicated { state, .. } | Entry::DrawDeclared { state, .. } => {
                    state.phase
                }
                Entry::RolledBack { to, .. } => *to,
                _ => current,
            };
            rows.push(HistoryRow { seq: r.seq, at: r.at, step: phase.code(), event });
        }
        Ok(History { step_key: "phase", rows })
    }

    fn public(&self) -> crate::game::public::PublicGame {
        crate::game::public::of_diplomacy(self)
    }

    fn submit(&mut self, submit: Submit<'_>, now: DateTime<Utc>) -> Result<Answer, GameError> {
        let Who::Power(name) = submit.who else {
            return Err(usage("this is a Diplomacy game: say whose orders with --power"));
        };
        let power = self.game.map.lookup_power(name).ok_or_else(|| usage(format!("unknown power `{name}`")))?;
        let ack = OpenGame::submit(self, power, submit.text, submit.check, now)?;
        let mut text = ack.receipt().render(None);
        if submit.check {
            text.push_str("Checked only: nothing was kept; the game is as it was.\n");
        }
        Ok(Answer { text, json: pretty(&ack), ok: ack.problems.is_empty() })
    }

    fn adjudicate(&mut self, force: bool, by_mail: bool, now: DateTime<Utc>) -> Result<Answer, GameError> {
        let report =
            if by_mail { self.adjudicate_to_mail(None, force, now)? } else { OpenGame::adjudicate(self, force, now)? };
        let mut text = report.to_text();
        if self.game.state.end.is_none() {
            text.push_str(&format!("Deadline: {}.\n", deadline_text(self.game.state.deadline)));
        }
        if by_mail {
            text.push_str("The results are owed by mail: the next `mail tick` sends them.\n");
        }
        Ok(Answer::new(text, pretty(&report)))
    }

    fn press(&mut self) -> Option<&mut dyn Press> {
        Some(self)
    }

    fn votes(&mut self) -> Option<&mut dyn Votes> {
        Some(self)
    }

    fn pictures(&mut self) -> Option<&mut dyn Pictures> {
        Some(self)
    }

    fn seats(&mut self) -> Option<&mut dyn Seats> {
        Some(self)
    }
}

impl Desk for OpenGame {
    fn preview(&self) -> Result<Answer, GameError> {
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let report = OpenGame::preview(self);
        let text = format!("{}(dry run: nothing was changed)\n", report.to_text());
        Ok(Answer::new(text, pretty(&report)))
    }

    fn results(&self, which: Option<&str>) -> Result<Answer, GameError> {
        let reports = self.reports();
        let report = match which {
            None => reports.last().copied().ok_or_else(|| usage("no phase has been adjudicated yet"))?,
            Some(p) => {
                let phase = parse_phase(p)?;
                reports
                    .iter()
                    .rev()
                    .find(|r| r.phase == phase)
                    .copied()
                    .ok_or_else(|| usage(format!("{phase} has not been adjudicated in this game")))?
            }
        };
        Ok(Answer::new(report.to_text(), pretty(report)))
    }

    fn rollback(&mut self, to: &str, now: DateTime<Utc>) -> Result<String, GameError> {
        let phase = parse_phase(to)?;
        OpenGame::rollback(self, phase, now)?;
        Ok(format!("Rolled back to the start of {phase}. The journal keeps everything that came after."))
    }

    fn verify(&self) -> Result<Answer, GameError> {
        // A Diplomacy game rolls dice only to assign powers to the players who joined.
        match self.verify_seats() {
            None => {
                Err(usage("this is a Diplomacy game: it rolls no dice (its powers were not assigned by the judge)"))
            }
            Some(Ok(rolls)) => {
                let text = format!(
                    "verified {}: the seed matches the commitment published when the seats opened, and the powers \
                     are the ones the seed and the journaled joins give\n",
                    count(rolls, "roll", "rolls")
                );
                Ok(Answer::new(text, serde_json::json!({"ok": true, "rolls": rolls}).to_string()))
            }
            Some(Err(problem)) => Ok(Answer {
                text: format!("the assignment of powers does not verify: {problem}\n"),
                json: serde_json::json!({"ok": false, "problem": problem}).to_string(),
                ok: false,
            }),
        }
    }

    fn reveal(&mut self, _force: bool, _now: DateTime<Utc>) -> Result<Answer, GameError> {
        Err(usage("this is a Diplomacy game: it has no dice seed"))
    }

    fn process(&mut self, expected: Option<&str>, now: DateTime<Utc>) -> Result<String, GameError> {
        let expected = expected.map(parse_phase).transpose()?;
        let report = self.adjudicate_to_mail(expected, true, now)?;
        let readers = readers(&self.game);
        Ok(format!("{} processed; the results go to {}.", report.phase, count(readers, "address", "addresses")))
    }

    fn set_early(&mut self, on: bool, now: DateTime<Utc>) -> Result<(String, bool), GameError> {
        self.update_settings(now, |s| {
            s.deadlines.early = on;
            Ok(())
        })?;
        let said = if on {
            "Early processing on: a phase is processed at the next tick once every order is in and no power asked \
             to wait."
        } else {
            "Early processing off: every phase waits for its deadline."
        };
        Ok((said.to_string(), false))
    }

    fn replace(
        &mut self,
        seat: &str,
        address: &str,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<String, GameError> {
        let map = self.game.map.clone();
        self.update_settings(now, |s| {
            let p = named_power(&map, seat)?;
            match s.players.iter_mut().find(|pl| map.lookup_power(&pl.power) == Some(p)) {
                Some(player) => {
                    player.email = address.to_string();
                    player.password_hash = Some(password_hash.to_string());
                    player.timezone = None;
                }
                None => s.players.push(Player {
                    power: map.power(p).key.clone(),
                    name: address.to_string(),
                    email: address.to_string(),
                    timezone: None,
                    password_hash: Some(password_hash.to_string()),
                    pictures: true,
                }),
            }
            Ok(map.power(p).name.clone())
        })
    }
}

impl ByMail for OpenGame {
    fn seat(&self, who: &str) -> Result<SeatRecord, Vec<String>> {
        let (map, settings) = (&self.game.map, &self.game.settings);
        if names_master(who) {
            return Ok(by_mail::master_seat(&settings.master));
        }
        let power = resolve_power(map, who).ok_or_else(|| power_names(map))?;
        let player = settings.player(map, power);
        Ok(SeatRecord {
            role: Role::Seat(map.power(power).name.clone()),
            address: player.map(|p| p.email.clone()),
            timezone: by_mail::zone(player.and_then(|p| p.timezone.as_deref())),
            password_hash: player.and_then(|p| p.password_hash.clone()),
        })
    }

    fn plays_turn_lines(&self) -> bool {
        false
    }

    fn receive(&mut self, role: &Role, text: &str, now: DateTime<Utc>) -> Result<(Receipt, bool), GameError> {
        let power = power_of(&self.game, role)?;
        let ack = OpenGame::submit(self, power, text, false, now)?;
        // Orders wait for the adjudication: the game does not go on here.
        Ok((ack.receipt(), false))
    }

    fn status_for(&self, role: &Role, zone: Option<Tz>) -> String {
        crate::game::status::status_text(&self.game, power_of(&self.game, role).ok(), zone)
    }

    fn recent_history(&self, role: &Role) -> Result<String, GameError> {
        if *role != Role::Master {
            return phases_and_results(self);
        }
        // The master: the journal's last entries, as `history` shows them on the command
        // line (player changes included), then the last results.
        let history = GameSession::history(self)?;
        let skip = history.rows.len().saturating_sub(HISTORY_ROWS);
        let recent = History { step_key: history.step_key, rows: history.rows[skip..].to_vec() };
        let mut out = format!("The game's journal (the last {} entries):\n{}", recent.rows.len(), recent.to_text());
        match self.reports().last() {
            Some(last) => out.push_str(&format!("\nThe last results:\n{}", last.to_text())),
            None => out.push_str("\nNo phase has been adjudicated yet.\n"),
        }
        Ok(out)
    }

    fn contacts(&self) -> Vec<Contact> {
        contacts_of(&self.game)
    }

    fn set_particulars(
        &mut self,
        role: &Role,
        password_hash: Option<&str>,
        zone: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let map = self.game.map.clone();
        self.update_settings(now, |s| {
            let (hash, tz) = match role {
                Role::Master => (&mut s.master.password_hash, &mut s.master.timezone),
                Role::Seat(name) => {
                    let player = player_mut(&map, s, name)?;
                    (&mut player.password_hash, &mut player.timezone)
                }
            };
            by_mail::set_particulars(hash, tz, password_hash, zone);
            Ok(())
        })
    }

    fn set_wait(&mut self, role: &Role, wait: bool, now: DateTime<Utc>) -> Result<(String, bool), GameError> {
        let power = power_of(&self.game, role)?;
        OpenGame::set_wait(self, power, wait, now)?;
        let said = match (wait, self.game.settings.deadlines.early) {
            (true, _) => "Waiting: this phase is not processed before its deadline (send `nowait` to undo).",
            (false, true) => "Not waiting: this phase may be processed once every order is in, before its deadline.",
            (false, false) => "Not waiting (this game processes every phase at its deadline anyway).",
        };
        Ok((said.to_string(), false))
    }
}

impl Timed for OpenGame {
    fn deadline(&self) -> Option<DateTime<Utc>> {
        self.game.state.deadline
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

impl OwedResults for OpenGame {
    fn owed(&self) -> Result<Vec<OwedMail>, GameError> {
        Ok(self
            .results_owed()?
            .into_iter()
            .map(|owed| {
                let mut text = owed.report.to_text();
                if owed.early {
                    text.insert_str(0, "Processed early: every power's orders were in and no one asked to wait.\n\n");
                }
                OwedMail {
                    seq: owed.seq,
                    title: format!("results of {}", owed.report.phase),
                    step: owed.report.phase.to_string(),
                    text,
                    next_deadline: owed.next_deadline,
                    only_to: owed.only_to,
                    also_to: owed.abandoned,
                }
            })
            .collect())
    }

    fn lock_mailing(&self, wait: bool) -> Result<Option<TaskLock>, GameError> {
        OpenGame::lock_mailing(self, wait)
    }

    fn begin_mailing(&mut self, seq: u64, to: &[String], now: DateTime<Utc>) -> Result<MailingPlan, GameError> {
        self.begin_results_mailing(seq, to, now)
    }

    fn record_mailed(&mut self, seq: u64, outcome: &MailingOutcome, now: DateTime<Utc>) -> Result<(), GameError> {
        self.record_results_mailed(seq, outcome, now)
    }
}

impl Press for OpenGame {
    fn send(&mut self, from: &Role, to: &PressTo, text: &str, now: DateTime<Utc>) -> Result<PressDelivery, GameError> {
        let me = power_of(&self.game, from).ok();
        let map = self.game.map.clone();
        let settings = &self.game.settings;
        if me.is_some() && settings.press == PressRule::Gunboat {
            return Err(usage(
                "this is a gunboat game (press = \"none\"): players send no press; only the game master writes to \
                 everyone",
            ));
        }
        let players: Vec<(PowerId, String)> = settings
            .players
            .iter()
            .filter_map(|p| Some((map.lookup_power(&p.power)?, p.email.clone())))
            .filter(|(p, _)| Some(*p) != me)
            .collect();
        let (to_label, names, addresses) = match to {
            PressTo::All => {
                let mut addresses: Vec<String> = players.iter().map(|(_, a)| a.clone()).collect();
                addresses.extend(settings.observers.iter().cloned());
                ("to everyone".to_string(), vec!["everyone".to_string()], addresses)
            }
            PressTo::Powers(written) => {
                let mut chosen = Vec::new();
                for w in written {
                    let p = named_power(&map, w)?;
                    if !chosen.contains(&p) {
                        chosen.push(p);
                    }
                }
                let names: Vec<String> = chosen.iter().map(|p| map.power(*p).name.clone()).collect();
                let addresses = players.iter().filter(|(p, _)| chosen.contains(p)).map(|(_, a)| a.clone()).collect();
                (format!("to {}", names.join(", ")), names, addresses)
            }
        };
        if addresses.is_empty() {
            return Err(usage("nobody plays the powers named, so no one would read it"));
        }
        let from_key = match from {
            Role::Seat(p) => p.clone(),
            Role::Master => "master".into(),
        };
        self.record_press(&from_key, names, text, now)?;
        let from_label = match me {
            // Grey press: the journal keeps the sender; the readers are not told.
            Some(_) if self.game.settings.press == PressRule::Grey => "an unnamed power".into(),
            Some(p) => map.power(p).name.clone(),
            None => "the game master".into(),
        };
        Ok(PressDelivery { from_label, to_label, addresses })
    }
}

impl Votes for OpenGame {
    fn player_command(
        &mut self,
        role: &Role,
        command: &PlayerCommand,
        zone: Option<Tz>,
        now: DateTime<Utc>,
    ) -> Result<Outcome, GameError> {
        let power = power_of(&self.game, role)?;
        match command {
            PlayerCommand::Absence { from, to } => self.absence(power, *from, *to, zone, now),
            _ => self.vote_by_mail(power, command, now),
        }
    }

    fn refuse_absence(&mut self, seat: &str, now: DateTime<Utc>) -> Result<Outcome, GameError> {
        let power = named_power(&self.game.map, seat)?;
        let moved = self.refuse_absence_of(power, now)?;
        let name = self.game.map.power(power).name.clone();
        let mut out =
            Outcome { said: format!("{name}'s absences are refused: they move no deadline."), notices: Vec::new() };
        if let Some(at) = moved {
            out.said.push_str(&format!(" The deadline moves back to {}.", deadline_text(Some(at))));
            out.notices.push(self.deadline_notice(at, "The game master refused an absence that had moved it."));
        }
        Ok(out)
    }
}

impl Pictures for OpenGame {
    fn set_pictures(&mut self, role: &Role, on: bool, now: DateTime<Utc>) -> Result<(), GameError> {
        let Role::Seat(name) = role else {
            return Err(usage(
                "only players turn their pictures off; the game option `pictures = false` turns them off for everyone",
            ));
        };
        let map = self.game.map.clone();
        self.update_settings(now, |s| {
            player_mut(&map, s, name)?.pictures = on;
            Ok(())
        })
    }

    fn board(&self) -> Option<Board<'_>> {
        let settings = &self.game.settings;
        settings.pictures.then(|| Board {
            map: &self.game.map,
            name: &settings.name,
            entries: &self.entries,
            pictures_off: settings.players.iter().filter(|p| !p.pictures).map(|p| p.email.clone()).collect(),
        })
    }
}

impl Seats for OpenGame {
    fn listing(&self) -> Listing {
        let (map, settings, state) = (&self.game.map, &self.game.settings, &self.game.state);
        let played = |p: PowerId| settings.player(map, p).is_some();
        let open = self.seats_left().map(|left| {
            let all = map.power_ids().count();
            (all - left, all)
        });
        let vacant: Vec<String> = if open.is_some() {
            Vec::new()
        } else {
            map.power_ids()
                .filter(|p| !played(*p) && !state.eliminated.contains(p))
                .map(|p| map.power(p).name.clone())
                .collect()
        };
        let seats = if open.is_some() {
            Vec::new()
        } else {
            map.power_ids()
                .map(|p| {
                    let centers: Vec<String> = state.boards.iter().map(|b| b.ownership.count(p).to_string()).collect();
                    let who = if state.eliminated.contains(&p) {
                        "out"
                    } else if played(p) {
                        "played"
                    } else {
                        "vacant"
                    };
                    format!("{:<8} {:<7} centers {}", map.power(p).name, who, centers.join("+"))
                })
                .collect()
        };
        let mut notes = Vec::new();
        if !settings.observers.is_empty() {
            notes.push(count(settings.observers.len(), "observer", "observers"));
        }
        if !settings.seats.asks.is_empty() {
            notes.push(format!("{} waiting for the master", count(settings.seats.asks.len(), "takeover", "takeovers")));
        }
        crate::game::seating::Listing {
            name: settings.name.clone(),
            kind: settings.variant.name().to_string(),
            step: state.phase.to_string(),
            deadline: state.deadline,
            over: state.end.is_some(),
            open,
            vacant,
            seats,
            notes,
        }
    }

    fn change_seats(&mut self, change: &SeatChange<'_>, now: DateTime<Utc>) -> Result<SeatOutcome, GameError> {
        let map = self.game.map.clone();
        let key = |written: &str| named_power(&map, written).map(|p| map.power(p).key.clone());
        let label = |written: &str| named_power(&map, written).map(|p| map.power(p).name.clone());
        Ok(match change {
            SeatChange::Join { email, password_hash, prefer } => {
                let mut keys: Vec<String> = Vec::new();
                for written in prefer.iter() {
                    let k = key(written)?;
                    if !keys.contains(&k) {
                        keys.push(k);
                    }
                }
                let joined = self.join(email, password_hash, keys, now)?;
                SeatOutcome::Joined { again: joined.again, seats_left: joined.seats_left, started: joined.started }
            }
            SeatChange::Leave { email } => SeatOutcome::Left { seats_left: self.leave(email, now)? },
            SeatChange::Observe { email } => SeatOutcome::Observing { new: self.observe(email, now)? },
            SeatChange::Resign { seat } => {
                let email = self.resign(&key(seat)?, now)?;
                SeatOutcome::Resigned { seat: label(seat)?, email }
            }
            SeatChange::Takeover { seat, email, password_hash } => {
                if self.ask_takeover(&key(seat)?, email, password_hash, now)? {
                    SeatOutcome::TakenOver { seat: label(seat)?, email: email.to_string() }
                } else {
                    SeatOutcome::Asked { seat: label(seat)? }
                }
            }
            SeatChange::Approve { seat } => {
                let email = self.approve(&key(seat)?, now)?;
                SeatOutcome::TakenOver { seat: label(seat)?, email }
            }
        })
    }

    fn joined_hash(&self, email: &str) -> Option<String> {
        OpenGame::joined_hash(self, email)
    }
}

impl OpenGame {
    /// An absence by mail: the dates (both days included) in the player's zone.
    fn absence(
        &mut self,
        power: PowerId,
        from: NaiveDate,
        to: NaiveDate,
        zone: Option<Tz>,
        now: DateTime<Utc>,
    ) -> Result<Outcome, GameError> {
        let zone = zone.unwrap_or(chrono_tz::UTC);
        let midnight = |day: NaiveDate| -> Result<DateTime<Utc>, GameError> {
            // The first instant of the day there (a day that starts in a clock change
            // starts at its first hour that exists).
            (0..24)
                .find_map(|h| zone.from_local_datetime(&day.and_hms_opt(h, 0, 0)?).earliest())
                .map(|t| t.with_timezone(&Utc))
                .ok_or_else(|| usage(format!("{day} does not exist in {}", zone.name())))
        };
        let end_day = to.succ_opt().ok_or_else(|| usage("that date is too far ahead"))?;
        let (start, end) = (midnight(from)?, midnight(end_day)?);
        let moved = self.announce_absence(power, start, end, now)?;
        let shown = |at: DateTime<Utc>| crate::diplomacy::report::format_deadline(at, Some(zone));
        let mut out = Outcome {
            said: format!(
                "Absence kept: from {} to {}. A deadline that falls inside it moves to its end.",
                shown(start),
                shown(end)
            ),
            notices: Vec::new(),
        };
        if let Some(at) = moved {
            out.said.push_str(&format!(" The deadline under way moves to {}; everyone is told.", shown(at)));
            let why = self.absence_notice(&[power]);
            out.notices.push(self.deadline_notice(at, &why));
        }
        Ok(out)
    }

    /// Everyone is told a deadline moved, and why (never whose absence, unless public).
    fn deadline_notice(&self, at: DateTime<Utc>, why: &str) -> Notice {
        let game = &self.game.settings.name;
        let everyone = by_mail::recipients(contacts_of(&self.game));
        Notice {
            to: everyone.iter().map(|c| c.address.clone()).collect(),
            subject: format!("{game}: the deadline moved"),
            body: format!(
                "The deadline of {} in {game} is now {}.\n{why}\n",
                self.game.state.phase,
                crate::diplomacy::report::format_deadline(at, None),
            ),
        }
    }

    /// A vote by mail: checked against the game's options, kept, and when it makes a
    /// proposal pass, the final results for everyone.
    fn vote_by_mail(
        &mut self,
        power: PowerId,
        command: &PlayerCommand,
        now: DateTime<Utc>,
    ) -> Result<Outcome, GameError> {
        let map = self.game.map.clone();
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        if !self.game.voters().contains(&power) {
            return Err(usage(format!("{} is out of the game and has no vote", map.power(power).name)));
        }
        let survivor = |written: &str| -> Result<PowerId, GameError> {
            let p = named_power(&map, written)?;
            if self.game.state.eliminated.contains(&p) {
                return Err(usage(format!("{} is out of the game", map.power(p).name)));
            }
            Ok(p)
        };
        let settings = &self.game.settings;
        let (vote, what) = match command {
            PlayerCommand::Draw { powers } if powers.is_empty() && settings.draws == Draws::Named => {
                (Vote::Draw { powers: self.game.active_powers() }, "a draw between every survivor")
            }
            PlayerCommand::Draw { powers } if powers.is_empty() => (Vote::Draw { powers: Vec::new() }, "a draw"),
            PlayerCommand::Draw { .. } if settings.draws == Draws::Dias => {
                return Err(usage(
                    "in this game a draw includes every survivor (draws = \"dias\"): send `draw` without powers",
                ))
            }
            PlayerCommand::Draw { powers } => {
                let named = powers.iter().map(|w| survivor(w)).collect::<Result<Vec<_>, _>>()?;
                (Vote::Draw { powers: named }, "a draw between the powers named")
            }
            PlayerCommand::NoDraw => (Vote::NoDraw, "no draw"),
            PlayerCommand::Concede { power: to } => {
                let to = survivor(to)?;
                if to == power {
                    return Err(usage("a power cannot concede to itself"));
                }
                (Vote::Concede { to }, "a concession")
            }
            PlayerCommand::NoConcede => (Vote::NoConcede, "no concession"),
            PlayerCommand::Absence { .. } => return Err(usage("an absence is not a vote")),
        };
        let public = settings.votes == settings::Votes::Public;
        let end = self.vote(power, &vote, now)?;
        let game = self.game.settings.name.clone();
        let name = map.power(power).name.clone();
        let everyone = by_mail::recipients(contacts_of(&self.game));
        let mut notices = Vec::new();
        let said = match &end {
            Some(end) => {
                let body = final_results(&self.game, end);
                notices.push(Notice {
                    to: everyone.iter().map(|c| c.address.clone()).collect(),
                    subject: format!("{game}: the game is over"),
                    body: body.clone(),
                });
                format!("Your vote made it pass. {} The final results go to everyone.", self.game.end_notice(end))
            }
            None if public => {
                let own = settings_address(&self.game, power);
                let said = match &vote {
                    Vote::Draw { powers } if !powers.is_empty() => {
                        let names: Vec<String> = powers.iter().map(|p| map.power(*p).name.clone()).collect();
                        format!("{name} votes for a draw between {}.", names.join(", "))
                    }
                    Vote::Draw { .. } => format!("{name} votes for a draw."),
                    Vote::NoDraw => format!("{name} no longer votes for a draw."),
                    Vote::Concede { to } => format!("{name} concedes the game to {}.", map.power(*to).name),
                    Vote::NoConcede => format!("{name} withdraws its concession."),
                };
                notices.push(Notice {
                    to: everyone.iter().map(|c| c.address.clone()).filter(|a| Some(a) != own.as_ref()).collect(),
                    subject: format!("{game}: a vote"),
                    body: format!("{said}\n(Votes in this game are public.)\n"),
                });
                format!("Kept: {what}. Votes are public: everyone is told.")
            }
            None => format!(
                "Kept: {what}. Votes are secret: nobody is told who voted; everyone learns only if it passes (every \
                 surviving power must vote the same)."
            ),
        };
        Ok(Outcome { said, notices })
    }
}

/// The address of a power's player, if any.
fn settings_address(game: &Game, power: PowerId) -> Option<String> {
    game.settings.player(&game.map, power).map(|p| p.email.clone())
}

/// The final results of a game ended by vote: the result, then centers per power.
fn final_results(game: &Game, end: &crate::diplomacy::state::GameEnd) -> String {
    let how = match end {
        crate::diplomacy::state::GameEnd::Draw(_) => "Every surviving power voted for it.",
        crate::diplomacy::state::GameEnd::Victory(_) => "Every other surviving power conceded.",
    };
    let mut out = format!(
        "{}: the game is over, in {}.\n\n{}\n{how}\n\nCenters at the end:\n",
        game.settings.name,
        game.state.phase,
        game.end_notice(end)
    );
    let plus = if game.state.boards.len() > 1 { " (A+B)" } else { "" };
    for p in game.map.power_ids() {
        let centers: Vec<String> = game.state.boards.iter().map(|b| b.ownership.count(p).to_string()).collect();
        let out_of = if game.state.eliminated.contains(&p) { ", out" } else { "" };
        out.push_str(&format!("  {:<8} {}{plus}{out_of}\n", game.map.power(p).name, centers.join("+")));
    }
    let ledger = game.ledger();
    if !ledger.is_empty() {
        out.push_str("Ledger count:\n");
        for l in ledger {
            out.push_str(&format!("  {:<8} {}\n", l.power, l.count));
        }
    }
    out
}

/// A vote as history shows it (the master's journal).
fn vote_event(power: &str, vote: &str, powers: &[String]) -> String {
    match (vote, powers) {
        ("draw", []) => format!("{power} votes for a draw"),
        ("draw", named) => format!("{power} votes for a draw between {}", named.join(", ")),
        ("concede", [to]) => format!("{power} concedes to {to}"),
        ("nodraw", _) => format!("{power} withdraws its draw vote"),
        ("noconcede", _) => format!("{power} withdraws its concession"),
        _ => format!("{power} votes `{vote}`"),
    }
}

/// How many journal entries a `history` mail shows.
const HISTORY_ROWS: usize = 30;

/// A power as a player names it: any name the map knows (`france`, `fra`, `French`), or
/// the start of exactly one power's name (`f`, `ger`).
pub fn resolve_power(map: &Map, who: &str) -> Option<PowerId> {
    if let Some(p) = map.lookup_power(who) {
        return Some(p);
    }
    let wanted = normalize_name(who);
    if wanted.is_empty() {
        return None;
    }
    let matching: Vec<PowerId> = map
        .power_ids()
        .filter(|p| normalize_name(&map.power(*p).name).starts_with(&wanted) || map.power(*p).key.starts_with(&wanted))
        .collect();
    match matching.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// [`resolve_power`], or an error that names the powers there are.
fn named_power(map: &Map, written: &str) -> Result<PowerId, GameError> {
    resolve_power(map, written).ok_or_else(|| {
        usage(format!(
            "no power `{}`; the powers are {}",
            crate::text::header_safe(written, 40),
            power_names(map).join(", ")
        ))
    })
}

fn power_names(map: &Map) -> Vec<String> {
    map.powers().iter().map(|p| p.name.clone()).collect()
}

fn power_of(game: &Game, role: &Role) -> Result<PowerId, GameError> {
    match role {
        Role::Seat(name) => {
            game.map.lookup_power(name).ok_or_else(|| usage(format!("there is no power `{name}` in this game")))
        }
        Role::Master => Err(usage("the game master plays no power")),
    }
}

/// The player of a power, to change their particulars.
fn player_mut<'s>(map: &Map, settings: &'s mut Settings, name: &str) -> Result<&'s mut Player, GameError> {
    let power = map.lookup_power(name).ok_or_else(|| usage(format!("no power `{name}`")))?;
    settings
        .players
        .iter_mut()
        .find(|p| map.lookup_power(&p.power) == Some(power))
        .ok_or_else(|| usage(format!("nobody plays {name} in this game")))
}

/// Powers that still owe complete orders in the current phase (their names).
pub fn missing_powers(game: &Game) -> Vec<String> {
    game.map
        .power_ids()
        .filter(|p| game.has_duty(*p) && (!game.state.submitted.contains(p) || !game.missing_orders(*p).is_empty()))
        .map(|p| game.map.power(p).name.clone())
        .collect()
}

/// Everyone who receives results.
fn contacts_of(game: &Game) -> Vec<Contact> {
    let (map, settings) = (&game.map, &game.settings);
    let seats = settings.players.iter().filter_map(|p| {
        let power = map.lookup_power(&p.power)?;
        Some((map.power(power).name.clone(), p.email.as_str(), p.timezone.as_deref()))
    });
    by_mail::contacts(seats, &settings.observers, &settings.master)
}

/// How many addresses receive results.
fn readers(game: &Game) -> usize {
    by_mail::recipients(contacts_of(game)).len()
}

/// A player's `history` by mail: the phases adjudicated so far (the last
/// [`HISTORY_ROWS`]), each with when, then the last results in full.
fn phases_and_results(game: &OpenGame) -> Result<String, GameError> {
    use crate::game::journal::{undone_by_rollback, Entry};
    let journal = game.dir.journal::<Entry>()?;
    let records = journal.records();
    let entries: Vec<Entry> = records.iter().map(|r| r.entry.clone()).collect();
    let undone = undone_by_rollback(&entries);
    let phases: Vec<String> = records
        .iter()
        .enumerate()
        .filter(|(i, _)| !undone.contains(i))
        .filter_map(|(_, r)| match &r.entry {
            Entry::Adjudicated { phase, .. } => {
                Some(format!("  {:<24} {}\n", phase.to_string(), r.at.format("%Y-%m-%d %H:%M UTC")))
            }
            _ => None,
        })
        .collect();
    if phases.is_empty() {
        return Ok("No phase has been adjudicated yet.\n".to_string());
    }
    let skip = phases.len().saturating_sub(HISTORY_ROWS);
    let mut out = format!("The phases adjudicated (the last {}), and when:\n", phases.len() - skip);
    out.extend(phases[skip..].iter().cloned());
    if let Some(last) = game.reports().last() {
        out.push_str(&format!("\nThe last results:\n{}", last.to_text()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_resolve_by_name_abbreviation_and_unique_prefix() {
        let map = Map::standard();
        let name = |w: &str| resolve_power(&map, w).map(|p| map.power(p).name.clone());
        assert_eq!(name("france").as_deref(), Some("France"));
        assert_eq!(name("FRA").as_deref(), Some("France"));
        assert_eq!(name("f").as_deref(), Some("France"));
        assert_eq!(name("g").as_deref(), Some("Germany"));
        assert_eq!(name("t").as_deref(), Some("Turkey"));
        assert_eq!(name("x"), None);
        assert_eq!(name(""), None);
    }
}
