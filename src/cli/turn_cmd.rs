//! `new` for the small games (Duplexity and the others of [`crate::games`]): their
//! players, options and dice seed. Every other game command is the same for every game
//! (`game_cmd`, through [`crate::game::any`]).

use std::process::ExitCode;

use super::game_cmd::{game_error, NewArgs, NewGame};
use super::{now, CliError};
use crate::dice::Seed;
use crate::game::any;
use crate::game::any::{parse_turn_players, TurnSettings};
use crate::game::settings::Master;
use crate::games::Options;

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
        return Err(CliError::Usage(format!("unknown game `{kind}`: the judge runs {}", crate::games::names())));
    }
    let new = NewGame::read(&a)?;
    let name = new.name.clone();
    let players = parse_turn_players(&new.players, &new.players_file).map_err(CliError::Usage)?;
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
    let settings = TurnSettings {
        name: name.clone(),
        game: kind.clone(),
        observers: a.observer.clone(),
        observer_passwords: Default::default(),
        deadlines: new.deadlines.clone().unwrap_or_default(),
        players,
        master: Master { email: a.master.clone(), ..Master::default() },
        word_list: None,
        seats: Default::default(),
    };
    let dir = new.dir()?;
    if a.open {
        return new_open(&dir, settings, &a, &options, seed);
    }
    let players: Vec<String> = settings.players.iter().map(|p| p.name.clone()).collect();
    let new = any::NewGame::Turn { settings: &settings, options: &options, seed, open_seats: None };
    let g = any::create(&dir, new, now()).map_err(game_error)?;
    println!("Created {name} ({kind}) in {}.", dir.display());
    println!("Players: {}.", players.join(", "));
    println!("Dice commitment (sha256 of the secret seed): {}", g.commitment.unwrap_or_default());
    // What the setup rolled (in Duplexity: who places first).
    for e in &g.setup {
        println!("{e}");
    }
    println!();
    print!("{}", g.report.unwrap_or_default());
    Ok(ExitCode::SUCCESS)
}

/// `new --open --game KIND`: a small game whose players join by mail.
fn new_open(
    dir: &std::path::Path,
    settings: TurnSettings,
    a: &NewArgs,
    options: &Options,
    seed: Seed,
) -> Result<ExitCode, CliError> {
    let kind = settings.game.clone();
    let size = a.seats.map_or_else(|| crate::games::kind(&kind).map_or(2, |k| k.players.0), usize::from);
    let name = settings.name.clone();
    let new = any::NewGame::Turn { settings: &settings, options, seed, open_seats: Some(size) };
    let g = any::create(dir, new, now()).map_err(game_error)?;
    println!("Created {name} ({kind}) in {}, with {size} open seats.", dir.display());
    println!(
        "Players join by mail with `join {name} PASSWORD`; the game begins by itself when the last seat is \
         filled (players seated in the order they joined, each named by their address), and no deadline runs \
         until then."
    );
    println!("Dice commitment (sha256 of the secret seed): {}", g.commitment.unwrap_or_default());
    Ok(ExitCode::SUCCESS)
}
