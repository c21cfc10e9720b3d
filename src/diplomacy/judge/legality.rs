//! Legality: from an order as written (`Order<Place>`) to a resolved [`MainOrder`] for a
//! unit on the board, or a typed reason why the order is illegal.
//!
//! "Legal" is the DATC's word (4.E.1): an order that, not knowing any other order, could
//! be valid. An illegal order is never silently dropped: the caller reports the
//! [`Illegal`] reason and the unit holds (it can still receive hold support). Orders that
//! are legal but do not match (a support for a move that was not ordered) are decided
//! by the adjudicator and reported there as void.
//!
//! This module reads the map and the units; it never adjudicates.

use crate::diplomacy::judge::rulebook::{DuplicateOrders, ImpossibleCoast, OmittedCoast, Rulebook, WrongUnitType};
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Coast, Map, PowerId, ProvinceId, RegionId, Terrain, UnitType};
use crate::diplomacy::order::{Order, Place};

/// A resolved movement-phase order, for the unit with the same index.
///
/// Supports and convoys name provinces: a coast in a support is ignored, except that a
/// coast written for a fleet's destination must match the move (`to_coast`, DATC 6.B.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MainOrder {
    #[default]
    Hold,
    /// `via_convoy` when the order insists on a convoy; a move to a province the army
    /// cannot reach over land goes by convoy anyway.
    Move {
        to: RegionId,
        via_convoy: bool,
    },
    SupportHold {
        target: ProvinceId,
    },
    SupportMove {
        from: ProvinceId,
        to: ProvinceId,
        to_coast: Option<RegionId>,
    },
    Convoy {
        from: ProvinceId,
        to: ProvinceId,
    },
}

/// Why an order is illegal. Each reason names what the order got wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Illegal {
    /// No unit stands in the province the order names.
    NoUnit {
        at: ProvinceId,
    },
    /// The unit belongs to another power (DATC 6.A.6).
    ForeignUnit {
        unit: Unit,
        ordered_by: PowerId,
    },
    /// The order names an army where a fleet stands or the reverse (DATC 4.C.2, only
    /// under the `wrong_unit_type: illegal` option).
    WrongUnitType {
        unit: Unit,
        written: UnitType,
    },
    /// A retreat, disband, build or waive in a movement phase.
    NotAMovementOrder,
    /// A move to the province the unit is in (DATC 6.A.4, 6.A.5).
    MoveToOwnProvince {
        unit: Unit,
    },
    ArmyToSea {
        unit: Unit,
        to: ProvinceId,
    },
    FleetInland {
        unit: Unit,
        to: ProvinceId,
    },
    /// Not adjacent and, for an army, no convoy could take it there (DATC 6.A.1, 6.A.9).
    Unreachable {
        unit: Unit,
        to: ProvinceId,
    },
    /// A fleet ordered to a split-coast province without a coast when both are reachable
    /// (DATC 4.B.1, 6.B.1), or when one is and the rulebook requires the coast.
    CoastRequired {
        unit: Unit,
        to: ProvinceId,
    },
    /// A fleet ordered to a coast it cannot reach (DATC 4.B.3, 6.B.3).
    ImpossibleCoast {
        unit: Unit,
        to: ProvinceId,
        coast: Coast,
    },
    /// Only armies are convoyed (DATC 6.A.7).
    FleetConvoyed {
        unit: Unit,
    },
    /// A unit cannot support itself (DATC 6.A.8).
    SupportOwnPosition {
        unit: Unit,
    },
    /// The supporting unit could not move to the province it supports into (DATC 6.A.10,
    /// 6.B.5).
    SupportUnreachable {
        unit: Unit,
        to: ProvinceId,
    },
    /// Nothing stands where the supported or convoyed unit should be.
    NoSupportedUnit {
        unit: Unit,
        at: ProvinceId,
    },
    /// The supported move is impossible for the supported unit, or could only happen by
    /// a convoy through the supporting fleet itself (DATC 6.A.5, 6.D.31).
    SupportedMoveImpossible {
        unit: Unit,
        from: ProvinceId,
        to: ProvinceId,
    },
    /// Only fleets at sea convoy.
    ConvoyNotAtSea {
        unit: Unit,
    },
    /// The convoy names a fleet, or a move an army could not make by convoy.
    ConvoyImpossible {
        unit: Unit,
        from: ProvinceId,
        to: ProvinceId,
    },
    /// The fleet is on no sea route between the two provinces (DATC 4.E.1, 6.G.19).
    ConvoyOffRoute {
        unit: Unit,
        from: ProvinceId,
        to: ProvinceId,
    },
    /// Two or more different orders for the same unit: all are void (DATC 4.D.3).
    ConflictingOrders {
        unit: Unit,
    },
}

impl Illegal {
    /// The reason in the words of the game, e.g. `A mun cannot reach bur`.
    pub fn describe(&self, map: &Map) -> String {
        let p = |p: &ProvinceId| map.province(*p).key.clone();
        let u = |u: &Unit| u.describe(map);
        match self {
            Illegal::NoUnit { at } => format!("no unit in {}", p(at)),
            Illegal::ForeignUnit { unit, ordered_by } => {
                format!("{} belongs to {}, not {}", u(unit), map.power(unit.power).name, map.power(*ordered_by).name)
            }
            Illegal::WrongUnitType { unit, written } => {
                format!(
                    "the unit in {} is {}, not {}",
                    map.region_name(unit.region),
                    unit_article(unit.kind),
                    unit_article(*written)
                )
            }
            Illegal::NotAMovementOrder => "not an order for a movement phase".to_string(),
            Illegal::MoveToOwnProvince { unit } => format!("{} cannot move to its own province", u(unit)),
            Illegal::ArmyToSea { unit, to } => format!("{} cannot move to sea ({})", u(unit), p(to)),
            Illegal::FleetInland { unit, to } => format!("{} cannot move inland ({})", u(unit), p(to)),
            Illegal::Unreachable { unit, to } => format!("{} cannot reach {}", u(unit), p(to)),
            Illegal::CoastRequired { unit, to } => format!("{} - {}: which coast?", u(unit), p(to)),
            Illegal::ImpossibleCoast { unit, to, coast } => {
                format!("{} cannot reach {}/{}", u(unit), p(to), coast.short())
            }
            Illegal::FleetConvoyed { unit } => format!("{} is a fleet: only armies are convoyed", u(unit)),
            Illegal::SupportOwnPosition { unit } => format!("{} cannot support itself", u(unit)),
            Illegal::SupportUnreachable { unit, to } => {
                format!("{} cannot reach {}, so cannot support there", u(unit), p(to))
            }
            Illegal::NoSupportedUnit { unit, at } => format!("{}: no unit in {} to support or convoy", u(unit), p(at)),
            Illegal::SupportedMoveImpossible { unit, from, to } => {
                format!("{}: the unit in {} cannot move to {}", u(unit), p(from), p(to))
            }
            Illegal::ConvoyNotAtSea { unit } => format!("{} is not at sea and cannot convoy", u(unit)),
            Illegal::ConvoyImpossible { unit, from, to } => {
                format!("{} cannot convoy {} - {}", u(unit), p(from), p(to))
            }
            Illegal::ConvoyOffRoute { unit, from, to } => {
                format!("{} is on no route from {} to {}", u(unit), p(from), p(to))
            }
            Illegal::ConflictingOrders { unit } => format!("{} was given different orders: it holds", u(unit)),
        }
    }
}

fn unit_article(kind: UnitType) -> &'static str {
    match kind {
        UnitType::Army => "an army",
        UnitType::Fleet => "a fleet",
    }
}

/// The unit standing in a province, by index.
pub fn unit_in(map: &Map, units: &[Unit], province: ProvinceId) -> Option<usize> {
    units.iter().position(|u| map.province_of(u.region) == province)
}

/// The units of a phase with what the legality checks ask of them again and again:
/// who stands in each province, and which seas hold fleets (worked out when first asked).
struct Board<'a> {
    map: &'a Map,
    units: &'a [Unit],
    /// Per province: the first unit standing there, or `u32::MAX`. Empty: ask
    /// [`unit_in`] (a single order, or units outside the map).
    unit_at: Vec<u32>,
    fleets: std::cell::OnceCell<Vec<bool>>,
}

impl<'a> Board<'a> {
    /// `unit_at` is space to reuse for the index (cleared here); `indexed` asks for one.
    fn new(map: &'a Map, units: &'a [Unit], indexed: bool, mut unit_at: Vec<u32>) -> Board<'a> {
        unit_at.clear();
        if indexed && units.iter().all(|u| (u.region.0 as usize) < map.region_count()) {
            unit_at.resize(map.provinces().len(), u32::MAX);
            for (i, u) in units.iter().enumerate().rev() {
                unit_at[map.province_of(u.region).0 as usize] = i as u32;
            }
        }
        Board { map, units, unit_at, fleets: std::cell::OnceCell::new() }
    }

    fn unit_in(&self, province: ProvinceId) -> Option<usize> {
        if self.unit_at.is_empty() {
            return unit_in(self.map, self.units, province);
        }
        self.unit_at.get(province.0 as usize).filter(|i| **i != u32::MAX).map(|i| *i as usize)
    }

    fn fleets(&self) -> &[bool] {
        self.fleets.get_or_init(|| fleets_at_sea(self.map, self.units))
    }
}

/// Turn a movement-phase order as written into a resolved order for an existing unit.
///
/// `power` is the power the order was written for, when known (an order for another
/// power's unit is illegal, DATC 6.A.6). On success returns the unit's index in `units`.
pub fn resolve_main_order(
    map: &Map,
    units: &[Unit],
    power: Option<PowerId>,
    order: &Order<Place>,
    rulebook: &Rulebook,
) -> Result<(usize, MainOrder), Illegal> {
    resolve_on_board(&Board::new(map, units, false, Vec::new()), power, order, rulebook)
}

/// The units of a phase indexed once, for checking many orders against them (every
/// order a unit could be given): [`resolve_main_order`] for each, without building the
/// index again.
pub struct UnitIndex<'a>(Board<'a>);

impl<'a> UnitIndex<'a> {
    pub fn new(map: &'a Map, units: &'a [Unit]) -> UnitIndex<'a> {
        UnitIndex(Board::new(map, units, true, Vec::new()))
    }

    /// Exactly [`resolve_main_order`] on these units.
    pub fn resolve_main_order(
        &self,
        power: Option<PowerId>,
        order: &Order<Place>,
        rulebook: &Rulebook,
    ) -> Result<(usize, MainOrder), Illegal> {
        resolve_on_board(&self.0, power, order, rulebook)
    }
}

fn resolve_on_board(
    board: &Board,
    power: Option<PowerId>,
    order: &Order<Place>,
    rulebook: &Rulebook,
) -> Result<(usize, MainOrder), Illegal> {
    let (map, units) = (board.map, board.units);
    let Some(unit_ref) = order.unit() else {
        return Err(Illegal::NotAMovementOrder);
    };
    let at = unit_ref.at.province;
    let index = board.unit_in(at).ok_or(Illegal::NoUnit { at })?;
    let unit = units[index];
    if let Some(power) = power {
        if power != unit.power {
            return Err(Illegal::ForeignUnit { unit, ordered_by: power });
        }
    }
    if let Some(written) = unit_ref.kind {
        if written != unit.kind && rulebook.wrong_unit_type() == WrongUnitType::Illegal {
            return Err(Illegal::WrongUnitType { unit, written });
        }
    }
    // A coast written for the ordered unit is ignored (DATC 4.B.5, 6.B.10).
    let resolved = match *order {
        Order::Hold { .. } => MainOrder::Hold,
        Order::Move { to, via_convoy, .. } => resolve_move(board, unit, to, via_convoy, rulebook)?,
        Order::SupportHold { supported, .. } => {
            let target = supported.at.province;
            if target == at {
                return Err(Illegal::SupportOwnPosition { unit });
            }
            if board.unit_in(target).is_none() {
                return Err(Illegal::NoSupportedUnit { unit, at: target });
            }
            if !map.can_reach_province(unit.kind, unit.region, target) {
                return Err(Illegal::SupportUnreachable { unit, to: target });
            }
            MainOrder::SupportHold { target }
        }
        Order::SupportMove { supported, to, .. } => {
            let from = supported.at.province;
            let dest = to.province;
            if from == at {
                return Err(Illegal::SupportOwnPosition { unit });
            }
            let supported_index = board.unit_in(from).ok_or(Illegal::NoSupportedUnit { unit, at: from })?;
            let mover = units[supported_index];
            if dest == at || !map.can_reach_province(unit.kind, unit.region, dest) {
                return Err(Illegal::SupportUnreachable { unit, to: dest });
            }
            if !move_possible(map, board, mover, dest, Some(at)) {
                return Err(Illegal::SupportedMoveImpossible { unit, from, to: dest });
            }
            let to_coast = match (mover.kind, to.coast) {
                (UnitType::Fleet, Some(c)) => map.region_for(UnitType::Fleet, dest, Some(c)),
                _ => None,
            };
            MainOrder::SupportMove { from, to: dest, to_coast }
        }
        Order::Convoy { army, to, .. } => {
            let from = army.at.province;
            let dest = to.province;
            if unit.kind != UnitType::Fleet || map.province(at).terrain != Terrain::Sea {
                return Err(Illegal::ConvoyNotAtSea { unit });
            }
            let army_index = board.unit_in(from).ok_or(Illegal::NoSupportedUnit { unit, at: from })?;
            let convoyed = units[army_index];
            if convoyed.kind != UnitType::Army
                || from == dest
                || map.province(from).terrain != Terrain::Coast
                || map.province(dest).terrain != Terrain::Coast
            {
                return Err(Illegal::ConvoyImpossible { unit, from, to: dest });
            }
            if !necessary_for_a_route(map, board.fleets(), from, dest, at) {
                return Err(Illegal::ConvoyOffRoute { unit, from, to: dest });
            }
            MainOrder::Convoy { from, to: dest }
        }
        Order::Retreat { .. } | Order::Disband { .. } | Order::Build { .. } | Order::Waive => {
            return Err(Illegal::NotAMovementOrder)
        }
    };
    Ok((index, resolved))
}

fn resolve_move(
    board: &Board,
    unit: Unit,
    to: Place,
    via_convoy: bool,
    rulebook: &Rulebook,
) -> Result<MainOrder, Illegal> {
    let map = board.map;
    let from = map.province_of(unit.region);
    let dest = to.province;
    if dest == from {
        return Err(Illegal::MoveToOwnProvince { unit });
    }
    let province = map.province(dest);
    match unit.kind {
        UnitType::Army => {
            // A coast written for an army is ignored (DATC 4.B.6, 6.B.12).
            if province.terrain == Terrain::Sea || !map.region(province.main_region).army_can_stand {
                return Err(Illegal::ArmyToSea { unit, to: dest });
            }
            let target = province.main_region;
            if map.can_move(UnitType::Army, unit.region, target)
                || sea_route_exists(map, board.fleets(), from, dest, None)
            {
                Ok(MainOrder::Move { to: target, via_convoy })
            } else {
                Err(Illegal::Unreachable { unit, to: dest })
            }
        }
        UnitType::Fleet => {
            if via_convoy {
                return Err(Illegal::FleetConvoyed { unit });
            }
            if province.terrain == Terrain::Land {
                return Err(Illegal::FleetInland { unit, to: dest });
            }
            let mut reachable = map.regions_of(dest).filter(|r| map.can_move(UnitType::Fleet, unit.region, *r));
            let first = reachable.next();
            let second = reachable.next();
            // An unknown coast (spa/ec) or a coast on a province without split coasts is
            // ignored like an irrelevant one (DATC 4.B.6).
            let written = to.coast.and_then(|c| map.region_for(UnitType::Fleet, dest, Some(c)));
            match (written, first, second) {
                // Not adjacent: that is the reason, even where an army could be
                // convoyed (DATC 6.A.7); "only armies are convoyed" answers `via convoy`.
                (_, None, _) => Err(Illegal::Unreachable { unit, to: dest }),
                (Some(w), Some(a), b) => {
                    if w == a || Some(w) == b {
                        Ok(MainOrder::Move { to: w, via_convoy: false })
                    } else if b.is_none() && rulebook.impossible_coast() == ImpossibleCoast::UsePossible {
                        Ok(MainOrder::Move { to: a, via_convoy: false })
                    } else {
                        let coast = map.region(w).coast.unwrap_or(Coast::North);
                        Err(Illegal::ImpossibleCoast { unit, to: dest, coast })
                    }
                }
                (None, Some(a), None) => {
                    if !province.coasts.is_empty() && rulebook.omitted_coast() == OmittedCoast::Illegal {
                        Err(Illegal::CoastRequired { unit, to: dest })
                    } else {
                        Ok(MainOrder::Move { to: a, via_convoy: false })
                    }
                }
                (None, Some(_), Some(_)) => Err(Illegal::CoastRequired { unit, to: dest }),
            }
        }
    }
}

/// Per province: is it a sea with a fleet in it? A convoy is only possible along such
/// seas, so a move that needs a convoy where no fleets stand is illegal (DATC 6.D.32).
pub fn fleets_at_sea(map: &Map, units: &[Unit]) -> Vec<bool> {
    let mut at_sea = vec![false; map.provinces().len()];
    for u in units {
        let p = map.province_of(u.region);
        if u.kind == UnitType::Fleet && map.province(p).terrain == Terrain::Sea {
            at_sea[p.0 as usize] = true;
        }
    }
    at_sea
}

/// Could `mover` move to `dest` (coasts ignored), over land or, for an army, by a convoy
/// that does not pass through `excluded` (the supporting fleet's own province)?
fn move_possible(map: &Map, board: &Board, mover: Unit, dest: ProvinceId, excluded: Option<ProvinceId>) -> bool {
    let from = map.province_of(mover.region);
    if from == dest {
        return false;
    }
    if map.can_reach_province(mover.kind, mover.region, dest) {
        return true;
    }
    mover.kind == UnitType::Army && sea_route_exists(map, board.fleets(), from, dest, excluded)
}

/// Is there a chain of seas holding fleets from a coastal province to another, avoiding
/// `excluded`?
pub fn sea_route_exists(
    map: &Map,
    fleets: &[bool],
    from: ProvinceId,
    to: ProvinceId,
    excluded: Option<ProvinceId>,
) -> bool {
    if map.province(from).terrain != Terrain::Coast || map.province(to).terrain != Terrain::Coast {
        return false;
    }
    let usable = |q: ProvinceId| Some(q) != excluded && fleets.get(q.0 as usize).copied().unwrap_or(false);
    let mut seen = vec![false; map.provinces().len()];
    let mut stack: Vec<ProvinceId> = Vec::new();
    for q in map.province_ids() {
        if usable(q) && map.provinces_adjacent(from, q) {
            seen[q.0 as usize] = true;
            stack.push(q);
        }
    }
    while let Some(p) = stack.pop() {
        if map.provinces_adjacent(p, to) {
            return true;
        }
        for q in map.province_ids() {
            if !seen[q.0 as usize] && usable(q) && map.provinces_adjacent(p, q) {
                seen[q.0 as usize] = true;
                stack.push(q);
            }
        }
    }
    false
}

/// Is the fleet in `fleet` necessary for some convoy route from `from` to `to` (DATC
/// 4.E.1, 6.G.19)? It is when it lies on a route that no fleet can be left out of: a
/// chain of fleet-held seas where each sea touches only its neighbours in the chain.
pub(crate) fn necessary_for_a_route(
    map: &Map,
    fleets: &[bool],
    from: ProvinceId,
    to: ProvinceId,
    fleet: ProvinceId,
) -> bool {
    struct Search<'a> {
        map: &'a Map,
        fleets: &'a [bool],
        from: ProvinceId,
        to: ProvinceId,
        fleet: ProvinceId,
        path: Vec<ProvinceId>,
        budget: u32,
    }
    impl Search<'_> {
        fn extend(&mut self) -> bool {
            let last = self.path.last().copied().unwrap_or(self.from);
            for s in self.map.province_ids() {
                if self.budget == 0 {
                    // Beyond any real map: give the order the benefit of the doubt.
                    return true;
                }
                self.budget -= 1;
                if !self.fleets.get(s.0 as usize).copied().unwrap_or(false)
                    || self.path.contains(&s)
                    || !self.map.provinces_adjacent(last, s)
                {
                    continue;
                }
                let shortcut = (!self.path.is_empty() && self.map.provinces_adjacent(s, self.from))
                    || self.path.iter().rev().skip(1).any(|p| self.map.provinces_adjacent(*p, s));
                if shortcut {
                    continue;
                }
                if self.map.provinces_adjacent(s, self.to) {
                    if s == self.fleet || self.path.contains(&self.fleet) {
                        return true;
                    }
                    continue;
                }
                self.path.push(s);
                if self.extend() {
                    return true;
                }
                self.path.pop();
            }
            false
        }
    }
    // The common case: the fleet alone links the two coasts.
    if map.provinces_adjacent(from, fleet) && map.provinces_adjacent(fleet, to) {
        return true;
    }
    let mut search = Search { map, fleets, from, to, fleet, path: Vec::new(), budget: 200_000 };
    search.extend()
}

/// One order as submitted for a phase: who wrote it and what it says.
#[derive(Clone, Copy, Debug)]
pub struct WrittenOrder {
    pub power: Option<PowerId>,
    pub order: Order<Place>,
}

/// The orders of a movement phase, one per unit, with what happened to each written
/// order on the way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PhaseOrders {
    /// One order per unit (same index as the units); `Hold` when none stands.
    pub orders: Vec<MainOrder>,
    /// Per unit: the illegal order it was given, when its only orders were illegal or
    /// conflicting (the unit holds).
    pub illegal_for_unit: Vec<Option<Illegal>>,
    /// Per written order: the unit it went to, or why it is illegal.
    pub written: Vec<Result<usize, Illegal>>,
}

/// Resolve every written order of a phase and settle units ordered more than once
/// (DATC 4.D.3, by the rulebook): identical orders count once, an illegal order beside a
/// legal one is ignored, different legal orders follow [`Rulebook::duplicate_orders`].
pub fn collect_orders(map: &Map, units: &[Unit], written: &[WrittenOrder], rulebook: &Rulebook) -> PhaseOrders {
    let mut phase = PhaseOrders::default();
    OrderCollector::default().collect_into(map, units, written, rulebook, &mut phase);
    phase
}

/// Space reused by [`collect_orders`] over many phases.
#[derive(Default, Debug)]
pub struct OrderCollector {
    unit_at: Vec<u32>,
    /// Per unit: given a legal order, given different ones.
    given: Vec<(bool, bool)>,
}

impl OrderCollector {
    /// [`collect_orders`] into `phase`, whose space is reused.
    pub fn collect_into(
        &mut self,
        map: &Map,
        units: &[Unit],
        written: &[WrittenOrder],
        rulebook: &Rulebook,
        phase: &mut PhaseOrders,
    ) {
        let PhaseOrders { orders, illegal_for_unit, written: results } = phase;
        orders.clear();
        orders.resize(units.len(), MainOrder::Hold);
        illegal_for_unit.clear();
        illegal_for_unit.resize(units.len(), None);
        results.clear();
        let given = &mut self.given;
        given.clear();
        given.resize(units.len(), (false, false));
        let board = Board::new(map, units, true, std::mem::take(&mut self.unit_at));
        for w in written {
            match resolve_on_board(&board, w.power, &w.order, rulebook) {
                Ok((i, o)) => {
                    results.push(Ok(i));
                    if !given[i].0 {
                        given[i].0 = true;
                        orders[i] = o;
                    } else if orders[i] != o {
                        match rulebook.duplicate_orders() {
                            DuplicateOrders::Hold => given[i].1 = true,
                            DuplicateOrders::First => {}
                            DuplicateOrders::Last => orders[i] = o,
                        }
                    }
                }
                Err(e) => {
                    if let Some(i) = illegal_target(&board, &w.order, &e) {
                        illegal_for_unit[i].get_or_insert(e);
                    }
                    results.push(Err(e));
                }
            }
        }
        for (i, &(legal, conflicting)) in given.iter().enumerate() {
            if legal {
                illegal_for_unit[i] = None;
            }
            if conflicting {
                orders[i] = MainOrder::Hold;
                let e = Illegal::ConflictingOrders { unit: units[i] };
                illegal_for_unit[i] = Some(e);
                for (r, w) in results.iter_mut().zip(written) {
                    if *r == Ok(i) && w.order.unit().is_some() {
                        *r = Err(e);
                    }
                }
            }
        }
        self.unit_at = board.unit_at;
    }
}

/// The unit an illegal order was meant for, when it is the writer's own unit.
fn illegal_target(board: &Board, order: &Order<Place>, e: &Illegal) -> Option<usize> {
    match e {
        Illegal::NoUnit { .. } | Illegal::ForeignUnit { .. } | Illegal::NotAMovementOrder => None,
        _ => board.unit_in(order.unit()?.at.province),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diplomacy::order::UnitRef;

    fn place(map: &Map, s: &str) -> Place {
        let r = map.parse_region(s).unwrap();
        Place { province: map.province_of(r), coast: map.region(r).coast }
    }

    fn unit(map: &Map, power: &str, kind: UnitType, at: &str) -> Unit {
        Unit { power: map.lookup_power(power).unwrap(), kind, region: map.parse_region(at).unwrap() }
    }

    fn mv(map: &Map, kind: UnitType, from: &str, to: &str) -> Order<Place> {
        Order::Move { unit: UnitRef { kind: Some(kind), at: place(map, from) }, to: place(map, to), via_convoy: false }
    }

    #[test]
    fn an_omitted_coast_is_taken_when_only_one_is_reachable() {
        let map = Map::standard();
        let units = [unit(&map, "france", UnitType::Fleet, "gas")];
        let r = resolve_main_order(&map, &units, None, &mv(&map, UnitType::Fleet, "gas", "spa"), &Rulebook::default());
        assert_eq!(r, Ok((0, MainOrder::Move { to: map.parse_region("spa/nc").unwrap(), via_convoy: false })));
        let r =
            resolve_main_order(&map, &units, None, &mv(&map, UnitType::Fleet, "gas", "spa/sc"), &Rulebook::default());
        assert!(matches!(r, Err(Illegal::ImpossibleCoast { .. })));
    }

    #[test]
    fn a_coastal_army_may_aim_across_the_sea_but_not_inland() {
        let map = Map::standard();
        let units = [unit(&map, "england", UnitType::Army, "lon"), unit(&map, "england", UnitType::Fleet, "nth")];
        let rb = Rulebook::default();
        assert!(resolve_main_order(&map, &units, None, &mv(&map, UnitType::Army, "lon", "nwy"), &rb).is_ok());
        let e = resolve_main_order(&map, &units, None, &mv(&map, UnitType::Army, "lon", "mun"), &rb).unwrap_err();
        assert_eq!(e.describe(&map), "A lon cannot reach mun");
    }

    #[test]
    fn a_fleet_ordered_to_a_province_it_does_not_border_is_told_so() {
        let map = Map::standard();
        let units = [unit(&map, "england", UnitType::Fleet, "hol"), unit(&map, "england", UnitType::Fleet, "nth")];
        let rb = Rulebook::default();
        let e = resolve_main_order(&map, &units, None, &mv(&map, UnitType::Fleet, "hol", "den"), &rb).unwrap_err();
        assert_eq!(e.describe(&map), "F hol cannot reach den");
        let mut by_convoy = mv(&map, UnitType::Fleet, "hol", "den");
        if let Order::Move { via_convoy, .. } = &mut by_convoy {
            *via_convoy = true;
        }
        let e = resolve_main_order(&map, &units, None, &by_convoy, &rb).unwrap_err();
        assert_eq!(e.describe(&map), "F hol is a fleet: only armies are convoyed");
    }

    #[test]
    fn conflicting_orders_leave_the_unit_holding() {
        let map = Map::standard();
        let units = [unit(&map, "france", UnitType::Army, "par")];
        let written = [
            WrittenOrder { power: None, order: mv(&map, UnitType::Army, "par", "bur") },
            WrittenOrder { power: None, order: mv(&map, UnitType::Army, "par", "pic") },
        ];
        let p = collect_orders(&map, &units, &written, &Rulebook::default());
        assert_eq!(p.orders, vec![MainOrder::Hold]);
        assert!(matches!(p.illegal_for_unit[0], Some(Illegal::ConflictingOrders { .. })));
    }

    #[test]
    fn an_index_of_the_units_answers_as_each_order_alone() {
        let map = Map::standard();
        let rb = Rulebook::default();
        let whole = |p: ProvinceId| Place { province: p, coast: None };
        for seed in 0..4 {
            let units = crate::diplomacy::judge::random::random_phase(&map, seed).units;
            let index = UnitIndex::new(&map, &units);
            let refs: Vec<UnitRef<Place>> = units
                .iter()
                .map(|u| UnitRef {
                    kind: Some(u.kind),
                    at: Place { province: map.province_of(u.region), coast: map.region(u.region).coast },
                })
                .collect();
            let mut illegal = 0;
            for (u, me) in units.iter().zip(&refs) {
                let mut orders = vec![Order::Hold { unit: *me }];
                for to in map.province_ids() {
                    orders.push(Order::Move { unit: *me, to: whole(to), via_convoy: false });
                    orders.push(Order::Move { unit: *me, to: whole(to), via_convoy: true });
                    for other in &refs {
                        orders.push(Order::SupportMove { unit: *me, supported: *other, to: whole(to) });
                        orders.push(Order::Convoy { unit: *me, army: *other, to: whole(to) });
                    }
                }
                orders.extend(refs.iter().map(|other| Order::SupportHold { unit: *me, supported: *other }));
                for order in &orders {
                    for power in [None, Some(u.power), Some(PowerId((u.power.0 + 1) % 7))] {
                        let alone = resolve_main_order(&map, &units, power, order, &rb);
                        assert_eq!(index.resolve_main_order(power, order, &rb), alone, "{order:?}");
                        illegal += alone.is_err() as usize;
                    }
                }
            }
            assert!(illegal > 0, "some orders are illegal");
        }
    }
}
