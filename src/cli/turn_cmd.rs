//! The game master's commands for the small games (Duplexity and the others of
//! [`crate::games`]): the same commands as for Diplomacy, dispatched here when game.toml
//! names a `game`; and `verify` and `reveal`, which belong to games with dice.

use std::path::Path;
use std::process::ExitCode;

use chrono::{DateTime, Utc};
use serde_json::json;

use super::game_cmd::{
    deadline_text, game_error, AdjudicateArgs, DirArgs, NewArgs, ResultsArgs, RollbackArgs, SubmitArgs,
};
use super::{now, read_input, CliError};
use crate::dice::Seed;
use crate::game::settings::Master;
use crate::game::turn_session::{self, parse_turn_players, OpenTurnGame, Seat, TurnEntry, TurnSettings, VerifyFailure};
use crate::games::Options;
use crate::turn::MASTER;

/// The largest turn file taken (a turn is a few lines; this is hundreds of them).
pub const MAX_TURN_BYTES: usize = 64 * 1024;

/// Whether the game directory holds a small game (its game.toml names a `game`).
pub fn is_turn_game(dir: &Path) -> Result<bool, CliError> {
    turn_session::kind_of(dir).map(|k| k.is_some()).map_err(game_error)
}

fn open(dir: &Path) -> Result<OpenTurnGame, CliError> {
    let g = turn_session::open(dir).map_err(game_error)?;
    for n in &g.notes {
        eprintln!("note: {n}");
    }
    Ok(g)
}

/// Say what went wrong after a change was made (the change stands).
fn warn(g: &OpenTurnGame) {
    for w in &g.warnings {
        eprintln!("warning: {w}");
    }
}

fn open_to_read(dir: &Path) -> Result<OpenTurnGame, CliError> {
    turn_session::open_read_only(dir).map_err(game_error)
}

/// `--option k=v` pairs into options, each key once.
fn parse_options(pairs: &[String]) -> Result<Options, CliError> {
    let mut options = Options::new();
    for pair in pairs {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| CliError::Usage(format!("--option takes KEY=VALUE, like pawn_limit=12; not `{pair}`")))?;
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
        if options.insert(k.clone(), v).is_some() {
            return Err(CliError::Usage(format!("--option {k} is given twice")));
        }
    }
    Ok(options)
}

pub fn new(a: NewArgs, kind: &str) -> Result<ExitCode, CliError> {
    let kind = kind.trim().to_ascii_lowercase();
    if !crate::games::is_known(&kind) {
        return Err(CliError::Usage(format!(
            "unknown game `{kind}`: the judge runs {} (and Diplomacy, with --variant)",
            crate::games::KINDS.join(", ")
        )));
    }
    let name = a
        .name
        .clone()
        .or_else(|| a.dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "game".into());
    for address in a.master.iter().chain(&a.observer) {
        if !address.contains('@') || address.contains(char::is_whitespace) {
            return Err(CliError::Usage(format!("`{address}` is not an email address")));
        }
    }
    let players_file = a.players.display().to_string();
    let text = std::fs::read_to_string(&a.players).map_err(|e| CliError::Io(format!("{players_file}: {e}")))?;
    let text = crate::text::strip_invisible(&text);
    let players = parse_turn_players(&text, &players_file).map_err(CliError::Usage)?;
    let seed = match &a.seed {
        Some(hex) => Seed::from_hex(hex).map_err(|e| CliError::Usage(format!("--seed: {e}")))?,
        None => Seed::generate(),
    };
    let mut options = parse_options(&a.options)?;
    // `--option deck=@FILE`: the game gets the file's text (journaled with the options).
    for (key, value) in options.iter_mut() {
        if let Some(path) = value.strip_prefix('@') {
            *value = std::fs::read_to_string(path).map_err(|e| CliError::Io(format!("--option {key}: {path}: {e}")))?;
        }
    }
    let mut settings = TurnSettings {
        name: name.clone(),
        game: kind.clone(),
        observers: a.observer.clone(),
        deadlines: Default::default(),
        players,
        master: Master { email: a.master.clone(), ..Master::default() },
    };
    let dir = match &a.judge {
        None => a.dir.clone(),
        Some(judge) => {
            let home = crate::mail::home::JudgeHome::open(judge).map_err(|e| CliError::Usage(e.to_string()))?;
            settings.deadlines = home.config.deadlines.clone();
            home.new_game_dir(&a.dir).map_err(|e| CliError::Usage(e.to_string()))?
        }
    };
    let g = turn_session::create(&dir, &settings, &options, seed, now()).map_err(game_error)?;
    println!("Created {name} ({kind}) in {}.", dir.display());
    println!("Players: {}.", g.player_names().join(", "));
    println!("Dice commitment (sha256 of the secret seed): {}", g.meta.commitment);
    println!();
    print!("{}", g.report_text());
    Ok(ExitCode::SUCCESS)
}

fn parse_at(at: Option<&str>) -> Result<DateTime<Utc>, CliError> {
    match at {
        None => Ok(now()),
        Some(s) => DateTime::parse_from_rfc3339(s.trim())
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| CliError::Usage(format!("--at `{s}`: {e} (write it like 2026-11-23T18:00:00Z)"))),
    }
}

pub fn submit(a: SubmitArgs) -> Result<ExitCode, CliError> {
    let Some(player) = &a.player else {
        return Err(CliError::Usage("this is a small game: say whose turn file it is with --player NAME".into()));
    };
    if a.check {
        return Err(CliError::Usage("--check is for Diplomacy orders; a turn file is checked as it is played".into()));
    }
    let at = parse_at(a.at.as_deref())?;
    let (text, name) = read_input(a.file.as_deref())?;
    if text.len() > MAX_TURN_BYTES {
        return Err(CliError::Usage(format!(
            "{name}: {} bytes; a turn file is at most {} KiB",
            text.len(),
            MAX_TURN_BYTES / 1024
        )));
    }
    let mut g = open(&a.dir)?;
    let seat = if player.eq_ignore_ascii_case(MASTER) {
        Seat::Master
    } else {
        Seat::Player(g.player_index(player).ok_or_else(|| {
            CliError::Usage(format!(
                "no player `{player}` in this game; the players are {} (or `master`)",
                g.player_names().join(", ")
            ))
        })?)
    };
    let sub = g.submit(seat, &text, at, now()).map_err(game_error)?;
    warn(&g);
    let refused = sub.ack.lines.iter().filter(|l| !l.accepted).count();
    if a.json {
        let lines: Vec<serde_json::Value> = sub
            .ack
            .lines
            .iter()
            .map(
                |l| json!({"line": l.line, "column": l.column, "accepted": l.accepted, "text": l.text, "hint": l.hint}),
            )
            .collect();
        let out = json!({
            "lines": lines,
            "events": sub.ack.events.iter().chain(&sub.events).collect::<Vec<_>>(),
            "kept": sub.seq.is_some(),
            "status": g.status_json(),
        });
        println!("{}", serde_json::to_string_pretty(&out).expect("serializable"));
    } else {
        for l in &sub.ack.lines {
            if l.accepted {
                println!("line {}: {}", l.line, l.text);
            } else {
                println!("line {}:{}: refused: {}", l.line, l.column, l.text);
                if let Some(h) = &l.hint {
                    println!("    hint: {h}");
                }
            }
        }
        if sub.ack.lines.is_empty() {
            println!("The turn file says nothing the judge can take.");
        }
        for e in sub.ack.events.iter().chain(&sub.events) {
            println!("  {e}");
        }
        if sub.seq.is_none() {
            println!("Nothing was taken; the game is as it was.");
        }
        println!();
        print!("{}", g.report_text());
    }
    Ok(if refused == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

pub fn adjudicate(a: AdjudicateArgs) -> Result<ExitCode, CliError> {
    if a.dry_run {
        return Err(CliError::Usage(
            "--dry-run is for Diplomacy; a small game's steps run as soon as no input is awaited".into(),
        ));
    }
    let mut g = open(&a.dir)?;
    let events = g.force(a.force, now()).map_err(game_error)?;
    warn(&g);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({"events": events, "status": g.status_json()})).expect("serializable")
        );
    } else {
        for e in &events {
            println!("  {e}");
        }
        println!();
        print!("{}", g.report_text());
    }
    Ok(ExitCode::SUCCESS)
}

pub fn status(a: DirArgs) -> Result<ExitCode, CliError> {
    let g = open_to_read(&a.dir)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&g.status_json()).expect("serializable"));
    } else {
        print!("{}", g.report_text());
    }
    Ok(ExitCode::SUCCESS)
}

/// One line of history for an entry.
pub fn describe_entry(entry: &TurnEntry) -> String {
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

pub fn history(a: DirArgs) -> Result<ExitCode, CliError> {
    let g = open_to_read(&a.dir)?;
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    let mut label = String::new();
    for (seq, at, entry) in &g.entries {
        if let Some(step) = entry.step() {
            label = step.label.clone();
        }
        let what = describe_entry(entry);
        if a.json {
            rows.push(json!({"seq": seq, "at": at, "step": label, "event": what}));
        } else {
            lines.push((*seq, *at, label.clone(), what));
        }
    }
    // The step column is as wide as its widest label, so no label runs into its event.
    let width = lines.iter().map(|(_, _, l, _)| l.chars().count()).max().unwrap_or(0);
    for (seq, at, label, what) in &lines {
        println!("{seq:>4}  {}  {label:<width$}  {what}", at.format("%Y-%m-%d %H:%M"));
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows).expect("serializable"));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn results(a: ResultsArgs) -> Result<ExitCode, CliError> {
    let g = open_to_read(&a.dir)?;
    let seq = match &a.phase {
        None => g
            .entries
            .iter()
            .rev()
            .find(|(_, _, e)| e.step().is_some())
            .map(|(s, _, _)| *s)
            .ok_or_else(|| CliError::Usage("nothing has happened yet".into()))?,
        Some(n) => n.trim().trim_start_matches('#').parse::<u64>().map_err(|_| {
            CliError::Usage(format!("`{n}`: give the number of a journal entry, as `history` lists them"))
        })?,
    };
    let (_, at, entry) = g
        .entries
        .iter()
        .find(|(s, _, _)| *s == seq)
        .ok_or_else(|| CliError::Usage(format!("the journal has no entry {seq}")))?;
    let Some(step) = entry.step() else {
        return Err(CliError::Usage(format!("entry {seq} ({}) has no results", describe_entry(entry))));
    };
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "seq": seq, "at": at, "step": step.label, "event": describe_entry(entry),
                "events": step.events, "rolls": step.rolls, "state": step.state,
            }))
            .expect("serializable")
        );
    } else {
        println!("Entry {seq}, {}: {}", at.format("%Y-%m-%d %H:%M UTC"), describe_entry(entry));
        print!("{}", g.entry_report(seq).unwrap_or_default());
        println!("After it: {}", step.label);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn rollback(a: RollbackArgs) -> Result<ExitCode, CliError> {
    let text = a.phase.trim().to_ascii_lowercase();
    let round: u32 = text.strip_prefix("round").unwrap_or(&text).trim().parse().map_err(|_| {
        CliError::Usage(format!("`{}`: give a round number, like `3` or `round 3` (0 is the setup)", a.phase))
    })?;
    let mut g = open(&a.dir)?;
    let label = g.rollback(round, now()).map_err(game_error)?;
    warn(&g);
    println!("Rolled back to the start of {label}. The journal keeps everything that came after;");
    println!("the rounds from here roll the same dice again.");
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    pub dir: PathBuf,
}

use std::path::PathBuf;

pub fn verify(a: VerifyArgs) -> Result<ExitCode, CliError> {
    if !is_turn_game(&a.dir)? {
        return Err(CliError::Usage("this is a Diplomacy game: it rolls no dice".into()));
    }
    let g = open_to_read(&a.dir)?;
    match g.verify() {
        Ok(n) => {
            println!("verified {n} rolls");
            Ok(ExitCode::SUCCESS)
        }
        Err(VerifyFailure::Dice(crate::dice::VerifyError::Rolls(mismatches))) => {
            for m in &mismatches {
                println!("mismatch: {m}");
            }
            println!("{} of {} rolls do not match the seed", mismatches.len(), g.journaled_rolls().len());
            Ok(ExitCode::from(1))
        }
        Err(e) => {
            println!("not verified: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

pub fn reveal(a: VerifyArgs) -> Result<ExitCode, CliError> {
    if !is_turn_game(&a.dir)? {
        return Err(CliError::Usage("this is a Diplomacy game: it has no dice seed".into()));
    }
    let mut g = open(&a.dir)?;
    let seed = g.reveal(now()).map_err(game_error)?;
    warn(&g);
    println!("Seed: {seed}");
    println!("Commitment: {} (sha256 of the seed)", g.meta.commitment);
    println!("Anyone can now check every roll: shadowjudge verify {}", a.dir.display());
    Ok(ExitCode::SUCCESS)
}
