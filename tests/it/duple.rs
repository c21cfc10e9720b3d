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
            assert!(junk.stdout.contains("line 1:1: refused"), "{}", junk.stdout);
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
