//! Movement adjudication by Kruijswijk's algorithm (DATC v3 section 5).
//!
//! Every move, support and convoy is a decision that succeeds or fails. A decision is
//! adjudicated twice, optimistically and pessimistically (5.E: unknown dependencies
//! assumed to favour, then to oppose it); when both agree it is settled, so orders that
//! partial information decides are decided that way. A dependency on a decision still on
//! the recursion stack is a cycle; when the ancestor of the whole cycle still cannot
//! settle, the backup rule applies: a cycle of moves only is circular movement (all
//! succeed), a cycle with convoys is a convoy paradox settled by the Szykman rule (the
//! convoying fleets in it fail to convoy, 4.A.2), anything else fails.
//!
//! The strengths (5.B) are computed on demand from flat vectors indexed by unit and
//! province; the scratch space lives in an [`Adjudicator`] that can be reused, so a phase
//! allocates nothing per decision. Convoy routes are a breadth-first search over a
//! bitset of the fleets ordered to convoy that army.
//!
//! This module never reads order text and never decides legality: it takes one resolved
//! [`MainOrder`] per unit (see [`crate::diplomacy::judge::legality`]).

use crate::diplomacy::judge::legality::{Illegal, MainOrder};
use crate::diplomacy::judge::rulebook::{AdjacentConvoy, MultiRouteConvoy, Rulebook};
use crate::diplomacy::judge::{retreat_options, Dislodgement, Unit};
use crate::diplomacy::map::{Map, PowerId, ProvinceId, RegionId, UnitType};

const NONE: u32 = u32::MAX;

/// What happened to one unit's order, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderOutcome {
    /// The order did what it said (a move arrived, a support was given, a convoy
    /// carried, a holding unit stayed).
    pub succeeded: bool,
    pub reason: Reason,
    /// The unit (by index) whose move dislodged this unit, if any.
    pub dislodged_by: Option<usize>,
}

/// Why an order succeeded or failed. Unit numbers are indices into the phase's units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The move arrived.
    Moved,
    /// The move was stopped by a unit of equal or greater strength: the unit holding the
    /// destination, or another unit moving there.
    Bounced { against: usize },
    /// The move lost a head-to-head battle with the unit coming the other way.
    LostHeadToHead { to: usize },
    /// The move would have dislodged a unit of its own power.
    OwnUnitInTheWay { unit: usize },
    /// No fleets were ordered to convoy the army along a complete route.
    NoConvoyRoute,
    /// A convoying fleet failed (dislodged, or held by the Szykman rule).
    ConvoyDisrupted { fleet: usize },
    /// The support was given.
    SupportGiven,
    /// The support was cut by a move (or dislodgement) of this unit.
    SupportCut { by: usize },
    /// The supported unit did not do what the support said.
    SupportVoid,
    /// The fleet convoyed the army (whatever became of the army's move).
    ConvoyCarried,
    /// The convoying fleet was dislodged.
    ConvoyFleetDislodged { by: usize },
    /// The convoy was part of a convoy paradox: the Szykman rule makes the fleet hold.
    ConvoyParadox,
    /// The army did not make the move the convoy was for.
    ConvoyVoid,
    /// The army moved over land: the convoy was not used.
    ConvoyNotUsed,
    /// A move failed in a dependency cycle that no rule resolves (variants only).
    Paradox,
    /// The unit held.
    Held,
    /// The unit was dislodged by this unit.
    Dislodged { by: usize },
    /// The order was illegal; the unit held (and maybe was dislodged).
    Illegal { illegal: Illegal, dislodged_by: Option<usize> },
}

impl Reason {
    /// A short English sentence in the words of the game, e.g. `bounced with A mun
    /// (Germany)`, `cut by A ruh - bur`.
    pub fn describe(&self, map: &Map, units: &[Unit], orders: &[MainOrder]) -> String {
        let mut out = String::new();
        self.write(&mut out, map, units, orders);
        out
    }

    /// [`Reason::describe`], appended to `out` (the batch path writes many of these).
    pub fn write(&self, out: &mut String, map: &Map, units: &[Unit], orders: &[MainOrder]) {
        let (text, named, after) = match *self {
            Reason::Moved => ("moved", Named::Nothing, ""),
            Reason::Bounced { against } => ("bounced with ", Named::Unit(against), ""),
            Reason::LostHeadToHead { to } => ("lost the head-to-head battle with ", Named::Unit(to), ""),
            Reason::OwnUnitInTheWay { unit } => ("cannot dislodge its own ", Named::Unit(unit), ""),
            Reason::NoConvoyRoute => ("no convoy route", Named::Nothing, ""),
            Reason::ConvoyDisrupted { fleet } => ("convoy disrupted: ", Named::Unit(fleet), " did not convoy"),
            Reason::SupportGiven => ("support given", Named::Nothing, ""),
            Reason::SupportCut { by } => ("cut by ", Named::Order(by), ""),
            Reason::SupportVoid => ("void: the supported unit did something else", Named::Nothing, ""),
            Reason::ConvoyCarried => ("convoyed", Named::Nothing, ""),
            Reason::ConvoyFleetDislodged { by } => ("convoy failed: dislodged by ", Named::Order(by), ""),
            Reason::ConvoyParadox => ("convoy paradox: the fleet holds (Szykman rule)", Named::Nothing, ""),
            Reason::ConvoyVoid => ("void: the army did not make that move", Named::Nothing, ""),
            Reason::ConvoyNotUsed => ("not used: the army moved over land", Named::Nothing, ""),
            Reason::Paradox => ("failed: part of a paradox with no resolution", Named::Nothing, ""),
            Reason::Held => ("held", Named::Nothing, ""),
            Reason::Dislodged { by } => ("dislodged by ", Named::Order(by), ""),
            Reason::Illegal { illegal, dislodged_by } => {
                out.push_str("illegal: ");
                out.push_str(&illegal.describe(map));
                match dislodged_by {
                    Some(by) => ("; held and dislodged by ", Named::Order(by), ""),
                    None => ("; held", Named::Nothing, ""),
                }
            }
        };
        out.push_str(text);
        match named {
            Named::Nothing => {}
            Named::Unit(i) => push_unit_of(out, map, units, i),
            Named::Order(i) => push_order_label(out, map, units, orders, i),
        }
        out.push_str(after);
    }
}

/// What a reason names between its words.
enum Named {
    Nothing,
    Unit(usize),
    Order(usize),
}

/// `A mun (Germany)`; `a unit` for an index out of range.
fn push_unit_of(out: &mut String, map: &Map, units: &[Unit], i: usize) {
    match units.get(i) {
        Some(u) => {
            u.push_describe(out, map);
            out.push_str(" (");
            out.push_str(&map.power(u.power).name);
            out.push(')');
        }
        None => out.push_str("a unit"),
    }
}

/// `A ruh - bur`, `F nth C A lon - nwy`, `A mun S A bur`, `A par H`.
pub fn order_label(map: &Map, units: &[Unit], orders: &[MainOrder], i: usize) -> String {
    let mut label = String::new();
    push_order_label(&mut label, map, units, orders, i);
    label
}

fn push_order_label(out: &mut String, map: &Map, units: &[Unit], orders: &[MainOrder], i: usize) {
    let Some(u) = units.get(i) else { return out.push_str("a unit") };
    // The unit standing in a province, or the province's name when there is none.
    let push_unit_at = |out: &mut String, p: ProvinceId| match units.iter().find(|v| map.province_of(v.region) == p) {
        Some(v) => v.push_describe(out, map),
        None => out.push_str(&map.province(p).key),
    };
    u.push_describe(out, map);
    match orders.get(i).copied().unwrap_or_default() {
        MainOrder::Hold => out.push_str(" H"),
        MainOrder::Move { to, via_convoy } => {
            out.push_str(" - ");
            map.push_region_name(out, to);
            if via_convoy {
                out.push_str(" via convoy");
            }
        }
        MainOrder::SupportHold { target } => {
            out.push_str(" S ");
            push_unit_at(out, target);
        }
        MainOrder::SupportMove { from, to, to_coast } => {
            out.push_str(" S ");
            push_unit_at(out, from);
            out.push_str(" - ");
            match to_coast {
                Some(r) => map.push_region_name(out, r),
                None => out.push_str(&map.province(to).key),
            }
        }
        MainOrder::Convoy { from, to } => {
            out.push_str(" C ");
            push_unit_at(out, from);
            out.push_str(" - ");
            out.push_str(&map.province(to).key);
        }
    }
}

/// A unit dislodged in the phase, with where it may retreat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dislodged {
    /// The unit's index in the phase's units.
    pub index: usize,
    pub dislodgement: Dislodgement,
    /// Legal retreats (see [`retreat_options`]); empty means the unit is disbanded.
    pub retreats: Vec<RegionId>,
}

/// The result of a movement phase.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MovementResult {
    /// One outcome per unit, same index as the units and orders.
    pub outcomes: Vec<OrderOutcome>,
    /// The units not dislodged, at their new places, in unit order.
    pub units_after: Vec<Unit>,
    pub dislodged: Vec<Dislodged>,
    /// Provinces left vacant by a standoff (no retreat there).
    pub standoffs: Vec<ProvinceId>,
}

impl MovementResult {
    /// Mark a unit whose order was illegal (it held): its reason says so, keeping
    /// whether it was dislodged.
    pub fn mark_illegal(&mut self, index: usize, illegal: Illegal) {
        if let Some(o) = self.outcomes.get_mut(index) {
            o.succeeded = false;
            o.reason = Reason::Illegal { illegal, dislodged_by: o.dislodged_by };
        }
    }
}

/// Adjudicate a movement phase: `orders[i]` is the order of `units[i]` (`Hold` for none;
/// missing entries hold). Units are assumed to stand one per province.
pub fn adjudicate_movement(map: &Map, units: &[Unit], orders: &[MainOrder], rulebook: &Rulebook) -> MovementResult {
    Adjudicator::default().adjudicate(map, units, orders, rulebook)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Kind {
    #[default]
    Hold,
    Move,
    SupportHold,
    SupportMove,
    Convoy,
}

/// How a move travels (DATC 4.A.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Route {
    #[default]
    Land,
    Convoy,
    /// By convoy if the convoy works, over land otherwise: 1971 (when the unit at the
    /// destination moves the other way), and DATC v2's fallback
    /// (`land_if_no_convoy_route`) when a complete route was ordered.
    ConvoyIfItWorks,
}

/// Reusable scratch space for adjudicating many phases without allocating per decision.
#[derive(Default, Debug)]
pub struct Adjudicator {
    kind: Vec<Kind>,
    origin: Vec<u16>,
    /// Move: destination province; support: the province supported into (or held);
    /// convoy: the army's destination.
    dest: Vec<u16>,
    dest_region: Vec<RegionId>,
    route: Vec<Route>,
    /// Support or convoy: the index of the unit it names (NONE if nothing stands there).
    target: Vec<u32>,
    /// Support or convoy: does it match what the named unit does?
    matches: Vec<bool>,
    unit_at: Vec<u32>,
    moves_into_start: Vec<u32>,
    moves_into: Vec<u32>,
    supports_start: Vec<u32>,
    supports: Vec<u32>,
    convoys_start: Vec<u32>,
    convoys: Vec<u32>,
    resolved: Vec<bool>,
    resolution: Vec<bool>,
    visited: Vec<bool>,
    in_cycle: Vec<bool>,
    paradox: Vec<bool>,
    cycle: Vec<u32>,
    recursion_hits: u32,
    uncertain: bool,
    counts: Vec<u32>,
    /// Per province: does a unit stand there after the moves?
    occupied_after: Vec<bool>,
    /// Per unit: the unit that dislodged it.
    dislodged_by: Vec<Option<usize>>,
}

struct Solver<'a> {
    map: &'a Map,
    units: &'a [Unit],
    adjacent_convoy: AdjacentConvoy,
    multi_route: MultiRouteConvoy,
    cut_on_origin: bool,
    bounce_unless_h2h: bool,
    s: &'a mut Adjudicator,
}

/// Build a compressed list (start offsets + items) of `item` grouped by `key`.
fn group(
    keys: usize,
    pairs: impl Iterator<Item = (u32, u32)> + Clone,
    start: &mut Vec<u32>,
    items: &mut Vec<u32>,
    counts: &mut Vec<u32>,
) {
    counts.clear();
    counts.resize(keys + 1, 0);
    for (k, _) in pairs.clone() {
        counts[k as usize + 1] += 1;
    }
    for k in 0..keys {
        counts[k + 1] += counts[k];
    }
    start.clear();
    start.extend_from_slice(counts);
    items.clear();
    items.resize(counts[keys] as usize, 0);
    for (k, v) in pairs {
        let at = &mut counts[k as usize];
        items[*at as usize] = v;
        *at += 1;
    }
}

impl Adjudicator {
    /// Adjudicate one phase (see [`adjudicate_movement`]).
    pub fn adjudicate(
        &mut self,
        map: &Map,
        units: &[Unit],
        orders: &[MainOrder],
        rulebook: &Rulebook,
    ) -> MovementResult {
        let mut result = MovementResult::default();
        self.adjudicate_into(map, units, orders, rulebook, &mut result);
        result
    }

    /// [`Adjudicator::adjudicate`] into a result whose space is reused.
    pub fn adjudicate_into(
        &mut self,
        map: &Map,
        units: &[Unit],
        orders: &[MainOrder],
        rulebook: &Rulebook,
        result: &mut MovementResult,
    ) {
        let mut solver = Solver {
            map,
            units,
            adjacent_convoy: rulebook.adjacent_convoy(),
            multi_route: rulebook.multi_route_convoy(),
            cut_on_origin: rulebook.convoyed_attack_cuts_support_on_origin(),
            bounce_unless_h2h: rulebook.dislodged_unit_bounces_unless_head_to_head(),
            s: self,
        };
        solver.setup(orders);
        for d in 0..units.len() {
            if solver.s.kind[d] != Kind::Hold {
                solver.resolve_top(d);
            }
        }
        solver.result(rulebook, result);
    }
}

impl Solver<'_> {
    fn setup(&mut self, orders: &[MainOrder]) {
        let map = self.map;
        let units = self.units;
        let n = units.len();
        let provinces = map.provinces().len();
        let regions = map.region_count();
        let s = &mut *self.s;
        for v in [&mut s.resolved, &mut s.resolution, &mut s.visited, &mut s.in_cycle, &mut s.paradox, &mut s.matches] {
            v.clear();
            v.resize(n, false);
        }
        s.kind.clear();
        s.origin.clear();
        s.dest.clear();
        s.dest_region.clear();
        s.route.clear();
        s.target.clear();
        s.target.resize(n, NONE);
        s.cycle.clear();
        s.recursion_hits = 0;
        s.uncertain = false;
        s.unit_at.clear();
        s.unit_at.resize(provinces, NONE);
        for (i, u) in units.iter().enumerate() {
            let p = if (u.region.0 as usize) < regions { map.province_of(u.region).0 } else { 0 };
            s.origin.push(p);
            s.unit_at[p as usize] = i as u32;
        }
        for (i, unit) in units.iter().enumerate() {
            let origin = s.origin[i];
            let (kind, dest, region) = match orders.get(i).copied().unwrap_or_default() {
                MainOrder::Move { to, .. } if (to.0 as usize) < regions && map.province_of(to).0 != origin => {
                    (Kind::Move, map.province_of(to).0, to)
                }
                MainOrder::SupportHold { target } if (target.0 as usize) < provinces && target.0 != origin => {
                    (Kind::SupportHold, target.0, RegionId(0))
                }
                MainOrder::SupportMove { from, to, to_coast }
                    if (from.0 as usize) < provinces && (to.0 as usize) < provinces && from.0 != origin =>
                {
                    s.target[i] = s.unit_at[from.0 as usize];
                    (
                        Kind::SupportMove,
                        to.0,
                        to_coast.filter(|r| (r.0 as usize) < regions).unwrap_or(RegionId(u16::MAX)),
                    )
                }
                MainOrder::Convoy { from, to } if (from.0 as usize) < provinces && (to.0 as usize) < provinces => {
                    s.target[i] = s.unit_at[from.0 as usize];
                    (Kind::Convoy, to.0, RegionId(0))
                }
                _ => (Kind::Hold, origin, unit.region),
            };
            if kind == Kind::SupportHold {
                s.target[i] = s.unit_at[dest as usize];
            }
            s.kind.push(kind);
            s.dest.push(dest);
            s.dest_region.push(region);
        }
        // Which supports and convoys match what their unit does.
        for i in 0..n {
            let t = s.target[i];
            if t == NONE {
                continue;
            }
            let t = t as usize;
            s.matches[i] = match s.kind[i] {
                Kind::SupportHold => s.kind[t] != Kind::Move,
                Kind::SupportMove => {
                    s.kind[t] == Kind::Move
                        && s.dest[t] == s.dest[i]
                        && (s.dest_region[i].0 == u16::MAX || s.dest_region[i] == s.dest_region[t])
                }
                Kind::Convoy => s.kind[t] == Kind::Move && s.dest[t] == s.dest[i] && units[t].kind == UnitType::Army,
                _ => false,
            };
        }
        let (kind, dest, target, matches) = (&s.kind, &s.dest, &s.target, &s.matches);
        let moves = (0..n).filter(|&i| kind[i] == Kind::Move).map(|i| (dest[i] as u32, i as u32));
        group(provinces, moves, &mut s.moves_into_start, &mut s.moves_into, &mut s.counts);
        let sup = (0..n)
            .filter(|&i| matches[i] && matches!(kind[i], Kind::SupportHold | Kind::SupportMove))
            .map(|i| (target[i], i as u32));
        group(n, sup, &mut s.supports_start, &mut s.supports, &mut s.counts);
        let con = (0..n).filter(|&i| matches[i] && kind[i] == Kind::Convoy).map(|i| (target[i], i as u32));
        group(n, con, &mut s.convoys_start, &mut s.convoys, &mut s.counts);
        // Routes (DATC 4.A.3).
        for i in 0..n {
            let route = if s.kind[i] != Kind::Move || units[i].kind != UnitType::Army {
                Route::Land
            } else if !map.can_move(UnitType::Army, units[i].region, s.dest_region[i]) {
                Route::Convoy
            } else {
                let via = matches!(orders.get(i), Some(MainOrder::Move { via_convoy: true, .. }));
                let convoys = &s.convoys[s.convoys_start[i] as usize..s.convoys_start[i + 1] as usize];
                match self.adjacent_convoy {
                    _ if via => Route::Convoy,
                    AdjacentConvoy::ViaConvoyOnly => Route::Land,
                    // The second reading is checked below: the route must be complete.
                    AdjacentConvoy::OwnFleetOrViaConvoy | AdjacentConvoy::LandIfNoConvoyRoute => {
                        if convoys.iter().any(|&k| units[k as usize].power == units[i].power) {
                            Route::Convoy
                        } else {
                            Route::Land
                        }
                    }
                    AdjacentConvoy::OppositeMoveOnly => {
                        let j = s.unit_at[s.dest[i] as usize];
                        let opposite =
                            j != NONE && s.kind[j as usize] == Kind::Move && s.dest[j as usize] == s.origin[i];
                        if opposite && !convoys.is_empty() {
                            Route::ConvoyIfItWorks
                        } else {
                            Route::Land
                        }
                    }
                }
            };
            s.route.push(route);
        }
        if self.adjacent_convoy == AdjacentConvoy::LandIfNoConvoyRoute {
            // DATC v2: the convoy is wanted, but when the fleets ordered to convoy the
            // army do not make a complete route, the army goes over land; when they do,
            // it goes by convoy if the convoy works and over land if it is disrupted,
            // decided in the same resolution as everything else.
            for (i, unit) in units.iter().enumerate() {
                let adjacent = self.s.route[i] == Route::Convoy
                    && map.can_move(UnitType::Army, unit.region, self.s.dest_region[i]);
                if adjacent {
                    let start = self.s.convoys_start[i] as usize;
                    let end = (self.s.convoys_start[i + 1] as usize).min(start + 128);
                    let all: u128 = if end - start == 128 { u128::MAX } else { (1u128 << (end - start)) - 1 };
                    self.s.route[i] = if start == end || self.route_fleets(i, start, end, all) == 0 {
                        Route::Land
                    } else {
                        Route::ConvoyIfItWorks
                    };
                }
            }
        }
    }

    fn supporters(&self, i: usize) -> std::ops::Range<usize> {
        self.s.supports_start[i] as usize..self.s.supports_start[i + 1] as usize
    }

    fn moves_into(&self, p: u16) -> std::ops::Range<usize> {
        self.s.moves_into_start[p as usize] as usize..self.s.moves_into_start[p as usize + 1] as usize
    }

    fn resolve_top(&mut self, d: usize) {
        // The backup rule settles every cycle, so one call settles `d`; the loop is a
        // guard, never expected to turn twice.
        for _ in 0..4 {
            if self.s.resolved[d] {
                return;
            }
            self.s.cycle.clear();
            self.s.recursion_hits = 0;
            self.s.uncertain = false;
            self.resolve(d, true);
        }
        if !self.s.resolved[d] {
            self.s.resolved[d] = true;
            self.s.resolution[d] = false;
        }
    }

    fn push_cycle(&mut self, d: usize) {
        self.s.in_cycle[d] = true;
        self.s.cycle.push(d as u32);
    }

    fn truncate_cycle(&mut self, len: usize) {
        for k in len..self.s.cycle.len() {
            let d = self.s.cycle[k] as usize;
            self.s.in_cycle[d] = false;
        }
        self.s.cycle.truncate(len);
    }

    /// DATC 5.E: the partial information resolver with recursion hits.
    fn resolve(&mut self, d: usize, optimistic: bool) -> bool {
        if self.s.resolved[d] {
            return self.s.resolution[d];
        }
        if self.s.in_cycle[d] {
            self.s.uncertain = true;
            return optimistic;
        }
        if self.s.visited[d] {
            self.push_cycle(d);
            self.s.recursion_hits += 1;
            self.s.uncertain = true;
            return optimistic;
        }
        self.s.visited[d] = true;
        let old_len = self.s.cycle.len();
        let old_hits = self.s.recursion_hits;
        let old_uncertain = self.s.uncertain;
        self.s.uncertain = false;
        let opt_result = self.adjudicate(d, true);
        let pes_result = if self.s.uncertain && opt_result { self.adjudicate(d, false) } else { opt_result };
        self.s.visited[d] = false;
        if opt_result == pes_result {
            self.truncate_cycle(old_len);
            self.s.recursion_hits = old_hits;
            self.s.uncertain = old_uncertain;
            self.s.resolved[d] = true;
            self.s.resolution[d] = opt_result;
            return opt_result;
        }
        if self.s.in_cycle[d] {
            self.s.recursion_hits -= 1;
        }
        if self.s.recursion_hits == old_hits && self.s.cycle.len() > old_len {
            self.backup_rule(old_len);
            self.truncate_cycle(old_len);
            self.s.uncertain = old_uncertain;
            return self.resolve(d, optimistic);
        }
        if self.s.recursion_hits != old_hits && !self.s.in_cycle[d] {
            self.push_cycle(d);
        }
        self.s.uncertain = true;
        optimistic
    }

    /// DATC 5.B.9: circular movement succeeds; a convoy paradox is settled by the Szykman
    /// rule; any other cycle fails.
    fn backup_rule(&mut self, from: usize) {
        let cycle = &self.s.cycle[from..];
        let has_convoy = cycle.iter().any(|&d| self.s.kind[d as usize] == Kind::Convoy);
        let only_moves = cycle.iter().all(|&d| self.s.kind[d as usize] == Kind::Move);
        for k in from..self.s.cycle.len() {
            let d = self.s.cycle[k] as usize;
            if has_convoy {
                if self.s.kind[d] == Kind::Convoy {
                    self.s.resolved[d] = true;
                    self.s.resolution[d] = false;
                    self.s.paradox[d] = true;
                }
            } else {
                self.s.resolved[d] = true;
                self.s.resolution[d] = only_moves;
            }
        }
    }

    fn adjudicate(&mut self, d: usize, optimistic: bool) -> bool {
        match self.s.kind[d] {
            Kind::Move => self.adjudicate_move(d, optimistic),
            Kind::SupportHold | Kind::SupportMove => self.adjudicate_support(d, optimistic),
            Kind::Convoy => self.adjudicate_convoy(d, optimistic),
            Kind::Hold => true,
        }
    }

    fn adjudicate_move(&mut self, i: usize, opt: bool) -> bool {
        let attack = self.attack_strength(i, opt);
        if attack == 0 {
            return false;
        }
        match self.head_to_head(i, opt) {
            Some(j) => {
                if attack <= self.defend_strength(j, !opt) {
                    return false;
                }
            }
            None => {
                if attack <= self.hold_strength(self.s.dest[i], !opt) {
                    return false;
                }
            }
        }
        for k in self.moves_into(self.s.dest[i]) {
            let k = self.s.moves_into[k] as usize;
            if k != i && attack <= self.prevent_strength(k, !opt) {
                return false;
            }
        }
        true
    }

    /// DATC 5.B.2: cut by a foreign unit that can reach the supporter (unless it comes
    /// from where the support goes), or by a dislodgement.
    fn adjudicate_support(&mut self, i: usize, opt: bool) -> bool {
        let here = self.s.origin[i];
        let power = self.units[i].power;
        for k in self.moves_into(here) {
            let j = self.s.moves_into[k] as usize;
            if self.units[j].power == power {
                continue;
            }
            let against_own_origin = self.s.kind[i] == Kind::SupportMove && self.s.dest[i] == self.s.origin[j];
            let exempt = against_own_origin && !(self.cut_on_origin && self.uses_convoy(j, !opt));
            if !exempt {
                if self.path(j, !opt) {
                    return false;
                }
            } else if self.resolve(j, !opt) {
                return false;
            }
        }
        true
    }

    /// DATC 5.B.3: a convoy succeeds unless the fleet is dislodged.
    fn adjudicate_convoy(&mut self, i: usize, opt: bool) -> bool {
        for k in self.moves_into(self.s.origin[i]) {
            let j = self.s.moves_into[k] as usize;
            if self.resolve(j, !opt) {
                return false;
            }
        }
        true
    }

    fn uses_convoy(&mut self, i: usize, opt: bool) -> bool {
        match self.s.route[i] {
            Route::Land => false,
            Route::Convoy => true,
            Route::ConvoyIfItWorks => self.convoy_path(i, opt),
        }
    }

    /// DATC 5.B.4.
    fn path(&mut self, i: usize, opt: bool) -> bool {
        match self.s.route[i] {
            Route::Land | Route::ConvoyIfItWorks => true,
            Route::Convoy => self.convoy_path(i, opt),
        }
    }

    /// Is there a chain of fleets, each convoying army `i` successfully, from its
    /// province to its destination?
    fn convoy_path(&mut self, i: usize, opt: bool) -> bool {
        let start = self.s.convoys_start[i] as usize;
        let end = (self.s.convoys_start[i + 1] as usize).min(start + 128);
        if start == end {
            return false;
        }
        let mut ok: u128 = 0;
        for k in start..end {
            let fleet = self.s.convoys[k] as usize;
            if self.resolve(fleet, opt) {
                ok |= 1 << (k - start);
            }
        }
        let all: u128 = if end - start == 128 { u128::MAX } else { (1u128 << (end - start)) - 1 };
        if self.multi_route == MultiRouteConvoy::AnyRouteDisrupts {
            // 1971: every fleet on any route must convoy.
            let on_route = self.route_fleets(i, start, end, all);
            return on_route != 0 && on_route & ok == on_route;
        }
        self.route_fleets(i, start, end, ok) != 0
    }

    /// The fleets (a bitset over the army's convoy list) lying on a complete route that
    /// uses only `usable` fleets; zero when there is no route.
    fn route_fleets(&self, i: usize, start: usize, end: usize, usable: u128) -> u128 {
        let from = ProvinceId(self.s.origin[i]);
        let to = ProvinceId(self.s.dest[i]);
        let reach = |seed: ProvinceId| -> u128 {
            let mut seen: u128 = 0;
            for k in start..end {
                let bit = 1u128 << (k - start);
                if usable & bit != 0 && self.map.provinces_adjacent(seed, self.fleet_province(k)) {
                    seen |= bit;
                }
            }
            let mut frontier = seen;
            while frontier != 0 {
                let k = frontier.trailing_zeros() as usize;
                frontier &= frontier - 1;
                let p = self.fleet_province(start + k);
                for m in start..end {
                    let bit = 1u128 << (m - start);
                    if usable & bit != 0 && seen & bit == 0 && self.map.provinces_adjacent(p, self.fleet_province(m)) {
                        seen |= bit;
                        frontier |= bit;
                    }
                }
            }
            seen
        };
        let forward = reach(from);
        if forward == 0 {
            return 0;
        }
        reach(to) & forward
    }

    fn fleet_province(&self, k: usize) -> ProvinceId {
        ProvinceId(self.s.origin[self.s.convoys[k] as usize])
    }

    /// The unit moving the other way, when the two meet in a head-to-head battle (both
    /// over land).
    fn head_to_head(&mut self, i: usize, opt: bool) -> Option<usize> {
        let j = self.s.unit_at[self.s.dest[i] as usize];
        if j == NONE {
            return None;
        }
        let j = j as usize;
        if self.s.kind[j] != Kind::Move || self.s.dest[j] != self.s.origin[i] {
            return None;
        }
        if self.uses_convoy(i, opt) || self.uses_convoy(j, opt) {
            return None;
        }
        Some(j)
    }

    fn support_count(&mut self, i: usize, opt: bool, not_of: Option<PowerId>) -> u32 {
        let mut n = 0;
        for k in self.supporters(i) {
            let s = self.s.supports[k] as usize;
            if Some(self.units[s].power) != not_of && self.resolve(s, opt) {
                n += 1;
            }
        }
        n
    }

    /// DATC 5.B.8. `upper`: the most it can be (true) or the least (false).
    fn attack_strength(&mut self, i: usize, upper: bool) -> u32 {
        if !self.path(i, upper) {
            return 0;
        }
        let j = self.s.unit_at[self.s.dest[i] as usize];
        if j == NONE {
            return 1 + self.support_count(i, upper, None);
        }
        let j = j as usize;
        if self.s.kind[j] == Kind::Move && self.head_to_head(i, upper).is_none() && self.resolve(j, upper) {
            return 1 + self.support_count(i, upper, None);
        }
        if self.units[j].power == self.units[i].power {
            return 0;
        }
        1 + self.support_count(i, upper, Some(self.units[j].power))
    }

    /// DATC 5.B.5.
    fn hold_strength(&mut self, p: u16, upper: bool) -> u32 {
        let j = self.s.unit_at[p as usize];
        if j == NONE {
            return 0;
        }
        let j = j as usize;
        if self.s.kind[j] == Kind::Move {
            return if self.resolve(j, !upper) { 0 } else { 1 };
        }
        1 + self.support_count(j, upper, None)
    }

    /// DATC 5.B.7.
    fn defend_strength(&mut self, i: usize, upper: bool) -> u32 {
        1 + self.support_count(i, upper, None)
    }

    /// Does the move contest its destination at all (a prevent strength above 0)?
    fn contests(&mut self, i: usize, upper: bool) -> bool {
        if !self.path(i, upper) {
            return false;
        }
        let opposing = if self.bounce_unless_h2h {
            self.head_to_head(i, upper)
        } else {
            let j = self.s.unit_at[self.s.dest[i] as usize];
            (j != NONE && self.s.kind[j as usize] == Kind::Move && self.s.dest[j as usize] == self.s.origin[i])
                .then_some(j as usize)
        };
        if let Some(j) = opposing {
            if self.resolve(j, !upper) {
                return false;
            }
        }
        true
    }

    /// DATC 5.B.6, with DATC 4.A.7 as the rulebook says.
    fn prevent_strength(&mut self, i: usize, upper: bool) -> u32 {
        if !self.contests(i, upper) {
            return 0;
        }
        1 + self.support_count(i, upper, None)
    }

    fn result(&mut self, rulebook: &Rulebook, result: &mut MovementResult) {
        let n = self.units.len();
        let map = self.map;
        let moved = |s: &Adjudicator, i: usize| s.kind[i] == Kind::Move && s.resolution[i];
        // Who arrived where.
        let mut dislodged_by = std::mem::take(&mut self.s.dislodged_by);
        dislodged_by.clear();
        dislodged_by.resize(n, None);
        for i in 0..n {
            if moved(self.s, i) {
                let j = self.s.unit_at[self.s.dest[i] as usize];
                if j != NONE && !moved(self.s, j as usize) {
                    dislodged_by[j as usize] = Some(i);
                }
            }
        }
        let MovementResult { outcomes, units_after, dislodged, standoffs } = result;
        outcomes.clear();
        outcomes.reserve(n);
        for (i, by) in dislodged_by.iter().enumerate() {
            let (succeeded, reason) = self.explain(i, *by);
            outcomes.push(OrderOutcome { succeeded, reason, dislodged_by: *by });
        }
        units_after.clear();
        units_after.reserve(n);
        for (i, u) in self.units.iter().enumerate() {
            if dislodged_by[i].is_none() {
                let region = if moved(self.s, i) { self.s.dest_region[i] } else { u.region };
                units_after.push(Unit { region, ..*u });
            }
        }
        standoffs.clear();
        let mut occupied_after = std::mem::take(&mut self.s.occupied_after);
        occupied_after.clear();
        occupied_after.resize(map.provinces().len(), false);
        for u in units_after.iter() {
            if let Some(o) = occupied_after.get_mut(map.province_of(u.region).0 as usize) {
                *o = true;
            }
        }
        for (p, &occupied) in occupied_after.iter().enumerate() {
            let range = self.moves_into(p as u16);
            if range.is_empty() {
                continue;
            }
            let arrived = range.clone().any(|k| moved(self.s, self.s.moves_into[k] as usize));
            if !arrived && !occupied {
                // A standoff needs a move that still contested the province: one that
                // lost a head-to-head battle to the unit leaving it did not (its prevent
                // strength is 0, DATC 5.B.6 and 6.H.9).
                let mut bounced = false;
                for k in range {
                    let j = self.s.moves_into[k] as usize;
                    bounced |= self.contests(j, true);
                }
                if bounced {
                    standoffs.push(ProvinceId(p as u16));
                }
            }
        }
        self.s.occupied_after = occupied_after;
        dislodged.clear();
        for (i, by) in dislodged_by.iter().enumerate() {
            if let Some(by) = *by {
                let via_convoy = self.uses_convoy(by, true);
                let d = Dislodgement { unit: self.units[i], attacker_from: ProvinceId(self.s.origin[by]), via_convoy };
                let retreats = retreat_options(map, units_after, standoffs, &d, rulebook.retreat_to_convoy_origin());
                dislodged.push(Dislodged { index: i, dislodgement: d, retreats });
            }
        }
        self.s.dislodged_by = dislodged_by;
    }

    /// The outcome of a settled order, naming the unit responsible.
    fn explain(&mut self, i: usize, dislodged_by: Option<usize>) -> (bool, Reason) {
        let s = &*self.s;
        match s.kind[i] {
            Kind::Hold => match dislodged_by {
                Some(by) => (false, Reason::Dislodged { by }),
                None => (true, Reason::Held),
            },
            Kind::Move => {
                if s.resolution[i] {
                    return (true, Reason::Moved);
                }
                (false, self.why_move_failed(i))
            }
            Kind::SupportHold | Kind::SupportMove => {
                if !s.matches[i] {
                    return (false, Reason::SupportVoid);
                }
                if s.resolution[i] {
                    return (true, Reason::SupportGiven);
                }
                let by = dislodged_by.or_else(|| {
                    let here = s.origin[i];
                    let range =
                        s.moves_into_start[here as usize] as usize..s.moves_into_start[here as usize + 1] as usize;
                    range.map(|k| s.moves_into[k] as usize).find(|&j| self.units[j].power != self.units[i].power)
                });
                match by {
                    Some(by) => (false, Reason::SupportCut { by }),
                    None => (false, Reason::SupportVoid),
                }
            }
            Kind::Convoy => {
                if s.paradox[i] {
                    return (false, Reason::ConvoyParadox);
                }
                if !s.matches[i] {
                    return (false, Reason::ConvoyVoid);
                }
                if let Some(by) = dislodged_by {
                    return (false, Reason::ConvoyFleetDislodged { by });
                }
                let army = s.target[i] as usize;
                if !self.uses_convoy(army, true) {
                    return (false, Reason::ConvoyNotUsed);
                }
                (true, Reason::ConvoyCarried)
            }
        }
    }

    fn why_move_failed(&mut self, i: usize) -> Reason {
        if !self.path(i, true) {
            let start = self.s.convoys_start[i] as usize;
            let end = self.s.convoys_start[i + 1] as usize;
            for k in start..end {
                let fleet = self.s.convoys[k] as usize;
                if !self.s.resolution[fleet] {
                    return Reason::ConvoyDisrupted { fleet };
                }
            }
            return Reason::NoConvoyRoute;
        }
        let attack = self.attack_strength(i, true);
        let holder = self.s.unit_at[self.s.dest[i] as usize];
        if attack == 0 && holder != NONE {
            return Reason::OwnUnitInTheWay { unit: holder as usize };
        }
        if let Some(j) = self.head_to_head(i, true) {
            if attack <= self.defend_strength(j, true) {
                return Reason::LostHeadToHead { to: j };
            }
        } else if holder != NONE && attack <= self.hold_strength(self.s.dest[i], true) {
            return Reason::Bounced { against: holder as usize };
        }
        for k in self.moves_into(self.s.dest[i]) {
            let k = self.s.moves_into[k] as usize;
            if k != i && attack <= self.prevent_strength(k, true) {
                return Reason::Bounced { against: k };
            }
        }
        // Settled by the backup rule without a single opponent to name.
        Reason::Paradox
    }
}
