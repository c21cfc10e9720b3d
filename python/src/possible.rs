//! The orders each orderable place may be given this phase, written as MILA writes them
//! (`A PAR - BUR`, `A LON - BRE VIA`, `F MAO S A PAR - BRE`, `F ENG C A LON - BRE`,
//! `A PAR R BUR`, `A PAR D`, `A PAR B`, `WAIVE`): every order the judge would carry out,
//! so any of them may be given to `set_orders` as it is.
//!
//! The judge finds them (`possible_orders` of its game) as a few numbers each; each
//! order's words are written once per process and kept as a Python string under those
//! numbers packed into one key, so a call hands out strings already made.
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard, OnceLock};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use shadowjudge::diplomacy::engine::possible::PlaceOrders;
use shadowjudge::diplomacy::judge::possible::Possible as Order;
use shadowjudge::diplomacy::map::{PowerId, ProvinceId, RegionId, UnitType};

use crate::game::{standard, Game};

/// Every power's possible orders in one position, place by place.
pub struct Possible {
    places: Vec<PlaceOrders>,
    /// Names end in their board (Shadow Worlds).
    boards: bool,
}

/// The board a name ends in: 0 none (a standard game), 1 `(A)`, 2 `(B)`.
type Suffix = u8;

impl Possible {
    fn suffix(&self, p: &PlaceOrders) -> Suffix {
        if self.boards {
            p.board.0 + 1
        } else {
            0
        }
    }
}

/// Every power's possible orders in this position.
pub fn orders(g: &Game, powers: &[PowerId]) -> Possible {
    let boards = g.inner.state.boards.len() > 1;
    Possible { places: g.inner.possible_orders(powers), boards }
}

/// A place (`PAR`, `PAR (A)`) or an order, as one number: what the strings are kept by.
/// Region and province ids take 12 bits each (a map has at most 4,000 regions).
fn place_key(p: ProvinceId, end: Suffix) -> u64 {
    (end as u64) << 4 | (p.0 as u64) << 32
}

fn order_key(o: Order, end: Suffix) -> u64 {
    let k = |k: UnitType| u64::from(k == UnitType::Fleet);
    let r = |r: RegionId| r.0 as u64;
    let p = |p: ProvinceId| p.0 as u64;
    let (tag, k1, r1, k2, r2, to) = match o {
        Order::Hold(a, b) => (1, k(a), r(b), 0, 0, 0),
        Order::Move(a, b, c) => (2, k(a), r(b), 0, 0, r(c)),
        Order::Via(a, b, c) => (3, k(a), r(b), 0, 0, p(c)),
        Order::SupportHold(a, b, c, d) => (4, k(a), r(b), k(c), r(d), 0),
        Order::SupportMove(a, b, c, d, e) => (5, k(a), r(b), k(c), r(d), p(e)),
        Order::Convoy(a, b, c, d, e) => (6, k(a), r(b), k(c), r(d), p(e)),
        Order::Retreat(a, b, c) => (7, k(a), r(b), 0, 0, r(c)),
        Order::Disband(a, b) => (8, k(a), r(b), 0, 0, 0),
        Order::Build(a, b) => (9, k(a), r(b), 0, 0, 0),
        // One `WAIVE` for every board.
        Order::Waive => return 10,
    };
    tag | (end as u64) << 4 | k1 << 6 | k2 << 7 | r1 << 8 | r2 << 20 | to << 32
}

/// An order's words, as MILA writes them.
fn write(o: Order, end: Suffix) -> String {
    let s = standard();
    let region = |r: RegionId| s.regions[r.0 as usize].as_str();
    let province = |p: ProvinceId| s.provinces[p.0 as usize].as_str();
    let unit = |k: UnitType, r: RegionId| format!("{} {}", k.letter(), region(r));
    let end = ending(end);
    match o {
        Order::Hold(k, r) => format!("{} H{end}", unit(k, r)),
        Order::Move(k, r, to) => format!("{} - {}{end}", unit(k, r), region(to)),
        Order::Via(k, r, to) => format!("{} - {} VIA{end}", unit(k, r), province(to)),
        Order::SupportHold(k, r, k2, r2) => format!("{} S {}{end}", unit(k, r), unit(k2, r2)),
        Order::SupportMove(k, r, k2, r2, to) => format!("{} S {} - {}{end}", unit(k, r), unit(k2, r2), province(to)),
        Order::Convoy(k, r, k2, r2, to) => format!("{} C {} - {}{end}", unit(k, r), unit(k2, r2), province(to)),
        Order::Retreat(k, r, to) => format!("{} R {}{end}", unit(k, r), region(to)),
        Order::Disband(k, r) => format!("{} D{end}", unit(k, r)),
        Order::Build(k, r) => format!("{} B{end}", unit(k, r)),
        Order::Waive => "WAIVE".into(),
    }
}

fn ending(end: Suffix) -> &'static str {
    match end {
        1 => " (A)",
        2 => " (B)",
        _ => "",
    }
}

/// A hash of one key: a multiply, folded so that every bit counts in the low ones.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        let h = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ *b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
}

type Texts = HashMap<u64, Py<PyString>, BuildHasherDefault<KeyHasher>>;

/// Every string written so far in this process, by key.
fn texts() -> MutexGuard<'static, Texts> {
    static TEXTS: OnceLock<Mutex<Texts>> = OnceLock::new();
    TEXTS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner())
}

fn place_words(p: ProvinceId, end: Suffix) -> String {
    format!("{}{}", standard().provinces[p.0 as usize], ending(end))
}

fn place_text<'py>(py: Python<'py>, memo: &mut Texts, p: ProvinceId, end: Suffix) -> Bound<'py, PyString> {
    memo.entry(place_key(p, end)).or_insert_with(|| PyString::new(py, &place_words(p, end)).unbind()).bind(py).clone()
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

/// The places a power may order, in the order of its units (each place once).
pub fn orderable<'py>(py: Python<'py>, possible: &Possible, power: PowerId) -> Vec<Bound<'py, PyString>> {
    let mut memo = texts();
    let mut seen: Vec<(ProvinceId, Suffix)> = Vec::new();
    let mut out = Vec::new();
    for p in possible.places.iter().filter(|p| p.power == power) {
        let place = (p.place, possible.suffix(p));
        if !seen.contains(&place) {
            seen.push(place);
            out.push(place_text(py, &mut memo, place.0, place.1));
        }
    }
    out
}

/// Every place some power may order, with its orders, sorted by the place's name (`PAR`
/// before `PAR (A)` before `PAR (B)`), as `get_all_possible_orders` gives them; a place
/// listed twice has its orders joined.
pub fn by_place<'py>(py: Python<'py>, possible: &Possible) -> PyResult<Bound<'py, PyDict>> {
    let mut memo = texts();
    let places = &possible.places;
    let rank = |p: &PlaceOrders| (alphabetical(p.place), possible.suffix(p));
    let mut sorted: Vec<&PlaceOrders> = places.iter().collect();
    sorted.sort_by_key(|p| rank(p));
    // The strings are found (made the first time) in one pass, each place's key before
    // its orders' keys, then each is read once, then handed out. Between two positions
    // they go cold in memory: found one after another in a short loop, many are fetched
    // at once instead of one by one.
    let mut keys: Vec<u64> = Vec::with_capacity(places.iter().map(|p| p.orders.len() + 1).sum());
    let mut starts: Vec<usize> = Vec::with_capacity(places.len() + 1);
    for (i, p) in sorted.iter().enumerate() {
        let end = possible.suffix(p);
        if i == 0 || rank(sorted[i - 1]) != rank(p) {
            starts.push(keys.len());
            let key = place_key(p.place, end);
            keys.push(key);
            memo.entry(key).or_insert_with(|| PyString::new(py, &place_words(p.place, end)).unbind());
        }
        for o in &p.orders {
            let key = order_key(*o, end);
            keys.push(key);
            memo.entry(key).or_insert_with(|| PyString::new(py, &write(*o, end)).unbind());
        }
    }
    starts.push(keys.len());
    let found: Vec<&Bound<'py, PyString>> = keys.iter().map(|k| memo[k].bind(py)).collect();
    for s in &found {
        s.len()?;
    }
    let d = PyDict::new(py);
    for w in starts.windows(2) {
        let list = PyList::new(py, &found[w[0] + 1..w[1]])?;
        d.set_item(found[w[0]], list)?;
    }
    Ok(d)
}
