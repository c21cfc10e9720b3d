//! What an adjudication decided, kept as plain values ([`Adjudicated`]), and the one place
//! its words are made ([`Adjudicated::report`]). Deciding is what every caller needs and
//! costs little; the report (each order spelled, each reason worded) is made only when
//! someone reads it.

use crate::diplomacy::judge::adjustment::{AdjustmentOrderResult, AdjustmentOutcome, DefaultAdjustment};
use crate::diplomacy::judge::legality::MainOrder;
use crate::diplomacy::judge::movement::{OrderOutcome, Reason};
use crate::diplomacy::judge::retreat::{RetreatFate, RetreatOutcome};
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, PowerId, ProvinceId};
use crate::diplomacy::order::{Board, Order, Place};
use crate::diplomacy::report::{BoardReport, DislodgedLine, LedgerLine, OrderLine, PhaseReport, Standing};
use crate::diplomacy::state::{GameEnd, Retreating};
use crate::game::settings::Settings;
use crate::phase::{Phase, PhaseKind};

use super::ack::order_words;
use super::rules::{self, Rules};

/// One adjudicated phase, as decided: no words yet.
#[derive(Clone, Debug)]
pub struct Adjudicated {
    pub phase: Phase,
    /// The movement or retreats of each board that had any, in board order.
    pub boards: Vec<Decided>,
    /// What is told in words at once: a Shadow Worlds Winter's orders and defaults, the
    /// ledger.
    pub told: Told,
    /// After the Fall: the ownership update, eliminations and the end.
    pub year_end: Option<YearEnd>,
    /// The boards of the game (1 or 2), for the standings.
    pub board_count: usize,
    /// Each power still in the game after the phase.
    pub standings: Vec<Count>,
    pub next_phase: Option<Phase>,
}

/// One board's phase.
#[derive(Clone, Debug)]
pub enum Decided {
    Movement(MovementBoard),
    Retreats(RetreatBoard),
    /// A standard Winter (Shadow Worlds words its Winter at once: see [`Told`]).
    Winter(WinterBoard),
}

/// A board's movement: the units as they were and what became of each.
#[derive(Clone, Debug)]
pub struct MovementBoard {
    pub board: Board,
    pub units: Vec<Unit>,
    /// Per unit: the order the adjudicator resolved (`Hold` when none stood).
    pub orders: Vec<MainOrder>,
    pub outcomes: Vec<OrderOutcome>,
    /// Per unit: the order written for it (the last one kept), if any.
    pub given: Vec<Option<Order<Place>>>,
    /// The dislodged units with their retreats (none: disbanded at once).
    pub dislodged: Vec<Retreating>,
}

/// A board's retreats: each dislodged unit's fate and the order written for it.
#[derive(Clone, Debug)]
pub struct RetreatBoard {
    pub board: Board,
    pub outcomes: Vec<RetreatOutcome>,
    /// Per outcome: the order written for the unit, if any.
    pub written: Vec<Option<Order<Place>>>,
}

/// A one-board Winter: each order's outcome and the defaults applied.
#[derive(Clone, Debug)]
pub struct WinterBoard {
    pub outcomes: Vec<AdjustmentOutcome>,
    pub defaults: Vec<DefaultAdjustment>,
}

/// The words a phase makes at once: the Shadow Worlds Winter's (adjudicated and worded
/// together, power by power) and ledger.
#[derive(Clone, Debug, Default)]
pub struct Told {
    pub adjustments: Vec<OrderLine>,
    pub defaults: Vec<String>,
    pub ledger: Vec<LedgerLine>,
}

/// The end of a game year.
#[derive(Clone, Debug, Default)]
pub struct YearEnd {
    /// Per board: each center that changed hands (center, from, to).
    pub changes: Vec<Vec<(ProvinceId, Option<PowerId>, PowerId)>>,
    pub eliminated: Vec<PowerId>,
    pub end: Option<GameEnd>,
}

/// A power's centers and units per board after the phase, and its adjustment when the
/// next phase is a Winter.
#[derive(Clone, Copy, Debug)]
pub struct Count {
    pub power: PowerId,
    pub centers: [usize; 2],
    pub units: [usize; 2],
    pub adjustment: Option<i64>,
}

impl Adjudicated {
    /// The phase's report: the words of what was decided, in a game of these settings on
    /// this map.
    pub fn report(&self, settings: &Settings, map: &Map) -> PhaseReport {
        let rules = rules::of_settings(settings);
        let mut report = PhaseReport {
            game: settings.name.clone(),
            variant: rules.title_on(map),
            options: option_lines(settings, map),
            phase: self.phase,
            boards: Vec::new(),
            ledger: self.told.ledger.clone(),
            adjustments: self.told.adjustments.clone(),
            standings: Vec::new(),
            defaults: Vec::new(),
            next_phase: self.next_phase,
            notices: Vec::new(),
        };
        for b in &self.boards {
            match b {
                Decided::Movement(m) => movement_words(m, rules, map, &mut report),
                Decided::Retreats(r) => retreat_words(r, rules, map, &mut report),
                Decided::Winter(w) => winter_words(w, map, &mut report),
            }
        }
        report.defaults.extend(self.told.defaults.iter().cloned());
        if let Some(y) = &self.year_end {
            for (bi, changes) in y.changes.iter().enumerate() {
                let mut changes: Vec<String> = changes
                    .iter()
                    .map(|(p, from, to)| {
                        let from = from.map(|o| map.power(o).name.as_str()).unwrap_or("neutral");
                        format!("{}: {from} -> {}", map.province(*p).name, map.power(*to).name)
                    })
                    .collect();
                changes.sort();
                let label = rules.board_label(Board(bi as u8));
                if let Some(br) = report.boards.iter_mut().find(|r| r.board == label) {
                    br.ownership_changes = changes;
                } else {
                    report.boards.push(BoardReport {
                        board: label,
                        orders: Vec::new(),
                        dislodged: Vec::new(),
                        ownership_changes: changes,
                    });
                }
            }
            for p in &y.eliminated {
                report.notices.push(format!("{} is out of the game.", map.power(*p).name));
            }
            if let Some(e) = &y.end {
                report.notices.push(end_notice(map, e));
            }
        }
        report.standings = self
            .standings
            .iter()
            .map(|s| Standing {
                power: map.power(s.power).name.clone(),
                centers: s.centers[..self.board_count].to_vec(),
                units: s.units[..self.board_count].to_vec(),
                adjustment: s.adjustment,
            })
            .collect();
        report
    }
}

fn movement_words(m: &MovementBoard, rules: &dyn Rules, map: &Map, report: &mut PhaseReport) {
    let mut lines = Vec::with_capacity(m.units.len());
    let mut unordered: Vec<(PowerId, String)> = Vec::new();
    for (i, u) in m.units.iter().enumerate() {
        let out = &m.outcomes[i];
        let reason = || out.reason.describe(map, &m.units, &m.orders);
        let (order_text, res) = match &m.given[i] {
            Some(o) => {
                let res = if matches!(out.reason, Reason::Illegal { .. }) {
                    "illegal"
                } else if out.succeeded {
                    "succeeds"
                } else {
                    "fails"
                };
                (o.canonical(map), res)
            }
            None => {
                unordered.push((u.power, u.describe(map)));
                (format!("{} H", u.describe(map)), "default")
            }
        };
        // Said only when it adds something to the result (worked out only then).
        let reason = match (res, &out.reason) {
            ("succeeds", Reason::Moved | Reason::SupportGiven | Reason::Held | Reason::ConvoyCarried) => String::new(),
            ("default", _) => format!("no orders; {}", reason()),
            _ => reason(),
        };
        lines.push((u.power, i, order_line(map, u.power, None, order_text, res, reason)));
    }
    lines.sort_by_key(|(p, i, _)| (*p, *i));
    for p in map.power_ids() {
        let list: Vec<&str> = unordered.iter().filter(|(q, _)| *q == p).map(|(_, u)| u.as_str()).collect();
        if !list.is_empty() {
            let on = rules.on_board(m.board);
            report.defaults.push(format!("{}: no orders for {}{on}: held", map.power(p).name, list.join(", ")));
        }
    }
    report.boards.push(BoardReport {
        board: rules.board_label(m.board),
        orders: lines.into_iter().map(|(_, _, l)| l).collect(),
        dislodged: m.dislodged.iter().map(|r| dislodged_line(map, r)).collect(),
        ownership_changes: Vec::new(),
    });
}

fn dislodged_line(map: &Map, r: &Retreating) -> DislodgedLine {
    DislodgedLine {
        power: map.power(r.dislodgement.unit.power).name.clone(),
        unit: r.dislodgement.unit.describe(map),
        attacked_from: map.province(r.dislodgement.attacker_from).key.clone(),
        retreats: r.options.iter().map(|o| map.region_name(*o)).collect(),
    }
}

fn retreat_words(r: &RetreatBoard, rules: &dyn Rules, map: &Map, report: &mut PhaseReport) {
    let mut lines = Vec::with_capacity(r.outcomes.len());
    for (out, written) in r.outcomes.iter().zip(&r.written) {
        let res = match &out.fate {
            RetreatFate::Retreated { .. } | RetreatFate::Disbanded => "succeeds",
            RetreatFate::NoOrder => "default",
            RetreatFate::IllegalOrder(_) => "illegal",
            RetreatFate::Bounced { .. } | RetreatFate::ConflictingOrders => "fails",
        };
        let order_text = match written {
            Some(o) => o.canonical(map),
            None => format!("{} disband", out.unit.describe(map)),
        };
        if out.fate == RetreatFate::NoOrder {
            report.defaults.push(format!(
                "{}: no retreat order for {}{}: disbanded",
                map.power(out.unit.power).name,
                out.unit.describe(map),
                rules.on_board(r.board)
            ));
        }
        let reason = if res == "succeeds" { String::new() } else { out.fate.describe(map) };
        lines.push((out.unit.power, order_line(map, out.unit.power, None, order_text, res, reason)));
    }
    lines.sort_by_key(|(p, _)| *p);
    report.boards.push(BoardReport {
        board: rules.board_label(r.board),
        orders: lines.into_iter().map(|(_, l)| l).collect(),
        dislodged: Vec::new(),
        ownership_changes: Vec::new(),
    });
}

fn winter_words(w: &WinterBoard, map: &Map, report: &mut PhaseReport) {
    let mut lines = Vec::with_capacity(w.outcomes.len() + w.defaults.len());
    for o in &w.outcomes {
        let res = match o.result {
            AdjustmentOrderResult::Illegal(_) => "illegal",
            AdjustmentOrderResult::TooMany => "ignored",
            _ => "succeeds",
        };
        let reason = if res == "succeeds" { String::new() } else { o.result.describe(map) };
        lines.push((
            o.power,
            order_line(map, o.power, None, order_words(map, PhaseKind::Adjustments, &o.order), res, reason),
        ));
    }
    for d in &w.defaults {
        if let DefaultAdjustment::CivilDisorderRemoval { power, unit } = d {
            let order = format!("remove {}", unit.describe(map));
            lines.push((*power, order_line(map, *power, None, order, "default", "civil disorder".into())));
        }
        report.defaults.push(d.describe(map));
    }
    lines.sort_by_key(|(p, _)| *p);
    report.boards.push(BoardReport {
        board: None,
        orders: lines.into_iter().map(|(_, l)| l).collect(),
        dislodged: Vec::new(),
        ownership_changes: Vec::new(),
    });
}

/// One order's line of a report.
pub(super) fn order_line(
    map: &Map,
    power: PowerId,
    board: Option<char>,
    order: String,
    result: &str,
    reason: String,
) -> OrderLine {
    // The judge's reasons often open with the result word ("illegal: ..."); the report
    // prints the result already, so say it once.
    let reason = match reason.strip_prefix(result).and_then(|r| r.strip_prefix(": ")) {
        Some(rest) => rest.to_string(),
        None => reason,
    };
    OrderLine { power: map.power(power).name.clone(), board, order, result: result.into(), reason }
}

/// The options in force, for report headers.
pub(super) fn option_lines(settings: &Settings, map: &Map) -> Vec<String> {
    vec![
        format!("rules: {}", super::describe_rulebook(&settings.rules)),
        rules::of_settings(settings).option_line(settings, map),
    ]
}

/// How the end of the game is announced.
pub(super) fn end_notice(map: &Map, end: &GameEnd) -> String {
    match end {
        GameEnd::Victory(p) => format!("{} wins the game.", map.power(*p).name),
        GameEnd::Draw(ps) => {
            let names: Vec<String> = ps.iter().map(|p| map.power(*p).name.clone()).collect();
            format!("The game is drawn between {}.", crate::text::and_list(&names))
        }
    }
}
