//! The retreat phase of one board: where each dislodged unit goes, or why it is disbanded.
//!
//! Only two orders belong to a retreat phase: a retreat (written `R` or as a move) and a
//! disband, each for a dislodged unit. Anything else is reported illegal and ignored
//! (DATC 6.H.1-6.H.4). A retreat is legal only to a place the unit could move to, that is
//! empty after the moves, not the province the attack came from (unless the attack came by
//! convoy and the rulebook allows it, DATC 4.A.5) and not left empty by a standoff. Two or
//! more legal retreats to one province all fail and those units are disbanded; so is a
//! dislodged unit with no legal order.
//!
//! This module never looks at the orders of the movement phase: what it needs from that
//! phase is in [`RetreatPhase`].

use serde::{Deserialize, Serialize};

use crate::diplomacy::judge::{retreat_options, Dislodgement, Unit};
use crate::diplomacy::map::{Coast, Map, PowerId, ProvinceId, RegionId};
use crate::diplomacy::order::{place_name, Order, Place};

/// What a retreat phase starts from: the board after the moves.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetreatPhase {
    /// The units that were not dislodged, where they stand after the moves.
    pub units_after: Vec<Unit>,
    /// The dislodged units.
    pub dislodged: Vec<Dislodgement>,
    /// Provinces left empty by a standoff in the movement phase.
    pub standoffs: Vec<ProvinceId>,
}

/// The kind of order, for saying which orders do not belong in a retreat phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OrderKind {
    Hold,
    Support,
    Convoy,
    Build,
    Waive,
}

impl OrderKind {
    fn words(self) -> &'static str {
        match self {
            OrderKind::Hold => "a hold",
            OrderKind::Support => "a support",
            OrderKind::Convoy => "a convoy",
            OrderKind::Build => "a build",
            OrderKind::Waive => "a waive",
        }
    }
}

/// Why a retreat-phase order is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RetreatIllegal {
    /// Only retreats and disbands are orders of a retreat phase.
    NotARetreatOrder { kind: OrderKind },
    /// No unit stands (or was dislodged) in the province.
    NoSuchUnit { province: ProvinceId },
    /// The unit belongs to another power.
    NotYourUnit { unit: Unit },
    /// The unit was not dislodged, so it has nothing to do in this phase.
    NotDislodged { unit: Unit },
    /// A retreat cannot use a convoy.
    ViaConvoy,
    /// The unit cannot move there in one step (DATC 6.H.13, 6.H.15).
    CannotReach { to: Place },
    /// A fleet retreating to a province with split coasts it can reach on both needs the
    /// coast (DATC 4.B.1).
    CoastNeeded { to: ProvinceId },
    /// The province has no such coast.
    NoSuchCoast { to: ProvinceId, coast: Coast },
    /// A unit stands there after the moves.
    Occupied { to: ProvinceId, by: Unit },
    /// The dislodging unit came from there (DATC 6.H.5).
    AttackerOrigin { to: ProvinceId },
    /// A standoff left it empty (DATC 6.H.6, 6.H.16).
    Standoff { to: ProvinceId },
}

impl RetreatIllegal {
    pub fn describe(&self, map: &Map) -> String {
        let name = |p: &ProvinceId| map.province(*p).name.clone();
        match self {
            RetreatIllegal::NotARetreatOrder { kind } => {
                format!("{} is not an order of a retreat phase", kind.words())
            }
            RetreatIllegal::NoSuchUnit { province } => format!("there is no unit in {}", name(province)),
            RetreatIllegal::NotYourUnit { unit } => {
                format!("{} is {}", unit.describe(map), map.power(unit.power).adjective)
            }
            RetreatIllegal::NotDislodged { unit } => format!("{} was not dislodged", unit.describe(map)),
            RetreatIllegal::ViaConvoy => "a retreat cannot be convoyed".into(),
            RetreatIllegal::CannotReach { to } => format!("cannot reach {}", place_name(map, *to)),
            RetreatIllegal::CoastNeeded { to } => format!("say which coast of {}", name(to)),
            RetreatIllegal::NoSuchCoast { to, coast } => {
                format!("{} has no {}", name(to), crate::diplomacy::map::coast_words(*coast))
            }
            RetreatIllegal::Occupied { to, by } => {
                format!("{} is occupied by {} {}", name(to), map.power(by.power).adjective, by.describe(map))
            }
            RetreatIllegal::AttackerOrigin { to } => format!("the attack came from {}", name(to)),
            RetreatIllegal::Standoff { to } => format!("{} was left empty by a standoff", name(to)),
        }
    }
}

/// What became of a dislodged unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RetreatFate {
    Retreated {
        to: RegionId,
    },
    /// Disbanded as ordered.
    Disbanded,
    /// Disbanded: another unit retreated to the same province.
    Bounced {
        with: Vec<Unit>,
    },
    /// Disbanded: no order.
    NoOrder,
    /// Disbanded: its only orders were illegal (the first reason).
    IllegalOrder(RetreatIllegal),
    /// Disbanded: it got different legal orders (DATC 4.D.3: neither is followed).
    ConflictingOrders,
}

impl RetreatFate {
    pub fn describe(&self, map: &Map) -> String {
        match self {
            RetreatFate::Retreated { to } => format!("retreats to {}", map.region_name(*to)),
            RetreatFate::Disbanded => "disbanded".into(),
            RetreatFate::Bounced { with } => {
                let others: Vec<String> = with.iter().map(|u| u.describe(map)).collect();
                format!("disbanded: bounced with {}", others.join(", "))
            }
            RetreatFate::NoOrder => "disbanded: no order".into(),
            RetreatFate::IllegalOrder(why) => format!("disbanded: illegal order ({})", why.describe(map)),
            RetreatFate::ConflictingOrders => "disbanded: conflicting orders".into(),
        }
    }

    /// Whether the unit stays on the board.
    pub fn survives(&self) -> bool {
        matches!(self, RetreatFate::Retreated { .. })
    }
}

/// A dislodged unit, where it could have gone, and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetreatOutcome {
    pub unit: Unit,
    /// Its legal retreats.
    pub options: Vec<RegionId>,
    pub fate: RetreatFate,
}

/// How one written order was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RetreatOrderStatus {
    /// A legal order for this dislodged unit; its fate is in the unit's outcome.
    Accepted {
        unit: Unit,
    },
    Illegal(RetreatIllegal),
}

/// One order as written, with how it was taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetreatOrderReport {
    pub power: PowerId,
    pub order: Order<Place>,
    pub status: RetreatOrderStatus,
}

/// The result of one board's retreat phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetreatResult {
    /// One per dislodged unit, in the order of [`RetreatPhase::dislodged`].
    pub outcomes: Vec<RetreatOutcome>,
    /// One per order, in the order given.
    pub orders: Vec<RetreatOrderReport>,
    /// The units on the board after the phase: `units_after`, then the units that
    /// retreated.
    pub units: Vec<Unit>,
}

/// What a legal order asks of its unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Intent {
    RetreatTo(RegionId),
    Disband,
}

/// Adjudicate one board's retreat phase. `orders` are in the order written, each with the
/// power that wrote it. `convoyed_attack_opens_origin`: the 2023 rule (DATC 4.A.5 b) that a
/// unit dislodged by a convoyed army may retreat to the province the army came from.
pub fn adjudicate_retreats(
    map: &Map,
    phase: &RetreatPhase,
    orders: &[(PowerId, Order<Place>)],
    convoyed_attack_opens_origin: bool,
) -> RetreatResult {
    let n = phase.dislodged.len();
    let options: Vec<Vec<RegionId>> = phase
        .dislodged
        .iter()
        .map(|d| retreat_options(map, &phase.units_after, &phase.standoffs, d, convoyed_attack_opens_origin))
        .collect();

    let mut intents: Vec<Vec<Intent>> = vec![Vec::new(); n];
    let mut first_illegal: Vec<Option<RetreatIllegal>> = vec![None; n];
    let mut reports = Vec::with_capacity(orders.len());
    for (power, order) in orders {
        let checked = check_order(map, phase, *power, order, convoyed_attack_opens_origin);
        let status = match checked {
            Ok((index, intent)) => {
                intents[index].push(intent);
                RetreatOrderStatus::Accepted { unit: phase.dislodged[index].unit }
            }
            Err((index, why)) => {
                if let Some(i) = index {
                    first_illegal[i].get_or_insert(why);
                }
                RetreatOrderStatus::Illegal(why)
            }
        };
        reports.push(RetreatOrderReport { power: *power, order: *order, status });
    }

    // One intent per unit: identical repeats count once, different ones cancel out.
    let chosen: Vec<Result<Intent, RetreatFate>> = (0..n)
        .map(|i| match intents[i].first() {
            None => Err(first_illegal[i].map_or(RetreatFate::NoOrder, RetreatFate::IllegalOrder)),
            Some(first) if intents[i].iter().all(|x| x == first) => Ok(*first),
            Some(_) => Err(RetreatFate::ConflictingOrders),
        })
        .collect();

    let target = |i: usize| match chosen[i] {
        Ok(Intent::RetreatTo(r)) => Some(map.province_of(r)),
        _ => None,
    };
    let mut outcomes = Vec::with_capacity(n);
    let mut units = phase.units_after.clone();
    for i in 0..n {
        let fate = match &chosen[i] {
            Err(fate) => fate.clone(),
            Ok(Intent::Disband) => RetreatFate::Disbanded,
            Ok(Intent::RetreatTo(r)) => {
                let p = map.province_of(*r);
                let with: Vec<Unit> =
                    (0..n).filter(|j| *j != i && target(*j) == Some(p)).map(|j| phase.dislodged[j].unit).collect();
                if with.is_empty() {
                    RetreatFate::Retreated { to: *r }
                } else {
                    RetreatFate::Bounced { with }
                }
            }
        };
        if let RetreatFate::Retreated { to } = fate {
            units.push(Unit { region: to, ..phase.dislodged[i].unit });
        }
        outcomes.push(RetreatOutcome { unit: phase.dislodged[i].unit, options: options[i].clone(), fate });
    }
    RetreatResult { outcomes, orders: reports, units }
}

/// Check one order: `Ok((dislodged index, intent))`, or the reason it is illegal with the
/// dislodged unit it was meant for, when there is one.
fn check_order(
    map: &Map,
    phase: &RetreatPhase,
    power: PowerId,
    order: &Order<Place>,
    convoyed_attack_opens_origin: bool,
) -> Result<(usize, Intent), (Option<usize>, RetreatIllegal)> {
    let not_retreat = |kind| RetreatIllegal::NotARetreatOrder { kind };
    let (unit_ref, to, via_convoy) = match order {
        Order::Retreat { unit, to } => (unit, Some(*to), false),
        Order::Move { unit, to, via_convoy } => (unit, Some(*to), *via_convoy),
        Order::Disband { unit } => (unit, None, false),
        Order::Build { .. } => return Err((None, not_retreat(OrderKind::Build))),
        Order::Waive => return Err((None, not_retreat(OrderKind::Waive))),
        Order::Hold { unit } => return Err((find_dislodged(map, phase, unit.at), not_retreat(OrderKind::Hold))),
        Order::SupportHold { unit, .. } | Order::SupportMove { unit, .. } => {
            return Err((find_dislodged(map, phase, unit.at), not_retreat(OrderKind::Support)))
        }
        Order::Convoy { unit, .. } => {
            return Err((find_dislodged(map, phase, unit.at), not_retreat(OrderKind::Convoy)))
        }
    };
    let Some(index) = find_dislodged(map, phase, unit_ref.at) else {
        let province = unit_ref.at.province;
        return Err((
            None,
            match phase.units_after.iter().find(|u| map.province_of(u.region) == province) {
                Some(unit) => RetreatIllegal::NotDislodged { unit: *unit },
                None => RetreatIllegal::NoSuchUnit { province },
            },
        ));
    };
    let dislodged = &phase.dislodged[index];
    if dislodged.unit.power != power {
        return Err((None, RetreatIllegal::NotYourUnit { unit: dislodged.unit }));
    }
    let Some(to) = to else {
        return Ok((index, Intent::Disband));
    };
    if via_convoy {
        return Err((Some(index), RetreatIllegal::ViaConvoy));
    }
    retreat_target(map, phase, dislodged, to, convoyed_attack_opens_origin)
        .map(|r| (index, Intent::RetreatTo(r)))
        .map_err(|why| (Some(index), why))
}

/// The dislodged unit in a province (the coast as written is not checked, DATC 4.B.5).
fn find_dislodged(map: &Map, phase: &RetreatPhase, at: Place) -> Option<usize> {
    phase.dislodged.iter().position(|d| map.province_of(d.unit.region) == at.province)
}

/// The region a retreat goes to, or why it may not.
pub fn retreat_target(
    map: &Map,
    phase: &RetreatPhase,
    dislodged: &Dislodgement,
    to: Place,
    convoyed_attack_opens_origin: bool,
) -> Result<RegionId, RetreatIllegal> {
    let unit = dislodged.unit;
    let province = to.province;
    let p = map.province(province);
    let reachable: Vec<RegionId> =
        map.regions_of(province).filter(|r| map.can_move(unit.kind, unit.region, *r)).collect();
    // A coast only matters for a fleet going to a province with split coasts; elsewhere
    // it is ignored as irrelevant (DATC 4.B.6).
    let region = match (unit.kind, to.coast) {
        (crate::diplomacy::map::UnitType::Fleet, Some(coast)) if !p.coasts.is_empty() => {
            let region = map
                .region_for(unit.kind, province, Some(coast))
                .ok_or(RetreatIllegal::NoSuchCoast { to: province, coast })?;
            if !reachable.contains(&region) {
                return Err(RetreatIllegal::CannotReach { to });
            }
            region
        }
        _ => match reachable.as_slice() {
            [] => return Err(RetreatIllegal::CannotReach { to }),
            [one] => *one,
            _ => return Err(RetreatIllegal::CoastNeeded { to: province }),
        },
    };
    if let Some(by) = phase.units_after.iter().find(|u| map.province_of(u.region) == province) {
        return Err(RetreatIllegal::Occupied { to: province, by: *by });
    }
    if province == dislodged.attacker_from && !(dislodged.via_convoy && convoyed_attack_opens_origin) {
        return Err(RetreatIllegal::AttackerOrigin { to: province });
    }
    if phase.standoffs.contains(&province) {
        return Err(RetreatIllegal::Standoff { to: province });
    }
    Ok(region)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diplomacy::map::UnitType;
    use crate::diplomacy::order::UnitRef;

    fn region(map: &Map, s: &str) -> RegionId {
        map.parse_region(s).unwrap()
    }

    fn place(map: &Map, s: &str) -> Place {
        let r = region(map, s);
        Place { province: map.province_of(r), coast: map.region(r).coast }
    }

    fn unit(map: &Map, power: &str, kind: UnitType, at: &str) -> Unit {
        Unit { power: map.lookup_power(power).unwrap(), kind, region: region(map, at) }
    }

    fn dislodged(map: &Map, u: Unit, from: &str) -> Dislodgement {
        Dislodgement { unit: u, attacker_from: map.lookup_province(from).unwrap(), via_convoy: false }
    }

    fn retreat(map: &Map, u: &Unit, to: &str) -> (PowerId, Order<Place>) {
        let at = Place { province: map.province_of(u.region), coast: None };
        (u.power, Order::Retreat { unit: UnitRef { kind: Some(u.kind), at }, to: place(map, to) })
    }

    #[test]
    fn a_fleet_needs_a_coast_only_when_it_can_reach_both() {
        let map = Map::standard();
        let from_mao = unit(&map, "france", UnitType::Fleet, "mao");
        let from_gas = unit(&map, "france", UnitType::Fleet, "gas");
        let phase = RetreatPhase {
            units_after: vec![],
            dislodged: vec![dislodged(&map, from_mao, "bre"), dislodged(&map, from_gas, "bur")],
            standoffs: vec![],
        };
        let spa = Place { province: map.lookup_province("spa").unwrap(), coast: None };
        assert_eq!(
            retreat_target(&map, &phase, &phase.dislodged[0], spa, true),
            Err(RetreatIllegal::CoastNeeded { to: spa.province })
        );
        assert_eq!(retreat_target(&map, &phase, &phase.dislodged[1], spa, true), Ok(region(&map, "spa/nc")));
        assert_eq!(
            retreat_target(&map, &phase, &phase.dislodged[1], place(&map, "spa/sc"), true),
            Err(RetreatIllegal::CannotReach { to: place(&map, "spa/sc") })
        );
        let west = Place { province: spa.province, coast: Some(Coast::West) };
        assert_eq!(
            retreat_target(&map, &phase, &phase.dislodged[0], west, true),
            Err(RetreatIllegal::NoSuchCoast { to: spa.province, coast: Coast::West })
        );
    }

    #[test]
    fn only_the_owner_orders_a_dislodged_unit_and_only_once() {
        let map = Map::standard();
        let mun = unit(&map, "germany", UnitType::Army, "mun");
        let par = unit(&map, "france", UnitType::Army, "par");
        let bre = unit(&map, "france", UnitType::Fleet, "bre");
        let occupier = unit(&map, "france", UnitType::Army, "bur");
        let phase = RetreatPhase {
            units_after: vec![occupier],
            dislodged: vec![dislodged(&map, mun, "tyr"), dislodged(&map, par, "gas"), dislodged(&map, bre, "eng")],
            standoffs: vec![],
        };
        let foreign = (par.power, Order::Disband { unit: UnitRef { kind: None, at: place(&map, "mun") } });
        let orders = vec![
            foreign,
            retreat(&map, &mun, "boh"),
            retreat(&map, &mun, "boh"),
            retreat(&map, &par, "pic"),
            retreat(&map, &par, "bur"),
            (par.power, Order::Disband { unit: UnitRef { kind: None, at: place(&map, "par") } }),
            (
                bre.power,
                Order::Move {
                    unit: UnitRef { kind: None, at: place(&map, "bre") },
                    to: place(&map, "pic"),
                    via_convoy: true,
                },
            ),
        ];
        let result = adjudicate_retreats(&map, &phase, &orders, true);
        let fates: Vec<String> = result.outcomes.iter().map(|o| o.fate.describe(&map)).collect();
        assert_eq!(
            fates,
            [
                "retreats to boh",
                "disbanded: conflicting orders",
                "disbanded: illegal order (a retreat cannot be convoyed)"
            ]
        );
        let statuses: Vec<String> = result
            .orders
            .iter()
            .map(|o| match o.status {
                RetreatOrderStatus::Accepted { unit } => format!("accepted for {}", unit.describe(&map)),
                RetreatOrderStatus::Illegal(why) => why.describe(&map),
            })
            .collect();
        assert_eq!(
            statuses,
            [
                "A mun is German",
                "accepted for A mun",
                "accepted for A mun",
                "accepted for A par",
                "Burgundy is occupied by French A bur",
                "accepted for A par",
                "a retreat cannot be convoyed",
            ]
        );
        assert_eq!(result.units, vec![occupier, Unit { region: region(&map, "boh"), ..mun }]);
    }

    #[test]
    fn an_ordered_disband_and_a_missing_order_both_disband() {
        let map = Map::standard();
        let a = unit(&map, "italy", UnitType::Army, "ven");
        let b = unit(&map, "italy", UnitType::Army, "rom");
        let phase = RetreatPhase {
            units_after: vec![],
            dislodged: vec![dislodged(&map, a, "tri"), dislodged(&map, b, "nap")],
            standoffs: vec![map.lookup_province("tus").unwrap()],
        };
        let orders = vec![(a.power, Order::Disband { unit: UnitRef { kind: None, at: place(&map, "ven") } })];
        let result = adjudicate_retreats(&map, &phase, &orders, true);
        assert_eq!(result.outcomes[0].fate, RetreatFate::Disbanded);
        assert_eq!(result.outcomes[1].fate, RetreatFate::NoOrder);
        assert!(result.units.is_empty());
        let options: Vec<String> = result.outcomes[1].options.iter().map(|r| map.region_name(*r)).collect();
        assert_eq!(options, ["apu", "ven"], "Tuscany is a standoff, Naples the attacker's origin");
    }

    #[test]
    fn orders_of_other_phases_are_named_in_the_reason() {
        let map = Map::standard();
        let reasons = [
            RetreatIllegal::NotARetreatOrder { kind: OrderKind::Support },
            RetreatIllegal::AttackerOrigin { to: map.lookup_province("bla").unwrap() },
            RetreatIllegal::Standoff { to: map.lookup_province("boh").unwrap() },
        ];
        let texts: Vec<String> = reasons.iter().map(|r| r.describe(&map)).collect();
        assert_eq!(
            texts,
            [
                "a support is not an order of a retreat phase",
                "the attack came from Black Sea",
                "Bohemia was left empty by a standoff",
            ]
        );
    }
}
