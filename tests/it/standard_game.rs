//! The standard example game (examples/standard-game): replayed end to end through the
//! same session code the CLI uses, its journal replayed from scratch, and its reports
//! snapshotted. The expected positions were checked by hand against the rules.
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use shadowjudge::diplomacy::engine::Game;
use shadowjudge::diplomacy::map::Map;
use shadowjudge::diplomacy::state::GameState;
use shadowjudge::game::journal;
use shadowjudge::game::script::{play, Played};
use shadowjudge::game::session::diplomacy as session;
use shadowjudge::phase::Phase;

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/standard-game")
}

fn start_time() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0).unwrap()
}

fn play_example() -> (tempfile::TempDir, Played) {
    let tmp = tempfile::tempdir().unwrap();
    let played = play(&example_dir(), &tmp.path().join("game"), start_time()).unwrap();
    (tmp, played)
}

/// Every power's units (sorted) and supply centers (sorted), as short names.
fn position(map: &Map, state: &GameState) -> Vec<(String, Vec<String>, Vec<String>)> {
    let board = &state.boards[0];
    map.power_ids()
        .map(|p| {
            let mut units: Vec<String> = board.units.iter().filter(|u| u.power == p).map(|u| u.describe(map)).collect();
            units.sort();
            let mut centers: Vec<String> = board.ownership.centers_of(p).map(|c| map.province(c).key.clone()).collect();
            centers.sort();
            (map.power(p).key.clone(), units, centers)
        })
        .collect()
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn standard_game_ends_in_spring_1903_with_the_expected_position() {
    let (_tmp, played) = play_example();
    let game = &played.game.game;
    let phase: Phase = "S1903M".parse().unwrap();
    assert_eq!(game.state.phase, phase);
    assert!(game.state.end.is_none());
    assert!(game.state.eliminated.is_empty());

    let expected = [
        (
            "austria",
            &["A bud", "A bul", "A ser", "A vie", "F gre", "F tri"][..],
            &["bud", "bul", "gre", "ser", "tri", "vie"][..],
        ),
        ("england", &["F nth", "F nwg"], &["edi", "lvp"]),
        (
            "france",
            &["A bur", "A mar", "A pic", "A spa", "F lon", "F mao"],
            &["bre", "lon", "mar", "par", "por", "spa"],
        ),
        (
            "germany",
            &["A bel", "A ber", "A hol", "A mun", "F den", "F hel"],
            &["bel", "ber", "den", "hol", "kie", "mun"],
        ),
        ("italy", &["A tun", "A ven", "F aeg", "F nap"], &["nap", "rom", "tun", "ven"]),
        (
            "russia",
            &["A mos", "A ukr", "A war", "F bla", "F nwy", "F sev", "F stp/nc"],
            &["mos", "nwy", "rum", "sev", "stp", "swe", "war"],
        ),
        ("turkey", &["A con", "A smy", "F ank"], &["ank", "con", "smy"]),
    ];
    let expected: Vec<(String, Vec<String>, Vec<String>)> =
        expected.iter().map(|(p, u, c)| (p.to_string(), strings(u), strings(c))).collect();
    let actual = position(&game.map, &game.state);
    assert_eq!(actual.len(), expected.len());
    for ((power, units, centers), (want_power, want_units, want_centers)) in actual.iter().zip(&expected) {
        assert_eq!(power, want_power);
        let mut want_units = want_units.clone();
        want_units.sort();
        assert_eq!(units, &want_units, "units of {power}");
        assert_eq!(centers, want_centers, "centers of {power}");
    }
    let counts: Vec<usize> = actual.iter().map(|(_, _, c)| c.len()).collect();
    assert_eq!(counts, [6, 2, 6, 6, 4, 7, 3]);
    assert_eq!(counts.iter().sum::<usize>(), 34, "every center is owned after 1902");
}

#[test]
fn standard_game_plays_every_phase_in_order() {
    let (_tmp, played) = play_example();
    let phases: Vec<String> = played.reports.iter().map(|r| r.phase.code()).collect();
    assert_eq!(phases, ["S1901M", "F1901M", "W1901A", "S1902M", "S1902R", "F1902M", "F1902R", "W1902A"]);
    // The defaults the example relies on: Italy's waived build, Turkey's silent spring.
    let defaults = |code: &str| -> Vec<String> {
        played.reports.iter().find(|r| r.phase.code() == code).unwrap().defaults.clone()
    };
    assert_eq!(defaults("W1901A"), ["Italy: 1 build not ordered, waived"]);
    assert_eq!(defaults("S1902M"), ["Turkey: no orders for F bla, A bul, A con, A smy: held"]);
    // Turkey's army in Bulgaria had nowhere to retreat: disbanded at once, not waited for.
    assert!(defaults("S1902R").is_empty());
    let spring = played.reports.iter().find(|r| r.phase.code() == "S1902M").unwrap();
    let bul = spring.boards[0].dislodged.iter().find(|d| d.unit == "A bul").unwrap();
    assert!(bul.retreats.is_empty());
    assert!(defaults("W1902A").is_empty());
}

#[test]
fn standard_game_journal_replays_to_the_same_state() {
    let (tmp, played) = play_example();
    let dir = tmp.path().join("game");
    let entries = played.game.entries.clone();
    let mut fresh =
        Game::new(played.game.game.settings.clone(), Map::standard(), GameState::start(&Map::standard(), 1));
    journal::replay(&mut fresh, &entries).unwrap();
    assert_eq!(fresh.state, played.game.game.state);

    let opened = session::open(&dir).unwrap();
    assert_eq!(opened.game.state, played.game.game.state);
    assert_eq!(opened.entries, entries);

    // Without the state cache the journal alone rebuilds the game.
    std::fs::remove_file(dir.join("state.json")).unwrap();
    let rebuilt = session::open_read_only(&dir).unwrap();
    assert_eq!(rebuilt.game.state, played.game.game.state);
}

fn report_text(played: &Played, code: &str) -> String {
    played.reports.iter().find(|r| r.phase.code() == code).unwrap().to_text()
}

#[test]
fn standard_game_report_spring_1902_movement() {
    let (_tmp, played) = play_example();
    insta::assert_snapshot!(report_text(&played, "S1902M"));
}

#[test]
fn standard_game_report_fall_1902_retreats() {
    let (_tmp, played) = play_example();
    insta::assert_snapshot!(report_text(&played, "F1902R"));
}

#[test]
fn standard_game_report_winter_1902_adjustments() {
    let (_tmp, played) = play_example();
    insta::assert_snapshot!(report_text(&played, "W1902A"));
}
