//! A judge by mail as its master and players meet it (issue 28, issue 23 item 15): the
//! tick's count of its mails, `replace`, deadlines in minutes, quoted earlier messages,
//! and the judge's own files and clock.

use std::path::PathBuf;

use crate::judge_dir::{self, message, Eml, Outbox};

const PLAYERS: &str = "france, Ann, ann@example.org\nitaly, Bob, bob@example.org\ngermany, Cy, cy@example.org\n";

/// A judge directory with one standard game `g` of three players and a master.
struct Judge {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outbox: Outbox,
    passwords: Vec<(String, String)>,
    n: usize,
}

impl Judge {
    fn new(now: &str, judge_toml: &str) -> Judge {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("judge");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("judge.toml"), format!("[mail]\naddress = \"judge@example.org\"\n{judge_toml}"))
            .unwrap();
        std::fs::write(root.join("players.txt"), PLAYERS).unwrap();
        let new = ["new", "g", "--judge", ".", "--players", "players.txt", "--master", "gm@example.org"];
        judge_dir::judge_cli(now, &root, &new).ok();
        let mut passwords = Vec::new();
        for who in ["france", "italy", "germany", "master"] {
            let out = judge_dir::judge_cli(now, &root, &["mail", "password", "g", who]).ok();
            passwords.push((who.to_string(), out.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().into()));
        }
        let mut judge = Judge { _tmp: tmp, root, outbox: Outbox::default(), passwords, n: 0 };
        judge.mails();
        judge
    }

    /// `who` (a power or `master`) mails `body` at `now`: the reply to it, and every
    /// other mail the judge wrote.
    fn send(&mut self, now: &str, who: &str, body: &str) -> (Eml, Vec<Eml>) {
        self.n += 1;
        let pw = &self.passwords.iter().find(|(w, _)| w == who).unwrap().1;
        let from = match who {
            "france" => "ann@example.org",
            "italy" => "bob@example.org",
            "germany" => "cy@example.org",
            _ => "gm@example.org",
        };
        let id = format!("m{}@example.org", self.n);
        let raw = message(from, &id, &format!("SIGNON {who}@g {pw}\n{body}"));
        let home = [("SHADOWJUDGE_HOME", self.root.to_str().unwrap())];
        let out =
            crate::harness::shadowjudge_at(now, Some(&self.root), &["mail", "ingest"], Some(raw.as_bytes()), &home);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let mails = self.mails();
        let (reply, rest): (Vec<Eml>, Vec<Eml>) =
            mails.into_iter().partition(|m| m.in_reply_to.as_deref() == Some(id.as_str()));
        (reply.into_iter().next().expect("a reply"), rest)
    }

    fn mails(&mut self) -> Vec<Eml> {
        self.outbox.new_mails(&self.root)
    }
}

const T0: &str = "2026-12-01T12:00:00Z";

#[test]
fn the_tick_counts_every_mail_it_sent_results_too() {
    let mut judge = Judge::new(T0, "");
    // Long past the deadline: the tick adjudicates and mails the results to everyone.
    let out = judge_dir::judge_cli("2026-12-09T12:00:00Z", &judge.root, &["mail", "tick"]).ok();
    let mails = judge.mails();
    assert!(mails.iter().filter(|m| m.subject.contains("results")).count() >= 4, "{mails:?}");
    let summary = format!("{} mails sent, 0 to try again later, 0 refused for good.", mails.len());
    assert!(out.stdout.lines().any(|l| l == summary), "{summary} in:\n{}", out.stdout);
}

#[test]
fn replace_tells_the_player_before_without_the_new_address() {
    let mut judge = Judge::new(T0, "");
    let (reply, mails) = judge.send("2026-12-01T13:00:00Z", "master", "replace italy new@example.org\n");
    assert!(reply.body.contains("Italy is now played by new@example.org"), "{}", reply.body);
    assert!(reply.body.contains("The player before has been told."), "{}", reply.body);
    let new: Vec<&Eml> = mails.iter().filter(|m| m.to == "new@example.org").collect();
    assert_eq!(new.len(), 1);
    assert!(new[0].body.contains("SIGNON italy@g "));
    let old: Vec<&Eml> = mails.iter().filter(|m| m.to == "bob@example.org").collect();
    assert_eq!(old.len(), 1, "{mails:?}");
    assert_eq!(old[0].subject, "g: you no longer play Italy");
    assert!(old[0].body.contains("given the seat of Italy to another player"), "{}", old[0].body);
    assert!(!old[0].body.contains("new@example.org") && !old[0].subject.contains("new@"));
    // Given back to the same address: no farewell.
    let (_, mails) = judge.send("2026-12-01T13:10:00Z", "master", "replace italy NEW@example.org\n");
    assert!(mails.iter().all(|m| m.to != "bob@example.org"));
    assert_eq!(mails.iter().filter(|m| m.subject.contains("no longer")).count(), 0, "{mails:?}");
}

#[test]
fn a_clock_before_1970_writes_mail_dated_1970_never_panics() {
    let now = "1969-07-20T20:17:40Z";
    let mut judge = Judge::new(now, "");
    let (reply, _) = judge.send(now, "france", "A par - bur\n");
    assert!(reply.body.contains("A par - bur"), "{}", reply.body);
    let dates: Vec<String> = std::fs::read_dir(judge.root.join("outbox"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .filter_map(|raw| raw.lines().find(|l| l.starts_with("Date: ")).map(str::to_string))
        .collect();
    assert!(!dates.is_empty());
    assert!(dates.iter().all(|d| d == "Date: Thu, 01 Jan 1970 00:00:00 +0000"), "{dates:?}");
    let out = judge_dir::judge_cli("1969-07-25T20:17:40Z", &judge.root, &["mail", "tick"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn a_garbage_state_json_says_it_can_be_deleted_and_is_rebuilt() {
    let judge = Judge::new(T0, "");
    let game = judge.root.join("games/g");
    std::fs::write(game.join("state.json"), "garbage\n").unwrap();
    let run = crate::harness::shadowjudge_at(T0, None, &["status", game.to_str().unwrap()], None, &[]);
    assert_eq!(run.code, 5);
    assert!(
        run.stderr.ends_with(
            "state.json:1:1: expected value. state.json is only a copy of the state the journal leads to: \
             delete it and the judge rebuilds it from journal.jsonl\n"
        ),
        "{}",
        run.stderr
    );
    // As it says: deleted, the game opens and the next change writes it again.
    std::fs::remove_file(game.join("state.json")).unwrap();
    crate::harness::shadowjudge_at(T0, None, &["status", game.to_str().unwrap()], None, &[]).ok();
    let orders = b"A par - bur\n";
    crate::harness::shadowjudge_at(
        T0,
        None,
        &["submit", game.to_str().unwrap(), "--power", "france", "-"],
        Some(&orders[..]),
        &[],
    )
    .ok();
    assert!(std::fs::read_to_string(game.join("state.json")).unwrap().contains("seq_applied"));
}

#[test]
fn a_message_too_large_is_logged_with_its_true_size() {
    let judge = Judge::new(T0, "max_message_bytes = 2048\n");
    let raw = message("ann@example.org", "big@example.org", &format!("SIGNON france@g x\n{}\n", "x".repeat(9000)));
    let home = [("SHADOWJUDGE_HOME", judge.root.to_str().unwrap())];
    let run = crate::harness::shadowjudge_at(T0, Some(&judge.root), &["mail", "ingest"], Some(raw.as_bytes()), &home);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("refused: too large ({} bytes)", raw.len())),
        "{} for {}",
        run.stderr,
        raw.len()
    );
}

#[test]
fn a_reply_with_a_signature_then_the_earlier_message_says_it_skipped_both() {
    let mut judge = Judge::new(T0, "");
    let body =
        "A par - bur\n\n-- \nAnn Smith\nParis\n\nOn Mon, 30 Nov 2026 at 10:00, Judge <judge@example.org> wrote:\n\
                Spring 1901 movement: your orders are due.\nF bre - mao\n";
    let (reply, _) = judge.send("2026-12-01T13:00:00Z", "france", body);
    // The earlier message starts on line 8 of the message (after the SIGNON line).
    assert!(
        reply.body.contains(
            "Not read: the earlier message quoted from line 8 on; 2 lines after your orders (a signature or closing)."
        ),
        "{}",
        reply.body
    );
    assert!(!reply.body.contains("F bre - mao"), "{}", reply.body);
}
