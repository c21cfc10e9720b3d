//! The small games through the same CLI, store and mail as Diplomacy (issue 10): a
//! Duplexity game created and played to its end from the command line and by mail, the
//! verifiable dice (`verify`, `reveal`, a tampered roll), rollback, replay, bad input and
//! concurrent submissions.

use std::path::{Path, PathBuf};

use crate::harness::{shadowjudge_at, Run};
use crate::judge_dir::{judge_cli, mail_in, small_game_by_mail, Outbox};

const NOW: &str = "2026-03-01T12:00:00Z";
const SEED: &str = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";

struct Duel {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

fn run(args: &[&str], stdin: Option<&str>) -> Run {
    shadowjudge_at(NOW, None, args, stdin.map(str::as_bytes), &[])
}

impl Duel {
    /// A new Duplexity game for ann and bob with a known seed.
    fn new(options: &[&str]) -> (Duel, Run) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("duel");
        let players = tmp.path().join("players.txt");
        std::fs::write(&players, "ann, ann@example.org, Europe/Rome\nbob, bob@example.org\n").unwrap();
        let mut args = vec![
            "new",
            dir.to_str().unwrap(),
            "--game",
            "duplexity",
            "--players",
            players.to_str().unwrap(),
            "--seed",
            SEED,
        ];
        for o in options {
            args.extend(["--option", o]);
        }
        let created = run(&args, None).ok();
        (Duel { _tmp: tmp, dir }, created)
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

/// A legal turn for whoever is awaited, from the status alone: place, bid 0, or activate
/// one of the player's pawns with a move in rising direction. Returns (player, text).
fn next_turns(status: &serde_json::Value) -> Vec<(String, String)> {
    let step = status["step"].as_str().unwrap_or_default().to_string();
    let mut turns = Vec::new();
    for who in status["awaiting"].as_array().into_iter().flatten() {
        let who = who.as_str().unwrap().to_string();
        if step.contains("setup") {
            let taken: Vec<String> = status["board"].as_object().unwrap().keys().cloned().collect();
            // P1 first; the second player takes P2 (neither P1 nor 4 steps from it).
            let space = if taken.is_empty() { "P1" } else { "P2" };
            turns.push((who, format!("place {space}\n")));
        } else if step.contains("bid") {
            turns.push((who, "bid 0\n".to_string()));
        } else {
            let pawns = status["players"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == who.as_str())
                .map(|p| p["pawns"].as_array().unwrap().clone())
                .unwrap_or_default();
            for pawn in pawns {
                turns.push((who.clone(), format!("pawn {}: move +\n", pawn.as_str().unwrap())));
            }
            turns.push((who, "to 1\n".to_string()));
        }
    }
    turns
}

/// Play the game to its end from the CLI: each awaited player sends the first turn the
/// judge takes. Returns the number of turns taken.
fn play_to_the_end(duel: &Duel) -> usize {
    let mut taken = 0;
    for _ in 0..2_000 {
        let status = duel.status();
        if !status["ended"].is_null() {
            return taken;
        }
        let turns = next_turns(&status);
        assert!(!turns.is_empty(), "nobody is awaited but the game is not over: {status}");
        let mut progressed = false;
        for (who, text) in turns {
            let r = duel.submit(&who, &text);
            if r.code == 0 {
                taken += 1;
                progressed = true;
                break;
            }
        }
        if !progressed {
            // Nothing the driver knows was legal: the deadline defaults move the game on.
            run(&["adjudicate", duel.dir(), "--force"], None).ok();
        }
    }
    panic!("the game did not end in 2,000 turns");
}

#[test]
fn duplexity_created_from_the_cli_is_played_to_its_end_and_verified() {
    let (duel, created) = Duel::new(&["max_rounds=6"]);
    assert!(created.stdout.contains("Dice commitment"), "{}", created.stdout);
    let status = duel.status();
    assert_eq!(status["game"], "duplexity");
    let commitment = status["dice"]["commitment"].as_str().unwrap().to_string();
    assert_eq!(commitment.len(), 64);
    assert!(status["dice"]["seed"].is_null(), "the seed stays secret until the end");
    assert!(status["dice"]["rolls"].as_u64().unwrap() >= 1, "who places first is rolled");

    let turns = play_to_the_end(&duel);
    assert!(turns > 4, "a game takes more than setup: {turns}");
    let end = duel.status();
    assert!(["won", "lost", "drawn"].contains(&end["ended"].as_str().unwrap()), "{end}");
    assert_eq!(end["dice"]["seed"].as_str(), Some(SEED), "the seed is revealed when the game ends");

    let verified = run(&["verify", duel.dir()], None).ok();
    let n = end["dice"]["rolls"].as_u64().unwrap();
    assert!(verified.stdout.starts_with(&format!("verified {n} rolls; ")), "{}", verified.stdout);

    let history = run(&["history", duel.dir()], None).ok();
    assert!(history.stdout.contains("seed revealed"), "{}", history.stdout);
    let last = run(&["results", duel.dir()], None).ok();
    assert!(last.stdout.contains("Entry"), "{}", last.stdout);
    let after_end = duel.submit("ann", "bid 0\n");
    assert_ne!(after_end.code, 0, "no turn after the end");
    assert!(after_end.stderr.contains("over"), "{}", after_end.stderr);
}

fn journal_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("journal.jsonl")).unwrap()
}

#[test]
fn verify_names_a_tampered_roll_and_fails() {
    let (duel, _) = Duel::new(&["max_rounds=3"]);
    play_to_the_end(&duel);
    // Change the first roll's result in the journal, as a dishonest judge would.
    let text = journal_text(&duel.dir);
    let at = text.find("\"result\":").expect("a roll is journaled");
    let digit_at = at + "\"result\":".len();
    let old = &text[digit_at..digit_at + 1];
    let new = if old == "1" { "2" } else { "1" };
    let tampered = format!("{}{}{}", &text[..digit_at], new, &text[digit_at + 1..]);
    std::fs::write(duel.dir.join("journal.jsonl"), tampered).unwrap();
    let verified = run(&["verify", duel.dir()], None);
    assert_eq!(verified.code, 1, "{}", verified.stdout);
    assert!(verified.stdout.contains("mismatch: roll 0"), "{}", verified.stdout);
    assert!(verified.stdout.contains(&format!("the journal says {new}")), "{}", verified.stdout);
}

#[test]
fn verify_before_the_end_needs_the_seed_revealed() {
    let (duel, _) = Duel::new(&[]);
    let early = run(&["verify", duel.dir()], None);
    assert_eq!(early.code, 1);
    assert!(early.stdout.contains("not revealed"), "{}", early.stdout);
    let revealed = run(&["reveal", duel.dir(), "--force"], None).ok();
    assert!(revealed.stdout.contains(SEED), "{}", revealed.stdout);
    assert!(run(&["verify", duel.dir()], None).ok().stdout.starts_with("verified "));
    assert_eq!(duel.status()["dice"]["seed"].as_str(), Some(SEED));
}

#[test]
fn the_state_is_rebuilt_from_the_journal_when_the_cache_is_lost() {
    let (duel, _) = Duel::new(&["max_rounds=2"]);
    for _ in 0..6 {
        let status = duel.status();
        if let Some((who, text)) = next_turns(&status).into_iter().next() {
            duel.submit(&who, &text);
        }
    }
    let before = duel.status();
    std::fs::remove_file(duel.dir.join("state.json")).unwrap();
    assert_eq!(duel.status(), before, "a replay of the journal gives the same game");
    assert!(!duel.dir.join("state.json").exists(), "reading changes nothing");
    // Opened to change (an adjudication not yet due), the game rewrites its cache, as a
    // Diplomacy game does, and says so.
    let r = run(&["adjudicate", duel.dir()], None);
    assert!(r.stderr.contains("state.json: was behind the journal; rebuilt from it"), "{}", r.stderr);
    assert!(duel.dir.join("state.json").exists());
    assert_eq!(duel.status(), before);
}

#[test]
fn rollback_goes_back_to_a_round_and_the_dice_roll_the_same_again() {
    let (duel, _) = Duel::new(&["max_rounds=4"]);
    play_to_the_end(&duel);
    let journal = journal_text(&duel.dir);
    let rolls_before: Vec<String> = journal.lines().map(str::to_string).collect();
    run(&["rollback", duel.dir(), "round 2"], None).ok();
    let status = duel.status();
    assert_eq!(status["round"], 2, "{status}");
    assert!(status["ended"].is_null());
    assert!(status["dice"]["seed"].is_string(), "a revealed seed stays revealed");
    // Played again the same way, the game ends where it ended: the same dice came again.
    play_to_the_end(&duel);
    let verified = run(&["verify", duel.dir()], None).ok();
    assert!(verified.stdout.starts_with("verified "), "{}", verified.stdout);
    assert!(journal_text(&duel.dir).lines().count() > rolls_before.len(), "the journal keeps everything");
    let unknown = run(&["rollback", duel.dir(), "round 99"], None);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("never started round 99"), "{}", unknown.stderr);
}

#[test]
fn bad_turn_files_get_an_answer_per_line_and_change_nothing() {
    let (duel, _) = Duel::new(&[]);
    let journal = journal_text(&duel.dir);
    let status = duel.status();
    let awaited = status["awaiting"][0].as_str().unwrap().to_string();
    let other = if awaited == "ann" { "bob" } else { "ann" };

    // (A placement from the other player is kept for its turn: a bid is out of turn.)
    let out_of_turn = duel.submit(other, "bid 1\n");
    assert_eq!(out_of_turn.code, 1, "{}", out_of_turn.stdout);
    assert!(out_of_turn.stdout.contains("Not taken:\n  line   1: "), "{}", out_of_turn.stdout);

    let junk = duel.submit(&awaited, "\u{0}\u{1}\u{fffd}garbage ### ;;;\nplace Q9\n");
    assert_eq!(junk.code, 1);
    assert!(junk.stdout.contains("line   2"), "{}", junk.stdout);

    let nobody = duel.submit("carol", "place P3\n");
    assert_eq!(nobody.code, 2);
    assert!(nobody.stderr.contains("no player `carol`"), "{}", nobody.stderr);
    assert!(!nobody.stderr.contains("<stdin>"), "about --player, not the turn file: {}", nobody.stderr);

    let huge = "place P3\n".repeat(200_000);
    let too_big = duel.submit(&awaited, &huge);
    assert_eq!(too_big.code, 2);
    assert!(too_big.stderr.contains("at most 64 KiB"), "{}", too_big.stderr);
    assert!(too_big.stderr.contains("<stdin>: 1800000 bytes"), "the turn file is named: {}", too_big.stderr);

    assert_eq!(journal_text(&duel.dir), journal, "nothing refused was journaled");
    assert_eq!(duel.status(), status);
}

#[test]
fn concurrent_submissions_are_serialised_by_the_lock() {
    let (duel, _) = Duel::new(&[]);
    // Both players bid at once, many times over: each bid is journaled whole, in some
    // order, and the replayed journal agrees with the state.
    let status = duel.status();
    let first = status["awaiting"][0].as_str().unwrap().to_string();
    duel.submit(&first, "place P1\n").ok();
    let second = duel.status()["awaiting"][0].as_str().unwrap().to_string();
    duel.submit(&second, "place P2\n").ok();
    let dir = duel.dir().to_string();
    let handles: Vec<_> = ["ann", "bob"]
        .into_iter()
        .map(|who| {
            let dir = dir.clone();
            std::thread::spawn(move || run(&["submit", &dir, "--player", who, "-"], Some("bid 1\n")))
        })
        .collect();
    for h in handles {
        let r = h.join().unwrap();
        assert!(r.code == 0 || r.code == 1, "{r:?}");
    }
    let after = duel.status();
    std::fs::remove_file(duel.dir.join("state.json")).unwrap();
    assert_eq!(duel.status(), after, "the journal replays to the state both writers left");
}

#[test]
fn a_diplomacy_game_has_no_dice_to_verify() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let players = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/standard-game/players.txt");
    run(&["new", dir.to_str().unwrap(), "--players", players.to_str().unwrap()], None).ok();
    let r = run(&["verify", dir.to_str().unwrap()], None);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("rolls no dice"), "{}", r.stderr);
}

/// A judge directory with a Duplexity game, played by mail.
struct MailDuel {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outbox: Outbox,
    passwords: Vec<(String, String)>,
    sent: usize,
}

impl MailDuel {
    fn new() -> MailDuel {
        let extra = ["--seed", SEED, "--option", "max_rounds=5", "--master", "gm@example.org"];
        let players = "ann, ann@example.org\nbob, bob@example.org\n";
        let (tmp, root, passwords) = small_game_by_mail(NOW, "duel", "duplexity", players, &extra);
        MailDuel { _tmp: tmp, root, outbox: Outbox::default(), passwords, sent: 0 }
    }

    fn cli(&self, args: &[&str]) -> Run {
        judge_cli(NOW, &self.root, args)
    }

    fn deliver(&mut self, who: &str, body: &str) -> i32 {
        self.sent += 1;
        mail_in(NOW, &self.root, "duel", &self.passwords, self.sent, who, body).code
    }

    fn status(&self) -> serde_json::Value {
        self.cli(&["status", self.root.join("games/duel").to_str().unwrap(), "--json"]).ok().json()
    }
}

#[test]
fn duplexity_is_played_to_its_end_by_mail() {
    let mut duel = MailDuel::new();
    let mails = duel.outbox.new_mails(&duel.root);
    assert!(mails.iter().all(|m| !m.body.contains(SEED)), "the seed is never mailed before the end");
    let mut rounds = 0;
    while duel.status()["ended"].is_null() {
        rounds += 1;
        assert!(rounds < 500, "the game did not end by mail");
        let status = duel.status();
        let before = status.clone();
        for (who, text) in next_turns(&status) {
            assert_eq!(duel.deliver(&who, &text), 0);
            if duel.status() != before {
                break;
            }
        }
        if duel.status() == before {
            // The master processes at the deadline, by mail too.
            duel.cli(&["adjudicate", duel.root.join("games/duel").to_str().unwrap(), "--force"]).ok();
        }
        let mails = duel.outbox.new_mails(&duel.root);
        let acks: Vec<_> = mails.iter().filter(|m| m.in_reply_to.is_some()).collect();
        assert!(!acks.is_empty(), "every message is answered");
        for ack in &acks {
            assert!(!ack.body.contains(&duel.passwords[0].1) && !ack.body.contains(&duel.passwords[1].1));
        }
    }
    let end = duel.status();
    assert!(end["dice"]["seed"].is_string());
    duel.cli(&["mail", "tick"]).ok();
    let verified = duel.cli(&["verify", duel.root.join("games/duel").to_str().unwrap()]).ok();
    assert!(verified.stdout.starts_with("verified "), "{}", verified.stdout);
}

#[test]
fn the_report_of_each_turn_goes_to_both_players_and_the_master() {
    let mut duel = MailDuel::new();
    duel.outbox.new_mails(&duel.root);
    let status = duel.status();
    let (who, text) = next_turns(&status).into_iter().next().unwrap();
    assert_eq!(duel.deliver(&who, &text), 0);
    let mails = duel.outbox.new_mails(&duel.root);
    let ack = mails.iter().find(|m| m.in_reply_to.is_some()).expect("an acknowledgement");
    assert_eq!(ack.to, format!("{who}@example.org"));
    assert!(ack.body.contains("place"), "{}", ack.body);
    let reports: Vec<&str> =
        mails.iter().filter(|m| m.subject.starts_with("duel: results of")).map(|m| m.to.as_str()).collect();
    for address in ["ann@example.org", "bob@example.org", "gm@example.org"] {
        assert!(reports.contains(&address), "no report to {address}: {reports:?}");
    }
    // A second tick owes nothing more.
    duel.cli(&["mail", "tick"]).ok();
    let again = duel.outbox.new_mails(&duel.root);
    assert!(again.iter().all(|m| !m.subject.starts_with("duel: results of")), "{again:?}");
}

/// Play the driver's turns until the game asks for bids.
fn to_the_bids(status: impl Fn() -> serde_json::Value, mut send: impl FnMut(&str, &str) -> bool) {
    for _ in 0..50 {
        let now = status();
        if now["step"].as_str().unwrap_or_default().contains("bid") {
            return;
        }
        let sent = next_turns(&now).into_iter().any(|(who, text)| send(&who, &text));
        assert!(sent, "no turn was taken before the bids: {now}");
    }
    panic!("the game never asked for bids");
}

/// Early processing in a small game (issue 14 item 6): with a `wait` the sealed bids,
/// both in, are held until the deadline; `nowait` opens them at once. The waits and the
/// hold are journaled: the state rebuilt from the journal is the same.
#[test]
fn a_wait_holds_the_bids_until_nowait_from_the_cli() {
    let (duel, _) = Duel::new(&[]);
    to_the_bids(|| duel.status(), |who, text| duel.submit(who, text).code == 0);
    let r = duel.submit("ann", "wait\nbid 1\n").ok();
    assert!(r.stdout.contains("line   1: wait: this step goes on only at its deadline"), "{}", r.stdout);
    let s = duel.status();
    assert_eq!(s["waiting"], serde_json::json!(["ann"]), "{s}");
    assert_eq!(s["held"], false);
    assert_eq!(s["early"], true);
    duel.submit("bob", "bid 0\n").ok();
    let s = duel.status();
    assert_eq!(s["held"], true, "both bids in and ann waits: {s}");
    assert!(s["step"].as_str().unwrap().contains("bid"), "{s}");
    assert_eq!(s["awaiting"], serde_json::json!([]), "{s}");
    let text = run(&["status", duel.dir()], None).ok().stdout;
    assert!(text.contains("Every input is in; held until the deadline: ann asked to wait"), "{text}");
    // A bid sent cannot be changed while held.
    assert_eq!(duel.submit("bob", "bid 2\n").code, 1);
    // The state rebuilt from the journal holds the same wait and the same held bids.
    std::fs::remove_file(duel.dir.join("state.json")).unwrap();
    assert_eq!(duel.status(), s);
    let r = duel.submit("ann", "nowait\n").ok();
    assert!(r.stdout.contains("nowait: every input is in and nobody waits; the game goes on now"), "{}", r.stdout);
    let s = duel.status();
    assert_eq!(s["held"], false, "{s}");
    assert_eq!(s["waiting"], serde_json::json!([]), "{s}");
    assert!(!s["step"].as_str().unwrap().contains("bid"), "the bids were opened: {s}");
    let history = run(&["history", duel.dir()], None).ok().stdout;
    assert!(history.contains("ann waits for the deadline"), "{history}");
    assert!(history.contains("ann no longer waits"), "{history}");
    assert!(history.contains("went on early"), "{history}");
    // `wait` is for the bids only: an activation is one player's move.
    let r = duel.submit(s["awaiting"][0].as_str().unwrap(), "wait\n");
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("`wait` is for a step where every player's input is taken together"), "{}", r.stdout);
}

/// Issue 23.9: one change of `wait` per turn file, the last line winning: 2,000 pairs
/// of lines write one journal entry, and each earlier line is answered.
#[test]
fn a_turn_file_of_many_waits_changes_the_wait_once() {
    let (duel, _) = Duel::new(&[]);
    to_the_bids(|| duel.status(), |who, text| duel.submit(who, text).code == 0);
    let journal = || std::fs::read_to_string(duel.dir.join("journal.jsonl")).unwrap().lines().count();
    let before = journal();
    let text = "wait\nnowait\n".repeat(2000) + "wait\n";
    let r = duel.submit("ann", &text);
    assert!(
        r.stdout.contains(
            "line   1: `wait` or `nowait` replaced by line 4001, as are 3999 more after it (only the last one counts)"
        ),
        "{}",
        r.stdout
    );
    assert_eq!(r.stdout.matches("replaced by line").count(), 1, "one answer for the replaced lines, not one each");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains("line 4001: wait: this step goes on only at its deadline"), "{}", r.stdout);
    assert_eq!(journal(), before + 1, "one wait, one entry");
    assert_eq!(duel.status()["waiting"], serde_json::json!(["ann"]));
}

/// Issue 43, item 3: a turn file's last `wait` or `nowait` is the one taken, before the
/// file's other lines, for the step under way when the file arrives; `waiting` lists
/// the players in the order their waits were taken. The docs say both.
#[test]
fn a_files_last_wait_is_taken_before_its_other_lines_and_waiting_keeps_the_order_of_waits() {
    let (duel, _) = Duel::new(&[]);
    let awaited = || duel.status()["awaiting"][0].as_str().unwrap().to_string();
    let first = awaited();
    duel.submit(&first, "place P1\n").ok();
    let second = awaited();
    // The `wait` was taken in setup, before this file's placement began the bids.
    let r = duel.submit(&second, "place P2\nbid 1\nwait\n");
    assert!(
        r.stdout.contains("line   3: `wait` is for a step where every player's input is taken together"),
        "{}",
        r.stdout
    );
    let s = duel.status();
    assert!(s["step"] == "bid" && s["waiting"] == serde_json::json!([]), "{s}");
    // Taken before the bid, the `wait` holds the bids this second bid completes.
    let r = duel.submit(&first, "bid 0\nwait\n").ok();
    assert!(r.stdout.contains("line   2: wait: this step goes on only at its deadline"), "{}", r.stdout);
    let s = duel.status();
    assert_eq!((&s["held"], &s["waiting"]), (&serde_json::json!(true), &serde_json::json!([first])), "{s}");
    duel.submit(&second, "wait\n").ok();
    assert_eq!(duel.status()["waiting"], serde_json::json!([first, second]), "in the order of the waits");
    // Only the last line counts: `first` no longer waits, then waits again, last.
    duel.submit(&first, "wait\nnowait\n").ok();
    assert_eq!(duel.status()["waiting"], serde_json::json!([second]));
    duel.submit(&first, "nowait\nwait\n").ok();
    assert_eq!(duel.status()["waiting"], serde_json::json!([second, first]));
    let text = run(&["status", duel.dir()], None).ok().stdout;
    assert!(text.contains(&format!("held until the deadline: {second} and {first} asked to wait")), "{text}");
    // A `nowait` that frees the bids opens them before the file's other lines.
    duel.submit(&second, "nowait\n").ok();
    let r = duel.submit(&first, "bid 2\nnowait\n");
    assert!(
        r.stdout.contains("line   2: nowait: every input is in and nobody waits; the game goes on now"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Not taken:\n  line   1: "), "the bid met the step after the bids: {}", r.stdout);
    assert_ne!(duel.status()["step"], "bid", "the bids were opened");

    let docs = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/duplexity.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for said in [
        "In a turn file only the last of them counts",
        "the judge takes it before every other line of the file, wherever it stands",
        "lists the players who wait as `waiting`, in the order their waits were taken, not in seat order",
    ] {
        assert!(docs.contains(said), "docs/duplexity.md should say: {said}");
    }
}

/// With early processing off (game.toml `[deadlines] early = false`) both bids in wait
/// for the deadline: `mail tick` before it leaves them, the tick after it opens them and
/// mails the report. By mail, `wait` is a command line like Diplomacy's.
#[test]
fn early_off_holds_the_bids_until_the_tick_at_the_deadline() {
    let mut duel = MailDuel::new();
    let game = duel.root.join("games/duel");
    let toml = std::fs::read_to_string(game.join("game.toml")).unwrap();
    assert!(toml.contains("early = true"), "{toml}");
    std::fs::write(game.join("game.toml"), toml.replace("early = true", "early = false")).unwrap();
    for _ in 0..50 {
        let now = duel.status();
        if now["step"].as_str().unwrap_or_default().contains("bid") {
            break;
        }
        let before = now.clone();
        for (who, text) in next_turns(&now) {
            assert_eq!(duel.deliver(&who, &text), 0);
            if duel.status() != before {
                break;
            }
        }
    }
    assert_eq!(duel.status()["early"], false);
    assert_eq!(duel.deliver("ann", "wait\nbid 1\n"), 0);
    assert_eq!(duel.deliver("bob", "bid 0\n"), 0);
    let s = duel.status();
    assert_eq!(s["held"], true, "{s}");
    let text = duel.cli(&["status", game.to_str().unwrap()]).ok().stdout;
    assert!(text.contains("held until the deadline: ann asked to wait"), "{text}");
    duel.outbox.new_mails(&duel.root);
    // `nowait` by mail: early processing is still off, so the bids stay held.
    assert_eq!(duel.deliver("ann", "nowait\n"), 0);
    let mails = duel.outbox.new_mails(&duel.root);
    let ack = mails.iter().find(|m| m.to == "ann@example.org" && m.in_reply_to.is_some()).expect("an answer");
    assert!(ack.body.contains("early processing is off in this game"), "{}", ack.body);
    assert_eq!(duel.status()["held"], true);
    let deadline: chrono::DateTime<chrono::Utc> = s["deadline"].as_str().unwrap().parse().unwrap();
    let tick = |at: chrono::DateTime<chrono::Utc>| {
        let home = duel.root.to_str().unwrap();
        shadowjudge_at(&at.to_rfc3339(), Some(&duel.root), &["mail", "tick"], None, &[("SHADOWJUDGE_HOME", home)]).ok()
    };
    tick(deadline - chrono::Duration::hours(1));
    assert_eq!(duel.status()["held"], true, "not before the deadline");
    // That tick kept the game's glance, as for Diplomacy: the next one passes it over
    // unopened, until the game changes.
    let glance = shadowjudge::game::glance::read(&game).expect("the tick kept a glance");
    assert!(!glance.early && !glance.over && !glance.owed, "{glance:?}");
    assert_eq!(glance.deadline, Some(deadline));
    tick(deadline - chrono::Duration::minutes(30));
    assert!(shadowjudge::game::glance::read(&game).is_some(), "still idle: the glance stands");
    let out = tick(deadline + chrono::Duration::minutes(5)).stdout;
    // The log names the step processed and why, and each report by its number.
    assert!(out.contains("duel: round 1, bids processed (deadline passed, defaults applied)"), "{out}");
    assert!(out.contains("duel: report #"), "{out}");
    let s = duel.status();
    assert_eq!(s["held"], false, "{s}");
    assert!(!s["step"].as_str().unwrap().contains("bid"), "the bids were opened at the deadline: {s}");
    let mails = duel.outbox.new_mails(&duel.root);
    assert!(mails.iter().any(|m| m.subject.starts_with("duel: results of") && m.to == "bob@example.org"), "{mails:?}");
    assert!(shadowjudge::game::glance::read(&game).is_none(), "the game changed: its glance no longer stands");
}

#[test]
fn the_awaited_activation_shows_a_pawn_of_the_player_awaited() {
    let (duel, _) = Duel::new(&[]);
    let mut status = duel.status();
    while !status["step"].as_str().unwrap().contains("act") {
        let (who, text) = next_turns(&status).remove(0);
        duel.submit(&who, &text).ok();
        status = duel.status();
    }
    let who = status["awaiting"][0].as_str().unwrap().to_string();
    let player = status["players"].as_array().unwrap().iter().find(|p| p["name"] == who.as_str()).unwrap();
    let pawn = player["pawns"][0].as_str().unwrap().to_string();
    let text = run(&["status", duel.dir()], None).ok().stdout;
    assert!(
        text.contains(&format!("Waiting for {who}: a pawn's activation (`pawn {pawn}: move +, gather`)")),
        "the example names {who}'s own pawn at {pawn}:\n{text}"
    );
}

#[test]
fn what_a_turn_by_mail_made_happen_is_shown_under_its_line_not_as_line_0() {
    let mut duel = MailDuel::new();
    duel.outbox.new_mails(&duel.root);
    let (who, text) = next_turns(&duel.status()).into_iter().next().unwrap();
    assert_eq!(duel.deliver(&who, &text), 0);
    let mails = duel.outbox.new_mails(&duel.root);
    let ack = mails.iter().find(|m| m.in_reply_to.is_some()).expect("an acknowledgement");
    assert!(!ack.body.contains("line   0"), "{}", ack.body);
    let lines: Vec<&str> = ack.body.lines().collect();
    let at = lines.iter().position(|l| *l == "  line   2: place P1").expect("the line taken");
    assert_eq!(lines[at + 1], format!("            {who} places a pawn at P1."), "{}", ack.body);
    // The second pawn placed starts round 1: the answer is headed by the step the turn
    // was for, setup, not the bids it led to.
    let (who, text) = next_turns(&duel.status()).into_iter().next().unwrap();
    assert_eq!(duel.deliver(&who, &text), 0);
    let mails = duel.outbox.new_mails(&duel.root);
    let ack = mails.iter().find(|m| m.in_reply_to.is_some()).expect("an acknowledgement");
    assert!(ack.body.contains(&format!("Turn from {who}, setup:")), "{}", ack.body);
    assert!(ack.body.contains("Round 1 begins"), "{}", ack.body);
    assert!(ack.body.contains("Awaited now: bids (`bid 2`, or `bid 2 first`), from ann and bob"), "{}", ack.body);
}

#[test]
fn a_sign_on_as_nobody_in_a_small_game_names_who_may_sign_on_and_help_shows_turn_lines() {
    let duel = MailDuel::new();
    let nobody = [("carl".to_string(), "secret".to_string())];
    mail_in(NOW, &duel.root, "duel", &nobody, 1, "carl", "help\n").ok();
    let mails = Outbox::default().new_mails(&duel.root);
    let reply = mails.iter().find(|m| m.to == "carl@example.org").expect("an answer");
    assert!(reply.body.contains("game `duel` has no `carl`; who may sign on: ann, bob or master."), "{}", reply.body);
    assert!(reply.body.contains("a small game: your name, ann@mygame"), "{}", reply.body);
}

#[test]
fn a_small_game_players_password_mail_asks_for_turn_lines_not_orders() {
    let duel = MailDuel::new();
    duel.cli(&["mail", "password", "duel", "bob", "--mail"]).ok();
    let mails = Outbox::default().new_mails(&duel.root);
    let mail = mails.iter().find(|m| m.subject == "duel: your password").expect("the password mail");
    assert!(mail.body.contains("Then your turn lines, one per line, or `status`"), "{}", mail.body);
}

#[test]
fn a_message_of_junk_gets_a_short_answer_without_raw_control_characters() {
    let mut duel = MailDuel::new();
    duel.outbox.new_mails(&duel.root);
    let mut junk = String::from("ju\u{1}nk\u{7f} line\n");
    for i in 0..199 {
        junk.push_str(&format!("blah {i}\n"));
    }
    assert_eq!(duel.deliver("ann", &junk), 0);
    let mails = duel.outbox.new_mails(&duel.root);
    let ack = mails.iter().find(|m| m.in_reply_to.is_some()).expect("an acknowledgement");
    assert_eq!(ack.body.matches(": not understood").count(), 50, "{}", ack.body);
    assert!(ack.body.contains("  ... and 150 more lines not taken, not listed."), "{}", ack.body);
    assert!(ack.body.contains("`ju\\u{1}nk\\u{7f} line`"), "{}", ack.body);
    assert!(!ack.body.contains('\u{1}') && !ack.body.contains('\u{7f}'), "{}", ack.body);
}

#[test]
fn a_small_games_reminder_says_what_it_waits_for_not_orders() {
    let mut duel = MailDuel::new();
    duel.outbox.new_mails(&duel.root);
    let who = duel.status()["awaiting"][0].as_str().unwrap().to_string();
    // The deadline is 48 hours on; reminders go out 24 hours before it.
    judge_cli("2026-03-02T13:00:00Z", &duel.root, &["mail", "tick"]).ok();
    let mails = duel.outbox.new_mails(&duel.root);
    let reminder = mails.iter().find(|m| m.subject == "duel: reminder, your turn is due").expect("a reminder");
    assert_eq!(reminder.to, format!("{who}@example.org"));
    assert!(
        reminder.body.starts_with(&format!("duel is waiting for {who}: a pawn placed in the Present (`place P")),
        "{}",
        reminder.body
    );
    assert!(reminder.body.contains("Deadline: "), "{}", reminder.body);
    assert!(!reminder.body.contains("orders"), "{}", reminder.body);
}

#[test]
fn reports_owed_together_each_show_the_board_after_their_own_step() {
    let mut duel = MailDuel::new();
    // The first report (the game begins) is owed from `new --judge`: it goes out with
    // the report of the first turn, each with its own board.
    duel.outbox.new_mails(&duel.root);
    let (who, text) = next_turns(&duel.status()).into_iter().next().unwrap();
    assert_eq!(duel.deliver(&who, &text), 0);
    let mails = duel.outbox.new_mails(&duel.root);
    let to_gm = |what: &str| {
        mails
            .iter()
            .find(|m| m.to == "gm@example.org" && m.subject.starts_with("duel: results of") && m.body.contains(what))
            .unwrap_or_else(|| panic!("no report with {what}: {mails:#?}"))
            .body
            .clone()
    };
    let begins = to_gm("The game begins.");
    let played = to_gm(&format!("{who} played."));
    let waits = format!("Waiting for {who}: ");
    assert!(begins.contains(&waits), "{begins}");
    assert!(!played.contains(&waits), "{played}");
    assert_ne!(begins.split("\nduel (duplexity)").nth(1), played.split("\nduel (duplexity)").nth(1));
}
