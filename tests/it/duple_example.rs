//! The Duple example game (examples/duple): replayed from its message files with their
//! receipt times, the windows closed at their deadlines as `mail tick` closes them; what
//! it is there to show, and `verify`.

use std::path::{Path, PathBuf};

use crate::harness::{shadowjudge_at, Run};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn at(now: &str, args: &[&str]) -> Run {
    shadowjudge_at(now, None, args, None, &[])
}

/// The time a message file says it was received (`# received TIME`, its first line).
fn received(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let first = text.lines().next().unwrap_or("");
    first.strip_prefix("# received ").unwrap_or_else(|| panic!("{}: no receipt time", file.display())).to_string()
}

/// Close every window whose deadline is before `until` (all of them: `None`), at its
/// deadline, while the game goes on. Returns what the closings said.
fn close_windows(dir: &str, until: Option<&str>) -> String {
    let mut said = String::new();
    for _ in 0..200 {
        let status = at("2026-01-01T00:00:00Z", &["status", dir, "--json"]).ok().json();
        let Some(deadline) = status["deadline"].as_str().filter(|_| status["ended"].is_null()) else { break };
        let due = until.is_none_or(|u| {
            let (d, u): (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>) =
                (deadline.parse().unwrap(), u.parse().unwrap());
            d < u
        });
        if !due {
            break;
        }
        said.push_str(&at(deadline, &["adjudicate", dir, "--force"]).ok().stdout);
    }
    said
}

/// Play an example: create it, send its messages at their times, closing the windows due
/// before each; after the last, close those due before its `until` (none: to the end).
/// Returns the game directory (in the temporary directory) and everything said.
fn replay(toml: &str, tmp: &Path) -> (String, String) {
    let example: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join("examples/duple").join(toml)).unwrap()).unwrap();
    let s = |k: &str| example[k].as_str().unwrap().to_string();
    let dir = tmp.join(s("name"));
    let d = dir.to_str().unwrap().to_string();
    let players = root().join("examples/duple").join(s("players"));
    let args = ["new", &d, "--game", &s("game"), "--name", &s("name"), "--players", players.to_str().unwrap()];
    let mut said = at(&s("start"), &[&args[..], &["--seed", &s("seed")]].concat()).ok().stdout;
    let orders = root().join("examples/duple").join(s("orders"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&orders).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in &files {
        let time = received(f);
        said.push_str(&close_windows(&d, Some(&time)));
        let player = f.file_stem().unwrap().to_str().unwrap().split_once('-').unwrap().1;
        let r = at(&time, &["submit", &d, "--player", player, "--at", &time, f.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{}: {}{}", f.display(), r.stdout, r.stderr);
        assert!(!r.stdout.contains("refused"), "{}: {}", f.display(), r.stdout);
        said.push_str(&r.stdout);
    }
    let until = example.get("until").and_then(|u| u.as_str());
    said.push_str(&close_windows(&d, until));
    (d, said)
}

#[test]
fn the_example_replays_to_its_end_and_verifies() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, mut said) = replay("example.toml", tmp.path());
    let d = dir.as_str();
    let seed = "000000000000000000000000000000000000000000000000000000d0b1e00926";
    assert_eq!(std::fs::read_dir(root().join("orders/duple")).unwrap().count(), 16);
    let history = at("2026-04-01T00:00:00Z", &["history", d]).ok().stdout;
    said.push_str(&history);
    // What the example is there to show.
    assert!(said.contains("Faceoff 1: cat's pile I (sun) and ann's pile E (star) (by the Wild Card)."), "{said}");
    assert!(
        said.contains("ann's pile shows O (moon), bob's pile shows R (heart): a match by the Wild Card moon + heart"),
        "a Wild Card faceoff:\n{said}"
    );
    assert!(said.contains("ann and cat answered in the same second: a tiebreak."), "a tiebreak:\n{said}");
    assert!(said.contains("Stuck (1 of 2): the category changes to Things in a kitchen"), "the stuck rule:\n{said}");
    assert!(
        said.contains("cat's pile shows T (crown) again.")
            && said.contains("Faceoff 3: cat's pile shows T (crown), ann's pile shows V (heart)"),
        "a Revealed Match, played before the next draw:\n{said}"
    );
    assert!(said.contains("cat's answer vent is rejected by vote, 0 accept, 1 reject: it is out."), "{said}");
    assert!(said.contains("ann wins faceoff 3 with Mount Vesuvius"), "{said}");
    assert!(said.contains("bob wins All Play 4 with event"), "an All Play won:\n{said}");
    assert!(history.contains("seed revealed"), "{history}");
    let end = at("2026-04-01T00:00:00Z", &["status", d, "--json"]).ok().json();
    assert_eq!(end["ended"], "won");
    assert_eq!(end["winners"], serde_json::json!(["ann"]));
    let points: Vec<u64> = end["won"].as_array().unwrap().iter().map(|w| w["points"].as_u64().unwrap()).collect();
    assert_eq!(points, [6, 4, 2]);
    assert_eq!(end["cards_left"], 0);
    assert_eq!(end["dice"]["seed"].as_str(), Some(seed));
    let verified = at("2026-04-01T00:00:00Z", &["verify", d]).ok();
    let said = format!("verified {} rolls; the journal's ", end["dice"]["rolls"]);
    assert!(verified.stdout.starts_with(&said), "{}", verified.stdout);
    assert!(verified.stdout.contains("replay from the seed to every state recorded"), "{}", verified.stdout);
}

#[test]
fn the_two_player_example_shows_the_variant() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, said) = replay("two-players.toml", tmp.path());
    assert!(said.contains("Faceoff 1: bob's pile 2 R (heart) and bob's pile 1 N (moon) (by the Wild Card)."), "{said}");
    assert!(said.contains("bob and ann answer: a word in Things in a kitchen with R and N."), "both answer:\n{said}");
    assert!(said.contains("ann wins faceoff 1 with strainer (unchallenged) and takes R (heart) from bob's pile 2."));
    assert!(said.contains("ann wins faceoff 2 with baseball (unchallenged) and takes A (leaf) from ann's pile 1."));
    assert!(said.contains("ann wins faceoff 3 with profiterole"), "{said}");
    let now = at("2026-03-04T03:00:00Z", &["status", &d, "--json"]).ok().json();
    assert_eq!(now["open"]["number"], 4, "{now}");
    assert_eq!(now["open"]["letters"], serde_json::json!(["L", "L"]), "a letter on both cards is needed twice");
    let piles: Vec<usize> =
        now["table"].as_array().unwrap().iter().map(|t| t["piles"].as_array().unwrap().len()).collect();
    assert_eq!(piles, [2, 2], "two Play Piles each");
    assert_eq!(now["won"][0]["letter_cards"], 3);
}
