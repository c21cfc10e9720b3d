//! Map pictures: the example games drawn phase by phase (SVG snapshots without the fixed
//! shapes, which `picture::geometry` tests), rendered to PNG and checked pixel by pixel
//! where it matters, and `map draw` from the command line.
use std::path::{Path, PathBuf};

use chrono::{TimeZone, Utc};
use resvg::tiny_skia::Pixmap;
use shadowjudge::diplomacy::map::{Map, UnitType};
use shadowjudge::diplomacy::picture::{self, svg, Geometry, Scene};
use shadowjudge::game::script::{play, Played};
use shadowjudge::phase::Phase;

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

fn shipped_shadow() -> shadowjudge::game::session::diplomacy::OpenGame {
    shadowjudge::game::session::diplomacy::open_read_only(&root().join("examples/shadow-worlds/game")).unwrap()
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
    shadowjudge::game::journal::results_scene(map, "example", &played.game.entries, Some(phase)).unwrap()
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
    let scene =
        shadowjudge::game::journal::results_scene(map, "shadow", &g.entries, Some("W1904A".parse().unwrap())).unwrap();
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
    let state = shadowjudge::diplomacy::state::GameState::start(&map, 1);
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
fn switzerland_is_hatched_in_no_powers_colour() {
    let map = Map::standard();
    let g = Geometry::standard(&map).unwrap();
    let state = shadowjudge::diplomacy::state::GameState::start(&map, 1);
    let png = picture::draw_png(&map, &g, &Scene::from_state("start", &state)).unwrap();
    // Around the spot Switzerland keeps for a unit: no unit stands there, no name.
    let at = g.units[map.parse_region("swi").unwrap().0 as usize];
    let (x, y) = (10.0 + at.x * svg::CELL, 40.0 + at.y * svg::CELL);
    let mut seen = std::collections::BTreeSet::new();
    for dy in -4..=4 {
        for dx in -4..=4 {
            seen.insert(pixel(&png, x + dx as f32, y + dy as f32));
        }
    }
    assert!(seen.len() >= 2, "hatched, not one flat colour: {seen:?}");
    for c in svg::PALETTE.iter().chain(svg::TINTS.iter()) {
        assert!(!seen.contains(*c), "{c} is a power's colour");
    }
}

#[test]
fn the_same_phase_draws_the_same_bytes() {
    // Spring 1905 is the busiest phase of the example: both boards, many orders.
    let g = shipped_shadow();
    let map = &g.game.map;
    let geometry = Geometry::standard(map).unwrap();
    let draw = || {
        let scene =
            shadowjudge::game::journal::results_scene(map, "shadow", &g.entries, Some("S1905M".parse().unwrap()))
                .unwrap();
        (picture::draw_svg(map, &geometry, &scene).unwrap(), picture::draw_png(map, &geometry, &scene).unwrap())
    };
    let (svg1, png1) = draw();
    let (svg2, png2) = draw();
    assert!(svg1 == svg2, "the SVG differs between two drawings");
    assert!(png1 == png2, "the PNG differs between two drawings");
    // The shapes are in the SVG, each province once.
    assert_eq!(svg1.matches(r#"<path id="p-"#).count(), 76);
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
        let scene = shadowjudge::game::journal::results_scene(map, "shadow", &g.entries, Some(p)).unwrap();
        let png = picture::draw_png(map, &geometry, &scene).unwrap();
        let pm = Pixmap::decode_png(&png).unwrap();
        // Both boards one above the other: as wide as one board, so that its names stay
        // legible on a screen (side by side, the picture was 2,200 pixels wide).
        assert_eq!(pm.width(), 1100, "{p}: one board wide");
        assert!(pm.height() > 2 * 968, "{p}: both boards, one above the other: {}", pm.height());
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
    assert!(pm.height() < 1300, "one board only (two are over 2000 pixels high): {}", pm.height());
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

/// A standard game started from `position`, each power's orders submitted, adjudicated at
/// its deadline: the game as it is kept, and the scene of those results.
fn played_position(position: &str, orders: &[(&str, &str)]) -> (tempfile::TempDir, std::sync::Arc<Map>, Scene) {
    let tmp = tempfile::tempdir().unwrap();
    let pos = tmp.path().join("position.toml");
    std::fs::write(&pos, position).unwrap();
    let players = tmp.path().join("players.txt");
    std::fs::write(&players, "austria, A, a@example.org\nitaly, I, i@example.org\nrussia, R, r@example.org\n").unwrap();
    let dir = tmp.path().join("game");
    let dir_s = dir.to_str().unwrap();
    let now = "2026-01-01T12:00:00Z";
    shadowjudge_at(
        now,
        None,
        &["new", dir_s, "--from", pos.to_str().unwrap(), "--players", players.to_str().unwrap()],
        None,
        &[],
    )
    .ok();
    for (power, text) in orders {
        shadowjudge_at(now, None, &["submit", dir_s, "--power", power, "-"], Some(text.as_bytes()), &[]).ok();
    }
    shadowjudge_at(now, None, &["adjudicate", dir_s, "--force"], None, &[]).ok();
    let g = shadowjudge::game::session::diplomacy::open_read_only(&dir).unwrap();
    let map = g.game.map.clone();
    let scene = shadowjudge::game::journal::results_scene(&map, "t", &g.entries, None).unwrap();
    (tmp, map, scene)
}

const ADRIATIC: &str = r#"season = "spring"
year = 1901
phase = "movement"
[units]
austria = ["F adr", "A vie"]
italy = ["F ion", "F apu", "A ven"]
russia = ["F stp/nc", "A mos"]
"#;

fn adriatic() -> (tempfile::TempDir, std::sync::Arc<Map>, Scene) {
    played_position(ADRIATIC, &[("italy", "F ion - adr\nF apu S F ion - adr\nA ven H\n"), ("austria", "F adr H\n")])
}

fn segment_dist(p: (f32, f32), a: (f32, f32), b: (f32, f32)) -> f32 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let t = (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
    ((p.0 - a.0 - dx * t).powi(2) + (p.1 - a.1 - dy * t).powi(2)).sqrt()
}

#[test]
fn a_dislodged_unit_and_its_retreat_text_clear_the_attack_the_support_and_the_names() {
    let (_tmp, map, scene) = adriatic();
    let g = Geometry::standard(&map).unwrap();
    let b = &scene.boards[0];
    let layout = svg::layout(&map, &g, b);
    assert_eq!(layout.dislodged.len(), 1);
    let d = &layout.dislodged[0];
    assert_eq!(d.text, "retreat: Alb Tri");
    let at = |key: &str| svg::unit_at(&g, map.parse_region(key).unwrap());
    let (ion, apu, adr) = (at("ion"), at("apu"), at("adr"));
    // The support goes two thirds of the way along the move.
    let support_end = (ion.0 + (adr.0 - ion.0) * 0.66, ion.1 + (adr.1 - ion.1) * 0.66);
    for (what, a, z) in [("the attack", ion, adr), ("the support", apu, support_end)] {
        let clear = segment_dist(d.at, a, z);
        assert!(clear > 12.0, "the dislodged unit is {clear:.1} px from {what}");
        for i in 0..=20 {
            let f = i as f32 / 20.0;
            let p = (a.0 + (z.0 - a.0) * f, a.1 + (z.1 - a.1) * f);
            let t = &d.text_box;
            assert!(p.0 < t.x0 - 2.0 || p.0 > t.x1 + 2.0 || p.1 < t.y0 - 2.0 || p.1 > t.y1 + 2.0, "text over {what}");
        }
    }
    for (i, l) in layout.labels.iter().enumerate() {
        assert!(d.text_box.gap(l) >= 0.0, "the retreat text covers the name of {}", map.provinces()[i].key);
        let (dx, dy) = ((l.x0 - d.at.0).max(d.at.0 - l.x1).max(0.0), (l.y0 - d.at.1).max(d.at.1 - l.y1).max(0.0));
        assert!(dx.hypot(dy) >= 10.0, "the dislodged unit covers the name of {}", map.provinces()[i].key);
    }
    // The text is drawn as laid out, large enough to read.
    let text = draw(&map, &scene);
    assert!(text.contains(r##"font-size="11" text-anchor="middle" fill="#C00000""##), "{text}");
    assert!(text.contains(">retreat: Alb Tri</text>"));
}

#[test]
fn every_unit_and_its_ring_stand_inside_the_frame() {
    let map = Map::standard();
    let g = Geometry::standard(&map).unwrap();
    let (w, h) = (g.width * svg::CELL, g.height * svg::CELL);
    // A hold ring reaches 12.5 px from the unit's centre and its casing 2.2 px more.
    let ring = 14.7;
    for r in 0..map.region_count() {
        let region = shadowjudge::diplomacy::map::RegionId(r as u16);
        let (x, y) = svg::unit_at(&g, region);
        assert!(
            x >= ring && y >= ring && x <= w - ring && y <= h - ring,
            "{} at ({x:.1}, {y:.1}) is cut by the frame",
            map.region_name(region)
        );
    }
}

#[test]
fn units_without_orders_are_marked_apart_from_ordered_holds() {
    let (_tmp, map, scene) = adriatic();
    let text = draw(&map, &scene);
    // A vie, F stp/nc and A mos sent no order; A ven held as ordered.
    assert_eq!(text.matches(r#"<g class="no-order">"#).count(), 3, "{text}");
    let ven = svg::unit_at(&Geometry::standard(&map).unwrap(), map.parse_region("ven").unwrap());
    assert!(text.contains(&format!(r##"<circle cx="{:.1}" cy="{:.1}" r="12.5" stroke="#222222""##, ven.0, ven.1)));
    assert!(text.contains(">no order: held</text>"));
}

#[test]
fn winter_orders_not_carried_out_are_crossed_never_drawn_as_done() {
    let position = r#"season = "winter"
year = 1901
phase = "adjustments"
[units]
russia = ["A war", "A ukr", "F sev", "F bla", "A gal"]
austria = ["A vie"]
[centers]
russia = ["war", "sev", "stp"]
austria = ["vie", "bud", "tri"]
"#;
    let (_tmp, map, scene) = played_position(
        position,
        &[
            ("russia", "remove A mos\nremove A gal\n"),
            ("austria", "build A vie\nbuild A bud\nbuild A tri\nbuild F tri\n"),
        ],
    );
    let text = draw(&map, &scene);
    // Russia's `remove A mos` (no unit there) is crossed, not removed; A gal and F bla
    // (civil disorder) are removed.
    assert_eq!(text.matches(r#"class="failed-removal""#).count(), 1, "{text}");
    assert_eq!(text.matches(r#"class="removed""#).count(), 2);
    // The illegal builds in Vienna and Trieste carry the cross; the two real ones do not.
    assert_eq!(text.matches(r#"<g class="failed-build">"#).count(), 2);
    let after = svg::units_after(&map, &scene.boards[0]);
    let austria = map.lookup_power("austria").unwrap();
    assert_eq!(after.iter().filter(|u| u.power == austria).count(), 3);
}

/// The scenes of every phase of the example games: standard Diplomacy from its first
/// orders (`A bud - ser`, `A mun - ruh`, ...) and both boards of Shadow Worlds.
fn every_example_scene() -> Vec<(String, std::sync::Arc<Map>, Scene)> {
    let mut out = Vec::new();
    let (_tmp, played) = play_standard();
    let map = played.game.game.map.clone();
    for r in &played.reports {
        out.push((format!("standard {}", r.phase), map.clone(), results(&map, &played, &r.phase.code())));
    }
    let g = shipped_shadow();
    for e in &g.entries {
        if let shadowjudge::game::journal::Entry::Adjudicated { phase, .. } = e {
            let scene =
                shadowjudge::game::journal::results_scene(&g.game.map, "shadow", &g.entries, Some(*phase)).unwrap();
            out.push((format!("shadow {phase}"), g.game.map.clone(), scene));
        }
    }
    out
}

/// Every arrow of a move or retreat: its head (the tip and the discs that cover the head
/// back to its base) keeps off the name and the center dot of the province it goes to,
/// and its line starts outside the unit's mark (a fleet's hull is wider than an army's
/// circle). Before, the head of `A bud - ser` lay 8 px into Serbia's dot, that of
/// `A war - gal` 8 px into "Gal", and fleets' lines began on their hulls.
#[test]
fn move_arrows_stop_short_of_the_names_and_center_dots_they_point_at() {
    use shadowjudge::diplomacy::order::Order;
    let mut arrows = 0;
    let mut nearest = f32::INFINITY;
    for (what, map, scene) in every_example_scene() {
        let g = Geometry::standard(&map).unwrap();
        for b in &scene.boards {
            let layout = svg::layout(&map, &g, b);
            for o in &b.orders {
                let (unit, to) = match o.order {
                    Order::Move { unit, to, .. } | Order::Retreat { unit, to } => (unit, to),
                    _ => continue,
                };
                let ends = svg::arrow_ends(&map, &g, b, &layout, o).unwrap();
                let (tip, tail) = (ends.to, ends.from);
                let len = ((tip.0 - tail.0).powi(2) + (tip.1 - tail.1).powi(2)).sqrt();
                assert!(len >= svg::HEAD_LEN + 4.0, "{what}: {o:?}: an arrow of {len:.1} px");
                let label = &layout.labels[to.province.0 as usize];
                let dot = g.centers[to.province.0 as usize].map(|c| (c.x * svg::CELL, c.y * svg::CELL));
                for k in 0..=6 {
                    let f = k as f32 / 6.0 * svg::HEAD_LEN / len;
                    let p = (tip.0 + (tail.0 - tip.0) * f, tip.1 + (tail.1 - tip.1) * f);
                    let half = 0.6 + svg::HEAD_LEN * 0.55 * k as f32 / 6.0;
                    let mut clear = label.dist(p) - half;
                    if let Some(c) = dot {
                        clear = clear.min(((p.0 - c.0).powi(2) + (p.1 - c.1).powi(2)).sqrt() - svg::DOT_R - half);
                    }
                    nearest = nearest.min(clear);
                    assert!(
                        clear >= 1.0,
                        "{what}: the head of {} {o:?} is {clear:.1} px from the name or dot of {}",
                        map.power(o.power).name,
                        map.province(to.province).key
                    );
                }
                // The line starts outside the unit's mark (an army's circle, a fleet's hull).
                let province = unit.at.province;
                let from = b
                    .units
                    .iter()
                    .find(|u| map.province_of(u.region) == province && !matches!(o.order, Order::Retreat { .. }));
                if let Some(u) = from {
                    let c = svg::unit_at(&g, u.region);
                    let (dx, dy) = ((tail.0 - c.0).abs(), (tail.1 - c.1).abs());
                    let outside = match u.kind {
                        UnitType::Army => dx.hypot(dy) >= svg::UNIT_R + 2.0,
                        UnitType::Fleet => dx >= svg::UNIT_R * 1.45 + 2.0 || dy >= svg::UNIT_R * 0.85 + 2.0,
                    };
                    assert!(outside, "{what}: {o:?} starts on its unit's mark ({dx:.1}, {dy:.1} px from its centre)");
                }
                arrows += 1;
            }
        }
    }
    assert!(arrows > 60, "{arrows} arrows");
    eprintln!("{arrows} arrows; the nearest head is {nearest:.1} px from a name or dot");
}
