//! The small games' commands as players and masters meet them (issue 27, items 9-13):
//! `adjudicate` in the game's words, `submit --check`, a mid-game `reveal`, a player's own
//! `status`, and the mails that end a game.

use std::path::PathBuf;

use crate::harness::{shadowjudge_at, Run};
use crate::judge_dir::{judge_cli, mail_in, small_game_by_mail, Outbox};

const NOW: &str = "2026-03-01T12:00:00Z";
const SEED: &str = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";

fn run(args: &[&str], stdin: Option<&str>) -> Run {
    shadowjudge_at(NOW, None, args, stdin.map(str::as_bytes), &[])
}

/// A new game of `kind` for `players` (one name a line) in a temporary directory.
fn new_game(kind: &str, players: &[&str], options: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let file = tmp.path().join("players.txt");
    let lines: String = players.iter().map(|p| format!("{p}, {p}@example.org\n")).collect();
    std::fs::write(&file, lines).unwrap();
    let mut args =
        vec!["new", dir.to_str().unwrap(), "--game", kind, "--players", file.to_str().unwrap(), "--seed", SEED];
    for o in options {
        args.extend(["--option", o]);
    }
    run(&args, None).ok();
    (tmp, dir)
}

fn status(dir: &std::path::Path) -> serde_json::Value {
    run(&["status", dir.to_str().unwrap(), "--json"], None).ok().json()
}

#[test]
fn issue_27_adjudicate_without_force_says_what_the_game_waits_for_in_its_words() {
    let (_tmp, dir) = new_game("duplexity", &["ann", "bob"], &[]);
    let first = status(&dir)["awaiting"][0].as_str().unwrap().to_string();
    let r = run(&["adjudicate", dir.to_str().unwrap()], None);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(!r.stderr.contains("orders"), "{}", r.stderr);
    assert!(r.stderr.contains("still waiting for a pawn placed in the Present"), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("from {first}")), "{}", r.stderr);

    let (_tmp, dir) = new_game("overdue", &["ann", "bob", "cat"], &[]);
    let r = run(&["adjudicate", dir.to_str().unwrap()], None);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("still waiting for a turn (score, time, discard or cash), from "), "{}", r.stderr);
}

#[test]
fn a_turn_taken_is_followed_by_the_board_once_and_a_turn_refused_by_no_board() {
    let (_tmp, dir) = new_game("duplexity", &["ann", "bob"], &[]);
    let d = dir.to_str().unwrap();
    let first = status(&dir)["awaiting"][0].as_str().unwrap().to_string();
    let refused = run(&["submit", d, "--player", &first, "-"], Some("place Q9\n"));
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(refused.stdout.ends_with("Nothing was taken; the game is as it was.\n"), "{}", refused.stdout);
    assert!(!refused.stdout.contains("Waiting for"), "no board after nothing taken: {}", refused.stdout);
    let taken = run(&["submit", d, "--player", &first, "-"], Some("place P3\n")).ok();
    assert!(taken.stdout.contains("line   1: place P3"), "{}", taken.stdout);
    let said = taken.stdout.matches("Awaited now").count() + taken.stdout.matches("Waiting for").count();
    assert_eq!(said, 1, "what is awaited is said once: {}", taken.stdout);
}

#[test]
fn issue_27_submit_check_answers_every_line_and_keeps_nothing() {
    let (_tmp, dir) = new_game("duplexity", &["ann", "bob"], &[]);
    let d = dir.to_str().unwrap();
    let first = status(&dir)["awaiting"][0].as_str().unwrap().to_string();
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let before = status(&dir);
    let r = run(&["submit", d, "--player", &first, "--check", "-"], Some("place P3\nplace Q9\n"));
    assert_eq!(r.code, 1, "one line is refused: {}", r.stdout);
    assert!(r.stdout.contains("line   1: place P3"), "{}", r.stdout);
    assert!(r.stdout.contains("Not taken:\n  line   2, column 7: not understood:"), "{}", r.stdout);
    assert!(r.stdout.contains("Checked only: nothing was kept"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(dir.join("journal.jsonl")).unwrap(), journal);
    assert_eq!(status(&dir), before);
    let ok = run(&["submit", d, "--player", &first, "--check", "--json", "-"], Some("place P3\n")).ok().json();
    assert_eq!(ok["kept"], false);
    assert_eq!(ok["lines"][0]["accepted"], true);

    // A check that rolls uses stand-in dice: the game's next roll is not spent or shown.
    let (_tmp, dir) = new_game("duplexity", &["ann", "bob"], &[]);
    let d = dir.to_str().unwrap();
    for _ in 0..4 {
        let s = status(&dir);
        if s["step"] == "act" {
            break;
        }
        run(&["adjudicate", d, "--force"], None).ok();
    }
    let s = status(&dir);
    assert_eq!(s["step"], "act", "{s}");
    let who = s["turn"].as_str().unwrap().to_string();
    let pawn = s["players"].as_array().unwrap().iter().find(|p| p["name"] == who.as_str()).unwrap()["pawns"][0]
        .as_str()
        .unwrap()
        .to_string();
    let rolls = s["dice"]["rolls"].clone();
    let r = run(&["submit", d, "--player", &who, "--check", "-"], Some(&format!("pawn {pawn}: move +\n"))).ok();
    assert!(r.stdout.contains("stand-ins"), "{}", r.stdout);
    assert_eq!(status(&dir)["dice"]["rolls"], rolls);
}

#[test]
fn issue_27_reveal_before_the_end_needs_force_and_every_report_then_says_so() {
    let (_tmp, dir) = new_game("duplexity", &["ann", "bob"], &[]);
    let d = dir.to_str().unwrap();
    let r = run(&["reveal", d], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("not over") && r.stderr.contains("--force"), "{}", r.stderr);
    assert!(status(&dir)["dice"]["seed"].is_null(), "nothing revealed");
    run(&["reveal", d, "--force"], None).ok();
    assert_eq!(status(&dir)["dice"]["seed"], SEED);
    // Once revealed, showing the seed again needs no --force and journals nothing new.
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let again = run(&["reveal", d], None).ok();
    assert!(again.stdout.contains(SEED), "{}", again.stdout);
    assert_eq!(std::fs::read_to_string(dir.join("journal.jsonl")).unwrap(), journal);
    run(&["adjudicate", d, "--force"], None).ok();
    let text = run(&["status", d], None).ok().stdout;
    assert!(text.contains("the rest of the game's rolls are public"), "{text}");
}

struct MailGame {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outbox: Outbox,
    passwords: Vec<(String, String)>,
    sent: usize,
}

impl MailGame {
    fn new(options: &[&str]) -> MailGame {
        let mut extra = vec!["--seed", SEED, "--master", "gm@example.org"];
        for o in options {
            extra.extend(["--option", o]);
        }
        let players = "ann, ann@example.org, Europe/Rome\nbob, bob@example.org\n";
        let (tmp, root, passwords) = small_game_by_mail(NOW, "duel", "duplexity", players, &extra);
        MailGame { _tmp: tmp, root, outbox: Outbox::default(), passwords, sent: 0 }
    }

    fn cli(&self, args: &[&str]) -> Run {
        judge_cli(NOW, &self.root, args)
    }

    fn dir(&self) -> String {
        self.root.join("games/duel").to_str().unwrap().to_string()
    }

    fn deliver(&mut self, who: &str, body: &str) -> i32 {
        self.sent += 1;
        mail_in(NOW, &self.root, "duel", &self.passwords, self.sent, who, body).code
    }
}

#[test]
fn issue_27_a_players_status_by_mail_has_their_zone_and_what_is_theirs_to_do() {
    let mut g = MailGame::new(&[]);
    g.outbox.new_mails(&g.root);
    let first = g.cli(&["status", &g.dir(), "--json"]).ok().json()["awaiting"][0].as_str().unwrap().to_string();
    assert_eq!(g.deliver("ann", "status\n"), 0);
    let mails = g.outbox.new_mails(&g.root);
    let reply = mails.iter().find(|m| m.to == "ann@example.org").expect("a reply to ann");
    assert!(reply.body.contains("Europe/Rome"), "the deadline in ann's zone: {}", reply.body);
    assert!(reply.body.contains("You play ann."), "{}", reply.body);
    if first == "ann" {
        assert!(reply.body.contains("Yours to do: a pawn placed in the Present"), "{}", reply.body);
    } else {
        assert!(
            reply.body.contains(&format!("Nothing is yours to do now: the judge waits for {first}")),
            "{}",
            reply.body
        );
    }
    assert_eq!(g.deliver("bob", "status\n"), 0);
    let mails = g.outbox.new_mails(&g.root);
    let reply = mails.iter().find(|m| m.to == "bob@example.org").expect("a reply to bob");
    assert!(!reply.body.contains("Europe/Rome"), "bob has no zone: {}", reply.body);
    assert!(reply.body.contains("You play bob."), "{}", reply.body);
}

#[test]
fn issue_27_the_last_mails_say_the_game_is_over_its_result_and_how_to_verify() {
    let mut g = MailGame::new(&["max_rounds=1"]);
    g.outbox.new_mails(&g.root);
    for _ in 0..20 {
        if !g.cli(&["status", &g.dir(), "--json"]).ok().json()["ended"].is_null() {
            break;
        }
        g.cli(&["adjudicate", &g.dir(), "--force"]).ok();
    }
    let end = g.cli(&["status", &g.dir(), "--json"]).ok().json();
    assert!(!end["ended"].is_null(), "{end}");
    g.cli(&["mail", "tick"]).ok();
    let mails = g.outbox.new_mails(&g.root);
    let last: Vec<_> = mails.iter().filter(|m| m.subject.contains("the game is over")).collect();
    assert!(!last.is_empty(), "{:?}", mails.iter().map(|m| &m.subject).collect::<Vec<_>>());
    for m in &last {
        assert!(m.body.contains("The game is over:"), "{}", m.body);
        assert!(m.body.contains("shadowjudge verify duel"), "{}", m.body);
    }
    let text = g.cli(&["status", &g.dir()]).ok().stdout;
    assert!(!text.contains("so far"), "{text}");
    assert!(text.contains("in all"), "{text}");
}

/// `games` lists every game of the registry, Diplomacy's beside the small games, with
/// its seats, each option and its rulings, and the toy game of the tests is not shipped.
#[test]
fn games_lists_each_game_with_its_seats_options_and_rulings() {
    let out = run(&["games"], None).ok().stdout;
    for line in [
        "Diplomacy (`--variant standard`): the standard game of seven powers on one board; 7 powers, a seat each.",
        "Shadow Worlds Diplomacy (`--variant shadow-worlds`)",
        "  --short-game (default false): the shorter game, won at 18 distinct centers instead of 34",
        "Duplexity (`--game duplexity`)",
        "; 2 players.",
        "Overdue (`--game overdue`)",
        "; 3 to 10 players.",
        "--option dice_per_player (default 3)",
        "Duple (`--game duple`)",
        "--option challenges (default vote)",
        "Rulings: docs/duple.md",
    ] {
        assert!(out.contains(line), "`{line}` in:\n{out}");
    }
    // The toy game is in the tests' build only (the `toy-game` feature, which the tests
    // turn on for themselves): never a default of the judge that is built and shipped.
    assert!(out.contains("Pebbles (`--game pebbles`)"), "the tests' build has the toy game:\n{out}");
    let manifest: toml::Table =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap().parse().unwrap();
    let defaults = manifest["features"].get("default").and_then(|d| d.as_array()).cloned().unwrap_or_default();
    assert!(!defaults.iter().any(|f| f.as_str() == Some("toy-game")), "{defaults:?}");
    assert!(manifest["features"].get("toy-game").is_some(), "the toy game's feature is there to be left off");
}

/// `new --game shadow-worlds` makes the same game as `new --variant shadow-worlds`: a
/// Diplomacy game whose seats are powers, played by orders.
#[test]
fn new_with_a_diplomacy_kind_as_game_makes_a_diplomacy_game() {
    let tmp = tempfile::tempdir().unwrap();
    let players = tmp.path().join("players.txt");
    std::fs::write(&players, "france, Ann, ann@example.org\n").unwrap();
    let (by_game, by_variant) = (tmp.path().join("a"), tmp.path().join("b"));
    let p = players.to_str().unwrap();
    let made = run(&["new", by_game.to_str().unwrap(), "--name", "g", "--game", "shadow-worlds", "--players", p], None);
    run(&["new", by_variant.to_str().unwrap(), "--name", "g", "--variant", "shadow-worlds", "--players", p], None).ok();
    assert!(made.ok().stdout.contains("(shadow-worlds)"));
    let toml = |d: &PathBuf| std::fs::read_to_string(d.join("game.toml")).unwrap();
    assert_eq!(toml(&by_game), toml(&by_variant));
    let out = run(&["submit", by_game.to_str().unwrap(), "--power", "france"], Some("A par - bur (board A)\n")).ok();
    assert!(out.stdout.contains("A par - bur"), "{}", out.stdout);
}
