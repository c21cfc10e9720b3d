//! A [`Scene`] drawn as SVG.
//!
//! The palette is the Okabe-Ito set, chosen to stay apart for the common forms of colour
//! blindness: Austria vermilion `#D55E00`, England blue `#0072B2`, France sky blue
//! `#56B4E9`, Germany dark grey `#4D4D4D`, Italy bluish green `#009E73`, Russia reddish
//! purple `#CC79A7`, Turkey yellow `#F0E442`. Colour is never the only sign: every unit
//! carries its letter (A or F), every center mark and land tint has a legend row with the
//! power's name, and failed orders carry a cross besides their colour.
//!
//! Land is tinted by its controller: a supply center by its owner, any other land by the
//! power whose unit stands there at the end of the phase.
//!
//! One file a job: `palette` (the colours), `board` (one board: land, centers, units,
//! orders and names, in that order), `units` (where each unit stands), `marks` (a unit, an
//! arrow, a ring, a cross), `orders` (each order as marks), `arrows` (where a move's
//! arrow starts and ends, clear of names and center dots), `layout` (dislodged units and
//! their retreat text placed clear of everything else), `legend` (the powers and the key)
//! and `ledger` (Shadow Worlds' ledger). This file sizes the picture and sets the boards
//! one above the other (each board with its legend), so that a picture of both boards is
//! as wide as one and stays legible on a screen.

use std::fmt::Write;

use self::board::draw_board;
use self::ledger::draw_ledger;
use self::legend::draw_legend;
use self::palette::INK;
use super::geometry::{Geometry, Outline, Point};
use super::scene::Scene;
use crate::diplomacy::map::Map;

mod arrows;
mod board;
mod layout;
mod ledger;
mod legend;
mod marks;
mod orders;
mod palette;
mod units;

pub use self::arrows::{arrow_ends, ArrowEnds, DOT_R, HEAD_CLEAR, HEAD_LEN};
pub use self::layout::{layout, BoardLayout, DislodgedMark, TextBox};
pub use self::palette::{PALETTE, TINTS};
pub use self::units::{unit_at, units_after};

/// Pixels per board unit.
pub const CELL: f32 = 20.0;
const MARGIN: f32 = 10.0;
const TITLE_H: f32 = 40.0;
const BOARD_TITLE_H: f32 = 26.0;
const ROW_H: f32 = 19.0;
/// The radius of an army's mark (a fleet's hull is 1.45 times as wide, 0.85 times as high).
pub const UNIT_R: f32 = 8.5;
/// How far a unit's centre stays inside the frame, so the unit, its rings and marks are
/// never cut.
const EDGE: f32 = UNIT_R + 7.0;
/// The size of a province's name, centred on the geometry's label point.
pub const LABEL_SIZE: f32 = 12.0;
/// The size of the text under a dislodged unit.
const RETREAT_TEXT: f32 = 11.0;

/// Escape text for SVG.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The width and height of the picture of a scene, in pixels.
pub fn size(g: &Geometry, scene: &Scene, map: &Map) -> (f32, f32) {
    let bw = g.width * CELL;
    let n = scene.boards.len().max(1) as f32;
    let w = MARGIN * 2.0 + bw;
    let mut h = TITLE_H + n * board_block_height(g, scene, map);
    if !scene.ledger.is_empty() {
        h += ledger_height(scene);
    }
    (w, h + MARGIN)
}

/// The height of one board with its title (when the scene has several) and its legend.
fn board_block_height(g: &Geometry, scene: &Scene, map: &Map) -> f32 {
    board_top_extra(scene) + g.height * CELL + legend_height(map)
}

fn board_top_extra(scene: &Scene) -> f32 {
    if scene.boards.len() > 1 {
        BOARD_TITLE_H
    } else {
        0.0
    }
}

fn legend_height(map: &Map) -> f32 {
    16.0 + ROW_H * (map.powers().len() as f32 + 1.0)
}

fn ledger_height(scene: &Scene) -> f32 {
    30.0 + ROW_H * (scene.ledger.len() as f32 + 1.0)
}

/// Draw a scene: its title, each board (one under the other), a legend under each board,
/// and the ledger under them when the scene has one.
pub fn draw(map: &Map, g: &Geometry, scene: &Scene) -> String {
    let (w, h) = size(g, scene, map);
    let mut s = String::with_capacity(200_000);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Verdana, sans-serif" font-weight="bold">"#
    );
    let _ = write!(s, r##"<rect width="{w}" height="{h}" fill="#FFFFFF"/>"##);
    let _ = write!(s, r#"<text x="{MARGIN}" y="28" font-size="22" fill="{INK}">{}</text>"#, esc(&scene.title));
    // The shapes once; each board fills them with its own colours.
    s.push_str("<defs>");
    s.push_str(r##"<pattern id="impassable" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="5" fill="#F4F2EC"/><path d="M0 0V5" stroke="#8A8578" stroke-width="1.5"/></pattern>"##);
    s.push_str(r#"<path id="offboard" fill-rule="evenodd" d=""#);
    path_data(&mut s, &g.offboard);
    s.push_str(r#""/>"#);
    for p in map.province_ids() {
        let _ = write!(s, r#"<path id="p-{}" fill-rule="evenodd" d=""#, map.province(p).key);
        path_data(&mut s, &g.outlines[p.0 as usize]);
        s.push_str(r#""/>"#);
    }
    s.push_str("</defs>");
    let bw = g.width * CELL;
    let bh = g.height * CELL;
    let block = board_block_height(g, scene, map);
    for (i, b) in scene.boards.iter().enumerate() {
        let x0 = MARGIN;
        let mut y0 = TITLE_H + i as f32 * block;
        if let Some(letter) = b.board {
            let _ = write!(s, r#"<text x="{x0}" y="{}" font-size="18" fill="{INK}">Board {letter}</text>"#, y0 + 18.0);
            y0 += BOARD_TITLE_H;
        }
        let _ = write!(s, r#"<g transform="translate({x0} {y0})">"#);
        draw_board(&mut s, map, g, b);
        let _ = write!(s, r#"<rect width="{bw}" height="{bh}" fill="none" stroke="{INK}" stroke-width="1.5"/>"#);
        s.push_str("</g>");
        draw_legend(&mut s, map, b, x0, y0 + bh, i == 0);
    }
    if !scene.ledger.is_empty() {
        let y = TITLE_H + scene.boards.len().max(1) as f32 * block;
        draw_ledger(&mut s, map, scene, y);
    }
    s.push_str("</svg>\n");
    s
}

fn px(p: Point) -> (f32, f32) {
    (p.x * CELL, p.y * CELL)
}

fn path_data(s: &mut String, o: &Outline) {
    for l in &o.loops {
        for (i, p) in l.iter().enumerate() {
            let (x, y) = px(*p);
            let _ = write!(s, "{}{:.1} {:.1}", if i == 0 { "M" } else { "L" }, x, y);
        }
        s.push('Z');
    }
}
