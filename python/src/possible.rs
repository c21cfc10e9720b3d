//! The orders each orderable place may be given this phase, written as MILA writes them
//! (`A PAR - BUR`, `A LON - BRE VIA`, `F MAO S A PAR - BRE`, `F ENG C A LON - BRE`,
//! `A PAR R BUR`, `A PAR D`, `A PAR B`, `WAIVE`): every order the judge would carry out,
//! so any of them may be given to `set_orders` as it is.
//!
//! An order is found as a [`Text`], a few numbers; its words are written once per
//! process and kept as a Python string (see `py_texts`), so a call mostly hands out
//! strings already made.
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, OnceLock};

use pyo3::prelude::*;
use pyo3::types::PyString;

use shadowjudge::diplomacy::judge::legality::UnitIndex;
use shadowjudge::diplomacy::judge::Unit;
use shadowjudge::diplomacy::map::{Map, PowerId, ProvinceId, RegionId, Terrain, UnitType};
use shadowjudge::diplomacy::order::grammar::ParsedOrder;
use shadowjudge::diplomacy::order::{Board, Order, Place, UnitRef};
use shadowjudge::diplomacy::state::BoardState;
use shadowjudge::phase::PhaseKind;

use crate::game::{kind, standard, Game};

/// (power, place, its orders), places in the order of the power's units.
pub type Possible = Vec<(PowerId, Text, Vec<Text>)>;

/// The board a name ends in: 0 none (a standard game), 1 `(A)`, 2 `(B)`.
type Suffix = u8;

/// One place or one order, as the numbers that say it (see [`Text::write`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Text {
    /// `PAR`.
    Place(ProvinceId, Suffix),
    /// `A PAR H`.
    Hold(UnitType, RegionId, Suffix),
    /// `A PAR - BUR`.
    Move(UnitType, RegionId, RegionId, Suffix),
    /// `A LON - BRE VIA`.
    Via(UnitType, RegionId, ProvinceId, Suffix),
    /// `A MUN S A BUR`.
    SupportHold(UnitType, RegionId, UnitType, RegionId, Suffix),
    /// `F MAO S A PAR - BRE`.
    SupportMove(UnitType, RegionId, UnitType, RegionId, ProvinceId, Suffix),
    /// `F ENG C A LON - BRE`.
    Convoy(UnitType, RegionId, UnitType, RegionId, ProvinceId, Suffix),
    /// `A PAR R BUR`.
    Retreat(UnitType, RegionId, RegionId, Suffix),
    /// `A PAR D`: a disband in a retreat phase, a removal in Winter.
    Disband(UnitType, RegionId, Suffix),
    /// `A PAR B`.
    Build(UnitType, RegionId, Suffix),
    /// `WAIVE`.
    Waive,
}

impl Text {
    /// The words, as MILA writes them.
    pub fn write(self) -> String {
        let s = standard();
        let region = |r: RegionId| s.regions[r.0 as usize].as_str();
        let province = |p: ProvinceId| s.provinces[p.0 as usize].as_str();
        let unit = |k: UnitType, r: RegionId| format!("{} {}", k.letter(), region(r));
        let end = |b: Suffix| match b {
            1 => " (A)",
            2 => " (B)",
            _ => "",
        };
        match self {
            Text::Place(p, b) => format!("{}{}", province(p), end(b)),
            Text::Hold(k, r, b) => format!("{} H{}", unit(k, r), end(b)),
            Text::Move(k, r, to, b) => format!("{} - {}{}", unit(k, r), region(to), end(b)),
            Text::Via(k, r, to, b) => format!("{} - {} VIA{}", unit(k, r), province(to), end(b)),
            Text::SupportHold(k, r, k2, r2, b) => format!("{} S {}{}", unit(k, r), unit(k2, r2), end(b)),
            Text::SupportMove(k, r, k2, r2, to, b) => {
                format!("{} S {} - {}{}", unit(k, r), unit(k2, r2), province(to), end(b))
            }
            Text::Convoy(k, r, k2, r2, to, b) => {
                format!("{} C {} - {}{}", unit(k, r), unit(k2, r2), province(to), end(b))
            }
            Text::Retreat(k, r, to, b) => format!("{} R {}{}", unit(k, r), region(to), end(b)),
            Text::Disband(k, r, b) => format!("{} D{}", unit(k, r), end(b)),
            Text::Build(k, r, b) => format!("{} B{}", unit(k, r), end(b)),
            Text::Waive => "WAIVE".into(),
        }
    }
}

/// A quick hash for the few small numbers of a [`Text`].
#[derive(Default)]
pub struct SmallHasher(u64);

impl Hasher for SmallHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(*b as u64);
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(n as u64);
    }
    fn write_u16(&mut self, n: u16) {
        self.write_u64(n as u64);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_isize(&mut self, n: isize) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Texts = HashMap<Text, Py<PyString>, BuildHasherDefault<SmallHasher>>;

/// Every text written so far in this process, with its Python string.
fn texts() -> std::sync::MutexGuard<'static, Texts> {
    static TEXTS: OnceLock<Mutex<Texts>> = OnceLock::new();
    TEXTS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner())
}

/// The Python strings of these texts, written once per process.
pub fn py_texts<'py>(py: Python<'py>, list: &[Text]) -> Vec<Bound<'py, PyString>> {
    let mut memo = texts();
    list.iter().map(|t| py_text_in(py, &mut memo, *t)).collect()
}

fn py_text_in<'py>(py: Python<'py>, memo: &mut Texts, t: Text) -> Bound<'py, PyString> {
    memo.entry(t).or_insert_with(|| PyString::new(py, &t.write()).unbind()).bind(py).clone()
}

/// Each province's place in the alphabetical order of the names.
fn alphabetical(p: ProvinceId) -> usize {
    static RANKS: OnceLock<Vec<usize>> = OnceLock::new();
    RANKS.get_or_init(|| {
        let names = &standard().provinces;
        let mut ids: Vec<usize> = (0..names.len()).collect();
        ids.sort_by(|a, b| names[*a].cmp(&names[*b]));
        let mut rank = vec![0; names.len()];
        for (i, id) in ids.into_iter().enumerate() {
            rank[id] = i;
        }
        rank
    })[p.0 as usize]
}

/// The places of `possible` with the Python strings of their orders, sorted by the place's
/// name (`PAR` before `PAR (A)` before `PAR (B)`), as `get_all_possible_orders` gives them;
/// a place listed twice has its orders joined.
pub fn by_place<'py>(py: Python<'py>, possible: &Possible) -> Vec<(Bound<'py, PyString>, Vec<Bound<'py, PyString>>)> {
    let mut memo = texts();
    let mut places: Vec<(Text, Vec<Bound<'py, PyString>>)> = Vec::with_capacity(possible.len());
    for (_, place, orders) in possible {
        let list = orders.iter().map(|o| py_text_in(py, &mut memo, *o));
        match places.iter_mut().find(|(p, _)| p == place) {
            Some((_, mine)) => mine.extend(list),
            None => places.push((*place, list.collect())),
        }
    }
    let key = |t: &Text| match *t {
        Text::Place(p, b) => (alphabetical(p), b),
        _ => (usize::MAX, 0),
    };
    places.sort_by_key(|(t, _)| key(t));
    places.into_iter().map(|(t, list)| (py_text_in(py, &mut memo, t), list)).collect()
}

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
                let end = suffix(g, Board(b as u8));
                for r in state.retreating.iter().filter(|r| powers.contains(&r.dislodgement.unit.power)) {
                    let u = r.dislodgement.unit;
                    let mut list: Vec<Text> =
                        r.options.iter().map(|o| Text::Retreat(u.kind, u.region, *o, end)).collect();
                    list.push(Text::Disband(u.kind, u.region, end));
                    out.push((u.power, place(g, &u, end), list));
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

/// The board names end in on `board`: none in a standard game.
fn suffix(g: &Game, board: Board) -> Suffix {
    if g.suffix(board, false).is_empty() {
        0
    } else {
        board.0 + 1
    }
}

fn place(g: &Game, u: &Unit, end: Suffix) -> Text {
    Text::Place(g.inner.map.province_of(u.region), end)
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

/// The provinces a unit of `kind` in `region` could move to (its supports' reach), by
/// province, worked out once per process for each place on the map.
fn reachable(map: &Map, kind: UnitType, region: RegionId) -> &'static [bool] {
    static TABLE: OnceLock<Vec<Vec<bool>>> = OnceLock::new();
    let regions = map.region_count();
    let table = TABLE.get_or_init(|| {
        let provinces: Vec<ProvinceId> = map.province_ids().collect();
        [UnitType::Army, UnitType::Fleet]
            .into_iter()
            .flat_map(|k| (0..regions).map(move |r| (k, RegionId(r as u16))))
            .map(|(k, r)| {
                let mut row = vec![false; provinces.len()];
                for p in &provinces {
                    row[p.0 as usize] = map.can_reach_province(k, r, *p);
                }
                row
            })
            .collect()
    });
    let k = usize::from(kind == UnitType::Fleet);
    &table[k * regions + region.0 as usize]
}

fn movement(g: &Game, board: Board, state: &BoardState, powers: &[PowerId], out: &mut Possible) {
    let map: &Map = &g.inner.map;
    let rules = &g.inner.settings.rules;
    let end = suffix(g, board);
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
        let (k, r) = (u.kind, u.region);
        let reaches = reachable(map, k, r);
        let can_reach = |p: ProvinceId| reaches[p.0 as usize];
        let mut list = Vec::with_capacity(32);
        list.push(Text::Hold(k, r, end));
        for to in map.neighbours(u.kind, u.region) {
            list.push(Text::Move(k, r, to, end));
        }
        if let Some((_, coasts)) = &convoys[i] {
            for &c in coasts {
                if legal(&Order::Move { unit: me, to: whole(c), via_convoy: true }) {
                    list.push(Text::Via(k, r, c, end));
                }
            }
        }
        for (j, v) in state.units.iter().enumerate().filter(|(j, _)| *j != i) {
            let supported = unit_ref(v);
            if can_reach(supported.at.province) && legal(&Order::SupportHold { unit: me, supported }) {
                list.push(Text::SupportHold(k, r, v.kind, v.region, end));
            }
            for &to in reach[j].iter().filter(|to| **to != at && can_reach(**to)) {
                if legal(&Order::SupportMove { unit: me, supported, to: whole(to) }) {
                    list.push(Text::SupportMove(k, r, v.kind, v.region, to, end));
                }
            }
            if u.kind == UnitType::Fleet && map.province(at).terrain == Terrain::Sea {
                if let Some((seas, coasts)) = &convoys[j] {
                    if seas.contains(&at) {
                        for &c in coasts {
                            if legal(&Order::Convoy { unit: me, army: supported, to: whole(c) }) {
                                list.push(Text::Convoy(k, r, v.kind, v.region, c, end));
                            }
                        }
                    }
                }
            }
        }
        out.push((u.power, place(g, u, end), list));
    }
}

/// Winter: every build, removal and waive the judge would accept from this power alone,
/// as its preview of the adjustments says.
fn winter(g: &Game, power: PowerId, out: &mut Possible) {
    let map: &Map = &g.inner.map;
    let boards = g.inner.state.boards.len();
    // (place, order, the order as the judge reads it)
    let mut candidates: Vec<(Text, Text, Order<Place>, Board)> = Vec::new();
    for b in 0..boards {
        let board = Board(b as u8);
        let end = suffix(g, board);
        let state = &g.inner.state.boards[b];
        for &h in map.home_centers(power) {
            if state.units.iter().any(|u| map.province_of(u.region) == h) {
                continue;
            }
            for r in map.regions_of(h) {
                for kind in [UnitType::Army, UnitType::Fleet] {
                    if map.unit_can_stand(kind, r) {
                        let at = Place { province: h, coast: map.region(r).coast };
                        let order = Order::Build { kind: Some(kind), at };
                        candidates.push((Text::Place(h, end), Text::Build(kind, r, end), order, board));
                    }
                }
            }
        }
        for u in state.units.iter().filter(|u| u.power == power) {
            let at = Place { province: map.province_of(u.region), coast: map.region(u.region).coast };
            let order = Order::Disband { unit: UnitRef { kind: Some(u.kind), at } };
            candidates.push((place(g, u, end), Text::Disband(u.kind, u.region, end), order, board));
        }
    }
    let shadow = boards > 1;
    let waive = accepted(g, power, Order::Waive, None);
    let mut places: Vec<(Text, Vec<Text>)> = Vec::new();
    for (loc, text, order, board) in candidates {
        if !accepted(g, power, order, shadow.then_some(board)) {
            continue;
        }
        match places.iter_mut().find(|(l, _)| *l == loc) {
            Some((_, list)) => list.push(text),
            None => places.push((loc, vec![text])),
        }
    }
    for (loc, mut list) in places {
        // A place to build at may also waive the build, as in MILA's lists.
        if waive && list.iter().any(|o| matches!(o, Text::Build(..))) {
            list.push(Text::Waive);
        }
        out.push((power, loc, list));
    }
}

/// Would the judge accept this one Winter order of `power` alone (`board` as the order
/// names it; none in a standard game)?
fn accepted(g: &Game, power: PowerId, order: Order<Place>, board: Option<Board>) -> bool {
    let po = ParsedOrder { order, power: None, board, line: 1, span: 0..0 };
    if g.inner.check_order(power, &po).is_err() {
        return false;
    }
    g.inner.preview_winter(power, &[&po]).first().is_some_and(|(ok, _)| *ok)
}
