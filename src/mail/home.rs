//! The judge directory: one directory holds everything a running judge keeps.
//!
//! ```text
//! JUDGE/
//!   judge.toml          [mail] settings (see mail::settings) and [deadlines], the policy
//!                       new games made with `shadowjudge new --judge JUDGE` start with
//!   games/<name>/       one game directory each, as `shadowjudge new` makes them; the
//!                       directory's name is the game's name in SIGNON lines
//!   spool/              every inbound message, kept before it is read (StoreIntake)
//!   claims/             one marker per Message-ID taken, so a message applies once
//!   outbox/             outgoing mail as .eml files (the default `files` transport)
//!   tick.json           what `mail tick` already did per game (reminders, processing)
//!   tick.lock           held while a tick runs, so two ticks never overlap
//!   site.json           with `[site]`: each game's files as the site was last drawn from
//!                       them, and its line on the index (public facts only)
//! ```
//!
//! The mail commands find it with `--judge DIR` or the `SHADOWJUDGE_HOME` variable.
//! This module owns the layout, `judge.toml` and `tick.json`; it never opens a game.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;
use serde::{Deserialize, Serialize};

use crate::game::schedule::DeadlinePolicy;
use crate::mail::deadline::TickLog;
use crate::mail::ingest::StoreIntake;
use crate::mail::settings::{MailSettings, TransportSettings};
use crate::store::write_atomic;

/// The environment variable naming the judge directory when `--judge` is not given.
pub const HOME_VAR: &str = "SHADOWJUDGE_HOME";

/// A judge directory that cannot be used.
/// The judge's log, in the judge directory.
pub const LOG_FILE: &str = "judge.log";

#[derive(Debug, thiserror::Error)]
pub enum HomeError {
    /// The operating system refused a read, write or lock of the judge's own files.
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The store refused to write one of the judge's files (`tick.json`).
    #[error("{}: {source}", .path.display())]
    Store {
        path: PathBuf,
        #[source]
        source: crate::store::StoreError,
    },
    #[error("{}: {message}", .path.display())]
    Config { path: PathBuf, message: String },
    /// The mail layer's own files (the spool, the claims, the owed mail) cannot be
    /// opened.
    #[error("{}: {source}", .path.display())]
    Intake {
        path: PathBuf,
        #[source]
        source: crate::mail::error::MailError,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> HomeError + '_ {
    move |source| HomeError::Io { path: path.to_path_buf(), source }
}

/// Whether `name` can name a game of a judge directory: a SIGNON line can carry it and
/// it stays inside `games/` (1 to 64 ASCII letters, digits, `-`, `_` or `.`, not starting
/// with a dot).
pub fn check_game_name(name: &str) -> Result<(), GameNameError> {
    if name.is_empty() || name.len() > 64 {
        return Err(GameNameError::Length);
    }
    if name.starts_with('.') {
        return Err(GameNameError::Dot);
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
        return Err(GameNameError::Characters);
    }
    Ok(())
}

/// Why a name cannot name a game ([`check_game_name`]), in words for the one who gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameNameError {
    #[error("a game's name has 1 to 64 characters")]
    Length,
    #[error("a game's name cannot start with a dot")]
    Dot,
    #[error("a game's name has only letters, digits, `-`, `_` and `.` (no spaces or slashes)")]
    Characters,
}

/// Why a folder cannot hold the public site ([`JudgeHome::check_site_dir`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SiteDirError {
    /// The site would be, or would hold, the judge directory.
    #[error(
        "{}: the site cannot be or hold the judge directory (a web server would serve the games' files); give a \
         folder of its own",
        .site.display()
    )]
    HoldsTheJudge { site: PathBuf },
    /// The site would be inside one of the judge's own folders.
    #[error("{}: the site cannot go inside the judge's own folder {}; give a folder of its own", .site.display(), .folder.display())]
    InsideTheJudge { site: PathBuf, folder: PathBuf },
}

/// `judge.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeConfig {
    /// Addresses that may open a game by mail (`create NAME variant shadow-worlds`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masters: Vec<String>,
    pub mail: MailSettings,
    /// The deadline policy new games start with (each game keeps its own copy).
    #[serde(default)]
    pub deadlines: DeadlinePolicy,
    /// The public web site `mail tick` keeps up to date, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<SiteSettings>,
}

/// `[site]` in judge.toml: where `mail tick` writes the public site (relative to the
/// judge directory unless absolute); it rewrites the pages of the games that changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteSettings {
    pub dir: PathBuf,
}

/// An opened judge directory: its root and its configuration.
#[derive(Clone, Debug)]
pub struct JudgeHome {
    root: PathBuf,
    pub config: JudgeConfig,
}

/// `path` made absolute with `.` and `..` resolved and the symbolic links of the part
/// that exists followed, so two spellings of one folder compare equal.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut lexical = PathBuf::new();
    for c in absolute.components() {
        match c {
            std::path::Component::ParentDir => {
                lexical.pop();
            }
            std::path::Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match existing.file_name() {
            Some(name) => {
                rest.push(name.to_os_string());
                existing.pop();
            }
            None => break,
        }
    }
    let mut out = std::fs::canonicalize(&existing).unwrap_or(existing);
    out.extend(rest.iter().rev());
    out
}

impl JudgeHome {
    /// Open `root`: read `judge.toml` and make the `files` transport's directory
    /// relative to the judge directory.
    pub fn open(root: &Path) -> Result<JudgeHome, HomeError> {
        let path = root.join("judge.toml");
        let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
        // A setting of the whole judge put under [mail] by mistake: say where it goes.
        if let Ok(table) = text.parse::<toml::Table>() {
            let under_mail = table.get("mail").and_then(|m| m.as_table()).is_some_and(|m| m.contains_key("masters"));
            if under_mail {
                return Err(HomeError::Config {
                    path,
                    message: "`masters` belongs to the whole judge: write it at the top of judge.toml, before [mail]"
                        .into(),
                });
            }
        }
        let mut config: JudgeConfig =
            toml::from_str(&text).map_err(|e| HomeError::Config { path: path.clone(), message: e.to_string() })?;
        config
            .deadlines
            .check()
            .map_err(|e| HomeError::Config { path: path.clone(), message: format!("[deadlines]: {e}") })?;
        if let Some(site) = &mut config.site {
            if site.dir.as_os_str().is_empty() {
                return Err(HomeError::Config { path, message: "[site] dir: give the folder of the site".into() });
            }
            if site.dir.is_relative() {
                site.dir = root.join(&site.dir);
            }
        }
        if let TransportSettings::Files { dir } = &mut config.mail.transport {
            if dir.is_relative() {
                *dir = root.join(&*dir);
            }
        }
        let home = JudgeHome { root: root.to_path_buf(), config };
        if let Some(site) = &home.config.site {
            home.check_site_dir(&site.dir)
                .map_err(|e| HomeError::Config { path, message: format!("[site] dir: {e}") })?;
        }
        Ok(home)
    }

    /// Whether `site` may hold the public site: never the judge directory or a folder
    /// holding it, never inside the judge's own folders (games, spool, claims, the
    /// outbox): a web server would serve what they keep. Paths are resolved first
    /// (`games/..`, `x/../spool`, symbolic links).
    pub fn check_site_dir(&self, site: &Path) -> Result<(), SiteDirError> {
        let root = resolved(&self.root);
        let site = resolved(site);
        if root.starts_with(&site) {
            return Err(SiteDirError::HoldsTheJudge { site });
        }
        let mut own = vec![root.join("games"), root.join("spool"), root.join("claims")];
        if let TransportSettings::Files { dir } = &self.config.mail.transport {
            own.push(resolved(dir));
        }
        if let Some(folder) = own.into_iter().find(|f| site.starts_with(f)) {
            return Err(SiteDirError::InsideTheJudge { site, folder });
        }
        Ok(())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the game directories are.
    pub fn log_path(&self) -> PathBuf {
        self.root.join(LOG_FILE)
    }

    /// Append a line to the judge's log (`judge.log`): what went wrong where a mail
    /// server's pipe shows no output. Best effort: a log that cannot be written is said on
    /// standard error, and nothing else fails for it.
    pub fn log(&self, now: chrono::DateTime<chrono::Utc>, line: &str) {
        JudgeHome::log_at(&self.root, now, line)
    }

    /// [`JudgeHome::log`] for a judge directory that could not be opened.
    pub fn log_at(root: &Path, now: chrono::DateTime<chrono::Utc>, line: &str) {
        use std::io::Write;
        let path = root.join(LOG_FILE);
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| writeln!(f, "{} {}", now.format("%Y-%m-%dT%H:%M:%SZ"), line.replace('\n', " / ")));
        if let Err(e) = written {
            eprintln!("shadowjudge: {}: {e}", path.display());
        }
    }

    pub fn games_dir(&self) -> PathBuf {
        self.root.join("games")
    }

    /// Where a new game called `name` goes: `games/<name>`, if `name` is one that mail
    /// and the tick can reach (see [`check_game_name`]).
    pub fn new_game_dir(&self, name: &Path) -> Result<PathBuf, HomeError> {
        let text = name.to_str().unwrap_or("");
        check_game_name(text).map_err(|message| HomeError::Config {
            path: self.games_dir().join(name),
            message: format!("`{}` cannot be a game's name here: {message}", name.display()),
        })?;
        Ok(self.games_dir().join(text))
    }

    /// The spool and claims (`spool/`, `claims/`).
    pub fn intake(&self) -> Result<StoreIntake, HomeError> {
        StoreIntake::open(&self.root).map_err(|source| HomeError::Intake { path: self.root.clone(), source })
    }

    /// Take the tick lock, waiting for a running tick to finish. Held until dropped.
    pub fn lock_tick(&self) -> Result<TickLock, HomeError> {
        let path = self.root.join("tick.lock");
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io_error(&path))?;
        FileExt::lock_exclusive(&file).map_err(io_error(&path))?;
        Ok(TickLock { _file: file, path: self.root.join("tick.json") })
    }
}

/// The held tick lock; reads and writes `tick.json`.
#[derive(Debug)]
pub struct TickLock {
    _file: File,
    path: PathBuf,
}

impl TickLock {
    /// Every game's tick log (empty when no tick ran yet).
    pub fn read(&self) -> Result<BTreeMap<String, TickLog>, HomeError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| HomeError::Config { path: self.path.clone(), message: e.to_string() }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(io_error(&self.path)(e)),
        }
    }

    /// Replace `tick.json` atomically.
    pub fn write(&self, logs: &BTreeMap<String, TickLog>) -> Result<(), HomeError> {
        let mut bytes = serde_json::to_vec_pretty(logs).expect("tick logs serialize");
        bytes.push(b'\n');
        write_atomic(&self.path, &bytes).map_err(|source| HomeError::Store { path: self.path.clone(), source })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_transport_is_relative_to_the_judge() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
        let home = JudgeHome::open(tmp.path()).unwrap();
        assert_eq!(home.config.mail.transport, TransportSettings::Files { dir: tmp.path().join("outbox") });
        assert_eq!(home.config.deadlines, DeadlinePolicy::default());
    }

    /// Issue 41.4: the README's sample judge.toml opens as written, and `masters` put
    /// under [mail] is refused with where it goes.
    #[test]
    fn the_readmes_judge_toml_opens_and_masters_under_mail_says_where_it_goes() {
        let tmp = tempfile::tempdir().unwrap();
        let readme = include_str!("../../README.md");
        let start = readme.find("```toml\nmasters").expect("the sample judge.toml") + "```toml\n".len();
        let sample = &readme[start..start + readme[start..].find("```").unwrap()];
        std::fs::write(tmp.path().join("judge.toml"), sample).unwrap();
        let home = JudgeHome::open(tmp.path()).unwrap();
        assert_eq!(home.config.masters, ["gm@example.org"]);
        let wrong = "[mail]\naddress = \"judge@example.org\"\nmasters = [\"gm@example.org\"]\n";
        std::fs::write(tmp.path().join("judge.toml"), wrong).unwrap();
        let e = JudgeHome::open(tmp.path()).unwrap_err().to_string();
        assert!(e.contains("write it at the top of judge.toml, before [mail]"), "{e}");
    }

    #[test]
    fn the_site_has_a_folder_of_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let write = |site: &str| {
            let text = format!("[mail]\naddress = \"judge@example.org\"\n[site]\ndir = \"{site}\"\n");
            std::fs::write(tmp.path().join("judge.toml"), text).unwrap();
            JudgeHome::open(tmp.path())
        };
        assert_eq!(write("www").unwrap().config.site, Some(SiteSettings { dir: tmp.path().join("www") }));
        // Issue 42.12: every spelling of the judge's own folders is refused.
        std::fs::create_dir_all(tmp.path().join("games")).unwrap();
        std::fs::create_dir_all(tmp.path().join("x")).unwrap();
        let games_up = format!("{}/games/..", tmp.path().display());
        for bad in [
            ".",
            "",
            "games/x",
            tmp.path().parent().unwrap().to_str().unwrap(),
            &games_up,
            "x/../games",
            "spool",
            "outbox",
            "claims/a",
            "./games",
        ] {
            let e = write(bad).unwrap_err().to_string();
            assert!(e.contains("judge.toml: [site] dir"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_refused_site_folder_or_game_name_is_told_by_its_kind() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
        let home = JudgeHome::open(tmp.path()).unwrap();
        let games = resolved(&home.games_dir());
        match home.check_site_dir(&home.games_dir().join("www")) {
            Err(SiteDirError::InsideTheJudge { folder, .. }) => assert_eq!(folder, games),
            other => panic!("{other:?}"),
        }
        assert!(matches!(home.check_site_dir(tmp.path()), Err(SiteDirError::HoldsTheJudge { .. })));
        assert!(home.check_site_dir(&tmp.path().join("www")).is_ok());
        assert_eq!(check_game_name(""), Err(GameNameError::Length));
        assert_eq!(check_game_name(".hidden"), Err(GameNameError::Dot));
        assert_eq!(check_game_name("a/b"), Err(GameNameError::Characters));
        assert_eq!(GameNameError::Dot.to_string(), "a game's name cannot start with a dot");
    }

    #[test]
    fn a_judge_without_judge_toml_is_an_io_error_naming_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let e = JudgeHome::open(tmp.path()).unwrap_err();
        let toml = tmp.path().join("judge.toml");
        match &e {
            HomeError::Io { path, source } => {
                assert_eq!((path, source.kind()), (&toml, std::io::ErrorKind::NotFound));
            }
            other => panic!("{other:?}"),
        }
        assert!(e.to_string().starts_with(&format!("{}: ", toml.display())), "{e}");
    }

    #[test]
    fn tick_logs_round_trip() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
        let home = JudgeHome::open(tmp.path()).unwrap();
        let lock = home.lock_tick().unwrap();
        assert!(lock.read().unwrap().is_empty());
        let mut logs = BTreeMap::new();
        logs.insert("g".to_string(), TickLog { phase: "S1901M".into(), processed: true, ..TickLog::default() });
        lock.write(&logs).unwrap();
        assert_eq!(lock.read().unwrap(), logs);
    }
}
