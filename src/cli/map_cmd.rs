//! `shadowjudge map ...` (placeholder until the foundation lands).
use std::process::ExitCode;

use super::CliError;

#[derive(clap::Subcommand, Debug)]
pub enum MapCommand {}

pub fn run(c: MapCommand) -> Result<ExitCode, CliError> {
    match c {}
}
