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

/// The orders one place of one board may be given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaceOrders {
    pub power: PowerId,
    pub board: Board,
    pub place: ProvinceId,
    pub orders: Vec<Possible>,
}

impl Game {
    /// Every order the powers `powers` could give this phase, by place: in a movement or
    /// retreat phase one entry per unit of theirs (board by board, in the order of the
    /// units), in a Winter one per place a power owing an adjustment may build in (each
    /// build, then `waive`) or remove from. Nothing once the game is over.
    pub fn possible_orders(&self, powers: &[PowerId]) -> Vec<PlaceOrders> {
        let units: usize = self.state.boards.iter().map(|b| b.units.len()).sum();
        let mut out = Vec::with_capacity(units);
        if self.state.end.is_some() {
            return out;
        }
        let map = &*self.map;
        match self.state.phase.kind {
            PhaseKind::Movement => {
                for (b, state) in self.state.boards.iter().enumerate() {
                    let units = &state.units;
                    for (i, orders) in movement_orders(map, units, |u| powers.contains(&u.power)) {
                        let u = units[i];
                        let place = map.province_of(u.region);
                        out.push(PlaceOrders { power: u.power, board: Board(b as u8), place, orders });
                    }
                }
            }
            PhaseKind::Retreats => {
                for (b, state) in self.state.boards.iter().enumerate() {
                    for r in state.retreating.iter().filter(|r| powers.contains(&r.dislodgement.unit.power)) {
                        let u = r.dislodgement.unit;
                        let mut orders: Vec<Possible> =
                            r.options.iter().map(|to| Possible::Retreat(u.kind, u.region, *to)).collect();
                        orders.push(Possible::Disband(u.kind, u.region));
                        let place = map.province_of(u.region);
                        out.push(PlaceOrders { power: u.power, board: Board(b as u8), place, orders });
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
    fn winter_possible(&self, power: PowerId, out: &mut Vec<PlaceOrders>) {
        let map = &*self.map;
        let delta = self.rules().adjustment(self, power);
        let first = out.len();
        for (b, state) in self.state.boards.iter().enumerate() {
            let board = Board(b as u8);
            let units = &state.units;
            if delta > 0 {
                for &h in map.home_centers(power) {
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
                        out.push(PlaceOrders { power, board, place: h, orders });
                    }
                }
            }
            if delta < 0 {
                for u in units.iter().filter(|u| u.power == power) {
                    let place = map.province_of(u.region);
                    // The unit a removal there names is the first one standing there.
                    if units.iter().find(|x| map.province_of(x.region) == place).is_some_and(|x| x.power == power) {
                        let orders = vec![Possible::Disband(u.kind, u.region)];
                        out.push(PlaceOrders { power, board, place, orders });
                    }
                }
            }
        }
        // Each place once (two units of a power in one place: one entry).
        let mut i = first;
        while i < out.len() {
            if let Some(j) = (first..i).find(|j| out[*j].board == out[i].board && out[*j].place == out[i].place) {
                let more = out.remove(i).orders;
                out[j].orders.extend(more);
            } else {
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests;
