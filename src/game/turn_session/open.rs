//! Opening a turn game: create, open (taking the lock repairs what a crash left), reload
//! under the lock, the journal made whole, and each entry recorded.

use super::*;
use crate::store::cache_warning;

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
    let players = settings.players.iter().map(|p| p.name.clone()).collect();
    trial_setup(settings, players, options).map_err(GameError::Invalid)?;
    let dir = GameDir::create(path, settings)?;
    let mut book = Book::read(dir.clone())?;
    let mut lock = book.lock()?;
    lock.write_private_side(SEED_FILE, &SeedFile { seed: seed.to_hex() })?;
    let mut game = begin(dir, book, &mut lock, settings, options, seed, now)?;
    game.commit(&mut lock)?;
    Ok(game)
}

/// Set the game up with stand-in dice, so that it says what it thinks of the players and
/// the options before anything is written (a game refused leaves no directory behind).
pub(super) fn trial_setup(settings: &TurnSettings, players: Vec<String>, options: &Options) -> Result<(), String> {
    let mut trial = Dice::new(Seed::from_bytes([0; 32]), &settings.name, 0);
    let mut ctx = TurnContext { dice: &mut trial, now: DateTime::UNIX_EPOCH, hold: false };
    games::create(&settings.game, players, options, &mut ctx).map(drop)
}

/// The game's first entry (the setup rolls and the commitment) in a directory that holds
/// its settings and seed: a game just created, or one whose open seats were all filled.
pub(super) fn begin(
    dir: GameDir,
    mut book: Book<TurnEntry>,
    lock: &mut GameLock,
    settings: &TurnSettings,
    options: &Options,
    seed: Seed,
    now: DateTime<Utc>,
) -> Result<OpenTurnGame, GameError> {
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
    // The entry first: game.toml already says what it says (a new game), or still shows
    // the open seats (a lobby's last join), which the next open finishes from the journal.
    book.record(lock, now, entry.clone(), &meta)?;
    lock.write_settings(settings)?;
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
        stamp: None,
        cache_behind: None,
    })
}

/// Open a turn game to change it (taking the lock once repairs what a crash left).
pub fn open(path: &Path) -> Result<OpenTurnGame, GameError> {
    let dir = GameDir::open(path)?;
    let notes = dir.recovered().iter().map(|r| r.to_string()).collect();
    let mut g = load(dir, notes)?;
    // A `state.json` behind the journal (a write that failed, say on a full disk) is
    // rewritten from the journal here, as for every game.
    if let Some(seq) = g.cache_behind.take() {
        match crate::store::repair_state(&g.dir, seq, &g.meta) {
            Ok(note) => g.notes.push(note),
            Err(e) => g.warnings.push(crate::store::cache_warning(e)),
        }
    }
    Ok(g)
}

/// Open a turn game only to read it: no lock, nothing written.
pub fn open_read_only(path: &Path) -> Result<OpenTurnGame, GameError> {
    load(GameDir::open_for_reading(path)?, Vec::new())
}

fn load(dir: GameDir, notes: Vec<String>) -> Result<OpenTurnGame, GameError> {
    // Before anything is read, so a glance kept from this read is never newer than it.
    let stamp = crate::game::glance::stamp(&dir);
    let mut settings: TurnSettings = dir.read_settings()?;
    if super::lobby::is_open(&settings) {
        // A start cut short after its first entry (see `lobby::Lobby::open`): the game
        // began with everyone who joined.
        settings = super::lobby::seated(settings).0;
    }
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
    let last = book.last_seq();
    let (meta, cache_behind) = match cached {
        Some((seq, meta)) if seq == last => (meta, None),
        _ => (replay(&settings, &seed, &entries)?, Some(last)),
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
    Ok(OpenTurnGame {
        dir,
        settings,
        meta,
        game,
        entries,
        book,
        seed,
        notes,
        warnings: Vec::new(),
        stamp,
        cache_behind,
    })
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

impl OpenTurnGame {
    pub(super) fn relock(&mut self) -> Result<GameLock, GameError> {
        let lock = self.dir.lock()?;
        // Another writer may have changed the game since it was read: read it again (the
        // fresh load reads the journal once, into a new book).
        let mut fresh = load(self.dir.clone(), Vec::new())?;
        self.settings = fresh.settings;
        self.meta = fresh.meta;
        self.game = fresh.game;
        self.entries = fresh.entries;
        fresh.book.carry_on(&self.book);
        self.book = fresh.book;
        self.stamp = None;
        Ok(lock)
    }

    pub(super) fn record(
        &mut self,
        lock: &mut GameLock,
        now: DateTime<Utc>,
        entry: TurnEntry,
    ) -> Result<u64, GameError> {
        let seq = self.book.record(lock, now, journaled(&self.entries, entry.clone()), &self.meta)?;
        self.entries.push((seq, now, entry));
        self.warnings.extend(self.book.take_warnings());
        Ok(seq)
    }

    /// Make a staged change durable ([`GameLock::commit`]); a cache that could not be
    /// written is a warning.
    pub(super) fn commit(&mut self, lock: &mut GameLock) -> Result<(), GameError> {
        if let Some(e) = lock.commit()? {
            self.warnings.push(cache_warning(e));
        }
        Ok(())
    }

    /// Stage a change under the lock ([`GameLock::stage`]): `change` writes, and what it
    /// wrote is made durable as one when it succeeds, forgotten when it fails (the game is
    /// read again, as the next change would).
    pub(super) fn atomically<T>(
        &mut self,
        lock: &mut GameLock,
        change: impl FnOnce(&mut Self, &mut GameLock) -> Result<T, GameError>,
    ) -> Result<T, GameError> {
        lock.stage();
        let wrote_tag = self.book.wrote_tag();
        match change(self, lock) {
            Ok(done) => {
                self.commit(lock)?;
                Ok(done)
            }
            Err(e) => {
                lock.discard();
                let mut fresh = load(self.dir.clone(), Vec::new())?;
                fresh.book.carry_on(&self.book);
                fresh.book.set_wrote_tag(wrote_tag);
                *self = OpenTurnGame { notes: std::mem::take(&mut self.notes), stamp: None, ..fresh };
                Err(e)
            }
        }
    }

    /// From now on, the inbound message item `tag` is being carried out (`None`: none).
    pub fn carry_out(&mut self, tag: Option<String>) {
        self.book.carry_out(tag);
    }

    /// Whether any journal entry carries out the message item `tag`.
    pub fn has_message(&self, tag: &str) -> bool {
        self.book.has_message(tag)
    }

    pub(super) fn dice(&self) -> Dice {
        Dice::new(self.seed.clone(), &self.settings.name, self.meta.next_roll)
    }
}

#[cfg(test)]
mod tests {
    use super::super::toy;
    use super::*;

    #[test]
    fn a_game_opened_again_is_the_game_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let mut g = toy::game(&dir);
        toy::take(&mut g, 2, 1);
        let again = open(&dir).unwrap();
        assert_eq!(again.game.save(), g.game.save());
        assert_eq!(again.entries.len(), g.entries.len());
        assert_eq!(again.meta.next_roll, g.meta.next_roll);
        assert_eq!(kind_of(&dir).unwrap().as_deref(), Some("pebbles"));
    }

    #[test]
    fn a_message_carried_out_again_is_answered_as_the_first_time_and_kept_once() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let mut g = toy::game(&dir);
        g.carry_out(Some("message-1".into()));
        let seat = Seat::Player(g.game.awaiting().players[0]);
        let first = g.submit(seat, "take 1", toy::at(1), toy::at(1)).unwrap();
        let kept = g.entries.len();
        let mut again = open(&dir).unwrap();
        assert!(again.has_message("message-1"));
        again.carry_out(Some("message-1".into()));
        let second = again.submit(seat, "take 1", toy::at(2), toy::at(2)).unwrap();
        assert_eq!(second.seq, first.seq, "{:?}", second.ack);
        assert_eq!(again.entries.len(), kept);
        assert_eq!(again.game.save(), g.game.save());
    }
}
