//! Mail the judge owes (`JUDGE/owed/`): every mail it sends that is not a phase's results
//! (those are owed in the game's own journal) is written here durably, one batch per
//! message or command, before the first attempt to send it; a batch is rewritten as its
//! mails go out and removed when none is left. `mail tick` sends whatever is still owed,
//! so a mail server that is down, or a crash, delays mail but never loses it.
//!
//! A mail the server refuses for good (SMTP 5xx), or whose address is not one, is not
//! tried again: its address is marked failing in `failing.json` and the caller tells the
//! game's master, once per address (until a mail to it goes through again). It holds back
//! no other mail.
//!
//! Senders take `owed/.sending` exclusively, so two runs never send the same batch. A
//! crash after a mail went out and before its batch was rewritten sends it once more at
//! the next run: twice, never not at all.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use fs4::fs_std::FileExt;
use serde::{Deserialize, Serialize};

use crate::mail::error::MailError;
use crate::mail::reply::OutgoingMail;
use crate::mail::send::SendError;
use crate::store::{write_atomic, Spool, SpoolId};

/// The directory under the judge directory.
pub const OWED_DIR: &str = "owed";
/// The addresses whose mail was refused for good, in the judge directory.
pub const FAILING_FILE: &str = "failing.json";

/// One batch file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Batch {
    mails: Vec<OutgoingMail>,
}

/// An address the mail server refused for good.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failing {
    pub since: DateTime<Utc>,
    pub reason: String,
}

/// What one sending run did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Delivery {
    /// Mails the transport took.
    pub sent: usize,
    /// Mails still owed (a temporary failure): the next run tries them again.
    pub waiting: usize,
    /// Mails refused for good: (address, why). They are not owed any more.
    pub refused: Vec<(String, String)>,
    /// Addresses marked failing by this run (not failing before): their games' masters
    /// are to be told.
    pub newly_failing: Vec<(String, String)>,
}

/// The owed mail of one judge directory.
#[derive(Debug, Clone)]
pub struct Owed {
    spool: Spool,
    failing: PathBuf,
}

impl Owed {
    /// Open (creating it if missing) `root/owed`.
    pub fn open(root: &Path) -> Result<Owed, MailError> {
        let spool = Spool::open(root.join(OWED_DIR))?;
        Ok(Owed { spool, failing: root.join(FAILING_FILE) })
    }

    /// Owe `mails`, in one durable write. `Ok` means they will go out even after a crash.
    /// The batch's id (to send it now), or `None` when there is nothing to owe.
    pub fn owe(&self, now: DateTime<Utc>, mails: &[OutgoingMail]) -> Result<Option<SpoolId>, MailError> {
        if mails.is_empty() {
            return Ok(None);
        }
        let bytes = serde_json::to_vec(&Batch { mails: mails.to_vec() }).map_err(MailError::Encode)?;
        Ok(Some(self.spool.put(now, &bytes)?))
    }

    /// How many mails are owed now.
    pub fn count(&self) -> Result<usize, MailError> {
        let mut n = 0;
        for id in self.spool.list()? {
            n += self.read(&id)?.map_or(0, |b| b.mails.len());
        }
        Ok(n)
    }

    /// The addresses marked failing.
    pub fn failing(&self) -> Result<BTreeMap<String, Failing>, MailError> {
        match std::fs::read(&self.failing) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(MailError::damaged(&self.failing)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(MailError::io(&self.failing)(e)),
        }
    }

    fn read(&self, id: &SpoolId) -> Result<Option<Batch>, MailError> {
        let path = self.spool.path_of(id);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(MailError::damaged(&path)),
            // Sent and removed by another run since it was listed.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(MailError::io(&path)(e)),
        }
    }

    /// Send the batches `only` names (every owed batch when `None`), oldest first, each
    /// mail through `send`; keep what failed for a while, drop what was refused for good.
    /// Waits for another run that is sending.
    pub fn send(
        &self,
        only: Option<&[SpoolId]>,
        now: DateTime<Utc>,
        send: &mut dyn FnMut(&OutgoingMail) -> Result<(), SendError>,
    ) -> Result<Delivery, MailError> {
        let lock = self.lock()?;
        let ids = match only {
            Some(ids) => ids.to_vec(),
            None => self.spool.list()?,
        };
        let mut delivery = Delivery::default();
        let mut went_through: Vec<String> = Vec::new();
        for id in ids {
            let Some(batch) = self.read(&id)? else { continue };
            let before = batch.mails.len();
            let mut keep = Vec::new();
            for mail in batch.mails {
                match send(&mail) {
                    Ok(()) => {
                        delivery.sent += 1;
                        went_through.push(mail.to.to_ascii_lowercase());
                    }
                    Err(e) if e.is_permanent() => delivery.refused.push((mail.to.clone(), e.to_string())),
                    Err(_) => keep.push(mail),
                }
            }
            delivery.waiting += keep.len();
            if keep.is_empty() {
                self.spool.remove(&id)?;
            } else if keep.len() < before {
                let bytes = serde_json::to_vec(&Batch { mails: keep }).map_err(MailError::Encode)?;
                write_atomic(&self.spool.path_of(&id), &bytes)?;
            }
        }
        delivery.newly_failing = self.note_failing(&delivery.refused, &went_through, now)?;
        drop(lock);
        Ok(delivery)
    }

    /// Record refusals of mail sent elsewhere (the results mailing) in `failing.json`; the
    /// ones whose address was not failing before.
    pub fn note_refusals(
        &self,
        refused: &[(String, String)],
        now: DateTime<Utc>,
    ) -> Result<Vec<(String, String)>, MailError> {
        if refused.is_empty() {
            return Ok(Vec::new());
        }
        let _lock = self.lock()?;
        self.note_failing(refused, &[], now)
    }

    /// Take `owed/.sending`, waiting for another run that holds it.
    fn lock(&self) -> Result<std::fs::File, MailError> {
        let lock_path = self.spool.path().join(".sending");
        let lock = crate::store::open_private(&lock_path).map_err(MailError::io(&lock_path))?;
        FileExt::lock_exclusive(&lock).map_err(MailError::io(&lock_path))?;
        Ok(lock)
    }

    /// Record refusals in `failing.json` (and clear addresses that took mail again);
    /// the refusals whose address was not failing before.
    fn note_failing(
        &self,
        refused: &[(String, String)],
        went_through: &[String],
        now: DateTime<Utc>,
    ) -> Result<Vec<(String, String)>, MailError> {
        let mut failing = self.failing()?;
        let before = failing.clone();
        let mut newly = Vec::new();
        for (address, reason) in refused {
            let key = address.to_ascii_lowercase();
            if let std::collections::btree_map::Entry::Vacant(e) = failing.entry(key) {
                e.insert(Failing { since: now, reason: reason.clone() });
                newly.push((address.clone(), reason.clone()));
            }
        }
        failing.retain(|address, _| {
            !went_through.contains(address) || refused.iter().any(|(a, _)| a.eq_ignore_ascii_case(address))
        });
        if failing != before {
            let mut bytes = serde_json::to_vec_pretty(&failing).map_err(MailError::Encode)?;
            bytes.push(b'\n');
            write_atomic(&self.failing, &bytes)?;
        }
        Ok(newly)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::reply::MailKind;

    fn mail(to: &str) -> OutgoingMail {
        OutgoingMail {
            to: to.into(),
            subject: "s".into(),
            body: "b".into(),
            in_reply_to: None,
            references: Vec::new(),
            kind: MailKind::Generated,
            attachments: Vec::new(),
        }
    }

    #[test]
    fn owed_mail_stays_until_sent_and_a_refusal_is_noted_once() {
        let dir = tempfile::tempdir().unwrap();
        let owed = Owed::open(dir.path()).unwrap();
        let now = Utc::now();
        owed.owe(now, &[mail("a@x.org"), mail("bad@x.org"), mail("c@x.org")]).unwrap();
        assert_eq!(owed.count().unwrap(), 3);
        let mut down = |m: &OutgoingMail| {
            if m.to == "bad@x.org" {
                Err(SendError::Refused("550 no such user".into()))
            } else {
                Err(SendError::Send("connection refused".into()))
            }
        };
        let d = owed.send(None, now, &mut down).unwrap();
        assert_eq!((d.sent, d.waiting, d.refused.len(), d.newly_failing.len()), (0, 2, 1, 1));
        assert_eq!(owed.count().unwrap(), 2, "the refused mail is not owed any more");
        assert!(owed.failing().unwrap().contains_key("bad@x.org"));
        owed.owe(now, &[mail("bad@x.org")]).unwrap();
        let mut sent = Vec::new();
        let mut up = |m: &OutgoingMail| {
            if m.to == "bad@x.org" {
                return Err(SendError::Refused("550 no such user".into()));
            }
            sent.push(m.to.clone());
            Ok(())
        };
        let d = owed.send(None, now, &mut up).unwrap();
        assert_eq!((d.sent, d.waiting, d.newly_failing.len()), (2, 0, 0), "told once: {d:?}");
        assert_eq!(sent, ["a@x.org", "c@x.org"]);
        assert_eq!(owed.count().unwrap(), 0);
    }

    #[test]
    fn a_damaged_batch_is_told_by_its_kind_and_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let owed = Owed::open(dir.path()).unwrap();
        let id = owed.owe(Utc::now(), &[mail("a@x.org")]).unwrap().unwrap();
        let batch = owed.spool.path_of(&id);
        std::fs::write(&batch, b"{ not json").unwrap();
        let e = owed.count().unwrap_err();
        assert!(matches!(&e, MailError::Damaged { path, .. } if *path == batch), "{e:?}");
        assert!(e.to_string().starts_with(&format!("{}: ", batch.display())), "{e}");
    }
}
