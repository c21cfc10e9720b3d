//! The glance: what the mail tick needs of an idle game, kept beside it, so that a game
//! with nothing due is passed over without being opened.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::open::MAP_FILE;
use super::{GameError, OpenGame, MAILED_FILE};
use crate::game::schedule::DeadlinePolicy;
use crate::phase::Phase;
use crate::store::{FileStamp, GameDir, StoreError};

/// The side file that lets the mail tick pass over an idle game without opening it.
pub const GLANCE_FILE: &str = "glance.json";

/// The files a [`Glance`] is stamped with: a change to any of them makes it stale.
pub(super) const GLANCE_STAMPED: [&str; 5] =
    [crate::store::SETTINGS_FILE, crate::store::JOURNAL_FILE, crate::store::STATE_FILE, MAILED_FILE, MAP_FILE];

/// `glance.json`: what the mail tick needs of a game to see that nothing is due, kept
/// beside it with the stamps of the files it was read from. Only a cache, written under
/// the lock and only while those files are as they were read: any change to the game
/// (journal, state, settings, `mailed.json`) leaves it stale, and a stale glance is never
/// used; the game is opened in full, with every check of a full open.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Glance {
    pub stamp: Vec<FileStamp>,
    pub phase: Phase,
    pub deadline: Option<DateTime<Utc>>,
    pub over: bool,
    /// The powers that still owe complete orders (their names).
    pub missing: Vec<String>,
    /// The phase may be processed early now ([`OpenGame::may_process_early`]).
    pub early: bool,
    /// Results are owed by mail ([`OpenGame::results_owed`]).
    pub owed: bool,
    pub deadlines: DeadlinePolicy,
}

/// The game's glance, if it was kept and the game has not changed since. `None` when
/// there is none or it is stale (or unreadable): open the game in full.
pub fn read_glance(path: &Path) -> Option<Glance> {
    let dir = GameDir::open_for_reading(path).ok()?;
    let glance: Glance = dir.read_side(GLANCE_FILE).ok()??;
    (dir.stamp(&GLANCE_STAMPED).ok()? == glance.stamp).then_some(glance)
}

impl OpenGame {
    /// Keep this game's [`Glance`] (`missing`: the powers that owe orders) for the next
    /// tick, if nobody holds the lock and the game's files are still as they were read;
    /// otherwise leave it (the next tick opens the game in full).
    pub fn keep_glance(&self, missing: Vec<String>) -> Result<(), GameError> {
        let Some(stamp) = &self.stamp else { return Ok(()) };
        let state = &self.game.state;
        let glance = Glance {
            stamp: stamp.clone(),
            phase: state.phase,
            deadline: state.deadline,
            over: state.end.is_some(),
            missing,
            early: self.may_process_early(state.phase),
            owed: !self.results_owed()?.is_empty(),
            deadlines: self.game.settings.deadlines.clone(),
        };
        let lock = match self.dir.try_lock() {
            Ok(lock) => lock,
            Err(StoreError::Locked { .. }) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        if lock.stamp(&GLANCE_STAMPED)? == *stamp {
            lock.write_cache_side(GLANCE_FILE, &glance)?;
        }
        Ok(())
    }
}
