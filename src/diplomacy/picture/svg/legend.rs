//! The legend under a board: each power with its centers and units, and, under the
//! first board, the key to the marks.

use std::fmt::Write;

use super::marks::{arrow, badge, cased_line, cross, draw_unit, ring};
use super::palette::{colour, INK};
use super::units::units_after;
use super::{esc, ROW_H};
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, PowerId, RegionId, UnitType};
use crate::diplomacy::picture::scene::BoardScene;

pub(super) fn draw_legend(s: &mut String, map: &Map, b: &BoardScene, x0: f32, y0: f32, key: bool) {
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
