//! The public site on disk: `shadowjudge site` writes it whole, `mail tick` (with `[site]`
//! in judge.toml) rewrites only the games whose files changed since it last drew them.
//!
//! What was drawn from which files is kept in `site.json` in the judge directory: each
//! game's `game.toml` and journal as they were (length, time, inode) and its line on the
//! index. An idle game costs the tick two `stat`s; the index is written again from those
//! lines, without opening a game.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::game::any::{self, GameError, PublicGame};
use crate::site::{game_folder, index_page, stylesheet, IndexRow, SiteFile, SiteWriter};
use crate::store::{JOURNAL_FILE, SETTINGS_FILE};

/// The record of the site the tick keeps, in the judge directory.
pub const SITE_RECORD: &str = "site.json";

/// What a run wrote, and the games it could not read (each with why).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SiteRun {
    /// Games drawn (again) by this run.
    pub drawn: Vec<String>,
    /// Games on the index.
    pub games: usize,
    pub files: usize,
    pub problems: Vec<String>,
}

/// Why the site could not be written: the file it was about and the cause, in those words.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// The operating system refused a read, write, rename or removal.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The record of the site (`site.json`) could not be written as JSON.
    #[error("{}: {source}", path.display())]
    Encode {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> SiteError + '_ {
    move |source| SiteError::Io { path: path.to_path_buf(), source }
}

/// Write one file of the site under `out`: a temporary file renamed over the old one, so
/// a web server never serves half a page.
fn write_file(out: &Path, file: &SiteFile) -> Result<PathBuf, SiteError> {
    let path = out.join(&file.path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&tmp, &file.bytes).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))?;
    Ok(path)
}

/// Write a game's files, then remove the pages and pictures of its folder that it no
/// longer has (steps undone by a rollback).
fn write_game(out: &Path, folder: &str, files: &[SiteFile]) -> Result<usize, SiteError> {
    let mut kept = BTreeSet::new();
    for f in files {
        kept.insert(write_file(out, f)?);
    }
    let dir = out.join(folder);
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.filter_map(Result::ok) {
            let path = e.path();
            let ours = path.extension().is_some_and(|x| x == "html" || x == "svg");
            if ours && !kept.contains(&path) {
                std::fs::remove_file(&path).map_err(io(&path))?;
            }
        }
    }
    Ok(files.len())
}

/// Remove what the site shows of games no longer on the judge: the pages and pictures of
/// every folder under `games/` that is not in `keep`, then the folder if it is left empty.
/// Only our own kinds of files are removed; anything else put there stays.
fn remove_gone(out: &Path, keep: &BTreeSet<String>) -> Result<(), SiteError> {
    let base = out.join("games");
    let Ok(entries) = std::fs::read_dir(&base) else {
        return Ok(());
    };
    for e in entries.filter_map(Result::ok) {
        let dir = e.path();
        let folder = format!("games/{}", e.file_name().to_string_lossy());
        if !dir.is_dir() || keep.contains(&folder) {
            continue;
        }
        write_game(out, &folder, &[])?;
        // Not empty (someone's own files): it stays.
        let _ = std::fs::remove_dir(&dir);
    }
    Ok(())
}

/// The games of `games_dir`, by directory name, sorted.
fn game_names(games_dir: &Path) -> Result<Vec<String>, SiteError> {
    let entries = match std::fs::read_dir(games_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(games_dir)(e)),
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| super::plausible_name(n))
        .collect();
    names.sort();
    Ok(names)
}

/// Open a game to read its public part.
fn public_of(path: &Path) -> Result<PublicGame, GameError> {
    any::open_read_only(path).map(|g| g.public())
}

/// Write the whole site of the games under `games_dir` into `out`.
pub fn write_site(games_dir: &Path, out: &Path) -> Result<SiteRun, SiteError> {
    let mut run = SiteRun::default();
    let mut writer = SiteWriter::new();
    let mut rows = Vec::new();
    // Every game on the judge keeps its folder, drawn now or not (its last pages stay).
    let mut present = BTreeSet::new();
    for name in game_names(games_dir)? {
        let path = games_dir.join(&name);
        if !path.join(SETTINGS_FILE).is_file() {
            continue;
        }
        present.insert(game_folder(&name));
        match public_of(&path) {
            Ok(g) => {
                let (files, row) = writer.game(&name, &g);
                run.files += write_game(out, &game_folder(&name), &files)?;
                rows.push(row);
                run.drawn.push(name);
            }
            Err(e) => run.problems.push(format!("{name}: not drawn: {e}")),
        }
    }
    run.games = rows.len();
    remove_gone(out, &present)?;
    for f in [index_page(&rows), stylesheet()] {
        write_file(out, &f)?;
        run.files += 1;
    }
    Ok(run)
}

/// A file as it was: length, modification time (ns), inode; `None`: missing.
type Stamp = Option<(u64, i64, u64)>;

fn stamp(path: &Path) -> Stamp {
    let m = std::fs::metadata(path).ok()?;
    let ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(-1, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let inode = 0;
    Some((m.len(), ns, inode))
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Record {
    /// The site's folder these lines were written to.
    out: PathBuf,
    games: BTreeMap<String, Drawn>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Drawn {
    /// game.toml and the journal as they were when the game was drawn.
    files: [Stamp; 2],
    row: IndexRow,
}

/// `mail tick`'s part: draw again the games whose game.toml or journal changed since the
/// last run (every game the first time, or when the site's folder moved or lost its
/// index), then the index if any line changed. `record` is the judge's `site.json`.
pub fn refresh_site(games_dir: &Path, out: &Path, record: &Path) -> Result<SiteRun, SiteError> {
    let mut old: Record = std::fs::read(record).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    if old.out != out || !out.join("index.html").is_file() {
        old = Record { out: out.to_path_buf(), games: BTreeMap::new() };
    }
    let mut new = Record { out: out.to_path_buf(), games: BTreeMap::new() };
    let mut run = SiteRun::default();
    let mut writer = SiteWriter::new();
    let mut changed = old.games.is_empty();
    for name in game_names(games_dir)? {
        let path = games_dir.join(&name);
        let files = [stamp(&path.join(SETTINGS_FILE)), stamp(&path.join(JOURNAL_FILE))];
        if files[0].is_none() {
            continue;
        }
        let prev = old.games.remove(&name);
        if let Some(d) = prev.as_ref().filter(|d| d.files == files) {
            new.games.insert(name, d.clone());
            continue;
        }
        changed = true;
        match public_of(&path) {
            Ok(g) => {
                let (f, row) = writer.game(&name, &g);
                run.files += write_game(out, &game_folder(&name), &f)?;
                new.games.insert(name.clone(), Drawn { files, row });
                run.drawn.push(name);
            }
            Err(e) => {
                run.problems.push(format!("{name}: not drawn: {e}"));
                // Its last pages stay; the next tick tries again.
                if let Some(mut d) = prev {
                    d.files = [None, None];
                    new.games.insert(name, d);
                }
            }
        }
    }
    // Games gone since the last run: their pages go too.
    if !old.games.is_empty() {
        changed = true;
        remove_gone(out, &new.games.keys().map(|n| game_folder(n)).collect())?;
    }
    run.games = new.games.len();
    if changed {
        let rows: Vec<IndexRow> = new.games.values().map(|d| d.row.clone()).collect();
        for f in [index_page(&rows), stylesheet()] {
            write_file(out, &f)?;
            run.files += 1;
        }
        let bytes =
            serde_json::to_vec(&new).map_err(|source| SiteError::Encode { path: record.to_path_buf(), source })?;
        let tmp = record.with_extension("json.tmp");
        std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
        std::fs::rename(&tmp, record).map_err(io(record))?;
    }
    Ok(run)
}
