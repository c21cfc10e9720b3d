//! `shadowjudge site`: the judge's public web site, written whole.

use std::path::PathBuf;
use std::process::ExitCode;

use super::CliError;
use crate::host::site::write_site;
use crate::mail::home::JudgeHome;

#[derive(clap::Args, Debug)]
pub struct SiteArgs {
    /// The judge directory (judge.toml, games/); default: $SHADOWJUDGE_HOME.
    #[arg(long, value_name = "DIR")]
    judge: Option<PathBuf>,
    /// The folder to write the site to (made if missing); default: `[site] dir` of
    /// judge.toml.
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    out: Option<PathBuf>,
}

pub fn run(a: SiteArgs) -> Result<ExitCode, CliError> {
    let root = super::mail_cmd::judge_dir(a.judge)?;
    let home = JudgeHome::open(&root).map_err(|e| CliError::Io(e.to_string()))?;
    let out = match (a.out, &home.config.site) {
        (Some(out), _) => out,
        (None, Some(site)) => site.dir.clone(),
        (None, None) => {
            return Err(CliError::Usage("where to? give -o DIR, or set `[site] dir` in judge.toml".to_string()))
        }
    };
    home.check_site_dir(&out).map_err(|e| CliError::Usage(e.to_string()))?;
    std::fs::create_dir_all(&out).map_err(|e| CliError::Io(format!("{}: {e}", out.display())))?;
    let run = write_site(&home.games_dir(), &out).map_err(|e| CliError::Io(e.to_string()))?;
    for p in &run.problems {
        eprintln!("warning: {p}");
    }
    println!(
        "{}: {} in {}.",
        out.display(),
        crate::text::count(run.games, "game", "games"),
        crate::text::count(run.files, "file", "files")
    );
    Ok(if run.problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
