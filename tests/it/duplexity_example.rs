//! The Duplexity example game (examples/duplexity, turn files in orders/duplexity):
//! played through the CLI from its turn files, it reaches its end, `verify` passes, and
//! each event the example is there to show happens.

use std::path::{Path, PathBuf};

use crate::harness::shadowjudge_at;

const NOW: &str = "2026-03-01T12:00:00Z";
const SEED: &str = "00000000000000000000000000000000000000000000000000000000000d0e11";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The turn files in the order they are sent, with the player each is from.
fn turns() -> Vec<(String, PathBuf)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("orders/duplexity"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
            let player = stem.split_once('-').expect("NN-player.txt").1.to_string();
            (player, p)
        })
        .collect()
}

#[test]
fn the_duplexity_example_replays_to_its_end_verifies_and_shows_its_events() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let dir_s = dir.to_str().unwrap();
    let players = root().join("examples/duplexity/players.txt");
    let created = shadowjudge_at(
        NOW,
        None,
        &[
            "new",
            dir_s,
            "--name",
            "duplexity-example",
            "--game",
            "duplexity",
            "--players",
            players.to_str().unwrap(),
            "--seed",
            SEED,
            "--option",
            "max_rounds=6",
        ],
        None,
        &[],
    )
    .ok();
    assert!(created.stdout.contains("bob places the first pawn"), "{}", created.stdout);
    let turns = turns();
    assert_eq!(turns.len(), 41);
    for (player, file) in &turns {
        let r = shadowjudge_at(NOW, None, &["submit", dir_s, "--player", player, file.to_str().unwrap()], None, &[]);
        assert_eq!(r.code, 0, "{}: every line is taken\n{}", file.display(), r.stdout);
    }
    let status = shadowjudge_at(NOW, None, &["status", dir_s, "--json"], None, &[]).ok().json();
    assert_eq!(status["ended"], "won");
    assert_eq!(status["winner"], "bob");
    assert_eq!(status["round"], 6);
    let verified = shadowjudge_at(NOW, None, &["verify", dir_s], None, &[]).ok();
    let said = format!("verified {} rolls; the journal's ", status["dice"]["rolls"]);
    assert!(verified.stdout.starts_with(&said), "{}", verified.stdout);
    assert!(verified.stdout.contains("replay from the seed to every state recorded"), "{}", verified.stdout);

    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    for (event, what) in [
        ("The bids tie: ann rolls 5, bob rolls 6", "an initiative tie"),
        ("Paradox at DP1", "a paradox"),
        ("leaves a copy of itself at IP1 with its 1 Wound", "a time-copy keeping its Wound"),
        ("A Haven at P2 is used up by ann's pawn, healing 1 Wound", "a Wound healed by a Haven"),
        ("ann's pawn has 4 Wounds and leaves the game with them", "a pawn removed by Hazards"),
        ("ann has no pawn left on the board: bob wins", "the end"),
    ] {
        assert!(journal.contains(event), "the example shows {what}: `{event}` is not in the journal");
    }
}
