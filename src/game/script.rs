//! Scripted games: an example game as files, played through the same session code the CLI
//! uses. Used by the shipped examples and their replay tests.
//!
//! An example directory holds `example.toml`:
//! ```toml
//! name = "shadow-demo"
//! variant = "shadow-worlds"       # or "standard"
//! players = "players.txt"         # relative to the example directory
//! start = "start.toml"            # optional position file; Spring 1901 otherwise
//! orders = "../../orders/shadow-worlds"  # one folder per phase, named by its code
//! short_game = true               # Shadow Worlds options
//! victory_counts = "distinct"
//! stop_before = "F1904M"          # optional: stop before adjudicating this phase
//! ```
//! The orders folder has one subfolder per phase (`S1901M`, `F1901R`, `W1901A`, ...) with
//! one file per power (`italy.txt`). Phases are played in order: every file is submitted,
//! then the phase is adjudicated (forced, so powers without a file get the defaults). A
//! folder for a phase the game does not reach, or reaches in another order, is an error.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;

use crate::diplomacy::map::Map;
use crate::diplomacy::position::parse_position;
use crate::diplomacy::report::PhaseReport;
use crate::diplomacy::state::GameState;
use crate::diplomacy::variant::shadow::VictoryCounts;
use crate::game::error::GameError;
use crate::game::session::{self, diplomacy::OpenGame};
use crate::game::settings::{parse_players, Settings, VariantKind};
use crate::phase::Phase;
use crate::store;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExampleFile {
    name: String,
    variant: String,
    players: String,
    start: Option<String>,
    orders: String,
    #[serde(default)]
    short_game: bool,
    #[serde(default)]
    victory_counts: Option<VictoryCounts>,
    stop_before: Option<String>,
}

/// What playing a script produced.
pub struct Played {
    pub game: OpenGame,
    pub reports: Vec<PhaseReport>,
}

fn invalid(msg: String) -> GameError {
    GameError::Invalid(msg)
}

/// Play the example in `example_dir` into a new game directory `game_dir`. The clock starts
/// at `start` and moves one day per phase, so the journal is the same on every run.
pub fn play(example_dir: &Path, game_dir: &Path, start: DateTime<Utc>) -> Result<Played, GameError> {
    let read = |p: &Path| store::read_text(p).map_err(|e| invalid(e.to_string()));
    let file = example_dir.join("example.toml");
    let ex: ExampleFile = toml::from_str(&read(&file)?)
        .map_err(|e| invalid(format!("{}: {}", file.display(), e.to_string().trim_end())))?;
    let variant =
        VariantKind::parse(&ex.variant).ok_or_else(|| invalid(format!("unknown variant `{}`", ex.variant)))?;
    let map = Map::standard();
    let mut settings = Settings::new(&ex.name, variant);
    settings.shadow.short_game = ex.short_game;
    settings.shadow.victory_counts = ex.victory_counts.unwrap_or_default();
    let players_path = example_dir.join(&ex.players);
    settings.players =
        parse_players(&read(&players_path)?, &players_path.display().to_string(), &map).map_err(invalid)?;
    let state = match &ex.start {
        None => GameState::start(&map, variant.boards()),
        Some(s) => {
            let path = example_dir.join(s);
            let pos = parse_position(&read(&path)?, &path.display().to_string(), &map, variant.boards())
                .map_err(|e| invalid(e.to_string()))?;
            GameState::from_position(&map, &pos)
        }
    };
    let stop_before: Option<Phase> = match &ex.stop_before {
        Some(p) => Some(p.parse().map_err(|e: crate::phase::PhaseParseError| invalid(e.to_string()))?),
        None => None,
    };
    let orders_dir = example_dir.join(&ex.orders);
    let mut phases: Vec<(Phase, PathBuf)> = Vec::new();
    for path in store::list_dir(&orders_dir).map_err(|e| invalid(e.to_string()))? {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let phase: Phase =
            name.parse().map_err(|_| invalid(format!("{}: `{name}` is not a phase code", orders_dir.display())))?;
        phases.push((phase, path));
    }
    phases.sort();
    let mut now = start;
    let mut game = session::diplomacy::create(game_dir, &settings, state, now)?;
    let mut reports = Vec::new();
    let mut pending = phases.into_iter().peekable();
    while game.game.state.end.is_none() {
        let phase = game.game.state.phase;
        if stop_before == Some(phase) {
            // Submit this phase's orders but leave it for the game master to adjudicate.
            if let Some((p, dir)) = pending.peek() {
                if *p == phase {
                    submit_folder(&mut game, dir, now)?;
                }
            }
            break;
        }
        match pending.peek() {
            Some((p, dir)) if *p == phase => {
                submit_folder(&mut game, dir, now)?;
                pending.next();
            }
            Some((p, _)) if *p < phase => {
                return Err(invalid(format!("orders for {p}, but the game went from there to {phase} without it")));
            }
            None if phase.kind == crate::phase::PhaseKind::Movement => break,
            _ => {}
        }
        now += Duration::days(1);
        reports.push(game.adjudicate(true, now)?);
    }
    if let Some((p, _)) = pending.next().filter(|(p, _)| Some(*p) != stop_before) {
        return Err(invalid(format!("orders for {p}, a phase this game never reached")));
    }
    Ok(Played { game, reports })
}

fn submit_folder(game: &mut OpenGame, dir: &Path, now: DateTime<Utc>) -> Result<(), GameError> {
    let files: Vec<PathBuf> = store::list_dir(dir)
        .map_err(|e| invalid(e.to_string()))?
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    for f in files {
        let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let power = game
            .game
            .map
            .lookup_power(&stem)
            .ok_or_else(|| invalid(format!("{}: no power called `{stem}`", f.display())))?;
        let text = store::read_text(&f).map_err(|e| invalid(e.to_string()))?;
        let text = crate::text::strip_invisible(&text);
        let ack = game.submit(power, &text, false, now)?;
        if !ack.problems.is_empty() {
            let lines: Vec<String> = ack.problems.iter().map(|p| format!("line {}: {}", p.line, p.message)).collect();
            return Err(invalid(format!("{}: {}", f.display(), lines.join("; "))));
        }
    }
    Ok(())
}
