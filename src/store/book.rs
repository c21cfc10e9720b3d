//! [`Book`]: the one journaled store under every game, whatever it plays.
//!
//! A game keeps its own entry type `E` and its own state; the book keeps what every game
//! needs of a journal, written once:
//! - the journal's records, read again under the lock before every change (another writer
//!   may have changed the game since it was read);
//! - the inbound message being carried out ([`Book::carry_out`]): every entry appended
//!   meanwhile is tagged with it, and [`Book::done_before`] tells a message carried out
//!   again after a crash what it already did, so nothing is applied twice;
//! - the append, then the `state.json` cache, whose failure (a full disk) is only a
//!   warning once the entry is synced;
//! - a cache ahead of the journal is refused ([`Book::check_cache`]): the journal was cut;
//! - the results owed by mail (`mailed.json`): which journaled steps are owed to whom,
//!   less those a rollback undid, and what each mailing did; and the mark of a mailing
//!   under way ([`Sending`]), written before any of it is handed to the transport, so
//!   that results a mailing was interrupted in (a crash, a full disk) go out at most once
//!   more.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{GameDir, GameLock, Record, StoreError, JOURNAL_FILE, STATE_FILE};

/// The record of what was mailed, beside the journal.
pub const MAILED_FILE: &str = "mailed.json";

/// `mailed.json`: for each journal entry whose results were mailed (by seq), who had them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MailedFile {
    #[serde(default)]
    pub results: BTreeMap<u64, Mailed>,
    /// The mailing under way: written before its mails go to the transport, cleared with
    /// the record of what it did (one write). Found later, it proves an attempt whose
    /// outcome was never recorded. Absent from older files and between mailings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sending: Option<Sending>,
}

/// The mark of one entry's results being mailed (see [`Book::begin_mailing`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sending {
    /// The entry whose results are being mailed.
    pub seq: u64,
    /// What the entry is about, as in [`Mailed::phase`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<serde_json::Value>,
    /// When the mailing began.
    pub at: DateTime<Utc>,
    /// The addresses mailed for the first time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to: Vec<String>,
    /// The addresses mailed a second time: an earlier mailing to them was interrupted
    /// before its outcome was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub again: Vec<String>,
    /// Addresses this mailing is done with, noted after each send: the transport took
    /// the mail, or refused the address for good. Never sent again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub done: Vec<String>,
    /// Addresses the transport failed for this time: still owed, sent as for the first
    /// time by the next mailing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
}

/// What a mailing may do, address by address, given the mark an interrupted one left
/// (see [`Book::begin_mailing`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MailingPlan {
    /// Addresses to mail for the first time.
    pub send: Vec<String>,
    /// Addresses an interrupted mailing may or may not have reached: mailed once more.
    pub again: Vec<String>,
    /// Addresses two interrupted mailings may have reached: not mailed a third time, and
    /// recorded as mailed.
    pub taken_as_sent: Vec<String>,
}

/// What became of one entry's results.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mailed {
    /// What the entry was about, as the game names it (Diplomacy: the phase); checked
    /// against the journal, so a record never counts for another entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<serde_json::Value>,
    /// When they were last mailed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<DateTime<Utc>>,
    /// The addresses the transport took them for.
    #[serde(default)]
    pub to: Vec<String>,
    /// Addresses still owed them: the transport failed and may not next time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retry: Vec<String>,
    /// Addresses no mail can be built for (not an address); not tried again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undeliverable: Vec<String>,
}

/// What one mailing of an entry's results did, address by address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MailingOutcome {
    pub sent: Vec<String>,
    pub retry: Vec<String>,
    pub undeliverable: Vec<String>,
}

/// An entry whose results are still owed: to everyone who receives them (`only_to` is
/// `None`), or to the addresses an earlier mailing failed for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owed {
    pub seq: u64,
    pub only_to: Option<Vec<String>>,
}

/// A game's journal, with what every game needs of it (see the module notes).
#[derive(Debug, Clone)]
pub struct Book<E> {
    dir: GameDir,
    records: Vec<Record<E>>,
    messages: HashSet<String>,
    carrying_out: Option<String>,
    /// This carrying-out of the message item has journaled an entry (a change may make
    /// several under one tag; what the item left *before* it began is what counts).
    wrote_tag: bool,
    warnings: Vec<String>,
}

impl<E: Serialize + DeserializeOwned> Book<E> {
    /// Read the journal of `dir` (without taking the lock).
    pub fn read(dir: GameDir) -> Result<Book<E>, StoreError> {
        let records = dir.journal::<E>()?.into_records();
        let messages = records.iter().filter_map(|r| r.msg.clone()).collect();
        Ok(Book { dir, records, messages, carrying_out: None, wrote_tag: false, warnings: Vec::new() })
    }

    /// Take the game's lock and read the journal again under it: another writer may have
    /// changed the game since it was read. The message being carried out stays.
    pub fn lock(&mut self) -> Result<GameLock, StoreError> {
        let lock = self.dir.lock()?;
        let fresh = Book::<E>::read(self.dir.clone())?;
        self.records = fresh.records;
        self.messages = fresh.messages;
        Ok(lock)
    }

    /// Refuse a `state.json` written after journal entry `cached_seq` when the journal
    /// ends before it: the journal was cut short, and anything built on it would lose
    /// acknowledged changes.
    pub fn check_cache(&self, cached_seq: u64) -> Result<(), StoreError> {
        if cached_seq > self.last_seq() {
            return Err(StoreError::JournalCutShort {
                state: self.dir.file(STATE_FILE),
                journal: self.dir.file(JOURNAL_FILE),
                state_seq: cached_seq,
                journal_seq: self.last_seq(),
            });
        }
        Ok(())
    }

    /// Journal `entry` (tagged with the message being carried out), then write `state`
    /// as the cache. Once the entry is synced the change is made: a cache that cannot be
    /// written is a warning ([`Book::take_warnings`]), and the next open replays the journal.
    ///
    /// Exactly once is kept here: an entry for a message item that had left one before
    /// this carrying-out began ([`Book::done_before`]) is refused
    /// ([`StoreError::CarriedOut`]), whatever the caller checked.
    pub fn record<S: Serialize>(
        &mut self,
        lock: &mut GameLock,
        at: DateTime<Utc>,
        entry: E,
        state: &S,
    ) -> Result<u64, StoreError> {
        let msg = self.carrying_out.clone();
        if let (Some(tag), true) = (&msg, self.done_before()) {
            return Err(StoreError::CarriedOut { path: self.dir.path().join(JOURNAL_FILE), tag: tag.clone() });
        }
        let seq = lock.append_tagged(at, &entry, msg.as_deref())?;
        if let Some(tag) = &msg {
            self.messages.insert(tag.clone());
            self.wrote_tag = true;
        }
        self.records.push(Record { seq, at, entry, msg });
        if let Err(e) = lock.write_state(seq, state) {
            self.warnings.push(cache_warning(e));
        }
        Ok(seq)
    }
}

/// The warning for a `state.json` that could not be written after a change was made.
/// Rewrite `state.json` of the game in `dir`, found behind its journal (or missing) when
/// the game was opened, from `state` as the journal up to `seq` rebuilt it: every game's
/// repair on open, under the lock. `Ok`: the note to print; a failure is only a warning
/// ([`cache_warning`]): the next open rebuilds it again.
pub fn repair_state<T: serde::Serialize>(dir: &GameDir, seq: u64, state: &T) -> Result<String, StoreError> {
    let mut lock = dir.lock()?;
    lock.write_state(seq, state)?;
    Ok(format!("{}: was behind the journal; rebuilt from it", dir.path().join(STATE_FILE).display()))
}

pub fn cache_warning(e: StoreError) -> String {
    format!(
        "{e}. The change itself is made (it is in the journal); {STATE_FILE} is only a copy and is rebuilt from the \
         journal the next time the game is opened"
    )
}

impl<E> Book<E> {
    /// The game's directory.
    pub fn dir(&self) -> &GameDir {
        &self.dir
    }

    /// Every record, in seq order (record `i` has seq `i + 1`).
    pub fn records(&self) -> &[Record<E>] {
        &self.records
    }

    /// The record of entry `seq`.
    pub fn get(&self, seq: u64) -> Option<&Record<E>> {
        self.records.get(usize::try_from(seq).ok()?.checked_sub(1)?)
    }

    /// The seq of the last record, 0 for none.
    pub fn last_seq(&self) -> u64 {
        self.records.len() as u64
    }

    /// From now on, the inbound message item `tag` is being carried out (`None`: none):
    /// the entries appended are tagged with it.
    pub fn carry_out(&mut self, tag: Option<String>) {
        self.carrying_out = tag;
        self.wrote_tag = false;
    }

    /// Go on carrying out the message item `other` is carrying out: a book read afresh
    /// (under the lock) takes over from the one it replaces, with what that one wrote.
    pub fn carry_on(&mut self, other: &Book<E>) {
        self.carrying_out = other.carrying_out.clone();
        self.wrote_tag = other.wrote_tag;
    }

    /// Whether this carrying-out has journaled anything yet.
    pub fn wrote_tag(&self) -> bool {
        self.wrote_tag
    }

    /// Undo what [`wrote_tag`](Self::wrote_tag) says, for a staged change that was
    /// forgotten ([`GameLock::discard`]).
    pub fn set_wrote_tag(&mut self, wrote: bool) {
        self.wrote_tag = wrote;
    }

    /// The message item being carried out, if any.
    pub fn carrying_out(&self) -> Option<&str> {
        self.carrying_out.as_deref()
    }

    /// Whether the message item being carried out had already left an entry in the
    /// journal when this carrying-out began: it was carried out before an interruption,
    /// and must not be done twice.
    pub fn done_before(&self) -> bool {
        !self.wrote_tag && self.carrying_out.as_ref().is_some_and(|tag| self.messages.contains(tag))
    }

    /// The record the message item being carried out left before, if it did.
    pub fn left_before(&self) -> Option<&Record<E>> {
        let tag = self.carrying_out.as_deref()?;
        self.records.iter().find(|r| r.msg.as_deref() == Some(tag))
    }

    /// Whether any entry carries out the message item `tag`.
    pub fn has_message(&self, tag: &str) -> bool {
        self.messages.contains(tag)
    }

    /// What went wrong after a change was made (it stands), since the last call: say
    /// them as warnings.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// What `mailed.json` says was mailed (empty when nothing ever was). `legacy`: an
    /// older side file of the same records, read when `mailed.json` is missing.
    pub fn mailed(&self, legacy: Option<&str>) -> Result<MailedFile, StoreError> {
        if let Some(file) = self.dir.read_side::<MailedFile>(MAILED_FILE)? {
            return Ok(file);
        }
        let Some(name) = legacy else { return Ok(MailedFile::default()) };
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Old {
            #[serde(default)]
            mailed: BTreeMap<u64, Mailed>,
        }
        Ok(self
            .dir
            .read_side::<Old>(name)?
            .map(|old| MailedFile { results: old.mailed, sending: None })
            .unwrap_or_default())
    }

    /// The entries whose results are owed by mail, oldest first. `about` says, for each
    /// record, whether its results go by mail and what they are about (checked against
    /// what `mailed.json` recorded for that seq); `undone` are the seqs a rollback undid:
    /// never owed, whatever was mailed of them.
    pub fn owed(
        &self,
        mailed: &MailedFile,
        undone: &BTreeSet<u64>,
        about: impl Fn(&E) -> Option<Option<serde_json::Value>>,
    ) -> Result<Vec<Owed>, StoreError> {
        let mut owed = Vec::new();
        for r in &self.records {
            let Some(what) = about(&r.entry) else { continue };
            if undone.contains(&r.seq) {
                continue;
            }
            let only_to = match mailed.results.get(&r.seq) {
                None => None,
                Some(done) if what.is_some() && done.phase.is_some() && done.phase != what => {
                    return Err(StoreError::corrupt(
                        self.dir.file(MAILED_FILE),
                        None,
                        format!(
                            "the results of entry {} are recorded for {}, but the journal has {} there",
                            r.seq,
                            done.phase.as_ref().map(|v| v.to_string()).unwrap_or_default(),
                            what.as_ref().map(|v| v.to_string()).unwrap_or_default()
                        ),
                    ))
                }
                Some(done) if done.retry.is_empty() => continue,
                Some(done) => Some(done.retry.clone()),
            };
            owed.push(Owed { seq: r.seq, only_to });
        }
        Ok(owed)
    }

    /// Before mailing the results of entry `seq` (about `what`) to `to`: write, durably and
    /// under the game's lock, the mark that the mailing is under way ([`Sending`]), and say
    /// what may be sent. Nothing may be sent unless this succeeds (a full disk): what
    /// cannot be marked could not be recorded either, and would go out again.
    ///
    /// A mark left for the same entry by an earlier mailing means it was interrupted after
    /// the mark and before its record: its mails may or may not have gone out, and nothing
    /// proves which. The choice made here: an address it marked is mailed once more
    /// ([`MailingPlan::again`]), and one it marked as mailed again already is taken as sent
    /// ([`MailingPlan::taken_as_sent`]). So no address gets the same results more than
    /// twice, however often mailings are cut short, and none gets them never unless two
    /// attempts were both cut short before the transport took them.
    #[allow(clippy::too_many_arguments)]
    pub fn begin_mailing(
        &self,
        lock: &GameLock,
        seq: u64,
        what: Option<serde_json::Value>,
        to: &[String],
        legacy: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<MailingPlan, StoreError> {
        let mut mailed = self.mailed(legacy)?;
        let earlier = mailed.sending.take().filter(|s| s.seq == seq && (s.phase.is_none() || s.phase == what));
        let has = |list: &[String], a: &str| list.iter().any(|h| h.eq_ignore_ascii_case(a));
        let mut plan = MailingPlan::default();
        for a in to {
            match &earlier {
                // What the interrupted mailing noted: done with, or failed (still owed).
                Some(e) if has(&e.done, a) => plan.taken_as_sent.push(a.clone()),
                Some(e) if has(&e.failed, a) => plan.send.push(a.clone()),
                Some(e) if has(&e.again, a) => plan.taken_as_sent.push(a.clone()),
                Some(e) if has(&e.to, a) => plan.again.push(a.clone()),
                _ => plan.send.push(a.clone()),
            }
        }
        mailed.sending = Some(Sending {
            seq,
            phase: what,
            at: now,
            to: plan.send.clone(),
            again: plan.again.clone(),
            done: Vec::new(),
            failed: Vec::new(),
        });
        lock.write_side(MAILED_FILE, &mailed)?;
        Ok(plan)
    }

    /// Note in the mark of the mailing of entry `seq`, after each send, what it did so
    /// far: cut short after this (a crash, a disk that fills before the record), the next
    /// mailing sends again only to the addresses it had not finished with, not to all.
    pub fn note_mailing(
        &self,
        lock: &GameLock,
        seq: u64,
        outcome: &MailingOutcome,
        legacy: Option<&str>,
    ) -> Result<(), StoreError> {
        let mut mailed = self.mailed(legacy)?;
        let Some(sending) = mailed.sending.as_mut().filter(|s| s.seq == seq) else { return Ok(()) };
        sending.done = outcome.sent.iter().chain(&outcome.undeliverable).cloned().collect();
        sending.failed = outcome.retry.clone();
        lock.write_side(MAILED_FILE, &mailed)
    }

    /// Record in `mailed.json`, under the game's lock, what mailing the results of entry
    /// `seq` (about `what`) did: addresses to retry stay owed; the rest are done. The mark
    /// of the mailing under way goes in the same write.
    pub fn record_mailed(
        &self,
        lock: &GameLock,
        seq: u64,
        what: Option<serde_json::Value>,
        outcome: &MailingOutcome,
        legacy: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut mailed = self.mailed(legacy)?;
        mailed.sending = None;
        let record = mailed.results.entry(seq).or_insert_with(|| Mailed { phase: what, ..Mailed::default() });
        // A retry that reached no one changes nothing but the mark.
        if record.at.is_none() || !outcome.sent.is_empty() || !outcome.undeliverable.is_empty() {
            record.at = Some(now);
        }
        let done = |a: &String| outcome.sent.iter().chain(&outcome.undeliverable).any(|s| s.eq_ignore_ascii_case(a));
        record.retry.retain(|a| !done(a));
        for a in &outcome.retry {
            if !record.retry.iter().any(|r| r.eq_ignore_ascii_case(a)) {
                record.retry.push(a.clone());
            }
        }
        for (list, new) in [(&mut record.to, &outcome.sent), (&mut record.undeliverable, &outcome.undeliverable)] {
            for a in new {
                if !list.iter().any(|h| h.eq_ignore_ascii_case(a)) {
                    list.push(a.clone());
                }
            }
        }
        lock.write_side(MAILED_FILE, &mailed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    enum Toy {
        Add(i64),
        Undo,
    }

    fn t(s: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, s).unwrap()
    }

    fn book(dir: &std::path::Path) -> Book<Toy> {
        let d = GameDir::create(dir, &toml::toml! { name = "toy" }).unwrap();
        Book::read(d).unwrap()
    }

    #[test]
    fn a_message_carried_out_again_is_seen_as_done() {
        let tmp = tempfile::tempdir().unwrap();
        let mut b = book(&tmp.path().join("g"));
        b.carry_out(Some("m1.1".into()));
        assert!(!b.done_before());
        let mut lock = b.lock().unwrap();
        b.record(&mut lock, t(1), Toy::Add(3), &3).unwrap();
        drop(lock);
        // A second process reads the game afresh and carries out the same message.
        let mut again: Book<Toy> = Book::read(GameDir::open(tmp.path().join("g")).unwrap()).unwrap();
        again.carry_out(Some("m1.1".into()));
        assert!(again.done_before());
        assert_eq!(again.left_before().map(|r| r.seq), Some(1));
        again.carry_out(Some("m1.2".into()));
        assert!(!again.done_before());
        assert!(again.left_before().is_none());
    }

    /// The store keeps exactly once itself: called twice with one message tag, the
    /// second carrying-out journals nothing, though its caller did not check; a change of
    /// several entries under one tag is one carrying-out.
    #[test]
    fn a_second_carrying_out_of_one_tag_is_refused_by_the_store() {
        let tmp = tempfile::tempdir().unwrap();
        let mut b = book(&tmp.path().join("g"));
        b.carry_out(Some("m1.1".into()));
        let mut lock = b.lock().unwrap();
        b.record(&mut lock, t(1), Toy::Add(3), &3).unwrap();
        b.record(&mut lock, t(1), Toy::Add(4), &7).unwrap();
        drop(lock);
        let mut again: Book<Toy> = Book::read(GameDir::open(tmp.path().join("g")).unwrap()).unwrap();
        again.carry_out(Some("m1.1".into()));
        let mut lock = again.lock().unwrap();
        let refused = again.record(&mut lock, t(2), Toy::Add(3), &10);
        assert!(matches!(&refused, Err(StoreError::CarriedOut { tag, .. }) if tag == "m1.1"), "{refused:?}");
        // The same book, reading the journal again under the lock, still refuses it.
        drop(lock);
        let mut lock = again.lock().unwrap();
        assert!(again.record(&mut lock, t(2), Toy::Add(3), &10).is_err());
        // Another message item is journaled; so is an entry with no message.
        again.carry_out(Some("m2.1".into()));
        again.record(&mut lock, t(3), Toy::Undo, &3).unwrap();
        again.carry_out(None);
        again.record(&mut lock, t(4), Toy::Undo, &0).unwrap();
        drop(lock);
        let journal: Book<Toy> = Book::read(GameDir::open(tmp.path().join("g")).unwrap()).unwrap();
        assert_eq!(journal.last_seq(), 4);
        // A book read afresh that carries on from the one that wrote goes on writing.
        let mut first: Book<Toy> = Book::read(GameDir::open(tmp.path().join("g")).unwrap()).unwrap();
        first.carry_out(Some("m3.1".into()));
        let mut lock = first.lock().unwrap();
        first.record(&mut lock, t(5), Toy::Add(1), &1).unwrap();
        drop(lock);
        let mut fresh: Book<Toy> = Book::read(GameDir::open(tmp.path().join("g")).unwrap()).unwrap();
        fresh.carry_on(&first);
        let mut lock = fresh.lock().unwrap();
        fresh.record(&mut lock, t(5), Toy::Add(1), &2).unwrap();
        drop(lock);
        // Without what the first wrote, the same tag is one carried out before.
        let mut other: Book<Toy> = Book::read(GameDir::open(tmp.path().join("g")).unwrap()).unwrap();
        other.carry_out(Some("m3.1".into()));
        assert!(other.done_before());
    }

    #[test]
    fn lock_reads_what_another_writer_appended() {
        let tmp = tempfile::tempdir().unwrap();
        let mut a = book(&tmp.path().join("g"));
        let mut b: Book<Toy> = Book::read(GameDir::open(tmp.path().join("g")).unwrap()).unwrap();
        let mut lock = b.lock().unwrap();
        b.record(&mut lock, t(1), Toy::Add(1), &1).unwrap();
        drop(lock);
        assert_eq!(a.last_seq(), 0);
        let mut lock = a.lock().unwrap();
        assert_eq!(a.last_seq(), 1);
        assert_eq!(a.record(&mut lock, t(2), Toy::Add(2), &3).unwrap(), 2);
        assert_eq!(a.records()[1].entry, Toy::Add(2));
    }

    #[test]
    fn a_cache_ahead_of_the_journal_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let mut b = book(&tmp.path().join("g"));
        let mut lock = b.lock().unwrap();
        b.record(&mut lock, t(1), Toy::Add(1), &1).unwrap();
        drop(lock);
        assert!(b.check_cache(1).is_ok());
        let err = b.check_cache(5).unwrap_err().to_string();
        assert!(err.contains("follows journal entry 5") && err.contains("ends at entry 1"), "{err}");
        assert!(err.contains("cut short"), "{err}");
    }

    #[test]
    fn owed_results_less_what_was_mailed_and_what_a_rollback_undid() {
        let tmp = tempfile::tempdir().unwrap();
        let mut b = book(&tmp.path().join("g"));
        let mut lock = b.lock().unwrap();
        for (i, e) in [Toy::Add(1), Toy::Add(2), Toy::Undo, Toy::Add(4)].into_iter().enumerate() {
            b.record(&mut lock, t(i as u32), e, &0).unwrap();
        }
        let about = |e: &Toy| matches!(e, Toy::Add(_)).then_some(None);
        let seqs = |owed: Vec<Owed>| owed.into_iter().map(|o| (o.seq, o.only_to)).collect::<Vec<_>>();
        let undone = BTreeSet::from([2]);
        let mailed = b.mailed(None).unwrap();
        assert_eq!(seqs(b.owed(&mailed, &undone, about).unwrap()), [(1, None), (4, None)]);
        let outcome = MailingOutcome { sent: vec!["a@x".into()], retry: vec!["b@x".into()], undeliverable: vec![] };
        b.record_mailed(&lock, 1, None, &outcome, None, t(9)).unwrap();
        let mailed = b.mailed(None).unwrap();
        assert_eq!(seqs(b.owed(&mailed, &undone, about).unwrap()), [(1, Some(vec!["b@x".into()])), (4, None)]);
        let outcome = MailingOutcome { sent: vec!["B@x".into()], ..MailingOutcome::default() };
        b.record_mailed(&lock, 1, None, &outcome, None, t(10)).unwrap();
        let mailed = b.mailed(None).unwrap();
        assert_eq!(seqs(b.owed(&mailed, &undone, about).unwrap()), [(4, None)]);
        assert_eq!(mailed.results[&1].to, ["a@x", "B@x"]);
    }

    #[test]
    fn a_record_for_another_entry_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let mut b = book(&tmp.path().join("g"));
        let mut lock = b.lock().unwrap();
        b.record(&mut lock, t(1), Toy::Add(1), &0).unwrap();
        let outcome = MailingOutcome { sent: vec!["a@x".into()], ..MailingOutcome::default() };
        b.record_mailed(&lock, 1, Some("S1901M".into()), &outcome, None, t(2)).unwrap();
        let mailed = b.mailed(None).unwrap();
        let err = b.owed(&mailed, &BTreeSet::new(), |_| Some(Some("F1901M".into()))).unwrap_err().to_string();
        assert!(err.contains("recorded for \"S1901M\"") && err.contains("\"F1901M\""), "{err}");
    }

    /// Issue 42.13: a mailing notes each send in its mark; cut short before its record (a
    /// disk that filled), the next sends only to the address it had not finished with and
    /// to the one the transport failed for, never again to those it reached.
    #[test]
    fn a_mailing_cut_short_after_its_notes_sends_only_to_the_rest() {
        let tmp = tempfile::tempdir().unwrap();
        let mut b = book(&tmp.path().join("g"));
        let mut lock = b.lock().unwrap();
        b.record(&mut lock, t(1), Toy::Add(1), &0).unwrap();
        let to = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let all = to(&["a@x", "b@x", "c@x", "d@x"]);
        b.begin_mailing(&lock, 1, None, &all, None, t(2)).unwrap();
        let so_far = MailingOutcome { sent: to(&["a@x"]), retry: to(&["b@x"]), undeliverable: to(&["c@x"]) };
        b.note_mailing(&lock, 1, &so_far, None).unwrap();
        // d@x was being sent when it stopped: it may have had it, so once more; b@x failed:
        // sent as new; a@x and c@x are done with.
        let plan = b.begin_mailing(&lock, 1, None, &all, None, t(3)).unwrap();
        assert_eq!(plan.taken_as_sent, to(&["a@x", "c@x"]));
        assert_eq!(plan.send, to(&["b@x"]));
        assert_eq!(plan.again, to(&["d@x"]));
    }

    #[test]
    fn a_mailing_cut_short_sends_once_more_then_takes_its_addresses_as_mailed() {
        let tmp = tempfile::tempdir().unwrap();
        let mut b = book(&tmp.path().join("g"));
        let mut lock = b.lock().unwrap();
        b.record(&mut lock, t(1), Toy::Add(1), &0).unwrap();
        let to = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let plan = b.begin_mailing(&lock, 1, None, &to(&["a@x", "b@x"]), None, t(2)).unwrap();
        assert_eq!(plan.send, ["a@x", "b@x"]);
        assert!(plan.again.is_empty() && plan.taken_as_sent.is_empty());
        let mark = b.mailed(None).unwrap().sending.unwrap();
        assert_eq!((mark.seq, mark.to.len()), (1, 2));
        // Cut short (no record): the marked addresses once more, a new one as new.
        let plan = b.begin_mailing(&lock, 1, None, &to(&["A@x", "b@x", "c@x"]), None, t(3)).unwrap();
        assert_eq!((plan.again, plan.send), (to(&["A@x", "b@x"]), to(&["c@x"])));
        // Cut short again: those mailed twice are taken as mailed.
        let plan = b.begin_mailing(&lock, 1, None, &to(&["a@x", "b@x", "c@x"]), None, t(4)).unwrap();
        assert_eq!((plan.taken_as_sent, plan.again, plan.send), (to(&["a@x", "b@x"]), to(&["c@x"]), vec![]));
        let outcome = MailingOutcome { sent: to(&["a@x", "b@x", "c@x"]), ..MailingOutcome::default() };
        b.record_mailed(&lock, 1, None, &outcome, None, t(5)).unwrap();
        let mailed = b.mailed(None).unwrap();
        assert!(mailed.sending.is_none());
        // Without a mark left, a later mailing (another entry) starts afresh.
        b.record(&mut lock, t(6), Toy::Add(2), &0).unwrap();
        let plan = b.begin_mailing(&lock, 2, None, &to(&["a@x"]), None, t(7)).unwrap();
        assert_eq!(plan.send, ["a@x"]);
    }

    #[test]
    fn a_mark_for_another_entry_counts_for_nothing_and_files_without_a_mark_read_as_before() {
        let tmp = tempfile::tempdir().unwrap();
        let b = book(&tmp.path().join("g"));
        let old = r#"{"results":{"1":{"at":"2026-01-01T00:00:00Z","to":["a@x"]}}}"#;
        std::fs::write(tmp.path().join("g/mailed.json"), old).unwrap();
        let mailed = b.mailed(None).unwrap();
        assert!(mailed.sending.is_none());
        assert!(!serde_json::to_string(&mailed).unwrap().contains("sending"));
        let lock = b.dir().lock().unwrap();
        let a = vec!["a@x".to_string()];
        b.begin_mailing(&lock, 2, Some("S1901M".into()), &a, None, t(1)).unwrap();
        let plan = b.begin_mailing(&lock, 3, None, &a, None, t(2)).unwrap();
        assert_eq!(plan.send, a);
        let plan = b.begin_mailing(&lock, 3, Some("F1901M".into()), &a, None, t(3)).unwrap();
        assert_eq!(plan.again, a, "a mark without what it is about counts for its entry");
        b.begin_mailing(&lock, 4, Some("S1902M".into()), &a, None, t(4)).unwrap();
        let plan = b.begin_mailing(&lock, 4, Some("F1902M".into()), &a, None, t(5)).unwrap();
        assert_eq!(plan.send, a, "a mark about another phase counts for nothing");
    }

    #[test]
    fn an_older_record_file_is_read_when_mailed_json_is_missing() {
        let tmp = tempfile::tempdir().unwrap();
        let b = book(&tmp.path().join("g"));
        std::fs::write(tmp.path().join("g/reported.json"), r#"{"mailed":{"1":{"to":["a@x"],"retry":["b@x"]}}}"#)
            .unwrap();
        let mailed = b.mailed(Some("reported.json")).unwrap();
        assert_eq!(mailed.results[&1].retry, ["b@x"]);
        assert!(b.mailed(None).unwrap().results.is_empty());
    }
}
