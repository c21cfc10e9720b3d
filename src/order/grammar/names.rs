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

use crate::map::{normalize_name, Map, PowerId, ProvinceId};

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
    /// Normalized place names of three letters `a`-`z` (most short names), by
    /// [`three_letters`]: the province + 1, or 0. Exactly the table's entries of that shape.
    short: Vec<u16>,
    /// The first words of the table's names of several words: a normalized candidate
    /// with a space whose first word is not here is no name.
    first_words: Table<'m, ()>,
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
        let mut short = vec![0u16; 26 * 26 * 26];
        let mut first_words = Table::default();
        for (name, p) in &places {
            if let Some(i) = three_letters(name) {
                short[i] = p.0.saturating_add(1);
            }
            if let Some((first, _)) = name.split_once(' ') {
                first_words.insert(first, ());
            }
        }
        Names { map, places: Some(places), powers: Some(powers), short, first_words, place_words, power_words }
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
            short: Vec::new(),
            first_words: Table::default(),
            place_words,
            power_words,
        }
    }

    pub(super) fn province(&self, candidate: &str) -> Option<ProvinceId> {
        match &self.places {
            Some(table) => with_normalized(candidate, |n| self.indexed_province(table, n)),
            None if candidate.len() <= LONGEST_CANDIDATE => self.map.lookup_province(candidate),
            None => None,
        }
    }

    pub(super) fn power(&self, candidate: &str) -> Option<PowerId> {
        match &self.powers {
            Some(table) => with_normalized(candidate, |n| table.get(n).copied()),
            None if candidate.len() <= LONGEST_CANDIDATE => self.map.lookup_power(candidate),
            None => None,
        }
    }

    /// A normalized name in the tables: `table.get(n)`, answered without hashing when
    /// the short table or the first words settle it.
    fn indexed_province(&self, table: &Table<'m, ProvinceId>, n: &str) -> Option<ProvinceId> {
        if let Some(i) = three_letters(n) {
            return self.short[i].checked_sub(1).map(ProvinceId);
        }
        if let Some((first, _)) = n.split_once(' ') {
            if !self.first_words.contains_key(first) {
                return None;
            }
        }
        table.get(n).copied()
    }

    /// Exactly [`Map::lookup_province`] (any length), from the tables when they exist.
    pub(super) fn province_exact(&self, name: &str) -> Option<ProvinceId> {
        match &self.places {
            Some(table) if name.len() <= LONGEST_CANDIDATE => {
                with_normalized(name, |n| self.indexed_province(table, n))
            }
            _ => self.map.lookup_province(name),
        }
    }

    /// Exactly [`Map::lookup_power`] (any length), from the tables when they exist.
    pub(super) fn power_exact(&self, name: &str) -> Option<PowerId> {
        match &self.powers {
            Some(table) if name.len() <= LONGEST_CANDIDATE => with_normalized(name, |n| table.get(n).copied()),
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

/// The index of a name of exactly three letters `a`-`z` in a 26^3 table.
fn three_letters(n: &str) -> Option<usize> {
    match *n.as_bytes() {
        [a @ b'a'..=b'z', b @ b'a'..=b'z', c @ b'a'..=b'z'] => {
            Some(((a - b'a') as usize * 26 + (b - b'a') as usize) * 26 + (c - b'a') as usize)
        }
        _ => None,
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
}
