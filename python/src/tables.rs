//! The tables each map keeps for the Python package (see `maps`): the strings of the
//! possible orders (`Rows`, filled by `possible`) and the order lines read so far
//! (`LinesRead`, read by `game`). Only their shapes are here, below the map registry that
//! holds them; what they do is written beside their users.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::PyString;

use shadowjudge::diplomacy::judge::possible::Possible as Order;
use shadowjudge::diplomacy::map::{PowerId, ProvinceId};
use shadowjudge::diplomacy::order::{Board, Order as OrderOf, Place};

/// The board a name ends in: 0 none (a standard game), 1 `(A)`, 2 `(B)`.
pub(crate) type Suffix = u8;

/// Strings by key: an open-addressed table of (key, string) pairs, so that a key's
/// place is known before it is read (and can be fetched ahead). It holds a reference to
/// each of its strings, for good.
pub(crate) struct Strings {
    /// `EMPTY` (in `possible`) marks an empty place (no key is that large).
    pub(crate) slots: Vec<(u64, Option<Py<PyString>>)>,
    pub(crate) len: usize,
    pub(crate) shift: u32,
}

/// One map's possible orders' strings, by unit (board ending, kind, region): one small
/// table each, so one unit's orders are found near each other.
pub(crate) struct Rows {
    /// The rows of one ending and kind: the map's regions, rounded up to a power of two
    /// (a key's row is found without dividing).
    pub(crate) region_bits: u32,
    pub(crate) rows: Vec<Strings>,
    /// A place's string (`PAR`, `PAR (A)`) by ending and province, none until made.
    pub(crate) places: Vec<Option<Py<PyString>>>,
    pub(crate) provinces: usize,
    /// What a call works in, kept from one call to the next (not asked for anew).
    pub(crate) scratch: Scratch,
}

#[derive(Default)]
pub(crate) struct Scratch {
    /// Place by place, the place's index in `Rows::places` and then each of its orders'
    /// key (see `possible::order_key`).
    pub(crate) found: Vec<u64>,
    /// Where each place begins in `found` (and `strings`), and where the last ends.
    pub(crate) starts: Vec<usize>,
    pub(crate) sorted: Vec<u64>,
    /// The strings handed out, as `found` lists them: a reference to each (none until
    /// made), given to the lists (empty between calls).
    pub(crate) strings: Vec<Option<Py<PyString>>>,
    /// The orders, and the places, that have no string yet.
    pub(crate) missing: Vec<(u64, Order, Suffix)>,
    pub(crate) missing_places: Vec<(ProvinceId, Suffix)>,
}

/// An order line read alone: the order, the power and board it names, and where it
/// stands in the line (bytes).
#[derive(Clone, Copy)]
pub(crate) struct ReadLine {
    pub(crate) order: OrderOf<Place>,
    pub(crate) power: Option<PowerId>,
    pub(crate) board: Option<Board>,
    pub(crate) span: (u32, u32),
}

/// The longest line the table by object keeps (a place of the table is one cache line).
pub(crate) const KEPT_TEXT: usize =
    64 - std::mem::size_of::<Option<Py<PyString>>>() - std::mem::size_of::<ReadLine>() - 1;
// The text's length and the `OURS` mark share a byte.
const _: () = assert!(KEPT_TEXT < OURS as usize);

/// In [`Slot::len`]: the string was made by the judge (`know_line`), and is kept for good,
/// as the possible orders keep it.
pub(crate) const OURS: u8 = 0x80;

/// A place of [`Objects`]: a line's string object seen before (none for an empty place),
/// what it says and its text, in one cache line.
#[repr(C, align(64))]
pub(crate) struct Slot {
    pub(crate) object: Option<Py<PyString>>,
    pub(crate) read: ReadLine,
    /// The text's length, with [`OURS`] when the judge made the string.
    pub(crate) len: u8,
    pub(crate) text: [u8; KEPT_TEXT],
}

/// The line strings seen before, by address: an open-addressed table holding a
/// reference to each string (so that its address names it alone), whose places can be
/// fetched ahead, all of a submission's lines at once, before any is read.
pub(crate) struct Objects {
    pub(crate) slots: Vec<Slot>,
    pub(crate) len: usize,
    /// Of `len`, the caller's strings (not the judge's own): what the table lets go of
    /// when it has kept too many.
    pub(crate) theirs: usize,
    pub(crate) shift: u32,
}

/// One map's order lines read so far in this process: by their text, and by the string
/// object that carried them (bots send the very strings `get_all_possible_orders` gave
/// them, again and again: one of those is known by its address, without reading its
/// characters).
pub(crate) struct LinesRead {
    pub(crate) by_text: HashMap<String, Option<ReadLine>>,
    pub(crate) by_object: Objects,
}
