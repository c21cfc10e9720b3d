//! A Diplomacy game on disk: the engine over the store.
//!
//! Every change takes the game's lock, appends a journal entry (durable before anything is
//! acknowledged), then rewrites the state cache. Loading reads the state cache and, when
//! the journal has entries the cache lacks (a crash between the two writes), replays them.
//! The clock is passed in; nothing here reads it.
//!
//! # Results owed by mail
//! An adjudication made for the mail judge ([`OpenGame::adjudicate_to_mail`]) is journaled
//! with `mail_results`, which makes its results owed to every player, observer and the
//! master. The side file `mailed.json` ([`MailedFile`]) records, per adjudication (its
//! journal seq), who has had them; [`OpenGame::results_owed`] is the journal minus that
//! file. The mailer takes the game's `mailing` task lock, mails what is owed, and records
//! it with [`OpenGame::record_results_mailed`] only after the transport took the mail: a
//! crash in between sends them again (twice rather than never). Adjudications without the
//! flag (older journals, `shadowjudge adjudicate`) owe nothing, and one a rollback undid
//! is no longer owed.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::diplomacy::engine::{Acknowledgement, Game, Vote};
use crate::diplomacy::map::{Map, PowerId};
use crate::diplomacy::report::PhaseReport;
use crate::diplomacy::state::{GameEnd, GameState, Missed};
use crate::game::journal::{self, Entry};
use crate::game::schedule::DeadlinePolicy;
use crate::game::settings::{PressRule, Settings, Votes};
use crate::phase::Phase;
use crate::store::{Book, FileStamp, GameDir, GameLock, StoreError, TaskLock};
use crate::text::count;

mod seats;
pub use seats::{Joined, Started};

pub use crate::store::{MailedFile, MailingOutcome, MailingPlan, MAILED_FILE};
/// The task lock held while a game's results are mailed.
pub const MAILING_TASK: &str = "mailing";

/// One adjudication's results, still owed to someone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwedResults {
    /// The journal seq of the adjudication.
    pub seq: u64,
    /// Its report, as journaled.
    pub report: PhaseReport,
    /// The deadline to announce with it: the game's current one while the game is still
    /// in the phase this adjudication began (none once it has moved on, or is over).
    pub next_deadline: Option<DateTime<Utc>>,
    /// `None`: owed to everyone who receives results (never mailed yet); else only to
    /// these addresses (an earlier mailing failed for them).
    pub only_to: Option<Vec<String>>,
    /// The phase was processed early (every order in before the deadline).
    pub early: bool,
    /// The players it declared vacant (`abandon_after`): no longer in the game, they are
    /// owed these results all the same, which tell them.
    pub abandoned: Vec<String>,
}

/// Why a game command could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Map(#[from] crate::diplomacy::map::MapError),
    #[error("{0}")]
    Invalid(String),
    #[error("the judge is still waiting for orders from {}; use --force to adjudicate at the deadline", .0.join(", "))]
    NotReady(Vec<String>),
    /// A small game still awaits input: what, in the game's own words, and from whom.
    #[error("the judge is still waiting for {0}; use --force to go on now, as at the deadline")]
    Awaiting(String),
    #[error("the game is over")]
    Over,
    #[error("{0}")]
    Replay(#[from] journal::ReplayError),
    /// The game's files are there but do not make a game (a missing or mismatched part).
    #[error("{0}")]
    Damaged(String),
}

impl GameError {
    /// Whether the error is the judge's or the files' (damaged, unreadable), not the
    /// user's: players are told only that the game could not be opened, the master and
    /// the log get the cause.
    pub fn is_internal(&self) -> bool {
        matches!(self, GameError::Store(_) | GameError::Replay(_) | GameError::Damaged(_) | GameError::Map(_))
    }
}

/// A game opened from its directory.
#[derive(Debug)]
pub struct OpenGame {
    pub dir: GameDir,
    pub game: Game,
    pub entries: Vec<Entry>,
    /// Repairs the store made on opening (print them).
    pub notes: Vec<String>,
    /// What went wrong after a change was made (it is in the journal, so it stands): a
    /// `state.json` that could not be rewritten. Say them as warnings.
    pub warnings: Vec<String>,
    /// The journal's last entry, when `state.json` was behind it (or missing) and the
    /// position was rebuilt from the journal.
    cache_behind: Option<u64>,
    /// The journal as the store keeps it: message tags, appends, owed mail.
    book: Book<Entry>,
    /// The files of [`GLANCE_STAMPED`] as they were just before this game was read
    /// (`None` once this `OpenGame` has changed the game, or if they could not be read).
    stamp: Option<Vec<FileStamp>>,
}

/// The powers a late extension was for, and the new deadline.
pub type LateExtension = (Vec<PowerId>, DateTime<Utc>);

/// An absence a power announced: from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Absence {
    pub power: PowerId,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

/// The side file that lets the mail tick pass over an idle game without opening it.
pub const GLANCE_FILE: &str = "glance.json";

/// The files a [`Glance`] is stamped with: a change to any of them makes it stale.
const GLANCE_STAMPED: [&str; 5] =
    [crate::store::SETTINGS_FILE, crate::store::JOURNAL_FILE, crate::store::STATE_FILE, MAILED_FILE, MAP_FILE];

/// `glance.json`: what the mail tick needs of a game to see that nothing is due, kept
/// beside it with the stamps of the files it was read from. Only a cache, written under
/// the lock and only while those files are as they were read: any change to the game
/// (journal, state, settings, `mailed.json`) leaves it stale, and a stale glance is never
/// used; the game is opened in full, with every check of a full open.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Glance {
    pub stamp: Vec<FileStamp>,
    pub phase: Phase,
    pub deadline: Option<DateTime<Utc>>,
    pub over: bool,
    /// The powers that still owe complete orders (their names).
    pub missing: Vec<String>,
    /// The phase may be processed early now ([`OpenGame::may_process_early`]).
    pub early: bool,
    /// Results are owed by mail ([`OpenGame::results_owed`]).
    pub owed: bool,
    pub deadlines: DeadlinePolicy,
}

/// The game's glance, if it was kept and the game has not changed since. `None` when
/// there is none or it is stale (or unreadable): open the game in full.
pub fn read_glance(path: &Path) -> Option<Glance> {
    let dir = GameDir::open_for_reading(path).ok()?;
    let glance: Glance = dir.read_side(GLANCE_FILE).ok()??;
    (dir.stamp(&GLANCE_STAMPED).ok()? == glance.stamp).then_some(glance)
}

fn schedule_error(e: crate::game::schedule::DeadlineError) -> GameError {
    GameError::Invalid(format!("game.toml [deadlines.schedule]: {e}"))
}

/// The side file recording which map the game's stored ids belong to.
pub const MAP_FILE: &str = "map.json";

/// `map.json`: the map a game was created with, and what its ids meant then
/// ([`Map::id_fingerprint`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapRecord {
    pub map: String,
    pub fingerprint: String,
}

/// The game's map: `standard`, or a map file. A relative path is taken from the game's
/// directory (the same rule when the game is created and when it is opened), and the file
/// is read through the store.
/// Maps are built once per process and shared (`map::cache`).
fn load_map(settings: &Settings, dir: &Path) -> Result<Arc<Map>, GameError> {
    if settings.map == "standard" {
        return Ok(crate::diplomacy::map::cache::standard());
    }
    let path = dir.join(&settings.map);
    let text = crate::store::read_text(&path)?;
    Ok(crate::diplomacy::map::cache::from_toml(&text, &path.to_string_lossy())?)
}

/// Refuse a game whose map's ids no longer mean what they meant when the game was made.
fn check_map(dir: &GameDir, settings: &Settings, map: &Map) -> Result<(), GameError> {
    let fingerprint = map.id_fingerprint();
    match dir.read_side::<MapRecord>(MAP_FILE)? {
        Some(recorded) if recorded.fingerprint != fingerprint => Err(GameError::Damaged(format!(
            "{}: this game was created with the map `{}`, and the map `{}` it names now numbers its powers, \
             provinces or coasts differently; the game's files store those numbers, so it cannot be opened \
             with this map (put the original map back, or the map name in game.toml)",
            dir.path().join(MAP_FILE).display(),
            recorded.map,
            settings.map
        ))),
        // A game made before maps were recorded is taken to be on today's map; `relock`
        // records it at the next change.
        _ => Ok(()),
    }
}

/// The warning for a `state.json` that could not be written after its journal entry was.
fn cache_warning(e: &StoreError) -> String {
    format!(
        "{e}. The change itself is made (it is in the journal); {} is only a copy and is rebuilt \
         from the journal the next time the game is opened",
        crate::store::STATE_FILE
    )
}

/// The journal entries saying how the players' (and the master's) particulars differ
/// between two settings: address, time zone, password (as fingerprints).
fn player_changes(map: &Map, old: &Settings, new: &Settings) -> Vec<Entry> {
    let seats = |s: &Settings| -> Vec<journal::Particulars> {
        let master = journal::Particulars {
            who: "master".to_string(),
            address: s.master.email.clone(),
            timezone: s.master.timezone.clone(),
            password_hash: s.master.password_hash.clone(),
        };
        let players = map.power_ids().filter_map(|power| {
            s.player(map, power).map(|p| journal::Particulars {
                who: map.power(power).name.clone(),
                address: Some(p.email.clone()),
                timezone: p.timezone.clone(),
                password_hash: p.password_hash.clone(),
            })
        });
        std::iter::once(master).chain(players).collect()
    };
    journal::particulars_changes(&seats(old), &seats(new))
        .into_iter()
        .map(|(who, what, old, new)| Entry::PlayerChanged { who, what, old, new })
        .collect()
}

/// Create a game directory with its settings and first state.
pub fn create(
    path: &Path,
    settings: &Settings,
    mut state: GameState,
    now: DateTime<Utc>,
) -> Result<OpenGame, GameError> {
    state.deadline = Some(settings.deadlines.schedule.deadline_for(state.phase.kind, now).map_err(schedule_error)?);
    let map = load_map(settings, path)?;
    let dir = GameDir::create(path, settings)?;
    let mut book = Book::read(dir.clone())?;
    let mut lock = book.lock()?;
    lock.write_side(MAP_FILE, &MapRecord { map: settings.map.clone(), fingerprint: map.id_fingerprint() })?;
    let entry = Entry::Created { state: state.clone() };
    book.record(&mut lock, now, entry.clone(), &state)?;
    drop(lock);
    let warnings = book.take_warnings();
    Ok(OpenGame {
        dir,
        game: Game::new(settings.clone(), map, state),
        entries: vec![entry],
        notes: Vec::new(),
        warnings,
        cache_behind: None,
        book,
        stamp: None,
    })
}

/// Open a game: settings, map, journal, and the state (replayed if the cache is behind).
/// A `state.json` behind the journal (a write that failed, say on a full disk) is
/// rewritten from the journal here, under the lock.
pub fn open(path: &Path) -> Result<OpenGame, GameError> {
    let dir = GameDir::open(path)?;
    let notes = dir.recovered().iter().map(|r| r.to_string()).collect();
    let mut g = load(dir, notes)?;
    if let Some(seq) = g.cache_behind {
        let lock = g.dir.lock()?;
        let state_file = g.dir.path().join(crate::store::STATE_FILE);
        match lock.write_state(seq, &g.game.state) {
            Ok(()) => {
                g.cache_behind = None;
                g.notes.push(format!("{}: was behind the journal; rebuilt from it", state_file.display()));
            }
            Err(e) => g.warnings.push(cache_warning(&e)),
        }
    }
    Ok(g)
}

/// Open a game to read it only: no lock is taken and nothing is written (no recovery
/// either: an interrupted write is skipped, not repaired).
pub fn open_read_only(path: &Path) -> Result<OpenGame, GameError> {
    load(GameDir::open_for_reading(path)?, Vec::new())
}

fn load(dir: GameDir, notes: Vec<String>) -> Result<OpenGame, GameError> {
    // Before anything is read, so a glance kept from this read is never newer than it.
    let stamp = dir.stamp(&GLANCE_STAMPED).ok();
    let settings: Settings = dir.read_settings()?;
    settings.deadlines.check().map_err(|e| {
        GameError::Damaged(format!("{}: [deadlines]: {e}", dir.path().join(crate::store::SETTINGS_FILE).display()))
    })?;
    let map = load_map(&settings, dir.path())?;
    check_map(&dir, &settings, &map)?;
    // The cache before the journal: a writer appends to the journal before it rewrites
    // the cache, so a reader without the lock never sees a cache ahead of the journal
    // unless the journal really was cut short.
    let cached: Option<(u64, GameState)> = dir.read_state()?;
    let book = Book::<Entry>::read(dir.clone())?;
    let entries: Vec<Entry> = book.records().iter().map(|r| r.entry.clone()).collect();
    if !matches!(entries.first(), Some(Entry::Created { .. })) {
        return Err(GameError::Damaged(format!(
            "{}: the journal {}; the game cannot be rebuilt (a half-created game, or a damaged one)",
            dir.path().join(crate::store::JOURNAL_FILE).display(),
            if entries.is_empty() { "is empty" } else { "does not start with the game's creation" }
        )));
    }
    // A placeholder state, replaced below by the cached or replayed one.
    let start = GameState::start(&map, 1);
    let mut game = Game::new(settings, map, start);
    let last = book.last_seq();
    if let Some((seq, _)) = &cached {
        book.check_cache(*seq)?;
    }
    let boards = game.settings.variant.boards();
    let state_file = dir.path().join(crate::store::STATE_FILE);
    if let Some((_, state)) = &cached {
        state.check(&game.map, boards).map_err(|e| GameError::Damaged(format!("{}: {e}", state_file.display())))?;
    }
    let journal_file = dir.path().join(crate::store::JOURNAL_FILE);
    let in_journal = |e: journal::ReplayError| GameError::Damaged(format!("{}: {e}", journal_file.display()));
    let cache_behind = match cached {
        Some((seq, state)) if seq == last => {
            game.state = state;
            false
        }
        Some((seq, state)) => {
            game.state = state;
            journal::replay(&mut game, &entries[seq as usize..]).map_err(in_journal)?;
            true
        }
        None => {
            journal::replay(&mut game, &entries).map_err(in_journal)?;
            true
        }
    };
    Ok(OpenGame {
        dir,
        game,
        entries,
        notes,
        warnings: Vec::new(),
        cache_behind: cache_behind.then_some(last),
        book,
        stamp,
    })
}

impl OpenGame {
    fn relock(&mut self) -> Result<GameLock, GameError> {
        let lock = self.dir.lock()?;
        // Another writer may have changed the game since it was read: read it again (the
        // fresh load reads the journal once, into a new book).
        let mut fresh = load(self.dir.clone(), Vec::new())?;
        self.game = fresh.game;
        self.entries = fresh.entries;
        fresh.book.carry_out(self.book.carrying_out().map(str::to_owned));
        self.book = fresh.book;
        self.stamp = None;
        if self.dir.read_side::<MapRecord>(MAP_FILE)?.is_none() {
            let record = MapRecord { map: self.game.settings.map.clone(), fingerprint: self.game.map.id_fingerprint() };
            lock.write_side(MAP_FILE, &record)?;
        }
        Ok(lock)
    }

    /// Whether the inbound message item being carried out (the store's message tag)
    /// already left an entry in this game's journal: it was carried out before an
    /// interruption, and its redelivery must not do it twice.
    pub fn done_before(&self) -> bool {
        self.book.done_before()
    }

    /// From now on, the inbound message item `tag` is being carried out (`None`: none):
    /// what this game journals is tagged with it.
    pub fn carry_out(&mut self, tag: Option<String>) {
        self.book.carry_out(tag);
    }

    /// Whether any journal entry carries out the message item `tag`.
    pub fn has_message(&self, tag: &str) -> bool {
        self.book.has_message(tag)
    }

    /// Journal a change, then refresh the `state.json` cache. Once the entry is synced
    /// the change is made: a cache that cannot be written (a full disk) is a warning, and
    /// the next open rebuilds it from the journal.
    fn record(&mut self, lock: &mut GameLock, now: DateTime<Utc>, entry: Entry) -> Result<(), GameError> {
        self.book.record(lock, now, entry.clone(), &self.game.state)?;
        self.entries.push(entry);
        self.warnings.extend(self.book.take_warnings());
        Ok(())
    }

    /// Check and keep a power's orders (or only check them).
    pub fn submit(
        &mut self,
        power: PowerId,
        text: &str,
        check_only: bool,
        now: DateTime<Utc>,
    ) -> Result<Acknowledgement, GameError> {
        if check_only {
            return Ok(self.game.submit(power, text, true));
        }
        let mut lock = self.relock()?;
        if self.done_before() {
            // This message's orders were taken before the judge was interrupted: answer
            // as then, and keep them once.
            drop(lock);
            return Ok(self.game.submit(power, text, true));
        }
        let ack = self.game.submit(power, text, false);
        if !ack.accepted.is_empty() {
            let entry = Entry::Submitted {
                phase: ack.phase,
                power: self.game.map.power(power).key.clone(),
                text: text.to_string(),
            };
            self.record(&mut lock, now, entry)?;
        }
        Ok(ack)
    }

    /// Adjudicate the current phase: when every power has sent orders, or with `force`.
    pub fn adjudicate(&mut self, force: bool, now: DateTime<Utc>) -> Result<PhaseReport, GameError> {
        self.adjudicate_phase(None, force, now)
    }

    /// [`adjudicate`](Self::adjudicate), but only if the game is still in `expected`: a
    /// caller that decided to adjudicate from an earlier read (the mail tick) must not
    /// adjudicate the next phase when someone else got there first.
    pub fn adjudicate_phase(
        &mut self,
        expected: Option<Phase>,
        force: bool,
        now: DateTime<Utc>,
    ) -> Result<PhaseReport, GameError> {
        self.adjudicate_entry(expected, force, false, false, now)
    }

    /// [`adjudicate_phase`](Self::adjudicate_phase) for the mail judge: the journal entry
    /// says its results are owed by mail (see [`results_owed`](Self::results_owed)), in
    /// the same durable write as the adjudication itself.
    pub fn adjudicate_to_mail(
        &mut self,
        expected: Option<Phase>,
        force: bool,
        now: DateTime<Utc>,
    ) -> Result<PhaseReport, GameError> {
        self.adjudicate_entry(expected, force, true, false, now)
    }

    /// Early processing, for the mail tick: adjudicate the phase `expected` now, before
    /// its deadline, if the game allows it (`[deadlines] early`, on by default), every
    /// power has complete orders and none asked to wait. `None` when it may not (yet).
    /// The results are owed by mail and say the phase was processed early.
    pub fn adjudicate_early(&mut self, expected: Phase, now: DateTime<Utc>) -> Result<Option<PhaseReport>, GameError> {
        if !self.may_process_early(expected) {
            return Ok(None);
        }
        // Looked at again under the lock, where it is decided.
        self.adjudicate_entry(Some(expected), false, true, true, now).map(Some)
    }

    /// Whether [`adjudicate_early`](Self::adjudicate_early) would process `expected`.
    pub fn may_process_early(&self, expected: Phase) -> bool {
        let g = &self.game;
        g.settings.deadlines.early
            && g.state.end.is_none()
            && g.state.phase == expected
            && g.state.waiting.is_empty()
            && g.map
                .power_ids()
                .all(|p| !g.has_duty(p) || (g.state.submitted.contains(&p) && g.missing_orders(p).is_empty()))
    }

    fn adjudicate_entry(
        &mut self,
        expected: Option<Phase>,
        force: bool,
        mail_results: bool,
        early: bool,
        now: DateTime<Utc>,
    ) -> Result<PhaseReport, GameError> {
        let mut lock = self.relock()?;
        if early && !self.may_process_early(expected.unwrap_or(self.game.state.phase)) {
            return Err(GameError::Invalid("the phase may not be processed early any more".into()));
        }
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        if let Some(expected) = expected.filter(|p| *p != self.game.state.phase) {
            return Err(GameError::Invalid(format!(
                "{expected} was already adjudicated; the game is in {}",
                self.game.state.phase
            )));
        }
        let waiting = self.game.waiting_for();
        if !waiting.is_empty() && !force {
            return Err(GameError::NotReady(waiting.iter().map(|p| self.game.map.power(*p).name.clone()).collect()));
        }
        let schedule = self.game.settings.deadlines.schedule.clone();
        schedule.check().map_err(schedule_error)?;
        let phase = self.game.state.phase;
        let abandon_after = self.game.settings.deadlines.abandon_after;
        let missed = (abandon_after > 0).then(|| self.missed_phases());
        let report = self.game.adjudicate();
        self.game.state.deadline = match self.game.state.end {
            None => Some(schedule.deadline_for(self.game.state.phase.kind, now).map_err(schedule_error)?),
            Some(_) => None,
        };
        let mut report = report;
        if let Some((at, powers)) = self.game.state.deadline.and_then(|d| self.absent_until(d)) {
            self.game.state.deadline = Some(at);
            report.notices.push(self.absence_notice(&powers));
        }
        let mut abandoned = Vec::new();
        if let Some(missed) = missed {
            for m in missed.iter().filter(|m| m.phases >= abandon_after && self.game.state.end.is_none()) {
                let name = self.game.map.power(m.power).name.clone();
                report.notices.push(format!(
                    "{name} sent no orders for {} in a row and is declared vacant: its units hold, and are \
                     disbanded by the rules in Winter, until a new player takes it.",
                    count(m.phases, "phase", "phases")
                ));
                abandoned.push(m.clone());
            }
            self.game.state.missed = missed.into_iter().filter(|m| m.phases < abandon_after).collect();
        }
        let entry = Entry::Adjudicated {
            phase,
            forced: force,
            report: Box::new(report.clone()),
            state: self.game.state.clone(),
            mail_results,
            early,
        };
        self.record(&mut lock, now, entry)?;
        if !abandoned.is_empty() {
            self.vacate(&mut lock, &abandoned, now)?;
        }
        Ok(report)
    }

    /// The phases each power has missed in a row, counting the phase under way as
    /// missed by every power with orders to give that sent none (a power without any
    /// keeps its count; one that sent orders starts again).
    fn missed_phases(&self) -> Vec<Missed> {
        let g = &self.game;
        g.map
            .power_ids()
            .filter_map(|p| {
                let before = g.state.missed.iter().find(|m| m.power == p).map_or(0, |m| m.phases);
                let phases = match (g.has_duty(p), g.state.submitted.contains(&p)) {
                    (true, false) => before + 1,
                    (true, true) => 0,
                    (false, _) => before,
                };
                (phases > 0).then_some(Missed { power: p, phases })
            })
            .collect()
    }

    /// Declare powers vacant: journaled, then their players taken out of game.toml (a
    /// player change each), so the judge waits for them no more.
    fn vacate(&mut self, lock: &mut GameLock, powers: &[Missed], now: DateTime<Utc>) -> Result<(), GameError> {
        let map = self.game.map.clone();
        let mut settings = self.game.settings.clone();
        for m in powers {
            let key = map.power(m.power).key.clone();
            self.record(lock, now, Entry::Abandoned { power: key, missed: m.phases })?;
            settings.players.retain(|p| map.lookup_power(&p.power) != Some(m.power));
        }
        for entry in player_changes(&map, &self.game.settings, &settings) {
            self.record(lock, now, entry)?;
        }
        lock.write_settings(&settings)?;
        self.game.settings = settings;
        Ok(())
    }

    /// The report the current phase would get if adjudicated now (as with `force`),
    /// without changing anything.
    pub fn preview(&self) -> PhaseReport {
        let mut game = self.game.clone();
        game.adjudicate()
    }

    /// Go back to the start of an earlier phase. Journaled: nothing is deleted.
    pub fn rollback(&mut self, to: Phase, now: DateTime<Utc>) -> Result<(), GameError> {
        let mut lock = self.relock()?;
        let now_at = self.game.state.phase;
        let back_to = || -> String {
            let codes: Vec<String> =
                journal::phases_started(&self.entries).iter().filter(|p| **p <= now_at).map(|p| p.code()).collect();
            codes.join(" ")
        };
        let state = journal::state_at(&self.entries, to).ok_or_else(|| {
            GameError::Invalid(format!("the game was never at the start of {to}; it may go back to {}", back_to()))
        })?;
        // A rollback goes back only: a phase after this one (undone by an earlier
        // rollback) is not part of the game now.
        if to > now_at {
            return Err(GameError::Invalid(format!(
                "{to} is after the phase the game is in ({now_at}): a rollback goes back only; it may go back to {}",
                back_to()
            )));
        }
        self.game.state = state.clone();
        self.record(&mut lock, now, Entry::RolledBack { to, state })
    }

    /// The game master declares a draw between the surviving powers.
    pub fn declare_draw(&mut self, now: DateTime<Utc>) -> Result<String, GameError> {
        let mut lock = self.relock()?;
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let notice = self.game.declare_draw();
        let state = self.game.state.clone();
        self.record(&mut lock, now, Entry::DrawDeclared { notice: notice.clone(), state })?;
        Ok(notice)
    }

    /// A power votes for a draw; returns the end notice if that made the game a draw.
    pub fn vote_draw(&mut self, power: PowerId, now: DateTime<Utc>) -> Result<Option<String>, GameError> {
        let mut lock = self.relock()?;
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let notice = self.game.vote_draw(power);
        self.record(&mut lock, now, Entry::DrawVote { power: self.game.map.power(power).key.clone() })?;
        Ok(notice)
    }

    /// A power's vote on how the game ends; how it ends, if this vote made a proposal
    /// pass. Carried out again after an interruption, the vote is not kept twice.
    pub fn vote(&mut self, power: PowerId, vote: &Vote, now: DateTime<Utc>) -> Result<Option<GameEnd>, GameError> {
        let mut lock = self.relock()?;
        if self.done_before() {
            return Ok(None);
        }
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let key = |p: &PowerId| self.game.map.power(*p).key.clone();
        let (word, powers) = match vote {
            Vote::Draw { powers } => ("draw", powers.iter().map(key).collect()),
            Vote::NoDraw => ("nodraw", Vec::new()),
            Vote::Concede { to } => ("concede", vec![key(to)]),
            Vote::NoConcede => ("noconcede", Vec::new()),
        };
        let voters = Some(self.game.voters().iter().map(key).collect());
        let entry = Entry::Vote { power: key(&power), vote: word.to_string(), powers, voters };
        let end = self.game.vote(power, vote);
        self.record(&mut lock, now, entry)?;
        Ok(end)
    }

    /// The absences announced and not refused, oldest first (a rollback keeps them: they
    /// are read from the whole journal).
    pub fn absences(&self) -> Vec<Absence> {
        let mut out: Vec<Absence> = Vec::new();
        for e in &self.entries {
            match e {
                Entry::Absence { power, from, to, .. } => {
                    if let Some(power) = self.game.map.lookup_power(power) {
                        out.push(Absence { power, from: *from, to: *to });
                    }
                }
                Entry::AbsenceRefused { power, .. } => {
                    let p = self.game.map.lookup_power(power);
                    out.retain(|a| Some(a.power) != p);
                }
                _ => {}
            }
        }
        out
    }

    /// Where a deadline moves for the absences announced: to the end of every absence it
    /// falls inside (of a power still in the game with a player), again and again while
    /// the end falls inside another. The new deadline and the powers whose absence moved
    /// it; `None` when none does.
    pub fn absent_until(&self, deadline: DateTime<Utc>) -> Option<(DateTime<Utc>, Vec<PowerId>)> {
        let voters = self.game.voters();
        let absences: Vec<Absence> = self.absences().into_iter().filter(|a| voters.contains(&a.power)).collect();
        let mut at = deadline;
        let mut powers = Vec::new();
        for _ in 0..=absences.len() {
            let Some(a) = absences.iter().filter(|a| a.from <= at && at < a.to).max_by_key(|a| a.to) else { break };
            at = a.to;
            if !powers.contains(&a.power) {
                powers.push(a.power);
            }
        }
        (at != deadline).then_some((at, powers))
    }

    /// A power announces an absence, from `from` to `to` (the instant it ends); refused
    /// beyond the game's caps. The deadline under way moves to its end if it falls inside
    /// it: the new deadline, if it moved.
    pub fn announce_absence(
        &mut self,
        power: PowerId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, GameError> {
        let mut lock = self.relock()?;
        if self.done_before() {
            return Ok(None);
        }
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        let policy = &self.game.settings.deadlines;
        let invalid = |s: String| Err(GameError::Invalid(s));
        if policy.absence_days == 0 {
            return invalid("this game takes no absences (absence_days = 0)".into());
        }
        if to <= from {
            return invalid("the absence ends before it begins".into());
        }
        if to <= now {
            return invalid("that absence is over already".into());
        }
        if from > now + chrono::Duration::days(366) {
            return invalid("an absence may be announced at most a year ahead".into());
        }
        let days = |a: DateTime<Utc>, b: DateTime<Utc>| ((b - a).num_hours() + 23) / 24;
        let absences = self.absences();
        let used: i64 = absences.iter().filter(|a| a.power == power).map(|a| days(a.from, a.to)).sum();
        let cap = i64::from(policy.absence_days);
        if used + days(from, to) > cap {
            return invalid(format!(
                "at most {} of absence per player in this game; this one is {} and {} left",
                count(cap, "day", "days"),
                count(days(from, to), "day", "days"),
                if used >= cap { "none is".to_string() } else { format!("{} are", count(cap - used, "day", "days")) }
            ));
        }
        let overlapping = absences.iter().filter(|a| a.from < to && from < a.to).count();
        if overlapping >= policy.absences_at_once as usize {
            return invalid(format!(
                "at most {} may run at once in this game, and {overlapping} already cover some of those days",
                count(policy.absences_at_once, "absence", "absences")
            ));
        }
        let key = self.game.map.power(power).key.clone();
        self.entries.push(Entry::Absence { power: key.clone(), from, to, moved_from: None, moved_to: None });
        let moved = self.game.state.deadline.and_then(|d| self.absent_until(d).map(|(at, _)| (d, at)));
        self.entries.pop();
        if let Some((_, at)) = moved {
            self.game.state.deadline = Some(at);
        }
        let entry =
            Entry::Absence { power: key, from, to, moved_from: moved.map(|m| m.0), moved_to: moved.map(|m| m.1) };
        self.record(&mut lock, now, entry)?;
        Ok(moved.map(|m| m.1))
    }

    /// The master refuses a power's absences: they no longer move a deadline. A deadline
    /// under way that one of them moved goes back to the one the schedule gives the phase
    /// (not before now), moved again by the other absences: the new deadline, if it moved.
    pub fn refuse_absence_of(
        &mut self,
        power: PowerId,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, GameError> {
        let mut lock = self.relock()?;
        if self.done_before() {
            return Ok(None);
        }
        let name = self.game.map.power(power).name.clone();
        let refused: Vec<Absence> = self.absences().into_iter().filter(|a| a.power == power).collect();
        if refused.is_empty() {
            return Err(GameError::Invalid(format!("{name} announced no absence to refuse")));
        }
        let key = self.game.map.power(power).key.clone();
        let before = self.game.state.deadline;
        self.entries.push(Entry::AbsenceRefused { power: key.clone(), moved_to: None });
        let moved = match before {
            Some(d) if self.game.state.end.is_none() && refused.iter().any(|a| a.to == d) => {
                let started =
                    self.book.records().iter().rev().find(|r| journal::moves_the_game(&r.entry)).map_or(now, |r| r.at);
                let scheduled = self
                    .game
                    .settings
                    .deadlines
                    .schedule
                    .deadline_for(self.game.state.phase.kind, started)
                    .map_err(schedule_error)?
                    .max(now);
                let at = self.absent_until(scheduled).map_or(scheduled, |(at, _)| at);
                (at != d).then_some(at)
            }
            _ => None,
        };
        self.entries.pop();
        if let Some(at) = moved {
            self.game.state.deadline = Some(at);
        }
        self.record(&mut lock, now, Entry::AbsenceRefused { power: key, moved_to: moved })?;
        Ok(moved)
    }

    /// At the deadline of `expected`: the powers with orders to give that sent nothing,
    /// each with a late extension left (`[deadlines] late_extensions`), get the phase
    /// extended by `late_extension_hours`, once per phase. The powers and the new
    /// deadline; `None` when the phase is to be processed.
    pub fn extend_late(&mut self, expected: Phase, now: DateTime<Utc>) -> Result<Option<LateExtension>, GameError> {
        if self.game.settings.deadlines.late_extension_hours.is_zero() {
            return Ok(None);
        }
        let mut lock = self.relock()?;
        let policy = self.game.settings.deadlines.clone();
        let g = &self.game;
        if g.state.end.is_some() || g.state.phase != expected {
            return Ok(None);
        }
        let since = self.entries.iter().rposition(journal::moves_the_game).unwrap_or(0);
        if self.entries[since..].iter().any(|e| matches!(e, Entry::LateExtension { .. })) {
            return Ok(None);
        }
        let used = |p: PowerId| {
            let key = &g.map.power(p).key;
            self.entries
                .iter()
                .filter(|e| matches!(e, Entry::LateExtension { powers, .. } if powers.contains(key)))
                .count()
        };
        let late: Vec<PowerId> = g
            .map
            .power_ids()
            .filter(|p| g.has_duty(*p) && !g.state.submitted.contains(p) && used(*p) < policy.late_extensions as usize)
            .collect();
        if late.is_empty() {
            return Ok(None);
        }
        let at = now + policy.late_extension_hours.duration();
        let powers = late.iter().map(|p| g.map.power(*p).key.clone()).collect();
        self.game.state.deadline = Some(at);
        self.record(&mut lock, now, Entry::LateExtension { powers, deadline: at })?;
        Ok(Some((late, at)))
    }

    /// Move the deadline of the current phase (`None`: no deadline, e.g. paused).
    pub fn set_deadline(&mut self, deadline: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Result<(), GameError> {
        let mut lock = self.relock()?;
        self.game.state.deadline = deadline;
        self.record(&mut lock, now, Entry::DeadlineSet { deadline })
    }

    /// Keep a press message in the journal (it changes no state; the journal is the
    /// record of who said what to whom).
    pub fn record_press(
        &mut self,
        from: &str,
        to: Vec<String>,
        text: &str,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let mut lock = self.relock()?;
        if self.done_before() {
            return Ok(());
        }
        self.record(&mut lock, now, Entry::Press { from: from.to_string(), to, text: text.to_string() })
    }

    /// A power asks that the phase wait for its deadline (`wait`), or takes that back.
    pub fn set_wait(&mut self, power: PowerId, wait: bool, now: DateTime<Utc>) -> Result<(), GameError> {
        let mut lock = self.relock()?;
        if self.game.state.end.is_some() {
            return Err(GameError::Over);
        }
        if self.done_before() || self.game.state.waiting.contains(&power) == wait {
            return Ok(());
        }
        self.game.state.waiting.retain(|p| *p != power);
        if wait {
            self.game.state.waiting.push(power);
        }
        let entry = Entry::Wait { power: self.game.map.power(power).key.clone(), wait };
        self.record(&mut lock, now, entry)
    }

    /// Change the settings (`game.toml`) under the lock: passwords, addresses, time zones,
    /// options. The settings say who plays and how; a change of a player's particulars
    /// is also journaled ([`Entry::PlayerChanged`], before game.toml is written), so that
    /// history shows it and no rollback undoes it.
    pub fn update_settings<T>(
        &mut self,
        now: DateTime<Utc>,
        change: impl FnOnce(&mut Settings) -> Result<T, GameError>,
    ) -> Result<T, GameError> {
        let mut lock = self.relock()?;
        let mut settings = self.game.settings.clone();
        let out = change(&mut settings)?;
        for entry in player_changes(&self.game.map, &self.game.settings, &settings) {
            self.record(&mut lock, now, entry)?;
        }
        lock.write_settings(&settings)?;
        self.game.settings = settings;
        Ok(out)
    }

    /// What everyone is told of a deadline the absences of `powers` moved: not whose,
    /// unless the game's votes or press are public anyway.
    pub fn absence_notice(&self, powers: &[PowerId]) -> String {
        let settings = &self.game.settings;
        if settings.votes == Votes::Public && settings.press == PressRule::Full {
            let names: Vec<String> = powers.iter().map(|p| self.game.map.power(*p).name.clone()).collect();
            format!("The deadline is moved to the end of an absence {} announced.", names.join(" and "))
        } else {
            "The deadline is moved to the end of an announced absence.".to_string()
        }
    }

    /// Every adjudication report so far (rolled-back phases included, in journal order).
    pub fn reports(&self) -> Vec<&PhaseReport> {
        journal::reports(&self.entries).collect()
    }

    /// What `mailed.json` says was mailed (empty if nothing ever was).
    pub fn mailed(&self) -> Result<MailedFile, GameError> {
        Ok(self.book.mailed(None)?)
    }

    /// The results owed by mail, oldest first: every adjudication journaled with
    /// `mail_results` that no rollback undid, less what `mailed.json` says went out.
    pub fn results_owed(&self) -> Result<Vec<OwedResults>, GameError> {
        let undone: std::collections::BTreeSet<u64> =
            journal::undone_by_rollback(&self.entries).into_iter().map(|i| i as u64 + 1).collect();
        let owed = self.book.owed(&self.mailed()?, &undone, |entry| match entry {
            Entry::Adjudicated { phase, mail_results: true, .. } => Some(serde_json::to_value(phase).ok()),
            _ => None,
        })?;
        let mut results = Vec::new();
        for o in owed {
            let index = o.seq as usize - 1;
            let Entry::Adjudicated { report, early, .. } = &self.entries[index] else { continue };
            let current = !self.entries[index + 1..].iter().any(journal::moves_the_game);
            let after = self.entries[index + 1..].iter().take_while(|e| !journal::moves_the_game(e));
            let mut vacated: Vec<String> = Vec::new();
            let mut abandoned = Vec::new();
            for e in after {
                match e {
                    Entry::Abandoned { power, .. } => vacated.push(power.to_lowercase()),
                    Entry::PlayerChanged { who, what, old: Some(address), new: None }
                        if what == "address" && vacated.contains(&who.to_lowercase()) =>
                    {
                        abandoned.push(address.clone())
                    }
                    _ => {}
                }
            }
            let next_deadline = self.game.state.deadline.filter(|_| current && self.game.state.end.is_none());
            results.push(OwedResults {
                seq: o.seq,
                report: report.as_ref().clone(),
                next_deadline,
                only_to: o.only_to,
                early: *early,
                abandoned,
            });
        }
        Ok(results)
    }

    /// Keep this game's [`Glance`] (`missing`: the powers that owe orders) for the next
    /// tick, if nobody holds the lock and the game's files are still as they were read;
    /// otherwise leave it (the next tick opens the game in full).
    pub fn keep_glance(&self, missing: Vec<String>) -> Result<(), GameError> {
        let Some(stamp) = &self.stamp else { return Ok(()) };
        let state = &self.game.state;
        let glance = Glance {
            stamp: stamp.clone(),
            phase: state.phase,
            deadline: state.deadline,
            over: state.end.is_some(),
            missing,
            early: self.may_process_early(state.phase),
            owed: !self.results_owed()?.is_empty(),
            deadlines: self.game.settings.deadlines.clone(),
        };
        let lock = match self.dir.try_lock() {
            Ok(lock) => lock,
            Err(StoreError::Locked { .. }) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        if lock.stamp(&GLANCE_STAMPED)? == *stamp {
            lock.write_cache_side(GLANCE_FILE, &glance)?;
        }
        Ok(())
    }

    /// Take the lock of the results mailing (see the module notes); `None` without `wait`
    /// when another run is mailing this game's results now.
    pub fn lock_mailing(&self, wait: bool) -> Result<Option<TaskLock>, GameError> {
        Ok(self.dir.lock_task(MAILING_TASK, wait)?)
    }

    /// Mark, under the game's lock, that the results of the adjudication at `seq` are being
    /// mailed to `to`, and say to whom they may go ([`crate::store::Book::begin_mailing`]).
    pub fn begin_results_mailing(
        &mut self,
        seq: u64,
        to: &[String],
        now: DateTime<Utc>,
    ) -> Result<MailingPlan, GameError> {
        let lock = self.relock()?;
        let phase = self.adjudicated_phase(seq)?;
        Ok(self.book.begin_mailing(&lock, seq, serde_json::to_value(phase).ok(), to, None, now)?)
    }

    fn adjudicated_phase(&self, seq: u64) -> Result<Phase, GameError> {
        match usize::try_from(seq).ok().and_then(|s| self.entries.get(s.checked_sub(1)?)) {
            Some(Entry::Adjudicated { phase, .. }) => Ok(*phase),
            _ => Err(GameError::Invalid(format!("journal entry {seq} is not an adjudication"))),
        }
    }

    /// Record in `mailed.json`, under the game's lock, what mailing the results of the
    /// adjudication at `seq` did. Addresses to retry stay owed; the rest are done.
    pub fn record_results_mailed(
        &mut self,
        seq: u64,
        outcome: &MailingOutcome,
        now: DateTime<Utc>,
    ) -> Result<(), GameError> {
        let lock = self.relock()?;
        let phase = self.adjudicated_phase(seq)?;
        self.book.record_mailed(&lock, seq, serde_json::to_value(phase).ok(), outcome, None, now)?;
        Ok(())
    }
}
