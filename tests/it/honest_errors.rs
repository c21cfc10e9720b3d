//! Honest errors (issue 16): a game that exists but cannot be opened is not "no such
//! game"; players get a short answer without server paths, the master and the log get
//! the cause; `mail tick` says what it could not read and fails; damaged files have their
//! own exit code.

use std::path::PathBuf;

use crate::harness::{shadowjudge_at, Run};
use crate::judge_dir::{message, Outbox};

const NOW: &str = "2026-02-01T12:00:00Z";

struct Judge {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Judge {
    fn new() -> Judge {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("judge");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
        std::fs::write(root.join("players.txt"), "france, Ann, ann@example.org\nitaly, Bob, bob@example.org\n")
            .unwrap();
        let judge = Judge { _tmp: tmp, root };
        judge.cli(&["new", "g1", "--judge", ".", "--players", "players.txt", "--master", "gm@example.org"], None).ok();
        judge
    }

    fn cli(&self, args: &[&str], stdin: Option<&[u8]>) -> Run {
        shadowjudge_at(NOW, Some(&self.root), args, stdin, &[("SHADOWJUDGE_HOME", self.root.to_str().unwrap())])
    }

    fn damage_journal(&self) {
        let journal = self.root.join("games/g1/journal.jsonl");
        let text = std::fs::read_to_string(&journal).unwrap();
        std::fs::write(&journal, format!("{{not json}}\n{text}")).unwrap();
        std::fs::remove_file(self.root.join("games/g1/state.json")).unwrap();
    }
}

#[test]
fn a_damaged_game_is_answered_without_paths_and_its_master_is_told() {
    let judge = Judge::new();
    let password = judge.cli(&["mail", "password", "g1", "france"], None).ok();
    let password = password.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string();
    judge.damage_journal();
    let raw = message("ann@example.org", "x1@example.org", &format!("SIGNON france@g1 {password}\nA par - bur\n"));
    let run = judge.cli(&["mail", "ingest"], Some(raw.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut outbox = Outbox::default();
    let mails = outbox.new_mails(&judge.root);
    let reply = mails.iter().find(|m| m.to == "ann@example.org").expect("the player is answered");
    assert!(reply.body.contains("could not open game `g1`"), "{}", reply.body);
    assert!(!reply.body.contains("there is no game"), "{}", reply.body);
    let root = judge.root.to_str().unwrap();
    assert!(!reply.body.contains(root) && !reply.body.contains("journal.jsonl"), "a server path: {}", reply.body);
    let notice = mails.iter().find(|m| m.to == "gm@example.org").expect("the master is told");
    assert!(notice.body.contains("journal.jsonl"), "the master gets the cause: {}", notice.body);
    let log = std::fs::read_to_string(judge.root.join("judge.log")).expect("a judge.log");
    assert!(log.contains("game g1") && log.contains("journal.jsonl"), "{log}");
}

#[test]
fn mail_tick_says_what_it_could_not_read_and_fails() {
    let judge = Judge::new();
    judge.damage_journal();
    let run = judge.cli(&["mail", "tick"], None);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("g1: not read"), "{}", run.stdout);
    assert!(run.stderr.contains("could not be read"), "{}", run.stderr);
}

#[test]
fn damaged_files_have_their_own_exit_code() {
    let judge = Judge::new();
    let dir = judge.root.join("games/g1");
    assert_eq!(judge.cli(&["status", dir.to_str().unwrap()], None).code, 0);
    judge.damage_journal();
    let run = judge.cli(&["status", dir.to_str().unwrap()], None);
    assert_eq!(run.code, 5, "{}", run.stderr);
    assert!(run.stderr.contains("journal.jsonl:1"), "{}", run.stderr);
    let usage = judge.cli(&["rollback", dir.to_str().unwrap(), "not-a-phase"], None);
    assert_eq!(usage.code, 5, "the game cannot even be opened: {}", usage.stderr);
}

/// `mail ingest` says what became of the message in a sentence, not a debugging structure.
#[test]
fn mail_ingest_says_what_it_did_in_words() {
    let judge = Judge::new();
    let password = judge.cli(&["mail", "password", "g1", "france"], None).ok();
    let password = password.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string();
    let raw = message("ann@example.org", "x2@example.org", &format!("SIGNON france@g1 {password}\nA par - bur\n"));
    let run = judge.cli(&["mail", "ingest"], Some(raw.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("shadowjudge mail ingest: applied to g1; "), "{}", run.stderr);
    assert!(!run.stderr.contains("Applied") && !run.stderr.contains('{'), "{}", run.stderr);
}

/// `mail password g1 france | head -c1`: the reader goes away; the judge ends quietly
/// (no panic, no "failed printing to stdout" on the terminal).
#[cfg(unix)]
#[test]
fn a_password_printed_to_a_reader_that_goes_away_ends_quietly() {
    use std::process::{Command, Stdio};
    let judge = Judge::new();
    let mut child = Command::new(env!("CARGO_BIN_EXE_shadowjudge"))
        .args(["mail", "password", "g1", "france"])
        .current_dir(&judge.root)
        .env("SHADOWJUDGE_HOME", &judge.root)
        .env("SHADOWJUDGE_NOW", NOW)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("failed printing"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
}

/// A `SHADOWJUDGE_NOW` that is not a time is refused before anything runs, not silently
/// replaced by the real clock (which would stamp the journal with a time nobody asked for).
#[test]
fn a_clock_that_is_not_a_time_is_refused() {
    let judge = Judge::new();
    let before = std::fs::read_to_string(judge.root.join("games/g1/journal.jsonl")).unwrap();
    let run = shadowjudge_at(
        "next tuesday",
        Some(&judge.root),
        &["submit", "games/g1", "--power", "france", "-"],
        Some(b"A par - bur\n"),
        &[],
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("SHADOWJUDGE_NOW is `next tuesday`, not a time"), "{}", run.stderr);
    assert!(run.stderr.contains("2026-11-26T18:00:00Z"), "{}", run.stderr);
    let after = std::fs::read_to_string(judge.root.join("games/g1/journal.jsonl")).unwrap();
    assert_eq!(before, after, "nothing is journaled");
    // A well-formed time still works, with spaces around it.
    shadowjudge_at(" 2026-02-01T13:00:00Z ", Some(&judge.root), &["status", "games/g1"], None, &[]).ok();
}
