//! Each order drawn as marks, in its power's colour, faint when void, crossed when it
//! failed.

use std::fmt::Write;

use super::arrows::{arrow_ends, ArrowEnds};
use super::layout::BoardLayout;
use super::marks::{arrow, badge, cased_line, cross, dist, ring, towards};
use super::palette::{colour, INK};
use super::units::{place_point, unit_point};
use super::UNIT_R;
use crate::diplomacy::map::{Map, UnitType};
use crate::diplomacy::order::{Order, Place, UnitRef};
use crate::diplomacy::picture::geometry::Geometry;
use crate::diplomacy::picture::scene::{BoardScene, Outcome, SceneOrder};

fn style(o: &SceneOrder) -> (&'static str, f32) {
    let c = colour(o.power);
    match o.outcome {
        Outcome::Succeeded | Outcome::Default => (c, 1.0),
        Outcome::Failed => (c, 0.8),
        Outcome::Void => (c, 0.5),
    }
}

pub(super) fn draw_order(
    s: &mut String,
    map: &Map,
    g: &Geometry,
    b: &BoardScene,
    layout: &BoardLayout,
    o: &SceneOrder,
) {
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
        Order::Move { .. } | Order::Retreat { .. } => {
            let Some(ArrowEnds { from: a, to: z }) = arrow_ends(map, g, b, layout, o) else { return };
            arrow(s, a, z, c, op);
            if failed {
                // At the base of the head.
                cross(s, towards(z, a, 10.0));
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
pub(super) fn support_target(from: (f32, f32), dest: (f32, f32)) -> (f32, f32) {
    (from.0 + (dest.0 - from.0) * 0.66, from.1 + (dest.1 - from.1) * 0.66)
}
