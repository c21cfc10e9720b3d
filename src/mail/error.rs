//! The error of the mail layer's own files in the judge directory: the spool, the claims,
//! the owed mail, `failing.json` and `answered.json` ([`Intake`](crate::mail::ingest::Intake),
//! [`Owed`](crate::mail::owed::Owed), [`Answered`](crate::mail::limit::Answered)). Every
//! variant that is about a file names it, as the store's own [`StoreError`] does.

use std::path::{Path, PathBuf};

use crate::store::StoreError;

/// What went wrong keeping, claiming or owing mail.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// The store refused: the spool, an atomic write, a private directory.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The operating system refused a read, write, sync or lock of one of the mail
    /// layer's files (a claim, a lock file, an owed batch).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory the operation was about.
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// One of the mail layer's files does not parse (an owed batch, `failing.json`).
    #[error("{}: {source}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// What was to be kept could not be written as JSON.
    #[error(transparent)]
    Encode(serde_json::Error),
    /// A lock of the in-memory intake was poisoned (a thread died holding it); the name
    /// of what it guards.
    #[error("{0} lock poisoned")]
    Poisoned(&'static str),
    /// The in-memory intake was told to fail its spool writes (a full disk, simulated).
    #[error("spool write failed (simulated)")]
    SimulatedSpoolFailure,
}

impl MailError {
    /// A refusal of the operating system about `path`.
    pub(crate) fn io(path: impl AsRef<Path>) -> impl FnOnce(std::io::Error) -> MailError {
        let path = path.as_ref().to_path_buf();
        move |source| MailError::Io { path, source }
    }

    /// A file at `path` that does not parse.
    pub(crate) fn damaged(path: impl AsRef<Path>) -> impl FnOnce(serde_json::Error) -> MailError {
        let path = path.as_ref().to_path_buf();
        move |source| MailError::Damaged { path, source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_are_the_file_and_the_cause() {
        let e =
            MailError::io("/j/claims/x.taking")(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied"));
        assert_eq!(e.to_string(), "/j/claims/x.taking: denied");
        let e = MailError::from(StoreError::Locked { path: "/j/owed/.sending".into() });
        assert_eq!(e.to_string(), "/j/owed/.sending: locked by another writer");
        assert_eq!(MailError::Poisoned("claim").to_string(), "claim lock poisoned");
    }

    #[test]
    fn the_in_memory_intake_says_a_simulated_full_disk_as_such() {
        use crate::mail::ingest::{Intake, MemoryIntake};
        let intake = MemoryIntake::default();
        intake.fail_spool.store(true, std::sync::atomic::Ordering::SeqCst);
        let e = intake.spool(b"x", chrono::Utc::now()).unwrap_err();
        assert!(matches!(e, MailError::SimulatedSpoolFailure), "{e:?}");
        assert_eq!(e.to_string(), "spool write failed (simulated)");
    }
}
