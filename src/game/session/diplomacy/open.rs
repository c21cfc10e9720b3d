//! A game made, opened and loaded: its settings, its map (checked against the one it was
//! made with), the journal, and the state, replayed when the cache is behind.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{schedule_error, DiplomacyKind, GameError, OpenGame};
use crate::diplomacy::engine::Game;
use crate::diplomacy::map::Map;
use crate::diplomacy::state::GameState;
use crate::game::journal::{self, Entry};
use crate::game::session::{Loaded, Session};
use crate::game::settings::Settings;
use crate::store::{Book, GameDir};

pub use crate::store::MAP_FILE;

/// `map.json`: the map a game was created with, and what its ids meant then
/// ([`Map::id_fingerprint`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapRecord {
    pub map: String,
    pub fingerprint: String,
}

/// The game's map: a shipped variant's (`standard`, `ancmed`), or a map file. A relative path is taken from the game's
/// directory (the same rule when the game is created and when it is opened), and the file
/// is read through the store.
/// Maps are built once per process and shared (`map::cache`).
fn load_map(settings: &Settings, dir: &Path) -> Result<Arc<Map>, GameError> {
    if let Some(map) = crate::diplomacy::map::shipped::map(&settings.map) {
        return Ok(map);
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
    Ok(Session::made(dir, DiplomacyKind { game: Game::new(settings.clone(), map, state), entries: vec![entry] }, book))
}

/// Open a game to change it ([`Session::open`]): settings, map, journal, and the state
/// (replayed if the cache is behind).
pub fn open(path: &Path) -> Result<OpenGame, GameError> {
    Session::open(path)
}

/// Open a game to read it only ([`Session::open_read_only`]).
pub fn open_read_only(path: &Path) -> Result<OpenGame, GameError> {
    Session::open_read_only(path)
}

/// Read a game: settings, map (checked against the one it was made with), journal, and
/// the state, replayed from the journal when the cache is behind it.
pub(super) fn load(dir: &GameDir) -> Result<Loaded<DiplomacyKind>, GameError> {
    let settings: Settings = dir.read_settings()?;
    settings.deadlines.check().map_err(|e| {
        GameError::Damaged(format!("{}: [deadlines]: {e}", dir.path().join(crate::store::SETTINGS_FILE).display()))
    })?;
    let map = load_map(&settings, dir.path())?;
    check_map(dir, &settings, &map)?;
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
    Ok(Loaded { kind: DiplomacyKind { game, entries }, book, cache_behind: cache_behind.then_some(last) })
}
