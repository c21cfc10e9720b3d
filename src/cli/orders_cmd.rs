//! `shadowjudge orders ...` (placeholder until the foundation lands).
use std::process::ExitCode;

use super::CliError;

#[derive(clap::Subcommand, Debug)]
pub enum OrdersCommand {}

pub fn run(c: OrdersCommand) -> Result<ExitCode, CliError> {
    match c {}
}
