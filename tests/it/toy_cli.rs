//! Pebbles, the toy game beside the tests (`tests/toy_game/`), played end to end through
//! the command line: a kind is its rules and one registry line, and the judge's frame
//! (store, dice, status, history, rollback, verify) comes with it. The tests' build has
//! it (the `toy-game` feature); the judge that ships does not.

use crate::harness::{shadowjudge_at, Run};

const NOW: &str = "2027-01-01T12:00:00Z";

fn run(args: &[&str], stdin: Option<&str>) -> Run {
    shadowjudge_at(NOW, None, args, stdin.map(str::as_bytes), &[])
}

fn status(dir: &str) -> serde_json::Value {
    run(&["status", dir, "--json"], None).ok().json()
}

#[test]
fn the_toy_game_is_played_to_its_end_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let game = tmp.path().join("pile");
    let dir = game.to_str().unwrap();
    let players = tmp.path().join("players.txt");
    std::fs::write(&players, "ann, ann@example.org\nbob, bob@example.org\n").unwrap();
    let created =
        run(&["new", dir, "--game", "pebbles", "--players", players.to_str().unwrap(), "--option", "pile=7"], None)
            .ok();
    assert!(created.stdout.contains("Created pile (pebbles)"), "{}", created.stdout);
    assert!(created.stdout.contains("Dice commitment"), "{}", created.stdout);

    // A refused line changes nothing, and says why in the game's words.
    let first = status(dir)["next"].as_str().expect("someone takes first").to_string();
    let journal = std::fs::read_to_string(game.join("journal.jsonl")).unwrap();
    let refused = run(&["submit", dir, "--player", &first, "-"], Some("take 5\n"));
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(refused.stdout.contains("take 1 to 3 pebbles (7 left)"), "{}", refused.stdout);
    assert_eq!(std::fs::read_to_string(game.join("journal.jsonl")).unwrap(), journal);

    // Ann and Bob take two at a time, then one, until the pile is gone.
    let mut turns = 0;
    while status(dir)["pile"] != 0 {
        turns += 1;
        assert!(turns < 10, "seven pebbles end in a few turns");
        let now = status(dir);
        let who = now["next"].as_str().expect("someone is awaited").to_string();
        let take = if turns == 1 { "take 2\n" } else { "take 1\n" };
        run(&["submit", dir, "--player", &who, "-"], Some(take)).ok();
    }
    let end = run(&["status", dir], None).ok().stdout;
    assert!(end.contains("wins"), "{end}");

    // The frame's commands work on it as on every kind.
    let history = run(&["history", dir], None).ok().stdout;
    assert!(history.contains("created: pebbles for ann, bob"), "{history}");
    assert_eq!(history.matches("turn from").count(), turns, "{history}");
    let verified = run(&["verify", dir], None).ok();
    assert!(verified.stdout.starts_with("verified "), "{}", verified.stdout);
    let rolled = run(&["rollback", dir, "1"], None).ok();
    assert!(rolled.stdout.contains("round 1"), "{}", rolled.stdout);
    assert_eq!(status(dir)["pile"], 7, "back to the start: the game goes on");
    assert!(run(&["draw", dir], None).stderr.contains("this game has no votes or absences"));
}
