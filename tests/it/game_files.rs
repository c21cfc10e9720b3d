//! Game files that mean the same thing forever (issue 16): a game written before maps
//! were recorded still opens, a game whose map now numbers things differently is refused
//! by name, a typo in `[rules]` is refused, and a half-created game is an error.

use std::path::{Path, PathBuf};

use chrono::{TimeZone, Utc};

use shadowjudge::diplomacy::map::Map;
use shadowjudge::game::session::diplomacy::{self as session, MapRecord, MAP_FILE};

/// A copy of a game directory written by the judge before `map.json` existed (the
/// shipped Shadow Worlds example at Fall 1905, as it was).
fn old_game() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("old");
    std::fs::create_dir_all(&dir).unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/old-game");
    for f in ["game.toml", "journal.jsonl", "state.json"] {
        std::fs::copy(from.join(f), dir.join(f)).unwrap();
    }
    (tmp, dir)
}

#[test]
fn a_game_written_before_maps_were_recorded_opens_and_replays() {
    let (_tmp, dir) = old_game();
    let g = session::open_read_only(&dir).unwrap();
    assert_eq!(g.game.state.phase.code(), "F1905M");
    // The state cache lost: the journal replays to the same position.
    let before = g.game.state.clone();
    std::fs::remove_file(dir.join("state.json")).unwrap();
    assert_eq!(session::open_read_only(&dir).unwrap().game.state, before);
    assert!(!dir.join(MAP_FILE).exists(), "reading writes nothing");
    // The next change records the map it is on.
    let mut g = session::open(&dir).unwrap();
    g.set_deadline(None, Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()).unwrap();
    let record: MapRecord = serde_json::from_str(&std::fs::read_to_string(dir.join(MAP_FILE)).unwrap()).unwrap();
    assert_eq!(record, MapRecord { map: "standard".into(), fingerprint: Map::standard().id_fingerprint() });
}

#[test]
fn a_game_whose_map_numbers_things_differently_is_refused_naming_the_map() {
    let (_tmp, dir) = old_game();
    let other = MapRecord { map: "standard".into(), fingerprint: "0".repeat(64) };
    std::fs::write(dir.join(MAP_FILE), serde_json::to_string(&other).unwrap()).unwrap();
    let err = session::open_read_only(&dir).unwrap_err().to_string();
    assert!(err.contains("created with the map `standard`"), "{err}");
    assert!(err.contains("map.json"), "{err}");
}

#[test]
fn map_fingerprints_change_when_the_ids_do() {
    let map = Map::standard();
    assert_eq!(map.id_fingerprint(), Map::standard().id_fingerprint());
    let text = include_str!("../../maps/standard/map.toml");
    // Rename the Adriatic `zad`: it now sorts last, and every province after it moves up.
    let reordered: String = text
        .split_inclusive(|c: char| !c.is_ascii_alphanumeric())
        .map(|w| {
            if w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()) == "adr" {
                w.replacen("adr", "zad", 1)
            } else {
                w.to_string()
            }
        })
        .collect();
    assert!(reordered.contains("[provinces.zad]"));
    let other = Map::from_toml(&reordered, "reordered.toml").unwrap();
    assert_ne!(other.id_fingerprint(), map.id_fingerprint());
}

#[test]
fn a_typo_in_rules_is_refused_naming_the_key_and_line() {
    let (_tmp, dir) = old_game();
    let settings = std::fs::read_to_string(dir.join("game.toml")).unwrap();
    let typo = if settings.contains("[rules]") {
        settings.replace("[rules]", "[rules]\nadjacent_convoi = \"via_convoy_only\"")
    } else {
        format!("{settings}\n[rules]\nadjacent_convoi = \"via_convoy_only\"\n")
    };
    std::fs::write(dir.join("game.toml"), typo).unwrap();
    let err = session::open_read_only(&dir).unwrap_err().to_string();
    assert!(err.contains("game.toml"), "{err}");
    assert!(err.contains("adjacent_convoi"), "{err}");
}

#[test]
fn a_half_created_game_is_an_error_not_a_placeholder() {
    let (_tmp, dir) = old_game();
    std::fs::write(dir.join("journal.jsonl"), "").unwrap();
    std::fs::remove_file(dir.join("state.json")).unwrap();
    let err = session::open_read_only(&dir).unwrap_err().to_string();
    assert!(err.contains("the journal is empty"), "{err}");
}

/// Every game directory the repository stores (the shipped example, the old game) opens
/// through the one contract without a byte of its journal changing, and a lost state
/// cache is rebuilt from the journal: byte for byte where this judge wrote it; where an
/// older one did (`bytes` false), the same, with the `check` it did not write yet.
#[test]
fn every_stored_game_opens_unchanged_and_rebuilds_its_cache_byte_for_byte() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (stored, bytes) in [("examples/shadow-worlds/game", true), ("tests/data/old-game", false)] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("game");
        std::fs::create_dir_all(&dir).unwrap();
        for f in std::fs::read_dir(root.join(stored)).unwrap() {
            let f = f.unwrap();
            std::fs::copy(f.path(), dir.join(f.file_name())).unwrap();
        }
        let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
        let (journal, state) = (read("journal.jsonl"), read("state.json"));
        let g = shadowjudge::game::any::open(&dir).unwrap_or_else(|e| panic!("{stored}: {e}"));
        assert!(g.notes().is_empty(), "{stored}: nothing to repair: {:?}", g.notes());
        drop(g);
        assert_eq!(read("journal.jsonl"), journal, "{stored}: the journal is untouched");
        assert_eq!(read("state.json"), state, "{stored}: the cache is untouched");
        std::fs::remove_file(dir.join("state.json")).unwrap();
        let g = shadowjudge::game::any::open(&dir).unwrap_or_else(|e| panic!("{stored}: {e}"));
        assert!(g.notes().iter().any(|n| n.contains("rebuilt from it")), "{stored}: {:?}", g.notes());
        assert_eq!(read("journal.jsonl"), journal, "{stored}: the journal is untouched");
        let value = |b: &[u8]| {
            let mut v = serde_json::from_slice::<serde_json::Value>(b).unwrap();
            v.as_object_mut().unwrap().remove("check");
            v
        };
        assert_eq!(value(&read("state.json")), value(&state), "{stored}: the cache rebuilt is the cache stored");
        if bytes {
            assert!(read("state.json") == state, "{stored}: the cache rebuilt is the stored one byte for byte");
        }
    }
}
