//! Overdue through the CLI and by mail (issue 11): the shipped example replayed and
//! verified, a 3-player game played to its end from the command line and by mail, a
//! missed turn passed by `mail tick`, the journal rebuilt, and bad turn files refused.

use std::path::PathBuf;

use crate::harness::{shadowjudge_at, Run};
use crate::judge_dir::{judge_cli, mail_in, small_game_by_mail, Outbox};

const NOW: &str = "2026-03-01T12:00:00Z";
const SEED: &str = "0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0";

fn run(args: &[&str], stdin: Option<&str>) -> Run {
    shadowjudge_at(NOW, None, args, stdin.map(str::as_bytes), &[])
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A new Overdue game in a temporary directory.
struct Table {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

/// A game refused at `new` (too few players, a bad option) leaves no directory behind:
/// the same command with the players file put right then makes the game.
#[test]
fn a_game_refused_at_new_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let two = tmp.path().join("two.txt");
    std::fs::write(&two, "ann, a@x.org\nbob, b@x.org\n").unwrap();
    let three = tmp.path().join("three.txt");
    std::fs::write(&three, "ann, a@x.org\nbob, b@x.org\ncid, c@x.org\n").unwrap();
    let dir = tmp.path().join("g");
    let new = |players: &PathBuf, option: &str| {
        run(
            &[
                "new",
                dir.to_str().unwrap(),
                "--game",
                "overdue",
                "--players",
                players.to_str().unwrap(),
                "--option",
                option,
            ],
            None,
        )
    };
    let refused = new(&two, "dice_per_player=3");
    assert_ne!(refused.code, 0);
    assert!(refused.stderr.contains("Overdue is for 3 to 10 players, not 2"), "{}", refused.stderr);
    assert!(!dir.exists(), "a refused game left {}", dir.display());
    let refused = new(&three, "dice_per_player=99");
    assert!(refused.stderr.contains("dice_per_player"), "{}", refused.stderr);
    assert!(!dir.exists(), "a refused game left {}", dir.display());
    let made = new(&three, "dice_per_player=3");
    assert_eq!(made.code, 0, "{}", made.stderr);
    assert!(made.stdout.contains("Players: ann, bob, cid."), "{}", made.stdout);
}

impl Table {
    fn new(players: &str, options: &[&str]) -> Table {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("late");
        let file = tmp.path().join("players.txt");
        std::fs::write(&file, players).unwrap();
        let mut args = vec![
            "new",
            dir.to_str().unwrap(),
            "--game",
            "overdue",
            "--players",
            file.to_str().unwrap(),
            "--seed",
            SEED,
        ];
        for o in options {
            args.extend(["--option", o]);
        }
        run(&args, None).ok();
        Table { _tmp: tmp, dir }
    }

    fn dir(&self) -> &str {
        self.dir.to_str().unwrap()
    }

    fn status(&self) -> serde_json::Value {
        run(&["status", self.dir(), "--json"], None).ok().json()
    }

    fn submit(&self, player: &str, text: &str) -> Run {
        run(&["submit", self.dir(), "--player", player, "-"], Some(text))
    }
}

pub(crate) const THREE: &str = "ann, ann@example.org\nbob, bob@example.org\ncat, cat@example.org\n";

/// A legal turn for whoever is awaited, read from `status --json` alone: score the
/// highest die, cash when no die is left, discard once cashed.
pub(crate) fn next_turn(status: &serde_json::Value) -> Option<(String, String)> {
    let who = status["awaiting"].as_array()?.first()?.as_str()?.to_string();
    let me = status["players"].as_array()?.iter().find(|p| p["name"] == who.as_str())?;
    let unused: Vec<u64> =
        me["dice"].as_array()?.iter().filter(|d| d["used"].is_null()).filter_map(|d| d["value"].as_u64()).collect();
    let cashed = me["cashed"].as_bool()?;
    let text = match (unused.iter().max(), cashed) {
        (Some(v), false) => format!("score {v}\n"),
        (Some(v), true) => format!("discard {v}\n"),
        (None, false) => "cash\n".to_string(),
        (None, true) => return None,
    };
    Some((who, text))
}

#[test]
fn the_example_replays_and_verifies() {
    let example: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join("examples/overdue/example.toml")).unwrap()).unwrap();
    let s = |k: &str| example[k].as_str().unwrap().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("overdue-example");
    let players = root().join("examples/overdue").join(s("players"));
    let mut args = vec![
        "new".to_string(),
        dir.display().to_string(),
        "--game".into(),
        s("game"),
        "--name".into(),
        s("name"),
        "--players".into(),
        players.display().to_string(),
        "--seed".into(),
        s("seed"),
    ];
    for o in example["options"].as_array().unwrap() {
        args.extend(["--option".to_string(), o.as_str().unwrap().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&args, None).ok();
    let orders = root().join("examples/overdue").join(s("orders"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&orders).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert_eq!(files.len(), 33);
    let mut said = String::new();
    for f in &files {
        let stem = f.file_stem().unwrap().to_str().unwrap();
        let player = stem.split_once('-').unwrap().1;
        let r = run(&["submit", dir.to_str().unwrap(), "--player", player, f.to_str().unwrap()], None);
        assert_eq!(r.code, 0, "{}: {}{}", f.display(), r.stdout, r.stderr);
        said.push_str(&r.stdout);
    }
    // What the example is there to show.
    assert!(said.contains("bob cashes 11"), "a cash");
    assert!(said.contains("the time rises to 5") && said.contains("the time falls to 5"), "a rise and a fall");
    assert!(said.contains(
        "cat puts 1 on the time: not above 1, the time falls to 0\n            Round 2: the deadline arrives."
    ));
    assert!(said.contains(
        "bob squeezes in on 4: rolls 1, 4 (1 re-roll bought for 10 points); hit, the round score of 9 is cashed"
    ));
    assert!(said.contains("cat squeezes in on 6: rolls 3; missed, the round score of 8 is lost"), "a lost round score");
    let end = run(&["status", dir.to_str().unwrap(), "--json"], None).ok().json();
    assert_eq!(end["ended"], "won");
    assert_eq!(end["winners"], serde_json::json!(["ann", "bob"]));
    let totals: Vec<u64> = end["players"].as_array().unwrap().iter().map(|p| p["total"].as_u64().unwrap()).collect();
    assert_eq!(totals, [10, 10, 4, 6]);
    let text = run(&["status", dir.to_str().unwrap()], None).ok().stdout;
    assert!(text.contains("Options: rounds = 3; dice_per_player = 3; rotate_first = true"), "{text}");
    assert!(text.contains("The game is over: ann and bob share the win."), "{text}");
    let verified = run(&["verify", dir.to_str().unwrap()], None).ok();
    let said = format!("verified {} rolls; the journal's ", end["dice"]["rolls"]);
    assert!(verified.stdout.starts_with(&said), "{}", verified.stdout);
    assert!(verified.stdout.contains("replay from the seed to every state recorded"), "{}", verified.stdout);
}

#[test]
fn a_three_player_game_is_played_to_its_end_from_the_cli() {
    let t = Table::new(THREE, &["rounds=2"]);
    let start = t.status();
    assert_eq!(start["game"], "overdue");
    assert_eq!((start["round"].as_u64(), start["time"].as_u64()), (Some(1), Some(3)));
    assert!(start["dice"]["seed"].is_null());
    let mut turns = 0;
    loop {
        let status = t.status();
        if !status["ended"].is_null() {
            break;
        }
        let (who, text) = next_turn(&status).expect("someone is awaited");
        t.submit(&who, &text).ok();
        turns += 1;
        assert!(turns < 200, "the game does not end");
        if turns == 4 {
            let before = t.status();
            std::fs::remove_file(t.dir.join("state.json")).unwrap();
            assert_eq!(t.status(), before, "the journal replays to the same game");
        }
    }
    let end = t.status();
    assert_eq!(end["round"], 2);
    assert!(end["winners"].as_array().is_some_and(|w| !w.is_empty()));
    assert_eq!(end["dice"]["seed"], SEED, "the seed is revealed at the end");
    assert!(run(&["verify", t.dir()], None).ok().stdout.starts_with("verified "));
    let history = run(&["history", t.dir()], None).ok().stdout;
    assert!(history.contains("round 2, over") && history.contains("seed revealed"), "{history}");
    let over = t.submit("ann", "pass\n");
    assert!(over.stderr.contains("over"), "{}", over.stderr);
    // Back to the start of round 2: the same dice come again.
    run(&["rollback", t.dir(), "2"], None).ok();
    let again = t.status();
    assert_eq!(again["round"], 2);
    assert!(again["ended"].is_null());
    assert!(run(&["verify", t.dir()], None).ok().stdout.starts_with("verified "));
}

#[test]
fn bad_turn_files_are_answered_line_by_line_and_change_nothing() {
    let t = Table::new(THREE, &[]);
    let journal = std::fs::read_to_string(t.dir.join("journal.jsonl")).unwrap();
    let status = t.status();
    let who = status["awaiting"][0].as_str().unwrap().to_string();
    let other = ["ann", "bob", "cat"].into_iter().find(|n| *n != who).unwrap();
    let out = t.submit(other, "score 1\n");
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains(&format!("line   1: not your turn: it is {who}'s turn")), "{}", out.stdout);
    let me = status["players"].as_array().unwrap().iter().find(|p| p["name"] == who.as_str()).unwrap().clone();
    let held: Vec<u64> = me["dice"].as_array().unwrap().iter().map(|d| d["value"].as_u64().unwrap()).collect();
    let missing = (1..=6).find(|v| !held.contains(v)).unwrap();
    let out = t.submit(&who, &format!("score {missing}\nsqueeze 7\nsqueeze 2 rerolls 9\nhello\n"));
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains(&format!("line   1: `score {missing}`: you hold no unused {missing}")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("line   2, column 9: the number to squeeze in on is 1 to 6, not 7"), "{}", out.stdout);
    assert!(out.stdout.contains("line   3, column 19: the number of re-rolls is 0 to 5, not 9"), "{}", out.stdout);
    assert!(out.stdout.contains("line   4: `hello` is not a turn"), "{}", out.stdout);
    let huge = t.submit(&who, &"score 6\n".repeat(20_000));
    assert_eq!(huge.code, 2);
    assert!(huge.stderr.contains("at most 64 KiB"), "{}", huge.stderr);
    assert_eq!(std::fs::read_to_string(t.dir.join("journal.jsonl")).unwrap(), journal, "nothing refused was journaled");
    assert_eq!(t.status(), status);
    let two = Table::new_err("ann, a@x.org\nbob, b@x.org\n");
    assert!(two.contains("3 to 10 players"), "{two}");
}

impl Table {
    /// `new` that must fail: its error.
    fn new_err(players: &str) -> String {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("players.txt");
        std::fs::write(&file, players).unwrap();
        let dir = tmp.path().join("g");
        let r = run(&["new", dir.to_str().unwrap(), "--game", "overdue", "--players", file.to_str().unwrap()], None);
        assert_ne!(r.code, 0);
        r.stderr
    }
}

/// A judge directory with a 3-player Overdue game, played by mail.
struct MailTable {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outbox: Outbox,
    passwords: Vec<(String, String)>,
    sent: usize,
}

impl MailTable {
    fn new() -> MailTable {
        let extra = ["--seed", SEED, "--option", "rounds=3"];
        let (tmp, root, passwords) = small_game_by_mail(NOW, "late", "overdue", THREE, &extra);
        MailTable { _tmp: tmp, root, outbox: Outbox::default(), passwords, sent: 0 }
    }

    fn cli(&self, now: &str, args: &[&str]) -> Run {
        judge_cli(now, &self.root, args)
    }

    fn deliver(&mut self, who: &str, body: &str) {
        self.sent += 1;
        let r = mail_in(NOW, &self.root, "late", &self.passwords, self.sent, who, body);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }

    fn game(&self) -> String {
        self.root.join("games/late").display().to_string()
    }

    fn status(&self) -> serde_json::Value {
        self.cli(NOW, &["status", &self.game(), "--json"]).ok().json()
    }
}

#[test]
fn a_three_player_game_is_played_to_its_end_by_mail() {
    let mut t = MailTable::new();
    t.outbox.new_mails(&t.root);
    // The first turn: the acknowledgement names whose turn is next and by when, and
    // every player and the report of the turn.
    let status = t.status();
    let (who, text) = next_turn(&status).unwrap();
    t.deliver(&who, &format!("squeeze 5 rerolls 1\n{text}"));
    let mails = t.outbox.new_mails(&t.root);
    let ack = mails.iter().find(|m| m.in_reply_to.is_some()).expect("an acknowledgement");
    let next = t.status()["awaiting"][0].as_str().unwrap().to_string();
    assert!(ack.body.contains(&format!("from {next}")), "{}", ack.body);
    assert!(ack.body.contains("Deadline:"), "{}", ack.body);
    assert!(ack.body.contains("squeeze 5 rerolls 1: if the deadline finds you uncashed"), "{}", ack.body);
    let reports: Vec<&str> =
        mails.iter().filter(|m| m.subject.starts_with("late: results of")).map(|m| m.to.as_str()).collect();
    for address in ["ann@example.org", "bob@example.org", "cat@example.org"] {
        assert!(reports.contains(&address), "no report to {address}: {reports:?}");
    }
    // A missed turn: the tick after the deadline passes for the player.
    let deadline = t.status()["deadline"].as_str().unwrap().to_string();
    let late = chrono::DateTime::parse_from_rfc3339(&deadline).unwrap() + chrono::Duration::hours(1);
    let late = late.to_rfc3339();
    t.cli(&late, &["mail", "tick"]).ok();
    let after = t.status();
    assert_ne!(after["awaiting"][0], next.as_str(), "{after}");
    let history = t.cli(NOW, &["history", &t.game()]).ok().stdout;
    assert!(history.contains("the deadline passed; the defaults were applied"), "{history}");
    let results = t.cli(NOW, &["results", &t.game()]).ok().stdout;
    assert!(results.contains(&format!("{next} missed the turn's deadline and passes")), "{results}");
    // The rest of the game, by mail.
    let mut turns = 0;
    while t.status()["ended"].is_null() {
        let (who, text) = next_turn(&t.status()).expect("someone is awaited");
        t.deliver(&who, &text);
        turns += 1;
        assert!(turns < 400, "the game does not end by mail");
    }
    let end = t.status();
    assert_eq!(end["round"], 3);
    assert_eq!(end["dice"]["seed"], SEED);
    let mails = t.outbox.new_mails(&t.root);
    assert!(mails.iter().any(|m| m.body.contains("The game is over")), "the end is mailed");
    assert!(t.cli(NOW, &["verify", &t.game()]).ok().stdout.starts_with("verified "));
}

/// A squeeze line from a player whose turn it is not changes nothing public: the deadline
/// of the player whose turn it is stays where it was.
#[test]
fn a_squeeze_sent_out_of_turn_keeps_the_awaited_players_deadline() {
    let t = Table::new(THREE, &[]);
    let before = t.status();
    let awaited = before["awaiting"][0].as_str().unwrap().to_string();
    let other = ["ann", "bob", "cat"].into_iter().find(|p| *p != awaited).unwrap();
    let later = "2026-03-01T20:00:00Z";
    let sent = shadowjudge_at(later, None, &["submit", t.dir(), "--player", other, "-"], Some(b"squeeze 5\n"), &[]);
    assert_eq!(sent.code, 0, "{}", sent.stderr);
    let after = t.status();
    assert_eq!(after["awaiting"], before["awaiting"]);
    assert!(before["deadline"].is_string(), "{before}");
    assert_eq!(after["deadline"], before["deadline"], "the squeeze moved {awaited}'s deadline");
}
