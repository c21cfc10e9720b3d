//! Durable whole-file writes: temp file in the same directory, write, fsync, rename over
//! the target, fsync the directory. A reader sees the old file or the new one, never a mix.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::StoreError;
use super::fault::{self, FaultPoint};

/// Marks temp files; [`is_temp_name`] recognises them for cleanup after a crash.
const TEMP_MARK: &str = ".tmp-";

/// Replaces `path` with `bytes` durably: when this returns `Ok`, the new contents survive a
/// crash, and at no instant can a reader see a half-written file.
///
/// The temp file is `.<name>.tmp-<pid>-<n>` beside the target; a crash can leave one
/// behind, and `remove_temp_files` (run by the game lock and the spool) clears them.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    replace_with(path, bytes, false)
}

/// [`write_atomic`] for a secret (a seed, a record of passwords sent): the file is
/// created readable and writable by its owner only (0600).
pub fn write_atomic_private(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    replace_with(path, bytes, true)
}

fn replace_with(path: &Path, bytes: &[u8], private: bool) -> Result<(), StoreError> {
    let temp = write_temp(path, bytes, private)?;
    if let Err(source) = fs::rename(&temp, path) {
        let _ = fs::remove_file(&temp);
        return Err(StoreError::Io { path: path.to_path_buf(), source });
    }
    fault::reach(FaultPoint::Renamed);
    sync_dir(parent_of(path))
}

/// Replaces `path` with `bytes` atomically but not durably: a reader sees the old file or
/// the new one, never a mix, but a crash may leave the old one, or an empty one. Only for
/// a cache that a reader checks and can do without (a missing or unreadable one is none).
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = parent_of(path).join(format!(".{name}{TEMP_MARK}{}-cache", std::process::id()));
    let written = fault::check_write(path)
        .and_then(|()| OpenOptions::new().write(true).create(true).truncate(true).open(&temp))
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| fs::rename(&temp, path));
    written.map_err(|source| {
        let _ = fs::remove_file(&temp);
        StoreError::Io { path: path.to_path_buf(), source }
    })
}

/// Creates a directory (and its parents) with its last part owner-only (0700), and makes
/// an existing one so: for folders that hold secrets.
pub fn create_private_dir(dir: &Path) -> Result<(), StoreError> {
    fs::create_dir_all(dir).map_err(StoreError::io(dir))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(StoreError::io(dir))?;
    }
    Ok(())
}

/// Opens (creating it owner-only, 0600, if missing) a file to lock or append to.
pub fn open_private(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Writes and syncs a fresh temp file beside `target`, and returns its path; `private`
/// creates it owner-only (0600).
pub(crate) fn write_temp(target: &Path, bytes: &[u8], private: bool) -> Result<PathBuf, StoreError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = parent_of(target).join(format!(".{name}{TEMP_MARK}{}-{n}", std::process::id()));
    let result = (|| {
        fault::check_write(target)?;
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        #[cfg(not(unix))]
        let _ = private;
        let mut file = options.open(&temp)?;
        file.write_all(bytes)?;
        fault::reach(FaultPoint::TempWritten);
        file.sync_all()?;
        fault::reach(FaultPoint::TempSynced);
        Ok(())
    })();
    match result {
        Ok(()) => Ok(temp),
        Err(source) => {
            let _ = fs::remove_file(&temp);
            Err(StoreError::Io { path: temp, source })
        }
    }
}

/// Makes a directory's entries (created, renamed, removed files) durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        File::open(dir).and_then(|d| d.sync_all()).map_err(StoreError::io(dir))
    }
    #[cfg(not(unix))]
    {
        // Directories cannot be opened as files here; renames are durable once the
        // file system's own journal commits them.
        let _ = dir;
        Ok(())
    }
}

pub(crate) fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// True for the names [`write_atomic`] gives its temp files.
pub(crate) fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.contains(TEMP_MARK)
}

/// Removes leftover temp files directly inside `dir` and returns their paths. Only safe
/// while no one else can be writing there (the caller holds the directory's lock).
pub(crate) fn remove_temp_files(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let mut removed = Vec::new();
    for entry in fs::read_dir(dir).map_err(StoreError::io(dir))? {
        let entry = entry.map_err(StoreError::io(dir))?;
        if entry.file_name().to_str().is_some_and(is_temp_name) {
            let path = entry.path();
            fs::remove_file(&path).map_err(StoreError::io(&path))?;
            removed.push(path);
        }
    }
    if !removed.is_empty() {
        sync_dir(dir)?;
    }
    removed.sort();
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_recognised_and_targets_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("state.json");
        let temp = write_temp(&target, b"{}", false).unwrap();
        let name = temp.file_name().unwrap().to_str().unwrap();
        assert!(is_temp_name(name), "{name}");
        assert!(!is_temp_name("state.json"));
        assert!(!is_temp_name(".lock"));
        assert!(!is_temp_name("journal.jsonl.torn-3"));
    }

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("f");
        write_atomic(&target, b"one").unwrap();
        write_atomic(&target, b"two").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn remove_temp_files_removes_only_temps() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("state.json");
        fs::write(&target, b"{}").unwrap();
        let temp = write_temp(&target, b"half", false).unwrap();
        let removed = remove_temp_files(dir.path()).unwrap();
        assert_eq!(removed, vec![temp]);
        assert!(target.exists());
    }
}
