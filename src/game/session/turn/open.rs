//! Opening a turn game: open (taking the lock repairs what a crash left) or read only, the
//! journal made whole, and each entry as the journal keeps it.

use super::*;

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

/// Open a turn game to change it ([`Session::open`]).
pub fn open(path: &Path) -> Result<OpenTurnGame, GameError> {
    Session::open(path)
}

/// Open a turn game only to read it ([`Session::open_read_only`]).
pub fn open_read_only(path: &Path) -> Result<OpenTurnGame, GameError> {
    Session::open_read_only(path)
}

/// Read a turn game: settings, seed, journal (made whole), and the state, replayed from
/// the journal when the cache is behind it.
pub(super) fn load(dir: &GameDir) -> Result<Loaded<TurnKind>, GameError> {
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
    make_whole(dir, &mut entries)?;
    if entries.is_empty() {
        return Err(GameError::Damaged(format!("{}: the journal is empty", dir.path().display())));
    }
    if let Some((seq, _)) = &cached {
        book.check_cache(*seq)?;
    }
    check_players(dir, &settings, &entries)?;
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
    Ok(Loaded { kind: TurnKind { settings, meta, game, entries, seed }, book, cache_behind })
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
pub(super) fn journaled(entries: &[(u64, DateTime<Utc>, TurnEntry)], mut entry: TurnEntry) -> TurnEntry {
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
