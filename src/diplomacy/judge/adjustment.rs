//! The adjustment (Winter) phase of one board: builds, removals, waives and civil disorder.
//!
//! A power with more supply centers than units may build the difference, each build in one
//! of its own home centers that it owns and that is vacant; a power with more units than
//! centers removes the difference. Orders are read in the order written (DATC 4.D.4-4.D.6):
//! illegal orders are reported and skipped, legal ones are used until the power's
//! allowance is spent and the rest are reported as too many. Builds not sent are waived;
//! removals not sent are made by the civil-disorder rule of the chosen rulebook.
//!
//! The pieces ([`build_is_legal`], [`civil_disorder_distance`], [`civil_disorder_key`],
//! [`civil_disorder_order`]) are public so that the Shadow Worlds Winter, which counts two
//! boards together, can reuse the per-board rules. This module never decides elimination
//! and never looks at more than one board.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use petgraph::visit::EdgeRef;
use serde::{Deserialize, Serialize};

use crate::diplomacy::judge::{Ownership, Unit};
use crate::diplomacy::map::{Coast, Crossing, Map, PowerId, ProvinceId, RegionId, UnitType};
use crate::diplomacy::order::{Order, Place};

/// How units are chosen for removal when a power removes fewer units than it must.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CivilDisorderRule {
    /// The 2023 rulebook (DATC 4.D.8 c, section 6.J): units on a supply center go last;
    /// otherwise the unit farthest from the nearest supply center its power owns goes
    /// first, distance counted over every border whatever the unit's type; ties: fleets
    /// before armies, then the province's English name in alphabetical order.
    #[default]
    #[serde(rename = "2023")]
    Rulebook2023,
    /// The 1971 and 1982 rulebooks, as the 2000 rulebook was played (DATC 4.D.8 a, b):
    /// the unit farthest from the nearest of its power's home centers (owned or not) goes
    /// first; fleets count fleet moves only, armies may also cross water (a convoy counts
    /// as moves through the seas); ties: fleets before armies, then alphabetical.
    #[serde(rename = "1971", alias = "1982", alias = "2000")]
    HomeCenters1971,
}

/// The adjustment rules a rulebook chooses. Meant to be embedded in the `Rulebook`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct AdjustmentRules {
    pub civil_disorder: CivilDisorderRule,
}

/// Why a build is not allowed on this board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BuildIllegal {
    /// The province is not a supply center.
    NotASupplyCenter { province: ProvinceId },
    /// The supply center is not one of the power's home centers.
    NotAHomeCenter { province: ProvinceId },
    /// A home center the power does not own at the moment.
    NotOwned { province: ProvinceId, owner: Option<PowerId> },
    /// A unit stands in the province (on any of its coasts).
    Occupied { by: Unit },
    /// The power already builds in this center this winter.
    SecondBuildInCenter { province: ProvinceId },
    /// A fleet cannot stand in the province (DATC 4.C.4: the build fails).
    FleetInland { province: ProvinceId },
    /// An army cannot stand in the province.
    ArmyAtSea { province: ProvinceId },
    /// A fleet in a province with split coasts needs its coast (DATC 4.B.7).
    CoastNeeded { province: ProvinceId },
    /// The province has no such coast.
    NoSuchCoast { province: ProvinceId, coast: Coast },
    /// No unit type given in a province where both could stand, and no coast to tell
    /// (DATC 4.C.3 c).
    UnitTypeNeeded { province: ProvinceId },
}

impl BuildIllegal {
    pub fn describe(&self, map: &Map) -> String {
        let name = |p: &ProvinceId| map.province(*p).name.clone();
        match self {
            BuildIllegal::NotASupplyCenter { province } => format!("{} is not a supply center", name(province)),
            BuildIllegal::NotAHomeCenter { province } => format!("{} is not one of its home centers", name(province)),
            BuildIllegal::NotOwned { province, owner: Some(o) } => {
                format!("{} is owned by {}", name(province), map.power(*o).name)
            }
            BuildIllegal::NotOwned { province, owner: None } => format!("you do not own {}", name(province)),
            BuildIllegal::Occupied { by } => {
                format!(
                    "{} is occupied by {} {}",
                    name(&map.province_of(by.region)),
                    map.power(by.power).adjective,
                    by.describe(map)
                )
            }
            BuildIllegal::SecondBuildInCenter { province } => {
                format!("you already build in {} this winter", name(province))
            }
            BuildIllegal::FleetInland { province } => {
                format!("a fleet cannot be built in {}, it has no coast", name(province))
            }
            BuildIllegal::ArmyAtSea { province } => format!("an army cannot be built in {}", name(province)),
            BuildIllegal::CoastNeeded { province } => format!("a fleet in {} needs a coast", name(province)),
            BuildIllegal::NoSuchCoast { province, coast } => {
                format!("{} has no {}", name(province), crate::diplomacy::map::coast_words(*coast))
            }
            BuildIllegal::UnitTypeNeeded { province } => {
                format!("say whether to build an army or a fleet in {}", name(province))
            }
        }
    }
}

/// The unit type a build order asks for. Without a type (DATC 4.C.3 c): an army where only
/// an army can stand, a fleet when a coast is named, otherwise the build fails.
pub fn build_kind(map: &Map, kind: Option<UnitType>, place: Place) -> Result<UnitType, BuildIllegal> {
    if let Some(k) = kind {
        return Ok(k);
    }
    let p = map.province(place.province);
    let fleet_possible = map.regions_of(place.province).any(|r| map.region(r).fleet_can_stand);
    let army_possible = map.region(p.main_region).army_can_stand;
    match (army_possible, fleet_possible) {
        (true, false) => Ok(UnitType::Army),
        (false, true) => Ok(UnitType::Fleet),
        _ if place.coast.is_some() && !p.coasts.is_empty() => Ok(UnitType::Fleet),
        _ => Err(BuildIllegal::UnitTypeNeeded { province: place.province }),
    }
}

/// The standard legality of one build on one board: a home center of `power` (any supply
/// center on a map where powers build anywhere), owned by it,
/// with no unit on it, where a unit of this kind can stand (a fleet in a province with split
/// coasts must name its coast). Returns the region the new unit stands in.
///
/// A coast written for an army, or for a fleet in a province without split coasts, is
/// ignored as irrelevant (DATC 4.B.6).
pub fn build_is_legal(
    map: &Map,
    units: &[Unit],
    ownership: &Ownership,
    power: PowerId,
    kind: UnitType,
    place: Place,
) -> Result<RegionId, BuildIllegal> {
    let province = place.province;
    let p = map.province(province);
    if !p.supply_center {
        return Err(BuildIllegal::NotASupplyCenter { province });
    }
    // On a map where powers build anywhere (Modern) any owned center will do.
    if p.home != Some(power) && !map.builds_anywhere {
        return Err(BuildIllegal::NotAHomeCenter { province });
    }
    let owner = ownership.owner(province);
    if owner != Some(power) {
        return Err(BuildIllegal::NotOwned { province, owner });
    }
    if let Some(by) = units.iter().find(|u| map.province_of(u.region) == province) {
        return Err(BuildIllegal::Occupied { by: *by });
    }
    match kind {
        UnitType::Army => {
            Some(p.main_region).filter(|r| map.region(*r).army_can_stand).ok_or(BuildIllegal::ArmyAtSea { province })
        }
        UnitType::Fleet if p.coasts.is_empty() => {
            Some(p.main_region).filter(|r| map.region(*r).fleet_can_stand).ok_or(BuildIllegal::FleetInland { province })
        }
        UnitType::Fleet => match place.coast {
            None => Err(BuildIllegal::CoastNeeded { province }),
            Some(coast) => map
                .region_for(UnitType::Fleet, province, Some(coast))
                .ok_or(BuildIllegal::NoSuchCoast { province, coast }),
        },
    }
}

/// Distances from a unit to the nearest province that satisfies `target`, by breadth-first
/// search over the border graph. `crossing_ok` says which borders count; with
/// `province_steps` the coasts of a province count as the province (one step in, no step
/// between them). `None` when no target can be reached.
fn distance_to(
    map: &Map,
    from: RegionId,
    target: impl Fn(ProvinceId) -> bool,
    crossing_ok: impl Fn(Crossing) -> bool,
    province_steps: bool,
) -> Option<u32> {
    // Each region is queued at most once; the standard map has 81, so no allocation there.
    const ON_STACK: usize = 128;
    let n = map.region_count();
    if n <= ON_STACK {
        let (mut dist, mut queue) = ([u32::MAX; ON_STACK], [RegionId(0); ON_STACK]);
        search(map, from, &target, &crossing_ok, province_steps, &mut dist[..n], &mut queue[..n])
    } else {
        search(map, from, &target, &crossing_ok, province_steps, &mut vec![u32::MAX; n], &mut vec![RegionId(0); n])
    }
}

/// [`distance_to`] in the buffers given: `dist` all `u32::MAX`, both one per region.
fn search(
    map: &Map,
    from: RegionId,
    target: &impl Fn(ProvinceId) -> bool,
    crossing_ok: &impl Fn(Crossing) -> bool,
    province_steps: bool,
    dist: &mut [u32],
    queue: &mut [RegionId],
) -> Option<u32> {
    let graph = map.graph();
    let (mut head, mut tail) = (0, 0);
    let reach = |r: RegionId, d: u32, dist: &mut [u32], queue: &mut [RegionId], tail: &mut usize| {
        let siblings = map.regions_of(map.province_of(r)).filter(|s| province_steps || *s == r);
        for s in siblings {
            if dist[s.0 as usize] == u32::MAX {
                dist[s.0 as usize] = d;
                queue[*tail] = s;
                *tail += 1;
            }
        }
    };
    reach(from, 0, dist, queue, &mut tail);
    while head < tail {
        let r = queue[head];
        head += 1;
        let d = dist[r.0 as usize];
        if target(map.province_of(r)) {
            return Some(d);
        }
        for edge in graph.edges(map.node(r)) {
            if crossing_ok(*edge.weight()) {
                let next = if edge.source() == map.node(r) { edge.target() } else { edge.source() };
                reach(graph[next], d + 1, dist, queue, &mut tail);
            }
        }
    }
    None
}

impl CivilDisorderRule {
    /// The distance this rule measures for a unit, in moves; `u32::MAX` when the unit can
    /// reach no center that counts (such a unit is the farthest of all).
    pub fn distance(self, map: &Map, unit: &Unit, ownership: &Ownership, power: PowerId) -> u32 {
        let found = match self {
            CivilDisorderRule::Rulebook2023 => {
                distance_to(map, unit.region, |p| ownership.owner(p) == Some(power), |c| c != Crossing::NONE, true)
            }
            CivilDisorderRule::HomeCenters1971 => {
                let homes = map.home_centers(power);
                let is_home = |p: ProvinceId| homes.contains(&p);
                match unit.kind {
                    UnitType::Fleet => distance_to(map, unit.region, is_home, |c| c.allows(UnitType::Fleet), false),
                    UnitType::Army => distance_to(map, unit.region, is_home, |c| c != Crossing::NONE, true),
                }
            }
        };
        found.unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
/// Distances from every region to the nearest province that satisfies `target`, by one
/// breadth-first search outwards from all the targets at once (the border graph is
/// undirected, so this is [`distance_to`] for every start region). `u32::MAX` where no
/// target can be reached.
fn distances_to(
    map: &Map,
    target: impl Fn(ProvinceId) -> bool,
    crossing_ok: impl Fn(Crossing) -> bool,
    province_steps: bool,
) -> Vec<u32> {
    let graph = map.graph();
    let mut dist = vec![u32::MAX; map.region_count()];
    let mut queue: Vec<RegionId> = Vec::with_capacity(map.region_count());
    for &r in graph.node_weights() {
        if target(map.province_of(r)) {
            dist[r.0 as usize] = 0;
            queue.push(r);
        }
    }
    let mut head = 0;
    while let Some(&r) = queue.get(head) {
        head += 1;
        let d = dist[r.0 as usize] + 1;
        for edge in graph.edges(map.node(r)) {
            if !crossing_ok(*edge.weight()) {
                continue;
            }
            let next = graph[if edge.source() == map.node(r) { edge.target() } else { edge.source() }];
            if province_steps {
                for s in map.regions_of(map.province_of(next)) {
                    if dist[s.0 as usize] == u32::MAX {
                        dist[s.0 as usize] = d;
                        queue.push(s);
                    }
                }
            } else if dist[next.0 as usize] == u32::MAX {
                dist[next.0 as usize] = d;
                queue.push(next);
            }
        }
    }
    dist
}

/// [`CivilDisorderRule::distance`] for every unit of one power at once: one search per
/// unit type the rule tells apart, from the centers outwards, made only when asked: slower
/// than the search from each unit in real games (which stops early), so only a check on it.
#[cfg(test)]
struct PowerDistances<'a> {
    map: &'a Map,
    ownership: &'a Ownership,
    power: PowerId,
    rule: CivilDisorderRule,
    /// Per region; for armies (and every unit under the 2023 rule), then for fleets.
    tables: [Option<Vec<u32>>; 2],
}

#[cfg(test)]
impl<'a> PowerDistances<'a> {
    fn new(map: &'a Map, ownership: &'a Ownership, power: PowerId, rule: CivilDisorderRule) -> Self {
        PowerDistances { map, ownership, power, rule, tables: [None, None] }
    }

    fn of(&mut self, unit: &Unit) -> u32 {
        let (map, ownership, power) = (self.map, self.ownership, self.power);
        let fleet = self.rule == CivilDisorderRule::HomeCenters1971 && unit.kind == UnitType::Fleet;
        let table = self.tables[fleet as usize].get_or_insert_with(|| match self.rule {
            CivilDisorderRule::Rulebook2023 => {
                distances_to(map, |p| ownership.owner(p) == Some(power), |c| c != Crossing::NONE, true)
            }
            CivilDisorderRule::HomeCenters1971 => {
                let homes = map.home_centers(power);
                if fleet {
                    distances_to(map, |p| homes.contains(&p), |c| c.allows(UnitType::Fleet), false)
                } else {
                    distances_to(map, |p| homes.contains(&p), |c| c != Crossing::NONE, true)
                }
            }
        });
        table[unit.region.0 as usize]
    }
}

/// The distance of the 2023 rule: from the unit's province to the nearest supply center
/// `power` owns on this board, counting every border whatever the unit's type (an army may
/// count across water, a fleet across land). `u32::MAX` when the power owns no center the
/// unit can reach on this board.
pub fn civil_disorder_distance(map: &Map, unit: &Unit, ownership: &Ownership, power: PowerId) -> u32 {
    CivilDisorderRule::Rulebook2023.distance(map, unit, ownership, power)
}

/// The sort key of a unit for removal in civil disorder: sorting keys in ascending order
/// gives the order of removal. Compare keys of one rule only.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CivilDisorderKey {
    /// 2023 rule: a unit on a supply center is kept while there are other options.
    pub on_supply_center: bool,
    /// Farther first.
    pub distance: Reverse<u32>,
    /// Fleets before armies.
    pub army: bool,
    /// The province's name in lower case, for the alphabetical tie-break.
    pub province_name: String,
    /// Never equal for two units on one board: keeps the order total.
    pub region: RegionId,
}

/// The removal key of one unit of `power` on one board under `rule`.
pub fn civil_disorder_key(
    map: &Map,
    unit: &Unit,
    ownership: &Ownership,
    power: PowerId,
    rule: CivilDisorderRule,
) -> CivilDisorderKey {
    key_at_distance(map, unit, rule, rule.distance(map, unit, ownership, power))
}

/// The removal key of one unit, its distance already measured.
fn key_at_distance(map: &Map, unit: &Unit, rule: CivilDisorderRule, distance: u32) -> CivilDisorderKey {
    let province = map.province(map.province_of(unit.region));
    CivilDisorderKey {
        on_supply_center: rule == CivilDisorderRule::Rulebook2023 && province.supply_center,
        distance: Reverse(distance),
        army: unit.kind == UnitType::Army,
        province_name: province.name.to_lowercase(),
        region: unit.region,
    }
}

/// The units of `power` on this board in the order civil disorder removes them (first
/// removed first).
pub fn civil_disorder_order(
    map: &Map,
    units: &[Unit],
    ownership: &Ownership,
    power: PowerId,
    rule: CivilDisorderRule,
) -> Vec<Unit> {
    let mut keyed: Vec<(CivilDisorderKey, Unit)> = units
        .iter()
        .filter(|u| u.power == power)
        .map(|u| (civil_disorder_key(map, u, ownership, power, rule), *u))
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, u)| u).collect()
}

/// Why an adjustment order was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AdjustmentIllegal {
    /// Moves, supports, convoys, holds and retreats are not orders of an adjustment phase.
    NotAnAdjustmentOrder,
    /// A build (or a waive) from a power that has no build this winter.
    NoBuildsDue { power: PowerId },
    /// A removal from a power that does not have to remove.
    NoRemovalsDue { power: PowerId },
    /// The build itself is not allowed.
    Build(BuildIllegal),
    /// No unit stands in the province.
    NoSuchUnit { province: ProvinceId },
    /// The unit belongs to another power.
    NotYourUnit { unit: Unit },
    /// The unit is already removed by an earlier order.
    AlreadyRemoved { unit: Unit },
}

impl AdjustmentIllegal {
    pub fn describe(&self, map: &Map) -> String {
        match self {
            AdjustmentIllegal::NotAnAdjustmentOrder => "only builds, removals and waives are orders of a winter".into(),
            AdjustmentIllegal::NoBuildsDue { power } => format!("{} has no builds this winter", map.power(*power).name),
            AdjustmentIllegal::NoRemovalsDue { power } => {
                format!("{} has no units to remove this winter", map.power(*power).name)
            }
            AdjustmentIllegal::Build(b) => b.describe(map),
            AdjustmentIllegal::NoSuchUnit { province } => {
                format!("there is no unit in {}", map.province(*province).name)
            }
            AdjustmentIllegal::NotYourUnit { unit } => {
                format!("{} is {}", unit.describe(map), map.power(unit.power).adjective)
            }
            AdjustmentIllegal::AlreadyRemoved { unit } => format!("{} is already removed", unit.describe(map)),
        }
    }
}

/// What became of one adjustment order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AdjustmentOrderResult {
    Built {
        unit: Unit,
    },
    Removed {
        unit: Unit,
    },
    Waived,
    Illegal(AdjustmentIllegal),
    /// A legal order beyond the power's allowance (DATC 4.D.4, 4.D.6: the first legal
    /// orders are used).
    TooMany,
}

impl AdjustmentOrderResult {
    pub fn describe(&self, map: &Map) -> String {
        match self {
            AdjustmentOrderResult::Built { unit } => format!("built {}", unit.describe(map)),
            AdjustmentOrderResult::Removed { unit } => format!("removed {}", unit.describe(map)),
            AdjustmentOrderResult::Waived => "build waived".into(),
            AdjustmentOrderResult::Illegal(why) => format!("illegal: {}", why.describe(map)),
            AdjustmentOrderResult::TooMany => "ignored: more orders than adjustments due".into(),
        }
    }
}

/// One order as written, with what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdjustmentOutcome {
    pub power: PowerId,
    pub order: Order<Place>,
    pub result: AdjustmentOrderResult,
}

/// An adjustment the judge made because the power did not order it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DefaultAdjustment {
    /// Removed by the civil-disorder rule.
    CivilDisorderRemoval { power: PowerId, unit: Unit },
    /// Builds the power was due but did not order.
    BuildsWaived { power: PowerId, count: usize },
}

impl DefaultAdjustment {
    pub fn describe(&self, map: &Map) -> String {
        match self {
            DefaultAdjustment::CivilDisorderRemoval { power, unit } => {
                format!("{}: {} removed in civil disorder", map.power(*power).name, unit.describe(map))
            }
            DefaultAdjustment::BuildsWaived { power, count } => {
                let s = if *count == 1 { "" } else { "s" };
                format!("{}: {count} build{s} not ordered, waived", map.power(*power).name)
            }
        }
    }
}

/// A power's count on this board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PowerCount {
    pub power: PowerId,
    pub centers: usize,
    pub units: usize,
}

impl PowerCount {
    /// Builds when positive, removals when negative.
    pub fn delta(&self) -> i64 {
        self.centers as i64 - self.units as i64
    }
}

/// The result of one board's adjustment phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdjustmentResult {
    /// Every power's centers and units before the adjustments.
    pub counts: Vec<PowerCount>,
    /// One per order, in the order given.
    pub outcomes: Vec<AdjustmentOutcome>,
    /// Adjustments made for orders not sent, power by power.
    pub defaults: Vec<DefaultAdjustment>,
    /// The units after the phase: the survivors in their old order, then the new units.
    pub units: Vec<Unit>,
}

/// Adjudicate one board's adjustment phase. `orders` are in the order written, each with
/// the power that wrote it.
pub fn adjudicate_adjustments(
    map: &Map,
    units: &[Unit],
    ownership: &Ownership,
    orders: &[(PowerId, Order<Place>)],
    rules: AdjustmentRules,
) -> AdjustmentResult {
    let counts: Vec<PowerCount> = map
        .power_ids()
        .map(|power| PowerCount {
            power,
            centers: ownership.count(power),
            units: units.iter().filter(|u| u.power == power).count(),
        })
        .collect();
    let delta = |power: PowerId| counts.iter().find(|c| c.power == power).map_or(0, |c| c.delta());

    let mut used: BTreeMap<PowerId, i64> = BTreeMap::new();
    let mut removed: Vec<Unit> = Vec::new();
    let mut built: Vec<Unit> = Vec::new();
    let mut outcomes = Vec::with_capacity(orders.len());

    for (power, order) in orders {
        let due = delta(*power);
        let spent = used.entry(*power).or_insert(0);
        let result = match order {
            Order::Build { kind, at } => {
                if due <= 0 {
                    AdjustmentOrderResult::Illegal(AdjustmentIllegal::NoBuildsDue { power: *power })
                } else {
                    match check_build(map, units, &built, ownership, *power, *kind, *at) {
                        Err(why) => AdjustmentOrderResult::Illegal(AdjustmentIllegal::Build(why)),
                        Ok(_) if *spent >= due => AdjustmentOrderResult::TooMany,
                        Ok(unit) => {
                            *spent += 1;
                            built.push(unit);
                            AdjustmentOrderResult::Built { unit }
                        }
                    }
                }
            }
            Order::Waive if due <= 0 => {
                AdjustmentOrderResult::Illegal(AdjustmentIllegal::NoBuildsDue { power: *power })
            }
            Order::Waive if *spent >= due => AdjustmentOrderResult::TooMany,
            Order::Waive => {
                *spent += 1;
                AdjustmentOrderResult::Waived
            }
            Order::Disband { unit } => {
                if due >= 0 {
                    AdjustmentOrderResult::Illegal(AdjustmentIllegal::NoRemovalsDue { power: *power })
                } else {
                    match find_removal(map, units, &removed, *power, unit.at) {
                        Err(why) => AdjustmentOrderResult::Illegal(why),
                        Ok(_) if *spent >= -due => AdjustmentOrderResult::TooMany,
                        Ok(unit) => {
                            *spent += 1;
                            removed.push(unit);
                            AdjustmentOrderResult::Removed { unit }
                        }
                    }
                }
            }
            _ => AdjustmentOrderResult::Illegal(AdjustmentIllegal::NotAnAdjustmentOrder),
        };
        outcomes.push(AdjustmentOutcome { power: *power, order: *order, result });
    }

    let mut defaults = Vec::new();
    for count in &counts {
        let due = count.delta();
        let spent = used.get(&count.power).copied().unwrap_or(0);
        if due > 0 && spent < due {
            defaults.push(DefaultAdjustment::BuildsWaived { power: count.power, count: (due - spent) as usize });
        } else if due < 0 && spent < -due {
            let remaining: Vec<Unit> = units.iter().filter(|u| !removed.contains(u)).copied().collect();
            let order = civil_disorder_order(map, &remaining, ownership, count.power, rules.civil_disorder);
            for unit in order.into_iter().take((-due - spent) as usize) {
                removed.push(unit);
                defaults.push(DefaultAdjustment::CivilDisorderRemoval { power: count.power, unit });
            }
        }
    }

    let units = units.iter().filter(|u| !removed.contains(u)).chain(built.iter()).copied().collect();
    AdjustmentResult { counts, outcomes, defaults, units }
}

/// A build order checked against the board and the builds already accepted this winter.
fn check_build(
    map: &Map,
    units: &[Unit],
    built: &[Unit],
    ownership: &Ownership,
    power: PowerId,
    kind: Option<UnitType>,
    at: Place,
) -> Result<Unit, BuildIllegal> {
    if built.iter().any(|u| map.province_of(u.region) == at.province) {
        return Err(BuildIllegal::SecondBuildInCenter { province: at.province });
    }
    let kind = build_kind(map, kind, at)?;
    let region = build_is_legal(map, units, ownership, power, kind, at)?;
    Ok(Unit { power, kind, region })
}

/// The unit a removal order names: the power's unit in that province. The unit type and
/// coast as written are not checked (DATC 4.C.2, 4.B.5: such slips are ignored).
fn find_removal(
    map: &Map,
    units: &[Unit],
    removed: &[Unit],
    power: PowerId,
    at: Place,
) -> Result<Unit, AdjustmentIllegal> {
    let unit = units
        .iter()
        .find(|u| map.province_of(u.region) == at.province)
        .ok_or(AdjustmentIllegal::NoSuchUnit { province: at.province })?;
    if unit.power != power {
        return Err(AdjustmentIllegal::NotYourUnit { unit: *unit });
    }
    if removed.contains(unit) {
        return Err(AdjustmentIllegal::AlreadyRemoved { unit: *unit });
    }
    Ok(*unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Map, Ownership) {
        let map = Map::standard();
        let ownership = Ownership::initial(&map);
        (map, ownership)
    }

    fn place(map: &Map, text: &str) -> Place {
        let region = map.parse_region(text).unwrap();
        Place { province: map.province_of(region), coast: map.region(region).coast }
    }

    fn power(map: &Map, name: &str) -> PowerId {
        map.lookup_power(name).unwrap()
    }

    fn unit(map: &Map, power_name: &str, kind: UnitType, at: &str) -> Unit {
        Unit { power: power(map, power_name), kind, region: map.parse_region(at).unwrap() }
    }

    #[test]
    fn distances_from_the_centers_match_the_search_from_each_unit() {
        use rand::{Rng, SeedableRng};
        let map = Map::standard();
        let powers: Vec<PowerId> = map.power_ids().collect();
        let centers: Vec<ProvinceId> = map.supply_centers().collect();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(26);
        let (mut units_checked, mut unreachable) = (0, 0);
        for _ in 0..400 {
            let mut ownership = Ownership::new(&map);
            let owned_share = rng.gen_range(0.0..1.0);
            for &c in &centers {
                let owner = rng.gen_bool(owned_share).then(|| powers[rng.gen_range(0..powers.len())]);
                ownership.set(c, owner);
            }
            let mut units = Vec::new();
            for &power in &powers {
                for _ in 0..rng.gen_range(0..6) {
                    let kind = if rng.gen_bool(0.5) { UnitType::Army } else { UnitType::Fleet };
                    let stands: Vec<RegionId> =
                        (0..map.region_count() as u16).map(RegionId).filter(|r| map.unit_can_stand(kind, *r)).collect();
                    units.push(Unit { power, kind, region: stands[rng.gen_range(0..stands.len())] });
                }
            }
            for rule in [CivilDisorderRule::Rulebook2023, CivilDisorderRule::HomeCenters1971] {
                for &power in &powers {
                    let mut table = PowerDistances::new(&map, &ownership, power, rule);
                    for u in units.iter().filter(|u| u.power == power) {
                        let searched = rule.distance(&map, u, &ownership, power);
                        assert_eq!(table.of(u), searched, "{rule:?} {}", map.region_name(u.region));
                        units_checked += 1;
                        unreachable += usize::from(searched == u32::MAX);
                    }
                    let mut by_search: Vec<(CivilDisorderKey, Unit)> = units
                        .iter()
                        .filter(|u| u.power == power)
                        .map(|u| (civil_disorder_key(&map, u, &ownership, power, rule), *u))
                        .collect();
                    by_search.sort();
                    let by_search: Vec<Unit> = by_search.into_iter().map(|(_, u)| u).collect();
                    assert_eq!(civil_disorder_order(&map, &units, &ownership, power, rule), by_search);
                }
            }
        }
        assert!(units_checked > 10_000 && unreachable > 100, "{units_checked} units, {unreachable} unreachable");
    }

    #[test]
    fn fleets_in_st_petersburg_need_a_known_coast() {
        let (map, own) = setup();
        let rus = power(&map, "russia");
        let stp = map.lookup_province("stp").unwrap();
        let bare = Place { province: stp, coast: None };
        assert_eq!(
            build_is_legal(&map, &[], &own, rus, UnitType::Fleet, bare),
            Err(BuildIllegal::CoastNeeded { province: stp })
        );
        assert_eq!(
            build_is_legal(&map, &[], &own, rus, UnitType::Fleet, place(&map, "stp/nc")),
            Ok(map.parse_region("stp/nc").unwrap())
        );
        let east = Place { province: stp, coast: Some(Coast::East) };
        assert_eq!(
            build_is_legal(&map, &[], &own, rus, UnitType::Fleet, east),
            Err(BuildIllegal::NoSuchCoast { province: stp, coast: Coast::East })
        );
        // An army's coast is irrelevant and ignored (DATC 4.B.6).
        let north = Place { province: stp, coast: Some(Coast::North) };
        assert_eq!(build_is_legal(&map, &[], &own, rus, UnitType::Army, north), Ok(map.province(stp).main_region));
    }

    #[test]
    fn builds_need_an_owned_vacant_home_center_that_fits_the_unit() {
        let (map, mut own) = setup();
        let ger = power(&map, "germany");
        let rus = power(&map, "russia");
        let p = |s: &str| place(&map, s);
        assert_eq!(
            build_is_legal(&map, &[], &own, ger, UnitType::Army, p("bur")),
            Err(BuildIllegal::NotASupplyCenter { province: p("bur").province })
        );
        own.set(p("war").province, Some(ger));
        assert_eq!(
            build_is_legal(&map, &[], &own, ger, UnitType::Army, p("war")),
            Err(BuildIllegal::NotAHomeCenter { province: p("war").province })
        );
        own.set(p("ber").province, Some(rus));
        assert_eq!(
            build_is_legal(&map, &[], &own, ger, UnitType::Army, p("ber")),
            Err(BuildIllegal::NotOwned { province: p("ber").province, owner: Some(rus) })
        );
        let in_kiel = unit(&map, "england", UnitType::Fleet, "kie");
        assert_eq!(
            build_is_legal(&map, &[in_kiel], &own, ger, UnitType::Army, p("kie")),
            Err(BuildIllegal::Occupied { by: in_kiel })
        );
        assert_eq!(
            build_is_legal(&map, &[], &own, ger, UnitType::Fleet, p("mun")),
            Err(BuildIllegal::FleetInland { province: p("mun").province })
        );
        assert_eq!(
            build_is_legal(&map, &[], &own, ger, UnitType::Fleet, p("kie")),
            Ok(map.parse_region("kie").unwrap())
        );
    }

    #[test]
    fn on_a_map_where_powers_build_anywhere_any_owned_vacant_center_will_do() {
        let map = crate::diplomacy::map::shipped::map("modern").unwrap();
        let mut own = Ownership::initial(&map);
        let ger = map.lookup_power("germany").unwrap();
        let p = |s: &str| map.parse_region(s).map(|r| Place { province: map.province_of(r), coast: None }).unwrap();
        // Warsaw is Poland's home: Germany may build there once it owns it.
        assert_eq!(
            build_is_legal(&map, &[], &own, ger, UnitType::Army, p("war")),
            Err(BuildIllegal::NotOwned { province: p("war").province, owner: map.lookup_power("poland") })
        );
        own.set(p("war").province, Some(ger));
        assert_eq!(
            build_is_legal(&map, &[], &own, ger, UnitType::Army, p("war")),
            Ok(map.parse_region("war").unwrap())
        );
        // Still only in supply centers.
        assert_eq!(
            build_is_legal(&map, &[], &own, ger, UnitType::Army, p("sax")),
            Err(BuildIllegal::NotASupplyCenter { province: p("sax").province })
        );
    }

    #[test]
    fn a_build_without_unit_type_is_an_army_inland_and_a_fleet_on_a_named_coast() {
        let map = Map::standard();
        let p = |s: &str| place(&map, s);
        assert_eq!(build_kind(&map, None, p("mos")), Ok(UnitType::Army));
        assert_eq!(build_kind(&map, None, p("stp/nc")), Ok(UnitType::Fleet));
        assert_eq!(build_kind(&map, None, p("lon")), Err(BuildIllegal::UnitTypeNeeded { province: p("lon").province }));
        assert_eq!(build_kind(&map, None, p("stp")), Err(BuildIllegal::UnitTypeNeeded { province: p("stp").province }));
        assert_eq!(build_kind(&map, Some(UnitType::Fleet), p("mos")), Ok(UnitType::Fleet));
    }

    #[test]
    fn distance_2023_counts_every_border_to_owned_centers() {
        let (map, mut own) = setup();
        let rus = power(&map, "russia");
        for (p, o) in [("war", "germany"), ("mos", "germany"), ("sev", "turkey")] {
            own.set(map.lookup_province(p).unwrap(), Some(power(&map, o)));
        }
        let d = |kind, at| civil_disorder_distance(&map, &unit(&map, "russia", kind, at), &own, rus);
        assert_eq!(d(UnitType::Army, "stp"), 0);
        assert_eq!(d(UnitType::Army, "lvn"), 1);
        assert_eq!(d(UnitType::Army, "pru"), 2);
        assert_eq!(d(UnitType::Fleet, "ska"), 2);
        assert_eq!(d(UnitType::Fleet, "nao"), 3);
        // A fleet may count across land: Prussia to St Petersburg through Livonia.
        assert_eq!(d(UnitType::Fleet, "pru"), 2);
        own.set(map.lookup_province("stp").unwrap(), None);
        let livonia = unit(&map, "russia", UnitType::Army, "lvn");
        assert_eq!(civil_disorder_distance(&map, &livonia, &own, rus), u32::MAX, "no owned center: farthest of all");
    }

    #[test]
    fn distance_1971_counts_fleet_moves_to_home_centers() {
        let (map, mut own) = setup();
        let aus = power(&map, "austria");
        let fleet = unit(&map, "austria", UnitType::Fleet, "bla");
        // By sea only, Trieste is five moves away; over Rumania, Budapest is two.
        assert_eq!(CivilDisorderRule::HomeCenters1971.distance(&map, &fleet, &own, aus), 5);
        assert_eq!(CivilDisorderRule::Rulebook2023.distance(&map, &fleet, &own, aus), 2);
        // The old rule counts home centers even when they are lost.
        for p in ["vie", "bud", "tri"] {
            own.set(map.lookup_province(p).unwrap(), Some(power(&map, "italy")));
        }
        let army = unit(&map, "austria", UnitType::Army, "gal");
        assert_eq!(CivilDisorderRule::HomeCenters1971.distance(&map, &army, &own, aus), 1);
        assert_eq!(CivilDisorderRule::Rulebook2023.distance(&map, &army, &own, aus), u32::MAX);
        // Armies may cross water: Tunis to Naples through the Tyrrhenian Sea.
        let ita = power(&map, "italy");
        let tunis = unit(&map, "italy", UnitType::Army, "tun");
        assert_eq!(CivilDisorderRule::HomeCenters1971.distance(&map, &tunis, &own, ita), 2);
    }

    #[test]
    fn civil_disorder_keeps_units_on_supply_centers_under_2023_only() {
        let (map, mut own) = setup();
        let rus = power(&map, "russia");
        for (p, o) in [("war", "germany"), ("mos", "germany"), ("sev", "turkey")] {
            own.set(map.lookup_province(p).unwrap(), Some(power(&map, o)));
        }
        let munich = unit(&map, "russia", UnitType::Army, "mun");
        let livonia = unit(&map, "russia", UnitType::Army, "lvn");
        let units = [munich, livonia];
        let order = |rule| civil_disorder_order(&map, &units, &own, rus, rule);
        assert_eq!(order(CivilDisorderRule::Rulebook2023), vec![livonia, munich]);
        assert_eq!(order(CivilDisorderRule::HomeCenters1971), vec![munich, livonia]);
    }

    #[test]
    fn civil_disorder_ties_go_fleets_first_then_by_english_name() {
        let (map, mut own) = setup();
        let rus = power(&map, "russia");
        for (p, o) in [("mos", "england"), ("sev", "turkey")] {
            own.set(map.lookup_province(p).unwrap(), Some(power(&map, o)));
        }
        let bohemia = unit(&map, "russia", UnitType::Army, "boh");
        let skagerrak = unit(&map, "russia", UnitType::Fleet, "ska");
        let north_sea = unit(&map, "russia", UnitType::Fleet, "nth");
        let other = unit(&map, "germany", UnitType::Army, "ruh");
        let units = [bohemia, skagerrak, other, north_sea];
        let order = civil_disorder_order(&map, &units, &own, rus, CivilDisorderRule::Rulebook2023);
        assert_eq!(order, vec![north_sea, skagerrak, bohemia]);
        let key = civil_disorder_key(&map, &north_sea, &own, rus, CivilDisorderRule::Rulebook2023);
        assert_eq!(key.province_name, "north sea");
        assert_eq!(key.distance, Reverse(2));
    }

    #[test]
    fn orders_out_of_place_in_a_winter_are_illegal_and_unsent_builds_are_waived() {
        let (map, own) = setup();
        let fra = power(&map, "france");
        let eng = power(&map, "england");
        let units = [unit(&map, "france", UnitType::Army, "par"), unit(&map, "england", UnitType::Fleet, "lon")];
        let par = place(&map, "par");
        let orders = vec![
            (fra, Order::Hold { unit: crate::diplomacy::order::UnitRef { kind: None, at: par } }),
            (fra, Order::Disband { unit: crate::diplomacy::order::UnitRef { kind: Some(UnitType::Army), at: par } }),
            (fra, Order::Waive),
            (eng, Order::Build { kind: Some(UnitType::Fleet), at: place(&map, "edi") }),
            (eng, Order::Disband { unit: crate::diplomacy::order::UnitRef { kind: None, at: par } }),
        ];
        let result = adjudicate_adjustments(&map, &units, &own, &orders, AdjustmentRules::default());
        let texts: Vec<String> = result.outcomes.iter().map(|o| o.result.describe(&map)).collect();
        assert_eq!(
            texts,
            [
                "illegal: only builds, removals and waives are orders of a winter",
                "illegal: France has no units to remove this winter",
                "build waived",
                "built F edi",
                "illegal: England has no units to remove this winter",
            ]
        );
        let defaults: Vec<String> = result.defaults.iter().map(|d| d.describe(&map)).collect();
        assert!(defaults.contains(&"France: 1 build not ordered, waived".to_string()), "{defaults:?}");
        assert!(defaults.contains(&"England: 1 build not ordered, waived".to_string()), "{defaults:?}");
        assert_eq!(result.units.len(), 3);
    }

    #[test]
    fn a_removal_names_a_unit_of_ones_own() {
        let (map, mut own) = setup();
        let fra = power(&map, "france");
        for p in ["bre", "mar"] {
            own.set(map.lookup_province(p).unwrap(), None);
        }
        let units = [
            unit(&map, "france", UnitType::Army, "pic"),
            unit(&map, "france", UnitType::Army, "bur"),
            unit(&map, "germany", UnitType::Army, "ruh"),
        ];
        let at = |s| crate::diplomacy::order::UnitRef { kind: None, at: place(&map, s) };
        let orders = vec![(fra, Order::Disband { unit: at("ruh") }), (fra, Order::Disband { unit: at("bel") })];
        let result = adjudicate_adjustments(&map, &units, &own, &orders, AdjustmentRules::default());
        let texts: Vec<String> = result.outcomes.iter().map(|o| o.result.describe(&map)).collect();
        assert_eq!(texts, ["illegal: A ruh is German", "illegal: there is no unit in Belgium"]);
        // Picardy and Burgundy both border Paris: alphabetical, Burgundy goes.
        let removals: Vec<&DefaultAdjustment> =
            result.defaults.iter().filter(|d| matches!(d, DefaultAdjustment::CivilDisorderRemoval { .. })).collect();
        assert_eq!(removals, [&DefaultAdjustment::CivilDisorderRemoval { power: fra, unit: units[1] }]);
        assert_eq!(removals[0].describe(&map), "France: A bur removed in civil disorder");
    }

    #[test]
    fn rules_read_and_write_their_edition_names() {
        let rules: AdjustmentRules = serde_json::from_str(r#"{"civil_disorder": "1982"}"#).unwrap();
        assert_eq!(rules.civil_disorder, CivilDisorderRule::HomeCenters1971);
        assert_eq!(serde_json::to_string(&AdjustmentRules::default()).unwrap(), r#"{"civil_disorder":"2023"}"#);
        let empty: AdjustmentRules = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, AdjustmentRules::default());
    }
}
