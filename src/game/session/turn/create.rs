//! A turn game made: its settings checked by a trial setup, its seed kept beside the
//! journal, and its first entry (the setup's rolls and the dice's commitment), for a game
//! made with its players or one whose open seats were all filled ([`super::lobby`]).

use super::*;

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
    let kind = TurnKind { settings: settings.clone(), meta, game, entries: vec![(seq, now, entry)], seed };
    Ok(Session::made(dir, kind, book))
}
