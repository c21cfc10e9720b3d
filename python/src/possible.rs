//! The orders each orderable place may be given this phase, written as MILA writes them
//! (`A PAR - BUR`, `A LON - BRE VIA`, `F MAO S A PAR - BRE`, `F ENG C A LON - BRE`,
//! `A PAR R BUR`, `A PAR D`, `A PAR B`, `WAIVE`): every order the judge would carry out,
//! so any of them may be given to `set_orders` as it is.
//!
//! The judge finds them (`possible_orders` of its game) as a few numbers each; each
//! order's words are written once per process and kept as a Python string under those
//! numbers packed into one key, in a small table per unit, so a call hands out strings
//! already made and one unit's are found near each other. Each map has its own table
//! (see `maps`), locked only while no Python object is made.
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use shadowjudge::diplomacy::engine::possible::{PlaceOrders, PossibleOrders};
use shadowjudge::diplomacy::engine::Game;
use shadowjudge::diplomacy::judge::possible::Possible as Order;
use shadowjudge::diplomacy::map::{Map, PowerId, ProvinceId, RegionId, UnitType};
use shadowjudge::diplomacy::order::{Board, Place};

use crate::maps::Names;
use crate::tables::{ReadLine, Rows, Scratch, Strings, Suffix};

/// Every power's possible orders in one position, place by place.
pub struct Possible {
    pub places: PossibleOrders,
    /// Names end in their board (Shadow Worlds).
    boards: bool,
    /// The map's names and strings.
    names: &'static Names,
}

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
pub fn orders(game: &Game, names: &'static Names, powers: &[PowerId]) -> Possible {
    let boards = game.state.boards.len() > 1;
    Possible { places: game.possible_orders(powers), boards, names }
}

/// An order as one number: what its string is kept by. Region and province ids take 12
/// bits each (a map has at most 4,000 regions).
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

fn ending(end: Suffix) -> &'static str {
    match end {
        1 => " (A)",
        2 => " (B)",
        _ => "",
    }
}

fn place_words(names: &Names, p: ProvinceId, end: Suffix) -> String {
    format!("{}{}", names.provinces[p.0 as usize], ending(end))
}

/// An order's words, as MILA writes them, added to `out`.
fn write_into(s: &Names, out: &mut Vec<u8>, o: Order, end: Suffix) {
    let region = |out: &mut Vec<u8>, r: RegionId| out.extend_from_slice(s.regions[r.0 as usize].as_bytes());
    let province = |out: &mut Vec<u8>, p: ProvinceId| out.extend_from_slice(s.provinces[p.0 as usize].as_bytes());
    let unit = |out: &mut Vec<u8>, k: UnitType, r: RegionId| {
        out.push(k.letter() as u8);
        out.push(b' ');
        region(out, r);
    };
    let (k, r) = match o {
        Order::Waive => {
            out.extend_from_slice(b"WAIVE");
            return;
        }
        Order::Hold(k, r)
        | Order::Move(k, r, _)
        | Order::Via(k, r, _)
        | Order::SupportHold(k, r, ..)
        | Order::SupportMove(k, r, ..)
        | Order::Convoy(k, r, ..)
        | Order::Retreat(k, r, _)
        | Order::Disband(k, r)
        | Order::Build(k, r) => (k, r),
    };
    unit(out, k, r);
    match o {
        Order::Hold(..) => out.extend_from_slice(b" H"),
        Order::Move(_, _, to) => {
            out.extend_from_slice(b" - ");
            region(out, to);
        }
        Order::Via(_, _, to) => {
            out.extend_from_slice(b" - ");
            province(out, to);
            out.extend_from_slice(b" VIA");
        }
        Order::SupportHold(_, _, k2, r2) => {
            out.extend_from_slice(b" S ");
            unit(out, k2, r2);
        }
        Order::SupportMove(_, _, k2, r2, to) | Order::Convoy(_, _, k2, r2, to) => {
            out.extend_from_slice(if matches!(o, Order::Convoy(..)) { b" C " } else { b" S " });
            unit(out, k2, r2);
            out.extend_from_slice(b" - ");
            province(out, to);
        }
        Order::Retreat(_, _, to) => {
            out.extend_from_slice(b" R ");
            region(out, to);
        }
        Order::Disband(..) => out.extend_from_slice(b" D"),
        Order::Build(..) => out.extend_from_slice(b" B"),
        Order::Waive => {}
    }
    out.extend_from_slice(ending(end).as_bytes());
}

const EMPTY: u64 = u64::MAX;

fn empty_slots(size: usize) -> Vec<(u64, Option<Py<PyString>>)> {
    (0..size).map(|_| (EMPTY, None)).collect()
}

impl Strings {
    fn new(bits: u32) -> Strings {
        Strings { slots: empty_slots(1 << bits), len: 0, shift: 64 - bits }
    }

    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// The place of `key`: where its string is, or the empty place where it would go.
    fn find(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let k = self.slots[i].0;
            if k == key || k == EMPTY {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Keep `string` under `key`, unless a string is kept under it already. Apart, and out
    /// of the way of the lookups' code: a string is made once in a process, while every
    /// call runs the lookups, from memory as cold as the data (the fewer lines their code
    /// spans, the fewer are fetched).
    #[cold]
    #[inline(never)]
    fn insert(&mut self, key: u64, string: Py<PyString>) {
        let i = self.find(key);
        if self.slots[i].0 == key {
            return;
        }
        self.slots[i] = (key, Some(string));
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            let size = self.slots.len() * 2;
            let old = std::mem::replace(&mut self.slots, empty_slots(size));
            self.shift -= 1;
            for (k, s) in old.into_iter().filter(|(k, _)| *k != EMPTY) {
                let i = self.find(k);
                self.slots[i] = (k, s);
            }
        }
    }
}

/// Ask for the line at `p` to be fetched, without waiting for it.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing; any address is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

impl Rows {
    pub(crate) fn new(map: &Map, provinces: usize) -> Rows {
        let region_bits = map.region_count().next_power_of_two().trailing_zeros();
        Rows {
            region_bits,
            // Three endings, two kinds.
            rows: (0..6 << region_bits).map(|_| Strings::new(4)).collect(),
            places: (0..3 * provinces).map(|_| None).collect(),
            provinces,
            scratch: Scratch::default(),
        }
    }

    /// The row of an order's key (see [`order_key`]); `WAIVE` is in the first.
    fn row(&self, key: u64) -> usize {
        let (end, kind, region) = (key >> 4 & 3, key >> 6 & 1, key >> 8 & 0xfff);
        ((end << 1 | kind) << self.region_bits | region) as usize
    }

    /// Ask for the place of `key` in its row to be fetched.
    fn prefetch(&self, key: u64) {
        let row = &self.rows[self.row(key)];
        prefetch(row.slots.as_ptr().wrapping_add(row.home(key)));
    }

    fn place_index(&self, p: ProvinceId, end: Suffix) -> usize {
        end as usize * self.provinces + p.0 as usize
    }

    /// Every place of `possible` with its orders' keys, sorted by the place's name, into
    /// `scratch.found` (and where each place begins into `scratch.starts`), and a
    /// reference to each one's string into `scratch.strings`; those that have no string
    /// yet (none in `strings`) into `scratch.missing` and `scratch.missing_places`.
    fn find_all<'a>(&'a self, py: Python<'_>, possible: &Possible, scratch: &mut Scratch) {
        let Scratch { found, starts, sorted, strings, missing, missing_places } = scratch;
        let all = &possible.places;
        let ranks = &possible.names.ranks;
        // The places by name: each as one number (its rank, then its index), sorted without
        // reading the places again.
        sorted.clear();
        sorted.extend(all.places.iter().enumerate().map(|(i, p)| {
            let rank = ranks[p.place.0 as usize] as usize * 3 + possible.suffix(p) as usize;
            (rank as u64) << 32 | i as u64
        }));
        // A plain insertion sort: a few dozen places, and far less code to fetch than the
        // library's sort (see `Strings::insert`).
        for i in 1..sorted.len() {
            let x = sorted[i];
            let mut j = i;
            while j > 0 && sorted[j - 1] > x {
                sorted[j] = sorted[j - 1];
                j -= 1;
            }
            sorted[j] = x;
        }
        let place_at = |i: usize| &all.places[(sorted[i] & 0xffff_ffff) as usize];
        let new_place = |i: usize| i == 0 || sorted[i - 1] >> 32 != sorted[i] >> 32;
        // Between two calls the table and the strings go cold in memory (a caller's own
        // work evicts them): every key's place in the table is asked for first, then each
        // string as soon as its place is read, so that they are fetched many at a time.
        found.clear();
        starts.clear();
        for i in 0..sorted.len() {
            let p = place_at(i);
            let end = possible.suffix(p);
            if new_place(i) {
                starts.push(found.len());
                found.push(self.place_index(p.place, end) as u64);
            }
            for o in all.of(p) {
                let key = order_key(*o, end);
                self.prefetch(key);
                found.push(key);
            }
        }
        starts.push(found.len());
        // Each string is asked for as soon as it is found, and a reference to it taken
        // (for the lists, made once the table is let go) `AHEAD` strings later, when it
        // has come.
        const AHEAD: usize = 8;
        let mut ring: [Option<&Py<PyString>>; AHEAD] = [None; AHEAD];
        strings.clear();
        strings.reserve(found.len());
        let mut take = |n: usize, s: Option<&'a Py<PyString>>| {
            if let Some(s) = s {
                prefetch(s.as_ptr());
            }
            let due = std::mem::replace(&mut ring[n % AHEAD], s);
            if n >= AHEAD {
                strings.push(due.map(|s| s.clone_ref(py)));
            }
        };
        let mut at = 0;
        for i in 0..sorted.len() {
            let p = place_at(i);
            let end = possible.suffix(p);
            if new_place(i) {
                let s = self.places[found[at] as usize].as_ref();
                if s.is_none() {
                    missing_places.push((p.place, end));
                }
                take(at, s);
                at += 1;
            }
            for o in all.of(p) {
                let key = found[at];
                let row = &self.rows[self.row(key)];
                let s = match &row.slots[row.find(key)] {
                    (k, Some(s)) if *k == key => Some(s),
                    _ => {
                        missing.push((key, *o, end));
                        None
                    }
                };
                take(at, s);
                at += 1;
            }
        }
        for n in at..at + AHEAD {
            take(n, None);
        }
        strings.truncate(at);
    }

    /// The strings `find_all` missed, found now that they are made.
    #[cold]
    #[inline(never)]
    fn fill(&self, py: Python<'_>, scratch: &mut Scratch) {
        let Scratch { found, starts, strings, .. } = scratch;
        for w in starts.windows(2) {
            if strings[w[0]].is_none() {
                strings[w[0]] = self.places[found[w[0]] as usize].as_ref().map(|s| s.clone_ref(py));
            }
            for at in w[0] + 1..w[1] {
                if strings[at].is_none() {
                    let row = &self.rows[self.row(found[at])];
                    strings[at] = row.slots[row.find(found[at])].1.as_ref().map(|s| s.clone_ref(py));
                }
            }
        }
    }
}

/// The strings `find_all` missed, made (with the table let go: Python runs) and kept
/// (strings are never let go of: what `find_all` found is still there after).
#[cold]
#[inline(never)]
fn make_missing(py: Python<'_>, names: &'static Names, scratch: &mut Scratch) {
    let mut words = Vec::new();
    // An order given in two places (a Winter's `WAIVE`) is made once.
    scratch.missing.sort_unstable_by_key(|m| m.0);
    scratch.missing.dedup_by_key(|m| m.0);
    let made: Vec<(u64, Py<PyString>)> =
        scratch.missing.drain(..).map(|(key, o, end)| (key, order_string(py, names, &mut words, o, end))).collect();
    let places: Vec<(ProvinceId, Suffix, Py<PyString>)> = scratch
        .missing_places
        .drain(..)
        .map(|(p, end)| (p, end, PyString::new(py, &place_words(names, p, end)).unbind()))
        .collect();
    let mut table = names.strings(py);
    for (key, s) in made {
        let row = table.row(key);
        table.rows[row].insert(key, s);
    }
    for (p, end, s) in places {
        let at = table.place_index(p, end);
        table.places[at].get_or_insert(s);
    }
}

/// A place's string (`PAR`, `PAR (A)`).
fn place<'py>(py: Python<'py>, names: &'static Names, p: ProvinceId, end: Suffix) -> Bound<'py, PyString> {
    {
        let table = names.strings(py);
        if let Some(s) = &table.places[table.place_index(p, end)] {
            return s.bind(py).clone();
        }
    }
    let made = PyString::new(py, &place_words(names, p, end)).unbind();
    let mut table = names.strings(py);
    let at = table.place_index(p, end);
    table.places[at].get_or_insert(made).bind(py).clone()
}

/// A new order's string. `set_orders` is told what it says, so that when it is given back
/// it need not be read again.
fn order_string(py: Python<'_>, names: &Names, buf: &mut Vec<u8>, o: Order, end: Suffix) -> Py<PyString> {
    buf.clear();
    write_into(names, buf, o, end);
    // The names are ASCII.
    let words = std::str::from_utf8(buf).expect("names are ASCII");
    let string = PyString::new(py, words).unbind();
    let board = match end {
        1 => Some(Board::A),
        2 => Some(Board::B),
        _ => None,
    };
    know_line(names, string.bind(py), words, o.order(&names.map), board);
    string
}

/// The places a power may order, in the order of its units (each place once).
pub fn orderable<'py>(py: Python<'py>, possible: &Possible, power: PowerId) -> Vec<Bound<'py, PyString>> {
    let mut seen: Vec<(ProvinceId, Suffix)> = Vec::new();
    for p in possible.places.places.iter().filter(|p| p.power == power) {
        let at = (p.place, possible.suffix(p));
        if !seen.contains(&at) {
            seen.push(at);
        }
    }
    seen.into_iter().map(|(p, end)| place(py, possible.names, p, end)).collect()
}

/// Every place some power may order, with its orders, sorted by the place's name (`PAR`
/// before `PAR (A)` before `PAR (B)`), as `get_all_possible_orders` gives them; a place
/// listed twice has its orders joined.
pub fn by_place<'py>(py: Python<'py>, possible: &Possible) -> PyResult<Bound<'py, PyDict>> {
    let names = possible.names;
    let mut table = names.strings(py);
    let mut scratch = std::mem::take(&mut table.scratch);
    table.find_all(py, possible, &mut scratch);
    if !scratch.missing.is_empty() || !scratch.missing_places.is_empty() {
        drop(table);
        make_missing(py, names, &mut scratch);
        table = names.strings(py);
        table.fill(py, &mut scratch);
    }
    // Python may run code of its own while the lists are made: the table is let go.
    drop(table);
    let d = PyDict::new(py);
    let mut strings = scratch.strings.drain(..).map(|s| s.expect("every string is made"));
    for w in scratch.starts.windows(2) {
        let place = strings.next().expect("a place's string");
        let list = PyList::new(py, (&mut strings).take(w[1] - w[0] - 1))?;
        d.set_item(place, list)?;
    }
    drop(strings);
    names.strings(py).scratch = scratch;
    Ok(d)
}

/// Tell `set_orders` on `names`' map what a string it will be given says: `order`, on
/// `board` (Shadow Worlds). For the strings `get_all_possible_orders` makes: the very
/// objects come back.
pub(crate) fn know_line(
    names: &Names,
    line: &Bound<'_, PyString>,
    text: &str,
    order: shadowjudge::diplomacy::order::Order<Place>,
    board: Option<Board>,
) {
    let Ok(end) = u32::try_from(text.len()) else { return };
    let read = ReadLine { order, power: None, board, span: (0, end) };
    // Dropped after the table is unlocked.
    let _let_go = names.lines(line.py()).by_object.insert(line, text, read, true);
}
