//! Seat changes by mail survive a crash at every write (issue 42, items 1 and 2): the
//! last `join` of an open game (Diplomacy and a small game) and a `resign` are carried
//! out by a child process that dies at the k-th meeting of a store fault point, for every
//! point and every k until the child gets through; the mail server then delivers the same
//! message again to the real binary. Each time the game has one assignment, game.toml
//! follows the journal, and everyone has the mails the change owes them.
//!
//! The child is this test binary run on the test's own name with `SJ_SEATS_CHILD_JUDGE`
//! set: it runs the library's `ingest` (what `mail ingest` runs before it mails) with a
//! fault hook that ends the process at the chosen step (or a disk that fills at its k-th
//! whole-file write and stays full while it runs).

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::judge_dir::{journal, judge_cli, message, Eml, Outbox};
use shadowjudge::game::journal::Entry;
use shadowjudge::game::seating::SeatEvent;
use shadowjudge::host::JudgeHost;
use shadowjudge::mail::home::JudgeHome;
use shadowjudge::mail::ingest::ingest;
use shadowjudge::store::fault::{self, FaultPoint};

const NOW: &str = "2026-03-01T12:00:00Z";
const CHILD_JUDGE: &str = "SJ_SEATS_CHILD_JUDGE";
const CHILD_FAULT: &str = "SJ_SEATS_CHILD_FAULT";
const CHILD_MAIL: &str = "SJ_SEATS_CHILD_MAIL";
/// The exit code of a child that stopped at its fault.
const STOPPED: i32 = 9;

static STOP_AT: OnceLock<(FaultPoint, usize)> = OnceLock::new();
static SEEN: AtomicUsize = AtomicUsize::new(0);

fn stop_at_fault(point: FaultPoint) {
    let Some(&(target, k)) = STOP_AT.get() else { return };
    if point == target && SEEN.fetch_add(1, Ordering::SeqCst) + 1 == k {
        // As sudden as a kill: no destructor, no further write.
        std::process::exit(STOPPED);
    }
}

/// In a child: ingest the message in `SJ_SEATS_CHILD_MAIL`, stopping at the fault.
/// Returns whether this process is a child.
fn run_child_if_asked() -> bool {
    let Some(root) = std::env::var_os(CHILD_JUDGE) else { return false };
    let spec = std::env::var(CHILD_FAULT).expect("the fault to stop at");
    let (name, k) = spec.split_once(':').expect("point:k");
    let k: usize = k.parse().expect("k");
    if name == "full" {
        FULL_FROM.set(k).unwrap();
        fault::set_write_check(disk_full_from_k);
    } else {
        STOP_AT.set((FaultPoint::from_name(name).expect("a known point"), k)).unwrap();
        fault::set_hook(stop_at_fault);
    }
    let raw = std::fs::read(std::env::var_os(CHILD_MAIL).expect("the message")).unwrap();
    let home = JudgeHome::open(Path::new(&root)).unwrap();
    let intake = home.intake().unwrap();
    let mut host = JudgeHost::new(home.games_dir());
    let now = NOW.parse().unwrap();
    let outcome = ingest(&raw, &mut host, &intake, &home.config.mail, now);
    println!("done {:?}", outcome.disposition);
    println!("writes {}", WRITES.load(Ordering::SeqCst));
    true
}

static FULL_FROM: OnceLock<usize> = OnceLock::new();
static WRITES: AtomicUsize = AtomicUsize::new(0);

/// The disk fills at the k-th whole-file write and stays full.
fn disk_full_from_k(_: &Path) -> std::io::Result<()> {
    let n = WRITES.fetch_add(1, Ordering::SeqCst) + 1;
    if FULL_FROM.get().is_some_and(|k| n >= *k) {
        return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "No space left on device"));
    }
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn deliver(root: &Path, raw: &str) {
    let home = [("SHADOWJUDGE_HOME", root.to_str().unwrap())];
    crate::harness::shadowjudge_at(NOW, Some(root), &["mail", "ingest"], Some(raw.as_bytes()), &home).ok();
}

/// For every fault point and every k: copy `prepared`, let a child carry out `raw` there
/// and stop at the k-th meeting of the point, deliver `raw` again with the binary, and
/// `check` the judge directory with the mails written since the copy. Then the same with
/// a disk that fills at the child's k-th whole-file write (the child goes on, failing),
/// for every k. Returns the number of stops and fills.
fn at_every_write(test: &str, prepared: &Path, raw: &str, check: impl Fn(&str, &Path, &[Eml])) -> usize {
    let mut stops = 0;
    let specs = FaultPoint::ALL.into_iter().map(|p| p.name()).chain(["full"]);
    for point in specs {
        for k in 1.. {
            let tmp = tempfile::tempdir().unwrap();
            let root = tmp.path().join("judge");
            copy_dir(prepared, &root);
            let mut outbox = Outbox::default();
            outbox.new_mails(&root);
            let mail = tmp.path().join("mail.eml");
            std::fs::write(&mail, raw).unwrap();
            let spec = format!("{point}:{k}");
            let out = Command::new(std::env::current_exe().unwrap())
                .args([test, "--exact", "--nocapture", "--test-threads", "1", "-q"])
                .env(CHILD_JUDGE, &root)
                .env(CHILD_FAULT, &spec)
                .env(CHILD_MAIL, &mail)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            if out.status.code() != Some(STOPPED) {
                assert!(out.status.success() && stdout.contains("done"), "{spec}: {stdout}");
                let writes: usize = stdout.lines().find_map(|l| l.strip_prefix("writes ")?.parse().ok()).unwrap();
                if point != "full" || writes < k {
                    break;
                }
            }
            stops += 1;
            deliver(&root, raw);
            check(&spec, &root, &outbox.new_mails(&root));
        }
    }
    stops
}

fn new_open(root: &Path, extra: &[&str]) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
    let mut args = vec!["new", "g1", "--judge", ".", "--open", "--master", "gm@example.org"];
    args.extend_from_slice(extra);
    judge_cli(NOW, root, &args).ok();
}

fn player(i: usize) -> String {
    format!("p{i}@example.org")
}

fn join(root: &Path, i: usize) -> String {
    let raw = message(&player(i), &format!("join{i}@x"), &format!("join g1 pass{i}word\n"));
    deliver(root, &raw);
    raw
}

fn settings(root: &Path) -> toml::Table {
    std::fs::read_to_string(root.join("games/g1/game.toml")).unwrap().parse().unwrap()
}

/// The start mail each player is owed, at least once (twice at worst: the redelivery
/// cannot know whether the first run's mails left before the crash).
fn assert_started_mails(spec: &str, mails: &[Eml], players: usize, needle: &str) {
    for i in 0..players {
        let got = mails.iter().filter(|m| m.to == player(i) && m.subject.contains(needle)).count();
        assert!((1..=2).contains(&got), "{spec}: {} got {got} start mails: {mails:#?}", player(i));
    }
}

#[test]
fn the_last_join_of_a_diplomacy_game_survives_a_crash_at_every_write() {
    const TEST: &str = "crash_seats::the_last_join_of_a_diplomacy_game_survives_a_crash_at_every_write";
    if run_child_if_asked() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let prepared = tmp.path().join("judge");
    new_open(&prepared, &[]);
    for i in 0..6 {
        join(&prepared, i);
    }
    let last = message(&player(6), "join6@x", "join g1 pass6word\n");
    let stops = at_every_write(TEST, &prepared, &last, |spec, root, mails| {
        let entries = journal(&root.join("games/g1"));
        let assigned: Vec<&Vec<(String, String)>> = entries
            .iter()
            .filter_map(|e| match e {
                Entry::Seats { event: SeatEvent::Assigned { powers, .. } } => Some(powers),
                _ => None,
            })
            .collect();
        assert_eq!(assigned.len(), 1, "{spec}: one assignment");
        let mut emails: Vec<&str> = assigned[0].iter().map(|(e, _)| e.as_str()).collect();
        emails.sort();
        assert_eq!(emails, (0..7).map(player).collect::<Vec<_>>(), "{spec}");
        // game.toml follows the journal: seven players, the seats closed.
        let s = settings(root);
        let players = s["players"].as_array().unwrap();
        assert_eq!(players.len(), 7, "{spec}: {s:#?}");
        assert!(!s.get("seats").and_then(|t| t.get("open")).and_then(|o| o.as_bool()).unwrap_or(false), "{spec}");
        assert_started_mails(spec, mails, 7, "you play");
        let reply = mails.iter().find(|m| m.to == player(6) && m.subject.starts_with("Re:")).unwrap();
        assert!(reply.body.contains("last seat") || reply.body.contains("first read"), "{spec}: {}", reply.body);
    });
    assert!(stops >= 10, "{stops}");
}

#[test]
fn the_last_join_of_a_small_game_survives_a_crash_at_every_write() {
    const TEST: &str = "crash_seats::the_last_join_of_a_small_game_survives_a_crash_at_every_write";
    if run_child_if_asked() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let prepared = tmp.path().join("judge");
    new_open(&prepared, &["--game", "duplexity"]);
    join(&prepared, 0);
    let last = message(&player(1), "join1@x", "join g1 pass1word\n");
    let stops = at_every_write(TEST, &prepared, &last, |spec, root, mails| {
        let dir = root.join("games/g1");
        let lines = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
        assert_eq!(lines.matches("\"type\":\"created\"").count(), 1, "{spec}: {lines}");
        assert_eq!(lines.matches("\"seated\"").count(), 1, "{spec}: {lines}");
        let s = settings(root);
        assert_eq!(s["players"].as_array().unwrap().len(), 2, "{spec}: {s:#?}");
        assert!(!s.get("seats").and_then(|t| t.get("open")).and_then(|o| o.as_bool()).unwrap_or(false), "{spec}");
        assert_started_mails(spec, mails, 2, "you play");
        let reply = mails.iter().find(|m| m.to == player(1) && m.subject.starts_with("Re:")).unwrap();
        assert!(reply.body.contains("last seat"), "{spec}: {}", reply.body);
    });
    assert!(stops >= 5, "{stops}");
}

#[test]
fn a_resignation_survives_a_crash_at_every_write() {
    const TEST: &str = "crash_seats::a_resignation_survives_a_crash_at_every_write";
    if run_child_if_asked() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let prepared = tmp.path().join("judge");
    new_open(&prepared, &[]);
    for i in 0..7 {
        join(&prepared, i);
    }
    let assigned = journal(&prepared.join("games/g1"))
        .into_iter()
        .find_map(|e| match e {
            Entry::Seats { event: SeatEvent::Assigned { powers, .. } } => Some(powers),
            _ => None,
        })
        .unwrap();
    let (email, power) = assigned[0].clone();
    let i: usize = email[1..2].parse().unwrap();
    let body = format!("SIGNON {}@g1 pass{i}word\nresign {}\n", power.to_lowercase(), power.to_lowercase());
    let raw = message(&email, "resign@x", &body);
    let stops = at_every_write(TEST, &prepared, &raw, |spec, root, mails| {
        let entries = journal(&root.join("games/g1"));
        let resigned =
            entries.iter().filter(|e| matches!(e, Entry::Seats { event: SeatEvent::Resigned { .. } })).count();
        assert_eq!(resigned, 1, "{spec}");
        // game.toml follows the journal: the power is vacant, its password signs on no more.
        let s = settings(root);
        let players = s["players"].as_array().unwrap();
        assert_eq!(players.len(), 6, "{spec}");
        assert!(!players.iter().any(|p| p["email"].as_str() == Some(email.as_str())), "{spec}");
        // Answered (the redelivery, signed on with a password the resignation ended, is
        // told so when the first run's answer was lost); the old password signs on no more.
        let reply = mails.iter().find(|m| m.to == email).unwrap_or_else(|| panic!("{spec}: {mails:#?}"));
        assert!(
            reply.body.contains("You resigned") || reply.body.contains("is vacant in g1"),
            "{spec}: {}",
            reply.body
        );
        let mut outbox = Outbox::default();
        outbox.new_mails(root);
        let status = format!("SIGNON {}@g1 pass{i}word\nstatus\n", power.to_lowercase());
        deliver(root, &message(&email, "after@x", &status));
        let after = outbox.new_mails(root);
        let reply = after.iter().find(|m| m.to == email).unwrap();
        assert!(reply.body.contains("Nothing was done"), "{spec}: {}", reply.body);
    });
    assert!(stops >= 5, "{stops}");
}

#[test]
fn an_approved_takeover_survives_a_crash_at_every_write() {
    const TEST: &str = "crash_seats::an_approved_takeover_survives_a_crash_at_every_write";
    if run_child_if_asked() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let prepared = tmp.path().join("judge");
    new_open(&prepared, &[]);
    for i in 0..7 {
        join(&prepared, i);
    }
    let (email, power) = journal(&prepared.join("games/g1"))
        .into_iter()
        .find_map(|e| match e {
            Entry::Seats { event: SeatEvent::Assigned { powers, .. } } => Some(powers[0].clone()),
            _ => None,
        })
        .unwrap();
    let (i, lower) = (&email[1..2], power.to_lowercase());
    deliver(&prepared, &message(&email, "r@x", &format!("SIGNON {lower}@g1 pass{i}word\nresign {lower}\n")));
    deliver(&prepared, &message("new@example.org", "t@x", &format!("takeover {lower}@g1 newpassword\n")));
    let out = judge_cli(NOW, &prepared, &["mail", "password", "g1", "master"]).ok();
    let master_pw = out.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string();
    let approve = message("gm@example.org", "a@x", &format!("SIGNON master@g1 {master_pw}\napprove {lower}\n"));
    let stops = at_every_write(TEST, &prepared, &approve, |spec, root, mails| {
        let entries = journal(&root.join("games/g1"));
        let taken = entries.iter().filter(|e| matches!(e, Entry::Seats { event: SeatEvent::TakenOver { .. } })).count();
        assert_eq!(taken, 1, "{spec}");
        let s = settings(root);
        let players = s["players"].as_array().unwrap();
        assert_eq!(players.len(), 7, "{spec}");
        assert!(players.iter().any(|p| p["email"].as_str() == Some("new@example.org")), "{spec}: {s:#?}");
        let news = mails.iter().filter(|m| m.to == "new@example.org" && m.subject.contains("you now play")).count();
        assert!((1..=2).contains(&news), "{spec}: {mails:#?}");
        let gm = mails.iter().find(|m| m.to == "gm@example.org").unwrap();
        assert!(gm.body.contains("is now played by new@example.org"), "{spec}: {}", gm.body);
    });
    assert!(stops >= 5, "{stops}");
}
