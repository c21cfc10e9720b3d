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

use std::fmt::Write;

use super::geometry::{Geometry, Outline, Point};
use super::scene::{BoardScene, Outcome, Scene, SceneOrder};
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, PowerId, RegionId, Terrain, UnitType};
use crate::diplomacy::order::{Order, Place, UnitRef};

/// Pixels per board unit.
pub const CELL: f32 = 20.0;
const MARGIN: f32 = 10.0;
const TITLE_H: f32 = 40.0;
const BOARD_TITLE_H: f32 = 26.0;
const ROW_H: f32 = 19.0;
const UNIT_R: f32 = 8.5;
/// How far a unit's centre stays inside the frame, so the unit, its rings and marks are
/// never cut.
const EDGE: f32 = UNIT_R + 7.0;
/// The size of the text under a dislodged unit.
const RETREAT_TEXT: f32 = 11.0;

const SEA: &str = "#DDEBF5";
const LAND: &str = "#F1E7CF";
const OFFBOARD: &str = "#D3CDBE";
/// Impassable land: hatched, so it looks like no power's tint (Germany's is grey).
const IMPASSABLE: &str = "url(#impassable)";
const INK: &str = "#222222";
const FAIL: &str = "#C00000";

/// The colour of each power, by id (the standard map's order: Austria, England, France,
/// Germany, Italy, Russia, Turkey); a map with more powers cycles through them.
pub const PALETTE: [&str; 7] = ["#D55E00", "#0072B2", "#56B4E9", "#4D4D4D", "#009E73", "#CC79A7", "#F0E442"];
/// Land tints: each power's colour mixed half with the land colour.
pub const TINTS: [&str; 7] = ["#E3A268", "#6FA3C7", "#86C3E8", "#9F9A8E", "#79C3A2", "#DFB0BB", "#F1EC89"];
/// Whether a power's colour is dark (white letters on its units).
const DARK: [bool; 7] = [true, true, false, true, true, false, false];

fn colour(p: PowerId) -> &'static str {
    PALETTE[p.0 as usize % PALETTE.len()]
}

fn tint(p: PowerId) -> &'static str {
    TINTS[p.0 as usize % TINTS.len()]
}

fn letter_colour(p: PowerId) -> &'static str {
    if DARK[p.0 as usize % DARK.len()] {
        "#FFFFFF"
    } else {
        INK
    }
}

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
    let bh = g.height * CELL;
    let n = scene.boards.len().max(1) as f32;
    let w = MARGIN * 2.0 + n * bw + (n - 1.0) * MARGIN * 2.0;
    let mut h = TITLE_H + board_top_extra(scene) + bh + legend_height(map);
    if !scene.ledger.is_empty() {
        h += ledger_height(scene);
    }
    (w, h + MARGIN)
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

/// Draw a scene: its title, each board (side by side), a legend under each board, and
/// the ledger under them when the scene has one.
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
    for (i, b) in scene.boards.iter().enumerate() {
        let x0 = MARGIN + i as f32 * (bw + MARGIN * 2.0);
        let mut y0 = TITLE_H;
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
        let y = TITLE_H + board_top_extra(scene) + bh + legend_height(map);
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

/// Who controls a province on this board, for its tint.
fn controller(
    map: &Map,
    b: &BoardScene,
    units_after: &[Unit],
    p: crate::diplomacy::map::ProvinceId,
) -> Option<PowerId> {
    if map.province(p).supply_center {
        return b.ownership.owner(p);
    }
    units_after.iter().find(|u| map.province_of(u.region) == p).map(|u| u.power)
}

/// The units at the end of the phase: where moves, retreats and builds took them.
pub fn units_after(map: &Map, b: &BoardScene) -> Vec<Unit> {
    // Dislodged units leave their province (in movement results they are still listed).
    let mut units: Vec<Unit> = b.units.iter().filter(|u| !b.dislodged.iter().any(|d| d.unit == **u)).copied().collect();
    let dislodged_in =
        |p: crate::diplomacy::map::ProvinceId| b.dislodged.iter().any(|d| map.province_of(d.unit.region) == p);
    for o in &b.orders {
        if !o.outcome.carried_out() {
            continue;
        }
        match o.order {
            Order::Move { unit, to, .. } => {
                if let Some(u) = units.iter_mut().find(|u| map.province_of(u.region) == unit.at.province) {
                    if let Some(r) = region_of(map, u.kind, to) {
                        u.region = r;
                    }
                }
            }
            // A removal in Winter (a disbanded dislodged unit is gone already).
            Order::Disband { unit } if !dislodged_in(unit.at.province) => {
                units.retain(|u| map.province_of(u.region) != unit.at.province || !same_unit(u, &unit))
            }
            Order::Build { kind: Some(kind), at } => {
                if let Some(r) = region_of(map, kind, at) {
                    units.push(Unit { power: o.power, kind, region: r })
                }
            }
            Order::Retreat { unit, to } => {
                if let Some(d) = b.dislodged.iter().find(|d| map.province_of(d.unit.region) == unit.at.province) {
                    if let Some(r) = region_of(map, d.unit.kind, to) {
                        units.push(Unit { region: r, ..d.unit });
                    }
                }
            }
            _ => {}
        }
    }
    units
}

fn same_unit(u: &Unit, r: &UnitRef<Place>) -> bool {
    r.kind.is_none_or(|k| k == u.kind)
}

/// The region a unit of `kind` stands in at a place.
fn region_of(map: &Map, kind: UnitType, at: Place) -> Option<RegionId> {
    map.region_for(kind, at.province, at.coast).or_else(|| Some(map.province(at.province).main_region))
}

fn draw_board(s: &mut String, map: &Map, g: &Geometry, b: &BoardScene) {
    let after = units_after(map, b);
    let (bw, bh) = (g.width * CELL, g.height * CELL);
    let _ = write!(s, r#"<rect width="{bw}" height="{bh}" fill="{SEA}"/>"#);
    let _ = write!(s, r##"<use href="#offboard" fill="{OFFBOARD}" stroke="#8A8578" stroke-width="0.8"/>"##);
    for p in map.province_ids() {
        let prov = map.province(p);
        let fill = if prov.impassable {
            IMPASSABLE
        } else if prov.terrain == Terrain::Sea {
            SEA
        } else {
            controller(map, b, &after, p).map_or(LAND, tint)
        };
        let stroke = if prov.terrain == Terrain::Sea { "#7FA7C4" } else { "#6B6455" };
        let _ = write!(s, r##"<use href="#p-{}" fill="{fill}" stroke="{stroke}" stroke-width="0.9"/>"##, prov.key);
    }
    // Center marks.
    for p in map.province_ids() {
        if let Some(c) = g.centers[p.0 as usize] {
            let (cx, cy) = px(c);
            let fill = b.ownership.owner(p).map_or("#FFFFFF", colour);
            let _ = write!(
                s,
                r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="4.5" fill="{fill}" stroke="{INK}" stroke-width="1.2"/>"#
            );
        }
    }
    // Coast names of split provinces.
    for r in 0..map.region_count() {
        let region = map.region(RegionId(r as u16));
        if let Some(c) = region.coast {
            let (x, y) = unit_at(g, RegionId(r as u16));
            let _ = write!(
                s,
                r##"<text x="{x:.1}" y="{:.1}" font-size="8" text-anchor="middle" fill="#2F5F86">{}</text>"##,
                y + 16.0,
                c.short()
            );
        }
    }
    let layout = layout(map, g, b);
    // Builds not carried out first, so a unit built in the same place stands over them.
    let mut builds: Vec<&SceneOrder> = b.orders.iter().filter(|o| matches!(o.order, Order::Build { .. })).collect();
    builds.sort_by_key(|o| o.outcome.carried_out());
    // Units where the orders found them (dislodged ones stand beside their province).
    for u in &b.units {
        if !b.dislodged.iter().any(|d| d.unit == *u) {
            draw_unit(s, u, unit_at(g, u.region), 1.0, false);
        }
    }
    for o in &builds {
        if let Order::Build { kind: Some(kind), at } = o.order {
            if let Some(r) = region_of(map, kind, at) {
                let at = unit_at(g, r);
                let built = o.outcome.carried_out();
                let faint = if built { 1.0 } else { 0.45 };
                draw_unit(s, &Unit { power: o.power, kind, region: r }, at, faint, false);
                let _ = write!(
                    s,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="none" stroke="{INK}" stroke-width="1.6" stroke-dasharray="3 2" opacity="{faint}"/>"##,
                    at.0,
                    at.1,
                    UNIT_R + 4.5
                );
                badge(s, (at.0 + 9.0, at.1 - 9.0), "+", faint);
                if !built {
                    s.push_str(r#"<g class="failed-build">"#);
                    cross(s, (at.0 - 10.0, at.1 - 10.0));
                    s.push_str("</g>");
                }
            }
        }
    }
    for d in &layout.dislodged {
        draw_unit(s, &d.unit, d.at, 1.0, true);
        let (x, y) = ((d.text_box.x0 + d.text_box.x1) / 2.0, d.text_box.y1 - RETREAT_TEXT * 0.25);
        halo_text(s, x, y, RETREAT_TEXT, FAIL, &d.text);
    }
    // Orders on top, shortened so they never cover a unit's letter.
    for o in &b.orders {
        draw_order(s, map, g, b, &layout, o);
    }
    // Names last, on a light halo, so no ring or line hides them.
    for p in map.province_ids() {
        let prov = map.province(p);
        let (x, y) = px(g.labels[p.0 as usize]);
        let fill = if prov.terrain == Terrain::Sea { "#2F5F86" } else { "#3B3529" };
        let _ = write!(
            s,
            r##"<text x="{x:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="{fill}" stroke="#FFFFFF" stroke-width="2.5" stroke-opacity="0.8" paint-order="stroke">{}</text>"##,
            y + 3.5,
            esc(&label_text(&prov.key))
        );
    }
}

/// `par` -> `Par`, `stp/sc` -> `Stp/sc`.
fn label_text(key: &str) -> String {
    let mut c = key.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Where a unit in region `r` is drawn: the geometry's point, kept far enough inside the
/// frame that the unit and its rings are never cut.
pub fn unit_at(g: &Geometry, r: RegionId) -> (f32, f32) {
    let (x, y) = px(g.units[r.0 as usize]);
    let (bw, bh) = (g.width * CELL, g.height * CELL);
    (x.clamp(EDGE, (bw - EDGE).max(EDGE)), y.clamp(EDGE, (bh - EDGE).max(EDGE)))
}

fn halo_text(s: &mut String, x: f32, y: f32, size: f32, fill: &str, text: &str) {
    let _ = write!(
        s,
        r##"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="middle" fill="{fill}" stroke="#FFFFFF" stroke-width="3" paint-order="stroke">{}</text>"##,
        esc(text)
    );
}

fn badge(s: &mut String, (x, y): (f32, f32), text: &str, opacity: f32) {
    let _ = write!(
        s,
        r##"<g opacity="{opacity}"><circle cx="{x:.1}" cy="{y:.1}" r="6" fill="#FFFFFF" stroke="{INK}" stroke-width="1.2"/><text x="{x:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="{INK}">{text}</text></g>"##,
        y + 4.0
    );
}

fn draw_unit(s: &mut String, u: &Unit, (x, y): (f32, f32), opacity: f32, dislodged: bool) {
    let fill = colour(u.power);
    let stroke = if dislodged { FAIL } else { INK };
    let sw = if dislodged { 2.4 } else { 1.3 };
    let _ = write!(s, r#"<g opacity="{opacity}">"#);
    match u.kind {
        UnitType::Army => {
            let _ = write!(
                s,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{UNIT_R}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>"#
            );
        }
        UnitType::Fleet => {
            // A hull: flat deck, pointed bow and stern.
            let (w, h) = (UNIT_R * 1.45, UNIT_R * 0.85);
            let _ = write!(
                s,
                r#"<path d="M{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" fill="{fill}" stroke="{stroke}" stroke-width="{sw}" stroke-linejoin="round"/>"#,
                x - w,
                y - h,
                x + w,
                y - h,
                x + w * 0.7,
                y + h,
                x - w * 0.7,
                y + h,
                x - w,
                y - h,
                x - w,
                y - h
            );
        }
    }
    let _ = write!(
        s,
        r#"<text x="{x:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="{}">{}</text></g>"#,
        y + 4.0,
        letter_colour(u.power),
        u.kind.letter()
    );
}

/// Where the unit a reference names stands on this board: its own region if a unit is
/// there, else the place as written. A dislodged unit is where `layout` put it (none
/// yet while the layout is being made).
fn unit_point(
    map: &Map,
    g: &Geometry,
    b: &BoardScene,
    layout: Option<&BoardLayout>,
    r: &UnitRef<Place>,
    retreat: bool,
) -> (f32, f32) {
    if let Some(d) = layout.and_then(|l| l.dislodged.iter().find(|d| map.province_of(d.unit.region) == r.at.province)) {
        // A retreat order moves the dislodged unit; in movement results the dislodged
        // unit is still among the units the orders found, and is drawn beside.
        if retreat || b.units.contains(&d.unit) {
            return d.at;
        }
    }
    if let Some(u) = b.units.iter().find(|u| map.province_of(u.region) == r.at.province) {
        return unit_at(g, u.region);
    }
    place_point(map, g, r.kind.unwrap_or(UnitType::Army), r.at)
}

fn place_point(map: &Map, g: &Geometry, kind: UnitType, at: Place) -> (f32, f32) {
    let r = match at.coast {
        Some(_) => region_of(map, kind, at),
        None => Some(map.province(at.province).main_region),
    };
    unit_at(g, r.unwrap_or(map.province(at.province).main_region))
}

fn towards(a: (f32, f32), b: (f32, f32), d: f32) -> (f32, f32) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1e-3 {
        return a;
    }
    (a.0 + dx / len * d, a.1 + dy / len * d)
}

fn dist(a: (f32, f32), b: (f32, f32)) -> f32 {
    ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt()
}

fn style(o: &SceneOrder) -> (&'static str, f32) {
    let c = colour(o.power);
    match o.outcome {
        Outcome::Succeeded | Outcome::Default => (c, 1.0),
        Outcome::Failed => (c, 0.8),
        Outcome::Void => (c, 0.5),
    }
}

/// A line with a dark casing, so light colours read on light land.
fn cased_line(s: &mut String, pts: &[(f32, f32)], colour: &str, width: f32, dash: &str, opacity: f32) {
    let mut d = String::new();
    for (i, p) in pts.iter().enumerate() {
        let _ = write!(d, "{}{:.1} {:.1}", if i == 0 { "M" } else { "L" }, p.0, p.1);
    }
    let dash_attr = if dash.is_empty() { String::new() } else { format!(r#" stroke-dasharray="{dash}""#) };
    let _ = write!(
        s,
        r#"<g opacity="{opacity}" fill="none" stroke-linecap="round" stroke-linejoin="round"><path d="{d}" stroke="{INK}" stroke-width="{:.1}"{dash_attr}/><path d="{d}" stroke="{colour}" stroke-width="{width}"{dash_attr}/></g>"#,
        width + 2.4
    );
}

fn arrow(s: &mut String, from: (f32, f32), to: (f32, f32), colour: &str, opacity: f32) {
    let len = dist(from, to);
    if len < 4.0 {
        return;
    }
    let head = 9.0_f32.min(len * 0.6);
    let base = towards(to, from, head);
    cased_line(s, &[from, base], colour, 3.0, "", opacity);
    let (dx, dy) = ((to.0 - from.0) / len, (to.1 - from.1) / len);
    let (nx, ny) = (-dy * head * 0.55, dx * head * 0.55);
    let _ = write!(
        s,
        r#"<path d="M{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" fill="{colour}" stroke="{INK}" stroke-width="1.2" stroke-linejoin="round" opacity="{opacity}"/>"#,
        to.0,
        to.1,
        base.0 + nx,
        base.1 + ny,
        base.0 - nx,
        base.1 - ny
    );
}

/// A cross marking a failed order.
fn cross(s: &mut String, (x, y): (f32, f32)) {
    let r = 5.0;
    let d = format!(
        "M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}",
        x - r,
        y - r,
        x + r,
        y + r,
        x - r,
        y + r,
        x + r,
        y - r
    );
    let _ = write!(
        s,
        r##"<path d="{d}" stroke="#FFFFFF" stroke-width="5" stroke-linecap="round"/><path d="{d}" stroke="{FAIL}" stroke-width="2.6" stroke-linecap="round"/>"##
    );
}

fn ring(s: &mut String, (x, y): (f32, f32), r: f32, colour: &str, dash: &str, opacity: f32) {
    let dash_attr = if dash.is_empty() { String::new() } else { format!(r#" stroke-dasharray="{dash}""#) };
    let _ = write!(
        s,
        r#"<g opacity="{opacity}" fill="none"><circle cx="{x:.1}" cy="{y:.1}" r="{r}" stroke="{INK}" stroke-width="4.4"{dash_attr}/><circle cx="{x:.1}" cy="{y:.1}" r="{r}" stroke="{colour}" stroke-width="2.2"{dash_attr}/></g>"#
    );
}

fn draw_order(s: &mut String, map: &Map, g: &Geometry, b: &BoardScene, layout: &BoardLayout, o: &SceneOrder) {
    let (c, op) = style(o);
    let failed = !o.outcome.carried_out();
    let gap = UNIT_R + 3.0;
    let point = |r: &UnitRef<Place>, retreat: bool| unit_point(map, g, b, Some(layout), r, retreat);
    match o.order {
        Order::Hold { unit } if o.outcome == Outcome::Default => {
            // No order came: the unit held by default, as the results say.
            let at = point(&unit, false);
            let _ = write!(s, r#"<g class="no-order">"#);
            badge(s, (at.0 + 9.0, at.1 - 9.0), "?", 1.0);
            s.push_str("</g>");
        }
        Order::Hold { unit } => {
            let at = point(&unit, false);
            ring(s, at, UNIT_R + 4.0, c, "", op);
            if failed {
                cross(s, (at.0 + 10.0, at.1 - 10.0));
            }
        }
        Order::Move { unit, to, .. } | Order::Retreat { unit, to } => {
            let from = point(&unit, matches!(o.order, Order::Retreat { .. }));
            let kind = unit.kind.unwrap_or(UnitType::Army);
            let dest = place_point(map, g, kind, to);
            let (a, z) = (towards(from, dest, gap), towards(dest, from, 6.0));
            arrow(s, a, z, c, op);
            if failed {
                cross(s, towards(dest, from, 16.0));
            }
        }
        Order::SupportHold { unit, supported } => {
            let from = point(&unit, false);
            let to = point(&supported, false);
            cased_line(s, &[towards(from, to, gap), towards(to, from, UNIT_R + 6.0)], c, 2.2, "5 3", op);
            ring(s, to, UNIT_R + 6.0, c, "4 3", op);
            if failed {
                cross(s, towards(from, to, dist(from, to) / 2.0));
            }
        }
        Order::SupportMove { unit, supported, to } => {
            let from = point(&unit, false);
            let s_at = point(&supported, false);
            let dest = place_point(map, g, supported.kind.unwrap_or(UnitType::Army), to);
            let target = support_target(s_at, dest);
            let a = towards(from, target, gap);
            cased_line(s, &[a, target], c, 2.2, "5 3", op);
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3.2" fill="{c}" stroke="{INK}" stroke-width="1.2" opacity="{op}"/>"#,
                target.0, target.1
            );
            if failed {
                cross(s, towards(a, target, dist(a, target) / 2.0));
            }
        }
        Order::Convoy { unit, army, to } => {
            let fleet = point(&unit, false);
            let a = point(&army, false);
            let dest = place_point(map, g, UnitType::Army, to);
            cased_line(s, &[towards(a, fleet, gap), fleet, towards(dest, fleet, gap)], c, 2.2, "1 5", op);
            if failed {
                cross(s, (fleet.0 + 10.0, fleet.1 - 10.0));
            }
        }
        Order::Disband { unit } => {
            let at = point(&unit, true);
            if failed {
                // Nothing was removed (no such unit, or the removal was not due): the
                // order's cross only, never the mark of a removal.
                let _ = write!(s, r#"<g class="failed-removal" opacity="{op}">"#);
                cross(s, at);
                s.push_str("</g>");
                return;
            }
            let d = UNIT_R + 2.0;
            let path = format!(
                "M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}",
                at.0 - d,
                at.1 - d,
                at.0 + d,
                at.1 + d,
                at.0 - d,
                at.1 + d,
                at.0 + d,
                at.1 - d
            );
            let _ = write!(
                s,
                r##"<g class="removed" opacity="{op}"><path d="{path}" stroke="#FFFFFF" stroke-width="6" stroke-linecap="round"/><path d="{path}" stroke="{INK}" stroke-width="3" stroke-linecap="round"/></g>"##
            );
        }
        Order::Build { .. } | Order::Waive => {}
    }
}

/// The point a support of a move is drawn to: two thirds of the way along the move.
fn support_target(from: (f32, f32), dest: (f32, f32)) -> (f32, f32) {
    (from.0 + (dest.0 - from.0) * 0.66, from.1 + (dest.1 - from.1) * 0.66)
}

/// A box on the board (a text's extent): left, top, right, bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextBox {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

impl TextBox {
    /// The box of a text of `size` whose baseline is at `y`, centred on `x`.
    fn centred(x: f32, y: f32, size: f32, text: &str) -> TextBox {
        let w = text_width(text, size);
        TextBox { x0: x - w / 2.0, y0: y - size * 0.8, x1: x + w / 2.0, y1: y + size * 0.25 }
    }

    /// How far a point is from the box (negative inside it).
    fn dist(&self, p: (f32, f32)) -> f32 {
        let dx = (self.x0 - p.0).max(p.0 - self.x1);
        let dy = (self.y0 - p.1).max(p.1 - self.y1);
        if dx <= 0.0 && dy <= 0.0 {
            dx.max(dy)
        } else {
            (dx.max(0.0).powi(2) + dy.max(0.0).powi(2)).sqrt()
        }
    }

    /// The gap between two boxes (negative when they overlap).
    pub fn gap(&self, o: &TextBox) -> f32 {
        (self.x0 - o.x1).max(o.x0 - self.x1).max(self.y0 - o.y1).max(o.y0 - self.y1)
    }
}

/// About how wide the bold condensed font sets a text.
fn text_width(text: &str, size: f32) -> f32 {
    text.chars().count() as f32 * size * 0.62
}

/// Something already drawn that a dislodged unit and its text keep clear of.
#[derive(Clone, Copy, Debug)]
enum Mark {
    Disc((f32, f32), f32),
    Line((f32, f32), (f32, f32), f32),
    Text(TextBox),
}

impl Mark {
    /// The clearance between this mark and a disc (negative when they overlap).
    fn clear_of_disc(&self, c: (f32, f32), r: f32) -> f32 {
        match *self {
            Mark::Disc(p, pr) => dist(p, c) - pr - r,
            Mark::Line(a, b, w) => segment_dist(c, a, b) - w - r,
            Mark::Text(t) => t.dist(c) - r,
        }
    }

    /// The clearance between this mark and a box of text.
    fn clear_of_box(&self, t: &TextBox) -> f32 {
        match *self {
            Mark::Disc(p, pr) => t.dist(p) - pr,
            Mark::Line(a, b, w) => {
                let steps = (dist(a, b) / 2.0).ceil().max(1.0) as usize;
                (0..=steps)
                    .map(|i| {
                        let f = i as f32 / steps as f32;
                        t.dist((a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f))
                    })
                    .fold(f32::INFINITY, f32::min)
                    - w
            }
            Mark::Text(o) => t.gap(&o),
        }
    }
}

fn segment_dist(p: (f32, f32), a: (f32, f32), b: (f32, f32)) -> f32 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    if len2 < 1e-6 {
        return dist(p, a);
    }
    let t = (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0);
    dist(p, (a.0 + dx * t, a.1 + dy * t))
}

/// A dislodged unit as drawn: where it stands and where its retreat text goes.
#[derive(Clone, Debug, PartialEq)]
pub struct DislodgedMark {
    pub unit: Unit,
    pub at: (f32, f32),
    /// `retreat: Alb Tri`, or `no retreat`.
    pub text: String,
    pub text_box: TextBox,
}

/// What a board's marks are placed by: the dislodged units beside their provinces, each
/// clear of the orders, units, names and centers already drawn, and the boxes of the
/// province names.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardLayout {
    pub dislodged: Vec<DislodgedMark>,
    pub labels: Vec<TextBox>,
}

/// The box of each province name as `draw_board` writes it.
fn label_boxes(map: &Map, g: &Geometry) -> Vec<TextBox> {
    map.province_ids()
        .map(|p| {
            let (x, y) = px(g.labels[p.0 as usize]);
            TextBox::centred(x, y + 3.5, 10.0, &label_text(&map.province(p).key))
        })
        .collect()
}

/// The marks an order draws, with every dislodged unit still at home.
fn order_marks(map: &Map, g: &Geometry, b: &BoardScene, o: &SceneOrder, out: &mut Vec<Mark>) {
    let point = |r: &UnitRef<Place>| unit_point(map, g, b, None, r, false);
    let line = 3.0;
    match o.order {
        Order::Hold { unit } => out.push(Mark::Disc(point(&unit), UNIT_R + 10.0)),
        Order::Move { unit, to, .. } | Order::Retreat { unit, to } => {
            let dest = place_point(map, g, unit.kind.unwrap_or(UnitType::Army), to);
            out.push(Mark::Line(point(&unit), dest, line + 4.0));
        }
        Order::SupportHold { unit, supported } => {
            let to = point(&supported);
            out.push(Mark::Line(point(&unit), to, line));
            out.push(Mark::Disc(to, UNIT_R + 8.0));
        }
        Order::SupportMove { unit, supported, to } => {
            let dest = place_point(map, g, supported.kind.unwrap_or(UnitType::Army), to);
            let target = support_target(point(&supported), dest);
            out.push(Mark::Line(point(&unit), target, line));
        }
        Order::Convoy { unit, army, to } => {
            let fleet = point(&unit);
            out.push(Mark::Line(point(&army), fleet, line));
            out.push(Mark::Line(fleet, place_point(map, g, UnitType::Army, to), line));
        }
        Order::Disband { unit } => out.push(Mark::Disc(point(&unit), UNIT_R + 6.0)),
        Order::Build { kind, at } => {
            let r = region_of(map, kind.unwrap_or(UnitType::Army), at).unwrap_or(map.province(at.province).main_region);
            out.push(Mark::Disc(unit_at(g, r), UNIT_R + 12.0));
        }
        Order::Waive => {}
    }
}

/// Place each dislodged unit of a board beside its province where it covers no order,
/// unit, name or center mark (the free spot nearest the side away from the attack), and
/// its retreat text where it covers none of them either.
pub fn layout(map: &Map, g: &Geometry, b: &BoardScene) -> BoardLayout {
    let labels = label_boxes(map, g);
    let (bw, bh) = (g.width * CELL, g.height * CELL);
    let mut marks: Vec<Mark> = labels.iter().map(|t| Mark::Text(*t)).collect();
    for p in map.province_ids() {
        if let Some(c) = g.centers[p.0 as usize] {
            marks.push(Mark::Disc(px(c), 6.0));
        }
    }
    for r in 0..map.region_count() {
        if map.region(RegionId(r as u16)).coast.is_some() {
            let (x, y) = unit_at(g, RegionId(r as u16));
            marks.push(Mark::Text(TextBox::centred(x, y + 16.0, 8.0, "nc")));
        }
    }
    let is_dislodged = |u: &Unit| b.dislodged.iter().any(|d| d.unit == *u);
    for u in b.units.iter().filter(|u| !is_dislodged(u)) {
        marks.push(Mark::Disc(unit_at(g, u.region), UNIT_R + 2.0));
    }
    // The dislodged units' own orders are drawn from where they will stand.
    let own = |o: &SceneOrder| {
        matches!(o.order, Order::Retreat { .. } | Order::Disband { .. })
            || o.order
                .unit()
                .is_some_and(|r| b.dislodged.iter().any(|d| map.province_of(d.unit.region) == r.at.province))
    };
    for o in b.orders.iter().filter(|o| !own(o)) {
        order_marks(map, g, b, o, &mut marks);
    }
    let mut placed = Vec::with_capacity(b.dislodged.len());
    for d in &b.dislodged {
        let home = unit_at(g, d.unit.region);
        // The attack came from where a carried-out move into the province started.
        let from = b.orders.iter().find_map(|o| match o.order {
            Order::Move { unit, to, .. }
                if o.outcome.carried_out() && to.province == map.province_of(d.unit.region) =>
            {
                Some(unit_point(map, g, b, None, &unit, false))
            }
            _ => None,
        });
        let away = match from {
            Some(f) if dist(f, home) > 1.0 => ((home.0 - f.0) / dist(f, home), (home.1 - f.1) / dist(f, home)),
            _ => (0.78, 0.63),
        };
        // The unit with its red outline and a little air, or with the ring and the cross
        // of its own hold, or the ring of a support to hold it.
        let province = map.province_of(d.unit.region);
        let ringed = b.orders.iter().any(|o| match o.order {
            Order::Hold { unit } => unit.at.province == province && o.outcome != Outcome::Default,
            Order::SupportHold { supported, .. } => supported.at.province == province,
            _ => false,
        });
        let r = if ringed { UNIT_R + 8.0 } else { UNIT_R + 3.5 };
        // Room for the arrow of its own retreat.
        let retreat_to: Vec<Mark> = b
            .orders
            .iter()
            .filter_map(|o| match o.order {
                Order::Retreat { unit, to } if unit.at.province == province => {
                    Some(Mark::Disc(place_point(map, g, d.unit.kind, to), 2.0 * UNIT_R + 12.0))
                }
                _ => None,
            })
            .collect();
        let own_cross = b.orders.iter().any(|o| {
            !o.outcome.carried_out() && matches!(o.order, Order::Hold { unit } if unit.at.province == province)
        });
        let names: Vec<String> = d.options.iter().map(|o| label_text(&map.region_name(*o))).collect();
        let text = if names.is_empty() { "no retreat".to_string() } else { format!("retreat: {}", names.join(" ")) };
        let w = text_width(&text, RETREAT_TEXT);
        let fit = |x: f32| x.clamp(w / 2.0 + 2.0, (bw - w / 2.0 - 2.0).max(w / 2.0 + 2.0));
        // The unit and its text are placed together: of the spots near the province,
        // nearest first, the first where both are clear by a few pixels, or else the
        // clearest.
        let mut spots: Vec<((f32, f32), f32)> = Vec::new();
        let (near, far, step) = (2.0 * UNIT_R + 4.0, 7.0 * UNIT_R, 3.0);
        let n = (far / step) as i32;
        for i in -n..=n {
            for j in -n..=n {
                let at = (home.0 + i as f32 * step, home.1 + j as f32 * step);
                let reach = dist(at, home);
                if !(near..=far).contains(&reach) {
                    continue;
                }
                let frame = (at.0 - EDGE).min(bw - EDGE - at.0).min(at.1 - EDGE).min(bh - EDGE - at.1);
                let clear = marks.iter().chain(&retreat_to).map(|m| m.clear_of_disc(at, r)).fold(frame, f32::min);
                // Nearer is better; on the side away from the attack a little better.
                let side = (at.0 - home.0) * away.0 + (at.1 - home.1) * away.1;
                spots.push((at, clear.min(3.0) * 100.0 - reach + side * 0.25));
            }
        }
        spots.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut best: Option<((f32, f32), TextBox, f32)> = None;
        for &(at, _) in spots.iter().take(160) {
            let unit_clear =
                marks.iter().chain(&retreat_to).map(|m| m.clear_of_disc(at, r)).fold(f32::INFINITY, f32::min);
            if best.as_ref().is_some_and(|b| unit_clear.min(2.0) <= b.2) {
                continue;
            }
            let texts = [
                (at.0, at.1 + r + RETREAT_TEXT * 0.6),
                (at.0, at.1 - r - 3.0),
                (at.0 + r + 2.0 + w / 2.0, at.1 + 4.0),
                (at.0 - r - 2.0 - w / 2.0, at.1 + 4.0),
            ];
            for (x, y) in texts {
                let y = y.clamp(RETREAT_TEXT + 2.0, bh - 4.0);
                let t = TextBox::centred(fit(x), y, RETREAT_TEXT, &text);
                let mut clear = marks.iter().map(|m| m.clear_of_box(&t)).fold(unit_clear, f32::min);
                if own_cross {
                    clear = clear.min(Mark::Disc((at.0 + 10.0, at.1 - 10.0), 8.0).clear_of_box(&t));
                }
                let score = clear.min(2.0);
                if best.as_ref().is_none_or(|b| score > b.2) {
                    best = Some((at, t, score));
                }
            }
        }
        let (at, text_box) = best.map_or_else(
            || (home, TextBox::centred(home.0, home.1 + r + RETREAT_TEXT, RETREAT_TEXT, &text)),
            |b| (b.0, b.1),
        );
        marks.push(Mark::Disc(at, r));
        marks.push(Mark::Text(text_box));
        placed.push(DislodgedMark { unit: d.unit, at, text, text_box });
    }
    BoardLayout { dislodged: placed, labels }
}

fn draw_legend(s: &mut String, map: &Map, b: &BoardScene, x0: f32, y0: f32, key: bool) {
    let after = units_after(map, b);
    let y = y0 + 16.0;
    let _ = write!(
        s,
        r##"<g font-size="12" fill="{INK}"><text x="{}" y="{y}">Power</text><text x="{}" y="{y}" text-anchor="end">Centers</text><text x="{}" y="{y}" text-anchor="end">Units</text>"##,
        x0 + 22.0,
        x0 + 190.0,
        x0 + 250.0
    );
    for (i, p) in map.power_ids().enumerate() {
        let y = y0 + 16.0 + ROW_H * (i as f32 + 1.0);
        let centers = b.ownership.count(p);
        let units = after.iter().filter(|u| u.power == p).count();
        let _ = write!(
            s,
            r#"<rect x="{x0}" y="{:.1}" width="14" height="14" fill="{}" stroke="{INK}" stroke-width="1"/><text x="{}" y="{y}">{}</text><text x="{}" y="{y}" text-anchor="end">{centers}</text><text x="{}" y="{y}" text-anchor="end">{units}</text>"#,
            y - 12.0,
            colour(p),
            x0 + 22.0,
            esc(&map.power(p).name),
            x0 + 190.0,
            x0 + 250.0
        );
    }
    s.push_str("</g>");
    if key {
        draw_key(s, x0 + 300.0, y0 + 4.0);
    }
}

/// What the marks mean.
fn draw_key(s: &mut String, x: f32, y: f32) {
    let grey = PowerId(3);
    let ink = colour(grey);
    let row = |i: f32| y + 12.0 + i * ROW_H;
    draw_unit(s, &Unit { power: grey, kind: UnitType::Army, region: RegionId(0) }, (x + 10.0, row(0.0)), 1.0, false);
    draw_unit(s, &Unit { power: grey, kind: UnitType::Fleet, region: RegionId(0) }, (x + 10.0, row(1.0)), 1.0, false);
    arrow(s, (x, row(2.0)), (x + 30.0, row(2.0)), ink, 1.0);
    cased_line(s, &[(x, row(3.0)), (x + 30.0, row(3.0))], ink, 2.2, "5 3", 1.0);
    cased_line(s, &[(x, row(4.0)), (x + 30.0, row(4.0))], ink, 2.2, "1 5", 1.0);
    ring(s, (x + 10.0, row(5.0)), 7.0, ink, "", 1.0);
    cross(s, (x + 10.0, row(6.0)));
    let texts = ["army", "fleet", "move, retreat", "support", "convoy", "hold", "order failed"];
    let _ = write!(s, r#"<g font-size="12" fill="{INK}">"#);
    for (i, t) in texts.iter().enumerate() {
        let _ = write!(s, r#"<text x="{}" y="{:.1}">{t}</text>"#, x + 40.0, row(i as f32) + 4.0);
    }
    let col = x + 170.0;
    draw_unit(s, &Unit { power: grey, kind: UnitType::Army, region: RegionId(0) }, (col + 10.0, row(0.0)), 1.0, true);
    let _ = write!(s, r#"<text x="{}" y="{:.1}">dislodged</text>"#, col + 40.0, row(0.0) + 4.0);
    badge(s, (col + 10.0, row(1.0)), "+", 1.0);
    let _ = write!(s, r#"<text x="{}" y="{:.1}">built</text>"#, col + 40.0, row(1.0) + 4.0);
    badge(s, (col + 10.0, row(4.0)), "?", 1.0);
    let _ = write!(s, r#"<text x="{}" y="{:.1}">no order: held</text>"#, col + 40.0, row(4.0) + 4.0);
    let _ = write!(
        s,
        r##"<circle cx="{}" cy="{:.1}" r="4.5" fill="#FFFFFF" stroke="{INK}" stroke-width="1.2"/><text x="{}" y="{:.1}">supply center, by owner</text>"##,
        col + 10.0,
        row(2.0),
        col + 40.0,
        row(2.0) + 4.0
    );
    s.push_str("</g>");
    let d = 7.0;
    let (cx, cy) = (col + 10.0, row(3.0));
    let path = format!("M{} {}L{} {}M{} {}L{} {}", cx - d, cy - d, cx + d, cy + d, cx - d, cy + d, cx + d, cy - d);
    let _ = write!(
        s,
        r#"<path d="{path}" stroke="{INK}" stroke-width="3" stroke-linecap="round"/><text x="{}" y="{:.1}" font-size="12" fill="{INK}">removed, disbanded</text>"#,
        col + 40.0,
        cy + 4.0
    );
}

fn draw_ledger(s: &mut String, map: &Map, scene: &Scene, y0: f32) {
    let x0 = MARGIN;
    let _ = write!(s, r#"<text x="{x0}" y="{}" font-size="16" fill="{INK}">Ledger</text>"#, y0 + 18.0);
    let cols: [(&str, f32); 9] = [
        ("Power", 0.0),
        ("Centers A", 260.0),
        ("Centers B", 340.0),
        ("Doubled homes", 460.0),
        ("Control list", 560.0),
        ("Count", 620.0),
        ("Units A", 690.0),
        ("Units B", 760.0),
        ("Change", 830.0),
    ];
    let y = y0 + 30.0 + 14.0;
    let _ = write!(s, r#"<g font-size="12" fill="{INK}">"#);
    for (i, (name, x)) in cols.iter().enumerate() {
        let anchor = if i == 0 { "start" } else { "end" };
        let _ = write!(
            s,
            r#"<text x="{}" y="{y}" text-anchor="{anchor}">{name}</text>"#,
            x0 + x + if i == 0 { 22.0 } else { 0.0 }
        );
    }
    for (i, l) in scene.ledger.iter().enumerate() {
        let y = y + ROW_H * (i as f32 + 1.0);
        let change = if l.delta > 0 { format!("+{}", l.delta) } else { l.delta.to_string() };
        let values = [
            l.power.clone(),
            l.centers_a.len().to_string(),
            l.centers_b.len().to_string(),
            l.doubled.len().to_string(),
            l.control_list.to_string(),
            l.count.to_string(),
            l.units_a.to_string(),
            l.units_b.to_string(),
            change,
        ];
        for (j, ((_, x), v)) in cols.iter().zip(values.iter()).enumerate() {
            let anchor = if j == 0 { "start" } else { "end" };
            let _ = write!(
                s,
                r#"<text x="{}" y="{y}" text-anchor="{anchor}">{}</text>"#,
                x0 + x + if j == 0 { 22.0 } else { 0.0 },
                esc(v)
            );
        }
        let _ = write!(
            s,
            r#"<rect x="{x0}" y="{:.1}" width="14" height="14" fill="{}" stroke="{INK}"/>"#,
            y - 12.0,
            map.lookup_power(&l.power).map_or("#FFFFFF", colour)
        );
    }
    s.push_str("</g>");
}
