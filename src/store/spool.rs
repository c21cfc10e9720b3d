//! A spool: blobs written durably under one directory with unique names, listed oldest
//! first and removed once handled. The mail layer keeps inbound messages here before it
//! processes them, so a crash mid-processing loses no mail.
//!
//! Names are `<time>-<16 hex digits>`: the caller's time (the store never reads the clock)
//! so a listing sorts by arrival, then random bits. A name is never reused: the blob is
//! hard-linked into place, which fails rather than overwrite.
//!
//! A spool holds what only the judge may read (messages with passwords, mail owed): the
//! directory is owner-only (0700) and so is every blob (0600).
//!
//! Many processes may put at once (one per delivered message). Each holds a shared lock on
//! `.lock` while its temp file exists; [`Spool::open`] removes leftover temp files only if
//! it can take that lock exclusively, so it never removes a temp file still being written.

use std::fmt;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use fs4::fs_std::FileExt;

use super::atomic::{is_temp_name, remove_temp_files, sync_dir, write_temp};
use super::error::StoreError;

const LOCK_FILE: &str = ".lock";

/// A spool directory.
#[derive(Debug, Clone)]
pub struct Spool {
    dir: PathBuf,
}

/// The name of one spooled blob.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SpoolId(String);

impl SpoolId {
    /// The id of a blob by its file name, as [`Display`](fmt::Display) wrote it; `None`
    /// for a name that cannot be one (empty, hidden, or naming another directory).
    pub fn parse(name: &str) -> Option<SpoolId> {
        let plain = !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0']);
        plain.then(|| SpoolId(name.to_string()))
    }

    /// When the blob was kept (the time its name begins with), if the name says.
    pub fn kept_at(&self) -> Option<DateTime<Utc>> {
        let stamp = self.0.split('-').next()?;
        let naive = chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%S%.9fZ").ok()?;
        Some(naive.and_utc())
    }

    /// The file name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SpoolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Spool {
    /// Opens the spool at `dir`, creating it if missing, and removes temp files left by a
    /// crash (when no one is putting).
    pub fn open(dir: impl AsRef<Path>) -> Result<Spool, StoreError> {
        let spool = Spool { dir: dir.as_ref().to_path_buf() };
        super::atomic::create_private_dir(&spool.dir)?;
        let lock = spool.lock_file()?;
        let lock_path = spool.dir.join(LOCK_FILE);
        if FileExt::try_lock_exclusive(&lock).map_err(StoreError::io(&lock_path))? {
            remove_temp_files(&spool.dir)?;
        }
        Ok(spool)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Stores `bytes` durably under a new name; `Ok` means they survive a crash.
    pub fn put(&self, at: DateTime<Utc>, bytes: &[u8]) -> Result<SpoolId, StoreError> {
        let lock = self.lock_file()?;
        FileExt::lock_shared(&lock).map_err(StoreError::io(self.dir.join(LOCK_FILE)))?;
        let stamp = at.format("%Y%m%dT%H%M%S%.9fZ");
        loop {
            let id = SpoolId(format!("{stamp}-{:016x}", rand::random::<u64>()));
            let target = self.dir.join(&id.0);
            let temp = write_temp(&target, bytes, true)?;
            let linked = fs::hard_link(&temp, &target);
            let _ = fs::remove_file(&temp);
            match linked {
                Ok(()) => {
                    sync_dir(&self.dir)?;
                    return Ok(id);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(source) => return Err(StoreError::Io { path: target, source }),
            }
        }
    }

    /// Every blob, oldest first.
    pub fn list(&self) -> Result<Vec<SpoolId>, StoreError> {
        let mut ids = Vec::new();
        for entry in fs::read_dir(&self.dir).map_err(StoreError::io(&self.dir))? {
            let entry = entry.map_err(StoreError::io(&self.dir))?;
            if let Some(name) = entry.file_name().to_str() {
                if !name.starts_with('.') && !is_temp_name(name) {
                    ids.push(SpoolId(name.to_owned()));
                }
            }
        }
        ids.sort();
        Ok(ids)
    }

    /// The path of a blob, for callers that stream it.
    pub fn path_of(&self, id: &SpoolId) -> PathBuf {
        self.dir.join(&id.0)
    }

    /// Reads a blob.
    pub fn read(&self, id: &SpoolId) -> Result<Vec<u8>, StoreError> {
        let path = self.path_of(id);
        fs::read(&path).map_err(StoreError::io(&path))
    }

    /// Removes a blob durably (once this returns, it does not come back after a crash).
    pub fn remove(&self, id: &SpoolId) -> Result<(), StoreError> {
        let path = self.path_of(id);
        fs::remove_file(&path).map_err(StoreError::io(&path))?;
        sync_dir(&self.dir)
    }

    fn lock_file(&self) -> Result<File, StoreError> {
        let path = self.dir.join(LOCK_FILE);
        super::atomic::open_private(&path).map_err(StoreError::io(&path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn names_sort_by_the_callers_time() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::open(dir.path()).unwrap();
        let later = spool.put(Utc.with_ymd_and_hms(2025, 1, 2, 0, 0, 0).unwrap(), b"b").unwrap();
        let earlier = spool.put(Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap(), b"a").unwrap();
        assert_eq!(spool.list().unwrap(), vec![earlier.clone(), later]);
        assert!(earlier.as_str().starts_with("20250101T000000.000000000Z-"), "{earlier}");
    }
}
