//! Where ingested messages are kept and remembered: the [`Intake`] trait, in memory and
//! over the judge directory's spool, claims and owed mail.

use super::*;

/// Where ingested messages are kept and remembered. The store's spool implements it for
/// real; [`MemoryIntake`] in memory.
///
/// Taking a message is in two steps, so that a crash in between loses nothing: a
/// [`claim`](Intake::claim) while the message is carried out, and
/// [`complete`](Intake::complete) once its reply and every mail it causes are owed. A
/// claim that never completed (the process died) is taken again by the next delivery of
/// the message, or by [`recover`] from the spooled copy.
pub trait Intake: Sync {
    /// A message being carried out.
    type Claim;
    /// Keep the raw message durably; the id it is kept under.
    fn spool(&self, raw: &[u8], now: DateTime<Utc>) -> Result<String, MailError>;
    /// Claim a message key for the message spooled as `spooled`: `None` when the message
    /// was already taken and completed. Of two concurrent claims of one key, one waits
    /// for the other (or its death) and then gets `None` (or the claim).
    fn claim(&self, key: &str, spooled: &str) -> Result<Option<Self::Claim>, MailError>;
    /// Owe `mails` and then mark the message done, each durably. The id of the owed batch,
    /// if any mail was owed.
    fn complete(
        &self,
        claim: Self::Claim,
        mails: &[OutgoingMail],
        now: DateTime<Utc>,
    ) -> Result<Option<String>, MailError>;
    /// Hold back the answers (mails of kind [`MailKind::Reply`]) past the limit of
    /// answers to one address ([`crate::mail::limit`]).
    fn limit_answers(&self, mails: &mut Vec<OutgoingMail>, now: DateTime<Utc>) -> Result<usize, MailError>;
    /// Give a claim back without completing it: the message changed nothing and must be
    /// read again at its next delivery (or by [`recover`]).
    fn give_back(&self, claim: Self::Claim) -> Result<(), MailError>;
    /// When the message of `claim` was first kept in the spool: the time it counts as
    /// received, however late it is carried out (a redelivery, a recovery). `None`:
    /// unknown (now).
    fn received(&self, claim: &Self::Claim) -> Option<DateTime<Utc>>;
    /// Claims left incomplete by a process that died, each with its spooled message.
    fn abandoned(&self) -> Result<Vec<Abandoned<Self::Claim>>, MailError>;
}
// No method has a default: a wrapper that forgot one (the command line's, which once
// dropped `received`) would silently do without it.

/// A claim a dead process left incomplete, taken again, and its spooled message.
pub type Abandoned<C> = (C, Vec<u8>);

/// An [`Intake`] in memory, for tests and dry runs. `fail_spool` simulates a full disk.
#[derive(Debug, Default)]
pub struct MemoryIntake {
    pub spooled: Mutex<Vec<Vec<u8>>>,
    pub claimed: Mutex<HashSet<String>>,
    /// The mails owed by completed messages.
    pub owed: Mutex<Vec<OutgoingMail>>,
    pub fail_spool: AtomicBool,
    /// The answers sent per address ([`crate::mail::limit`]).
    pub answered: Mutex<crate::mail::limit::Answered>,
}

impl Intake for MemoryIntake {
    type Claim = String;

    fn spool(&self, raw: &[u8], _now: DateTime<Utc>) -> Result<String, MailError> {
        if self.fail_spool.load(Ordering::SeqCst) {
            return Err(MailError::SimulatedSpoolFailure);
        }
        let mut spooled = self.spooled.lock().map_err(|_| MailError::Poisoned("spool"))?;
        spooled.push(raw.to_vec());
        Ok(format!("mem-{}", spooled.len()))
    }

    fn claim(&self, key: &str, _spooled: &str) -> Result<Option<String>, MailError> {
        // Nothing in memory outlives the process, so a claim is complete when taken.
        let mut claimed = self.claimed.lock().map_err(|_| MailError::Poisoned("claim"))?;
        Ok(claimed.insert(key.to_string()).then(|| key.to_string()))
    }

    fn complete(
        &self,
        _claim: String,
        mails: &[OutgoingMail],
        _now: DateTime<Utc>,
    ) -> Result<Option<String>, MailError> {
        self.owed.lock().map_err(|_| MailError::Poisoned("owed"))?.extend(mails.iter().cloned());
        Ok(None)
    }

    fn give_back(&self, claim: String) -> Result<(), MailError> {
        self.claimed.lock().map_err(|_| MailError::Poisoned("claim"))?.remove(&claim);
        Ok(())
    }

    fn limit_answers(&self, mails: &mut Vec<OutgoingMail>, now: DateTime<Utc>) -> Result<usize, MailError> {
        Ok(self.answered.lock().map_err(|_| MailError::Poisoned("answered"))?.admit(mails, now))
    }

    /// Nothing in memory is kept with a time: a message counts as received when read.
    fn received(&self, _claim: &String) -> Option<DateTime<Utc>> {
        None
    }

    /// Nothing in memory outlives the process, so no claim is left by a dead one.
    fn abandoned(&self) -> Result<Vec<Abandoned<String>>, MailError> {
        Ok(Vec::new())
    }
}

/// The real [`Intake`]: raw messages in the store's [`Spool`](crate::store::Spool); claims
/// under `claims/`, one pair of files per message key (named by its SHA-256): `<hash>.taking`
/// while the message is carried out (it names the spooled copy, and its taker holds an
/// exclusive lock on it, which the system releases when the taker dies), then `<hash>`
/// once the message is done; the mails it owes go to [`Owed`](crate::mail::owed::Owed)
/// before that.
#[derive(Debug)]
pub struct StoreIntake {
    root: PathBuf,
    spool: crate::store::Spool,
    claims: PathBuf,
    owed: crate::mail::owed::Owed,
}

/// A claim held by this process: the locked `.taking` file.
#[derive(Debug)]
pub struct StoreClaim {
    file: std::fs::File,
    taking: PathBuf,
    done: PathBuf,
    /// The spooled copy the claim names: the first one kept of this message.
    spooled: String,
}

impl StoreIntake {
    /// Open (creating them if missing) `dir/spool`, `dir/claims` and `dir/owed`.
    pub fn open(dir: &Path) -> Result<StoreIntake, MailError> {
        let spool = crate::store::Spool::open(dir.join("spool"))?;
        let claims = dir.join("claims");
        crate::store::create_private_dir(&claims)?;
        let owed = crate::mail::owed::Owed::open(dir)?;
        Ok(StoreIntake { root: dir.to_path_buf(), spool, claims, owed })
    }

    /// The spool, for a master's replay of kept messages.
    pub fn spool(&self) -> &crate::store::Spool {
        &self.spool
    }

    /// Remove the spooled messages kept before `cutoff` (by the time in their names);
    /// how many were removed. Names that carry no time are left alone.
    pub fn prune(&self, cutoff: DateTime<Utc>) -> Result<usize, MailError> {
        let mut removed = 0;
        for id in self.spool.list()? {
            let Some((stamp, _)) = id.as_str().rsplit_once('-') else { continue };
            let Ok(at) = chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%S%.fZ") else { continue };
            if at.and_utc() < cutoff {
                match self.spool.remove(&id) {
                    Ok(()) => removed += 1,
                    // Another tick removed it first.
                    Err(_) if !self.spool.path_of(&id).exists() => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(removed)
    }

    /// The mail owed.
    pub fn owed(&self) -> &crate::mail::owed::Owed {
        &self.owed
    }

    fn sync_claims(&self) -> Result<(), MailError> {
        std::fs::File::open(&self.claims).and_then(|d| d.sync_all()).map_err(MailError::io(&self.claims))
    }

    /// Lock an open `.taking` file and look at it: `None` when the message is done
    /// (the file is removed), else the claim.
    fn hold(&self, file: std::fs::File, taking: PathBuf, wait: bool) -> Result<Option<StoreClaim>, MailError> {
        use fs4::fs_std::FileExt;
        if wait {
            FileExt::lock_exclusive(&file).map_err(MailError::io(&taking))?;
        } else if !FileExt::try_lock_exclusive(&file).map_err(MailError::io(&taking))? {
            return Ok(None);
        }
        let done = taking.with_extension("");
        if done.exists() {
            let _ = std::fs::remove_file(&taking);
            return Ok(None);
        }
        Ok(Some(StoreClaim { file, taking, done, spooled: String::new() }))
    }
}

impl Intake for StoreIntake {
    type Claim = StoreClaim;

    fn spool(&self, raw: &[u8], now: DateTime<Utc>) -> Result<String, MailError> {
        Ok(self.spool.put(now, raw)?.to_string())
    }

    /// The claim's lock goes with it; its `.taking` file stays, naming the copy first kept,
    /// so the next delivery (or the tick) reads the message again from then.
    fn give_back(&self, claim: StoreClaim) -> Result<(), MailError> {
        drop(claim);
        Ok(())
    }

    fn received(&self, claim: &StoreClaim) -> Option<DateTime<Utc>> {
        crate::store::SpoolId::parse(&claim.spooled)?.kept_at()
    }

    fn limit_answers(&self, mails: &mut Vec<OutgoingMail>, now: DateTime<Utc>) -> Result<usize, MailError> {
        crate::mail::limit::Answered::admit_in(&self.root, mails, now)
    }

    fn claim(&self, key: &str, spooled: &str) -> Result<Option<StoreClaim>, MailError> {
        use std::io::Write;
        let name = format!("{:x}", Sha256::digest(key.as_bytes()));
        if self.claims.join(&name).exists() {
            return Ok(None);
        }
        let taking = self.claims.join(format!("{name}.taking"));
        let at = |e: std::io::Error| MailError::Io { path: taking.clone(), source: e };
        let file = crate::store::open_private(&taking).map_err(at)?;
        // Waits for a live taker; a dead one's lock is gone.
        let Some(mut claim) = self.hold(file, taking.clone(), true)? else { return Ok(None) };
        // A claim a dead taker left names the copy kept when the message first came: keep
        // it, so the message counts as received then, not at its redelivery.
        let before = std::fs::read_to_string(&taking).unwrap_or_default();
        let first = crate::store::SpoolId::parse(before.trim()).filter(|id| self.spool.read(id).is_ok());
        match first {
            Some(id) => claim.spooled = id.to_string(),
            None => {
                claim.file.set_len(0).map_err(at)?;
                claim.file.write_all(spooled.as_bytes()).map_err(at)?;
                claim.file.sync_all().map_err(at)?;
                self.sync_claims()?;
                claim.spooled = spooled.to_string();
            }
        }
        Ok(Some(claim))
    }

    fn complete(
        &self,
        claim: StoreClaim,
        mails: &[OutgoingMail],
        now: DateTime<Utc>,
    ) -> Result<Option<String>, MailError> {
        let owed = self.owed.owe(now, mails)?;
        let done = crate::store::open_private(&claim.done).map_err(MailError::io(&claim.done))?;
        // The claim must outlive a crash, or a redelivery would be carried out again.
        done.sync_all().map_err(MailError::io(&claim.done))?;
        self.sync_claims()?;
        let _ = std::fs::remove_file(&claim.taking);
        drop(claim);
        Ok(owed.map(|id| id.to_string()))
    }

    fn abandoned(&self) -> Result<Vec<Abandoned<StoreClaim>>, MailError> {
        let entries = std::fs::read_dir(&self.claims).map_err(MailError::io(&self.claims))?;
        let mut names: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "taking"))
            .collect();
        names.sort();
        let mut found = Vec::new();
        for taking in names {
            let Ok(file) = std::fs::OpenOptions::new().read(true).write(true).open(&taking) else { continue };
            // Skip one that a live process holds.
            let Some(claim) = self.hold(file, taking.clone(), false)? else { continue };
            let spooled = std::fs::read_to_string(&taking).map_err(MailError::io(&taking))?;
            let raw = crate::store::SpoolId::parse(spooled.trim()).and_then(|id| self.spool.read(&id).ok());
            match raw {
                Some(raw) => found.push((StoreClaim { spooled: spooled.trim().to_string(), ..claim }, raw)),
                // Its taker died before it named the message, so before it did anything:
                // the message's redelivery takes it.
                None => {
                    let _ = std::fs::remove_file(&taking);
                }
            }
        }
        Ok(found)
    }
}
