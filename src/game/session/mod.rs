//! A Diplomacy game on disk: the engine over the store.
//!
//! Every change takes the game's lock, appends a journal entry (durable before anything is
//! acknowledged), then rewrites the state cache. Loading reads the state cache and, when
//! the journal has entries the cache lacks (a crash between the two writes), replays them.
//! The clock is passed in; nothing here reads it.
//!
//! # Results owed by mail
//! An adjudication made for the mail judge ([`OpenGame::adjudicate_to_mail`]) is journaled
//! with `mail_results`, which makes its results owed to every player, observer and the
//! master. The side file `mailed.json` ([`MailedFile`]) records, per adjudication (its
//! journal seq), who has had them; [`OpenGame::results_owed`] is the journal minus that
//! file. The mailer takes the game's `mailing` task lock, mails what is owed, and records
//! it with [`OpenGame::record_results_mailed`] only after the transport took the mail: a
//! crash in between sends them again (twice rather than never). Adjudications without the
//! flag (older journals, `shadowjudge adjudicate`) owe nothing, and one a rollback undid
//! is no longer owed.
//!
//! One file a job: `open` (create, open and load a game, its map), `orders` (orders kept,
//! the preview), `adjudicate` (a phase adjudicated: forced, early, for mail; missed phases
//! and vacant powers), `rollback`, `votes` (draws and concessions), `absence` (absences
//! and the deadlines they move), `deadlines` (late extensions, the deadline set, waits),
//! `press`, `particulars` (game.toml changed, players' particulars journaled), `owed`
//! (results owed by mail), `glance` (the tick's cache of an idle game) and `seats`.

use chrono::{DateTime, Utc};

use self::open::load;
use crate::diplomacy::engine::Game;
use crate::diplomacy::report::PhaseReport;
use crate::game::journal::{self, Entry};
use crate::store::{Book, FileStamp, GameDir, GameLock};

mod absence;
mod adjudicate;
mod deadlines;
mod glance;
mod open;
mod orders;
mod owed;
mod particulars;
mod press;
mod rollback;
mod seats;
mod votes;

pub use self::absence::Absence;
pub use self::deadlines::LateExtension;
pub use self::open::{create, open, open_read_only, MapRecord, MAP_FILE};
pub use self::owed::{OwedResults, MAILING_TASK};
pub use self::seats::{Joined, Started};
pub use crate::game::error::GameError;
pub use crate::store::{MailedFile, MailingOutcome, MailingPlan, MAILED_FILE};

/// A game opened from its directory.
#[derive(Debug)]
pub struct OpenGame {
    pub dir: GameDir,
    pub game: Game,
    pub entries: Vec<Entry>,
    /// Repairs the store made on opening (print them).
    pub notes: Vec<String>,
    /// What went wrong after a change was made (it is in the journal, so it stands): a
    /// `state.json` that could not be rewritten. Say them as warnings.
    pub warnings: Vec<String>,
    /// The journal's last entry, when `state.json` was behind it (or missing) and the
    /// position was rebuilt from the journal.
    cache_behind: Option<u64>,
    /// The journal as the store keeps it: message tags, appends, owed mail.
    book: Book<Entry>,
    /// The files of the glance ([`crate::game::glance::stamp`]) as they were just before this
    /// game was read (`None` once this `OpenGame` has changed the game, or if they could not
    /// be read).
    stamp: Option<Vec<FileStamp>>,
}

fn schedule_error(e: crate::game::schedule::DeadlineError) -> GameError {
    GameError::Invalid(format!("game.toml [deadlines.schedule]: {e}"))
}

impl OpenGame {
    fn relock(&mut self) -> Result<GameLock, GameError> {
        let lock = self.dir.lock()?;
        // Another writer may have changed the game since it was read: read it again (the
        // fresh load reads the journal once, into a new book).
        let mut fresh = load(self.dir.clone(), Vec::new())?;
        self.game = fresh.game;
        self.entries = fresh.entries;
        fresh.book.carry_on(&self.book);
        self.book = fresh.book;
        self.stamp = None;
        if self.dir.read_side::<MapRecord>(MAP_FILE)?.is_none() {
            let record = MapRecord { map: self.game.settings.map.clone(), fingerprint: self.game.map.id_fingerprint() };
            lock.write_side(MAP_FILE, &record)?;
        }
        Ok(lock)
    }

    /// Take the lock and make `change` one change ([`GameLock::stage`]): what it journals
    /// and writes is made durable as one when it succeeds (an interruption after that is
    /// finished by the next lock), forgotten when it fails (the game is read again).
    fn atomically<T>(
        &mut self,
        change: impl FnOnce(&mut Self, &mut GameLock) -> Result<T, GameError>,
    ) -> Result<T, GameError> {
        let mut lock = self.relock()?;
        lock.stage();
        let wrote_tag = self.book.wrote_tag();
        match change(self, &mut lock) {
            Ok(done) => {
                if let Some(e) = lock.commit()? {
                    self.warnings.push(crate::store::cache_warning(e));
                }
                Ok(done)
            }
            Err(e) => {
                lock.discard();
                drop(lock);
                let mut fresh = load(self.dir.clone(), Vec::new())?;
                fresh.book.carry_on(&self.book);
                fresh.book.set_wrote_tag(wrote_tag);
                self.game = fresh.game;
                self.entries = fresh.entries;
                self.book = fresh.book;
                self.stamp = None;
                Err(e)
            }
        }
    }

    /// Whether the inbound message item being carried out (the store's message tag)
    /// already left an entry in this game's journal: it was carried out before an
    /// interruption, and its redelivery must not do it twice.
    pub fn done_before(&self) -> bool {
        self.book.done_before()
    }

    /// From now on, the inbound message item `tag` is being carried out (`None`: none):
    /// what this game journals is tagged with it.
    pub fn carry_out(&mut self, tag: Option<String>) {
        self.book.carry_out(tag);
    }

    /// Whether any journal entry carries out the message item `tag`.
    pub fn has_message(&self, tag: &str) -> bool {
        self.book.has_message(tag)
    }

    /// Journal a change, then refresh the `state.json` cache. Once the entry is synced
    /// the change is made: a cache that cannot be written (a full disk) is a warning, and
    /// the next open rebuilds it from the journal.
    fn record(&mut self, lock: &mut GameLock, now: DateTime<Utc>, entry: Entry) -> Result<(), GameError> {
        self.book.record(lock, now, entry.clone(), &self.game.state)?;
        self.entries.push(entry);
        self.warnings.extend(self.book.take_warnings());
        Ok(())
    }

    /// Every adjudication report so far (rolled-back phases included, in journal order).
    pub fn reports(&self) -> Vec<&PhaseReport> {
        journal::reports(&self.entries).collect()
    }
}
