//! Duple from the command line (issue 12): a 3-player game created with a known seed,
//! played to its end with answers and deadlines, verified; bad lines refused.

use crate::harness::{shadowjudge_at, Run};

const NOW: &str = "2026-03-01T12:00:00Z";
const SEED: &str = "d0b1ed0bd0b1ed0bd0b1ed0bd0b1ed0bd0b1ed0bd0b1ed0bd0b1ed0bd0b1ed0b";

fn run(args: &[&str], stdin: Option<&str>) -> Run {
    shadowjudge_at(NOW, None, args, stdin.map(str::as_bytes), &[])
}

#[test]
fn a_three_player_game_is_played_from_the_cli_to_its_end_and_verified() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("race");
    let players = tmp.path().join("players.txt");
    std::fs::write(&players, "ann, ann@example.org\nbob, bob@example.org\ncat, cat@example.org\n").unwrap();
    let d = dir.to_str().unwrap();
    let created =
        run(&["new", d, "--game", "duple", "--players", players.to_str().unwrap(), "--seed", SEED], None).ok();
    assert!(created.stdout.contains("Dice commitment"), "{}", created.stdout);
    let status = || run(&["status", d, "--json"], None).ok().json();
    let first = status();
    assert_eq!(first["game"], "duple");
    assert!(first["dice"]["seed"].is_null(), "the seed stays secret until the end");
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert!(!journal.contains("\"ordinary\":[]"), "the state holds the unseen cards, unordered");

    let mut refused_checked = false;
    for _ in 0..400 {
        let s = status();
        if !s["ended"].is_null() {
            break;
        }
        let open = &s["open"];
        assert!(!open.is_null(), "an open faceoff or All Play while the game goes on: {s}");
        let players: Vec<String> =
            open["players"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().into()).collect();
        if !refused_checked && open["kind"] == "faceoff" {
            let outsider = ["ann", "bob", "cat"].into_iter().find(|p| !players.iter().any(|q| q == p)).unwrap();
            let r = run(&["submit", d, "--player", outsider, "-"], Some("answer zzz\n"));
            assert_eq!(r.code, 1, "{}", r.stdout);
            assert!(r.stdout.contains("not in faceoff"), "{}", r.stdout);
            let junk = run(&["submit", d, "--player", &players[0], "-"], Some("\u{1}junk\nanswer q\n"));
            assert_eq!(junk.code, 1);
            assert!(not_taken(&junk.stdout).contains("line   1: "), "{}", junk.stdout);
            refused_checked = true;
        }
        let word: String = open["letters"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        let answer = format!("answer {word}a\n");
        run(&["submit", d, "--player", &players[0], "--at", NOW, "-"], Some(&answer)).ok();
        // The challenge window closes: the answer wins.
        run(&["adjudicate", d, "--force"], None).ok();
    }
    let end = status();
    assert_eq!(end["ended"], "won", "{end}");
    assert!(!end["winners"].as_array().unwrap().is_empty());
    assert_eq!(end["cards_left"], 0);
    assert_eq!(end["dice"]["seed"].as_str(), Some(SEED), "the seed is revealed at the end");
    let verified = run(&["verify", d], None).ok();
    assert!(verified.stdout.starts_with("verified "), "{}", verified.stdout);
    let history = run(&["history", d], None).ok();
    assert!(history.stdout.contains("seed revealed"), "{}", history.stdout);
    let won: u64 = end["won"].as_array().unwrap().iter().map(|w| w["letter_cards"].as_u64().unwrap()).sum();
    let piles: u64 = end["table"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["piles"].as_array().unwrap().iter().map(|p| p["size"].as_u64().unwrap()))
        .sum();
    assert_eq!(won + piles, 64, "every Letter Card is in a pile or a Winning Pile");
    std::fs::remove_file(dir.join("state.json")).unwrap();
    assert_eq!(status(), end, "the journal replays to the same game");
}

/// A new game of `players` (one name a line) with the known seed, created at NOW.
fn new_game(players: &str) -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("players.txt");
    std::fs::write(&file, players).unwrap();
    let dir = tmp.path().join("race").to_str().unwrap().to_string();
    run(&["new", &dir, "--game", "duple", "--players", file.to_str().unwrap(), "--seed", SEED], None).ok();
    (tmp, dir)
}

fn send(dir: &str, player: &str, at: &str, text: &str) -> Run {
    shadowjudge_at(at, None, &["submit", dir, "--player", player, "--at", at, "-"], Some(text.as_bytes()), &[])
}

/// The lines of an answer that were not taken.
fn not_taken(stdout: &str) -> &str {
    stdout.split_once("\nNot taken:\n").map_or("", |(_, rest)| rest)
}

fn names(v: &serde_json::Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect()
}

#[test]
fn every_bad_line_gets_its_reason_and_only_legal_lines_are_applied() {
    let (_tmp, d) = new_game("ann, a@example.org\nbob, b@example.org\ncat, c@example.org\ndan, d@example.org\n");
    let status = || run(&["status", &d, "--json"], None).ok().json();
    let open = status()["open"].clone();
    let players = names(&open["players"]);
    let (p, q) = (players[0].as_str(), players[1].as_str());
    let outside: Vec<&str> =
        ["ann", "bob", "cat", "dan"].into_iter().filter(|n| !players.iter().any(|x| x == n)).collect();
    let letters: String = names(&open["letters"]).concat();
    let refused = |r: &Run, line: usize, why: &str| {
        assert_eq!(r.code, 1, "{}", r.stdout);
        assert!(
            not_taken(&r.stdout).contains(&format!("line {line:>3}: {why}")),
            "want `{why}` at line {line}:\n{}",
            r.stdout
        );
    };
    let before = status();
    // An answer from a player not in the faceoff, one missing a letter, junk.
    let r = send(&d, outside[0], "2026-03-01T13:00:00Z", &format!("answer {letters}e\n"));
    refused(&r, 1, &format!("you are not in faceoff 1: only {p} and {q} answer"));
    let first = letters.chars().next().unwrap();
    let r = send(&d, p, "2026-03-01T13:00:00Z", &format!("answer {first}ooo\n"));
    refused(&r, 1, &format!("{first}ooo has no"));
    let r = send(&d, p, "2026-03-01T13:00:00Z", "\u{1}junk\nvote perhaps\n");
    assert!(
        not_taken(&r.stdout).contains("line   1: ") && not_taken(&r.stdout).contains("line   2, column 6: "),
        "{}",
        r.stdout
    );
    assert_eq!(status(), before, "nothing refused was applied");

    // A good line among bad ones: only it is applied.
    let r = send(&d, p, "2026-03-01T13:00:00Z", &format!("challenge\nanswer {letters}a\nvote accept\n"));
    assert_eq!(r.code, 1, "a refused line makes the exit 1: {}", r.stdout);
    assert!(not_taken(&r.stdout).contains("line   1: no answer is under consideration to challenge"), "{}", r.stdout);
    assert!(
        r.stdout.contains(&format!("line   2: answer {letters}a: received 2026-03-01 13:00:00 UTC")),
        "{}",
        r.stdout
    );
    assert!(not_taken(&r.stdout).contains("line   3: no challenge is open to vote on"), "{}", r.stdout);
    let answers = &status()["open"]["answers"];
    assert_eq!(answers.as_array().unwrap().len(), 1, "{answers}");

    // The challenge; a vote by a player in the faceoff, a second vote.
    send(&d, q, "2026-03-01T14:00:00Z", "challenge\n").ok();
    let r = send(&d, p, "2026-03-01T14:10:00Z", "vote accept\n");
    refused(&r, 1, "you are in faceoff 1: only the players outside it vote");
    send(&d, outside[0], "2026-03-01T14:20:00Z", "vote accept\n").ok();
    let r = send(&d, outside[0], "2026-03-01T14:30:00Z", "vote reject\n");
    refused(&r, 1, "you already voted on this challenge");
    let votes = &status()["open"]["answers"][0]["challenge"]["votes"];
    assert_eq!(votes, &serde_json::json!([{"player": outside[0], "vote": "accept"}]));

    // A challenge after its window (announced 13:00, 12 hours), before any tick.
    let (_tmp2, d2) = new_game("ann, a@example.org\nbob, b@example.org\ncat, c@example.org\n");
    let open = run(&["status", &d2, "--json"], None).ok().json()["open"].clone();
    let players = names(&open["players"]);
    let letters: String = names(&open["letters"]).concat();
    send(&d2, &players[0], "2026-03-01T13:00:00Z", &format!("answer {letters}a\n")).ok();
    let r = send(&d2, &players[1], "2026-03-02T01:00:01Z", "challenge\n");
    refused(&r, 1, &format!("too late: the challenge window for {letters}a closed at 2026-03-02 01:00:00 UTC"));
}

#[test]
fn a_rollback_reopens_the_faceoff_with_all_its_time() {
    let (_tmp, d) = new_game("ann, a@example.org\nbob, b@example.org\ncat, c@example.org\n");
    let status = || run(&["status", &d, "--json"], None).ok().json();
    let open = status()["open"].clone();
    assert_eq!(open["opened"], NOW);
    let players = names(&open["players"]);
    let letters: String = names(&open["letters"]).concat();
    send(&d, &players[0], "2026-03-01T13:00:00Z", &format!("answer {letters}a\n")).ok();
    shadowjudge_at("2026-03-02T01:00:00Z", None, &["adjudicate", &d, "--force"], None, &[]).ok();
    assert_ne!(status()["open"]["number"], 1, "faceoff 1 was won");
    // The master closed the window: history and results say so, not that its deadline did.
    let history = run(&["history", &d], None).ok().stdout;
    assert!(history.contains("the game master closed the window;"), "{history}");
    let results = run(&["results", &d], None).ok().stdout;
    assert!(results.contains("The game master closed the window.\n"), "{results}");

    // Two days later the master rolls back to faceoff 1: it opens again now, for 24 hours.
    let later = "2026-03-04T10:00:00Z";
    shadowjudge_at(later, None, &["rollback", &d, "1"], None, &[]).ok();
    let back = status();
    assert_eq!(back["open"]["number"], 1);
    assert_eq!(back["open"]["opened"], later);
    assert_eq!(back["open"]["deadline"], "2026-03-05T10:00:00Z");
    assert_eq!(back["deadline"], "2026-03-05T10:00:00Z", "the game's deadline is the faceoff's");
    assert!(back["open"]["answers"].as_array().unwrap().is_empty());
    // It can be played: an answer now is taken, and the window runs from it.
    let r = send(&d, &players[1], "2026-03-04T11:00:00Z", &format!("answer {letters}o\n"));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(status()["open"]["answers"][0]["challenge_until"], "2026-03-04T23:00:00Z");
    // And the journal replays to the same game.
    let dir = std::path::Path::new(&d);
    let kept = status();
    std::fs::remove_file(dir.join("state.json")).unwrap();
    assert_eq!(status(), kept);
}

#[test]
fn a_word_list_named_in_game_toml_flags_answers_it_does_not_hold_for_the_master() {
    let (_tmp, d) = new_game("ann, a@example.org\nbob, b@example.org\ncat, c@example.org\n");
    let dir = std::path::Path::new(&d);
    let status = || run(&["status", &d, "--json"], None).ok().json();
    assert!(status().get("unlisted").is_none(), "no word list, nothing flagged");
    let open = status()["open"].clone();
    let players = names(&open["players"]);
    let letters: String = names(&open["letters"]).concat();
    let (listed, unlisted) = (format!("{letters}a"), format!("{letters}o"));
    let toml = dir.join("game.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("word_list = \"words.txt\"\n{text}")).unwrap();
    std::fs::write(dir.join("words.txt"), format!("# our list\n{}\nzebra\n", listed.to_uppercase())).unwrap();
    send(&d, &players[0], "2026-03-01T13:00:00Z", &format!("answer {listed}\n")).ok();
    send(&d, &players[1], "2026-03-01T13:05:00Z", &format!("answer {unlisted}\n")).ok();
    assert_eq!(status()["unlisted"], serde_json::json!([{"player": players[1], "answer": unlisted}]));
    let report = run(&["status", &d], None).ok().stdout;
    let flag = format!("For the game master: not in the word list words.txt: {}'s {unlisted}.", players[1]);
    assert!(report.contains(&flag), "{report}");
    // The game goes on without it: a list that cannot be read is said, nothing flagged.
    std::fs::remove_file(dir.join("words.txt")).unwrap();
    let report = run(&["status", &d], None).ok().stdout;
    assert!(report.contains("the word list cannot be read"), "{report}");
    assert!(report.contains("answers are not checked"), "{report}");
}

/// Issue 30, item 8: `adjudicate --force --at` closes the window at the time given, as
/// `submit --at` gives a line's, so the faceoff it opens starts after the answers it
/// follows; Diplomacy refuses `--at`.
#[test]
fn adjudicate_force_at_opens_the_next_faceoff_at_the_time_given() {
    let (_tmp, d) = new_game("ann, a@example.org\nbob, b@example.org\ncat, c@example.org\n");
    let status = || run(&["status", &d, "--json"], None).ok().json();
    let open = status()["open"].clone();
    let players = names(&open["players"]);
    let letters: String = names(&open["letters"]).concat();
    send(&d, &players[0], "2026-03-01T13:00:00Z", &format!("answer {letters}a\n")).ok();
    let closed = "2026-03-02T01:00:00Z";
    run(&["adjudicate", &d, "--force", "--at", closed], None).ok();
    let next = status();
    assert_eq!(next["open"]["number"], 2, "{next}");
    assert_eq!(next["open"]["opened"], closed, "not the clock's {NOW}, before the answer");
    let history = run(&["history", &d], None).ok().stdout;
    assert!(history.contains("3  2026-03-02 01:00  faceoff 2"), "{history}");
    std::fs::remove_file(std::path::Path::new(&d).join("state.json")).unwrap();
    assert_eq!(status(), next, "the journal replays to the same game");

    let bad = run(&["adjudicate", &d, "--force", "--at", "tomorrow"], None);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("--at `tomorrow`"), "{}", bad.stderr);
    let tmp = tempfile::tempdir().unwrap();
    let dip = tmp.path().join("g");
    let players = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/standard-game/players.txt");
    run(&["new", dip.to_str().unwrap(), "--players", players.to_str().unwrap()], None).ok();
    let r = run(&["adjudicate", dip.to_str().unwrap(), "--force", "--at", closed], None);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("--at is for the small games"), "{}", r.stderr);
}

/// The journal's entries, as JSON values, one a line.
fn journal_lines(dir: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(std::path::Path::new(dir).join("journal.jsonl")).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Issue 23, item 10: one message of a thousand answers takes 3 (the cap, said in the
/// reply), and each step's journal entry holds what the step changed, not the whole
/// faceoff again: the answers that follow cost no more than the first. A journal whose
/// steps hold whole states (as every journal did before) still opens and replays.
#[test]
fn a_flood_of_answers_takes_three_and_each_entry_is_the_size_of_its_step() {
    let (_tmp, d) = new_game("ann, a@example.org\nbob, b@example.org\ncat, c@example.org\n");
    let status = || run(&["status", &d, "--json"], None).ok().json();
    let open = status()["open"].clone();
    let players = names(&open["players"]);
    let letters: String = names(&open["letters"]).concat();
    let flood: String = (0..1000).map(|i| format!("answer {letters}{}\n", "a".repeat(i % 40 + 1))).collect();
    let r = send(&d, &players[0], "2026-03-01T13:00:00Z", &flood);
    assert_eq!(r.code, 1, "some lines refused");
    assert!(r.stdout.contains("answers under way: the most one player may have)"), "{}", r.stdout);
    assert!(not_taken(&r.stdout).contains("line   4: you have 3 answers under way in faceoff 1"), "{}", r.stdout);
    assert_eq!(status()["open"]["answers"].as_array().unwrap().len(), 3);
    let state_size = std::fs::metadata(std::path::Path::new(&d).join("state.json")).unwrap().len() as usize;

    // Then one answer a message: each entry about as large as the first.
    let mut sizes = Vec::new();
    for (i, word) in ["o", "oo", "ooo"].iter().enumerate() {
        send(&d, &players[1], &format!("2026-03-01T13:0{}:00Z", i + 1), &format!("answer {letters}{word}\n")).ok();
        let last = journal_lines(&d).pop().unwrap();
        let step = &last["entry"]["step"];
        assert!(step.get("state").is_none() && step["patch"].is_array(), "{last}");
        sizes.push(last.to_string().len());
    }
    assert!(sizes.iter().all(|s| *s < state_size / 2), "entries {sizes:?}, the state {state_size} bytes");
    assert!(sizes[2] <= sizes[0] + 16, "later answers cost no more: {sizes:?}");
    eprintln!("journal entries of one answer: {sizes:?} bytes; state.json {state_size} bytes");
    let kept = status();
    std::fs::remove_file(std::path::Path::new(&d).join("state.json")).unwrap();
    assert_eq!(status(), kept, "the journal replays to the same game");

    // The same journal with whole states, as older journals are: it opens the same.
    let mut whole = serde_json::Value::Null;
    let old: Vec<String> = journal_lines(&d)
        .into_iter()
        .map(|mut line| {
            if let Some(step) = line["entry"].get_mut("step").and_then(|s| s.as_object_mut()) {
                if let Some(patch) = step.remove("patch") {
                    let patch: json_patch::Patch = serde_json::from_value(patch).unwrap();
                    json_patch::patch(&mut whole, &patch).unwrap();
                    step.insert("state".into(), whole.clone());
                } else {
                    whole = step["state"].clone();
                }
            }
            line.to_string()
        })
        .collect();
    std::fs::write(std::path::Path::new(&d).join("journal.jsonl"), old.join("\n") + "\n").unwrap();
    assert_eq!(status(), kept, "a journal of whole states replays to the same game");
}

/// Issue 43, item 5: a line read after the challenge window closed, before the tick, is
/// refused, and its answer does not name the closed window as awaited.
#[test]
fn the_answer_after_a_window_closed_does_not_await_it() {
    let (_tmp, d) = new_game("ann, a@example.org\nbob, b@example.org\ncat, c@example.org\n");
    let open = run(&["status", &d, "--json"], None).ok().json()["open"].clone();
    let players = names(&open["players"]);
    let word = format!("{}a", names(&open["letters"]).concat());
    send(&d, &players[0], "2026-03-01T12:00:10Z", &format!("answer {word}\n")).ok();
    let open = send(&d, &players[1], "2026-03-01T20:00:00Z", "answer zzz\n");
    assert!(open.stdout.contains(&format!("Awaited now: a challenge to {word}, if any, from")), "{}", open.stdout);
    let late = send(&d, &players[1], "2026-03-02T00:30:00Z", "challenge\n");
    assert_eq!(late.code, 1, "{}", late.stdout);
    assert!(
        late.stdout.contains(&format!(
            "Awaited now: nobody: the challenge window for {word} closed at 2026-03-02 00:00:10 UTC; \
             the judge's next tick settles it\n"
        )),
        "{}",
        late.stdout
    );
    assert!(!late.stdout.contains("a challenge to"), "{}", late.stdout);
}

/// The same by mail: `status` asked after the challenge window closed, before the tick,
/// does not name the window as open.
#[test]
fn status_by_mail_after_a_window_closed_does_not_await_it() {
    use crate::judge_dir::{mail_in, small_game_by_mail};
    let players = "ann, a@example.org\nbob, b@example.org\ncat, c@example.org\n";
    let (_tmp, root, passwords) =
        small_game_by_mail("2026-03-01T12:00:00Z", "dup", "duple", players, &["--seed", SEED]);
    let dir = root.join("games/dup");
    let open = crate::judge_dir::judge_cli("2026-03-01T12:00:00Z", &root, &["status", dir.to_str().unwrap(), "--json"])
        .ok()
        .json()["open"]
        .clone();
    let seats = names(&open["players"]);
    let word = format!("{}a", names(&open["letters"]).concat());
    let mut outbox = crate::judge_dir::Outbox::default();
    outbox.new_mails(&root);
    mail_in("2026-03-01T12:00:10Z", &root, "dup", &passwords, 1, &seats[0], &format!("answer {word}\n")).ok();
    outbox.new_mails(&root);
    mail_in("2026-03-02T00:30:00Z", &root, "dup", &passwords, 2, &seats[1], "status\n").ok();
    let mails = outbox.new_mails(&root);
    let reply = &mails.iter().find(|m| m.in_reply_to.is_some()).unwrap().body;
    assert!(reply.contains("Waiting for nobody: the challenge window for"), "{reply}");
    assert!(!reply.contains(&format!("a challenge to {word}")), "{reply}");
}
