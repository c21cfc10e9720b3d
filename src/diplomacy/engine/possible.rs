//! Every order each power could give this phase, place by place: exactly the orders the
//! judge would carry out as written (in a movement phase, each one the legality check
//! accepts; in a retreat phase, each retreat and the disband; in a Winter, each build,
//! removal and waive the judge would accept from the power alone).
//!
//! Found from the position directly: the movement phase's by
//! [`movement_orders`], a Winter's
//! from the home centers, their owners and the units, as the adjustment rules decide.

use crate::diplomacy::judge::adjustment::build_is_legal;
use crate::diplomacy::judge::possible::{movement_orders, Possible};
use crate::diplomacy::map::{PowerId, ProvinceId, UnitType};
use crate::diplomacy::order::{Board, Place};
use crate::phase::PhaseKind;

use super::Game;

/// Every order some powers could give this phase, place by place: the places in order,
/// and one list of all their orders, each place's in one stretch of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PossibleOrders {
    pub places: Vec<PlaceOrders>,
    pub orders: Vec<Possible>,
}

/// One place of one board, and where its orders are in [`PossibleOrders::orders`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaceOrders {
    pub power: PowerId,
    pub board: Board,
    pub place: ProvinceId,
    pub start: u32,
    pub end: u32,
}

impl PossibleOrders {
    /// The orders of one of the places.
    pub fn of(&self, p: &PlaceOrders) -> &[Possible] {
        &self.orders[p.start as usize..p.end as usize]
    }

    /// Each place with its orders, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&PlaceOrders, &[Possible])> {
        self.places.iter().map(|p| (p, self.of(p)))
    }

    /// A place whose orders are the ones added since `start`.
    fn push(&mut self, power: PowerId, board: Board, place: ProvinceId, start: usize) {
        self.places.push(PlaceOrders { power, board, place, start: start as u32, end: self.orders.len() as u32 });
    }
}

impl Game {
    /// Every order the powers `powers` could give this phase, by place: in a movement or
    /// retreat phase one entry per unit of theirs (board by board, in the order of the
    /// units), in a Winter one per place a power owing an adjustment may build in (each
    /// build, then `waive`) or remove from. Nothing once the game is over.
    pub fn possible_orders(&self, powers: &[PowerId]) -> PossibleOrders {
        let units: usize = self.state.boards.iter().map(|b| b.units.len()).sum();
        // Room for as many orders as a unit has in the most crowded positions (about 28
        // a unit, against 16 on average), so that the list is seldom moved to grow: a
        // move copies every order found so far, in memory the caller's own work has
        // left cold.
        let mut out = PossibleOrders { places: Vec::with_capacity(units), orders: Vec::with_capacity(units * 32) };
        if self.state.end.is_some() {
            return out;
        }
        let map = &*self.map;
        match self.state.phase.kind {
            PhaseKind::Movement => {
                for (b, state) in self.state.boards.iter().enumerate() {
                    let units = &state.units;
                    let PossibleOrders { places, orders } = &mut out;
                    movement_orders(
                        map,
                        units,
                        |u| powers.contains(&u.power),
                        orders,
                        |i, found| {
                            let u = units[i];
                            let place = map.province_of(u.region);
                            let (start, end) = (found.start as u32, found.end as u32);
                            places.push(PlaceOrders { power: u.power, board: Board(b as u8), place, start, end });
                        },
                    );
                }
            }
            PhaseKind::Retreats => {
                for (b, state) in self.state.boards.iter().enumerate() {
                    for r in state.retreating.iter().filter(|r| powers.contains(&r.dislodgement.unit.power)) {
                        let u = r.dislodgement.unit;
                        let start = out.orders.len();
                        out.orders.extend(r.options.iter().map(|to| Possible::Retreat(u.kind, u.region, *to)));
                        out.orders.push(Possible::Disband(u.kind, u.region));
                        out.push(u.power, Board(b as u8), map.province_of(u.region), start);
                    }
                }
            }
            PhaseKind::Adjustments => {
                for &p in powers.iter().filter(|p| self.has_duty(**p)) {
                    self.winter_possible(p, &mut out);
                }
            }
        }
        out
    }

    /// A power's Winter orders, each one the judge would accept alone: builds (and then
    /// the waive) when it is due builds, removals when it is due removals.
    fn winter_possible(&self, power: PowerId, all: &mut PossibleOrders) {
        let map = &*self.map;
        let delta = self.rules().adjustment(self, power);
        // The power's places and their orders, before they are added to `all`.
        let mut out: Vec<(Board, ProvinceId, Vec<Possible>)> = Vec::new();
        for (b, state) in self.state.boards.iter().enumerate() {
            let board = Board(b as u8);
            let units = &state.units;
            if delta > 0 {
                for h in map.build_sites(power) {
                    if units.iter().any(|u| map.province_of(u.region) == h) {
                        continue;
                    }
                    let mut orders = Vec::new();
                    for r in map.regions_of(h) {
                        for kind in [UnitType::Army, UnitType::Fleet] {
                            let at = Place { province: h, coast: map.region(r).coast };
                            if map.unit_can_stand(kind, r)
                                && build_is_legal(map, units, &state.ownership, power, kind, at).is_ok()
                            {
                                orders.push(Possible::Build(kind, r));
                            }
                        }
                    }
                    if !orders.is_empty() {
                        // A place to build at may also waive the build.
                        orders.push(Possible::Waive);
                        out.push((board, h, orders));
                    }
                }
            }
            if delta < 0 {
                for u in units.iter().filter(|u| u.power == power) {
                    let place = map.province_of(u.region);
                    // The unit a removal there names is the first one standing there.
                    if units.iter().find(|x| map.province_of(x.region) == place).is_some_and(|x| x.power == power) {
                        out.push((board, place, vec![Possible::Disband(u.kind, u.region)]));
                    }
                }
            }
        }
        // Each place once (two units of a power in one place: one entry).
        let mut i = 0;
        while i < out.len() {
            if let Some(j) = (0..i).find(|j| out[*j].0 == out[i].0 && out[*j].1 == out[i].1) {
                let more = out.remove(i).2;
                out[j].2.extend(more);
            } else {
                i += 1;
            }
        }
        for (board, place, orders) in out {
            let start = all.orders.len();
            all.orders.extend(orders);
            all.push(power, board, place, start);
        }
    }
}

#[cfg(test)]
mod tests;
