//! The orders each orderable place may be given this phase, written as MILA writes them
//! (`A PAR - BUR`, `A LON - BRE VIA`, `F MAO S A PAR - BRE`, `F ENG C A LON - BRE`,
//! `A PAR R BUR`, `A PAR D`, `A PAR B`, `WAIVE`): every order the judge would carry out,
//! so any of them may be given to `set_orders` as it is.
use std::collections::HashSet;

use shadowjudge::diplomacy::state::BoardState;
use shadowjudge::diplomacy::judge::legality::UnitIndex;
use shadowjudge::diplomacy::judge::Unit;
use shadowjudge::diplomacy::map::{Map, PowerId, ProvinceId, Terrain, UnitType};
use shadowjudge::diplomacy::order::{Board, Order, Place, UnitRef};
use shadowjudge::phase::PhaseKind;

use crate::game::{kind, standard, Game};

/// (power, place, its orders), places in the order of the power's units.
pub type Possible = Vec<(PowerId, String, Vec<String>)>;

pub fn orders(g: &Game, powers: &[PowerId]) -> Possible {
    let mut out = Possible::new();
    if g.inner.state.end.is_some() {
        return out;
    }
    match kind(g) {
        PhaseKind::Movement => {
            for (b, state) in g.inner.state.boards.iter().enumerate() {
                movement(g, Board(b as u8), state, powers, &mut out);
            }
        }
        PhaseKind::Retreats => {
            for (b, state) in g.inner.state.boards.iter().enumerate() {
                let suffix = g.suffix(Board(b as u8), false);
                for r in state.retreating.iter().filter(|r| powers.contains(&r.dislodgement.unit.power)) {
                    let u = unit_text(g, &r.dislodgement.unit);
                    let mut list: Vec<String> =
                        r.options.iter().map(|o| format!("{u} R {}{suffix}", g.region_name(*o))).collect();
                    list.push(format!("{u} D{suffix}"));
                    out.push((r.dislodgement.unit.power, place(g, &r.dislodgement.unit, &suffix), list));
                }
            }
        }
        PhaseKind::Adjustments => {
            for &p in powers.iter().filter(|p| g.inner.has_duty(**p)) {
                winter(g, p, &mut out);
            }
        }
    }
    out
}

fn unit_text(g: &Game, u: &Unit) -> String {
    format!("{} {}", u.kind.letter(), g.region_name(u.region))
}

fn place(g: &Game, u: &Unit, suffix: &str) -> String {
    format!("{}{suffix}", g.province_name(g.inner.map.province_of(u.region)))
}

/// The seas a convoy of the army in `from` could pass through (occupied by fleets,
/// connected, one of them next to `from`), and the coasts it could land on.
fn convoy_reach(
    map: &Map,
    fleets_at_sea: &HashSet<ProvinceId>,
    from: ProvinceId,
) -> (HashSet<ProvinceId>, Vec<ProvinceId>) {
    let mut seas: HashSet<ProvinceId> = HashSet::new();
    let mut stack: Vec<ProvinceId> =
        fleets_at_sea.iter().copied().filter(|s| map.provinces_adjacent(from, *s)).collect();
    while let Some(s) = stack.pop() {
        if seas.insert(s) {
            stack.extend(fleets_at_sea.iter().copied().filter(|t| !seas.contains(t) && map.provinces_adjacent(s, *t)));
        }
    }
    let mut coasts: Vec<ProvinceId> = map
        .province_ids()
        .filter(|c| *c != from && map.province(*c).terrain == Terrain::Coast)
        .filter(|c| map.region(map.province(*c).main_region).army_can_stand)
        .filter(|c| seas.iter().any(|s| map.provinces_adjacent(*s, *c)))
        .collect();
    coasts.sort();
    (seas, coasts)
}

fn movement(g: &Game, board: Board, state: &BoardState, powers: &[PowerId], out: &mut Possible) {
    let map: &Map = &g.inner.map;
    let rules = &g.inner.settings.rules;
    let suffix = g.suffix(board, false);
    let fleets_at_sea: HashSet<ProvinceId> = state
        .units
        .iter()
        .filter(|u| u.kind == UnitType::Fleet)
        .map(|u| map.province_of(u.region))
        .filter(|p| map.province(*p).terrain == Terrain::Sea)
        .collect();
    // For every army on a coast: the seas and coasts a convoy could take it through and to
    // (a wide net: the judge's legality check below decides).
    let convoys: Vec<Option<(HashSet<ProvinceId>, Vec<ProvinceId>)>> = state
        .units
        .iter()
        .map(|u| {
            let at = map.province_of(u.region);
            (u.kind == UnitType::Army && map.province(at).terrain == Terrain::Coast && !fleets_at_sea.is_empty())
                .then(|| convoy_reach(map, &fleets_at_sea, at))
        })
        .collect();
    // Where each unit could go: provinces, by land or sea, or by convoy.
    let reach: Vec<Vec<ProvinceId>> = state
        .units
        .iter()
        .zip(&convoys)
        .map(|(u, c)| {
            let mut to: Vec<ProvinceId> = map.neighbours(u.kind, u.region).map(|r| map.province_of(r)).collect();
            if let Some((_, coasts)) = c {
                to.extend(coasts);
            }
            to.sort();
            to.dedup();
            to
        })
        .collect();
    let texts: Vec<String> = state.units.iter().map(|u| unit_text(g, u)).collect();
    let name = |p: ProvinceId| g.province_name(p);
    let index = UnitIndex::new(map, &state.units);
    let whole = |p: ProvinceId| Place { province: p, coast: None };
    let unit_ref = |u: &Unit| UnitRef {
        kind: Some(u.kind),
        at: Place { province: map.province_of(u.region), coast: map.region(u.region).coast },
    };
    for (i, u) in state.units.iter().enumerate().filter(|(_, u)| powers.contains(&u.power)) {
        let me = unit_ref(u);
        let at = me.at.province;
        let legal = |o: &Order<Place>| index.resolve_main_order(Some(u.power), o, rules).is_ok();
        let mine = &texts[i];
        let mut list = vec![format!("{mine} H{suffix}")];
        for r in map.neighbours(u.kind, u.region) {
            list.push(format!("{mine} - {}{suffix}", g.region_name(r)));
        }
        if let Some((_, coasts)) = &convoys[i] {
            for &c in coasts {
                if legal(&Order::Move { unit: me, to: whole(c), via_convoy: true }) {
                    list.push(format!("{mine} - {} VIA{suffix}", name(c)));
                }
            }
        }
        for (j, v) in state.units.iter().enumerate().filter(|(j, _)| *j != i) {
            let them = &texts[j];
            let supported = unit_ref(v);
            if map.can_reach_province(u.kind, u.region, supported.at.province)
                && legal(&Order::SupportHold { unit: me, supported })
            {
                list.push(format!("{mine} S {them}{suffix}"));
            }
            for &to in reach[j].iter().filter(|to| **to != at && map.can_reach_province(u.kind, u.region, **to)) {
                if legal(&Order::SupportMove { unit: me, supported, to: whole(to) }) {
                    list.push(format!("{mine} S {them} - {}{suffix}", name(to)));
                }
            }
            if u.kind == UnitType::Fleet && map.province(at).terrain == Terrain::Sea {
                if let Some((seas, coasts)) = &convoys[j] {
                    if seas.contains(&at) {
                        for &c in coasts {
                            if legal(&Order::Convoy { unit: me, army: supported, to: whole(c) }) {
                                list.push(format!("{mine} C {them} - {}{suffix}", name(c)));
                            }
                        }
                    }
                }
            }
        }
        out.push((u.power, place(g, u, &suffix), list));
    }
}

/// Winter: every build, removal and waive the judge would accept from this power alone,
/// as its preview of the adjustments says.
fn winter(g: &Game, power: PowerId, out: &mut Possible) {
    let map: &Map = &g.inner.map;
    let boards = g.inner.state.boards.len();
    let mut candidates: Vec<(String, String)> = Vec::new();
    for b in 0..boards {
        let board = Board(b as u8);
        let suffix = g.suffix(board, false);
        let state = &g.inner.state.boards[b];
        for &h in map.home_centers(power) {
            if state.units.iter().any(|u| map.province_of(u.region) == h) {
                continue;
            }
            let loc = format!("{}{suffix}", g.province_name(h));
            for r in map.regions_of(h) {
                for kind in [UnitType::Army, UnitType::Fleet] {
                    if map.unit_can_stand(kind, r) {
                        let order = format!("{} {} B{suffix}", kind.letter(), g.region_name(r));
                        candidates.push((loc.clone(), order));
                    }
                }
            }
        }
        for u in state.units.iter().filter(|u| u.power == power) {
            candidates.push((place(g, u, &suffix), format!("{} D{suffix}", unit_text(g, u))));
        }
    }
    let waive = accepted(g, power, "WAIVE");
    let mut places: Vec<(String, Vec<String>)> = Vec::new();
    for (loc, order) in candidates {
        if !accepted(g, power, &order) {
            continue;
        }
        match places.iter_mut().find(|(l, _)| *l == loc) {
            Some((_, list)) => list.push(order),
            None => places.push((loc, vec![order])),
        }
    }
    for (loc, mut list) in places {
        // A place to build at may also waive the build, as in MILA's lists.
        if waive && list.iter().any(|o| o.ends_with(" B") || o.contains(" B (")) {
            list.push("WAIVE".into());
        }
        out.push((power, loc, list));
    }
}

fn accepted(g: &Game, power: PowerId, order: &str) -> bool {
    let parsed = standard().parser.parse_orders(order);
    let Some(po) = parsed.orders.first() else { return false };
    if g.inner.check_order(power, po).is_err() {
        return false;
    }
    g.inner.preview_winter(power, &[po]).first().is_some_and(|(ok, _)| *ok)
}
