//! The command line: raw arguments (clap) -> validated settings -> a call into the library.
//!
//! Only this module, `store` and `mail` touch the filesystem, the network or the clock.
//! Every command returns `Result<ExitCode, CliError>`; [`main`] maps errors to exit codes
//! in one place.

mod map_cmd;
mod orders_cmd;
mod resolve_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A play-by-email judge for Shadow Worlds Diplomacy and standard Diplomacy.
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
}

/// An error that ends a command, with the exit code it maps to.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input from the user (a file, an argument): exit 1... reserved for "invalid".
    #[error("{0}")]
    Usage(String),
    /// Input or output failed.
    #[error("{0}")]
    Io(String),
}

impl CliError {
    fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) => ExitCode::from(2),
            CliError::Io(_) => ExitCode::from(3),
        }
    }
}

/// Parse the arguments, run the command, print an error and pick the exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Orders(c) => orders_cmd::run(c),
        Command::Map(c) => map_cmd::run(c),
        Command::Resolve(a) => resolve_cmd::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}
