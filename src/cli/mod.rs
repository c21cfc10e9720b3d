//! The command line: raw arguments (clap) -> validated settings -> a call into the library.
//!
//! Only this module, `store` and `mail` touch the filesystem, the network or the clock.
//! Every command returns `Result<ExitCode, CliError>`; [`main`] maps errors to exit codes
//! in one place: 0 done, 1 done with problems (refused orders or lines, a failed
//! `verify`, a tick that could not read a game), 2 bad usage or input, 3 reading or
//! writing failed, 4 not ready (orders missing), 5 a game's files are damaged.

mod game_cmd;
mod mail_cmd;
mod map_cmd;
mod orders_cmd;
mod resolve_cmd;
mod site_cmd;
mod turn_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A play-by-email judge for Shadow Worlds Diplomacy, standard Diplomacy and small
/// turn-file games (Duplexity, Overdue, Duple).
#[derive(Parser, Debug)]
#[command(name = "shadowjudge", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check order files: print each order as understood and each problem with its line.
    #[command(subcommand)]
    Orders(orders_cmd::OrdersCommand),
    /// Show a map: provinces, coasts, neighbours and supply centers.
    #[command(subcommand)]
    Map(map_cmd::MapCommand),
    /// Adjudicate movement phases in batch: JSON Lines in, JSON Lines out.
    Resolve(resolve_cmd::ResolveArgs),
    /// Create a game directory (Diplomacy at Spring 1901 or from a position, or a small
    /// game) and print the first deadline.
    New(Box<game_cmd::NewArgs>),
    /// Every game the judge runs: Diplomacy (`new --variant NAME`) and the small games
    /// (`new --game NAME`), with their seats, options and rulings.
    Games,
    /// The judge's games (name, game, phase and deadline, open seats, vacant powers), or
    /// one game in full: `list --judge J [NAME]`, as `list` by mail.
    List(game_cmd::ListArgs),
    /// Check and keep a power's orders (a later submission replaces earlier ones unit by
    /// unit), or a small game's turn.
    Submit(game_cmd::SubmitArgs),
    /// Adjudicate the current phase (when every power has sent orders, or with --force).
    Adjudicate(game_cmd::AdjudicateArgs),
    /// Show the phase, the deadline, who has sent orders, and centers and units per power
    /// (a small game: its board).
    Status(game_cmd::DirArgs),
    /// List everything the game's journal holds: creation, submissions, results, rollbacks.
    History(game_cmd::DirArgs),
    /// Print the results report of a phase (the last one by default).
    Results(game_cmd::ResultsArgs),
    /// Go back to the start of an earlier phase (journaled: nothing is deleted).
    Rollback(game_cmd::RollbackArgs),
    /// Declare the game drawn between the surviving powers, or record one power's vote.
    Draw(game_cmd::DrawArgs),
    /// Shadow Worlds: the combined ledger of both boards.
    Ledger(game_cmd::DirArgs),
    /// Small games: recompute every roll from the revealed seed and its commitment.
    Verify(game_cmd::VerifyArgs),
    /// Small games: reveal the dice's seed now (it is revealed anyway when the game ends).
    /// Before the end it needs --force: every later roll becomes predictable.
    Reveal(game_cmd::RevealArgs),
    /// Play by email: take messages (ingest, poll), run deadlines (tick), set passwords.
    Mail(mail_cmd::MailArgs),
    /// Write the judge's public web site: every game, its board and its processed phases
    /// (plain HTML and SVG for any web server; nothing secret).
    Site(site_cmd::SiteArgs),
}

/// An error that ends a command, with the exit code it maps to.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input from the user: an argument, a file, a request that cannot be met.
    #[error("{0}")]
    Usage(String),
    /// Reading or writing failed, or a game's files are damaged.
    #[error("{0}")]
    Io(String),
    /// The phase cannot be adjudicated yet.
    #[error("{0}")]
    NotReady(String),
    /// A game's files are damaged: they do not make a game (a torn or edited journal, a
    /// state that does not replay, a map that changed under the game).
    #[error("{0}")]
    Damaged(String),
}

impl CliError {
    fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) => ExitCode::from(2),
            CliError::Io(_) => ExitCode::from(3),
            CliError::NotReady(_) => ExitCode::from(4),
            CliError::Damaged(_) => ExitCode::from(5),
        }
    }
}

/// Parse the arguments, run the command, print an error and pick the exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = fixed_now() {
        eprintln!("error: {e}");
        return e.exit_code();
    }
    let result = match cli.command {
        Command::Orders(c) => orders_cmd::run(c),
        Command::Map(c) => map_cmd::run(c),
        Command::Resolve(a) => resolve_cmd::run(a),
        Command::Games => {
            for kind in crate::games::KINDS {
                println!("{}", kind.help());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::New(mut a) => match a.game.clone() {
            // `--game standard` is `--variant standard`: a game whose seats are powers.
            Some(kind) if crate::games::kind(&kind).is_some_and(|k| k.offers.powers) => {
                a.variant = a.game.take();
                game_cmd::new(*a)
            }
            Some(kind) => turn_cmd::new(*a, &kind),
            None => game_cmd::new(*a),
        },
        Command::List(a) => game_cmd::list(a),
        Command::Submit(a) => game_cmd::submit(a),
        Command::Adjudicate(a) => game_cmd::adjudicate(a),
        Command::Status(a) => game_cmd::status(a),
        Command::History(a) => game_cmd::history(a),
        Command::Results(a) => game_cmd::results(a),
        Command::Rollback(a) => game_cmd::rollback(a),
        Command::Verify(a) => game_cmd::verify(a),
        Command::Reveal(a) => game_cmd::reveal(a),
        Command::Draw(a) => game_cmd::draw(a),
        Command::Ledger(a) => game_cmd::ledger(a),
        Command::Mail(a) => mail_cmd::run(a),
        Command::Site(a) => site_cmd::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}

/// A map by a shipped variant's name (`standard`, `ancmed`) or from a TOML file: the map
/// layer does no IO, so the file is read here.
pub(crate) fn load_map(name_or_path: &str) -> Result<crate::diplomacy::map::Map, crate::diplomacy::map::MapError> {
    use crate::diplomacy::map::{Map, MapError};
    if let Some(map) = crate::diplomacy::map::shipped::map(name_or_path) {
        return Ok((*map).clone());
    }
    if !name_or_path.ends_with(".toml") && !std::path::Path::new(name_or_path).exists() {
        return Err(MapError {
            file: name_or_path.to_string(),
            key: String::new(),
            message: format!(
                "no such map: the shipped maps are {} (or give a map file, NAME.toml)",
                crate::diplomacy::map::shipped::names().join(", ")
            ),
        });
    }
    use std::io::Read;
    let cannot = |e: std::io::Error| MapError {
        file: name_or_path.to_string(),
        key: String::new(),
        message: format!("cannot read the map file: {e}"),
    };
    // One byte past the limit is enough for the loader to refuse it.
    let mut bytes = Vec::new();
    std::fs::File::open(name_or_path)
        .and_then(|f| f.take(crate::diplomacy::map::MAX_MAP_BYTES as u64 + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() > crate::diplomacy::map::MAX_MAP_BYTES {
        return Err(MapError {
            file: name_or_path.to_string(),
            key: String::new(),
            message: format!("a map file may be at most {} KiB", crate::diplomacy::map::MAX_MAP_BYTES / 1024),
        });
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| cannot(std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error())))?;
    Map::from_toml(&text, name_or_path)
}

/// The time `SHADOWJUDGE_NOW` fixes (RFC 3339), for examples and tests; `None` when it is
/// not set. A value that is not a time is refused (checked once, before any command runs),
/// never silently replaced by the real clock.
fn fixed_now() -> Result<Option<chrono::DateTime<chrono::Utc>>, CliError> {
    let Some(value) = std::env::var_os("SHADOWJUDGE_NOW") else {
        return Ok(None);
    };
    let text = value.to_string_lossy();
    chrono::DateTime::parse_from_rfc3339(text.trim()).map(|t| Some(t.with_timezone(&chrono::Utc))).map_err(|_| {
        CliError::Usage(format!(
            "SHADOWJUDGE_NOW is `{text}`, not a time: write it as RFC 3339, e.g. 2026-11-26T18:00:00Z, or unset it"
        ))
    })
}

/// The current time; `SHADOWJUDGE_NOW` (RFC 3339) fixes it, for examples and tests.
pub(crate) fn now() -> chrono::DateTime<chrono::Utc> {
    fixed_now().ok().flatten().unwrap_or_else(chrono::Utc::now)
}

/// Read a file, or standard input for `-` or no file. Invalid UTF-8 is replaced, not fatal;
/// invisible characters (a byte-order mark, zero-width spaces, soft hyphens) are removed.
/// Returns the text and the name to show in messages.
pub(crate) fn read_input(file: Option<&std::path::Path>) -> Result<(String, String), CliError> {
    use std::io::Read;
    let (bytes, name) = match file {
        None => (Vec::new(), "<stdin>".to_string()),
        Some(p) if p.as_os_str() == "-" => (Vec::new(), "<stdin>".to_string()),
        Some(p) => {
            let name = p.display().to_string();
            let bytes = std::fs::read(p).map_err(|e| CliError::Io(format!("{name}: {e}")))?;
            (bytes, name)
        }
    };
    let bytes = if name == "<stdin>" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map_err(|e| CliError::Io(format!("<stdin>: {e}")))?;
        buf
    } else {
        bytes
    };
    Ok((crate::text::strip_invisible(&String::from_utf8_lossy(&bytes)).into_owned(), name))
}
