//! A Maildir polled: each new message ingested, then moved to `cur`.

use super::*;

/// One Maildir file, and what became of it.
#[derive(Debug)]
pub struct Polled {
    pub file: PathBuf,
    pub outcome: IngestOutcome,
}

/// Ingest every message in `dir/new`, oldest name first, and move each one taken to
/// `dir/cur` (marked seen). A message that must be retried stays in `new` for the next
/// poll. The caller sends the mails of each outcome.
///
/// Polls of one Maildir take turns: each holds `dir/.shadowjudge-poll.lock` while it
/// reads. A file another reader took meanwhile (a mail client, a poll that does not
/// lock) is skipped; a file that cannot be moved to `cur` once read is still answered,
/// and applies only once whoever reads it again (its Message-ID is claimed).
pub fn poll_maildir(
    dir: &Path,
    host: &mut impl GameHost,
    intake: &impl Intake,
    settings: &MailSettings,
    now: DateTime<Utc>,
) -> std::io::Result<Vec<Polled>> {
    use fs4::fs_std::FileExt;
    let new = dir.join("new");
    let cur = dir.join("cur");
    std::fs::create_dir_all(&cur)?;
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".shadowjudge-poll.lock"))?;
    FileExt::lock_exclusive(&lock)?;
    let mut names: Vec<std::ffi::OsString> = std::fs::read_dir(&new)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| e.file_name())
        .filter(|n| !n.to_string_lossy().starts_with('.'))
        .collect();
    names.sort();
    let mut polled = Vec::new();
    for name in names {
        let path = new.join(&name);
        let raw = match std::fs::read(&path) {
            Ok(raw) => raw,
            // Gone (another reader took it) or unreadable now: the next poll sees it again.
            Err(_) => continue,
        };
        let outcome = ingest(&raw, host, intake, settings, now);
        let file = if outcome.must_retry() {
            path
        } else {
            let mut seen = name.to_string_lossy().into_owned();
            if !seen.contains(":2,") {
                seen.push_str(":2,S");
            }
            let target = cur.join(seen);
            // Moved already by another reader, or not movable: the answer is owed anyway.
            match std::fs::rename(&path, &target) {
                Ok(()) => target,
                Err(_) => path,
            }
        };
        polled.push(Polled { file, outcome });
    }
    drop(lock);
    Ok(polled)
}
