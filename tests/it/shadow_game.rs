//! The Shadow Worlds example game (examples/shadow-worlds): replayed to its end, each event
//! it was written to show checked in the reports, and the shipped game directory kept fresh.
//!
//! `UPDATE_EXAMPLES=1 cargo test --test it shadow_game` rewrites examples/shadow-worlds/game
//! from a fresh replay; without it, a shipped directory that differs from the replay fails.

use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use shadowjudge::diplomacy::engine::Game;
use shadowjudge::diplomacy::map::Map;
use shadowjudge::diplomacy::report::{LedgerLine, OrderLine, PhaseReport};
use shadowjudge::diplomacy::state::{GameEnd, GameState};
use shadowjudge::game::journal;
use shadowjudge::game::script::{self, Played};
use shadowjudge::game::session::diplomacy as session;
use shadowjudge::phase::Phase;

/// The files of a game directory that are shipped (never the lock or temp files).
const SHIPPED_FILES: [&str; 4] = ["game.toml", "journal.jsonl", "map.json", "state.json"];

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shadow-worlds")
}

/// The clock the shipped game was played with.
fn start_time() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 3, 1, 18, 0, 0).unwrap()
}

/// A copy of the example's `example.toml` without `stop_before`, its paths made absolute, so
/// the game is played to its end.
fn whole_game_example(into: &Path) -> PathBuf {
    let dir = example_dir();
    let text = std::fs::read_to_string(dir.join("example.toml")).unwrap();
    let mut table: toml::Table = toml::from_str(&text).unwrap();
    assert!(table.remove("stop_before").is_some(), "the shipped example stops before a phase");
    for key in ["players", "start", "orders"] {
        let rel = table[key].as_str().unwrap().to_string();
        table.insert(key.into(), toml::Value::String(dir.join(rel).to_string_lossy().into_owned()));
    }
    let example = into.join("example");
    std::fs::create_dir_all(&example).unwrap();
    std::fs::write(example.join("example.toml"), toml::to_string(&table).unwrap()).unwrap();
    example
}

fn play_whole_game(tmp: &Path) -> Played {
    let example = whole_game_example(tmp);
    script::play(&example, &tmp.join("game"), start_time()).unwrap()
}

fn report<'a>(played: &'a Played, phase: &str) -> &'a PhaseReport {
    let phase: Phase = phase.parse().unwrap();
    played.reports.iter().find(|r| r.phase == phase).unwrap_or_else(|| panic!("no report for {phase}"))
}

fn adjustments<'a>(r: &'a PhaseReport, power: &str) -> Vec<&'a OrderLine> {
    r.adjustments.iter().filter(|l| l.power == power).collect()
}

fn ledger<'a>(r: &'a PhaseReport, power: &str) -> &'a LedgerLine {
    r.ledger.iter().find(|l| l.power == power).unwrap_or_else(|| panic!("{power} not in the ledger"))
}

fn standing_units(r: &PhaseReport, power: &str) -> Vec<usize> {
    r.standings.iter().find(|s| s.power == power).unwrap().units.clone()
}

#[test]
fn shadow_game_plays_to_a_french_victory() {
    let tmp = tempfile::tempdir().unwrap();
    let played = play_whole_game(tmp.path());
    let phases: Vec<String> = played.reports.iter().map(|r| r.phase.code()).collect();
    // No Spring 1905 retreat phase: the German army dislodged on B had nowhere to go and was
    // disbanded at once.
    assert_eq!(phases, ["F1904M", "F1904R", "W1904A", "S1905M", "F1905M"]);

    // d. France's control list reaches 18 distinct centers after Fall 1905: it wins.
    let last = played.reports.last().unwrap();
    assert_eq!(last.notices, ["France wins the game."]);
    assert_eq!(last.next_phase, None);
    let france = played.game.game.map.lookup_power("france").unwrap();
    assert_eq!(played.game.game.state.end, Some(GameEnd::Victory(france)));
    let counts: Vec<(&str, usize, usize, usize, usize, i64)> = last
        .ledger
        .iter()
        .map(|l| (l.power.as_str(), l.centers_a.len(), l.centers_b.len(), l.control_list, l.count, l.delta))
        .collect();
    assert_eq!(
        counts,
        [
            ("Austria", 3, 5, 5, 7, 0),
            ("England", 1, 8, 9, 9, 1),
            ("France", 12, 11, 18, 21, 2),
            ("Germany", 2, 0, 2, 2, -1),
            ("Italy", 7, 1, 7, 8, 0),
            ("Russia", 6, 5, 6, 10, 0),
            ("Turkey", 3, 4, 4, 7, 0),
        ]
    );
    // Denmark (A) and London (B) were the last two; Spain lost on B is still France's on A.
    let f = ledger(last, "France");
    assert!(f.centers_a.contains(&"den".to_string()) && f.centers_b.contains(&"lon".to_string()));
    assert!(!f.centers_b.contains(&"spa".to_string()) && f.centers_a.contains(&"spa".to_string()));
}

#[test]
fn shadow_game_winter_italy_disbands_on_b_to_build_two_on_a() {
    // a. Italy: count 8, units 5+2; removes F nap on B, builds A ven and F nap on A.
    let tmp = tempfile::tempdir().unwrap();
    let played = play_whole_game(tmp.path());
    let winter = report(&played, "W1904A");
    let italy = ledger(winter, "Italy");
    assert_eq!((italy.count, italy.units_a, italy.units_b, italy.delta), (8, 5, 2, 1));
    let lines: Vec<(Option<char>, &str, &str)> =
        adjustments(winter, "Italy").iter().map(|l| (l.board, l.order.as_str(), l.result.as_str())).collect();
    assert_eq!(
        lines,
        [
            (Some('B'), "remove F nap", "succeeds"),
            (Some('A'), "build A ven", "succeeds"),
            (Some('A'), "build F nap", "succeeds"),
        ]
    );
    assert_eq!(standing_units(winter, "Italy"), [7, 1]);
}

#[test]
fn shadow_game_england_rebuilds_on_the_board_it_was_wiped_out_on() {
    // b. England has no unit on A but still owns an empty London there; it grows on B
    // (Sweden) and rebuilds F lon on A.
    let tmp = tempfile::tempdir().unwrap();
    let played = play_whole_game(tmp.path());
    let before = report(&played, "F1904R");
    let england = ledger(before, "England");
    assert_eq!((england.units_a, england.units_b), (0, 7));
    assert_eq!(england.centers_a, ["lon"]);
    assert_eq!((england.count, england.delta), (8, 1));
    let winter = report(&played, "W1904A");
    let lines: Vec<(Option<char>, &str, &str)> =
        adjustments(winter, "England").iter().map(|l| (l.board, l.order.as_str(), l.result.as_str())).collect();
    assert_eq!(lines, [(Some('A'), "build F lon", "succeeds")]);
    assert_eq!(standing_units(winter, "England"), [1, 7]);
}

#[test]
fn shadow_game_germany_civil_disorder_over_both_boards() {
    // c. Germany must remove 2; its one removal names a fleet it does not have on B, so the
    // judge removes two by civil disorder: the Baltic fleet on B and the Skagerrak fleet on A
    // (both one from an owned center; fleets first; then by name).
    let tmp = tempfile::tempdir().unwrap();
    let played = play_whole_game(tmp.path());
    let winter = report(&played, "W1904A");
    let germany = ledger(winter, "Germany");
    assert_eq!((germany.count, germany.units_a, germany.units_b, germany.delta), (4, 4, 2, -2));
    let lines: Vec<(Option<char>, &str, &str)> =
        adjustments(winter, "Germany").iter().map(|l| (l.board, l.order.as_str(), l.result.as_str())).collect();
    assert_eq!(
        lines,
        [
            (Some('B'), "remove F den", "illegal"),
            (Some('B'), "remove F bal", "default"),
            (Some('A'), "remove F ska", "default"),
        ]
    );
    assert!(winter.defaults.contains(&"Germany: 2 units removed by civil disorder".to_string()));
    assert_eq!(standing_units(winter, "Germany"), [3, 1]);
}

#[test]
fn shadow_game_winter_report() {
    let tmp = tempfile::tempdir().unwrap();
    let played = play_whole_game(tmp.path());
    insta::assert_snapshot!("shadow_game_winter_1904", report(&played, "W1904A").to_text());
}

#[test]
fn shadow_game_journal_replays_to_the_stored_state() {
    let tmp = tempfile::tempdir().unwrap();
    let played = play_whole_game(tmp.path());
    let stored = session::open_read_only(&tmp.path().join("game")).unwrap();
    let mut game = Game::new(stored.game.settings.clone(), Map::standard(), GameState::start(&Map::standard(), 2));
    journal::replay(&mut game, &stored.entries).unwrap();
    assert_eq!(game.state, stored.game.state);
    assert_eq!(game.state, played.game.game.state);
    assert!(game.state.end.is_some());
}

/// The shipped directory is the example played up to `stop_before` with the fixed clock.
#[test]
fn shadow_game_shipped_directory_is_fresh() {
    let tmp = tempfile::tempdir().unwrap();
    let fresh = tmp.path().join("game");
    let played = script::play(&example_dir(), &fresh, start_time()).unwrap();
    assert_eq!(played.game.game.state.phase.code(), "F1905M");
    let shipped = example_dir().join("game");
    if std::env::var_os("UPDATE_EXAMPLES").is_some() {
        std::fs::create_dir_all(&shipped).unwrap();
        for f in SHIPPED_FILES {
            std::fs::copy(fresh.join(f), shipped.join(f)).unwrap();
        }
    }
    for f in SHIPPED_FILES {
        let want = std::fs::read_to_string(fresh.join(f)).unwrap();
        let have = std::fs::read_to_string(shipped.join(f)).unwrap_or_default();
        assert!(
            want == have,
            "examples/shadow-worlds/game/{f} is stale: run `UPDATE_EXAMPLES=1 cargo test --test it shadow_game`"
        );
    }
    // In the same test, so that it runs after an update.
    dry_run_of_the_shipped_game(&shipped);
}

/// The README's command: a dry run of the shipped Fall 1905 prints the turn and changes nothing.
fn dry_run_of_the_shipped_game(shipped: &Path) {
    let read_all = || -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(shipped)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        files
    };
    let before = read_all();
    let names: Vec<&str> = before.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["game.toml", "journal.jsonl", "map.json", "state.json"]);
    let out =
        crate::harness::shadowjudge_at("", None, &["adjudicate", "--dry-run", shipped.to_str().unwrap()], None, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = out.stdout;
    assert!(text.starts_with("shadow-example: Fall 1905 movement results (Shadow Worlds Diplomacy)"), "{text}");
    for line in [
        "=== Board A ===",
        "=== Board B ===",
        "  F ska - den                  succeeds",
        "  F eng - lon                  succeeds",
        "  London: England -> France",
        "France wins the game.",
        "(dry run: nothing was changed)",
    ] {
        assert!(text.contains(line), "missing `{line}` in:\n{text}");
    }
    assert_eq!(read_all(), before, "a dry run changed the game directory");
}
