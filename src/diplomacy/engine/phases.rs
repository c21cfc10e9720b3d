//! The phases' adjudication: movement and retreats on every board, and after the Fall
//! the ownership update, elimination and victory.

use super::Game;
use crate::diplomacy::judge::legality::{collect_orders, unit_in, WrittenOrder};
use crate::diplomacy::judge::movement::{adjudicate_movement, Reason};
use crate::diplomacy::judge::retreat::{adjudicate_retreats, RetreatFate, RetreatOrderStatus, RetreatPhase};
use crate::diplomacy::map::PowerId;
use crate::diplomacy::order::{Board, Order, Place};
use crate::diplomacy::report::{BoardReport, DislodgedLine, OrderLine, PhaseReport};
use crate::diplomacy::state::{BoardState, Retreating, StoredOrder};

impl Game {
    pub(super) fn order_line(
        &self,
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
        OrderLine { power: self.power_name(power), board, order, result: result.into(), reason }
    }

    pub(super) fn adjudicate_movement(&mut self, report: &mut PhaseReport) {
        let rules = self.settings.rules.clone();
        for bi in 0..self.boards() {
            let board = Board(bi as u8);
            let units = self.state.boards[bi].units.clone();
            let stored: Vec<&StoredOrder> = self.state.orders.iter().filter(|o| o.board == board).collect();
            let written: Vec<WrittenOrder> =
                stored.iter().map(|o| WrittenOrder { power: Some(o.power), order: o.order }).collect();
            let phase_orders = collect_orders(&self.map, &units, &written, &rules);
            let mut result = adjudicate_movement(&self.map, &units, &phase_orders.orders, &rules);
            for (i, illegal) in phase_orders.illegal_for_unit.iter().enumerate() {
                if let Some(e) = illegal {
                    result.mark_illegal(i, *e);
                }
            }
            // The order each unit was given, as written (the last one kept for it).
            let mut given: Vec<Option<&StoredOrder>> = vec![None; units.len()];
            for (o, r) in stored.iter().zip(&phase_orders.written) {
                let target = match r {
                    Ok(i) => Some(*i),
                    Err(_) => o.order.unit().and_then(|u| unit_in(&self.map, &units, u.at.province)),
                };
                if let Some(i) = target {
                    given[i] = Some(o);
                }
            }
            let mut lines = Vec::new();
            let mut unordered: Vec<(PowerId, String)> = Vec::new();
            for (i, u) in units.iter().enumerate() {
                let out = &result.outcomes[i];
                let reason = || out.reason.describe(&self.map, &units, &phase_orders.orders);
                let (order_text, res) = match given[i] {
                    Some(o) => {
                        let res = if matches!(out.reason, Reason::Illegal { .. }) {
                            "illegal"
                        } else if out.succeeded {
                            "succeeds"
                        } else {
                            "fails"
                        };
                        (o.order.canonical(&self.map), res)
                    }
                    None => {
                        unordered.push((u.power, u.describe(&self.map)));
                        (format!("{} H", u.describe(&self.map)), "default")
                    }
                };
                // Said only when it adds something to the result (worked out only then).
                let reason = match (res, &out.reason) {
                    ("succeeds", Reason::Moved | Reason::SupportGiven | Reason::Held | Reason::ConvoyCarried) => {
                        String::new()
                    }
                    ("default", _) => format!("no orders; {}", reason()),
                    _ => reason(),
                };
                lines.push((u.power, i, self.order_line(u.power, None, order_text, res, reason)));
            }
            lines.sort_by_key(|(p, i, _)| (*p, *i));
            for p in self.map.power_ids() {
                let list: Vec<String> = unordered.iter().filter(|(q, _)| *q == p).map(|(_, u)| u.clone()).collect();
                if !list.is_empty() {
                    let on = self.rules().board_label(board).map(|c| format!(" on board {c}")).unwrap_or_default();
                    report.defaults.push(format!(
                        "{}: no orders for {}{on}: held",
                        self.power_name(p),
                        list.join(", ")
                    ));
                }
            }
            let retreating: Vec<Retreating> = result
                .dislodged
                .iter()
                .map(|d| Retreating { dislodgement: d.dislodgement, options: d.retreats.clone() })
                .collect();
            // A dislodged unit with nowhere to go is disbanded at once; a retreat phase is
            // held only for units that have a choice (as the classic judges do).
            let dislodged = retreating.iter().map(|r| self.dislodged_line(r)).collect();
            let retreating: Vec<Retreating> = retreating.into_iter().filter(|r| !r.options.is_empty()).collect();
            report.boards.push(BoardReport {
                board: self.rules().board_label(board),
                orders: lines.into_iter().map(|(_, _, l)| l).collect(),
                dislodged,
                ownership_changes: Vec::new(),
            });
            let bs = &mut self.state.boards[bi];
            bs.units = result.units_after;
            bs.retreating = retreating;
            bs.standoffs = result.standoffs;
        }
    }

    fn dislodged_line(&self, r: &Retreating) -> DislodgedLine {
        DislodgedLine {
            power: self.power_name(r.dislodgement.unit.power),
            unit: r.dislodgement.unit.describe(&self.map),
            attacked_from: self.map.province(r.dislodgement.attacker_from).key.clone(),
            retreats: r.options.iter().map(|o| self.map.region_name(*o)).collect(),
        }
    }

    pub(super) fn adjudicate_retreats(&mut self, report: &mut PhaseReport) {
        for bi in 0..self.boards() {
            let board = Board(bi as u8);
            let b: BoardState = self.state.boards[bi].clone();
            if b.retreating.is_empty() {
                continue;
            }
            let orders: Vec<(PowerId, Order<Place>)> =
                self.state.orders.iter().filter(|o| o.board == board).map(|o| (o.power, o.order)).collect();
            let phase = RetreatPhase {
                units_after: b.units.clone(),
                dislodged: b.retreating.iter().map(|r| r.dislodgement).collect(),
                standoffs: b.standoffs.clone(),
            };
            let result =
                adjudicate_retreats(&self.map, &phase, &orders, self.settings.rules.retreat_to_convoy_origin());
            let mut lines = Vec::new();
            for r in &result.outcomes {
                let province = self.map.province_of(r.unit.region);
                let written = result.orders.iter().rev().find(|o| match o.status {
                    RetreatOrderStatus::Accepted { unit } => unit == r.unit,
                    RetreatOrderStatus::Illegal(_) => {
                        o.power == r.unit.power && o.order.unit().is_some_and(|u| u.at.province == province)
                    }
                });
                let res = match &r.fate {
                    RetreatFate::Retreated { .. } | RetreatFate::Disbanded => "succeeds",
                    RetreatFate::NoOrder => "default",
                    RetreatFate::IllegalOrder(_) => "illegal",
                    RetreatFate::Bounced { .. } | RetreatFate::ConflictingOrders => "fails",
                };
                let order_text = match written {
                    Some(o) => o.order.canonical(&self.map),
                    None => format!("{} disband", r.unit.describe(&self.map)),
                };
                if r.fate == RetreatFate::NoOrder {
                    report.defaults.push(format!(
                        "{}: no retreat order for {}{}: disbanded",
                        self.power_name(r.unit.power),
                        r.unit.describe(&self.map),
                        self.rules().board_label(board).map(|c| format!(" on board {c}")).unwrap_or_default()
                    ));
                }
                let reason = if res == "succeeds" { String::new() } else { r.fate.describe(&self.map) };
                lines.push((r.unit.power, self.order_line(r.unit.power, None, order_text, res, reason)));
            }
            lines.sort_by_key(|(p, _)| *p);
            report.boards.push(BoardReport {
                board: self.rules().board_label(board),
                orders: lines.into_iter().map(|(_, l)| l).collect(),
                dislodged: Vec::new(),
                ownership_changes: Vec::new(),
            });
            let bs = &mut self.state.boards[bi];
            bs.units = result.units;
            bs.retreating.clear();
            bs.standoffs.clear();
        }
    }

    /// After Fall: the ownership update on each board, then elimination and victory.
    pub(super) fn end_of_year(&mut self, report: &mut PhaseReport) {
        for bi in 0..self.boards() {
            let mut changes = Vec::new();
            let b = &mut self.state.boards[bi];
            for u in &b.units {
                let p = self.map.province_of(u.region);
                if !self.map.province(p).supply_center {
                    continue;
                }
                let before = b.ownership.owner(p);
                if before != Some(u.power) {
                    let from = before.map(|o| self.map.power(o).name.clone()).unwrap_or_else(|| "neutral".into());
                    changes.push(format!("{}: {from} -> {}", self.map.province(p).name, self.map.power(u.power).name));
                    b.ownership.set(p, Some(u.power));
                }
            }
            changes.sort();
            let label = self.rules().board_label(Board(bi as u8));
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
        // Elimination.
        for p in self.active_powers() {
            if self.rules().is_out(self, p) {
                self.state.eliminated.push(p);
                report.notices.push(format!("{} is out of the game.", self.power_name(p)));
            }
        }
        // Victory.
        let end = self.rules().victory(self, report);
        if let Some(e) = &end {
            report.notices.push(self.end_notice(e));
        }
        self.state.end = end;
    }
}
