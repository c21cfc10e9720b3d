//! The phases' adjudication: movement and retreats on every board, and after the Fall
//! the ownership update, elimination and victory. Each keeps what it decided as values
//! (see [`super::adjudicated`]); the words are made from those only when asked.

use super::adjudicated::{Decided, MovementBoard, RetreatBoard, YearEnd};
use super::Game;
use crate::diplomacy::judge::legality::{unit_in, OrderCollector, PhaseOrders, WrittenOrder};
use crate::diplomacy::judge::movement::{Adjudicator, MovementResult};
use crate::diplomacy::judge::retreat::{adjudicate_retreats, RetreatOrderStatus, RetreatPhase};
use crate::diplomacy::map::PowerId;
use crate::diplomacy::order::{Board, Order, Place};
use crate::diplomacy::state::Retreating;

/// The adjudication's working space, kept by the game from one phase to the next (a
/// phase needs a few dozen lists; made anew, each is asked for and given back every
/// phase). A copy of the game starts with none.
#[derive(Default)]
pub(super) struct Scratch {
    collector: OrderCollector,
    adjudicator: Adjudicator,
    written: Vec<WrittenOrder>,
    phase_orders: PhaseOrders,
}

impl Clone for Scratch {
    fn clone(&self) -> Scratch {
        Scratch::default()
    }
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

impl Game {
    pub(super) fn adjudicate_movement(&mut self, decided: &mut Vec<Decided>) {
        let mut scratch = self.scratch.take().unwrap_or_default();
        for bi in 0..self.boards() {
            self.adjudicate_board(Board(bi as u8), &mut scratch, decided);
        }
        self.scratch = Some(scratch);
    }

    fn adjudicate_board(&mut self, board: Board, scratch: &mut Scratch, decided: &mut Vec<Decided>) {
        let bi = board.0 as usize;
        let Scratch { collector, adjudicator, written, phase_orders } = scratch;
        // The units as they were: the board gets the units after the phase below.
        let units = std::mem::take(&mut self.state.boards[bi].units);
        written.clear();
        written.extend(
            self.state
                .orders
                .iter()
                .filter(|o| o.board == board)
                .map(|o| WrittenOrder { power: Some(o.power), order: o.order }),
        );
        collector.collect_into(&self.map, &units, written, &self.settings.rules, phase_orders);
        let mut result = MovementResult::default();
        adjudicator.adjudicate_into(&self.map, &units, &phase_orders.orders, &self.settings.rules, &mut result);
        for (i, illegal) in phase_orders.illegal_for_unit.iter().enumerate() {
            if let Some(e) = illegal {
                result.mark_illegal(i, *e);
            }
        }
        // The order each unit was given, as written (the last one kept for it).
        let mut given: Vec<Option<Order<Place>>> = vec![None; units.len()];
        for (o, r) in written.iter().zip(&phase_orders.written) {
            let target = match r {
                Ok(i) => Some(*i),
                Err(_) => o.order.unit().and_then(|u| unit_in(&self.map, &units, u.at.province)),
            };
            if let Some(i) = target {
                given[i] = Some(o.order);
            }
        }
        let dislodged: Vec<Retreating> = result
            .dislodged
            .into_iter()
            .map(|d| Retreating { dislodgement: d.dislodgement, options: d.retreats })
            .collect();
        // A dislodged unit with nowhere to go is disbanded at once; a retreat phase is
        // held only for units that have a choice (as the classic judges do).
        let bs = &mut self.state.boards[bi];
        bs.units = result.units_after;
        bs.retreating = dislodged.iter().filter(|r| !r.options.is_empty()).cloned().collect();
        bs.standoffs = result.standoffs;
        decided.push(Decided::Movement(MovementBoard {
            board,
            units,
            orders: phase_orders.orders.clone(),
            outcomes: result.outcomes,
            given,
            dislodged,
        }));
    }

    pub(super) fn adjudicate_retreats(&mut self, decided: &mut Vec<Decided>) {
        for bi in 0..self.boards() {
            let board = Board(bi as u8);
            let b = &mut self.state.boards[bi];
            if b.retreating.is_empty() {
                continue;
            }
            // The board's units and standoffs are the phase's; the board gets the units
            // after it below.
            let phase = RetreatPhase {
                units_after: std::mem::take(&mut b.units),
                dislodged: std::mem::take(&mut b.retreating).into_iter().map(|r| r.dislodgement).collect(),
                standoffs: std::mem::take(&mut b.standoffs),
            };
            let orders: Vec<(PowerId, Order<Place>)> =
                self.state.orders.iter().filter(|o| o.board == board).map(|o| (o.power, o.order)).collect();
            let result =
                adjudicate_retreats(&self.map, &phase, &orders, self.settings.rules.retreat_to_convoy_origin());
            let written = result
                .outcomes
                .iter()
                .map(|r| {
                    let province = self.map.province_of(r.unit.region);
                    let written = result.orders.iter().rev().find(|o| match o.status {
                        RetreatOrderStatus::Accepted { unit } => unit == r.unit,
                        RetreatOrderStatus::Illegal(_) => {
                            o.power == r.unit.power && o.order.unit().is_some_and(|u| u.at.province == province)
                        }
                    });
                    written.map(|o| o.order)
                })
                .collect();
            self.state.boards[bi].units = result.units;
            decided.push(Decided::Retreats(RetreatBoard { board, outcomes: result.outcomes, written }));
        }
    }

    /// After Fall: the ownership update on each board, then elimination and victory.
    pub(super) fn end_of_year(&mut self) -> YearEnd {
        let mut year = YearEnd::default();
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
                    changes.push((p, before, u.power));
                    b.ownership.set(p, Some(u.power));
                }
            }
            year.changes.push(changes);
        }
        // Elimination.
        for p in self.active_powers() {
            if self.rules().is_out(self, p) {
                self.state.eliminated.push(p);
                year.eliminated.push(p);
            }
        }
        // Victory.
        year.end = self.rules().victory(self);
        self.state.end = year.end.clone();
        year
    }
}
