//! A game on disk: one session type, [`Session`], over the store for every game kind.
//!
//! A session holds what every game holds: its directory, the journal as the store keeps
//! it ([`Book`]: message tags, appends, owed mail), the notes of repairs made on opening,
//! the warnings of a change made whose cache could not be written, and the files of the
//! tick's glance as they were when it was read. Its jobs exist once, here: open (taking the
//! lock repairs what a crash left, and a `state.json` behind the journal is rewritten from
//! it), read only, relock (another writer may have changed the game), a change made
//! atomically, or once per message (`relocked_once`: a message carried out
//! again after an interruption is answered, not done twice), record, the results owed by
//! mail, the tick's glance; and, for a kind whose settings hold its seats ([`Seated`]),
//! game.toml changed with its particulars journaled, observers, resignations, takeovers.
//!
//! What differs between kinds is the [`Kind`]: its journal entry, what `state.json` holds,
//! and how its state is read back from the journal. Two kinds are kept:
//! - [`diplomacy`]: a Diplomacy game (standard or Shadow Worlds, on any map): its journal of
//!   phases, votes, absences and press;
//! - [`turn`]: every turn game of the registry (Duplexity, Overdue, Duple) with its
//!   verifiable dice.
//!
//! The clock is passed in; nothing here reads it.

pub mod diplomacy;
mod seats;
pub mod turn;

pub use seats::Seated;

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::ops::{Deref, DerefMut};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::game::error::GameError;
use crate::game::glance::{self, Glance};
use crate::game::schedule::DeadlinePolicy;
use crate::store::{
    cache_warning, Book, FileStamp, GameDir, GameLock, MailedFile, MailingOutcome, MailingPlan, Owed, TaskLock,
};

/// The task lock the mailer takes while it mails what a game owes.
pub const MAILING_TASK: &str = "mailing";

/// A game kind as the store keeps it: what it journals, what `state.json` holds, and how
/// the game is read back.
pub trait Kind: Sized + Debug {
    /// One journal entry.
    type Entry: Clone + Debug + Serialize + DeserializeOwned;
    /// What `state.json` holds.
    type Cache: Serialize;

    /// Read the game from `dir` (the glance's stamp is taken before): the kind's part, the
    /// journal, and the journal's last entry when `state.json` was behind it (or missing)
    /// and the state was rebuilt from the journal.
    fn load(dir: &GameDir) -> Result<Loaded<Self>, GameError>;

    /// What `state.json` holds now.
    fn cache(&self) -> &Self::Cache;

    /// Keep `entry`, journaled as `seq` at `at`, in the kind's own list of entries.
    fn keep(&mut self, seq: u64, at: DateTime<Utc>, entry: Self::Entry);

    /// `entry` as the journal writes it (a turn game's state as the difference from the
    /// state before). The entry itself, by default.
    fn journaled(&self, entry: Self::Entry) -> Self::Entry {
        entry
    }

    /// Under a lock just taken: bring the game's side files up to date (Diplomacy records
    /// its map). Nothing, by default.
    fn relocked(&self, _dir: &GameDir, _lock: &GameLock) -> Result<(), GameError> {
        Ok(())
    }

    /// The file that records which owed mail went out: `None`, the store's `mailed.json`,
    /// or the name of an older file a kind used before (read for what it says).
    fn mailed_file() -> Option<&'static str> {
        None
    }

    /// Whether journal entry `entry` owes its results by mail, and under which key (a
    /// Diplomacy phase): `Some(key)`, or `None` when it owes nothing.
    fn owes(entry: &Self::Entry) -> Option<Option<serde_json::Value>>;

    /// The journal seqs a rollback undid (their results are no longer owed).
    fn undone_by_rollback(&self) -> BTreeSet<u64>;
}

/// What a kind says of its game for the tick's glance ([`crate::game::glance::Glance`]);
/// the session adds the stamp of the files it read and whether mail is owed.
pub struct Seen {
    /// The step under way: a phase code (`S1901M`) or a small game's step label.
    pub step: String,
    pub deadline: Option<DateTime<Utc>>,
    pub over: bool,
    /// The seats that still owe their input.
    pub missing: Vec<String>,
    /// The step may go on before its deadline now (early processing).
    pub early: bool,
    pub deadlines: DeadlinePolicy,
}

/// A kind's game as read from its directory.
pub struct Loaded<K: Kind> {
    pub kind: K,
    pub book: Book<K::Entry>,
    /// The journal's last entry, when `state.json` was behind it.
    pub cache_behind: Option<u64>,
}

/// A game opened from its directory: the store's part, and the kind's ([`Session::kept`],
/// reached through `Deref`: `g.game`, `g.entries`).
#[derive(Debug)]
pub struct Session<K: Kind> {
    pub dir: GameDir,
    /// The kind's part: the rules' state and the journal as read.
    pub kept: K,
    /// The journal as the store keeps it: message tags, appends, owed mail.
    book: Book<K::Entry>,
    /// Repairs the store made on opening (print them).
    pub notes: Vec<String>,
    /// What went wrong after a change was made (it is in the journal, so it stands): a
    /// `state.json` that could not be rewritten, rebuilt from the journal at the next
    /// open. Say them as warnings.
    pub warnings: Vec<String>,
    /// The files of the glance ([`crate::game::glance::stamp`]) as they were just before
    /// this game was read (`None` once this session has changed the game).
    pub stamp: Option<Vec<FileStamp>>,
    /// The journal's last entry, when `state.json` was behind it (or missing) and the
    /// state was rebuilt from the journal.
    cache_behind: Option<u64>,
}

impl<K: Kind> Deref for Session<K> {
    type Target = K;
    fn deref(&self) -> &K {
        &self.kept
    }
}

impl<K: Kind> DerefMut for Session<K> {
    fn deref_mut(&mut self) -> &mut K {
        &mut self.kept
    }
}

impl<K: Kind> Session<K> {
    /// Read the game in `dir`; `notes`: repairs already made.
    fn load(dir: GameDir, notes: Vec<String>) -> Result<Session<K>, GameError> {
        // Before anything is read, so a glance kept from this read is never newer than it.
        let stamp = crate::game::glance::stamp(&dir);
        let Loaded { kind, book, cache_behind } = K::load(&dir)?;
        Ok(Session { dir, kept: kind, book, notes, warnings: Vec::new(), stamp, cache_behind })
    }

    /// A session over a game just made (`book` holds its first entries).
    fn made(dir: GameDir, kind: K, mut book: Book<K::Entry>) -> Session<K> {
        let warnings = book.take_warnings();
        Session { dir, kept: kind, book, notes: Vec::new(), warnings, stamp: None, cache_behind: None }
    }

    /// Open a game to change it: taking the lock once repairs what a crash left, and a
    /// `state.json` behind the journal (a write that failed, say on a full disk) is
    /// rewritten from the journal, as for every game.
    pub fn open(path: &Path) -> Result<Session<K>, GameError> {
        let dir = GameDir::open(path)?;
        let notes = dir.recovered().iter().map(|r| r.to_string()).collect();
        let mut g = Self::load(dir, notes)?;
        if let Some(seq) = g.cache_behind.take() {
            match crate::store::repair_state(&g.dir, seq, g.kept.cache()) {
                Ok(note) => g.notes.push(note),
                Err(e) => g.warnings.push(cache_warning(e)),
            }
        }
        Ok(g)
    }

    /// Open a game only to read it: no lock is taken and nothing is written (no recovery
    /// either: an interrupted write is skipped, not repaired).
    pub fn open_read_only(path: &Path) -> Result<Session<K>, GameError> {
        Self::load(GameDir::open_for_reading(path)?, Vec::new())
    }

    /// Take the game's lock and read the game again: another writer may have changed it
    /// since it was read (the fresh read reads the journal once, into a new book).
    pub(crate) fn relock(&mut self) -> Result<GameLock, GameError> {
        let lock = self.dir.lock()?;
        let fresh = Self::load(self.dir.clone(), Vec::new())?;
        self.take_fresh(fresh, self.book.wrote_tag());
        self.kept.relocked(&self.dir, &lock)?;
        Ok(lock)
    }

    /// Take the game as `fresh` read it, carrying on the message being carried out.
    fn take_fresh(&mut self, fresh: Session<K>, wrote_tag: bool) {
        let mut book = fresh.book;
        book.carry_on(&self.book);
        book.set_wrote_tag(wrote_tag);
        self.book = book;
        self.kept = fresh.kept;
        self.stamp = None;
    }

    /// Make `change` one change under `lock` ([`GameLock::stage`]): what it journals and
    /// writes is made durable as one when it succeeds (an interruption after that is
    /// finished by the next lock), forgotten when it fails (the game is read again, as the
    /// next change would).
    pub(crate) fn atomically<T>(
        &mut self,
        lock: &mut GameLock,
        change: impl FnOnce(&mut Self, &mut GameLock) -> Result<T, GameError>,
    ) -> Result<T, GameError> {
        lock.stage();
        let wrote_tag = self.book.wrote_tag();
        match change(self, lock) {
            Ok(done) => {
                self.commit(lock)?;
                Ok(done)
            }
            Err(e) => {
                lock.discard();
                let fresh = Self::load(self.dir.clone(), Vec::new())?;
                self.take_fresh(fresh, wrote_tag);
                Err(e)
            }
        }
    }

    /// [`Session::atomically`] under a lock of its own.
    pub(crate) fn relocked_atomically<T>(
        &mut self,
        change: impl FnOnce(&mut Self, &mut GameLock) -> Result<T, GameError>,
    ) -> Result<T, GameError> {
        let mut lock = self.relock()?;
        self.atomically(&mut lock, change)
    }

    /// Take the lock and make `change`, unless the message being carried out left its
    /// entries before an interruption: then it is answered with `again`, and nothing is
    /// done twice. (The store refuses a second entry for it in any case; this is what its
    /// sender is told the second time.)
    pub(crate) fn relocked_once<T>(
        &mut self,
        again: impl FnOnce(&mut Self) -> T,
        change: impl FnOnce(&mut Self, &mut GameLock) -> Result<T, GameError>,
    ) -> Result<T, GameError> {
        let mut lock = self.relock()?;
        if self.done_before() {
            drop(lock);
            return Ok(again(self));
        }
        change(self, &mut lock)
    }

    /// [`relocked_once`](Self::relocked_once), the change made atomically
    /// ([`atomically`](Self::atomically)).
    pub(crate) fn relocked_once_atomically<T>(
        &mut self,
        again: impl FnOnce(&mut Self) -> T,
        change: impl FnOnce(&mut Self, &mut GameLock) -> Result<T, GameError>,
    ) -> Result<T, GameError> {
        self.relocked_once(again, |g, lock| g.atomically(lock, change))
    }

    /// Make a staged change durable ([`GameLock::commit`]); a cache that could not be
    /// written is a warning.
    pub(crate) fn commit(&mut self, lock: &mut GameLock) -> Result<(), GameError> {
        if let Some(e) = lock.commit()? {
            self.warnings.push(cache_warning(e));
        }
        Ok(())
    }

    /// Journal a change (tagged with the message being carried out), then refresh the
    /// `state.json` cache; the entry's seq. Once the entry is synced the change is made: a
    /// cache that cannot be written (a full disk) is a warning, and the next open rebuilds
    /// it from the journal.
    pub(crate) fn record(
        &mut self,
        lock: &mut GameLock,
        now: DateTime<Utc>,
        entry: K::Entry,
    ) -> Result<u64, GameError> {
        let seq = self.book.record(lock, now, self.kept.journaled(entry.clone()), self.kept.cache())?;
        self.kept.keep(seq, now, entry);
        self.warnings.extend(self.book.take_warnings());
        Ok(seq)
    }

    /// Whether the inbound message item being carried out (the store's message tag)
    /// already left an entry in this game's journal: it was carried out before an
    /// interruption, and its redelivery must not do it twice. Asked in one place,
    /// [`relocked_once`](Self::relocked_once): no change asks it by hand.
    fn done_before(&self) -> bool {
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

    /// Who has had the results owed by mail so far.
    pub fn mailed(&self) -> Result<MailedFile, GameError> {
        Ok(self.book.mailed(K::mailed_file())?)
    }

    /// The journal entries whose results are owed by mail: to everyone, or to the
    /// addresses an earlier mailing could not reach. A rollback's undoing owes nothing.
    fn owed(&self) -> Result<Vec<Owed>, GameError> {
        Ok(self.book.owed(&self.mailed()?, &self.kept.undone_by_rollback(), K::owes)?)
    }

    /// Take the game's mailing task lock (`wait`: until it is free; else `None` when
    /// another mailer holds it).
    pub fn lock_mailing(&self, wait: bool) -> Result<Option<TaskLock>, GameError> {
        Ok(self.dir.lock_task(MAILING_TASK, wait)?)
    }

    /// The key entry `seq` owes its results under, refused for an entry that owes none.
    fn owed_key(&self, seq: u64) -> Result<Option<serde_json::Value>, GameError> {
        self.book
            .get(seq)
            .and_then(|r| K::owes(&r.entry))
            .ok_or_else(|| GameError::Invalid(format!("journal entry {seq} owes no results")))
    }

    /// Before entry `seq`'s results are mailed to `to`: what to send (a mailing cut short
    /// sends again to whom it may not have reached). The mailing's record is read and
    /// written under the game's lock; the game itself is not read again (the entry owing
    /// the mail is the one already read, and nothing else here depends on it).
    pub fn begin_mailing(&mut self, seq: u64, to: &[String], now: DateTime<Utc>) -> Result<MailingPlan, GameError> {
        let lock = self.dir.lock()?;
        let key = self.owed_key(seq)?;
        Ok(self.book.begin_mailing(&lock, seq, key, to, K::mailed_file(), now)?)
    }

    /// What a mailing of entry `seq` did so far (kept if the rest is cut short).
    pub fn note_mailed(&mut self, seq: u64, outcome: &MailingOutcome) -> Result<(), GameError> {
        let lock = self.dir.lock()?;
        Ok(self.book.note_mailing(&lock, seq, outcome, K::mailed_file())?)
    }

    /// Entry `seq`'s results went out: record it, after the transport took the mail (a
    /// crash before sends them again: twice rather than never).
    pub fn record_mailed(&mut self, seq: u64, outcome: &MailingOutcome, now: DateTime<Utc>) -> Result<(), GameError> {
        let lock = self.dir.lock()?;
        let key = self.owed_key(seq)?;
        self.book.record_mailed(&lock, seq, key, outcome, K::mailed_file(), now)?;
        Ok(())
    }

    /// Keep this game's glance for the next tick, if it was read from files that are still
    /// as they were and nobody holds the lock. Only a cache: if it cannot be kept, the next
    /// tick opens the game in full.
    pub fn keep_glance(&self, seen: Seen) {
        let Some(stamp) = &self.stamp else { return };
        let Ok(owed) = self.owed() else { return };
        let Seen { step, deadline, over, missing, early, deadlines } = seen;
        let glance =
            Glance { stamp: stamp.clone(), step, deadline, over, missing, early, owed: !owed.is_empty(), deadlines };
        let _ = glance::keep(&self.dir, &glance);
    }
}
