//! The game store: round trips, recovery after crashes, error messages that name the file
//! and line, the lock under concurrency, and the kill test (a child process writing in a
//! loop is SIGKILLed at random moments and at every write step; nothing acknowledged may
//! be lost).
//!
//! The child is this test binary itself, re-run on the `store::child_writer` test with
//! `SJ_STORE_CHILD_DIR` set (so it works under `cargo test` on a clean clone).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeZone, Utc};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use shadowjudge::store::fault::{self, FaultPoint};
use shadowjudge::store::{GameDir, Recovered, Spool, StoreError};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Settings {
    name: String,
    generation: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Entry {
    tag: String,
    i: u64,
    /// Makes lines long enough that half a line is a real fragment.
    pad: String,
}

/// Each field is derived from `seq`, so a mix of two writes would show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct State {
    seq: u64,
    check: u64,
    filler: Vec<u64>,
}

impl State {
    fn at(seq: u64) -> State {
        State { seq, check: seq.wrapping_mul(7919) ^ 0x5eed, filler: vec![seq; 300] }
    }
}

fn settings(generation: u64) -> Settings {
    Settings { name: "kill test".into(), generation }
}

fn entry(tag: &str, i: u64) -> Entry {
    Entry { tag: tag.into(), i, pad: "x".repeat(120) }
}

fn time(seq: u64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 3, 1, 18, 0, 0).unwrap() + chrono::Duration::seconds(seq as i64)
}

fn new_game() -> (tempfile::TempDir, GameDir) {
    let tmp = tempfile::tempdir().unwrap();
    let game = GameDir::create(tmp.path().join("game"), &settings(0)).unwrap();
    (tmp, game)
}

fn journal_path(game: &GameDir) -> PathBuf {
    game.path().join("journal.jsonl")
}

fn line(seq: u64, entry: &str) -> String {
    format!("{{\"seq\":{seq},\"at\":\"2025-03-01T18:00:00Z\",\"entry\":{entry}}}\n")
}

// ---------------------------------------------------------------------------------------
// Round trips

#[test]
fn create_then_open_round_trips_settings_journal_and_state() {
    let (_tmp, game) = new_game();
    let mut lock = game.lock().unwrap();
    assert_eq!(lock.last_seq(), 0);
    assert_eq!(lock.append(time(1), &entry("a", 1)).unwrap(), 1);
    assert_eq!(lock.append(time(2), &entry("a", 2)).unwrap(), 2);
    lock.write_state(2, &State::at(2)).unwrap();
    lock.write_settings(&settings(7)).unwrap();
    drop(lock);

    let reopened = GameDir::open(game.path()).unwrap();
    assert!(reopened.recovered().is_empty());
    assert_eq!(reopened.read_settings::<Settings>().unwrap(), settings(7));
    assert_eq!(reopened.read_state::<State>().unwrap(), Some((2, State::at(2))));
    let journal = reopened.journal::<Entry>().unwrap();
    let seqs: Vec<u64> = journal.records().iter().map(|r| r.seq).collect();
    assert_eq!(seqs, [1, 2]);
    assert_eq!(journal.records()[1].at, time(2));
    assert_eq!(journal.records()[1].entry, entry("a", 2));
    assert_eq!(journal.torn_tail(), None);
}

#[test]
fn journal_lines_have_the_documented_format() {
    let (_tmp, game) = new_game();
    let mut lock = game.lock().unwrap();
    lock.append(time(0), &serde_json::json!({"orders": ["A Par-Bur"]})).unwrap();
    let text = fs::read_to_string(journal_path(&game)).unwrap();
    assert_eq!(text, "{\"seq\":1,\"at\":\"2025-03-01T18:00:00Z\",\"entry\":{\"orders\":[\"A Par-Bur\"]}}\n");
}

#[test]
fn state_behind_the_journal_is_visible_for_replay() {
    let (_tmp, game) = new_game();
    let mut lock = game.lock().unwrap();
    for i in 1..=5 {
        lock.append(time(i), &entry("a", i)).unwrap();
    }
    lock.write_state(3, &State::at(3)).unwrap();
    drop(lock);
    let (applied, _) = game.read_state::<State>().unwrap().unwrap();
    let journal = game.journal::<Entry>().unwrap();
    let pending: Vec<u64> = journal.after(applied).iter().map(|r| r.seq).collect();
    assert_eq!(pending, [4, 5]);
}

#[test]
fn no_state_reads_as_none() {
    let (_tmp, game) = new_game();
    assert_eq!(game.read_state::<State>().unwrap(), None);
}

#[test]
fn state_ahead_of_the_journal_is_refused() {
    let (_tmp, game) = new_game();
    let mut lock = game.lock().unwrap();
    let err = lock.write_state(1, &State::at(1)).unwrap_err();
    assert!(matches!(err, StoreError::StateAheadOfJournal { seq_applied: 1, journal_seq: 0, .. }), "{err}");
}

#[test]
fn create_refuses_a_non_empty_directory() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
    let err = GameDir::create(tmp.path(), &settings(0)).unwrap_err();
    assert!(matches!(err, StoreError::AlreadyExists { .. }), "{err}");
    assert_eq!(fs::read_to_string(tmp.path().join("notes.txt")).unwrap(), "mine");
}

#[test]
fn create_accepts_an_existing_empty_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let game = GameDir::create(tmp.path(), &settings(1)).unwrap();
    assert_eq!(game.read_settings::<Settings>().unwrap(), settings(1));
    assert!(game.journal::<Entry>().unwrap().is_empty());
}

#[test]
fn open_refuses_a_directory_without_game_toml() {
    let tmp = tempfile::tempdir().unwrap();
    let err = GameDir::open(tmp.path()).unwrap_err();
    assert!(matches!(err, StoreError::NotAGame { .. }), "{err}");
    assert!(err.to_string().contains("game.toml"), "{err}");
}

#[test]
fn a_missing_journal_is_an_error_not_an_empty_game() {
    let (_tmp, game) = new_game();
    fs::remove_file(journal_path(&game)).unwrap();
    let err = GameDir::open(game.path()).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("journal.jsonl: the journal is missing"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Recovery and error messages

#[test]
fn a_torn_final_line_is_set_aside_and_reported() {
    let (_tmp, game) = new_game();
    let fragment = "{\"seq\":2,\"at\":\"2025-03";
    fs::write(journal_path(&game), format!("{}{fragment}", line(1, "\"a\""))).unwrap();

    // A reader without the lock skips it and says so.
    let reader = GameDir::open_for_reading(game.path()).unwrap();
    let journal = reader.journal::<String>().unwrap();
    assert_eq!((journal.len(), journal.torn_tail()), (1, Some(2)));

    let opened = GameDir::open(game.path()).unwrap();
    let set_aside = game.path().join("journal.jsonl.torn-2");
    assert_eq!(
        opened.recovered(),
        [Recovered::TornTail {
            journal: journal_path(&game),
            line: 2,
            set_aside: set_aside.clone(),
            bytes: fragment.len()
        }]
    );
    let message = opened.recovered()[0].to_string();
    assert!(
        message.ends_with(
            "journal.jsonl: line 2 was an interrupted write, never acknowledged; set aside as `journal.jsonl.torn-2` (22 bytes)"
        ),
        "{message}"
    );
    assert_eq!(fs::read_to_string(&set_aside).unwrap(), fragment);
    assert_eq!(fs::read_to_string(journal_path(&game)).unwrap(), line(1, "\"a\""));

    // The next append takes the torn line's seq; a second tear at that seq gets a new name.
    let mut lock = opened.lock().unwrap();
    assert!(lock.recovered().is_empty());
    assert_eq!(lock.append(time(2), &"b").unwrap(), 2);
    drop(lock);
    let mut file = fs::OpenOptions::new().append(true).open(journal_path(&game)).unwrap();
    file.write_all(b"{\"se").unwrap();
    fs::write(game.path().join("journal.jsonl.torn-3"), "older").unwrap();
    let again = GameDir::open(game.path()).unwrap();
    assert!(
        matches!(&again.recovered()[0], Recovered::TornTail { set_aside, .. } if set_aside.ends_with("journal.jsonl.torn-3.2")),
        "{:?}",
        again.recovered()
    );
    assert_eq!(game.journal::<String>().unwrap().last_seq(), 2);
}

#[test]
fn a_corrupt_middle_line_names_the_file_and_line() {
    let (_tmp, game) = new_game();
    let text = format!("{}{{\"seq\":2,\"at\":oops}}\n{}", line(1, "1"), line(3, "3"));
    fs::write(journal_path(&game), text).unwrap();
    for err in [GameDir::open(game.path()).unwrap_err(), game.journal::<u32>().unwrap_err()] {
        let message = err.to_string();
        assert!(matches!(err, StoreError::Parse { line: 2, .. }), "{message}");
        assert!(message.contains("journal.jsonl:2:"), "{message}");
    }
    // Nothing was "repaired": the file is as the person left it.
    assert!(fs::read_to_string(journal_path(&game)).unwrap().contains("oops"));
}

#[test]
fn a_seq_out_of_order_names_the_line() {
    let (_tmp, game) = new_game();
    fs::write(journal_path(&game), format!("{}{}{}", line(1, "1"), line(2, "2"), line(2, "3"))).unwrap();
    let err = GameDir::open(game.path()).unwrap_err();
    assert!(err.to_string().ends_with("journal.jsonl:3: seq 2 where 3 was expected"), "{err}");
}

#[test]
fn an_entry_of_the_wrong_type_names_the_line() {
    let (_tmp, game) = new_game();
    fs::write(journal_path(&game), format!("{}{}", line(1, "1"), line(2, "\"two\""))).unwrap();
    let err = game.journal::<u32>().unwrap_err();
    assert!(err.to_string().contains("journal.jsonl:2:"), "{err}");
}

#[test]
fn a_broken_game_toml_names_the_file_line_and_column() {
    let (_tmp, game) = new_game();
    fs::write(game.path().join("game.toml"), "name = \"x\"\n# a comment\ngeneration = = 3\n").unwrap();
    let err = game.read_settings::<Settings>().unwrap_err();
    assert!(matches!(err, StoreError::Parse { line: 3, column: 14, .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("game.toml:3:14: "), "{message}");
}

#[test]
fn a_game_toml_with_a_wrong_type_names_the_key_line() {
    let (_tmp, game) = new_game();
    fs::write(game.path().join("game.toml"), "name = \"x\"\ngeneration = \"three\"\n").unwrap();
    let err = game.read_settings::<Settings>().unwrap_err();
    assert!(err.to_string().contains("game.toml:2:"), "{err}");
}

#[test]
fn a_game_toml_that_is_not_utf8_names_the_line() {
    let (_tmp, game) = new_game();
    fs::write(game.path().join("game.toml"), b"name = \"x\"\ngeneration = \xff\n").unwrap();
    let err = game.read_settings::<Settings>().unwrap_err();
    assert!(err.to_string().contains("game.toml:2:14: invalid UTF-8"), "{err}");
}

#[test]
fn a_broken_state_json_names_the_file_and_line_and_is_not_reset() {
    let (_tmp, game) = new_game();
    let path = game.path().join("state.json");
    fs::write(&path, "{\n  \"seq_applied\": 0,\n  \"state\": {\"seq\": }\n}\n").unwrap();
    let err = game.read_state::<State>().unwrap_err();
    assert!(err.to_string().contains("state.json:3:"), "{err}");
    GameDir::open(game.path()).unwrap();
    assert!(fs::read_to_string(&path).unwrap().contains("\"seq\": }"));
}

#[test]
fn leftover_temp_files_are_removed_on_open_and_reported() {
    let (_tmp, game) = new_game();
    let temp = game.path().join(".state.json.tmp-4242-0");
    fs::write(&temp, "{\"seq_applied\": 0, \"sta").unwrap();
    fs::write(game.path().join("notes.txt"), "kept").unwrap();
    let opened = GameDir::open(game.path()).unwrap();
    assert_eq!(opened.recovered(), [Recovered::TempFileRemoved { path: temp.clone() }]);
    assert!(opened.recovered()[0].to_string().contains("leftover temporary file"), "{}", opened.recovered()[0]);
    assert!(!temp.exists());
    assert!(game.path().join("notes.txt").exists());
}

#[test]
fn try_lock_reports_locked_by_another_writer() {
    let (_tmp, game) = new_game();
    let held = game.lock().unwrap();
    let other = GameDir::open_for_reading(game.path()).unwrap();
    let err = other.try_lock().unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");
    assert!(err.to_string().ends_with(".lock: locked by another writer"), "{err}");
    drop(held);
    other.try_lock().unwrap();
}

#[test]
fn side_files_round_trip_under_the_lock_and_leave_the_journal_alone() {
    let (_tmp, game) = new_game();
    assert_eq!(game.read_side::<BTreeMap<String, u64>>("mailed.json").unwrap(), None);
    let mut lock = game.lock().unwrap();
    lock.append(time(1), &entry("a", 1)).unwrap();
    let value = BTreeMap::from([("seq".to_string(), 1u64)]);
    lock.write_side("mailed.json", &value).unwrap();
    drop(lock);
    assert_eq!(game.read_side::<BTreeMap<String, u64>>("mailed.json").unwrap(), Some(value));
    assert_eq!(game.journal::<Entry>().unwrap().last_seq(), 1);
    // Reopening recovers nothing: a side file is neither a temp file nor part of the journal.
    assert!(GameDir::open(game.path()).unwrap().recovered().is_empty());
    let names: BTreeSet<String> =
        fs::read_dir(game.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.contains("mailed.json") && !names.iter().any(|n| n.contains(".tmp-")), "{names:?}");
}

#[test]
fn a_broken_side_file_names_its_line_and_is_not_read_as_empty() {
    let (_tmp, game) = new_game();
    fs::write(game.path().join("mailed.json"), "{\n  \"results\": {,\n}\n").unwrap();
    let err = game.read_side::<serde_json::Value>("mailed.json").unwrap_err();
    assert!(matches!(err, StoreError::Parse { line: 2, .. }), "{err}");
    assert!(err.to_string().contains("mailed.json:2:"), "{err}");
}

#[test]
fn side_files_and_task_locks_refuse_names_that_are_not_theirs() {
    let (_tmp, game) = new_game();
    let lock = game.lock().unwrap();
    for name in ["state.json", "game.toml", "journal.jsonl", "../mailed.json", "Mailed.json", ".x.json", "x", ".json"] {
        assert!(lock.write_side(name, &1).is_err(), "{name} was accepted as a side file");
        assert!(game.read_side::<u64>(name).is_err(), "{name} was read as a side file");
    }
    drop(lock);
    assert_eq!(game.read_state::<State>().unwrap(), None, "state.json was written through write_side");
    for task in ["", "../x", "Mailing", "a b"] {
        assert!(game.lock_task(task, false).is_err(), "task `{task}` was accepted");
    }
}

#[test]
fn a_task_lock_excludes_a_second_run_and_not_the_games_writers() {
    let (_tmp, game) = new_game();
    let held = game.lock_task("mailing", false).unwrap().expect("free at first");
    let other = GameDir::open_for_reading(game.path()).unwrap();
    assert!(other.lock_task("mailing", false).unwrap().is_none(), "a second run took the task lock");
    assert!(other.lock_task("another", false).unwrap().is_some(), "tasks share one lock");
    // The game's own lock is free meanwhile: writers are not held back by the task.
    let mut writer = other.try_lock().unwrap();
    writer.append(time(1), &entry("w", 1)).unwrap();
    drop(writer);
    drop(held);
    assert!(other.lock_task("mailing", false).unwrap().is_some());
}

#[test]
fn write_atomic_is_usable_on_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("out.txt");
    shadowjudge::store::write_atomic(&path, b"first").unwrap();
    shadowjudge::store::write_atomic(&path, b"second").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"second");
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
}

// ---------------------------------------------------------------------------------------
// Spool

#[test]
fn spool_puts_lists_reads_and_removes() {
    let tmp = tempfile::tempdir().unwrap();
    let spool = Spool::open(tmp.path().join("inbound")).unwrap();
    let first = spool.put(time(1), b"message one").unwrap();
    let second = spool.put(time(1), b"message two").unwrap();
    assert_ne!(first, second);
    let listed = spool.list().unwrap();
    assert_eq!(listed.len(), 2);
    let mut bodies: Vec<Vec<u8>> = listed.iter().map(|id| spool.read(id).unwrap()).collect();
    bodies.sort();
    assert_eq!(bodies, [b"message one".to_vec(), b"message two".to_vec()]);
    spool.remove(&first).unwrap();
    assert_eq!(spool.list().unwrap(), std::slice::from_ref(&second));
    assert_eq!(spool.path_of(&second), spool.path().join(second.as_str()));
}

#[test]
fn spool_open_removes_leftover_temp_files() {
    let tmp = tempfile::tempdir().unwrap();
    let spool = Spool::open(tmp.path()).unwrap();
    let id = spool.put(time(1), b"kept").unwrap();
    let temp = tmp.path().join(".20250301T180000.000000000Z-00.tmp-99-0");
    fs::write(&temp, b"half").unwrap();
    // Removed when nobody is putting. Another test of this process that starts a child
    // just as `put` holds the spool's shared lock lends the lock to that child until it
    // has started (a lock belongs to the open file, which the child shares that long), so
    // the first open may find the spool busy: open again, as the next ingest would.
    let mut reopened = Spool::open(tmp.path()).unwrap();
    for _ in 0..100 {
        if !temp.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        reopened = Spool::open(tmp.path()).unwrap();
    }
    assert!(!temp.exists());
    assert_eq!(reopened.list().unwrap(), [id]);
}

#[test]
fn spool_puts_from_many_threads_are_all_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let spool = Spool::open(tmp.path()).unwrap();
    let handles: Vec<_> = (0..4u8)
        .map(|t| {
            let spool = spool.clone();
            std::thread::spawn(move || (0..10u8).map(|i| spool.put(time(1), &[t, i]).unwrap()).collect::<Vec<_>>())
        })
        .collect();
    let ids: BTreeSet<_> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    assert_eq!(ids.len(), 40);
    assert_eq!(spool.list().unwrap(), ids.iter().cloned().collect::<Vec<_>>());
    let bodies: BTreeSet<Vec<u8>> = ids.iter().map(|id| spool.read(id).unwrap()).collect();
    assert_eq!(bodies.len(), 40);
}

// ---------------------------------------------------------------------------------------
// Concurrency

#[test]
fn threads_appending_under_the_lock_get_unique_increasing_seqs() {
    let (_tmp, game) = new_game();
    const THREADS: u64 = 4;
    const EACH: u64 = 15;
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let path = game.path().to_path_buf();
            std::thread::spawn(move || {
                let game = GameDir::open(&path).unwrap();
                (1..=EACH)
                    .map(|i| {
                        let mut lock = game.lock().unwrap();
                        lock.append(time(i), &entry(&format!("thread-{t}"), i)).unwrap()
                    })
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut all = Vec::new();
    for handle in handles {
        let seqs = handle.join().unwrap();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
        all.extend(seqs);
    }
    all.sort();
    assert_eq!(all, (1..=THREADS * EACH).collect::<Vec<_>>());
    assert_journal_has_each_tag_once(&game, THREADS as usize, EACH);
}

#[test]
fn processes_appending_under_the_lock_get_unique_increasing_seqs() {
    let (_tmp, game) = new_game();
    const PROCESSES: usize = 3;
    const EACH: u64 = 10;
    let children: Vec<ChildWriter> =
        (0..PROCESSES).map(|p| ChildWriter::spawn(game.path(), &format!("process-{p}"), None, Some(EACH))).collect();
    let mut all = Vec::new();
    for child in children {
        let (status, lines) = child.wait();
        assert!(status.success(), "{lines:?}");
        all.extend(acks(&lines));
    }
    all.sort();
    assert_eq!(all, (1..=PROCESSES as u64 * EACH).collect::<Vec<_>>());
    assert_journal_has_each_tag_once(&game, PROCESSES, EACH);
}

fn assert_journal_has_each_tag_once(game: &GameDir, tags: usize, each: u64) {
    let journal = game.journal::<Entry>().unwrap();
    let mut by_tag: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for record in journal.records() {
        by_tag.entry(record.entry.tag.clone()).or_default().push(record.entry.i);
    }
    assert_eq!(by_tag.len(), tags);
    for (tag, is) in by_tag {
        assert_eq!(is, (1..=each).collect::<Vec<_>>(), "{tag}");
    }
}

// ---------------------------------------------------------------------------------------
// The kill test

const CHILD_DIR: &str = "SJ_STORE_CHILD_DIR";
const CHILD_TAG: &str = "SJ_STORE_CHILD_TAG";
const CHILD_FAULT: &str = "SJ_STORE_CHILD_FAULT";
const CHILD_LIMIT: &str = "SJ_STORE_CHILD_LIMIT";

/// In a child process (`SJ_STORE_CHILD_DIR` set): the writer loop the kill test kills.
/// Run as an ordinary test, it runs the same loop in-process for a few rounds.
#[test]
fn child_writer() {
    match std::env::var_os(CHILD_DIR) {
        Some(dir) => run_child(Path::new(&dir)),
        None => {
            let (_tmp, game) = new_game();
            let mut out = Vec::new();
            writer_loop(game.path(), "solo", Some(6), &mut out).unwrap();
            let out = String::from_utf8(out).unwrap();
            let lines: Vec<String> = out.lines().map(str::to_owned).collect();
            assert_eq!(acks(&lines), (1..=6).collect::<Vec<_>>());
            assert_eq!(game.journal::<Entry>().unwrap().last_seq(), 6);
            assert_eq!(game.read_state::<State>().unwrap(), Some((6, State::at(6))));
            assert_eq!(game.read_settings::<Settings>().unwrap(), settings(5));
        }
    }
}

fn run_child(dir: &Path) {
    if let Ok(spec) = std::env::var(CHILD_FAULT) {
        let (name, k) = spec.split_once(':').expect("fault spec is point:k");
        let point = FaultPoint::from_name(name).expect("known fault point");
        FAULT_AT.set((point, k.parse().expect("k is a number"))).expect("set once");
        fault::set_hook(stop_at_fault);
    }
    let tag = std::env::var(CHILD_TAG).unwrap_or_default();
    if tag == CHANGE_TAG {
        if let Err(e) = one_change(dir) {
            println!("error {e}");
            std::process::exit(3);
        }
        return;
    }
    let limit = std::env::var(CHILD_LIMIT).ok().map(|n| n.parse().expect("limit is a number"));
    let mut stdout = std::io::stdout();
    if let Err(e) = writer_loop(dir, &tag, limit, &mut stdout) {
        println!("error {e}");
        std::process::exit(3);
    }
}

static FAULT_AT: OnceLock<(FaultPoint, usize)> = OnceLock::new();
static FAULT_SEEN: AtomicUsize = AtomicUsize::new(0);

/// Tells the parent where we are and waits for its SIGKILL.
fn stop_at_fault(point: FaultPoint) {
    let Some(&(target, k)) = FAULT_AT.get() else { return };
    if point == target && FAULT_SEEN.fetch_add(1, Ordering::SeqCst) + 1 == k {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "fault {}", point.name());
        let _ = out.flush();
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

/// Appends entries and writes state and settings in a loop, printing `ack N` only after
/// `append` returned N, `state N` after `write_state` returned, `settings N` likewise.
fn writer_loop(dir: &Path, tag: &str, limit: Option<u64>, out: &mut dyn Write) -> Result<(), StoreError> {
    let game = GameDir::open(dir)?;
    let report = |out: &mut dyn Write, recovered: &[Recovered]| {
        for r in recovered {
            let kind = match r {
                Recovered::TornTail { .. } => "torn",
                Recovered::TempFileRemoved { .. } => "temp",
                Recovered::ChangeFinished { .. } => "change",
            };
            let _ = writeln!(out, "recovered {kind} {r}");
        }
    };
    report(out, game.recovered());
    let _ = writeln!(out, "ready");
    let _ = out.flush();
    // A safety net: a child whose parent died does not run for ever.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut i = 0;
    while limit.is_none_or(|n| i < n) && Instant::now() < deadline {
        i += 1;
        let mut lock = game.lock()?;
        report(out, lock.recovered());
        let seq = lock.append(time(i), &entry(tag, i))?;
        let _ = writeln!(out, "ack {seq}");
        let _ = out.flush();
        if seq % 2 == 0 {
            lock.write_state(seq, &State::at(seq))?;
            let _ = writeln!(out, "state {seq}");
        }
        if seq % 5 == 0 {
            lock.write_settings(&settings(seq))?;
            let _ = writeln!(out, "settings {seq}");
        }
        let _ = out.flush();
    }
    Ok(())
}

/// The child's tag that makes it write [`one_change`] instead of the loop.
const CHANGE_TAG: &str = "one-change";

/// One staged change: three entries, game.toml and state.json, committed as one.
fn one_change(dir: &Path) -> Result<(), StoreError> {
    let game = GameDir::open(dir)?;
    let mut lock = game.lock()?;
    lock.stage();
    for i in 1..=3 {
        lock.append(time(i), &entry(CHANGE_TAG, i))?;
    }
    lock.write_settings(&settings(99))?;
    lock.write_state(3, &State::at(3))?;
    assert!(lock.commit()?.is_none());
    println!("committed");
    Ok(())
}

/// A staged change is all or nothing: a child killed at every step of its commit (each
/// fault point, each time it is met) leaves a game that, once locked again, has either
/// none of the change (killed before the change file was in place) or all of it, its
/// entries and its game.toml (killed after: the lock finishes it and says so).
#[test]
fn a_staged_change_killed_at_any_step_is_all_or_nothing() {
    let mut kills = 0;
    for point in FaultPoint::ALL {
        for k in 1.. {
            let (_tmp, game) = new_game();
            let mut child = ChildWriter::spawn(game.path(), CHANGE_TAG, Some((point, k)), None);
            let faulted = child.wait_for("fault ", Duration::from_secs(30));
            let lines = child.kill();
            if !faulted {
                assert!(lines.iter().any(|l| l == "committed"), "{point:?}:{k}: {lines:?}");
                break;
            }
            kills += 1;
            let reopened = GameDir::open(game.path()).unwrap();
            let journal = game.journal::<Entry>().unwrap();
            let settings_now: Settings = game.read_settings().unwrap();
            // The change file is the first atomic write: its temp file written or synced
            // is before the change; everything after its rename is the change made.
            let before_change = matches!(point, FaultPoint::TempWritten | FaultPoint::TempSynced) && k == 1;
            if before_change {
                assert_eq!(journal.last_seq(), 0, "{point:?}:{k}");
                assert_eq!(settings_now, settings(0), "{point:?}:{k}");
            } else {
                assert_eq!(journal.last_seq(), 3, "{point:?}:{k}");
                let is: Vec<u64> = journal.records().iter().map(|r| r.entry.i).collect();
                assert_eq!(is, [1, 2, 3], "{point:?}:{k}");
                assert_eq!(settings_now, settings(99), "{point:?}:{k}");
            }
            assert!(!game.path().join(shadowjudge::store::CHANGE_FILE).exists(), "{point:?}:{k}");
            let finished = reopened.recovered().iter().any(|r| matches!(r, Recovered::ChangeFinished { .. }));
            assert_eq!(
                finished,
                journal.last_seq() == 3 && !fully_done(point, k),
                "{point:?}:{k}: {:?}",
                reopened.recovered()
            );
        }
    }
    // Seven points; the commit meets the renames three times and the appends three times.
    assert!(kills >= 12, "{kills}");
}

/// Whether a kill at `point`'s `k`-th meeting comes after the change file was removed
/// (only state.json's write is left): nothing to finish.
fn fully_done(point: FaultPoint, k: usize) -> bool {
    // Atomic writes in a commit: 1 change.json, 2 game.toml, 3 state.json.
    matches!(point, FaultPoint::TempWritten | FaultPoint::TempSynced | FaultPoint::Renamed) && k == 3
}

fn numbers(lines: &[String], prefix: &str) -> Vec<u64> {
    lines.iter().filter_map(|l| l.strip_prefix(prefix)).map(|n| n.trim().parse().unwrap()).collect()
}

fn acks(lines: &[String]) -> Vec<u64> {
    numbers(lines, "ack ")
}

/// A child process running [`writer_loop`], its stdout read line by line.
struct ChildWriter {
    process: std::process::Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl ChildWriter {
    fn spawn(dir: &Path, tag: &str, fault: Option<(FaultPoint, usize)>, limit: Option<u64>) -> ChildWriter {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args(["store::child_writer", "--exact", "--nocapture", "--test-threads", "1", "-q"])
            .env(CHILD_DIR, dir)
            .env(CHILD_TAG, tag)
            .env_remove(CHILD_FAULT)
            .env_remove(CHILD_LIMIT)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some((point, k)) = fault {
            command.env(CHILD_FAULT, format!("{}:{k}", point.name()));
        }
        if let Some(n) = limit {
            command.env(CHILD_LIMIT, n.to_string());
        }
        let mut process = command.spawn().unwrap();
        let stdout = process.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        ChildWriter { process, lines, seen: Vec::new() }
    }

    /// Reads lines until one starts with `prefix`; false if the child ended first or the
    /// timeout passed.
    fn wait_for(&mut self, prefix: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let found = line.starts_with(prefix);
                    self.seen.push(line);
                    if found {
                        return true;
                    }
                }
                Err(_) => return false,
            }
        }
    }

    /// SIGKILLs the child and returns everything it printed.
    fn kill(mut self) -> Vec<String> {
        let _ = self.process.kill();
        self.wait().1
    }

    fn wait(mut self) -> (std::process::ExitStatus, Vec<String>) {
        let status = self.process.wait().unwrap();
        self.seen.extend(self.lines.iter());
        (status, self.seen)
    }
}

/// What the children have been told was done, across all rounds.
#[derive(Default)]
struct Acknowledged {
    seqs: BTreeSet<u64>,
    state: u64,
    settings: u64,
    torn_recoveries: usize,
    temp_recoveries: usize,
}

impl Acknowledged {
    fn add(&mut self, lines: &[String]) {
        self.seqs.extend(acks(lines));
        self.state = self.state.max(numbers(lines, "state ").into_iter().max().unwrap_or(0));
        self.settings = self.settings.max(numbers(lines, "settings ").into_iter().max().unwrap_or(0));
        self.torn_recoveries += lines.iter().filter(|l| l.starts_with("recovered torn")).count();
        self.temp_recoveries += lines.iter().filter(|l| l.starts_with("recovered temp")).count();
        assert!(!lines.iter().any(|l| l.starts_with("error")), "child failed: {lines:?}");
    }

    /// Checks the game as a reader without the lock sees it right after a kill.
    fn check(&self, dir: &Path, round: &str) {
        let game = GameDir::open_for_reading(dir).unwrap();
        let journal = game.journal::<Entry>().unwrap_or_else(|e| panic!("{round}: {e}"));
        let last = journal.last_seq();
        if let Some(&missing) = self.seqs.iter().find(|&&s| s > last) {
            panic!("{round}: seq {missing} was acknowledged but the journal ends at {last}");
        }
        match game.read_state::<State>().unwrap_or_else(|e| panic!("{round}: {e}")) {
            Some((seq, state)) => {
                assert_eq!(state, State::at(seq), "{round}: state is a mix of writes");
                assert!(seq <= last, "{round}: state at {seq} is ahead of the journal at {last}");
                assert!(seq >= self.state, "{round}: state {} was acknowledged, file has {seq}", self.state);
            }
            None => assert_eq!(self.state, 0, "{round}: acknowledged state is gone"),
        }
        let settings = game.read_settings::<Settings>().unwrap_or_else(|e| panic!("{round}: {e}"));
        assert!(settings.generation >= self.settings, "{round}: acknowledged settings are gone");
    }
}

#[test]
fn kill_test_loses_nothing_acknowledged() {
    let started = Instant::now();
    let (_tmp, game) = new_game();
    let dir = game.path().to_path_buf();
    let mut acked = Acknowledged::default();
    let patience = Duration::from_secs(10);

    // Kills targeted at each step of a write, at its 1st and 3rd occurrence in the child's
    // life. A `torn-copied` round follows each half-written append so the next child's
    // recovery is itself interrupted.
    let mut targeted = Vec::new();
    for k in [1, 3, 8] {
        for point in FaultPoint::ALL {
            if point != FaultPoint::TornCopied {
                targeted.push((point, k));
            }
            if point == FaultPoint::AppendHalfWritten {
                targeted.push((FaultPoint::TornCopied, 1));
            }
        }
    }
    for &(point, k) in &targeted {
        let round = format!("fault {}:{k}", point.name());
        let mut child = ChildWriter::spawn(&dir, "targeted", Some((point, k)), None);
        let reached = child.wait_for("fault ", patience);
        let lines = child.kill();
        assert!(reached, "{round}: the child never reached the fault point: {lines:?}");
        acked.add(&lines);
        acked.check(&dir, &round);
    }

    // Kills at seeded random moments: some during start-up (recovery), most mid-loop.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed_d1e5);
    const RANDOM_ROUNDS: usize = 40;
    for n in 0..RANDOM_ROUNDS {
        let mut child = ChildWriter::spawn(&dir, "random", None, None);
        let round = if rng.gen_bool(0.2) {
            let delay = rng.gen_range(0..15);
            std::thread::sleep(Duration::from_millis(delay));
            format!("random {n}: {delay} ms after spawn")
        } else {
            let delay = rng.gen_range(0..60);
            assert!(child.wait_for("ready", patience), "random {n}: the child never got ready");
            std::thread::sleep(Duration::from_millis(delay));
            format!("random {n}: {delay} ms after ready")
        };
        let lines = child.kill();
        acked.add(&lines);
        acked.check(&dir, &round);
    }

    // After it all, the game opens cleanly, and the journal goes on.
    let game = GameDir::open(&dir).unwrap();
    acked.add(&game.recovered().iter().map(|r| format!("recovered {r}")).collect::<Vec<_>>());
    acked.check(&dir, "final");
    let journal = game.journal::<Entry>().unwrap();
    assert_eq!(journal.torn_tail(), None);
    let last = journal.last_seq();
    let names: Vec<String> =
        fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(!names.iter().any(|n| n.contains(".tmp-")), "temp files left: {names:?}");
    let torn: Vec<&String> = names.iter().filter(|n| n.starts_with("journal.jsonl.torn-")).collect();
    for name in &torn {
        let bytes = fs::read(dir.join(name)).unwrap();
        assert!(!bytes.is_empty() && !bytes.contains(&b'\n'), "{name} is not a fragment of one line");
    }
    // Each half-written append was set aside (twice when a recovery was itself killed).
    assert!(torn.len() >= 2 && acked.torn_recoveries >= 2, "{torn:?}, {} recoveries", acked.torn_recoveries);
    assert!(acked.temp_recoveries >= 1, "no temp file was ever left to clean up");
    assert!(acked.seqs.len() >= 40, "too few acknowledged appends to prove much: {}", acked.seqs.len());
    let mut lock = game.lock().unwrap();
    assert_eq!(lock.append(time(0), &entry("after", 0)).unwrap(), last + 1);
    drop(lock);
    eprintln!(
        "kill test: {} targeted + {RANDOM_ROUNDS} random kills, {} acknowledged appends, {} torn tails set aside, {:.1?}",
        targeted.len(),
        acked.seqs.len(),
        torn.len(),
        started.elapsed()
    );
}
