//! Every order a unit could be given in a movement phase: exactly the orders that
//! [`legality`](super::legality) accepts (a move to each neighbour, each convoy the
//! fleets at sea make possible, each support and convoy the unit could give), found from
//! the map's reach tables ([`Map::reach`]) and the units' places at once instead of
//! checking each candidate alone.
//!
//! A support of a move needs a unit that can reach a province this unit also reaches, by
//! land or sea or (an army) by a convoy that does not pass through the supporting fleet;
//! a convoy needs a fleet on a route no fleet can be left out of (DATC 4.E.1, 6.G.19),
//! found for every destination at once by walking the routes from each army.

use std::borrow::Cow;

use crate::diplomacy::judge::legality::necessary_for_a_route;
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::reach::{contains, insert, members, remove};
use crate::diplomacy::map::{Map, ProvinceId, RegionId, Terrain, UnitType};
use crate::diplomacy::order::{Order, Place, UnitRef};

/// One order a unit could be given, as the few numbers that say it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Possible {
    /// `A par H`.
    Hold(UnitType, RegionId),
    /// `A par - bur`: to a region next to the unit.
    Move(UnitType, RegionId, RegionId),
    /// `A lon - bre via convoy`.
    Via(UnitType, RegionId, ProvinceId),
    /// `A mun S A bur`.
    SupportHold(UnitType, RegionId, UnitType, RegionId),
    /// `F mao S A par - bre`.
    SupportMove(UnitType, RegionId, UnitType, RegionId, ProvinceId),
    /// `F eng C A lon - bre`.
    Convoy(UnitType, RegionId, UnitType, RegionId, ProvinceId),
    /// `A par R bur` (a retreat phase).
    Retreat(UnitType, RegionId, RegionId),
    /// `A par D`: a disband in a retreat phase, a removal in Winter.
    Disband(UnitType, RegionId),
    /// `A par B`.
    Build(UnitType, RegionId),
    /// `waive`.
    Waive,
}

impl Possible {
    /// The order as the judge reads it (a Winter removal is a disband).
    pub fn order(self, map: &Map) -> Order<Place> {
        let at = |r: RegionId| Place { province: map.province_of(r), coast: map.region(r).coast };
        let unit = |k: UnitType, r: RegionId| UnitRef { kind: Some(k), at: at(r) };
        let whole = |p: ProvinceId| Place { province: p, coast: None };
        match self {
            Possible::Hold(k, r) => Order::Hold { unit: unit(k, r) },
            Possible::Move(k, r, to) => Order::Move { unit: unit(k, r), to: at(to), via_convoy: false },
            Possible::Via(k, r, to) => Order::Move { unit: unit(k, r), to: whole(to), via_convoy: true },
            Possible::SupportHold(k, r, k2, r2) => Order::SupportHold { unit: unit(k, r), supported: unit(k2, r2) },
            Possible::SupportMove(k, r, k2, r2, to) => {
                Order::SupportMove { unit: unit(k, r), supported: unit(k2, r2), to: whole(to) }
            }
            Possible::Convoy(k, r, k2, r2, to) => Order::Convoy { unit: unit(k, r), army: unit(k2, r2), to: whole(to) },
            Possible::Retreat(k, r, to) => Order::Retreat { unit: unit(k, r), to: at(to) },
            Possible::Disband(k, r) => Order::Disband { unit: unit(k, r) },
            Possible::Build(k, r) => Order::Build { kind: Some(k), at: at(r) },
            Possible::Waive => Order::Waive,
        }
    }
}

/// The work of walking convoy routes beyond which [`necessary_for_a_route`] gives up
/// (and says yes): a walk that grows this large is left to it, one order at a time.
const ROUTE_BUDGET: u64 = 200_000;

/// The units of one board with the sets every unit's orders are found from.
struct Board<'a> {
    map: &'a Map,
    words: usize,
    /// Per unit: its province.
    at: Vec<ProvinceId>,
    /// Per province: the first unit standing there (the unit the legality check finds).
    first: Vec<u32>,
    /// Seas holding a fleet.
    fleets: Vec<u64>,
    /// Per unit (words each): the provinces it reaches in one step.
    steps: Vec<u64>,
    /// Per unit that could be convoyed (an army on a coast, a fleet at sea somewhere):
    /// the seas a convoy from its province could pass through, and the coasts where an
    /// army can stand that it could land on; empty sets otherwise.
    seas: Vec<u64>,
    landings: Vec<u64>,
    convoyable: Vec<bool>,
}

impl<'a> Board<'a> {
    fn new(map: &'a Map, units: &[Unit]) -> Board<'a> {
        let reach = map.reach();
        let words = reach.words();
        let n = units.len();
        let at: Vec<ProvinceId> = units.iter().map(|u| map.province_of(u.region)).collect();
        let mut first = vec![u32::MAX; map.provinces().len()];
        for (i, p) in at.iter().enumerate().rev() {
            first[p.0 as usize] = i as u32;
        }
        let mut fleets = vec![0u64; words];
        for (u, p) in units.iter().zip(&at) {
            if u.kind == UnitType::Fleet && map.province(*p).terrain == Terrain::Sea {
                insert(&mut fleets, *p);
            }
        }
        let mut steps = vec![0u64; n * words];
        for (i, u) in units.iter().enumerate() {
            steps[i * words..(i + 1) * words].copy_from_slice(reach.moves(u.kind, u.region));
        }
        let any_fleet = fleets.iter().any(|w| *w != 0);
        let mut board = Board {
            map,
            words,
            at,
            first,
            fleets,
            steps,
            seas: vec![0; n * words],
            landings: vec![0; n * words],
            convoyable: vec![false; n],
        };
        for (i, u) in units.iter().enumerate() {
            let from = board.at[i];
            if u.kind == UnitType::Army && map.province(from).terrain == Terrain::Coast && any_fleet {
                board.convoyable[i] = true;
                let (seas, mut coasts) = board.convoy_reach(from, None);
                for (c, l) in coasts.iter_mut().zip(reach.landings()) {
                    *c &= l;
                }
                board.seas[i * words..(i + 1) * words].copy_from_slice(&seas);
                board.landings[i * words..(i + 1) * words].copy_from_slice(&coasts);
            }
        }
        board
    }

    fn row<'s>(&self, set: &'s [u64], i: usize) -> &'s [u64] {
        &set[i * self.words..(i + 1) * self.words]
    }

    /// From a coast: the seas holding fleets a convoy could pass through (connected, one
    /// of them next to `from`; never `without`), and the coastal provinces next to one of
    /// them (`from` left out).
    fn convoy_reach(&self, from: ProvinceId, without: Option<ProvinceId>) -> (Vec<u64>, Vec<u64>) {
        let reach = self.map.reach();
        let usable = |set: &mut [u64]| {
            for (w, f) in set.iter_mut().zip(&self.fleets) {
                *w &= f;
            }
            if let Some(x) = without {
                remove(set, x);
            }
        };
        let mut seas = reach.adjacent(from).to_vec();
        usable(&mut seas);
        let mut stack: Vec<ProvinceId> = members(&seas).collect();
        let mut next = vec![0u64; self.words];
        while let Some(s) = stack.pop() {
            next.copy_from_slice(reach.adjacent(s));
            usable(&mut next);
            for (n, seen) in next.iter_mut().zip(seas.iter_mut()) {
                *n &= !*seen;
                *seen |= *n;
            }
            stack.extend(members(&next));
        }
        let mut coasts = vec![0u64; self.words];
        for s in members(&seas) {
            for (l, a) in coasts.iter_mut().zip(reach.adjacent(s)) {
                *l |= a;
            }
        }
        for (l, c) in coasts.iter_mut().zip(reach.coasts()) {
            *l &= c;
        }
        remove(&mut coasts, from);
        (seas, coasts)
    }

    /// Per province (words each): the fleets at sea on some convoy route from `from` to it
    /// that no fleet can be left out of, as [`necessary_for_a_route`] decides for one fleet
    /// and one destination. `None` when the routes are too many to walk here.
    fn necessary_fleets(&self, from: ProvinceId) -> Option<Vec<u64>> {
        let mut walk = Walk {
            map: self.map,
            fleets: &self.fleets,
            words: self.words,
            from,
            path: Vec::new(),
            on_path: vec![0; self.words],
            touched: vec![0; self.words],
            found: vec![0; self.map.provinces().len() * self.words],
            work: 0,
        };
        walk.extend().then_some(walk.found)
    }
}

/// A walk over every convoy route from one coast (see [`Board::necessary_fleets`]): a
/// route is a chain of seas holding fleets, the first next to `from`, where each sea
/// touches no sea of the chain but its neighbours and no sea but the first touches
/// `from`; it ends at each province next to its last sea and to no sea before.
struct Walk<'b> {
    map: &'b Map,
    fleets: &'b [u64],
    words: usize,
    from: ProvinceId,
    /// The seas of the route so far, in order.
    path: Vec<ProvinceId>,
    /// The same, as a set.
    on_path: Vec<u64>,
    /// The provinces next to a sea of the route so far.
    touched: Vec<u64>,
    /// Per province: the fleets on some route ending there.
    found: Vec<u64>,
    /// As the legality check counts it: provinces looked at.
    work: u64,
}

impl Walk<'_> {
    /// Walk on from the route so far; false when the work grew too large.
    fn extend(&mut self) -> bool {
        self.work += self.map.provinces().len() as u64;
        if self.work > ROUTE_BUDGET {
            return false;
        }
        let reach = self.map.reach();
        let words = self.words;
        let last = self.path.last().copied().unwrap_or(self.from);
        let next: Vec<u64> =
            reach.adjacent(last).iter().zip(self.fleets).zip(&self.on_path).map(|((a, f), on)| a & f & !on).collect();
        for s in members(&next) {
            let around = reach.adjacent(s);
            let shortcut = (!self.path.is_empty() && contains(around, self.from))
                || self.path.iter().rev().skip(1).any(|p| contains(reach.adjacent(*p), s));
            if shortcut {
                continue;
            }
            insert(&mut self.on_path, s);
            for (t, (a, seen)) in around.iter().zip(&self.touched).enumerate() {
                let mut ends = a & !seen;
                while ends != 0 {
                    let to = t * 64 + ends.trailing_zeros() as usize;
                    ends &= ends - 1;
                    for (w, on) in self.found[to * words..(to + 1) * words].iter_mut().zip(&self.on_path) {
                        *w |= on;
                    }
                }
            }
            let before = self.touched.clone();
            for (w, a) in self.touched.iter_mut().zip(around) {
                *w |= a;
            }
            self.path.push(s);
            let whole = self.extend();
            self.path.pop();
            self.touched = before;
            remove(&mut self.on_path, s);
            if !whole {
                return false;
            }
        }
        true
    }
}

/// Every order each unit of `units` for which `wanted` says yes could be given in a
/// movement phase, by unit index: the hold, a move to each neighbouring region, each
/// convoyed move, then unit by unit each support and convoy the legality check accepts
/// (destinations in the order of the provinces' ids).
pub fn movement_orders(map: &Map, units: &[Unit], wanted: impl Fn(&Unit) -> bool) -> Vec<(usize, Vec<Possible>)> {
    let board = Board::new(map, units);
    let words = board.words;
    // Per convoyable army, once needed: the fleets necessary to each destination.
    let mut necessary: Vec<Option<Option<Vec<u64>>>> = vec![None; units.len()];
    let mut out = Vec::with_capacity(units.len());
    let mut dests = vec![0u64; words];
    for (i, u) in units.iter().enumerate().filter(|(_, u)| wanted(u)) {
        let (k, r, at) = (u.kind, u.region, board.at[i]);
        let mine = board.row(&board.steps, i);
        let mut list = Vec::with_capacity(32);
        list.push(Possible::Hold(k, r));
        list.extend(map.neighbours(k, r).map(|to| Possible::Move(k, r, to)));
        if board.convoyable[i] {
            list.extend(members(board.row(&board.landings, i)).map(|c| Possible::Via(k, r, c)));
        }
        let at_sea = k == UnitType::Fleet && map.province(at).terrain == Terrain::Sea;
        for (j, v) in units.iter().enumerate() {
            let from = board.at[j];
            if j == i || from == at {
                continue; // a unit cannot support itself
            }
            if contains(mine, from) {
                list.push(Possible::SupportHold(k, r, v.kind, v.region));
            }
            // Where `v` could go (by land or sea, or a convoy), that this unit reaches
            // and the unit the legality check finds there (`v` unless two stand there)
            // really can: by land or sea, or by a convoy not only through this fleet.
            let convoyed = board.convoyable[j];
            let wide = |w: usize| board.steps[j * words + w] | if convoyed { board.landings[j * words + w] } else { 0 };
            if (0..words).any(|w| mine[w] & wide(w) != 0) {
                let mover = board.first[from.0 as usize] as usize;
                for (w, d) in dests.iter_mut().enumerate() {
                    *d = mine[w] & wide(w) & board.steps[mover * words + w];
                }
                // An army on a coast, with fleets at sea: it could go by sea.
                if board.convoyable[mover] {
                    let through_me = at_sea && contains(board.row(&board.seas, mover), at);
                    let coasts = if mover == j && convoyed && !through_me {
                        // The wide net's landings are where it can go by sea.
                        Cow::Borrowed(board.row(&board.landings, j))
                    } else {
                        Cow::Owned(board.convoy_reach(from, at_sea.then_some(at)).1)
                    };
                    for (w, d) in dests.iter_mut().enumerate() {
                        *d |= mine[w] & wide(w) & coasts[w];
                    }
                }
                remove(&mut dests, at);
                remove(&mut dests, from);
                list.extend(members(&dests).map(|to| Possible::SupportMove(k, r, v.kind, v.region, to)));
            }
            if at_sea && convoyed && contains(board.row(&board.seas, j), at) {
                if units[board.first[from.0 as usize] as usize].kind != UnitType::Army {
                    continue;
                }
                let found = necessary[j].get_or_insert_with(|| board.necessary_fleets(from));
                for c in members(board.row(&board.landings, j)) {
                    let ok = match found {
                        Some(f) => contains(&f[c.0 as usize * words..(c.0 as usize + 1) * words], at),
                        None => necessary_for_a_route(map, &fleet_flags(map, &board.fleets), from, c, at),
                    };
                    if ok {
                        list.push(Possible::Convoy(k, r, v.kind, v.region, c));
                    }
                }
            }
        }
        out.push((i, list));
    }
    out
}

/// A set of provinces as the legality check holds the fleets at sea: a flag per province.
fn fleet_flags(map: &Map, fleets: &[u64]) -> Vec<bool> {
    map.province_ids().map(|p| contains(fleets, p)).collect()
}
