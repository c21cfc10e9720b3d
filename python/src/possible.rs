//! The orders each orderable place may be given this phase, written as MILA writes them
//! (`A PAR - BUR`, `A LON - BRE VIA`, `F MAO S A PAR - BRE`, `F ENG C A LON - BRE`,
//! `A PAR R BUR`, `A PAR D`, `A PAR B`, `WAIVE`): every order the judge would carry out,
//! so any of them may be given to `set_orders` as it is.
//!
//! The judge finds them (`possible_orders` of its game) as a few numbers each; each
//! order's words are written once per process and kept as a Python string under those
//! numbers packed into one key, in a small table per unit, so a call hands out strings
//! already made and one unit's are found near each other.
use std::sync::{Mutex, MutexGuard, OnceLock};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use shadowjudge::diplomacy::engine::possible::{PlaceOrders, PossibleOrders};
use shadowjudge::diplomacy::judge::possible::Possible as Order;
use shadowjudge::diplomacy::map::{PowerId, ProvinceId, RegionId, UnitType};
use shadowjudge::diplomacy::order::Board;

use crate::game::{self, standard, Game};

/// Every power's possible orders in one position, place by place.
pub struct Possible {
    pub places: PossibleOrders,
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

fn place_words(p: ProvinceId, end: Suffix) -> String {
    format!("{}{}", standard().provinces[p.0 as usize], ending(end))
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

/// An order's words, as MILA writes them, added to `out`.
fn write_into(out: &mut Vec<u8>, o: Order, end: Suffix) {
    let s = standard();
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

/// Strings by key: an open-addressed table of (key, string) pairs, so that a key's
/// place is known before it is read (and can be fetched ahead).
struct Strings {
    /// `u64::MAX` marks an empty place (no key is that large).
    slots: Vec<(u64, *mut pyo3::ffi::PyObject)>,
    len: usize,
    shift: u32,
}

// SAFETY: the strings are only touched with the GIL held (behind the lock below).
unsafe impl Send for Strings {}
unsafe impl Send for Rows {}
unsafe impl Send for Scratch {}

/// An order's key (see [`order_key`]), until it is swapped for its string.
#[derive(Clone, Copy)]
union Found {
    key: u64,
    string: *mut pyo3::ffi::PyObject,
}

const EMPTY: u64 = u64::MAX;

impl Strings {
    fn new(bits: u32) -> Strings {
        Strings { slots: vec![(EMPTY, std::ptr::null_mut()); 1 << bits], len: 0, shift: 64 - bits }
    }

    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// The string kept under `key`, made by `make` (and kept for good) the first time.
    fn get(&mut self, key: u64, make: impl FnOnce() -> Py<PyString>) -> *mut pyo3::ffi::PyObject {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let (k, s) = self.slots[i];
            if k == key {
                return s;
            }
            if k == EMPTY {
                break;
            }
            i = (i + 1) & mask;
        }
        self.insert(i, key, make)
    }

    /// A new string, kept in the empty place `i`. Apart, and out of the way of the
    /// lookups' code: a string is made once in a process, while every call runs the
    /// lookups, from memory as cold as the data (the fewer lines their code spans, the
    /// fewer are fetched).
    #[cold]
    #[inline(never)]
    fn insert(&mut self, i: usize, key: u64, make: impl FnOnce() -> Py<PyString>) -> *mut pyo3::ffi::PyObject {
        let s = make().into_ptr();
        self.slots[i] = (key, s);
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            self.grow();
        }
        s
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![(EMPTY, std::ptr::null_mut()); size]);
        self.shift -= 1;
        let mask = self.slots.len() - 1;
        for (k, s) in old.into_iter().filter(|(k, _)| *k != EMPTY) {
            let mut i = self.home(k);
            while self.slots[i].0 != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = (k, s);
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

/// The strings by unit (board ending, kind, region): one small table each, so one
/// unit's orders are found near each other.
struct Rows {
    /// The rows of one ending and kind: the map's regions, rounded up to a power of two
    /// (a key's row is found without dividing).
    region_bits: u32,
    rows: Vec<Strings>,
    /// A place's string (`PAR`, `PAR (A)`) by ending and province, null until made.
    places: Vec<*mut pyo3::ffi::PyObject>,
    /// What a call works in, kept from one call to the next (not asked for anew).
    scratch: Scratch,
}

#[derive(Default)]
struct Scratch {
    /// Place by place, the place's string and then each of its orders' (an order's key
    /// until it is looked up): one list written and read in order (a second would be
    /// as many lines more, cold).
    found: Vec<Found>,
    /// Where each place begins in `found`, and where the last ends.
    starts: Vec<usize>,
    words: Vec<u8>,
    sorted: Vec<u64>,
}

impl Rows {
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

    fn get(&mut self, key: u64, make: impl FnOnce() -> Py<PyString>) -> *mut pyo3::ffi::PyObject {
        let row = self.row(key);
        self.rows[row].get(key, make)
    }
}

/// Every string written so far in this process.
fn rows() -> MutexGuard<'static, Rows> {
    static ROWS: OnceLock<Mutex<Rows>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let region_bits = standard().map.region_count().next_power_of_two().trailing_zeros();
        Mutex::new(Rows {
            region_bits,
            // Three endings, two kinds.
            rows: (0..6 << region_bits).map(|_| Strings::new(4)).collect(),
            places: vec![std::ptr::null_mut(); 3 * standard().provinces.len()],
            scratch: Scratch::default(),
        })
    })
    .lock()
    .unwrap_or_else(|e| e.into_inner())
}

/// A place's string (`PAR`, `PAR (A)`).
fn place<'py>(py: Python<'py>, table: &mut Rows, p: ProvinceId, end: Suffix) -> *mut pyo3::ffi::PyObject {
    let at = end as usize * standard().provinces.len() + p.0 as usize;
    if table.places[at].is_null() {
        table.places[at] = PyString::new(py, &place_words(p, end)).unbind().into_ptr();
    }
    table.places[at]
}

/// An order's string. `set_orders` is told what it says, so that when it is given back it
/// need not be read again.
fn order<'py>(
    py: Python<'py>,
    table: &mut Rows,
    buf: &mut Vec<u8>,
    key: u64,
    o: Order,
    end: Suffix,
) -> *mut pyo3::ffi::PyObject {
    table.get(key, || {
        buf.clear();
        write_into(buf, o, end);
        // The names are ASCII.
        let words = std::str::from_utf8(buf).expect("names are ASCII");
        let string = PyString::new(py, words).unbind();
        let board = match end {
            1 => Some(Board::A),
            2 => Some(Board::B),
            _ => None,
        };
        game::know_line(string.bind(py), words, o.order(&standard().map), board);
        string
    })
}

/// A string of the table as a Python object.
fn bound<'py>(py: Python<'py>, s: *mut pyo3::ffi::PyObject) -> Bound<'py, PyString> {
    // SAFETY: the table holds a reference to each of its strings for good.
    unsafe { Bound::from_borrowed_ptr(py, s).cast_into_unchecked() }
}

/// The places a power may order, in the order of its units (each place once).
pub fn orderable<'py>(py: Python<'py>, possible: &Possible, power: PowerId) -> Vec<Bound<'py, PyString>> {
    let mut table = rows();
    let mut seen: Vec<(ProvinceId, Suffix)> = Vec::new();
    let mut out = Vec::new();
    for p in possible.places.places.iter().filter(|p| p.power == power) {
        let at = (p.place, possible.suffix(p));
        if !seen.contains(&at) {
            seen.push(at);
            out.push(bound(py, place(py, &mut table, at.0, at.1)));
        }
    }
    out
}

/// Every place some power may order, with its orders, sorted by the place's name (`PAR`
/// before `PAR (A)` before `PAR (B)`), as `get_all_possible_orders` gives them; a place
/// listed twice has its orders joined.
pub fn by_place<'py>(py: Python<'py>, possible: &Possible) -> PyResult<Bound<'py, PyDict>> {
    let mut table = rows();
    let mut scratch = std::mem::take(&mut table.scratch);
    let Scratch { found, starts, words, sorted } = &mut scratch;
    let all = &possible.places;
    // The places by name: each as one number (its rank, then its index), sorted without
    // reading the places again.
    sorted.clear();
    sorted.extend(all.places.iter().enumerate().map(|(i, p)| {
        let rank = alphabetical(p.place) * 3 + possible.suffix(p) as usize;
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
            found.push(Found { string: place(py, &mut table, p.place, end) });
        }
        for o in all.of(p) {
            let key = order_key(*o, end);
            table.prefetch(key);
            found.push(Found { key });
        }
    }
    starts.push(found.len());
    let mut at = 0;
    for i in 0..sorted.len() {
        let p = place_at(i);
        let end = possible.suffix(p);
        if new_place(i) {
            at += 1;
        }
        for o in all.of(p) {
            // SAFETY: past the place's string, `found` holds keys until here.
            let key = unsafe { found[at].key };
            let string = order(py, &mut table, words, key, *o, end);
            prefetch(string);
            found[at] = Found { string };
            at += 1;
        }
    }
    // Python may run code of its own while the lists are made: the table is let go.
    drop(table);
    // SAFETY: every entry of `found` is a string now, and the table holds a reference
    // to each of its strings for good.
    let string = |s: &Found| unsafe { Borrowed::from_ptr(py, s.string) };
    let d = PyDict::new(py);
    for w in starts.windows(2) {
        let list = PyList::new(py, found[w[0] + 1..w[1]].iter().map(string))?;
        d.set_item(string(&found[w[0]]), list)?;
    }
    rows().scratch = scratch;
    Ok(d)
}
