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

use std::ops::Range;

use crate::diplomacy::judge::legality::necessary_for_a_route;
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::reach::{contains, insert, members, remove};
use crate::diplomacy::map::{Map, ProvinceId, RegionId, UnitType};
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

/// A set of provinces of a map of at most `64 * W` provinces, held in place (no
/// allocation): bit `p` for province `p`, as the map's reach tables hold them.
type Set<const W: usize> = [u64; W];

/// One of the map's sets (a slice of its words) as a [`Set`].
fn set<const W: usize>(words: &[u64]) -> Set<W> {
    let mut s = [0; W];
    s[..words.len()].copy_from_slice(words);
    s
}

fn and<const W: usize>(a: &Set<W>, b: &Set<W>) -> Set<W> {
    std::array::from_fn(|w| a[w] & b[w])
}

fn or<const W: usize>(a: &Set<W>, b: &Set<W>) -> Set<W> {
    std::array::from_fn(|w| a[w] | b[w])
}

fn is_empty<const W: usize>(s: &Set<W>) -> bool {
    s.iter().all(|w| *w == 0)
}

/// Take the first province out of a set.
fn pop<const W: usize>(s: &mut Set<W>) -> Option<ProvinceId> {
    let w = s.iter().position(|w| *w != 0)?;
    let bit = s[w].trailing_zeros() as usize;
    s[w] &= s[w] - 1;
    Some(ProvinceId((w * 64 + bit) as u16))
}

/// One unit of the board, with the sets its orders and the orders of others are found
/// from.
struct Piece<const W: usize> {
    kind: UnitType,
    region: RegionId,
    at: ProvinceId,
    /// The unit the legality check finds in this unit's province: this one, unless an
    /// earlier unit stands there too.
    found_here: usize,
    /// An army on a coast, with fleets at sea: it could be convoyed.
    convoyable: bool,
    /// The provinces it reaches in one step.
    steps: Set<W>,
    /// When convoyable: the seas holding fleets a convoy from its province could pass
    /// through, and the coasts where an army can stand that it could land on (empty
    /// otherwise).
    seas: Set<W>,
    landings: Set<W>,
    /// Where it could go: in one step, or convoyed.
    wide: Set<W>,
}

/// The units of one board with the sets every unit's orders are found from.
struct Board<'a, const W: usize> {
    map: &'a Map,
    /// Seas holding a fleet.
    fleets: Set<W>,
    pieces: Vec<Piece<W>>,
}

impl<'a, const W: usize> Board<'a, W> {
    fn new(map: &'a Map, units: &[Unit]) -> Board<'a, W> {
        let reach = map.reach();
        let (sea, coasts, landings) = (set::<W>(reach.seas()), set::<W>(reach.coasts()), set::<W>(reach.landings()));
        let mut fleets = [0; W];
        for u in units.iter().filter(|u| u.kind == UnitType::Fleet) {
            let p = map.province_of(u.region);
            if contains(&sea, p) {
                insert(&mut fleets, p);
            }
        }
        let any_fleet = !is_empty(&fleets);
        let mut board = Board { map, fleets, pieces: Vec::with_capacity(units.len()) };
        let mut occupied = [0; W];
        for (i, u) in units.iter().enumerate() {
            let at = map.province_of(u.region);
            let found_here = if contains(&occupied, at) {
                board.pieces.iter().position(|p| p.at == at).unwrap_or(i)
            } else {
                insert(&mut occupied, at);
                i
            };
            let steps = set::<W>(reach.moves(u.kind, u.region));
            let convoyable = u.kind == UnitType::Army && contains(&coasts, at) && any_fleet;
            let (seas, reached) = if convoyable { board.convoy_reach(at, None) } else { ([0; W], [0; W]) };
            let landings = and(&reached, &landings);
            let wide = or(&steps, &landings);
            board.pieces.push(Piece {
                kind: u.kind,
                region: u.region,
                at,
                found_here,
                convoyable,
                steps,
                seas,
                landings,
                wide,
            });
        }
        board
    }

    /// From a coast: the seas holding fleets a convoy could pass through (connected, one
    /// of them next to `from`; never `without`), and the coastal provinces next to one of
    /// them (`from` left out).
    fn convoy_reach(&self, from: ProvinceId, without: Option<ProvinceId>) -> (Set<W>, Set<W>) {
        let reach = self.map.reach();
        let mut usable = self.fleets;
        if let Some(x) = without {
            remove(&mut usable, x);
        }
        let mut seas = and(&set(reach.adjacent(from)), &usable);
        let mut left = seas;
        while let Some(s) = pop(&mut left) {
            let around = set::<W>(reach.adjacent(s));
            let next: Set<W> = std::array::from_fn(|w| around[w] & usable[w] & !seas[w]);
            seas = or(&seas, &next);
            left = or(&left, &next);
        }
        let mut coasts = [0; W];
        let mut each = seas;
        while let Some(s) = pop(&mut each) {
            coasts = or(&coasts, &set(reach.adjacent(s)));
        }
        let mut coasts = and(&coasts, &set(reach.coasts()));
        remove(&mut coasts, from);
        (seas, coasts)
    }

    /// Into `found` (per province): the fleets at sea on some convoy route from `from` to
    /// it that no fleet can be left out of, as [`necessary_for_a_route`] decides for one
    /// fleet and one destination. False when the routes are too many to walk here.
    fn necessary_fleets(&self, from: ProvinceId, path: &mut Vec<ProvinceId>, found: &mut [Set<W>]) -> bool {
        found.fill([0; W]);
        path.clear();
        let mut walk = Walk { map: self.map, fleets: &self.fleets, from, path, on_path: [0; W], found, work: 0 };
        walk.extend([0; W])
    }
}

/// A walk over every convoy route from one coast (see [`Board::necessary_fleets`]): a
/// route is a chain of seas holding fleets, the first next to `from`, where each sea
/// touches no sea of the chain but its neighbours and no sea but the first touches
/// `from`; it ends at each province next to its last sea and to no sea before.
struct Walk<'b, const W: usize> {
    map: &'b Map,
    fleets: &'b Set<W>,
    from: ProvinceId,
    /// The seas of the route so far, in order.
    path: &'b mut Vec<ProvinceId>,
    /// The same, as a set.
    on_path: Set<W>,
    /// Per province: the fleets on some route ending there.
    found: &'b mut [Set<W>],
    /// As the legality check counts it: provinces looked at.
    work: u64,
}

impl<const W: usize> Walk<'_, W> {
    /// Walk on from the route so far, `touched` being the provinces next to one of its
    /// seas; false when the work grew too large.
    fn extend(&mut self, touched: Set<W>) -> bool {
        self.work += self.map.provinces().len() as u64;
        if self.work > ROUTE_BUDGET {
            return false;
        }
        let reach = self.map.reach();
        let last = self.path.last().copied().unwrap_or(self.from);
        let beside = set::<W>(reach.adjacent(last));
        let mut next: Set<W> = std::array::from_fn(|w| beside[w] & self.fleets[w] & !self.on_path[w]);
        while let Some(s) = pop(&mut next) {
            let around = set::<W>(reach.adjacent(s));
            let shortcut = (!self.path.is_empty() && contains(&around, self.from))
                || self.path.iter().rev().skip(1).any(|p| contains(reach.adjacent(*p), s));
            if shortcut {
                continue;
            }
            insert(&mut self.on_path, s);
            let mut ends: Set<W> = std::array::from_fn(|w| around[w] & !touched[w]);
            while let Some(to) = pop(&mut ends) {
                let f = &mut self.found[to.0 as usize];
                *f = or(f, &self.on_path);
            }
            self.path.push(s);
            let whole = self.extend(or(&touched, &around));
            self.path.pop();
            remove(&mut self.on_path, s);
            if !whole {
                return false;
            }
        }
        true
    }
}

/// Every order each unit of `units` for which `wanted` says yes could be given in a
/// movement phase, added to `orders` unit by unit; `each` is told each such unit's index
/// and where its orders are. A unit's orders: the hold, a move to each neighbouring
/// region, each convoyed move, then unit by unit each support and convoy the legality
/// check accepts (destinations in the order of the provinces' ids).
pub fn movement_orders(
    map: &Map,
    units: &[Unit],
    wanted: impl Fn(&Unit) -> bool,
    orders: &mut Vec<Possible>,
    each: impl FnMut(usize, Range<usize>),
) {
    // Sets as small as the map allows (a map has at most 4,000 regions, so as many
    // provinces: 63 words).
    match map.reach().words() {
        0..=2 => orders_on::<2>(map, units, wanted, orders, each),
        3..=8 => orders_on::<8>(map, units, wanted, orders, each),
        _ => orders_on::<64>(map, units, wanted, orders, each),
    }
}

fn orders_on<const W: usize>(
    map: &Map,
    units: &[Unit],
    wanted: impl Fn(&Unit) -> bool,
    orders: &mut Vec<Possible>,
    mut each: impl FnMut(usize, Range<usize>),
) {
    let reach = map.reach();
    let board = Board::<W>::new(map, units);
    let pieces = &board.pieces;
    let sea = set::<W>(reach.seas());
    // Per convoyable army, once needed: the fleets necessary to each of its landings, in
    // their order (`walked[j]` is where they start in `necessary`), or `TOO_MANY` when
    // the routes are too many to walk here.
    const NOT_YET: u32 = u32::MAX;
    const TOO_MANY: u32 = u32::MAX - 1;
    let mut walked: Vec<u32> = Vec::new();
    let mut necessary: Vec<Set<W>> = Vec::new();
    let mut path: Vec<ProvinceId> = Vec::new();
    let mut found: Vec<Set<W>> = Vec::new();
    // Per province (a set of units, `span` words each): the units standing there, going
    // there (in one step or convoyed) or convoyed through it. A unit's orders name only
    // those of the provinces it reaches (and, a fleet at sea, of its own).
    let span = pieces.len().div_ceil(64);
    let mut near = vec![0u64; map.provinces().len() * span];
    for (j, v) in pieces.iter().enumerate() {
        let (word, bit) = (j / 64, 1u64 << (j % 64));
        near[v.at.0 as usize * span + word] |= bit;
        for p in members(&or(&v.wide, &v.seas)) {
            near[p.0 as usize * span + word] |= bit;
        }
    }
    let mut others = vec![0u64; span];
    for (i, u) in units.iter().enumerate().filter(|(_, u)| wanted(u)) {
        let me = &pieces[i];
        let (k, r, at) = (me.kind, me.region, me.at);
        let start = orders.len();
        orders.push(Possible::Hold(k, r));
        orders.extend(reach.neighbours(k, r).iter().map(|to| Possible::Move(k, r, *to)));
        orders.extend(members(&me.landings).map(|c| Possible::Via(k, r, c)));
        let at_sea = u.kind == UnitType::Fleet && contains(&sea, at);
        others.fill(0);
        for p in members(&me.steps).chain(at_sea.then_some(at)) {
            for (o, n) in others.iter_mut().zip(&near[p.0 as usize * span..]) {
                *o |= n;
            }
        }
        let others = others.iter().enumerate().flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let j = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    j
                })
            })
        });
        for j in others {
            let v = &pieces[j];
            let from = v.at;
            if j == i || from == at {
                continue; // a unit cannot support itself
            }
            if contains(&me.steps, from) {
                orders.push(Possible::SupportHold(k, r, v.kind, v.region));
            }
            // Where `v` could go (by land or sea, or a convoy), that this unit reaches
            // and the unit the legality check finds there (`v` unless two stand there)
            // really can: by land or sea, or by a convoy not only through this fleet.
            let shared = and(&me.steps, &v.wide);
            if !is_empty(&shared) {
                let mover = &pieces[v.found_here];
                let mut dests = and(&shared, &mover.steps);
                // An army on a coast, with fleets at sea: it could go by sea.
                if mover.convoyable {
                    let through_me = at_sea && contains(&mover.seas, at);
                    let coasts = if v.found_here == j && !through_me {
                        // Its landings are where it can go by sea.
                        v.landings
                    } else {
                        board.convoy_reach(from, at_sea.then_some(at)).1
                    };
                    dests = or(&dests, &and(&shared, &coasts));
                }
                remove(&mut dests, at);
                remove(&mut dests, from);
                orders.extend(members(&dests).map(|to| Possible::SupportMove(k, r, v.kind, v.region, to)));
            }
            if at_sea && v.convoyable && contains(&v.seas, at) {
                if pieces[v.found_here].kind != UnitType::Army {
                    continue;
                }
                if walked.is_empty() {
                    walked = vec![NOT_YET; pieces.len()];
                }
                if walked[j] == NOT_YET {
                    if found.is_empty() {
                        found = vec![[0; W]; map.provinces().len()];
                    }
                    walked[j] = if board.necessary_fleets(from, &mut path, &mut found) {
                        let first = necessary.len() as u32;
                        necessary.extend(members(&v.landings).map(|c| found[c.0 as usize]));
                        first
                    } else {
                        TOO_MANY
                    };
                }
                for (n, c) in members(&v.landings).enumerate() {
                    let ok = match walked[j] {
                        TOO_MANY => necessary_for_a_route(map, &fleet_flags(map, &board.fleets), from, c, at),
                        first => contains(&necessary[first as usize + n], at),
                    };
                    if ok {
                        orders.push(Possible::Convoy(k, r, v.kind, v.region, c));
                    }
                }
            }
        }
        each(i, start..orders.len());
    }
}

/// A set of provinces as the legality check holds the fleets at sea: a flag per province.
fn fleet_flags(map: &Map, fleets: &[u64]) -> Vec<bool> {
    map.province_ids().map(|p| contains(fleets, p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diplomacy::judge::random::random_phase;

    /// Every unit's orders with sets of `W` words.
    fn all_orders<const W: usize>(map: &Map, units: &[Unit]) -> Vec<(usize, Vec<Possible>)> {
        let mut orders = Vec::new();
        let mut places = Vec::new();
        orders_on::<W>(map, units, |_| true, &mut orders, |i, found| places.push((i, found)));
        places.into_iter().map(|(i, found)| (i, orders[found].to_vec())).collect()
    }

    #[test]
    fn wider_sets_find_the_same_orders() {
        // The standard map needs two words a set; larger maps use wider sets.
        let map = Map::standard();
        assert_eq!(map.reach().words(), 2);
        for seed in 0..200 {
            let units = random_phase(&map, seed).units;
            let two = all_orders::<2>(&map, &units);
            assert_eq!(two.len(), units.len());
            assert_eq!(all_orders::<8>(&map, &units), two, "board {seed}");
            assert_eq!(all_orders::<64>(&map, &units), two, "board {seed}");
        }
    }
}
