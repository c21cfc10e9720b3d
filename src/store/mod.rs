//! The game store: a game is a directory, and nothing acknowledged is ever lost.
//!
//! The store is generic: it keeps the caller's settings, state and journal entries as
//! serde types and knows nothing of Diplomacy or any other game. It never reads the clock
//! (every journal time is passed in).
//!
//! # A game directory
//! - `game.toml`: the settings, a caller type `S`, edited by people. Parse errors name
//!   the file, line and column. Written by [`GameLock::write_settings`] (which does not
//!   keep comments).
//! - `journal.jsonl`: append-only, one JSON object per line:
//!   `{"seq":1,"at":"2025-03-01T18:00:00Z","entry":<E>}`, seqs 1, 2, 3... without gaps.
//!   [`GameLock::append`] returns only after the line is synced to disk.
//! - `state.json`: `{"seq_applied": N, "state": <T>, "check": "<sha256>"}`, the state after
//!   applying journal entries 1..=N. A cache: compare N with the journal and replay what
//!   is missing. A state that no longer has its check was changed by hand: an error, never
//!   trusted.
//! - `.lock`: the per-game lock file (`flock`), serialising every writer.
//! - `change.json`: a change of several writes (journal entries and `game.toml`) made
//!   durable as one ([`GameLock::stage`], [`GameLock::commit`]) while it is carried out;
//!   an interruption leaves it for the next lock to finish.
//! - `journal.jsonl.torn-<seq>`: an interrupted append, set aside by recovery.
//! - side files (`<name>.json`): small caller records beside the journal that are not
//!   part of the game's history (the mail judge's `mailed.json`: which results went to
//!   whom). Read with [`GameDir::read_side`], replaced atomically under the lock with
//!   [`GameLock::write_side`].
//! - `.<task>.lock`: a [`TaskLock`], for a slow task that must not run twice at once on
//!   one game (mailing results) without holding back the game's writers meanwhile.
//!
//! # Writers and readers
//! Every change goes through a [`GameLock`] from [`GameDir::lock`] (or [`GameDir::try_lock`]),
//! so code cannot write without holding the lock. Readers ([`GameDir::read_settings`],
//! [`GameDir::journal`], [`GameDir::read_state`]) need no lock: whole files are replaced by
//! atomic renames ([`write_atomic`]) and an unfinished journal line is skipped.
//!
//! # Recovery
//! Taking the lock (and so [`GameDir::open`]) first repairs what a crash can leave:
//! leftover temp files are removed, and a final journal line without its newline (never
//! acknowledged) is copied to `journal.jsonl.torn-<seq>` and cut off. Each repair is
//! reported as a [`Recovered`] for the caller to print; a `change.json` left by an
//! interrupted commit is carried out to its end ([`Recovered::ChangeFinished`]). Anything else that is wrong (a bad
//! line in the middle of the journal, a seq out of order, a `game.toml` or `state.json`
//! that does not parse) is a [`StoreError`] naming the file and line: never repaired
//! silently, never a panic.
//!
//! An append that was written but not yet acknowledged when the process died may survive
//! (its line is complete); the caller must treat "no acknowledgement" as "maybe".
//!
//! # Example
//! ```
//! use chrono::{TimeZone, Utc};
//! use shadowjudge::store::GameDir;
//!
//! # fn main() -> Result<(), shadowjudge::store::StoreError> {
//! # let tmp = tempfile::tempdir().unwrap();
//! # let path = tmp.path().join("game-1");
//! let game = GameDir::create(&path, &serde_json::json!({"name": "test"}))?;
//! let at = Utc.with_ymd_and_hms(2025, 3, 1, 18, 0, 0).unwrap();
//! let mut lock = game.lock()?;
//! let seq = lock.append(at, &"F Lon-Nth")?;
//! lock.write_state(seq, &vec!["F Nth"])?;
//! drop(lock);
//!
//! let (applied, state): (u64, Vec<String>) = game.read_state()?.expect("written above");
//! let journal = game.journal::<String>()?;
//! assert!(journal.after(applied).is_empty());
//! assert_eq!(state, ["F Nth"]);
//! # Ok(())
//! # }
//! ```

mod atomic;
mod book;
mod error;
#[doc(hidden)]
pub mod fault;
mod journal;
mod spool;

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::ops::Deref;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use fs4::fs_std::FileExt;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};

pub use atomic::{create_private_dir, open_private, write_atomic, write_atomic_private};
pub use book::{
    cache_warning, repair_state, Book, Mailed, MailedFile, MailingOutcome, MailingPlan, Owed, Sending, MAILED_FILE,
};
pub use error::StoreError;
pub use journal::{Journal, Record};
pub use spool::{Spool, SpoolId};

use atomic::{remove_temp_files, sync_dir};
use fault::FaultPoint;

/// The settings file.
pub const SETTINGS_FILE: &str = "game.toml";
/// The side file recording which map a Diplomacy game's stored ids belong to.
pub const MAP_FILE: &str = "map.json";
/// The side file recording which entries' reports a turn game mailed, and to whom.
pub const REPORTED_FILE: &str = "reported.json";
/// The state cache.
pub const STATE_FILE: &str = "state.json";
/// The journal.
pub const JOURNAL_FILE: &str = "journal.jsonl";
/// The lock file.
pub const LOCK_FILE: &str = ".lock";
/// A change of several writes ([`GameLock::stage`]) made durable as one, until it is
/// carried out in full.
pub const CHANGE_FILE: &str = "change.json";

/// Read a whole text file (a map file a game names), the error naming it.
pub fn read_text(path: &Path) -> Result<String, StoreError> {
    let bytes = fs::read(path).map_err(StoreError::io(path))?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let (line, column) = error::line_column(&String::from_utf8_lossy(&e.as_bytes()[..valid]), usize::MAX);
        StoreError::Parse { file: path.to_path_buf(), line, column, message: "invalid UTF-8".into() }
    })
}

/// The entries of a folder (an example's order folders), as paths sorted by name, the
/// error naming the folder.
pub fn list_dir(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let mut paths = Vec::new();
    for entry in fs::read_dir(dir).map_err(StoreError::io(dir))? {
        paths.push(entry.map_err(StoreError::io(dir))?.path());
    }
    paths.sort();
    Ok(paths)
}

/// Whether `name` may name a side file: a plain lowercase name ending in `.json`, none of
/// the store's own files.
fn side_name_ok(name: &str) -> bool {
    name.strip_suffix(".json").is_some_and(task_name_ok) && name != STATE_FILE && name != CHANGE_FILE
}

/// Whether `task` may name a [`TaskLock`]: lowercase letters, digits, `-` and `_`.
fn task_name_ok(task: &str) -> bool {
    !task.is_empty()
        && task.len() <= 40
        && task.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

fn bad_name(path: PathBuf, what: &str) -> StoreError {
    let source = io::Error::new(io::ErrorKind::InvalidInput, format!("not a usable name for a {what}"));
    StoreError::Io { path, source }
}

/// A repair made while taking the lock, for the caller to print or log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovered {
    /// The journal ended in an interrupted write; it was copied aside and cut off.
    TornTail {
        /// The journal.
        journal: PathBuf,
        /// The line number the interrupted write had.
        line: usize,
        /// Where its bytes were put.
        set_aside: PathBuf,
        /// How many bytes it had.
        bytes: usize,
    },
    /// A temp file from an interrupted whole-file write was removed.
    TempFileRemoved {
        /// The file removed.
        path: PathBuf,
    },
    /// A change cut short after it was made durable ([`CHANGE_FILE`]) was carried out
    /// to its end: the journal entries it still lacked appended, `game.toml` written.
    ChangeFinished {
        /// The change file, now removed.
        path: PathBuf,
        /// Entries appended now (of the change's `of`).
        appended: usize,
        of: usize,
    },
}

impl fmt::Display for Recovered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Recovered::TornTail { journal, line, set_aside, bytes } => write!(
                f,
                "{}: line {line} was an interrupted write, never acknowledged; set aside as `{}` ({bytes} bytes)",
                journal.display(),
                set_aside.file_name().unwrap_or_default().to_string_lossy(),
            ),
            Recovered::TempFileRemoved { path } => {
                write!(f, "{}: leftover temporary file of an interrupted write, removed", path.display())
            }
            Recovered::ChangeFinished { path, appended, of } => write!(
                f,
                "{}: a change cut short by an interruption was finished ({appended} of its {of} journal entries \
                 appended now, game.toml written)",
                path.display()
            ),
        }
    }
}

/// A game directory. Cheap to clone; holds no open files.
#[derive(Debug, Clone)]
pub struct GameDir {
    root: PathBuf,
    recovered: Vec<Recovered>,
}

#[derive(Serialize)]
struct StateOut<'a, T> {
    seq_applied: u64,
    state: &'a T,
    check: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateIn<T> {
    seq_applied: u64,
    state: T,
    /// [`state_check`] of `state` as written (none in files written before it was kept).
    #[serde(default)]
    check: Option<String>,
}

/// The sha256 (hex) of a state as JSON with its keys in a fixed order: a `state.json`
/// whose state no longer has the check it was written with was edited by hand, and is
/// not trusted (the journal rebuilds it).
fn state_check(state: &serde_json::Value) -> String {
    use sha2::Digest;
    let bytes = serde_json::to_vec(state).unwrap_or_default();
    sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect()
}

impl GameDir {
    /// Makes a new game at `path` (created if missing; refused if it holds anything) with
    /// these settings and an empty journal.
    pub fn create<S: Serialize>(path: impl AsRef<Path>, settings: &S) -> Result<GameDir, StoreError> {
        let root = path.as_ref().to_path_buf();
        let settings_text = settings_to_toml(&root.join(SETTINGS_FILE), settings)?;
        fs::create_dir_all(&root).map_err(StoreError::io(&root))?;
        if fs::read_dir(&root).map_err(StoreError::io(&root))?.next().is_some() {
            return Err(StoreError::AlreadyExists { path: root });
        }
        sync_dir(atomic::parent_of(&root))?;
        let game = GameDir { root, recovered: Vec::new() };
        let lock = game.lock_file(true)?;
        let journal = game.file(JOURNAL_FILE);
        File::create_new(&journal).and_then(|f| f.sync_all()).map_err(StoreError::io(&journal))?;
        // `game.toml` last: a directory without it is not a game, so a crash part-way
        // through leaves something `open` refuses rather than half a game.
        write_atomic(&game.file(SETTINGS_FILE), settings_text.as_bytes())?;
        drop(lock);
        Ok(game)
    }

    /// Opens an existing game, repairing what a crash left behind (see
    /// [`recovered`](Self::recovered)). Waits for the lock if a writer holds it.
    pub fn open(path: impl AsRef<Path>) -> Result<GameDir, StoreError> {
        let root = path.as_ref().to_path_buf();
        require_settings(&root)?;
        let mut game = GameDir { root, recovered: Vec::new() };
        let lock = game.lock()?;
        game.recovered = lock.dir.recovered.clone();
        Ok(game)
    }

    /// Opens an existing game for reading only: no lock, no recovery, nothing written.
    /// The readers work as they do on an opened game (an unfinished final journal line is
    /// skipped, not repaired).
    ///
    /// One repair is made all the same, when there is one to make: a change cut short
    /// after it was made durable ([`CHANGE_FILE`]) is finished under the lock first, so
    /// that no reader sees half of it (its journal entries without its `game.toml`). A
    /// directory the process may not write is read as it is.
    pub fn open_for_reading(path: impl AsRef<Path>) -> Result<GameDir, StoreError> {
        let root = path.as_ref().to_path_buf();
        require_settings(&root)?;
        if root.join(CHANGE_FILE).exists() {
            if let Ok(opened) = GameDir::open(&root) {
                return Ok(opened);
            }
        }
        Ok(GameDir { root, recovered: Vec::new() })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// What opening (or, on a [`GameLock`], taking this lock) repaired.
    pub fn recovered(&self) -> &[Recovered] {
        &self.recovered
    }

    /// Takes the game's lock, waiting for other writers, then runs recovery.
    pub fn lock(&self) -> Result<GameLock, StoreError> {
        self.lock_file(true).and_then(|f| self.recover(f))
    }

    /// Takes the game's lock if no one holds it, else [`StoreError::Locked`].
    pub fn try_lock(&self) -> Result<GameLock, StoreError> {
        self.lock_file(false).and_then(|f| self.recover(f))
    }

    /// Reads `game.toml`.
    pub fn read_settings<S: DeserializeOwned>(&self) -> Result<S, StoreError> {
        let path = self.file(SETTINGS_FILE);
        let bytes = fs::read(&path).map_err(StoreError::io(&path))?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            let (line, column) = error::line_column(&String::from_utf8_lossy(&bytes[..e.valid_up_to()]), usize::MAX);
            StoreError::Parse { file: path.clone(), line, column, message: "invalid UTF-8".into() }
        })?;
        toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((1, 1), |span| error::line_column(text, span.start));
            StoreError::Parse { file: path, line, column, message: e.message().to_owned() }
        })
    }

    /// Reads the acknowledged journal (an unfinished final line is skipped, see
    /// [`Journal::torn_tail`]).
    pub fn journal<E: DeserializeOwned>(&self) -> Result<Journal<E>, StoreError> {
        let path = self.file(JOURNAL_FILE);
        let bytes = read_journal_bytes(&path)?;
        journal::parse(&path, &bytes).map(journal::Parsed::into_journal)
    }

    /// Reads `state.json`: the seq of the last journal entry it applied, and the state.
    /// `None` if no state was ever written.
    pub fn read_state<T: DeserializeOwned>(&self) -> Result<Option<(u64, T)>, StoreError> {
        let path = self.file(STATE_FILE);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let state: StateIn<T> = serde_json::from_slice(&bytes).map_err(|e| StoreError::Parse {
            file: path.clone(),
            line: e.line(),
            column: e.column(),
            message: format!(
                "{}. {STATE_FILE} is only a copy of the state the journal leads to: delete it and \
                 the judge rebuilds it from {JOURNAL_FILE}",
                journal::json_message(&e)
            ),
        })?;
        if let Some(check) = &state.check {
            // Read again as plain JSON for its check: a state edited by hand, however
            // consistent, is an error, never trusted nor silently replaced.
            let plain: StateIn<serde_json::Value> = serde_json::from_slice(&bytes).map_err(|e| {
                StoreError::Corrupt { path: path.clone(), line: Some(e.line()), message: e.to_string() }
            })?;
            if state_check(&plain.state) != *check {
                return Err(StoreError::Corrupt {
                    path,
                    line: None,
                    message: format!(
                        "the state was changed by hand: it no longer has the check it was written with, so it is \
                         not trusted. {STATE_FILE} is only a copy of the state the journal leads to: delete it and \
                         the judge rebuilds it from {JOURNAL_FILE}"
                    ),
                });
            }
        }
        Ok(Some((state.seq_applied, state.state)))
    }

    /// Reads the side file `name` (`mailed.json`): `None` if it was never written. A file
    /// that does not parse is an error naming it, never read as empty.
    pub fn read_side<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, StoreError> {
        let path = self.file(name);
        if !side_name_ok(name) {
            return Err(bad_name(path, "side file"));
        }
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        serde_json::from_slice(&bytes).map(Some).map_err(|e| StoreError::Parse {
            file: path,
            line: e.line(),
            column: e.column(),
            message: journal::json_message(&e),
        })
    }

    /// A stamp of the files `names` as they are now ([`FileStamp`]): whether any was
    /// replaced, appended to or edited since an earlier stamp. A missing file has its own
    /// stamp.
    pub fn stamp(&self, names: &[&str]) -> Result<Vec<FileStamp>, StoreError> {
        names
            .iter()
            .map(|name| {
                let path = self.file(name);
                match fs::metadata(&path) {
                    Ok(m) => Ok(FileStamp::of(&m)),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(FileStamp::default()),
                    Err(source) => Err(StoreError::Io { path, source }),
                }
            })
            .collect()
    }

    /// Takes the lock of a task (`.<task>.lock`), separate from the game's own lock: two
    /// runs of the task exclude each other, the game's writers go on. With `wait` false,
    /// `None` when another run holds it. The task still writes through a [`GameLock`];
    /// it must never wait for a task lock while holding the game's lock.
    pub fn lock_task(&self, task: &str, wait: bool) -> Result<Option<TaskLock>, StoreError> {
        let path = self.file(&format!(".{task}.lock"));
        if !task_name_ok(task) {
            return Err(bad_name(path, "task lock"));
        }
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path);
        let file = file.map_err(StoreError::io(&path))?;
        if wait {
            FileExt::lock_exclusive(&file).map_err(StoreError::io(&path))?;
        } else if !FileExt::try_lock_exclusive(&file).map_err(StoreError::io(&path))? {
            return Ok(None);
        }
        Ok(Some(TaskLock { _file: file }))
    }

    fn file(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn lock_file(&self, wait: bool) -> Result<File, StoreError> {
        let path = self.file(LOCK_FILE);
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path);
        let file = file.map_err(StoreError::io(&path))?;
        if wait {
            FileExt::lock_exclusive(&file).map_err(StoreError::io(&path))?;
        } else if !FileExt::try_lock_exclusive(&file).map_err(StoreError::io(&path))? {
            return Err(StoreError::Locked { path });
        }
        Ok(file)
    }

    fn recover(&self, lock: File) -> Result<GameLock, StoreError> {
        let mut recovered: Vec<Recovered> =
            remove_temp_files(&self.root)?.into_iter().map(|path| Recovered::TempFileRemoved { path }).collect();
        let path = self.file(JOURNAL_FILE);
        let bytes = read_journal_bytes(&path)?;
        let parsed = journal::parse::<IgnoredAny>(&path, &bytes)?;
        let last_seq = parsed.records.len() as u64;
        let mut journal_len = bytes.len();
        if let Some(torn) = parsed.torn {
            let set_aside = self.torn_name(last_seq + 1);
            write_atomic(&set_aside, &bytes[torn.offset..])?;
            fault::reach(FaultPoint::TornCopied);
            let file = OpenOptions::new().write(true).open(&path).map_err(StoreError::io(&path))?;
            file.set_len(torn.offset as u64).and_then(|()| file.sync_all()).map_err(StoreError::io(&path))?;
            recovered.push(Recovered::TornTail {
                journal: path.clone(),
                line: torn.line,
                set_aside,
                bytes: bytes.len() - torn.offset,
            });
            journal_len = torn.offset;
        }
        let journal = OpenOptions::new().append(true).open(&path).map_err(StoreError::io(&path))?;
        let mut lock = GameLock {
            dir: GameDir { root: self.root.clone(), recovered },
            _lock: lock,
            journal,
            journal_len: journal_len as u64,
            last_seq,
            poisoned: false,
            staged: None,
        };
        lock.finish_pending_change()?;
        Ok(lock)
    }

    /// `journal.jsonl.torn-<seq>`, or `-<seq>.<n>` if an earlier crash at the same seq
    /// already used that name.
    fn torn_name(&self, seq: u64) -> PathBuf {
        let base = format!("{JOURNAL_FILE}.torn-{seq}");
        let mut candidate = self.file(&base);
        let mut n = 1;
        while candidate.exists() {
            n += 1;
            candidate = self.file(&format!("{base}.{n}"));
        }
        candidate
    }
}

/// What a file looked like when stamped: its length, modification time (nanoseconds) and
/// inode. An append changes the length, an atomic replacement the inode, an edit the
/// time; a stamp that still matches says the file was not touched. All zero: no file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub len: u64,
    pub modified_ns: i64,
    pub inode: u64,
}

impl FileStamp {
    fn of(m: &fs::Metadata) -> FileStamp {
        let modified_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(-1, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(m);
        #[cfg(not(unix))]
        let inode = 0;
        FileStamp { len: m.len(), modified_ns, inode }
    }
}

/// A task's lock ([`GameDir::lock_task`]), held until dropped.
#[derive(Debug)]
pub struct TaskLock {
    /// Held open for the flock; closing it releases the lock.
    _file: File,
}

/// The game's lock, held until dropped. Every write goes through it. Derefs to the
/// [`GameDir`] for reading; its [`recovered`](GameDir::recovered) lists what taking this
/// lock repaired.
#[derive(Debug)]
pub struct GameLock {
    dir: GameDir,
    /// Held open for the flock; closing it releases the lock.
    _lock: File,
    journal: File,
    journal_len: u64,
    last_seq: u64,
    poisoned: bool,
    /// The writes of a change under way ([`GameLock::stage`]), kept until its commit.
    staged: Option<Staged>,
}

/// The writes of a staged change, in memory until [`GameLock::commit`].
#[derive(Debug)]
struct Staged {
    /// The journal's last seq when the change began.
    base_seq: u64,
    /// The journal lines, encoded with their seqs.
    lines: Vec<Vec<u8>>,
    /// The new `game.toml`, if the change writes it.
    settings: Option<String>,
    /// The new `state.json`, if the change writes it.
    state: Option<Vec<u8>>,
}

/// [`CHANGE_FILE`]: a staged change made durable, carried out to its end by its commit or,
/// after an interruption, by the next lock.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PendingChange {
    base_seq: u64,
    /// The journal lines (without their newlines), the first with seq `base_seq + 1`.
    lines: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    settings: Option<String>,
}

impl Deref for GameLock {
    type Target = GameDir;
    fn deref(&self) -> &GameDir {
        &self.dir
    }
}

impl GameLock {
    /// The seq of the last journal entry (0 if none).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Appends one entry to the journal and returns its seq. Returns only once the line is
    /// synced to disk: `Ok` is the acknowledgement.
    pub fn append<E: Serialize>(&mut self, at: DateTime<Utc>, entry: &E) -> Result<u64, StoreError> {
        self.append_tagged(at, entry, None)
    }

    /// [`append`](Self::append), the record tagged with the inbound message item it
    /// carries out (`Record::msg`), so that the message carried out again after a crash
    /// can tell what it already did.
    pub fn append_tagged<E: Serialize>(
        &mut self,
        at: DateTime<Utc>,
        entry: &E,
        msg: Option<&str>,
    ) -> Result<u64, StoreError> {
        let path = self.dir.file(JOURNAL_FILE);
        if self.poisoned {
            return Err(StoreError::Poisoned { path });
        }
        let seq = self.last_seq + 1;
        let line = journal::encode(&path, seq, at, entry, msg)?;
        if let Some(staged) = &mut self.staged {
            staged.lines.push(line);
            self.last_seq = seq;
            return Ok(seq);
        }
        self.append_line(seq, &line)?;
        Ok(seq)
    }

    /// Append one encoded journal line (with seq `seq`), synced before it returns.
    fn append_line(&mut self, seq: u64, line: &[u8]) -> Result<(), StoreError> {
        let path = self.dir.file(JOURNAL_FILE);
        if self.poisoned {
            return Err(StoreError::Poisoned { path });
        }
        let written = (|| {
            if fault::armed() {
                // Split so a test can die with half a line on disk, as a crash inside one
                // large write could leave it.
                let (first, second) = line.split_at(line.len() / 2);
                self.journal.write_all(first)?;
                fault::reach(FaultPoint::AppendHalfWritten);
                self.journal.write_all(second)?;
            } else {
                self.journal.write_all(line)?;
            }
            fault::reach(FaultPoint::AppendWritten);
            self.journal.sync_data()?;
            fault::reach(FaultPoint::AppendSynced);
            Ok(())
        })();
        if let Err(source) = written {
            // Cut back a partial line so the next append does not glue onto it; if even
            // that fails, the next lock's recovery sets it aside.
            self.poisoned = true;
            let _ = self.journal.set_len(self.journal_len).and_then(|()| self.journal.sync_data());
            return Err(StoreError::Io { path, source });
        }
        self.journal_len += line.len() as u64;
        self.last_seq = seq;
        Ok(())
    }

    /// Begin a change of several writes made as one: from now on the journal entries
    /// appended and the `game.toml` and `state.json` written are kept in memory (the
    /// seqs given out are the ones they will have) until [`commit`](Self::commit) makes
    /// them durable together, or [`discard`](Self::discard) (or dropping the lock)
    /// forgets them. Already staging: nothing changes.
    pub fn stage(&mut self) {
        if self.staged.is_none() {
            self.staged = Some(Staged { base_seq: self.last_seq, lines: Vec::new(), settings: None, state: None });
        }
    }

    /// Forget the staged change: nothing of it was written.
    pub fn discard(&mut self) {
        if let Some(staged) = self.staged.take() {
            self.last_seq = staged.base_seq;
        }
    }

    /// Make the staged change durable as one: its journal entries and `game.toml` are
    /// first written together to [`CHANGE_FILE`] (from then on the change is made: an
    /// interruption is finished by the next lock), then carried out, then the file is
    /// removed. `state.json` (a cache) goes last; a failure to write it does not undo the
    /// change and is returned as `Ok(Some(error))`, for a warning.
    pub fn commit(&mut self) -> Result<Option<StoreError>, StoreError> {
        let Some(staged) = self.staged.take() else { return Ok(None) };
        self.last_seq = staged.base_seq;
        if staged.lines.is_empty() {
            if let Some(text) = &staged.settings {
                write_atomic(&self.dir.file(SETTINGS_FILE), text.as_bytes())?;
            }
        } else {
            let path = self.dir.file(CHANGE_FILE);
            let lines = staged
                .lines
                .iter()
                .map(|l| String::from_utf8_lossy(l.strip_suffix(b"\n").unwrap_or(l)).into_owned())
                .collect();
            let pending = PendingChange { base_seq: staged.base_seq, lines, settings: staged.settings };
            let mut bytes = serde_json::to_vec(&pending)
                .map_err(|e| StoreError::Serialize { path: path.clone(), message: e.to_string() })?;
            bytes.push(b'\n');
            write_atomic(&path, &bytes)?;
            self.carry_out_change(&path, pending)?;
        }
        Ok(staged.state.and_then(|bytes| write_atomic(&self.dir.file(STATE_FILE), &bytes).err()))
    }

    /// Carry out the change in [`CHANGE_FILE`] from where the journal stands: append the
    /// entries it still lacks, write `game.toml`, remove the file. Returns how many
    /// entries were appended.
    fn carry_out_change(&mut self, path: &Path, pending: PendingChange) -> Result<usize, StoreError> {
        let corrupt = |message: String| StoreError::Corrupt { path: path.to_path_buf(), line: None, message };
        let of = pending.lines.len() as u64;
        let done = self.last_seq.checked_sub(pending.base_seq).filter(|d| *d <= of).ok_or_else(|| {
            corrupt(format!(
                "a change of journal entries {}..={} does not fit the journal, which ends at {}: \
                 a person has to look",
                pending.base_seq + 1,
                pending.base_seq + of,
                self.last_seq
            ))
        })?;
        let mut appended = 0;
        for (i, line) in pending.lines.iter().enumerate().skip(done as usize) {
            let mut bytes = line.clone().into_bytes();
            bytes.push(b'\n');
            self.append_line(pending.base_seq + i as u64 + 1, &bytes)?;
            appended += 1;
        }
        if let Some(text) = &pending.settings {
            write_atomic(&self.dir.file(SETTINGS_FILE), text.as_bytes())?;
        }
        fs::remove_file(path).map_err(StoreError::io(path))?;
        sync_dir(&self.dir.root)?;
        Ok(appended)
    }

    /// At the lock: finish a change an interruption cut short.
    fn finish_pending_change(&mut self) -> Result<(), StoreError> {
        let path = self.dir.file(CHANGE_FILE);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(StoreError::Io { path, source: e }),
        };
        let pending: PendingChange = serde_json::from_slice(&bytes).map_err(|e| StoreError::Parse {
            file: path.clone(),
            line: e.line(),
            column: e.column(),
            message: journal::json_message(&e),
        })?;
        let of = pending.lines.len();
        let appended = self.carry_out_change(&path, pending)?;
        self.dir.recovered.push(Recovered::ChangeFinished { path, appended, of });
        Ok(())
    }

    /// Replaces `state.json` atomically with `state`, recorded as having applied journal
    /// entries 1..=`seq_applied`.
    pub fn write_state<T: Serialize>(&mut self, seq_applied: u64, state: &T) -> Result<(), StoreError> {
        let path = self.dir.file(STATE_FILE);
        if seq_applied > self.last_seq {
            return Err(StoreError::StateAheadOfJournal { path, seq_applied, journal_seq: self.last_seq });
        }
        let serialize = |e: serde_json::Error| StoreError::Serialize { path: path.clone(), message: e.to_string() };
        let check = state_check(&serde_json::to_value(state).map_err(serialize)?);
        let mut bytes = serde_json::to_vec_pretty(&StateOut { seq_applied, state, check }).map_err(serialize)?;
        bytes.push(b'\n');
        if let Some(staged) = &mut self.staged {
            staged.state = Some(bytes);
            return Ok(());
        }
        write_atomic(&path, &bytes)
    }

    /// Replaces the side file `name` (see [`GameDir::read_side`]) atomically with `value`.
    pub fn write_side<T: Serialize>(&self, name: &str, value: &T) -> Result<(), StoreError> {
        let (path, bytes) = self.side_bytes(name, value)?;
        write_atomic(&path, &bytes)
    }

    /// [`GameLock::write_side`] for a secret (the dice's seed): owner-only (0600).
    pub fn write_private_side<T: Serialize>(&self, name: &str, value: &T) -> Result<(), StoreError> {
        let (path, bytes) = self.side_bytes(name, value)?;
        write_atomic_private(&path, &bytes)
    }

    /// The path of side file `name` (checked) and `value` as its JSON.
    fn side_bytes<T: Serialize>(&self, name: &str, value: &T) -> Result<(PathBuf, Vec<u8>), StoreError> {
        let path = self.dir.file(name);
        if !side_name_ok(name) {
            return Err(bad_name(path, "side file"));
        }
        let mut bytes = serde_json::to_vec_pretty(value)
            .map_err(|e| StoreError::Serialize { path: path.clone(), message: e.to_string() })?;
        bytes.push(b'\n');
        Ok((path, bytes))
    }

    /// Replaces the side file `name` atomically with `value`, not durably: for a cache
    /// that a reader checks and can do without (a crash may leave the old one or an empty
    /// one, which does not parse and so reads as an error: treat it as none).
    pub fn write_cache_side<T: Serialize>(&self, name: &str, value: &T) -> Result<(), StoreError> {
        let (path, bytes) = self.side_bytes(name, value)?;
        atomic::write_atomic_unsynced(&path, &bytes)
    }

    /// Replaces `game.toml` atomically.
    /// The file keeps its comments and layout: only the values that changed are written
    /// anew (see [`merge_settings`]).
    pub fn write_settings<S: Serialize>(&mut self, settings: &S) -> Result<(), StoreError> {
        let path = self.dir.file(SETTINGS_FILE);
        let text = settings_to_toml(&path, settings)?;
        let text = match fs::read_to_string(&path) {
            Ok(old) => merge_settings(&old, &text).unwrap_or(text),
            Err(_) => text,
        };
        if let Some(staged) = &mut self.staged {
            staged.settings = Some(text);
            return Ok(());
        }
        write_atomic(&path, text.as_bytes())
    }
}

/// `new` (a whole settings file) written over `old` keeping `old`'s comments, order and
/// layout wherever the values are the same; `None` if either does not parse.
pub fn merge_settings(old: &str, new: &str) -> Option<String> {
    let mut doc: toml_edit::DocumentMut = old.parse().ok()?;
    let new: toml_edit::DocumentMut = new.parse().ok()?;
    merge_table(doc.as_table_mut(), new.as_table());
    Some(doc.to_string())
}

fn merge_table(old: &mut toml_edit::Table, new: &toml_edit::Table) {
    let gone: Vec<String> = old.iter().map(|(k, _)| k.to_string()).filter(|k| !new.contains_key(k)).collect();
    for k in gone {
        old.remove(&k);
    }
    for (k, item) in new.iter() {
        match old.get_mut(k) {
            Some(current) => merge_item(current, item),
            None => {
                old.insert(k, item.clone());
            }
        }
    }
}

fn merge_item(old: &mut toml_edit::Item, new: &toml_edit::Item) {
    use toml_edit::Item;
    match (old, new) {
        (Item::Table(o), Item::Table(n)) => merge_table(o, n),
        (Item::ArrayOfTables(o), Item::ArrayOfTables(n)) => {
            while o.len() > n.len() {
                o.remove(o.len() - 1);
            }
            for (i, table) in n.iter().enumerate() {
                match o.get_mut(i) {
                    Some(current) => merge_table(current, table),
                    None => o.push(table.clone()),
                }
            }
        }
        (Item::Value(o), Item::Value(n)) => {
            let bare = |v: &toml_edit::Value| {
                let mut v = v.clone();
                v.decor_mut().clear();
                v.to_string()
            };
            if bare(o) != bare(n) {
                let decor = o.decor().clone();
                *o = n.clone();
                *o.decor_mut() = decor;
            }
        }
        (o, n) => *o = n.clone(),
    }
}

fn settings_to_toml<S: Serialize>(path: &Path, settings: &S) -> Result<String, StoreError> {
    toml::to_string_pretty(settings)
        .map_err(|e| StoreError::Serialize { path: path.to_path_buf(), message: e.to_string() })
}

fn require_settings(root: &Path) -> Result<(), StoreError> {
    let settings = root.join(SETTINGS_FILE);
    match fs::metadata(&settings) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(StoreError::NotAGame { path: root.to_path_buf() }),
        Err(source) => Err(StoreError::Io { path: settings, source }),
    }
}

fn read_journal_bytes(path: &Path) -> Result<Vec<u8>, StoreError> {
    match fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err(StoreError::corrupt(path, None, "the journal is missing (a game directory always has one)"))
        }
        Err(source) => Err(StoreError::Io { path: path.to_path_buf(), source }),
    }
}
