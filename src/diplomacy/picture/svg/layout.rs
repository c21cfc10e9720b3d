//! Where a board's dislodged units and their retreat text go: beside their province,
//! clear of the orders, units, names and centers already drawn.

use super::board::label_text;
use super::marks::dist;
use super::orders::support_target;
use super::units::{place_point, region_of, unit_at, unit_point};
use super::{px, CELL, EDGE, LABEL_SIZE, RETREAT_TEXT, UNIT_R};
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, RegionId, UnitType};
use crate::diplomacy::order::{Order, Place, UnitRef};
use crate::diplomacy::picture::geometry::Geometry;
use crate::diplomacy::picture::scene::{BoardScene, Outcome, SceneOrder};

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
    pub fn dist(&self, p: (f32, f32)) -> f32 {
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
            TextBox::centred(x, y + LABEL_SIZE * 0.35, LABEL_SIZE, &label_text(&map.province(p).key))
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
