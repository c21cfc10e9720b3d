//! The glance: what the mail tick needs of an idle game, kept beside it, so that a game
//! with nothing due is passed over without being opened. One for every game: each store
//! stamps its files when it reads them and fills a [`Glance`] from what it read.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::game::schedule::DeadlinePolicy;
use crate::store::{FileStamp, GameDir, StoreError};

/// The side file that lets the mail tick pass over an idle game without opening it.
pub const GLANCE_FILE: &str = "glance.json";

/// The files a [`Glance`] is stamped with: a change to any of them makes it stale. Every
/// game's: a file a game does not have is stamped as absent (so one that appears is a
/// change too).
const STAMPED: [&str; 6] = [
    crate::store::SETTINGS_FILE,
    crate::store::JOURNAL_FILE,
    crate::store::STATE_FILE,
    crate::store::MAILED_FILE,
    crate::store::REPORTED_FILE,
    crate::store::MAP_FILE,
];

/// `glance.json`: what the mail tick needs of a game to see that nothing is due, kept
/// beside it with the stamps of the files it was read from. Only a cache, written under
/// the lock and only while those files are as they were read: any change to the game
/// (journal, state, settings, the record of mail sent) leaves it stale, and a stale glance
/// is never used; the game is opened in full, with every check of a full open.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Glance {
    pub stamp: Vec<FileStamp>,
    /// The step under way: a phase code (`S1901M`) or a small game's step label.
    pub step: String,
    pub deadline: Option<DateTime<Utc>>,
    pub over: bool,
    /// The seats that still owe their input (their names).
    pub missing: Vec<String>,
    /// The step may go on before its deadline now (early processing).
    pub early: bool,
    /// Results or reports are owed by mail.
    pub owed: bool,
    pub deadlines: DeadlinePolicy,
}

/// The game's glance, if it was kept and the game has not changed since. `None` when
/// there is none or it is stale (or unreadable): open the game in full.
pub fn read(path: &Path) -> Option<Glance> {
    let dir = GameDir::open_for_reading(path).ok()?;
    let glance: Glance = dir.read_side(GLANCE_FILE).ok()??;
    (dir.stamp(&STAMPED).ok()? == glance.stamp).then_some(glance)
}

/// The stamps of the glance's files, taken before a store reads any of them (so a glance
/// kept from that read is never newer than it); `None` if they could not be read.
pub fn stamp(dir: &GameDir) -> Option<Vec<FileStamp>> {
    dir.stamp(&STAMPED).ok()
}

/// Keep `glance` (stamped with what its store read) for the next tick, if nobody holds
/// the lock and the game's files are still as they were read; otherwise leave it (the
/// next tick opens the game in full).
pub fn keep(dir: &GameDir, glance: &Glance) -> Result<(), StoreError> {
    let lock = match dir.try_lock() {
        Ok(lock) => lock,
        Err(StoreError::Locked { .. }) => return Ok(()),
        Err(e) => return Err(e),
    };
    if lock.stamp(&STAMPED)? == glance.stamp {
        lock.write_cache_side(GLANCE_FILE, glance)?;
    }
    Ok(())
}
