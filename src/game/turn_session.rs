//! A turn game on disk: any [`TurnGame`] over the store, with its verifiable dice.
//!
//! The directory holds what every game holds (`game.toml`, `journal.jsonl`, `state.json`,
//! the lock; see [`crate::store`]) and one more file, `seed.json`: the dice's secret seed,
//! kept apart from the journal so the journal can be shown to anyone. The journal's first
//! entry publishes the seed's commitment.
//!
//! Every change takes the game's lock, runs the engine (the submission, then its automatic
//! steps), and appends one [`TurnEntry`] holding the turn text as sent, every roll it made,
//! the events, and the state after it (after the creation, as the difference from the
//! state before: an entry costs what its step changed); the state cache is written after
//! the journal is durable. Replaying a journal re-runs every submission with the same dice and checks each
//! roll and each state against the record ([`replay`]). A rollback restores the state and
//! the dice counter recorded at the start of a round, so the rounds replay with the same
//! rolls. When the game ends the seed is revealed in the journal; `verify` recomputes every
//! roll from it.
//!
//! The clock is passed in; nothing here reads it. Games are reached only through
//! [`crate::games`] and the [`TurnGame`] trait.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::dice::{self, Dice, Roll, Seed};
use crate::game::journal::{particulars_changes, Particulars, ReplayError};
use crate::game::schedule::DeadlinePolicy;
use crate::game::session::GameError;
use crate::game::settings::Master;
use crate::game::state_patch;
use crate::games::{self, Options};
use crate::phase::PhaseKind;
use crate::store::{Book, GameDir, GameLock, MailingOutcome, StoreError};
use crate::text::count;
use crate::turn::{Awaiting, Ending, LineAnswer, TurnAck, TurnContext, TurnGame, MASTER};

/// The side file holding the dice's secret seed.
pub const SEED_FILE: &str = "seed.json";
/// The side file recording which entries' reports were mailed, and to whom.
pub const REPORTED_FILE: &str = "reported.json";

pub use crate::store::MAILED_FILE;

/// `game.toml` of a turn game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnSettings {
    pub name: String,
    /// The kind of game (`duplexity`).
    pub game: String,
    /// Addresses that get every report but play no seat.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observers: Vec<String>,
    /// When input is due: every awaited input gets the schedule's movement deadline.
    #[serde(default)]
    pub deadlines: DeadlinePolicy,
    pub players: Vec<TurnPlayer>,
    #[serde(default, skip_serializing_if = "Master::is_empty")]
    pub master: Master,
    /// A word list (a file in the game directory, one word or name a line): answers it
    /// does not hold are flagged for the game master. No game needs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word_list: Option<String>,
}

/// A seat: the player's name (one word; what they sign on with), address, zone, password.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnPlayer {
    pub name: String,
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_hash: Option<String>,
}

/// Whether `name` can name a seat: one word of letters, digits, `-` or `_`, not a word
/// the judge keeps for itself.
pub fn plausible_player_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        && !matches!(name.to_ascii_lowercase().as_str(), "master" | "gm" | "none" | "all")
}

/// Read a players file for a turn game: one line each, `name, email[, time zone]`, seat
/// order = file order; `#` starts a comment.
pub fn parse_turn_players(text: &str, file: &str) -> Result<Vec<TurnPlayer>, String> {
    let mut players: Vec<TurnPlayer> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = format!("{file}:{}", i + 1);
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() < 2 || fields.len() > 3 {
            return Err(format!("{at}: expected `name, email` (and optionally a time zone), found `{line}`"));
        }
        let name = fields[0];
        if !plausible_player_name(name) {
            return Err(format!(
                "{at}: `{name}` cannot be a player's name: one word of letters, digits, `-` or `_` (players sign on with it)"
            ));
        }
        if players.iter().any(|p| p.name.eq_ignore_ascii_case(name)) {
            return Err(format!("{at}: two players are called `{name}`"));
        }
        let email = fields[1];
        if !email.contains('@') || email.contains(char::is_whitespace) {
            return Err(format!("{at}: `{email}` is not an email address"));
        }
        let timezone = match fields.get(2) {
            Some(tz) if tz.parse::<chrono_tz::Tz>().is_err() => {
                return Err(format!("{at}: unknown time zone `{tz}` (write it like Europe/Paris)"))
            }
            Some(tz) => Some(tz.to_string()),
            None => None,
        };
        players.push(TurnPlayer { name: name.to_string(), email: email.to_string(), timezone, password_hash: None });
    }
    Ok(players)
}

/// What one change did, as journaled: the rolls, the events, where the game stands after
/// it, and the whole state (so a rollback and a replay check need nothing else). On disk a
/// turn, a deadline or a release keeps the state as `patch`, the difference from the state
/// before it ([`state_patch`]); reading the journal makes it whole again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rolls: Vec<Roll>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// `step_label` after the change.
    pub label: String,
    pub round: u32,
    /// The number of the next roll after the change.
    pub next_roll: u64,
    pub deadline: Option<DateTime<Utc>>,
    /// The engine's state after the change (on disk, absent when `patch` is there).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub state: serde_json::Value,
    /// On disk only: the state as the difference from the state of the step before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<json_patch::Patch>,
    /// Its report is owed by mail to every player, observer and the master.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mail: bool,
}

/// One journal entry of a turn game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TurnEntry {
    /// The game was created: its kind, seats, options and the dice's commitment.
    Created { game: String, players: Vec<String>, options: Options, commitment: String, step: Step },
    /// A player's turn file, as sent, and when it counts as received. `hold`: a step
    /// that takes every player's input together was held once all of it was in (early
    /// processing off, or someone sent `wait`; see [`TurnContext::hold`]).
    Submitted {
        player: String,
        text: String,
        at: DateTime<Utc>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        hold: bool,
        step: Step,
    },
    /// A player sent `wait` (the step waits for its deadline) or `nowait`.
    Wait { player: String, wait: bool },
    /// A held step went on before its deadline: every input was in and nobody waits any
    /// more (early processing).
    Released { step: Step },
    /// A deadline passed, or the master processed (`by_master`): the defaults were
    /// applied (a window the game set itself closed).
    Forced {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        by_master: bool,
        step: Step,
    },
    /// The master went back to the start of a round.
    RolledBack { to_round: u32, step: Step },
    /// The deadline was moved, or cleared (paused).
    DeadlineSet { deadline: Option<DateTime<Utc>> },
    /// The seed was revealed (the game ended, or the master asked).
    Revealed { seed: String },
    /// A seat's particulars changed in game.toml: `address` (also by `replace`, which
    /// gives the seat to a new player), `time zone` or `password` (as a fingerprint).
    /// The values live in game.toml; this is their record. Changes no state.
    PlayerChanged { who: String, what: String, old: Option<String>, new: Option<String> },
}

impl TurnEntry {
    fn step_mut(&mut self) -> Option<&mut Step> {
        match self {
            TurnEntry::Created { step, .. }
            | TurnEntry::Submitted { step, .. }
            | TurnEntry::Forced { step, .. }
            | TurnEntry::Released { step }
            | TurnEntry::RolledBack { step, .. } => Some(step),
            TurnEntry::DeadlineSet { .. }
            | TurnEntry::Revealed { .. }
            | TurnEntry::Wait { .. }
            | TurnEntry::PlayerChanged { .. } => None,
        }
    }

    pub fn step(&self) -> Option<&Step> {
        match self {
            TurnEntry::Created { step, .. }
            | TurnEntry::Submitted { step, .. }
            | TurnEntry::Forced { step, .. }
            | TurnEntry::Released { step }
            | TurnEntry::RolledBack { step, .. } => Some(step),
            TurnEntry::DeadlineSet { .. }
            | TurnEntry::Revealed { .. }
            | TurnEntry::Wait { .. }
            | TurnEntry::PlayerChanged { .. } => None,
        }
    }
}

/// `state.json` of a turn game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnState {
    pub game: String,
    pub commitment: String,
    pub next_roll: u64,
    pub rolls: u64,
    pub deadline: Option<DateTime<Utc>>,
    #[serde(default)]
    pub paused: bool,
    /// The journal seq that set the current deadline (the tick's notion of "phase").
    pub deadline_seq: u64,
    pub revealed: Option<String>,
    pub state: serde_json::Value,
    /// The players who sent `wait` for the step under way (cleared when it goes on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waiting: Vec<String>,
}

/// An entry whose report is still owed: to every recipient (`only_to` is `None`), or to
/// the addresses an earlier mailing failed for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwedReport {
    pub seq: u64,
    pub only_to: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedFile {
    seed: String,
}

/// A turn game opened from its directory.
#[derive(Debug)]
pub struct OpenTurnGame {
    pub dir: GameDir,
    pub settings: TurnSettings,
    pub meta: TurnState,
    pub game: Box<dyn TurnGame>,
    /// The journal, with each record's seq and time.
    pub entries: Vec<(u64, DateTime<Utc>, TurnEntry)>,
    /// The journal as the store keeps it: message tags, appends, owed mail.
    book: Book<TurnEntry>,
    seed: Seed,
    /// Repairs the store made on opening (print them).
    pub notes: Vec<String>,
    /// What went wrong after a change was made (it is in the journal, so it stands): a
    /// `state.json` that could not be rewritten, rebuilt from the journal at the next
    /// open. Say them as warnings.
    pub warnings: Vec<String>,
}

/// The largest turn file taken (a turn is a few lines; this is hundreds of them).
pub const MAX_TURN_BYTES: usize = 64 * 1024;

/// The kind of game in a directory: `Some("duplexity")` for a turn game, `None` for
/// Diplomacy (whose game.toml has no `game` key).
pub fn kind_of(path: &Path) -> Result<Option<String>, GameError> {
    let dir = GameDir::open_for_reading(path)?;
    let raw: toml::Table = dir.read_settings()?;
    match raw.get("game") {
        None => Ok(None),
        Some(toml::Value::String(kind)) => Ok(Some(kind.clone())),
        Some(_) => Err(GameError::Damaged(format!(
            "{}: `game` must be a name like \"duplexity\"",
            path.join("game.toml").display()
        ))),
    }
}

fn deadline_after(
    settings: &TurnSettings,
    game: &dyn TurnGame,
    paused: bool,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, GameError> {
    if game.ending().is_some() || paused {
        return Ok(None);
    }
    if let Some(own) = game.deadline() {
        return Ok(Some(own));
    }
    settings
        .deadlines
        .schedule
        .deadline_for(PhaseKind::Movement, now)
        .map(Some)
        .map_err(|e| GameError::Invalid(format!("game.toml [deadlines.schedule]: {e}")))
}

/// Run the automatic steps until none is left (each call may unlock the next).
fn run_automatic(game: &mut dyn TurnGame, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
    // An engine that keeps answering with events would loop for ever: a bound far above
    // any real chain of steps keeps a bug from hanging the judge.
    for _ in 0..10_000 {
        let more = game.advance(ctx);
        if more.is_empty() {
            return;
        }
        events.extend(more);
    }
}

/// Create a game directory: settings, the seed beside the journal, and the first entry
/// (the setup rolls and the commitment).
pub fn create(
    path: &Path,
    settings: &TurnSettings,
    options: &Options,
    seed: Seed,
    now: DateTime<Utc>,
) -> Result<OpenTurnGame, GameError> {
    if !games::is_known(&settings.game) {
        return Err(GameError::Invalid(format!("unknown game `{}`: the judge runs {}", settings.game, games::names())));
    }
    settings.deadlines.check().map_err(|e| GameError::Invalid(format!("[deadlines]: {e}")))?;
    let players: Vec<String> = settings.players.iter().map(|p| p.name.clone()).collect();
    let mut dice = Dice::new(seed.clone(), &settings.name, 0);
    let mut ctx = TurnContext { dice: &mut dice, now, hold: false };
    let mut game = games::create(&settings.game, players.clone(), options, &mut ctx).map_err(GameError::Invalid)?;
    let mut events = Vec::new();
    run_automatic(game.as_mut(), &mut ctx, &mut events);
    let deadline = deadline_after(settings, game.as_ref(), false, now)?;
    let rolls = dice.take_rolls();
    let step = Step {
        rolls,
        events,
        label: game.step_label(),
        round: game.round(),
        next_roll: dice.next_index(),
        deadline,
        state: game.save(),
        patch: None,
        mail: true,
    };
    let entry = TurnEntry::Created {
        game: settings.game.clone(),
        players,
        options: options.clone(),
        commitment: seed.commitment(),
        step: step.clone(),
    };
    let dir = GameDir::create(path, settings)?;
    let mut book = Book::read(dir.clone())?;
    let mut lock = book.lock()?;
    lock.write_private_side(SEED_FILE, &SeedFile { seed: seed.to_hex() })?;
    let seq = lock.last_seq() + 1;
    let meta = TurnState {
        game: settings.game.clone(),
        commitment: seed.commitment(),
        next_roll: step.next_roll,
        rolls: step.rolls.len() as u64,
        deadline,
        paused: false,
        deadline_seq: seq,
        revealed: None,
        state: step.state.clone(),
        waiting: Vec::new(),
    };
    book.record(&mut lock, now, entry.clone(), &meta)?;
    drop(lock);
    let warnings = book.take_warnings();
    Ok(OpenTurnGame {
        dir,
        settings: settings.clone(),
        meta,
        game,
        entries: vec![(seq, now, entry)],
        book,
        seed,
        notes: Vec::new(),
        warnings,
    })
}

/// Open a turn game to change it (taking the lock once repairs what a crash left).
pub fn open(path: &Path) -> Result<OpenTurnGame, GameError> {
    let dir = GameDir::open(path)?;
    let notes = dir.recovered().iter().map(|r| r.to_string()).collect();
    load(dir, notes)
}

/// Open a turn game only to read it: no lock, nothing written.
pub fn open_read_only(path: &Path) -> Result<OpenTurnGame, GameError> {
    load(GameDir::open_for_reading(path)?, Vec::new())
}

fn load(dir: GameDir, notes: Vec<String>) -> Result<OpenTurnGame, GameError> {
    let settings: TurnSettings = dir.read_settings()?;
    settings.deadlines.check().map_err(|e| {
        GameError::Damaged(format!("{}: [deadlines]: {e}", dir.path().join(crate::store::SETTINGS_FILE).display()))
    })?;
    let seed_file: SeedFile = dir.read_side(SEED_FILE)?.ok_or_else(|| {
        GameError::Damaged(format!("{}: the dice's seed file is missing", dir.path().join(SEED_FILE).display()))
    })?;
    let seed = Seed::from_hex(&seed_file.seed)
        .map_err(|e| GameError::Damaged(format!("{}: {e}", dir.path().join(SEED_FILE).display())))?;
    // The cache before the journal: a writer appends to the journal before it rewrites
    // the cache, so a cache ahead of the journal means the journal was cut short.
    let cached: Option<(u64, TurnState)> = dir.read_state()?;
    let book = Book::<TurnEntry>::read(dir.clone())?;
    let mut entries: Vec<(u64, DateTime<Utc>, TurnEntry)> =
        book.records().iter().map(|r| (r.seq, r.at, r.entry.clone())).collect();
    make_whole(&dir, &mut entries)?;
    if entries.is_empty() {
        return Err(GameError::Damaged(format!("{}: the journal is empty", dir.path().display())));
    }
    if let Some((seq, _)) = &cached {
        book.check_cache(*seq)?;
    }
    check_players(&dir, &settings, &entries)?;
    let meta = match cached {
        Some((seq, meta)) if seq == book.last_seq() => meta,
        _ => replay(&settings, &seed, &entries)?,
    };
    if meta.commitment != seed.commitment() {
        return Err(GameError::Damaged(format!(
            "{}: this seed does not match the commitment {} published when the game began; put the game's own \
             seed file back (every roll is derived from it)",
            dir.path().join(SEED_FILE).display(),
            meta.commitment
        )));
    }
    if meta.game != settings.game {
        return Err(GameError::Damaged(format!(
            "game.toml says `{}` but the journal holds a game of `{}`",
            settings.game, meta.game
        )));
    }
    let game = games::load(&meta.game, &meta.state)
        .map_err(|e| GameError::Damaged(format!("{}: {e}", dir.path().join("state.json").display())))?;
    Ok(OpenTurnGame { dir, settings, meta, game, entries, book, seed, notes, warnings: Vec::new() })
}

/// Every step of the journal with its whole state: a step kept as a patch is applied to
/// the state of the step before it.
fn make_whole(dir: &GameDir, entries: &mut [(u64, DateTime<Utc>, TurnEntry)]) -> Result<(), GameError> {
    let mut before: Option<&serde_json::Value> = None;
    let journal = dir.path().join(crate::store::JOURNAL_FILE);
    for (seq, _, entry) in entries.iter_mut() {
        let Some(step) = entry.step_mut() else { continue };
        if let Some(patch) = step.patch.take() {
            let Some(old) = before else {
                return Err(GameError::Damaged(format!(
                    "{}: entry {seq} changes a state that no entry before it holds",
                    journal.display()
                )));
            };
            step.state = state_patch::apply(old, &patch).map_err(|e| {
                GameError::Damaged(format!("{}: entry {seq}: its state change does not apply: {e}", journal.display()))
            })?;
        }
        before = Some(&step.state);
    }
    Ok(())
}

/// `entry` as the journal keeps it: a turn, a deadline or a release with its state as the
/// difference from the state of the step before (`entries`); a creation and a rollback
/// whole, as is a state no patch reproduces exactly.
fn journaled(entries: &[(u64, DateTime<Utc>, TurnEntry)], mut entry: TurnEntry) -> TurnEntry {
    let before = entries.iter().rev().find_map(|(_, _, e)| e.step()).map(|s| &s.state);
    if let (
        Some(old),
        TurnEntry::Submitted { step, .. } | TurnEntry::Forced { step, .. } | TurnEntry::Released { step },
    ) = (before, &mut entry)
    {
        if let Some(patch) = state_patch::diff(old, &step.state) {
            step.patch = Some(patch);
            step.state = serde_json::Value::Null;
        }
    }
    entry
}

/// The seats' particulars as game.toml keeps them (the master's and every player's).
fn seats(settings: &TurnSettings) -> Vec<Particulars> {
    let master = Particulars {
        who: MASTER.to_string(),
        address: settings.master.email.clone(),
        timezone: settings.master.timezone.clone(),
        password_hash: settings.master.password_hash.clone(),
    };
    let players = settings.players.iter().map(|p| Particulars {
        who: p.name.clone(),
        address: Some(p.email.clone()),
        timezone: p.timezone.clone(),
        password_hash: p.password_hash.clone(),
    });
    std::iter::once(master).chain(players).collect()
}

/// Refuse a game.toml whose players are not the ones the game was created for (seats are
/// matched by name, so their order in game.toml does not matter).
fn check_players(
    dir: &GameDir,
    settings: &TurnSettings,
    entries: &[(u64, DateTime<Utc>, TurnEntry)],
) -> Result<(), GameError> {
    let Some((_, _, TurnEntry::Created { players, .. })) = entries.first() else {
        return Err(GameError::Damaged(format!(
            "{}: the journal does not start with the game's creation",
            dir.path().join(crate::store::JOURNAL_FILE).display()
        )));
    };
    let key = |names: &mut dyn Iterator<Item = &String>| {
        let mut v: Vec<String> = names.map(|n| n.to_lowercase()).collect();
        v.sort();
        v
    };
    if key(&mut settings.players.iter().map(|p| &p.name)) != key(&mut players.iter()) {
        let listed: Vec<&str> = settings.players.iter().map(|p| p.name.as_str()).collect();
        return Err(GameError::Damaged(format!(
            "{}: the players listed are {}, but the game was created for {}; put the [[players]] back (their \
             order does not matter, their names do)",
            dir.path().join(crate::store::SETTINGS_FILE).display(),
            listed.join(", "),
            players.join(", ")
        )));
    }
    Ok(())
}

/// Rebuild the state from the journal by re-running every submission and deadline with
/// the game's dice; every roll and every state must match the record.
pub fn replay(
    settings: &TurnSettings,
    seed: &Seed,
    entries: &[(u64, DateTime<Utc>, TurnEntry)],
) -> Result<TurnState, GameError> {
    let err = |index: u64, message: String| GameError::Replay(ReplayError { index: index as usize, message });
    let mut meta: Option<TurnState> = None;
    let mut game: Option<Box<dyn TurnGame>> = None;
    for (seq, at, entry) in entries {
        let seq = *seq;
        match entry {
            TurnEntry::Created { game: kind, players, options, commitment, step } => {
                if *commitment != seed.commitment() {
                    return Err(err(seq, "the seed file does not match the commitment published at creation".into()));
                }
                let mut dice = Dice::new(seed.clone(), &settings.name, 0);
                let mut ctx = TurnContext { dice: &mut dice, now: *at, hold: false };
                let mut g = games::create(kind, players.clone(), options, &mut ctx).map_err(|e| err(seq, e))?;
                let mut events = Vec::new();
                run_automatic(g.as_mut(), &mut ctx, &mut events);
                check_step(seq, &mut dice, g.as_ref(), step)?;
                meta = Some(TurnState {
                    game: kind.clone(),
                    commitment: commitment.clone(),
                    next_roll: step.next_roll,
                    rolls: step.rolls.len() as u64,
                    deadline: step.deadline,
                    paused: false,
                    deadline_seq: seq,
                    revealed: None,
                    state: step.state.clone(),
                    waiting: Vec::new(),
                });
                game = Some(g);
            }
            other => {
                let (Some(m), Some(g)) = (meta.as_mut(), game.as_mut()) else {
                    return Err(err(seq, "the journal does not start with the game's creation".into()));
                };
                match other {
                    TurnEntry::Submitted { player, text, at, hold, step } => {
                        let seat = if player == MASTER {
                            Seat::Master
                        } else {
                            Seat::Player(
                                g.players()
                                    .iter()
                                    .position(|n| n == player)
                                    .ok_or_else(|| err(seq, format!("no player `{player}`")))?,
                            )
                        };
                        let mut dice = Dice::new(seed.clone(), &settings.name, m.next_roll);
                        let mut ctx = TurnContext { dice: &mut dice, now: *at, hold: *hold };
                        let before = g.step_label();
                        seat.submit(g.as_mut(), text, &mut ctx);
                        let mut events = Vec::new();
                        run_automatic(g.as_mut(), &mut ctx, &mut events);
                        check_step(seq, &mut dice, g.as_ref(), step)?;
                        apply_step(m, step, seq);
                        settle_waits(m, g.as_ref(), Some(&before));
                    }
                    TurnEntry::Forced { step, .. } | TurnEntry::Released { step } => {
                        let mut dice = Dice::new(seed.clone(), &settings.name, m.next_roll);
                        let mut ctx = TurnContext { dice: &mut dice, now: *at, hold: false };
                        if matches!(other, TurnEntry::Forced { .. }) {
                            g.force(&mut ctx);
                        }
                        let mut events = Vec::new();
                        run_automatic(g.as_mut(), &mut ctx, &mut events);
                        check_step(seq, &mut dice, g.as_ref(), step)?;
                        apply_step(m, step, seq);
                        settle_waits(m, g.as_ref(), None);
                    }
                    TurnEntry::RolledBack { step, .. } => {
                        *g = games::load(&m.game, &step.state).map_err(|e| err(seq, e))?;
                        apply_step(m, step, seq);
                        m.waiting.clear();
                    }
                    TurnEntry::Wait { player, wait } => set_waiting(&mut m.waiting, player, *wait),
                    TurnEntry::DeadlineSet { deadline } => {
                        m.deadline = *deadline;
                        m.paused = deadline.is_none();
                        m.deadline_seq = seq;
                    }
                    TurnEntry::Revealed { seed: revealed } => m.revealed = Some(revealed.clone()),
                    TurnEntry::PlayerChanged { .. } => {}
                    TurnEntry::Created { .. } => unreachable!("matched above"),
                }
            }
        }
    }
    meta.ok_or_else(|| err(0, "the journal is empty".into()))
}

/// Check a replayed change against the record: the same rolls, the same state.
fn check_step(seq: u64, dice: &mut Dice, game: &dyn TurnGame, step: &Step) -> Result<(), GameError> {
    let err = |message: String| GameError::Replay(ReplayError { index: seq as usize, message });
    let rolls = dice.take_rolls();
    if rolls != step.rolls {
        let first = rolls.iter().zip(&step.rolls).find(|(a, b)| a != b);
        return Err(err(match first {
            Some((made, recorded)) => format!(
                "roll {} ({}): the journal says {}, the seed gives {}",
                recorded.k, recorded.purpose, recorded.result, made.result
            ),
            None => format!(
                "the journal records {}, the replay makes {}",
                count(step.rolls.len(), "roll", "rolls"),
                rolls.len()
            ),
        }));
    }
    if game.save() != step.state {
        return Err(err("replaying it gives a different state than the one recorded".into()));
    }
    Ok(())
}

/// Note that `player` sent `wait` (or `nowait`).
fn set_waiting(waiting: &mut Vec<String>, player: &str, wait: bool) {
    waiting.retain(|p| p != player);
    if wait {
        waiting.push(player.to_string());
    }
}

/// Whether the step under way in `game` takes every player's input together (Duplexity's
/// bids), or has it all and is held: the steps that `wait` and early processing are about.
fn takes_input_together(game: &dyn TurnGame) -> bool {
    game.ending().is_none() && (game.awaits_together() || game.held())
}

/// Whether such a step is held once all its input is in: early processing is off, or a
/// player sent `wait`.
fn holds(early: bool, waiting: &[String]) -> bool {
    !early || !waiting.is_empty()
}

/// A `wait` lasts while the step it was sent for is under way. After a change, the waits
/// are cleared unless the game is still in that step: `before` is the step's label
/// before a submission (`None`: a deadline or a release, which always carries it on).
fn settle_waits(meta: &mut TurnState, game: &dyn TurnGame, before: Option<&str>) {
    let same_step = before.is_some_and(|label| label == game.step_label());
    if !same_step || !(game.awaits_together() || game.held()) {
        meta.waiting.clear();
    }
}

/// The turn-file lines a player sends to the judge rather than to the game: `wait` and
/// `nowait` (alone on a line, any case; a `#` comment may follow). Returns the text with
/// those lines left empty (so every other line keeps its number), and each one's line
/// number and whether it was `wait`.
fn wait_lines(text: &str) -> (String, Vec<(usize, bool)>) {
    let mut kept = String::with_capacity(text.len());
    let mut waits = Vec::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let word = line.split('#').next().unwrap_or_default().trim().to_ascii_lowercase();
        if word == "wait" || word == "nowait" {
            waits.push((i + 1, word == "wait"));
            kept.push_str(if line.ends_with('\n') { "\n" } else { "" });
        } else {
            kept.push_str(line);
        }
    }
    (kept, waits)
}

fn apply_step(meta: &mut TurnState, step: &Step, seq: u64) {
    meta.next_roll = step.next_roll;
    meta.rolls += step.rolls.len() as u64;
    if meta.deadline != step.deadline || step.mail {
        meta.deadline_seq = seq;
    }
    meta.deadline = step.deadline;
    meta.state = step.state.clone();
}

/// Who or what forced a step: the game master or the deadline, and whether what it
/// closed was a window the game set itself (then nothing was defaulted; the game's
/// events say what closing did).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forcing {
    pub by_master: bool,
    pub window: bool,
}

impl Forcing {
    /// In a sentence, for history and reports.
    pub fn words(self) -> &'static str {
        match (self.by_master, self.window) {
            (true, true) => "the game master closed the window",
            (true, false) => "the game master processed the step; the defaults were applied",
            (false, true) => "the window closed at its deadline",
            (false, false) => "the deadline passed; the defaults were applied",
        }
    }

    /// In brief, for the log line of the step processed.
    pub fn brief(self) -> &'static str {
        match (self.by_master, self.window) {
            (true, true) => "window closed by the game master",
            (true, false) => "by the game master, deadline defaults applied",
            (false, true) => "window closed at its deadline",
            (false, false) => "deadline passed, defaults applied",
        }
    }
}

/// Who sends a turn file: a player (by seat) or the game master.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    Player(usize),
    Master,
}

impl Seat {
    fn submit(self, game: &mut dyn TurnGame, text: &str, ctx: &mut TurnContext<'_>) -> TurnAck {
        match self {
            Seat::Player(p) => game.submit(p, text, ctx),
            Seat::Master => game.master(text, ctx),
        }
    }
}

/// What a `wait` or `nowait` did: the answer to the player, the journal seq of the last
/// entry it made (none when it changed nothing), and the events of a step it let go on.
#[derive(Clone, Debug)]
pub struct WaitDone {
    pub said: String,
    pub seq: Option<u64>,
    pub events: Vec<String>,
}

/// The answer to a submission: the engine's answer per line, and whether it was kept.
#[derive(Clone, Debug)]
pub struct Submission {
    pub ack: TurnAck,
    /// Events of the automatic steps that followed.
    pub events: Vec<String>,
    /// The journal seq of the entry, when anything was accepted.
    pub seq: Option<u64>,
}

impl OpenTurnGame {
    fn relock(&mut self) -> Result<GameLock, GameError> {
        let lock = self.dir.lock()?;
        // Another writer may have changed the game since it was read: read it again (the
        // fresh load reads the journal once, into a new book).
        let mut fresh = load(self.dir.clone(), Vec::new())?;
        self.settings = fresh.settings;
        self.meta = fresh.meta;
        self.game = fresh.game;
        self.entries = fresh.entries;
        fresh.book.carry_out(self.book.carrying_out().map(str::to_owned));
        self.book = fresh.book;
        Ok(lock)
    }

    fn record(&mut self, lock: &mut GameLock, now: DateTime<Utc>, entry: TurnEntry) -> Result<u64, GameError> {
        let seq = self.book.record(lock, now, journaled(&self.entries, entry.clone()), &self.meta)?;
        self.entries.push((seq, now, entry));
        self.warnings.extend(self.book.take_warnings());
        Ok(seq)
    }

    /// From now on, the inbound message item `tag` is being carried out (`None`: none).
    pub fn carry_out(&mut self, tag: Option<String>) {
        self.book.carry_out(tag);
    }

    /// Whether any journal entry carries out the message item `tag`.
    pub fn has_message(&self, tag: &str) -> bool {
        self.book.has_message(tag)
    }

    fn dice(&self) -> Dice {
        Dice::new(self.seed.clone(), &self.settings.name, self.meta.next_roll)
    }

    /// A seat by name (any case).
    pub fn player_index(&self, name: &str) -> Option<usize> {
        self.game.players().iter().position(|p| p.eq_ignore_ascii_case(name.trim()))
    }

    /// The seats' names, in seat order.
    pub fn player_names(&self) -> Vec<String> {
        self.game.players().to_vec()
    }

    /// A player's particulars in game.toml, by name (any case).
    pub fn player_settings(&self, name: &str) -> Option<&TurnPlayer> {
        self.settings.players.iter().find(|p| p.name.eq_ignore_ascii_case(name.trim()))
    }

    /// Names of the players whose input is awaited.
    pub fn awaiting_names(&self) -> Vec<String> {
        names_of(self.game.as_ref(), &self.game.awaiting())
    }

    /// The change of a submission or a forced deadline, once the engine ran: build the step,
    /// reveal the seed if the game just ended, journal it. `waited` is what the game
    /// awaited before a submission: when it still awaits the same input of the same
    /// players (someone else's turn sent ahead, say), the deadline stays where it was.
    fn finish(
        &mut self,
        lock: &mut GameLock,
        dice: &mut Dice,
        events: Vec<String>,
        now: DateTime<Utc>,
        waited: Option<(Awaiting, String)>,
        entry: impl FnOnce(Step) -> TurnEntry,
    ) -> Result<u64, GameError> {
        let over = self.game.ending().is_some();
        let unchanged = waited.as_ref().is_some_and(|(awaiting, label)| {
            *awaiting == self.game.awaiting() && *label == self.game.step_label() && self.game.deadline().is_none()
        });
        // A held step goes on at the deadline it had when its input was awaited.
        let held = self.game.held() && waited.is_some() && self.game.deadline().is_none();
        let deadline = if (unchanged || held) && !over && !self.meta.paused {
            self.meta.deadline
        } else {
            deadline_after(&self.settings, self.game.as_ref(), self.meta.paused, now)?
        };
        let rolls = dice.take_rolls();
        let step = Step {
            rolls,
            events,
            label: self.game.step_label(),
            round: self.game.round(),
            next_roll: dice.next_index(),
            deadline,
            state: self.game.save(),
            patch: None,
            mail: true,
        };
        let next_seq = lock.last_seq() + 1;
        apply_step(&mut self.meta, &step, next_seq);
        settle_waits(&mut self.meta, self.game.as_ref(), waited.as_ref().map(|(_, label)| label.as_str()));
        let seq = self.record(lock, now, entry(step))?;
        if over && self.meta.revealed.is_none() {
            self.reveal_locked(lock, now)?;
        }
        Ok(seq)
    }

    /// Take a player's turn file. `at` is when it counts as received (journaled); `now`
    /// is the journal time. Nothing is journaled when no line was accepted.
    pub fn submit(
        &mut self,
        seat: Seat,
        text: &str,
        at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Submission, GameError> {
        if text.len() > MAX_TURN_BYTES {
            return Err(GameError::Invalid(format!(
                "{} bytes; a turn file is at most {} KiB",
                text.len(),
                MAX_TURN_BYTES / 1024
            )));
        }
        let mut lock = self.relock()?;
        if self.game.ending().is_some() {
            return Err(GameError::Over);
        }
        let name = match seat {
            Seat::Master => MASTER.to_string(),
            Seat::Player(p) => {
                self.game.players().get(p).cloned().ok_or_else(|| GameError::Invalid(format!("no seat {p}")))?
            }
        };
        if let Some(record) = self.book.left_before() {
            // This message was carried out before the judge was interrupted: answer as
            // then, and keep nothing again.
            let at = self.entries.iter().position(|(s, _, _)| *s == record.seq).unwrap_or_default();
            drop(lock);
            return self.answer_again(at, seat, text);
        }
        // `wait` and `nowait` lines are the judge's, taken before the rest of the turn.
        let (text, waits) = match seat {
            Seat::Player(_) => wait_lines(text),
            Seat::Master => (text.to_string(), Vec::new()),
        };
        let mut answers = Vec::new();
        let mut kept = None;
        let mut released = Vec::new();
        // One change of `wait` per turn file: the last `wait` or `nowait` line wins, so a
        // file of many cannot write many journal entries.
        let (earlier, last) = waits.split_at(waits.len().saturating_sub(1));
        let last_line = last.first().map(|(line, _)| *line).unwrap_or_default();
        for (line, wait) in earlier {
            let word = if *wait { "wait" } else { "nowait" };
            answers.push(LineAnswer::accepted(
                *line,
                format!("{word}: replaced by line {last_line} (only the last `wait` or `nowait` counts)"),
            ));
        }
        for &(line, wait) in last {
            match self.wait_locked(&mut lock, &name, wait, now) {
                Ok(done) => {
                    answers.push(LineAnswer::accepted(line, done.said));
                    kept = done.seq.or(kept);
                    released.extend(done.events);
                }
                Err(e) => answers.push(LineAnswer::refused(line, 1, e.to_string())),
            }
        }
        let hold = self.hold_now();
        let mut dice = self.dice();
        let mut ctx = TurnContext { dice: &mut dice, now: at, hold };
        let waited = (self.game.awaiting(), self.game.step_label());
        let mut ack = seat.submit(self.game.as_mut(), &text, &mut ctx);
        let changed = ack.changed();
        ack.lines.extend(answers);
        ack.lines.sort_by_key(|l| l.line);
        if !changed {
            // Nothing taken: the game is as it was (the engine must not have rolled).
            self.game = games::load(&self.meta.game, &self.meta.state).map_err(GameError::Damaged)?;
            return Ok(Submission { ack, events: released, seq: kept });
        }
        let mut events = ack.events.clone();
        run_automatic(self.game.as_mut(), &mut ctx, &mut events);
        released.extend(events[ack.events.len()..].iter().cloned());
        let seq = self.finish(&mut lock, &mut dice, events, now, Some(waited), |step| TurnEntry::Submitted {
            player: name,
            text,
            at,
            hold,
            step,
        })?;
        Ok(Submission { ack, events: released, seq: Some(seq) })
    }

    /// `submit --check`: the answer every line of `text` would get now, on a copy of the
    /// game; nothing is kept and no lock is taken. A roll the turn needs is made with
    /// stand-in dice, never the game's own (whose next rolls must stay unknown): the
    /// second value is whether any was made. `wait` lines are left to the real submission.
    pub fn check(&self, seat: Seat, text: &str, at: DateTime<Utc>) -> Result<(TurnAck, bool), GameError> {
        if self.game.ending().is_some() {
            return Err(GameError::Over);
        }
        let mut copy = games::load(&self.meta.game, &self.game.save()).map_err(GameError::Damaged)?;
        let text = match seat {
            Seat::Player(_) => wait_lines(text).0,
            Seat::Master => text.to_string(),
        };
        let mut dice = Dice::new(Seed::from_bytes([0; 32]), "a check, not the game", 0);
        let mut ctx = TurnContext { dice: &mut dice, now: at, hold: self.hold_now() };
        let ack = seat.submit(copy.as_mut(), &text, &mut ctx);
        Ok((ack, dice.next_index() > 0))
    }

    /// The answer that a message carried out before an interruption got (its journal
    /// entries begin at index `at`): its turn played again on the game as it was then.
    /// Nothing is kept again.
    fn answer_again(&mut self, at: usize, seat: Seat, text: &str) -> Result<Submission, GameError> {
        let tag = self.book.carrying_out().map(str::to_owned);
        let (_, waits) = match seat {
            Seat::Player(_) => wait_lines(text),
            Seat::Master => (String::new(), Vec::new()),
        };
        let mut ack = TurnAck::default();
        let mut events = Vec::new();
        let mut seq = None;
        for (s, when, entry) in &self.entries[at..] {
            if self.book.get(*s).and_then(|r| r.msg.as_deref()) != tag.as_deref() {
                continue;
            }
            seq = Some(*s);
            let TurnEntry::Submitted { text, at: received, hold, step, .. } = entry else { continue };
            let index = self.entries.iter().position(|(e, _, _)| e == s).unwrap_or_default();
            let before = self.entries[..index].iter().rev().find_map(|(_, _, e)| e.step()).ok_or_else(|| {
                GameError::Damaged(format!("journal entry {s}: a turn before the game's creation ({when})"))
            })?;
            let mut game = games::load(&self.meta.game, &before.state).map_err(GameError::Damaged)?;
            let mut dice = Dice::new(self.seed.clone(), &self.settings.name, before.next_roll);
            let mut ctx = TurnContext { dice: &mut dice, now: *received, hold: *hold };
            ack = seat.submit(game.as_mut(), text, &mut ctx);
            events = step.events.get(ack.events.len()..).unwrap_or_default().to_vec();
        }
        for (line, wait) in waits {
            let word = if wait { "wait" } else { "nowait" };
            ack.lines.push(LineAnswer::accepted(line, format!("{word}: taken when this message was first read")));
        }
        ack.lines.sort_by_key(|l| l.line);
        Ok(Submission { ack, events, seq })
    }

    /// Whether a step that takes every player's input together is held once all of it
    /// is in: early processing is off (`[deadlines] early = false`), or a player sent
    /// `wait`.
    fn hold_now(&self) -> bool {
        holds(self.settings.deadlines.early, &self.meta.waiting)
    }

    /// Whether the step under way takes every player's input together (Duplexity's
    /// bids), or has it all and is held: the steps that `wait` and early processing
    /// are about.
    pub fn together(&self) -> bool {
        takes_input_together(self.game.as_ref())
    }

    /// A player asks that the step under way wait for its deadline (`wait`), or takes
    /// that back (`nowait`). Only for a step that takes every player's input together; a
    /// `nowait` that leaves a held step with nobody waiting (and early processing on)
    /// lets it go on now, journaled and reported like a turn.
    pub fn set_wait(&mut self, seat: usize, wait: bool, now: DateTime<Utc>) -> Result<WaitDone, GameError> {
        let mut lock = self.relock()?;
        let name =
            self.game.players().get(seat).cloned().ok_or_else(|| GameError::Invalid(format!("no seat {seat}")))?;
        self.wait_locked(&mut lock, &name, wait, now)
    }

    fn wait_locked(
        &mut self,
        lock: &mut GameLock,
        player: &str,
        wait: bool,
        now: DateTime<Utc>,
    ) -> Result<WaitDone, GameError> {
        if self.game.ending().is_some() {
            return Err(GameError::Over);
        }
        if !self.together() {
            return Err(GameError::Invalid(format!(
                "`{}` is for a step where every player's input is taken together; now the game awaits {}",
                if wait { "wait" } else { "nowait" },
                self.game.awaiting().what
            )));
        }
        let mut done = WaitDone { said: String::new(), seq: None, events: Vec::new() };
        if self.meta.waiting.iter().any(|p| p == player) != wait {
            set_waiting(&mut self.meta.waiting, player, wait);
            done.seq = Some(self.record(lock, now, TurnEntry::Wait { player: player.to_string(), wait })?);
        }
        if let Some((seq, events)) = self.release_locked(lock, now)? {
            done.seq = Some(seq);
            done.events = events;
            done.said = "nowait: every input is in and nobody waits; the game goes on now".into();
        } else if wait {
            done.said = "wait: this step goes on only at its deadline (send `nowait` to undo)".into();
        } else if !self.settings.deadlines.early {
            done.said =
                "nowait: early processing is off in this game, so this step still goes on at its deadline".into();
        } else if self.game.held() {
            done.said = format!(
                "nowait: every input is in, but {} asked to wait; this step goes on at its deadline",
                self.meta.waiting.join(" and ")
            );
        } else {
            done.said = "nowait: this step goes on as soon as every input is in".into();
        }
        Ok(done)
    }

    /// Let a held step go on now if nothing holds it any more (every input in, early
    /// processing on, nobody waiting): the game master turned early processing on, or
    /// the last `wait` was taken back. `None` when there was nothing to do.
    pub fn release(&mut self, now: DateTime<Utc>) -> Result<Option<Vec<String>>, GameError> {
        let mut lock = self.relock()?;
        Ok(self.release_locked(&mut lock, now)?.map(|(_, events)| events))
    }

    fn release_locked(
        &mut self,
        lock: &mut GameLock,
        now: DateTime<Utc>,
    ) -> Result<Option<(u64, Vec<String>)>, GameError> {
        if self.game.ending().is_some() || !self.game.held() || self.hold_now() {
            return Ok(None);
        }
        let mut dice = self.dice();
        let mut ctx = TurnContext { dice: &mut dice, now, hold: false };
        let mut events = Vec::new();
        run_automatic(self.game.as_mut(), &mut ctx, &mut events);
        let seq = self.finish(lock, &mut dice, events.clone(), now, None, |step| TurnEntry::Released { step })?;
        Ok(Some((seq, events)))
    }

    /// The deadline of the step `deadline_of` passed (a [`clock_step`](Self::clock_step),
    /// as the tick saw it), or the game master processes (`None`): apply the defaults for
    /// every awaited input, then the automatic steps. Without `force`, only the automatic
    /// steps (if the game waits for nobody); the error names who is awaited.
    pub fn force(
        &mut self,
        force: bool,
        deadline_of: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, GameError> {
        let mut lock = self.relock()?;
        if self.game.ending().is_some() {
            return Err(GameError::Over);
        }
        // Looked at again under the lock: a turn may have moved the game on since.
        if let Some(step) = deadline_of.filter(|s| *s != self.clock_step()) {
            return Err(GameError::Invalid(format!("{step} is over; the game is at {}", self.game.step_label())));
        }
        let by_master = deadline_of.is_none();
        let awaiting = self.game.awaiting();
        if !force && (!awaiting.players.is_empty() || awaiting.master) {
            let names = in_words(self.awaiting_names());
            return Err(GameError::Awaiting(format!("{}, from {}", awaiting.what, names.join(" and "))));
        }
        let mut dice = self.dice();
        let mut ctx = TurnContext { dice: &mut dice, now, hold: false };
        let mut events = self.game.force(&mut ctx);
        run_automatic(self.game.as_mut(), &mut ctx, &mut events);
        self.finish(&mut lock, &mut dice, events.clone(), now, None, |step| TurnEntry::Forced { by_master, step })?;
        Ok(events)
    }

    /// Go back to the start of round `round` (0: the setup). The dice go back too.
    pub fn rollback(&mut self, round: u32, now: DateTime<Utc>) -> Result<String, GameError> {
        let mut lock = self.relock()?;
        let mut found: Option<Step> = None;
        let mut previous_round: Option<u32> = None;
        for (_, _, e) in &self.entries {
            let Some(step) = e.step() else { continue };
            let starts = matches!(e, TurnEntry::Created { .. }) || previous_round.is_some_and(|r| r < step.round);
            if step.round == round && starts {
                found = Some(step.clone());
            }
            previous_round = Some(step.round);
        }
        let Some(mut step) = found else {
            return Err(GameError::Invalid(format!(
                "the game never started round {round} (it is in {})",
                self.game.step_label()
            )));
        };
        self.game = games::load(&self.meta.game, &step.state).map_err(GameError::Damaged)?;
        self.game.rebase(now);
        step.state = self.game.save();
        step.rolls.clear();
        step.events = vec![format!("The game master rolled the game back to the start of {}.", step.label)];
        step.deadline = deadline_after(&self.settings, self.game.as_ref(), self.meta.paused, now)?;
        step.mail = true;
        let next_seq = lock.last_seq() + 1;
        self.meta.next_roll = step.next_roll;
        self.meta.deadline = step.deadline;
        self.meta.deadline_seq = next_seq;
        self.meta.state = step.state.clone();
        self.meta.waiting.clear();
        let label = step.label.clone();
        self.record(&mut lock, now, TurnEntry::RolledBack { to_round: round, step })?;
        Ok(label)
    }

    /// Move the deadline, or clear it (pause: `None`).
    pub fn set_deadline(&mut self, deadline: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Result<(), GameError> {
        let mut lock = self.relock()?;
        self.meta.deadline = deadline;
        self.meta.paused = deadline.is_none();
        self.meta.deadline_seq = lock.last_seq() + 1;
        self.record(&mut lock, now, TurnEntry::DeadlineSet { deadline })?;
        Ok(())
    }

    fn reveal_locked(&mut self, lock: &mut GameLock, now: DateTime<Utc>) -> Result<String, GameError> {
        let seed = self.seed.to_hex();
        self.meta.revealed = Some(seed.clone());
        self.record(lock, now, TurnEntry::Revealed { seed: seed.clone() })?;
        Ok(seed)
    }

    /// Reveal the seed now (the master's `reveal`; the game goes on, its rolls now known).
    /// Revealing twice journals nothing more.
    pub fn reveal(&mut self, now: DateTime<Utc>) -> Result<String, GameError> {
        let mut lock = self.relock()?;
        match &self.meta.revealed {
            Some(seed) => Ok(seed.clone()),
            None => self.reveal_locked(&mut lock, now),
        }
    }

    /// Every roll the journal holds, in order (a rollback's rolls made again included).
    pub fn journaled_rolls(&self) -> Vec<Roll> {
        self.entries.iter().filter_map(|(_, _, e)| e.step()).flat_map(|s| s.rolls.iter().cloned()).collect()
    }

    /// Recompute every journaled roll from the revealed seed and check the seed against
    /// the commitment of the first entry.
    pub fn verify(&self) -> Result<usize, VerifyFailure> {
        let revealed = self
            .entries
            .iter()
            .find_map(|(_, _, e)| match e {
                TurnEntry::Revealed { seed } => Some(seed.clone()),
                _ => None,
            })
            .ok_or(VerifyFailure::NotRevealed)?;
        let commitment = self
            .entries
            .iter()
            .find_map(|(_, _, e)| match e {
                TurnEntry::Created { commitment, .. } => Some(commitment.clone()),
                _ => None,
            })
            .ok_or(VerifyFailure::NotRevealed)?;
        let seed = Seed::from_hex(&revealed).map_err(|e| VerifyFailure::BadSeed(e.to_string()))?;
        let rolls = dice::verify(&seed, &commitment, &self.settings.name, &self.journaled_rolls())
            .map_err(VerifyFailure::Dice)?;
        // The rolls are the seed's: now every turn, played again from the seed, must give
        // the state the journal recorded after it, so the game is proved, not only its dice.
        match replay(&self.settings, &seed, &self.entries) {
            Ok(_) => Ok(rolls),
            Err(GameError::Replay(e)) => Err(VerifyFailure::Replay(e)),
            Err(e) => Err(VerifyFailure::Replay(ReplayError { index: 0, message: e.to_string() })),
        }
    }

    /// The header and the board, as every report shows it.
    pub fn report_text(&self) -> String {
        self.render(&Moment {
            game: self.game.as_ref(),
            deadline: self.meta.deadline,
            paused: self.meta.paused,
            rolls: self.meta.rolls,
            revealed: self.meta.revealed.as_deref(),
            waiting: &self.meta.waiting,
        })
    }

    /// The header and the board as they were right after journal entry `seq` (a step):
    /// the report owed for that entry. The latest step shows the game as it is now.
    pub fn report_text_at(&self, seq: u64) -> Option<String> {
        let at = self.entries.iter().position(|(s, _, _)| *s == seq)?;
        let step = self.entries[at].2.step()?;
        if !self.entries[at + 1..].iter().any(|(_, _, e)| e.step().is_some()) {
            return Some(self.report_text());
        }
        let game = games::load(&self.meta.game, &step.state).ok()?;
        let (mut rolls, mut paused, mut waiting, mut label) = (0u64, false, Vec::<String>::new(), String::new());
        for (_, _, e) in &self.entries[..=at] {
            match e {
                TurnEntry::Wait { player, wait } => set_waiting(&mut waiting, player, *wait),
                TurnEntry::DeadlineSet { deadline } => paused = deadline.is_none(),
                TurnEntry::Submitted { step, .. } if step.label == label => rolls += step.rolls.len() as u64,
                _ => {
                    if let Some(step) = e.step() {
                        rolls += step.rolls.len() as u64;
                        waiting.clear();
                    }
                }
            }
            if let Some(step) = e.step() {
                label = step.label.clone();
            }
        }
        if !(game.awaits_together() || game.held()) {
            waiting.clear();
        }
        // The seed is revealed right after the step that ends the game.
        let revealed = self.entries[at + 1..]
            .iter()
            .take_while(|(_, _, e)| e.step().is_none())
            .chain(&self.entries[..=at])
            .find_map(|(_, _, e)| match e {
                TurnEntry::Revealed { seed } => Some(seed.as_str()),
                _ => None,
            });
        Some(self.render(&Moment {
            game: game.as_ref(),
            deadline: step.deadline,
            paused: paused && step.deadline.is_none(),
            rolls,
            revealed,
            waiting: &waiting,
        }))
    }

    fn render(&self, m: &Moment<'_>) -> String {
        let game = m.game;
        let mut out = format!("{} ({}): {}\n", self.settings.name, self.meta.game, game.step_label());
        let options = game.option_lines();
        if !options.is_empty() {
            out.push_str(&format!("Options: {}\n", options.join("; ")));
        }
        out.push('\n');
        out.push_str(&game.report_text());
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&self.word_list_text(game));
        out.push('\n');
        match game.ending() {
            Some(ending) => out.push_str(&format!("The game is over: {}.\n", ending_words(game, &ending))),
            None => {
                let waiting = game.awaiting();
                let names = in_words(names_of(game, &waiting));
                if !names.is_empty() {
                    out.push_str(&format!("Waiting for {}: {}.\n", names.join(" and "), waiting.what));
                }
                if let Some(line) = self.hold_text_for(game, m.waiting) {
                    out.push_str(&line);
                    out.push('\n');
                }
                out.push_str(&match m.deadline {
                    Some(d) => format!("Deadline: {}\n", d.format("%A %-d %B %Y, %H:%M UTC")),
                    None if m.paused => "Deadline: none (paused)\n".to_string(),
                    None => "Deadline: none\n".to_string(),
                });
            }
        }
        let rolls = count(m.rolls, "roll", "rolls");
        let commitment = &self.meta.commitment;
        out.push_str(&match (m.revealed, game.ending().is_some()) {
            (None, _) => format!("Dice: commitment {commitment} ({rolls} so far)\n"),
            (Some(seed), true) => format!(
                "Dice: commitment {commitment}; seed revealed: {seed}. {rolls} in all: `shadowjudge verify {}` \
                 recomputes every one from the seed.\n",
                self.settings.name
            ),
            (Some(seed), false) => format!(
                "Dice: commitment {commitment} ({rolls} so far); seed revealed: {seed}.\n\
                 The game master revealed the seed before the end: the rest of the game's rolls are public \
                 (anyone who has the seed can foresee them).\n"
            ),
        });
        out
    }

    /// The answers under way that the game's word list does not hold, as (player,
    /// answer); `Ok(None)` without a word list; an error when the list cannot be read.
    pub fn unlisted(&self) -> Result<Option<Vec<(String, String)>>, String> {
        self.unlisted_in(self.game.as_ref())
    }

    /// [`OpenTurnGame::unlisted`] for the answers of `game` (now, or an earlier step).
    fn unlisted_in(&self, game: &dyn TurnGame) -> Result<Option<Vec<(String, String)>>, String> {
        let Some(name) = &self.settings.word_list else { return Ok(None) };
        let answers = game.answers();
        if answers.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let text = crate::store::read_text(&self.dir.path().join(name)).map_err(|e| e.to_string())?;
        let key = |w: &str| w.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        let words: std::collections::HashSet<String> = crate::text::strip_invisible(&text)
            .lines()
            .map(|l| key(l.split('#').next().unwrap_or("")))
            .filter(|w| !w.is_empty())
            .collect();
        Ok(Some(answers.into_iter().filter(|(_, a)| !words.contains(&key(a))).collect()))
    }

    fn word_list_text(&self, game: &dyn TurnGame) -> String {
        let name = self.settings.word_list.as_deref().unwrap_or_default();
        match self.unlisted_in(game) {
            Ok(None) => String::new(),
            Ok(Some(unlisted)) if unlisted.is_empty() => String::new(),
            Ok(Some(unlisted)) => {
                let all: Vec<String> = unlisted.iter().map(|(p, a)| format!("{p}'s {a}")).collect();
                format!("For the game master: not in the word list {name}: {}.\n", all.join(", "))
            }
            Err(e) => format!("For the game master: the word list cannot be read ({e}); answers are not checked.\n"),
        }
    }

    /// What holds the step under way, for a step that takes every input together: the
    /// players who sent `wait`, or early processing off. `None` when nothing holds it.
    pub fn hold_text(&self) -> Option<String> {
        self.hold_text_for(self.game.as_ref(), &self.meta.waiting)
    }

    fn hold_text_for(&self, game: &dyn TurnGame, waiting: &[String]) -> Option<String> {
        if !takes_input_together(game) || !holds(self.settings.deadlines.early, waiting) {
            return None;
        }
        let why = if waiting.is_empty() {
            "early processing is off in this game".to_string()
        } else {
            format!("{} asked to wait (`nowait` takes it back)", waiting.join(" and "))
        };
        Some(if game.held() {
            format!("Every input is in; held until the deadline: {why}.")
        } else {
            format!("This step goes on only at its deadline: {why}.")
        })
    }

    /// How the game ended, in words.
    pub fn ending_text(&self, ending: &Ending) -> String {
        ending_words(self.game.as_ref(), ending)
    }

    /// `status --json`: the engine's fields plus `name`, `deadline` and `dice`.
    pub fn status_json(&self) -> serde_json::Value {
        let mut v = self.game.status_json();
        if let Some(obj) = v.as_object_mut() {
            obj.insert("name".into(), self.settings.name.clone().into());
            obj.insert("deadline".into(), serde_json::to_value(self.meta.deadline).unwrap_or_default());
            if let Ok(Some(unlisted)) = self.unlisted() {
                let all: Vec<_> = unlisted.iter().map(|(p, a)| serde_json::json!({"player": p, "answer": a})).collect();
                obj.insert("unlisted".into(), all.into());
            }
            obj.insert("early".into(), self.settings.deadlines.early.into());
            obj.insert("waiting".into(), self.meta.waiting.clone().into());
            obj.insert("held".into(), (self.game.ending().is_none() && self.game.held()).into());
            obj.insert(
                "dice".into(),
                serde_json::json!({
                    "commitment": self.meta.commitment,
                    "seed": self.meta.revealed,
                    "rolls": self.meta.rolls,
                }),
            );
        }
        v
    }

    /// Change game.toml under the lock.
    pub fn update_settings<T>(
        &mut self,
        now: DateTime<Utc>,
        change: impl FnOnce(&mut TurnSettings) -> Result<T, GameError>,
    ) -> Result<T, GameError> {
        let mut lock = self.relock()?;
        let mut settings = self.settings.clone();
        let out = change(&mut settings)?;
        // Journaled before game.toml is written, so history shows every change of who
        // plays a seat, and no rollback undoes it.
        for (who, what, old, new) in particulars_changes(&seats(&self.settings), &seats(&settings)) {
            self.record(&mut lock, now, TurnEntry::PlayerChanged { who, what, old, new })?;
        }
        lock.write_settings(&settings)?;
        self.settings = settings;
        Ok(out)
    }

    /// The entries whose reports are still owed by mail, oldest first: (seq, `None` when
    /// owed to every recipient, else the addresses still owed it). A report a rollback
    /// undid before it was mailed is not owed.
    pub fn reports_owed(&self) -> Result<Vec<OwedReport>, GameError> {
        let mailed = self.book.mailed(Some(REPORTED_FILE))?;
        let owed =
            self.book.owed(&mailed, &self.undone_by_rollback(), |e| e.step().filter(|s| s.mail).map(|_| None))?;
        Ok(owed.into_iter().map(|o| OwedReport { seq: o.seq, only_to: o.only_to }).collect())
    }

    /// The seqs of the steps a rollback undid: those after the step it went back to.
    fn undone_by_rollback(&self) -> std::collections::BTreeSet<u64> {
        let mut undone = std::collections::BTreeSet::new();
        for (at, (_, _, e)) in self.entries.iter().enumerate() {
            let TurnEntry::RolledBack { to_round, .. } = e else { continue };
            // The start of the round it went back to, as the rollback found it.
            let mut start = 0;
            let mut previous_round: Option<u32> = None;
            for (i, (_, _, e)) in self.entries[..at].iter().enumerate() {
                let Some(step) = e.step() else { continue };
                let starts = matches!(e, TurnEntry::Created { .. }) || previous_round.is_some_and(|r| r < step.round);
                if step.round == *to_round && starts {
                    start = i;
                }
                previous_round = Some(step.round);
            }
            undone
                .extend(self.entries[start + 1..at].iter().filter(|(_, _, e)| e.step().is_some()).map(|(s, _, _)| *s));
        }
        undone
    }

    /// Record what became of the report of entry `seq`.
    pub fn record_reported(&mut self, seq: u64, outcome: &MailingOutcome, now: DateTime<Utc>) -> Result<(), GameError> {
        let lock = self.dir.lock()?;
        self.book.record_mailed(&lock, seq, None, outcome, Some(REPORTED_FILE), now)?;
        Ok(())
    }

    /// The step a report is about, for its subject: the step under way before the entry
    /// (a turn or a deadline in faceoff 1 is about faceoff 1, whatever it led to); the
    /// entry's own for the start and a rollback.
    pub fn entry_label(&self, seq: u64) -> Option<String> {
        let at = self.entries.iter().position(|(s, _, _)| *s == seq)?;
        let entry = &self.entries[at].2;
        let own = entry.step()?.label.clone();
        if matches!(entry, TurnEntry::Created { .. } | TurnEntry::RolledBack { .. }) {
            return Some(own);
        }
        Some(self.entries[..at].iter().rev().find_map(|(_, _, e)| e.step()).map_or(own, |s| s.label.clone()))
    }

    /// Whether the deadline before entry `at` was one the game set itself
    /// ([`TurnGame::deadline`]): the game as the last step before it left it.
    fn own_deadline_before(&self, at: usize) -> bool {
        self.entries[..at]
            .iter()
            .rev()
            .find_map(|(_, _, e)| e.step())
            .and_then(|step| games::load(&self.meta.game, &step.state).ok())
            .is_some_and(|game| game.deadline().is_some())
    }

    /// The step under way with the deadline it runs to, as the tick's log knows it: a new
    /// deadline (a turn, `extend`) is a new step for reminders.
    pub fn clock_step(&self) -> String {
        format!("{} #{}", self.game.step_label(), self.meta.deadline_seq)
    }

    /// Who or what forced the step of the entry at index `at`, when it is a
    /// [`TurnEntry::Forced`].
    pub fn forcing(&self, at: usize) -> Option<Forcing> {
        let TurnEntry::Forced { by_master, .. } = self.entries.get(at)?.2 else { return None };
        Some(Forcing { by_master, window: self.own_deadline_before(at) })
    }

    /// The report of one journal entry: what happened (the board is
    /// [`OpenTurnGame::report_text_at`]).
    pub fn entry_report(&self, seq: u64) -> Option<String> {
        let at = self.entries.iter().position(|(s, _, _)| *s == seq)?;
        let entry = &self.entries[at].2;
        let step = entry.step()?;
        let mut out = String::new();
        match entry {
            TurnEntry::Created { .. } => out.push_str("The game begins.\n"),
            TurnEntry::Submitted { player, .. } => out.push_str(&format!("{player} played.\n")),
            TurnEntry::Forced { .. } => {
                let words = self.forcing(at).map(Forcing::words).unwrap_or_default();
                out.push_str(&format!("{}.\n", crate::text::sentence(words)));
            }
            TurnEntry::Released { .. } => {
                out.push_str("Every input was in and nobody waits any more: the game went on before the deadline.\n")
            }
            TurnEntry::RolledBack { .. } => {}
            _ => {}
        }
        for e in &step.events {
            out.push_str(&format!("  {e}\n"));
        }
        for r in &step.rolls {
            out.push_str(&format!("  roll {}: d{} for {}: {}\n", r.k, r.n, r.purpose, r.result));
        }
        Some(out)
    }
}

/// The game as a report shows it at one moment: now, or right after an earlier step.
struct Moment<'a> {
    game: &'a dyn TurnGame,
    deadline: Option<DateTime<Utc>>,
    paused: bool,
    rolls: u64,
    revealed: Option<&'a str>,
    waiting: &'a [String],
}

/// The seats a game awaits, by name: its players, and `master` when it awaits the
/// game master's input.
fn names_of(game: &dyn TurnGame, awaiting: &Awaiting) -> Vec<String> {
    let names = game.players();
    let mut seats: Vec<String> = awaiting.players.iter().filter_map(|i| names.get(*i).cloned()).collect();
    if awaiting.master {
        seats.push(MASTER.to_string());
    }
    seats
}

/// Seat names as a sentence says them: `master` is "the game master".
pub fn in_words(seats: Vec<String>) -> Vec<String> {
    seats.into_iter().map(|s| if s == MASTER { "the game master".to_string() } else { s }).collect()
}

/// How a game ended, in words.
fn ending_words(game: &dyn TurnGame, ending: &Ending) -> String {
    let names = game.players();
    match ending {
        Ending::Won { players } if players.len() == 1 => {
            format!("{} wins", names.get(players[0]).map_or("?", String::as_str))
        }
        Ending::Won { players } => format!(
            "{} share the win",
            players.iter().filter_map(|p| names.get(*p).cloned()).collect::<Vec<_>>().join(" and ")
        ),
        Ending::Lost => "every player lost".into(),
        Ending::Drawn => "drawn".into(),
    }
}

/// Why `verify` could not confirm the rolls.
#[derive(Debug, thiserror::Error)]
pub enum VerifyFailure {
    #[error("the seed is not revealed yet: it is revealed when the game ends, or by the game master with `shadowjudge reveal`")]
    NotRevealed,
    #[error("the revealed seed is not a seed: {0}")]
    BadSeed(String),
    #[error(transparent)]
    Dice(dice::VerifyError),
    /// The rolls are right, but a turn played again from the seed does not give the
    /// state recorded (an edited journal).
    #[error("the rolls match the seed, but the journal does not replay: {0}")]
    Replay(ReplayError),
}

impl From<StoreError> for VerifyFailure {
    fn from(e: StoreError) -> Self {
        VerifyFailure::BadSeed(e.to_string())
    }
}
