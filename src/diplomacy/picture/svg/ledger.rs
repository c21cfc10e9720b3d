//! The Shadow Worlds ledger under the boards: each power's centers, doubled homes,
//! control list, count and units.

use std::fmt::Write;

use super::palette::{colour, INK};
use super::{esc, MARGIN, ROW_H};
use crate::diplomacy::map::Map;
use crate::diplomacy::picture::scene::Scene;

pub(super) fn draw_ledger(s: &mut String, map: &Map, scene: &Scene, y0: f32) {
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
