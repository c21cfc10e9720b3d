//! A game on disk, whatever it plays: the one contract through which the command line
//! reaches every game.
//!
//! The rules of each game are a [`TurnGame`] (Diplomacy's engine as well as the small
//! games). A game on disk is one of two stores over such an engine: Diplomacy's
//! [`session`] (its journal predates the small games and keeps phases, press, draws and
//! owed results) and the generic [`turn_session`] (every small game). [`GameSession`] is
//! what both stores offer the layers above, so that `submit`, `adjudicate`, `status`,
//! `history`, `results`, `rollback`, `verify` and `reveal` are one command each, written
//! once, whatever the game. [`open`] picks the store by what game.toml names.
//!
//! Every answer comes as an [`Answer`]: the text for people and the JSON for machines,
//! made from the same result.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::game::session::{self, GameError, OpenGame};
use crate::game::turn_session::{self, OpenTurnGame, Seat, TurnEntry, VerifyFailure};
use crate::phase::Phase;
use crate::report::deadline_text;
use crate::turn::{TurnGame, MASTER};

/// The answer to one command: text for people, JSON for machines, and whether it went
/// wholly well (a refused order or line, a failed check: exit status 1).
#[derive(Clone, Debug)]
pub struct Answer {
    pub text: String,
    /// The JSON, pretty-printed (keys in the order the types declare them).
    pub json: String,
    pub ok: bool,
}

impl Answer {
    fn new(text: String, json: String) -> Answer {
        Answer { text, json, ok: true }
    }
}

/// Who a submission is from, as the command line named them: Diplomacy seats are powers
/// (`--power`), the small games' seats are players (`--player`).
#[derive(Clone, Copy, Debug)]
pub enum Who<'a> {
    Power(&'a str),
    Player(&'a str),
}

/// One submission: whose, the text, whether only to check it, and when it counts as
/// received (the small games journal it; default the journal time).
#[derive(Clone, Copy, Debug)]
pub struct Submit<'a> {
    pub who: Who<'a>,
    pub text: &'a str,
    pub check: bool,
    pub at: Option<DateTime<Utc>>,
}

/// One line of a game's history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryRow {
    pub seq: u64,
    pub at: DateTime<Utc>,
    /// Where the game stood: a phase code (`S1901M`) or a step label (`round 3, act`).
    pub step: String,
    pub event: String,
}

/// The history of a game: its rows, and the name of the step column in JSON (`phase` for
/// Diplomacy, `step` for the small games, as each has always written it).
#[derive(Clone, Debug)]
pub struct History {
    pub step_key: &'static str,
    pub rows: Vec<HistoryRow>,
}

impl History {
    /// One line a row; the step column as wide as its widest entry.
    pub fn to_text(&self) -> String {
        let width = self.rows.iter().map(|r| r.step.chars().count()).max().unwrap_or(0);
        let mut out = String::new();
        for r in &self.rows {
            out.push_str(&format!(
                "{:>4}  {}  {:<width$}  {}\n",
                r.seq,
                r.at.format("%Y-%m-%d %H:%M"),
                r.step,
                r.event
            ));
        }
        out
    }

    pub fn to_json(&self) -> Value {
        Value::Array(
            self.rows
                .iter()
                .map(|r| json!({"seq": r.seq, "at": r.at, self.step_key: r.step, "event": r.event}))
                .collect(),
        )
    }
}

/// A game opened from its directory, whatever it plays.
pub trait GameSession {
    /// The game's kind: `standard`, `shadow-worlds`, `duplexity`, ...
    fn kind(&self) -> String;

    /// The rules engine behind the store.
    fn engine(&self) -> &dyn TurnGame;

    /// Repairs the store made on opening (print them).
    fn notes(&self) -> &[String];

    /// What went wrong after a change was made (the change stands): say them as warnings.
    fn warnings(&self) -> &[String];

    /// Where the game stands, for people.
    fn status_text(&self) -> String;

    /// Where the game stands, for machines (`status --json`).
    fn status_json(&self) -> Value;

    /// Every journal entry, one row each.
    fn history(&self) -> Result<History, GameError>;

    /// Take a player's orders or turn file (or only check them).
    fn submit(&mut self, submit: Submit<'_>, now: DateTime<Utc>) -> Result<Answer, GameError>;

    /// Process what is due: a Diplomacy phase (with the deadline defaults when `force`),
    /// or a small game's deadline defaults. `by_mail`: the results are owed by mail.
    fn adjudicate(&mut self, force: bool, by_mail: bool, now: DateTime<Utc>) -> Result<Answer, GameError>;

    /// What adjudicating now would give, changing nothing.
    fn preview(&self) -> Result<Answer, GameError>;

    /// The results of a past step: a phase (`S1901M`, "fall 1901") or a journal entry
    /// number; the last one by default.
    fn results(&self, which: Option<&str>) -> Result<Answer, GameError>;

    /// Go back to the start of a phase or round; returns what was done, in a sentence.
    fn rollback(&mut self, to: &str, now: DateTime<Utc>) -> Result<String, GameError>;

    /// Recompute every roll from the revealed seed (`ok` false on a mismatch).
    fn verify(&self) -> Result<Answer, GameError>;

    /// Reveal the dice seed.
    fn reveal(&mut self, now: DateTime<Utc>) -> Result<Answer, GameError>;
}

/// Open a game to change it (its lock is taken for each change).
pub fn open(path: &Path) -> Result<Box<dyn GameSession>, GameError> {
    Ok(match turn_session::kind_of(path)? {
        Some(_) => Box::new(turn_session::open(path)?),
        None => Box::new(session::open(path)?),
    })
}

/// Open a game only to read it: no lock, nothing written.
pub fn open_read_only(path: &Path) -> Result<Box<dyn GameSession>, GameError> {
    Ok(match turn_session::kind_of(path)? {
        Some(_) => Box::new(turn_session::open_read_only(path)?),
        None => Box::new(session::open_read_only(path)?),
    })
}

fn usage(text: impl Into<String>) -> GameError {
    GameError::Invalid(text.into())
}

fn parse_phase(text: &str) -> Result<Phase, GameError> {
    text.parse().map_err(|e: crate::phase::PhaseParseError| usage(e.to_string()))
}

/// JSON for machines, as the types declare their fields.
fn pretty(v: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|e| json!({ "error": e.to_string() }).to_string())
}

// ---------------------------------------------------------------------------------------
// Diplomacy (standard and Shadow Worlds)

impl GameSession for OpenGame {
    fn kind(&self) -> String {
        self.game.settings.variant.name().to_string()
    }

    fn engine(&self) -> &dyn TurnGame {
        &self.game
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn status_text(&self) -> String {
        crate::game::status::status_text(&self.game, None, None)
    }

    fn status_json(&self) -> Value {
        crate::game::diplomacy_turn::status_json(&self.game)
    }

    fn history(&self) -> Result<History, GameError> {
        use crate::game::journal::Entry;
        let records = self.dir.journal::<Entry>()?;
        let mut rows = Vec::new();
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
                Entry::DeadlineSet { deadline } => (format!("deadline set: {}", deadline_text(*deadline)), current),
                Entry::Press { from, to, .. } => (format!("press from {from} to {}", to.join(", ")), current),
                Entry::Wait { power, wait: true } => (format!("{power} waits for the deadline"), current),
                Entry::Wait { power, wait: false } => (format!("{power} no longer waits"), current),
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

    fn submit(&mut self, submit: Submit<'_>, now: DateTime<Utc>) -> Result<Answer, GameError> {
        let Who::Power(name) = submit.who else {
            return Err(usage("this is a Diplomacy game: say whose orders with --power"));
        };
        let power = self.game.map.lookup_power(name).ok_or_else(|| usage(format!("unknown power `{name}`")))?;
        let ack = OpenGame::submit(self, power, submit.text, submit.check, now)?;
        let mut text = ack.to_text();
        if submit.check {
            text.push_str("(checked only: nothing was kept)\n");
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
        Err(usage("this is a Diplomacy game: it rolls no dice"))
    }

    fn reveal(&mut self, _now: DateTime<Utc>) -> Result<Answer, GameError> {
        Err(usage("this is a Diplomacy game: it has no dice seed"))
    }
}

// ---------------------------------------------------------------------------------------
// The small games

/// One line of history for a small game's journal entry.
pub fn describe_turn_entry(entry: &TurnEntry) -> String {
    match entry {
        TurnEntry::Created { game, players, .. } => format!("created: {game} for {}", players.join(", ")),
        TurnEntry::Submitted { player, at, step, .. } => {
            format!("turn from {player} (received {}); {} roll(s)", at.format("%Y-%m-%d %H:%M:%S"), step.rolls.len())
        }
        TurnEntry::Forced { step } => format!("deadline defaults applied; {} roll(s)", step.rolls.len()),
        TurnEntry::RolledBack { to_round, .. } => format!("rolled back to the start of round {to_round}"),
        TurnEntry::DeadlineSet { deadline } => format!("deadline set: {}", deadline_text(*deadline)),
        TurnEntry::Revealed { seed } => format!("seed revealed: {seed}"),
        TurnEntry::Wait { player, wait: true } => format!("{player} waits for the deadline"),
        TurnEntry::Wait { player, wait: false } => format!("{player} no longer waits"),
        TurnEntry::Released { step } => {
            format!("every input in and nobody waiting: went on early; {} roll(s)", step.rolls.len())
        }
    }
}

impl GameSession for OpenTurnGame {
    fn kind(&self) -> String {
        self.meta.game.clone()
    }

    fn engine(&self) -> &dyn TurnGame {
        self.game.as_ref()
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn warnings(&self) -> &[String] {
        &self.warnings
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
        for (seq, at, entry) in &self.entries {
            if let Some(step) = entry.step() {
                label = step.label.clone();
            }
            rows.push(HistoryRow { seq: *seq, at: *at, step: label.clone(), event: describe_turn_entry(entry) });
        }
        Ok(History { step_key: "step", rows })
    }

    fn submit(&mut self, submit: Submit<'_>, now: DateTime<Utc>) -> Result<Answer, GameError> {
        let Who::Player(player) = submit.who else {
            return Err(usage("this is a small game: say whose turn file it is with --player NAME"));
        };
        if submit.check {
            return Err(usage("--check is for Diplomacy orders; a turn file is checked as it is played"));
        }
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
        let mut text = String::new();
        for l in &sub.ack.lines {
            if l.accepted {
                text.push_str(&format!("line {}: {}\n", l.line, l.text));
            } else {
                text.push_str(&format!("line {}:{}: refused: {}\n", l.line, l.column, l.text));
                if let Some(h) = &l.hint {
                    text.push_str(&format!("    hint: {h}\n"));
                }
            }
        }
        if sub.ack.lines.is_empty() {
            text.push_str("The turn file says nothing the judge can take.\n");
        }
        for e in &events {
            text.push_str(&format!("  {e}\n"));
        }
        if sub.seq.is_none() {
            text.push_str("Nothing was taken; the game is as it was.\n");
        }
        text.push('\n');
        text.push_str(&self.report_text());
        Ok(Answer { text, json: pretty(&json), ok: sub.ack.lines.iter().all(|l| l.accepted) })
    }

    fn adjudicate(&mut self, force: bool, _by_mail: bool, now: DateTime<Utc>) -> Result<Answer, GameError> {
        // Every step of a small game is owed by mail to its players (the journal says so).
        let events = self.force(force, now)?;
        let mut text: String = events.iter().map(|e| format!("  {e}\n")).collect();
        text.push('\n');
        text.push_str(&self.report_text());
        Ok(Answer::new(text, pretty(&json!({"events": events, "status": OpenTurnGame::status_json(self)}))))
    }

    fn preview(&self) -> Result<Answer, GameError> {
        Err(usage("--dry-run is for Diplomacy; a small game's steps run as soon as no input is awaited"))
    }

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
        let (_, at, entry) = self
            .entries
            .iter()
            .find(|(s, _, _)| *s == seq)
            .ok_or_else(|| usage(format!("the journal has no entry {seq}")))?;
        let Some(step) = entry.step() else {
            return Err(usage(format!("entry {seq} ({}) has no results", describe_turn_entry(entry))));
        };
        let json = json!({
            "seq": seq, "at": at, "step": step.label, "event": describe_turn_entry(entry),
            "events": step.events, "rolls": step.rolls, "state": step.state,
        });
        let text = format!(
            "Entry {seq}, {}: {}\n{}After it: {}\n",
            at.format("%Y-%m-%d %H:%M UTC"),
            describe_turn_entry(entry),
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
            Ok(n) => (format!("verified {n} rolls\n"), true),
            Err(VerifyFailure::Dice(crate::dice::VerifyError::Rolls(mismatches))) => {
                let mut text: String = mismatches.iter().map(|m| format!("mismatch: {m}\n")).collect();
                text.push_str(&format!(
                    "{} of {} rolls do not match the seed\n",
                    mismatches.len(),
                    self.journaled_rolls().len()
                ));
                (text, false)
            }
            Err(e) => (format!("not verified: {e}\n"), false),
        };
        Ok(Answer { json: pretty(&json!({"verified": ok, "text": text.trim_end()})), text, ok })
    }

    fn reveal(&mut self, now: DateTime<Utc>) -> Result<Answer, GameError> {
        let seed = OpenTurnGame::reveal(self, now)?;
        let text = format!(
            "Seed: {seed}\nCommitment: {} (sha256 of the seed)\nAnyone can now check every roll: shadowjudge verify {}\n",
            self.meta.commitment,
            self.dir.path().display()
        );
        Ok(Answer::new(text, pretty(&json!({"seed": seed, "commitment": self.meta.commitment}))))
    }
}
