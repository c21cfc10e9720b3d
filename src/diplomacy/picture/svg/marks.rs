//! The marks orders and units are drawn with: a unit, a badge, a cased line, an arrow,
//! a cross, a ring; and the distances between points.

use std::fmt::Write;

use super::palette::{colour, letter_colour, FAIL, INK};
use super::UNIT_R;
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::UnitType;

pub(super) fn badge(s: &mut String, (x, y): (f32, f32), text: &str, opacity: f32) {
    let _ = write!(
        s,
        r##"<g opacity="{opacity}"><circle cx="{x:.1}" cy="{y:.1}" r="6" fill="#FFFFFF" stroke="{INK}" stroke-width="1.2"/><text x="{x:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="{INK}">{text}</text></g>"##,
        y + 4.0
    );
}

pub(super) fn draw_unit(s: &mut String, u: &Unit, (x, y): (f32, f32), opacity: f32, dislodged: bool) {
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

pub(super) fn towards(a: (f32, f32), b: (f32, f32), d: f32) -> (f32, f32) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1e-3 {
        return a;
    }
    (a.0 + dx / len * d, a.1 + dy / len * d)
}

pub(super) fn dist(a: (f32, f32), b: (f32, f32)) -> f32 {
    ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt()
}

/// A line with a dark casing, so light colours read on light land.
pub(super) fn cased_line(s: &mut String, pts: &[(f32, f32)], colour: &str, width: f32, dash: &str, opacity: f32) {
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

pub(super) fn arrow(s: &mut String, from: (f32, f32), to: (f32, f32), colour: &str, opacity: f32) {
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
pub(super) fn cross(s: &mut String, (x, y): (f32, f32)) {
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

pub(super) fn ring(s: &mut String, (x, y): (f32, f32), r: f32, colour: &str, dash: &str, opacity: f32) {
    let dash_attr = if dash.is_empty() { String::new() } else { format!(r#" stroke-dasharray="{dash}""#) };
    let _ = write!(
        s,
        r#"<g opacity="{opacity}" fill="none"><circle cx="{x:.1}" cy="{y:.1}" r="{r}" stroke="{INK}" stroke-width="4.4"{dash_attr}/><circle cx="{x:.1}" cy="{y:.1}" r="{r}" stroke="{colour}" stroke-width="2.2"{dash_attr}/></g>"#
    );
}
