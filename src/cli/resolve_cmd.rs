//! `shadowjudge resolve` (placeholder until movement adjudication lands).
use std::process::ExitCode;

use super::CliError;

#[derive(clap::Args, Debug)]
pub struct ResolveArgs {}

pub fn run(_a: ResolveArgs) -> Result<ExitCode, CliError> {
    Err(CliError::Usage("resolve is not built yet".into()))
}
