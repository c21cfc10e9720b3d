//! Where units stand: at the end of the phase, in a region, and where an order names them.

use super::layout::BoardLayout;
use super::{px, CELL, EDGE};
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, RegionId, UnitType};
use crate::diplomacy::order::{Order, Place, UnitRef};
use crate::diplomacy::picture::geometry::Geometry;
use crate::diplomacy::picture::scene::BoardScene;

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
pub(super) fn region_of(map: &Map, kind: UnitType, at: Place) -> Option<RegionId> {
    map.region_for(kind, at.province, at.coast).or_else(|| Some(map.province(at.province).main_region))
}

/// Where a unit in region `r` is drawn: the geometry's point, kept far enough inside the
/// frame that the unit and its rings are never cut.
pub fn unit_at(g: &Geometry, r: RegionId) -> (f32, f32) {
    let (x, y) = px(g.units[r.0 as usize]);
    let (bw, bh) = (g.width * CELL, g.height * CELL);
    (x.clamp(EDGE, (bw - EDGE).max(EDGE)), y.clamp(EDGE, (bh - EDGE).max(EDGE)))
}

/// Where the unit a reference names stands on this board: its own region if a unit is
/// there, else the place as written. A dislodged unit is where `layout` put it (none
/// yet while the layout is being made).
pub(super) fn unit_point(
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

pub(super) fn place_point(map: &Map, g: &Geometry, kind: UnitType, at: Place) -> (f32, f32) {
    let r = match at.coast {
        Some(_) => region_of(map, kind, at),
        None => Some(map.province(at.province).main_region),
    };
    unit_at(g, r.unwrap_or(map.province(at.province).main_region))
}
