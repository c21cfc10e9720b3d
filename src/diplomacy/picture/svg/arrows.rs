//! Where the arrow of a move or a retreat starts and ends: from the edge of the unit's
//! mark (past its own province's name and center dot when the line would start on them),
//! to a head short of the place it goes to, clear of every name and center dot there.
//!
//! The arrow keeps its line from the unit to the place; only its two ends move along it,
//! so it still points at the place. Everything is computed from the scene alone: one scene
//! gives one picture.

use super::layout::{BoardLayout, TextBox};
use super::marks::{dist, towards};
use super::units::{place_point, unit_point};
use super::{px, UNIT_R};
use crate::diplomacy::map::{Map, ProvinceId, UnitType};
use crate::diplomacy::order::Order;
use crate::diplomacy::picture::geometry::Geometry;
use crate::diplomacy::picture::scene::{BoardScene, SceneOrder};

/// The length of an arrow's head, and its half width at its base with the casing.
pub const HEAD_LEN: f32 = 9.0;
const HEAD_HALF: f32 = HEAD_LEN * 0.55 + 0.6;
/// Half the width of an arrow's line with its dark casing.
const LINE_HALF: f32 = (3.0 + 2.4) / 2.0;
/// The radius of a center dot with its outline.
pub const DOT_R: f32 = 4.5 + 0.6;
/// How far the head keeps from any name or center dot, when it can.
pub const HEAD_CLEAR: f32 = 2.0;
/// Where the tip stops short of the place when nothing is in its way (a unit standing
/// there shows under the tip's point), and how far back it may go to keep clear.
const TIP_SHORT: f32 = 6.0;
const TIP_BACK_MAX: f32 = 40.0;
/// How far beside the place an arrow may be aimed, in steps of so many pixels, and what
/// a pixel aside costs against a pixel drawn back.
const AIM_MAX: f32 = 12.0;
const AIM_STEP: f32 = 2.0;
const AIM_COST: f32 = 1.5;
/// How far past the unit's mark the line may start to keep off its own name and dot.
const START_PUSH_MAX: f32 = 30.0;
/// The shortest line an arrow keeps between its start and its head.
const MIN_LINE: f32 = 10.0;

/// The two ends of an arrow: where its line starts and where the tip of its head is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArrowEnds {
    pub from: (f32, f32),
    pub to: (f32, f32),
}

/// One way to end an arrow: aimed at `aim`, its tip `back` short of it; `level` 2 when its
/// head and start are clear, 1 when its head is, 0 when neither (its head `clear` by so
/// much); `cost`, how far it strays from the place.
#[derive(Clone, Copy)]
struct Candidate {
    level: u8,
    cost: f32,
    clear: f32,
    aim: (f32, f32),
    back: f32,
}

/// Something an arrow's ends keep clear of.
#[derive(Clone, Copy, Debug)]
enum Obstacle {
    Name(TextBox),
    Dot((f32, f32)),
}

impl Obstacle {
    /// How far a disc of radius `r` at `p` is from this (negative when they overlap).
    fn clear(&self, p: (f32, f32), r: f32) -> f32 {
        match *self {
            Obstacle::Name(t) => t.dist(p) - r,
            Obstacle::Dot(c) => dist(p, c) - DOT_R - r,
        }
    }
}

/// The names and center dots of the board within `reach` of `near` (all of them for a
/// province when `only` names it).
fn obstacles(
    map: &Map,
    g: &Geometry,
    layout: &BoardLayout,
    near: (f32, f32),
    reach: f32,
    only: Option<ProvinceId>,
) -> Vec<Obstacle> {
    let mut out = Vec::new();
    for p in map.province_ids() {
        if only.is_some_and(|o| o != p) {
            continue;
        }
        if let Some(t) = layout.labels.get(p.0 as usize) {
            if t.dist(near) <= reach {
                out.push(Obstacle::Name(*t));
            }
        }
        if let Some(c) = g.centers.get(p.0 as usize).copied().flatten() {
            let c = px(c);
            if dist(c, near) <= reach + DOT_R {
                out.push(Obstacle::Dot(c));
            }
        }
    }
    out
}

/// How far the head whose tip is at `tip`, pointing away from `back`, keeps from the
/// obstacles: the head is covered by discs along its axis, as wide as it is there.
pub fn head_clearance_of(tip: (f32, f32), back: (f32, f32), clear: impl Fn((f32, f32), f32) -> f32) -> f32 {
    (0..=6)
        .map(|k| {
            let f = k as f32 / 6.0;
            let p = towards(tip, back, HEAD_LEN * f);
            clear(p, 0.6 + (HEAD_HALF - 0.6) * f)
        })
        .fold(f32::INFINITY, f32::min)
}

fn clearance(obstacles: &[Obstacle], p: (f32, f32), r: f32) -> f32 {
    obstacles.iter().map(|o| o.clear(p, r)).fold(f32::INFINITY, f32::min)
}

/// How far the line must start from the centre of a unit of `kind` going towards `to`
/// to begin clear of its mark: a circle for an army, a hull (as wide as 1.45 times the
/// radius, as high as 0.85 times) for a fleet; and 3 pixels of air.
fn mark_gap(kind: UnitType, from: (f32, f32), to: (f32, f32)) -> f32 {
    match kind {
        UnitType::Army => UNIT_R + 3.0,
        UnitType::Fleet => {
            let d = dist(from, to).max(1e-3);
            let (dx, dy) = (((to.0 - from.0) / d).abs(), ((to.1 - from.1) / d).abs());
            let (w, h) = (UNIT_R * 1.45, UNIT_R * 0.85);
            let out =
                (if dx > 1e-3 { w / dx } else { f32::INFINITY }).min(if dy > 1e-3 { h / dy } else { f32::INFINITY });
            out + LINE_HALF + 1.0
        }
    }
}

/// The ends of the arrow of a move or a retreat, as drawn; `None` for any other order.
pub fn arrow_ends(map: &Map, g: &Geometry, b: &BoardScene, layout: &BoardLayout, o: &SceneOrder) -> Option<ArrowEnds> {
    let (unit, to, retreat) = match o.order {
        Order::Move { unit, to, .. } => (unit, to, false),
        Order::Retreat { unit, to } => (unit, to, true),
        _ => return None,
    };
    let from = unit_point(map, g, b, Some(layout), &unit, retreat);
    let kind = unit.kind.unwrap_or(UnitType::Army);
    // The mark the unit is drawn with (a retreat's is the dislodged unit's).
    let here = |u: &crate::diplomacy::judge::Unit| map.province_of(u.region) == unit.at.province;
    let mark = if retreat { b.dislodged.iter().map(|d| d.unit).find(here) } else { b.units.iter().copied().find(here) }
        .map_or(kind, |u| u.kind);
    let dest = place_point(map, g, kind, to);
    let len = dist(from, dest);
    // Two units side by side keep at least a head between them.
    let start = mark_gap(mark, from, dest).min((len - TIP_SHORT - HEAD_LEN).max(UNIT_R + 3.0));
    // The head: the tip as near the place as it can be while clear of every name and dot
    // near it: drawn back along the line, or the line turned a little about the unit
    // (aimed a few pixels beside the place); or else where it is clearest. Never so far
    // back that no line is left.
    let around = obstacles(map, g, layout, dest, TIP_BACK_MAX + HEAD_LEN + AIM_MAX + 20.0, None);
    let own = obstacles(map, g, layout, from, START_PUSH_MAX + 20.0, Some(unit.at.province));
    // The start on a line aimed at `aim` whose tip is `back` short of it: past the unit's
    // mark, and past its own name and dot when the first stretch of the line would lie on
    // them, as far as leaves the line its length; and whether the line starts clear.
    let start_on = |aim: (f32, f32), back: f32| {
        let first_clear = |s: f32| {
            (0..=4)
                .map(|k| clearance(&own, towards(from, aim, s + k as f32 * 3.0), LINE_HALF))
                .fold(f32::INFINITY, f32::min)
        };
        if first_clear(start) >= 1.0 {
            return (start, true);
        }
        let push_max = START_PUSH_MAX.min(dist(from, aim) - back - HEAD_LEN - MIN_LINE - start);
        (1..=push_max.max(0.0).floor() as usize)
            .map(|i| start + i as f32)
            .find(|s| first_clear(*s) >= 1.0)
            .map_or((start, false), |s| (s, true))
    };
    let (nx, ny) = if len > 1e-3 { (-(dest.1 - from.1) / len, (dest.0 - from.0) / len) } else { (0.0, 0.0) };
    let back_max = TIP_BACK_MAX.min(len - start - HEAD_LEN - MIN_LINE);
    // Of the lines aimed at the place or a few pixels beside it (the line turned a little
    // about the unit), each with its tip drawn back from its aim: the cheapest whose head
    // and start are both clear, or else whose head is, or else the one whose head is
    // clearest. A pixel aside costs more than a pixel back.
    let mut best: Option<Candidate> = None;
    let aims = if back_max > TIP_SHORT { (AIM_MAX / AIM_STEP) as i32 } else { 0 };
    for j in 0..=2 * aims {
        // 0, +1, -1, +2, -2, ... steps aside.
        let k = if j % 2 == 1 { (j + 1) / 2 } else { -(j / 2) };
        let off = k as f32 * AIM_STEP;
        let aim = (dest.0 + nx * off, dest.1 + ny * off);
        let steps = (back_max - TIP_SHORT).max(0.0).floor() as usize;
        for i in 0..=steps {
            let back = TIP_SHORT + i as f32;
            let cost = back + AIM_COST * off.abs();
            if best.is_some_and(|b| b.level == 2 && b.cost <= cost) {
                break;
            }
            let tip = towards(aim, from, back);
            let c = head_clearance_of(tip, from, |p, r| clearance(&around, p, r));
            let level = if c >= HEAD_CLEAR { 1 + u8::from(start_on(aim, back).1) } else { 0 };
            let better = best.is_none_or(|b| {
                level > b.level || (level == b.level && if level > 0 { cost < b.cost } else { c > b.clear })
            });
            if better {
                best = Some(Candidate { level, cost, clear: c, aim, back });
            }
        }
    }
    let (aim, tip_back) = best.map_or((dest, TIP_SHORT), |b| (b.aim, b.back));
    let tip = towards(aim, from, tip_back);
    let (start_at, _) = start_on(aim, tip_back);
    Some(ArrowEnds { from: towards(from, aim, start_at), to: tip })
}
