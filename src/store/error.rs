//! The one error type of the store. Every variant names the file it is about, and parse
//! errors give the line and column, so a game master can open the file and fix it.

use std::io;
use std::path::{Path, PathBuf};

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The operating system refused a read, write, rename, sync or lock.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory the operation was about.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// A file does not parse: `game.toml`, `state.json`, or a line of `journal.jsonl`.
    #[error("{}:{line}:{column}: {message}", file.display())]
    Parse {
        /// The file that does not parse.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters) within that line.
        column: usize,
        /// What the parser expected or found.
        message: String,
    },
    /// The file parses but breaks an invariant of the store (a journal `seq` out of order,
    /// a missing journal). Never repaired silently: a person has to look.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Corrupt {
        /// The damaged file.
        path: PathBuf,
        /// 1-based line, when the damage is on one line.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// An entry was to be journaled for an inbound message item that had already left
    /// one before it was carried out this time (it is being carried out again, after an
    /// interruption): kept once, never twice.
    #[error("{}: message `{tag}` was carried out before; nothing is journaled twice", path.display())]
    CarriedOut {
        /// The journal.
        path: PathBuf,
        /// The message item's tag.
        tag: String,
    },
    /// `try_lock` found the game locked by another writer.
    #[error("{}: locked by another writer", path.display())]
    Locked {
        /// The lock file.
        path: PathBuf,
    },
    /// `GameDir::create` was given a directory that already holds files.
    #[error("{}: already exists and is not empty", path.display())]
    AlreadyExists {
        /// The directory.
        path: PathBuf,
    },
    /// `GameDir::open` was given a directory without a `game.toml`.
    #[error("{}: not a game directory (no `game.toml`)", path.display())]
    NotAGame {
        /// The directory.
        path: PathBuf,
    },
    /// A value handed in by the caller could not be serialized (for example a TOML
    /// settings type with a map whose keys are not strings).
    #[error("{}: cannot serialize: {message}", path.display())]
    Serialize {
        /// The file it was meant for.
        path: PathBuf,
        /// What the serializer said.
        message: String,
    },
    /// `write_state` was asked to record a state that claims more journal entries than
    /// the journal holds.
    #[error("{}: state claims seq {seq_applied}, but the journal ends at seq {journal_seq}", path.display())]
    StateAheadOfJournal {
        /// `state.json`.
        path: PathBuf,
        /// The seq the caller passed.
        seq_applied: u64,
        /// The last seq in the journal.
        journal_seq: u64,
    },
    /// `state.json` follows a journal entry the journal no longer holds: the journal was
    /// cut short (restored from an old copy, say). Nothing is changed until it is put back.
    #[error(
        "{}: the state there follows journal entry {state_seq}, but {} ends at entry {journal_seq}: the journal \
         was cut short. Nothing was changed; put the full journal back",
        state.display(),
        journal.display()
    )]
    JournalCutShort {
        /// `state.json`.
        state: PathBuf,
        /// The journal.
        journal: PathBuf,
        /// The entry the state follows.
        state_seq: u64,
        /// The journal's last entry.
        journal_seq: u64,
    },
    /// An earlier append through this lock failed part-way; the journal's tail is in doubt
    /// until the lock is taken again (which repairs it).
    #[error("{}: an earlier append failed; release and take the lock again", path.display())]
    Poisoned {
        /// The journal.
        path: PathBuf,
    },
}

impl StoreError {
    pub(crate) fn io(path: impl AsRef<Path>) -> impl FnOnce(io::Error) -> StoreError {
        let path = path.as_ref().to_path_buf();
        move |source| StoreError::Io { path, source }
    }

    pub(crate) fn corrupt(path: impl AsRef<Path>, line: Option<usize>, message: impl Into<String>) -> StoreError {
        StoreError::Corrupt { path: path.as_ref().to_path_buf(), line, message: message.into() }
    }
}

/// Turns a byte offset into a 1-based (line, column) pair, counting columns in characters.
/// An offset past the end points just after the last character.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_from_one() {
        let text = "a = 1\nbé = x\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        // "bé = " is 6 bytes but 5 characters.
        assert_eq!(line_column(text, 12), (2, 6));
        assert_eq!(line_column(text, 999), (3, 1));
    }

    #[test]
    fn line_column_survives_an_offset_inside_a_character() {
        assert_eq!(line_column("é", 1), (1, 1));
    }

    #[test]
    fn corrupt_error_names_line_when_known() {
        let e = StoreError::corrupt("/g/journal.jsonl", Some(4), "seq 9 where 4 was expected");
        assert_eq!(e.to_string(), "/g/journal.jsonl:4: seq 9 where 4 was expected");
        let e = StoreError::corrupt("/g/journal.jsonl", None, "missing");
        assert_eq!(e.to_string(), "/g/journal.jsonl: missing");
    }

    proptest::proptest! {
        #[test]
        fn line_column_never_panics(text in ".{0,60}", offset in 0usize..100) {
            let (line, column) = line_column(&text, offset);
            proptest::prop_assert!(line >= 1 && column >= 1);
        }
    }
}
