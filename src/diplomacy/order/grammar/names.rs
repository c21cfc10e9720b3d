//! Looking up the place and power names a player writes, as the grammar meets them.
//!
//! The grammar hands over a candidate span of one or more words ("St. Petersburg",
//! "Mid-Atlantic Ocean", "nth") and asks whether it is a known name. A candidate is
//! normalized once, into a stack buffer when it is ASCII, the same way the map
//! normalizes its names (`map::normalize_name`), so a lookup allocates nothing.
//!
//! This module never decides what a name means in an order; it only answers "which
//! province" or "which power".

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::diplomacy::map::{normalize_name, Map, PowerId, ProvinceId};

/// Candidates longer than this (in bytes, before normalizing) are no name of any map.
const LONGEST_CANDIDATE: usize = 128;

/// FNV-1a: names are short and not chosen by an attacker against this table (it is
/// built from the map), so a simple fast hash beats SipHash here.
#[derive(Default)]
pub(super) struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type Table<'m, T> = HashMap<&'m str, T, BuildHasherDefault<Fnv>>;

/// The names of one map, ready for the grammar.
pub(super) struct Names<'m> {
    pub(super) map: &'m Map,
    /// Normalized place names; `None` means "ask the map" (cheaper for one line).
    places: Option<Table<'m, ProvinceId>>,
    powers: Option<Table<'m, PowerId>>,
    /// The table's place names of one short word (see [`pack`]): a candidate that packs
    /// is answered here, without normalizing or hashing it as text.
    place_words_table: WordTable,
    power_words_table: WordTable,
    /// The first words of the table's names of several words: a normalized candidate
    /// with a space whose first word is not here is no name.
    first_words: Table<'m, ()>,
    /// The same first words, packed (those that pack).
    first_words_packed: WordTable,
    /// The most words in any place name ("north atlantic ocean": 3).
    pub(super) place_words: usize,
    /// The most words in any power name ("austria hungary": 2).
    pub(super) power_words: usize,
}

fn words_in(name: &str) -> usize {
    name.split(' ').count()
}

impl<'m> Names<'m> {
    /// Tables hashed once, for parsing many lines against the same map.
    pub(super) fn indexed(map: &'m Map) -> Names<'m> {
        let places: Table<ProvinceId> = map.place_names().collect();
        let powers: Table<PowerId> = map.power_names().collect();
        let place_words = places.keys().map(|n| words_in(n)).max().unwrap_or(1);
        let power_words = powers.keys().map(|n| words_in(n)).max().unwrap_or(1);
        let mut first_words = Table::default();
        for name in places.keys() {
            if let Some((first, _)) = name.split_once(' ') {
                first_words.insert(first, ());
            }
        }
        Names {
            map,
            place_words_table: WordTable::new(places.iter().map(|(n, p)| (*n, p.0))),
            power_words_table: WordTable::new(powers.iter().map(|(n, p)| (*n, p.0 as u16))),
            first_words_packed: WordTable::new(first_words.keys().map(|n| (*n, 0))),
            places: Some(places),
            powers: Some(powers),
            first_words,
            place_words,
            power_words,
        }
    }

    /// No tables: every lookup asks the map (for a single line, where hashing every
    /// name first would cost more than the line).
    pub(super) fn direct(map: &'m Map) -> Names<'m> {
        let place_words = map.place_names().map(|(n, _)| words_in(n)).max().unwrap_or(1);
        let power_words = map.power_names().map(|(n, _)| words_in(n)).max().unwrap_or(1);
        Names {
            map,
            places: None,
            powers: None,
            place_words_table: WordTable::default(),
            power_words_table: WordTable::default(),
            first_words: Table::default(),
            first_words_packed: WordTable::default(),
            place_words,
            power_words,
        }
    }

    pub(super) fn province(&self, candidate: &str) -> Option<ProvinceId> {
        match &self.places {
            Some(table) => self.indexed_province(table, candidate),
            None if candidate.len() <= LONGEST_CANDIDATE => self.map.lookup_province(candidate),
            None => None,
        }
    }

    pub(super) fn power(&self, candidate: &str) -> Option<PowerId> {
        match &self.powers {
            Some(table) => self.indexed_power(table, candidate),
            None if candidate.len() <= LONGEST_CANDIDATE => self.map.lookup_power(candidate),
            None => None,
        }
    }

    /// A candidate (at most [`LONGEST_CANDIDATE`] bytes) in the tables, as
    /// `table.get(normalize_name(candidate))` answers: from the packed words when the
    /// candidate is one short word, else normalized, unless its first word settles it.
    fn indexed_province(&self, table: &Table<'m, ProvinceId>, candidate: &str) -> Option<ProvinceId> {
        if let Some(word) = pack(candidate.as_bytes()) {
            return self.place_words_table.get(word).map(ProvinceId);
        }
        with_normalized(candidate, |n| {
            if let Some((first, _)) = n.split_once(' ') {
                if !self.first_words.contains_key(first) {
                    return None;
                }
            }
            table.get(n).copied()
        })
    }

    fn indexed_power(&self, table: &Table<'m, PowerId>, candidate: &str) -> Option<PowerId> {
        if let Some(word) = pack(candidate.as_bytes()) {
            return self.power_words_table.get(word).map(|p| PowerId(p as _));
        }
        with_normalized(candidate, |n| table.get(n).copied())
    }

    /// What one word of letters and digits names when no longer name can start with it
    /// (it begins no name of several words): `Some` of the answer, which may be "no
    /// province"; `None` when the word alone cannot settle it.
    pub(super) fn one_word_province(&self, word: &str) -> Option<Option<ProvinceId>> {
        self.places.as_ref()?;
        let packed = pack(word.as_bytes())?;
        if self.first_words_packed.get(packed).is_some() {
            return None;
        }
        Some(self.place_words_table.get(packed).map(ProvinceId))
    }

    /// Exactly [`Map::lookup_province`] (any length), from the tables when they exist.
    pub(super) fn province_exact(&self, name: &str) -> Option<ProvinceId> {
        match &self.places {
            Some(table) if name.len() <= LONGEST_CANDIDATE => self.indexed_province(table, name),
            _ => self.map.lookup_province(name),
        }
    }

    /// Exactly [`Map::lookup_power`] (any length), from the tables when they exist.
    pub(super) fn power_exact(&self, name: &str) -> Option<PowerId> {
        match &self.powers {
            Some(table) if name.len() <= LONGEST_CANDIDATE => self.indexed_power(table, name),
            _ => self.map.lookup_power(name),
        }
    }

    /// The power whose name is closest to a misspelt one, for "did you mean".
    pub(super) fn suggest_power(&self, misspelt: &str) -> Option<PowerId> {
        if misspelt.len() > LONGEST_CANDIDATE {
            return None;
        }
        let wanted = normalize_name(misspelt);
        let mut best: Option<(f64, &str, PowerId)> = None;
        for (known, id) in self.map.power_names() {
            let score = strsim::jaro_winkler(&wanted, known);
            if best.is_none_or(|(s, k, _)| score > s || (score == s && known < k)) {
                best = Some((score, known, id));
            }
        }
        best.filter(|(s, _, _)| *s >= 0.85).map(|(_, _, id)| id)
    }
}

/// A word of 1 to 8 ASCII letters and digits (nearly every name players and machines
/// write), lower-cased and packed into an integer, little-endian and zero-padded: what
/// `normalize_name` makes of it, as a number.
fn pack(word: &[u8]) -> Option<u64> {
    if word.is_empty() || word.len() > 8 {
        return None;
    }
    // Shifted into a register: writing bytes to memory and reading them back as one
    // number would stall the load.
    let mut packed = 0u64;
    for (i, &b) in word.iter().enumerate() {
        if !b.is_ascii_alphanumeric() {
            return None;
        }
        packed |= u64::from(b.to_ascii_lowercase()) << (8 * i);
    }
    Some(packed)
}

/// Packed words (see [`pack`]) to numbers, by open addressing: a lookup is a multiply
/// and, nearly always, one comparison.
#[derive(Default)]
struct WordTable {
    /// Key 0 marks an empty slot (no word packs to 0).
    slots: Vec<(u64, u16)>,
}

impl WordTable {
    /// The names that pack (the others are never asked for here).
    fn new<'a>(names: impl Iterator<Item = (&'a str, u16)>) -> WordTable {
        let words: Vec<(u64, u16)> = names.filter_map(|(n, v)| Some((pack(n.as_bytes())?, v))).collect();
        let mut table = WordTable { slots: vec![(0, 0); (words.len() * 2).next_power_of_two().max(16)] };
        for (key, value) in words {
            let mut i = table.slot(key);
            while table.slots[i].0 != 0 && table.slots[i].0 != key {
                i = (i + 1) & (table.slots.len() - 1);
            }
            table.slots[i] = (key, value);
        }
        table
    }

    fn slot(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as usize & (self.slots.len() - 1)
    }

    fn get(&self, key: u64) -> Option<u16> {
        if self.slots.is_empty() {
            return None;
        }
        let mut i = self.slot(key);
        loop {
            match self.slots[i] {
                (0, _) => return None,
                (k, v) if k == key => return Some(v),
                _ => i = (i + 1) & (self.slots.len() - 1),
            }
        }
    }
}

/// Normalize a candidate like `map::normalize_name` and hand it to `f`; ASCII candidates
/// are normalized on the stack.
fn with_normalized<R>(candidate: &str, f: impl FnOnce(&str) -> Option<R>) -> Option<R> {
    if candidate.len() > LONGEST_CANDIDATE {
        return None;
    }
    if !candidate.is_ascii() {
        return f(&normalize_name(candidate));
    }
    let mut buf = [0u8; LONGEST_CANDIDATE];
    let mut len = 0;
    let mut space_pending = false;
    for &b in candidate.as_bytes() {
        match b {
            b'.' | b'\'' => {}
            b'-' | b'_' => space_pending = len > 0,
            b if (b as char).is_whitespace() => space_pending = len > 0,
            b => {
                if space_pending {
                    buf[len] = b' ';
                    len += 1;
                    space_pending = false;
                }
                buf[len] = b.to_ascii_lowercase();
                len += 1;
            }
        }
    }
    // Only ASCII bytes were written, and never more than the candidate's length.
    f(std::str::from_utf8(&buf[..len]).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_normalizing_agrees_with_the_map() {
        for name in ["St. Petersburg", "  mid-atlantic   OCEAN ", "gulf_of_lyon", "nth", "it's", "--x--", ""] {
            let ours = with_normalized(name, |n| Some(n.to_string())).unwrap();
            assert_eq!(ours, normalize_name(name), "{name:?}");
        }
    }

    #[test]
    fn indexed_and_direct_lookups_agree() {
        let map = Map::standard();
        let (indexed, direct) = (Names::indexed(&map), Names::direct(&map));
        let mut all: Vec<String> = map.place_names().map(|(n, _)| n.to_string()).collect();
        all.extend(map.place_names().map(|(n, _)| format!("{n} s")));
        all.extend(map.place_names().map(|(n, _)| n.to_uppercase()));
        for name in all {
            assert_eq!(indexed.province(&name), map.lookup_province(&name), "{name}");
        }
        for name in ["North Sea", "St. Petersburg", "Mid-Atlantic Ocean", "ENG", "xyz", "Bürgundy", "nth s a", "zzz"] {
            assert_eq!(indexed.province(name), direct.province(name), "{name}");
            assert_eq!(indexed.power(name), direct.power(name), "{name}");
        }
        assert_eq!(indexed.place_words, 3);
    }

    #[test]
    fn packed_words_agree_with_normalizing() {
        let map = Map::standard();
        let (indexed, direct) = (Names::indexed(&map), Names::direct(&map));
        let words = ["north", "NTH", "sea", "St.", "st", "petersburg", "gulf", "of", "lyon", "x", "", "é", "mid"];
        let gaps = [" ", "-", "  ", "_", ". ", "'", " -", "/", "\t"];
        for a in words {
            for gap in gaps {
                for b in words {
                    for tail in ["", " ", "-", ".", " atlantic", "-ocean"] {
                        let name = format!("{a}{gap}{b}{tail}");
                        assert_eq!(indexed.province(&name), direct.province(&name), "{name:?}");
                        assert_eq!(indexed.power(&name), direct.power(&name), "{name:?}");
                    }
                }
            }
        }
        for name in [
            "abcdefghijklmnopq",
            "abcdefgh",
            "abcdefghi",
            "piedmont",
            "austria",
            "AUSTRIA-hungary",
            "0",
            "england",
            "ENG",
            "eng",
        ] {
            assert_eq!(indexed.province(name), direct.province(name), "{name:?}");
            assert_eq!(indexed.power(name), direct.power(name), "{name:?}");
        }
    }
}
