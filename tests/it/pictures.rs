//! Map pictures: the example games drawn phase by phase (SVG snapshots without the fixed
//! shapes, which `picture::geometry` tests), rendered to PNG and checked pixel by pixel
//! where it matters, and `map draw` from the command line.
use std::path::{Path, PathBuf};

use chrono::{TimeZone, Utc};
use resvg::tiny_skia::Pixmap;
use shadowjudge::game::script::{play, Played};
use shadowjudge::map::Map;
use shadowjudge::phase::Phase;
use shadowjudge::picture::{self, svg, Geometry, Scene};

use crate::harness::shadowjudge_at;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn play_standard() -> (tempfile::TempDir, Played) {
    let tmp = tempfile::tempdir().unwrap();
    let start = Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0).unwrap();
    let played = play(&root().join("examples/standard-game"), &tmp.path().join("game"), start).unwrap();
    (tmp, played)
}

fn shipped_shadow() -> shadowjudge::game::session::OpenGame {
    shadowjudge::game::session::open_read_only(&root().join("examples/shadow-worlds/game")).unwrap()
}

/// The SVG without its fixed shapes (the `<defs>`), one element per line.
fn snapshot_text(svg: &str) -> String {
    let start = svg.find("<defs>").unwrap();
    let end = svg.find("</defs>").unwrap() + "</defs>".len();
    let rest = format!("{}<defs>(the shapes)</defs>{}", &svg[..start], &svg[end..]);
    rest.replace("><", ">\n<")
}

fn results(map: &Map, played: &Played, code: &str) -> Scene {
    let phase: Phase = code.parse().unwrap();
    picture::results_scene(map, "example", &played.game.entries, Some(phase)).unwrap()
}

fn draw(map: &Map, scene: &Scene) -> String {
    let g = Geometry::standard(map).unwrap();
    picture::draw_svg(map, &g, scene).unwrap()
}

#[test]
fn standard_game_every_phase_draws_with_every_order() {
    let (_tmp, played) = play_standard();
    let map = &played.game.game.map;
    for r in &played.reports {
        let scene = results(map, &played, &r.phase.code());
        let svg = draw(map, &scene);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        let orders: usize = r.boards.iter().map(|b| b.orders.iter().filter(|o| o.order != "waive").count()).sum();
        assert_eq!(scene.boards[0].orders.len(), orders, "{}", r.phase);
        assert!(svg.contains(&format!("{} results", picture::scene::phase_words(r.phase))));
    }
}

#[test]
fn standard_game_spring_1902_movement_svg() {
    let (_tmp, played) = play_standard();
    let map = &played.game.game.map;
    insta::assert_snapshot!(snapshot_text(&draw(map, &results(map, &played, "S1902M"))));
}

#[test]
fn standard_game_fall_1902_retreats_svg() {
    let (_tmp, played) = play_standard();
    let map = &played.game.game.map;
    insta::assert_snapshot!(snapshot_text(&draw(map, &results(map, &played, "F1902R"))));
}

#[test]
fn standard_game_winter_1902_svg() {
    let (_tmp, played) = play_standard();
    let map = &played.game.game.map;
    insta::assert_snapshot!(snapshot_text(&draw(map, &results(map, &played, "W1902A"))));
}

#[test]
fn shadow_game_winter_1904_svg_has_both_boards_and_the_ledger() {
    let g = shipped_shadow();
    let map = &g.game.map;
    let scene = picture::results_scene(map, "shadow", &g.entries, Some("W1904A".parse().unwrap())).unwrap();
    assert_eq!(scene.boards.len(), 2);
    assert!(!scene.ledger.is_empty());
    let svg = draw(map, &scene);
    assert!(svg.contains(">Board A<") && svg.contains(">Board B<") && svg.contains(">Ledger<"));
    insta::assert_snapshot!(snapshot_text(&svg));
}

/// The colour of a pixel, as `#RRGGBB`.
fn pixel(png: &[u8], x: f32, y: f32) -> String {
    let pm = Pixmap::decode_png(png).unwrap();
    let p = pm.pixel(x as u32, y as u32).unwrap();
    format!("#{:02X}{:02X}{:02X}", p.red(), p.green(), p.blue())
}

#[test]
fn png_shows_units_in_their_powers_colours() {
    let map = Map::standard();
    let g = Geometry::standard(&map).unwrap();
    let state = shadowjudge::game::state::GameState::start(&map, 1);
    let scene = Scene::from_state("start", &state);
    let png = picture::draw_png(&map, &g, &scene).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let (w, h) = svg::size(&g, &scene, &map);
    let pm = Pixmap::decode_png(&png).unwrap();
    assert_eq!((pm.width(), pm.height()), (w.ceil() as u32, h.ceil() as u32));
    // A unit's mark, a little left of its letter: the power's colour.
    for (unit, colour) in [("vie", "#D55E00"), ("mos", "#CC79A7"), ("par", "#56B4E9"), ("rom", "#009E73")] {
        let r = map.parse_region(unit).unwrap();
        let at = g.units[r.0 as usize];
        let (x, y) = (10.0 + at.x * svg::CELL - 6.0, 40.0 + at.y * svg::CELL);
        assert_eq!(pixel(&png, x, y), colour, "{unit}");
    }
}

#[test]
fn shadow_game_pngs_render_for_every_phase() {
    let g = shipped_shadow();
    let map = &g.game.map;
    let geometry = Geometry::standard(map).unwrap();
    let phases: Vec<Phase> = g
        .entries
        .iter()
        .filter_map(|e| match e {
            shadowjudge::game::journal::Entry::Adjudicated { phase, .. } => Some(*phase),
            _ => None,
        })
        .collect();
    assert!(phases.len() >= 2);
    for p in phases {
        let scene = picture::results_scene(map, "shadow", &g.entries, Some(p)).unwrap();
        let png = picture::draw_png(map, &geometry, &scene).unwrap();
        let pm = Pixmap::decode_png(&png).unwrap();
        assert!(pm.width() > 2000, "{p}: both boards side by side");
    }
}

#[test]
fn map_draw_writes_svg_and_png_of_a_game() {
    let tmp = tempfile::tempdir().unwrap();
    let game = root().join("examples/shadow-worlds/game");
    let svg_out = tmp.path().join("w1904.svg");
    let run = shadowjudge_at(
        "",
        None,
        &["map", "draw", game.to_str().unwrap(), "W1904A", "-o", svg_out.to_str().unwrap()],
        None,
        &[],
    );
    run.ok();
    let text = std::fs::read_to_string(&svg_out).unwrap();
    assert!(text.contains("Winter 1904 Adjustments results") && text.contains(">Ledger<"));
    let png_out = tmp.path().join("now-b.png");
    let run = shadowjudge_at(
        "",
        None,
        &["map", "draw", game.to_str().unwrap(), "--board", "b", "-o", png_out.to_str().unwrap()],
        None,
        &[],
    );
    run.ok();
    let pm = Pixmap::decode_png(&std::fs::read(&png_out).unwrap()).unwrap();
    assert!(pm.width() < 1100, "one board only: {}", pm.width());
    let pos = root().join("examples/positions/spring-1901.toml");
    let out = tmp.path().join("pos.svg");
    shadowjudge_at(
        "",
        None,
        &["map", "draw", "--position", pos.to_str().unwrap(), "-o", out.to_str().unwrap()],
        None,
        &[],
    )
    .ok();
    assert!(std::fs::read_to_string(&out).unwrap().contains("Spring 1901 Movement"));
}

#[test]
fn map_draw_bad_input_says_what_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let game = root().join("examples/shadow-worlds/game");
    let game = game.to_str().unwrap();
    let out = tmp.path().join("x.svg");
    let out = out.to_str().unwrap();
    let run = shadowjudge_at("", None, &["map", "draw", game, "S1950M", "-o", out], None, &[]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, "error: Spring 1950 movement has not been adjudicated in this game\n");
    let run = shadowjudge_at("", None, &["map", "draw", game, "-o", "pic.jpg"], None, &[]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, "error: pic.jpg: the picture's name must end in .svg or .png\n");
    let run = shadowjudge_at("", None, &["map", "draw", game, "--board", "C", "-o", out], None, &[]);
    assert_eq!(run.stderr, "error: `C` is not a board: write A or B\n");
    let bad = tmp.path().join("no/such/dir/x.png");
    let run = shadowjudge_at("", None, &["map", "draw", game, "-o", bad.to_str().unwrap()], None, &[]);
    assert_eq!(run.code, 3);
    assert!(run.stderr.starts_with(&format!("error: {}: cannot write the picture: ", bad.display())), "{}", run.stderr);
    assert!(!bad.exists());
}
