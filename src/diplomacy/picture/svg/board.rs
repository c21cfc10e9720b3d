//! One board: the land tinted by its controllers, the center marks and coast names, the
//! units, builds and dislodged units, the orders on top, and the names last.

use std::fmt::Write;

use super::layout::layout;
use super::marks::{badge, cross, draw_unit};
use super::orders::draw_order;
use super::palette::{colour, tint, FAIL, IMPASSABLE, INK, LAND, OFFBOARD, SEA};
use super::units::{region_of, unit_at, units_after};
use super::{esc, px, CELL, LABEL_SIZE, RETREAT_TEXT, UNIT_R};
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, PowerId, RegionId, Terrain};
use crate::diplomacy::order::Order;
use crate::diplomacy::picture::geometry::Geometry;
use crate::diplomacy::picture::scene::{BoardScene, SceneOrder};

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

pub(super) fn draw_board(s: &mut String, map: &Map, g: &Geometry, b: &BoardScene) {
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
            r##"<text x="{x:.1}" y="{:.1}" font-size="{LABEL_SIZE}" text-anchor="middle" fill="{fill}" stroke="#FFFFFF" stroke-width="2.5" stroke-opacity="0.8" paint-order="stroke">{}</text>"##,
            y + LABEL_SIZE * 0.35,
            esc(&label_text(&prov.key))
        );
    }
}

/// `par` -> `Par`, `stp/sc` -> `Stp/sc`.
pub(super) fn label_text(key: &str) -> String {
    let mut c = key.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn halo_text(s: &mut String, x: f32, y: f32, size: f32, fill: &str, text: &str) {
    let _ = write!(
        s,
        r##"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="middle" fill="{fill}" stroke="#FFFFFF" stroke-width="3" paint-order="stroke">{}</text>"##,
        esc(text)
    );
}
