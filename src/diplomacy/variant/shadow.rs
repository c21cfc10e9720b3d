//! Shadow Worlds (Nicky Palmer): two standard boards in lockstep, one combined ledger and
//! one Winter for both.
//!
//! This module owns what the variant adds to the standard game: the control list and its
//! count (rule 3), the Winter across boards (rule 4) and victory by the control list. It
//! reuses the one-board pieces of `judge::adjustment` (build legality, civil-disorder
//! distance) and adds nothing to the judge. The rulings it implements are in
//! `docs/shadow-worlds.md`; each choice between readings is an option of
//! [`ShadowOptions`].

use serde::{Deserialize, Serialize};

use crate::diplomacy::judge::adjustment::{build_is_legal, civil_disorder_key, CivilDisorderRule};
use crate::diplomacy::judge::{Ownership, Unit};
use crate::diplomacy::map::{Map, PowerId, ProvinceId, Terrain, UnitType};
use crate::diplomacy::order::{Board, Order, Place};

/// How victory is counted (ruling 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VictoryCounts {
    /// Distinct centers in the control list (the default reading).
    #[default]
    Distinct,
    /// The doubled ledger count.
    Ledger,
}

/// The options a game master may set for a Shadow Worlds game (`[variant]` in game.toml).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShadowOptions {
    /// The shorter game: victory at the map's centers for victory (18 of the standard
    /// map's 34) instead of all of them.
    pub short_game: bool,
    pub victory_counts: VictoryCounts,
}

impl ShadowOptions {
    /// The number of centers a power needs: all the map's centers, or in the short game
    /// the map's centers for victory (18 on the standard map, as Palmer's short game).
    pub fn victory_target(&self, map: &Map) -> usize {
        if self.short_game {
            map.victory_centers.min(map.supply_centers().count())
        } else {
            map.supply_centers().count()
        }
    }

    /// One line for report headers.
    pub fn describe(&self, map: &Map) -> String {
        let counts = match self.victory_counts {
            VictoryCounts::Distinct => "distinct centers in the control list",
            VictoryCounts::Ledger => "the doubled ledger count",
        };
        let game = if self.short_game { "short game" } else { "full game" };
        format!("{game}: victory at {} centers, counted as {counts}", self.victory_target(map))
    }
}

/// One power's line of the combined ledger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerRow {
    pub power: PowerId,
    /// Centers owned on board A and on board B.
    pub centers: [Vec<ProvinceId>; 2],
    /// The power's own home centers owned on both boards (each counts twice).
    pub doubled: Vec<ProvinceId>,
    /// Distinct centers owned on A or B: the control list.
    pub control_list: Vec<ProvinceId>,
    /// The count: the control list, plus one for each doubled home center.
    pub count: usize,
    /// Units on A and on B.
    pub units: [usize; 2],
}

impl LedgerRow {
    pub fn total_units(&self) -> usize {
        self.units[0] + self.units[1]
    }

    /// Builds (positive) or removals (negative) due: count - units.
    pub fn delta(&self) -> i64 {
        self.count as i64 - self.total_units() as i64
    }

    /// Out of the game: no count and no unit on either board.
    pub fn is_out(&self) -> bool {
        self.count == 0 && self.total_units() == 0
    }
}

/// The ledger of one power from both boards' ownership and units.
pub fn ledger_row(map: &Map, power: PowerId, ownership: [&Ownership; 2], units: [&[Unit]; 2]) -> LedgerRow {
    let centers =
        [ownership[0].centers_of(power).collect::<Vec<_>>(), ownership[1].centers_of(power).collect::<Vec<_>>()];
    let mut control_list: Vec<ProvinceId> = centers[0].iter().chain(centers[1].iter()).copied().collect();
    control_list.sort();
    control_list.dedup();
    let doubled: Vec<ProvinceId> = map
        .home_centers(power)
        .iter()
        .copied()
        .filter(|c| ownership[0].owner(*c) == Some(power) && ownership[1].owner(*c) == Some(power))
        .collect();
    let count = control_list.len() + doubled.len();
    let units =
        [units[0].iter().filter(|u| u.power == power).count(), units[1].iter().filter(|u| u.power == power).count()];
    LedgerRow { power, centers, doubled, control_list, count, units }
}

/// The ledger of every power, in the map's power order.
pub fn ledger(map: &Map, ownership: [&Ownership; 2], units: [&[Unit]; 2]) -> Vec<LedgerRow> {
    map.power_ids().map(|p| ledger_row(map, p, ownership, units)).collect()
}

/// The result of the victory check after a Fall ownership update.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VictoryCheck {
    None,
    Victory(PowerId),
    /// Two or more powers reached the target at the same check.
    Draw(Vec<PowerId>),
}

/// Ruling 4: a power whose control list (or ledger count, by option) reaches the target wins;
/// two or more at once draw.
pub fn check_victory(map: &Map, options: &ShadowOptions, rows: &[LedgerRow]) -> VictoryCheck {
    let target = options.victory_target(map);
    let winners: Vec<PowerId> = rows
        .iter()
        .filter(|r| {
            let score = match options.victory_counts {
                VictoryCounts::Distinct => r.control_list.len(),
                VictoryCounts::Ledger => r.count,
            };
            score >= target
        })
        .map(|r| r.power)
        .collect();
    match winners.len() {
        0 => VictoryCheck::None,
        1 => VictoryCheck::Victory(winners[0]),
        _ => VictoryCheck::Draw(winners),
    }
}

/// One Winter order of a power as written, with the board it names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WinterOrder {
    pub board: Option<Board>,
    pub order: Order<Place>,
}

/// What became of one Winter order, or of a unit removed by civil disorder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WinterOutcome {
    Built {
        board: Board,
        unit: Unit,
    },
    Removed {
        board: Board,
        unit: Unit,
    },
    Waived,
    /// Understood but against the rules; ignored.
    Illegal(WinterIllegal),
    /// A legal build beyond what the count allows.
    ExcessBuild {
        board: Board,
        allowed_units: usize,
    },
    /// A voluntary removal not matched by an accepted build on the other board.
    RemovalCancelled {
        board: Board,
        unit: Unit,
    },
    /// A removal the judge made because too few were ordered.
    CivilDisorder {
        board: Board,
        unit: Unit,
        distance: u32,
    },
}

/// Why a Winter order was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WinterIllegal {
    NoBoard,
    NotAWinterOrder,
    /// The per-board build rules (home center, owned, vacant, coast), as the judge words it.
    BuildRule(String),
    BuildTypeMissing,
    BuildsAndRemovalsOnOneBoard {
        board: Board,
    },
    NoSuchUnit {
        board: Board,
    },
    AlreadyRemoved {
        board: Board,
    },
}

impl WinterIllegal {
    pub fn describe(&self) -> String {
        match self {
            WinterIllegal::NoBoard => {
                "names no board: write it under `Board A` or `Board B`, or add `(A)` or `(B)`".into()
            }
            WinterIllegal::NotAWinterOrder => "not an order of a Winter phase (build, remove or waive)".into(),
            WinterIllegal::BuildRule(r) => r.clone(),
            WinterIllegal::BuildTypeMissing => "say which unit to build: A (army) or F (fleet)".into(),
            WinterIllegal::BuildsAndRemovalsOnOneBoard { board } => {
                format!("board {board} already has an order of the other kind: on each board a power builds or removes, never both")
            }
            WinterIllegal::NoSuchUnit { board } => format!("the power has no such unit on board {board}"),
            WinterIllegal::AlreadyRemoved { board } => format!("that unit on board {board} is already removed"),
        }
    }
}

impl WinterOutcome {
    pub fn describe(&self, map: &Map) -> String {
        match self {
            WinterOutcome::Built { board, unit } => format!("built {} on board {board}", unit.describe(map)),
            WinterOutcome::Removed { board, unit } => format!("removed {} on board {board}", unit.describe(map)),
            WinterOutcome::Waived => "build waived".into(),
            WinterOutcome::Illegal(i) => format!("illegal, ignored: {}", i.describe()),
            WinterOutcome::ExcessBuild { board, allowed_units } => {
                format!("ignored on board {board}: its count allows {allowed_units} units in all")
            }
            WinterOutcome::RemovalCancelled { board, unit } => format!(
                "cancelled: removing {} on board {board} is voluntary and no build on the other board needs the room",
                unit.describe(map)
            ),
            WinterOutcome::CivilDisorder { board, unit, .. } => {
                format!("civil disorder: removed {} on board {board} ({})", unit.describe(map), self.reason())
            }
        }
    }

    /// Why, without the verdict (the results table prints the verdict in its own column).
    pub fn reason(&self) -> String {
        match self {
            WinterOutcome::Built { .. } | WinterOutcome::Removed { .. } | WinterOutcome::Waived => String::new(),
            WinterOutcome::Illegal(i) => i.describe(),
            WinterOutcome::ExcessBuild { allowed_units, .. } => {
                format!("its count allows {allowed_units} units in all")
            }
            WinterOutcome::RemovalCancelled { .. } => {
                "a voluntary removal, and no build on the other board needs the room".into()
            }
            // A power with no center left on the unit's board: the unit is as far as can be.
            WinterOutcome::CivilDisorder { board, distance: u32::MAX, .. } => {
                format!("civil disorder: it owns no center on board {board}")
            }
            WinterOutcome::CivilDisorder { distance, .. } => {
                format!("civil disorder: {distance} from the nearest owned center")
            }
        }
    }

    pub fn is_accepted(&self) -> bool {
        matches!(self, WinterOutcome::Built { .. } | WinterOutcome::Removed { .. } | WinterOutcome::Waived)
    }
}

/// One power's Winter: each order with its outcome (in the order written), then the
/// civil-disorder removals, and how many builds were left unused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PowerWinter {
    pub power: PowerId,
    pub orders: Vec<(WinterOrder, WinterOutcome)>,
    pub civil_disorder: Vec<WinterOutcome>,
    pub builds_waived: usize,
}

enum Candidate {
    Build(Board, Unit),
    Remove(Board, Unit),
}

fn infer_build_type(map: &Map, place: Place) -> Option<UnitType> {
    let p = map.province(place.province);
    match p.terrain {
        Terrain::Land => Some(UnitType::Army),
        Terrain::Sea => Some(UnitType::Fleet),
        Terrain::Coast if place.coast.is_some() => Some(UnitType::Fleet),
        Terrain::Coast => None,
    }
}

/// Ruling 3: adjudicate one power's Winter across both boards.
///
/// `units` and `ownership` are the two boards before the Winter. Orders are read in the
/// order written: each is first checked against the per-board rules (an illegal order is
/// reported and ignored; the first order on a board decides whether that board builds or
/// removes); then legal builds are accepted in the order written while the units stay
/// within the count (counting every legal removal); voluntary removals left without an
/// accepted build are cancelled, last written first; too few removals are made up by
/// civil disorder over both boards.
pub fn adjudicate_power_winter(
    map: &Map,
    power: PowerId,
    units: [&[Unit]; 2],
    ownership: [&Ownership; 2],
    orders: &[WinterOrder],
    rule: CivilDisorderRule,
) -> PowerWinter {
    let row = ledger_row(map, power, ownership, units);
    let total = row.total_units();
    let required = total.saturating_sub(row.count);
    // Per board: units as they would stand with the legal builds so far.
    let mut planned: [Vec<Unit>; 2] = [units[0].to_vec(), units[1].to_vec()];
    let mut board_kind: [Option<bool>; 2] = [None, None]; // Some(true) = builds, Some(false) = removals
    let mut outcomes: Vec<Option<WinterOutcome>> = vec![None; orders.len()];
    let mut candidates: Vec<(usize, Candidate)> = Vec::new();
    for (i, wo) in orders.iter().enumerate() {
        if matches!(wo.order, Order::Waive) {
            outcomes[i] = Some(WinterOutcome::Waived);
            continue;
        }
        if !matches!(wo.order, Order::Build { .. } | Order::Disband { .. }) {
            outcomes[i] = Some(WinterOutcome::Illegal(WinterIllegal::NotAWinterOrder));
            continue;
        }
        let Some(board) = wo.board.filter(|b| b.0 < 2) else {
            outcomes[i] = Some(WinterOutcome::Illegal(WinterIllegal::NoBoard));
            continue;
        };
        let b = board.0 as usize;
        match wo.order {
            Order::Build { kind, at } => {
                if board_kind[b] == Some(false) {
                    outcomes[i] = Some(WinterOutcome::Illegal(WinterIllegal::BuildsAndRemovalsOnOneBoard { board }));
                    continue;
                }
                let Some(kind) = kind.or_else(|| infer_build_type(map, at)) else {
                    outcomes[i] = Some(WinterOutcome::Illegal(WinterIllegal::BuildTypeMissing));
                    continue;
                };
                match build_is_legal(map, &planned[b], ownership[b], power, kind, at) {
                    Ok(region) => {
                        let unit = Unit { power, kind, region };
                        planned[b].push(unit);
                        board_kind[b] = Some(true);
                        candidates.push((i, Candidate::Build(board, unit)));
                    }
                    Err(e) => outcomes[i] = Some(WinterOutcome::Illegal(WinterIllegal::BuildRule(e.describe(map)))),
                }
            }
            Order::Disband { unit: target } => {
                if board_kind[b] == Some(true) {
                    outcomes[i] = Some(WinterOutcome::Illegal(WinterIllegal::BuildsAndRemovalsOnOneBoard { board }));
                    continue;
                }
                let found = units[b].iter().find(|u| {
                    u.power == power
                        && map.province_of(u.region) == target.at.province
                        && target.kind.is_none_or(|k| k == u.kind)
                });
                let Some(unit) = found.copied() else {
                    outcomes[i] = Some(WinterOutcome::Illegal(WinterIllegal::NoSuchUnit { board }));
                    continue;
                };
                let already =
                    candidates.iter().any(|(_, c)| matches!(c, Candidate::Remove(bb, u) if *bb == board && *u == unit));
                if already {
                    outcomes[i] = Some(WinterOutcome::Illegal(WinterIllegal::AlreadyRemoved { board }));
                    continue;
                }
                board_kind[b] = Some(false);
                candidates.push((i, Candidate::Remove(board, unit)));
            }
            _ => unreachable!("filtered above"),
        }
    }
    let removals = candidates.iter().filter(|(_, c)| matches!(c, Candidate::Remove(..))).count();
    // Accept builds in the order written while units - removals + builds <= count.
    let room = (row.count + removals).saturating_sub(total);
    let mut accepted_builds = 0;
    for (i, c) in &candidates {
        if let Candidate::Build(board, unit) = c {
            if accepted_builds < room {
                accepted_builds += 1;
                outcomes[*i] = Some(WinterOutcome::Built { board: *board, unit: *unit });
            } else {
                outcomes[*i] = Some(WinterOutcome::ExcessBuild { board: *board, allowed_units: row.count });
            }
        }
    }
    // Voluntary removals beyond the builds they make room for are cancelled, last first.
    let mut kept_removals = removals;
    for (i, c) in candidates.iter().rev() {
        if let Candidate::Remove(board, unit) = c {
            let voluntary = kept_removals.saturating_sub(required);
            if voluntary > accepted_builds {
                kept_removals -= 1;
                outcomes[*i] = Some(WinterOutcome::RemovalCancelled { board: *board, unit: *unit });
            } else {
                outcomes[*i] = Some(WinterOutcome::Removed { board: *board, unit: *unit });
            }
        }
    }
    // Too few removals: civil disorder over both boards.
    let mut civil_disorder = Vec::new();
    if kept_removals < required {
        let removed: Vec<(Board, Unit)> = outcomes
            .iter()
            .filter_map(|o| match o {
                Some(WinterOutcome::Removed { board, unit }) => Some((*board, *unit)),
                _ => None,
            })
            .collect();
        // The rulebook's removal order per unit, on the unit's own board; then board A first.
        let mut pool = Vec::new();
        for b in 0..2u8 {
            for u in units[b as usize].iter().filter(|u| u.power == power) {
                if !removed.contains(&(Board(b), *u)) {
                    let key = civil_disorder_key(map, u, ownership[b as usize], power, rule);
                    pool.push((key, Board(b), *u));
                }
            }
        }
        pool.sort();
        for (key, board, unit) in pool.into_iter().take(required - kept_removals) {
            civil_disorder.push(WinterOutcome::CivilDisorder { board, unit, distance: key.distance.0 });
        }
    }
    let final_units = total - kept_removals - civil_disorder.len() + accepted_builds;
    let builds_waived = row.count.saturating_sub(final_units);
    let orders =
        orders.iter().cloned().zip(outcomes.into_iter().map(|o| o.expect("every order has an outcome"))).collect();
    PowerWinter { power, orders, civil_disorder, builds_waived }
}

/// Apply the accepted builds and removals of a Winter to the two boards' units.
pub fn apply_winter(units: &mut [Vec<Unit>; 2], results: &[PowerWinter]) {
    for r in results {
        for o in r.orders.iter().map(|(_, o)| o).chain(r.civil_disorder.iter()) {
            match o {
                WinterOutcome::Built { board, unit } => units[board.0 as usize].push(*unit),
                WinterOutcome::Removed { board, unit } | WinterOutcome::CivilDisorder { board, unit, .. } => {
                    units[board.0 as usize].retain(|u| u != unit)
                }
                _ => {}
            }
        }
    }
}
