//! The phase machine of a Diplomacy game, for one board (standard) or two (Shadow Worlds).
//!
//! [`Game::submit`] checks and keeps a player's orders (a later submission replaces the
//! earlier orders unit by unit); [`Game::adjudicate`] resolves the phase on every board,
//! applies the defaults for missing orders (units hold, unordered dislodged units disband,
//! missing builds are waived, missing removals go by civil disorder), and moves on:
//! movement -> retreats (only when a board has dislodged units) -> after Fall the
//! ownership update, elimination and victory -> Winter adjustments -> Spring.
//! Pure: no IO and no clock; the store journals what this module decides.

mod ack;
pub mod adjudicated;
mod orders;
mod phases;
pub mod possible;
pub mod rules;
mod shadow_worlds;
mod standard;
mod votes;

use std::sync::Arc;

pub use ack::{order_words, AckLine, Acknowledgement, Kept, Missing, Note, Problem, Submission};
pub use adjudicated::Adjudicated;
use adjudicated::{Count, Told};
pub use votes::Vote;

use crate::diplomacy::judge::adjustment::AdjustmentRules;
use crate::diplomacy::judge::rulebook::Rulebook;
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, PowerId};
use crate::diplomacy::order::Board;
use crate::diplomacy::report::{LedgerLine, PhaseReport};
use crate::diplomacy::state::GameState;
use crate::game::settings::Settings;
use crate::phase::{PhaseKind, Season};

/// A game: its settings, its map and its current state.
#[derive(Clone, Debug)]
pub struct Game {
    pub settings: Settings,
    /// Shared: every game on the same map file holds the one loaded copy (see
    /// [`crate::diplomacy::map::cache`]).
    pub map: Arc<Map>,
    pub state: GameState,
    /// The adjudication's working space (no part of the game).
    scratch: Option<Box<phases::Scratch>>,
}

impl Game {
    pub fn new(settings: Settings, map: impl Into<Arc<Map>>, state: GameState) -> Game {
        Game { settings, map: map.into(), state, scratch: None }
    }

    fn boards(&self) -> usize {
        self.state.boards.len()
    }

    fn power_name(&self, p: PowerId) -> String {
        self.map.power(p).name.clone()
    }

    /// Powers still in the game.
    pub fn active_powers(&self) -> Vec<PowerId> {
        self.map.power_ids().filter(|p| !self.state.eliminated.contains(p)).collect()
    }

    /// Does this power have anything to order in the current phase?
    pub fn has_duty(&self, power: PowerId) -> bool {
        if self.state.end.is_some() || self.state.eliminated.contains(&power) {
            return false;
        }
        // A power nobody plays is in civil disorder: the judge does not wait for it.
        if !self.settings.players.is_empty() && self.settings.player(&self.map, power).is_none() {
            return false;
        }
        match self.state.phase.kind {
            PhaseKind::Movement => self.state.boards.iter().any(|b| b.units.iter().any(|u| u.power == power)),
            PhaseKind::Retreats => {
                self.state.boards.iter().any(|b| b.retreating.iter().any(|r| r.dislodgement.unit.power == power))
            }
            PhaseKind::Adjustments => self.rules().owes_adjustment(self, power),
        }
    }

    /// The powers the judge still waits for.
    pub fn waiting_for(&self) -> Vec<PowerId> {
        self.map.power_ids().filter(|p| self.has_duty(*p) && !self.state.submitted.contains(p)).collect()
    }

    fn adjustment_delta(&self, board: Board, power: PowerId) -> i64 {
        let b = &self.state.boards[board.0 as usize];
        b.ownership.count(power) as i64 - b.units.iter().filter(|u| u.power == power).count() as i64
    }

    /// The combined ledger (Shadow Worlds; empty in a standard game).
    pub fn ledger(&self) -> Vec<LedgerLine> {
        self.rules().ledger(self)
    }

    /// What a power adjusts this Winter, as `status` says it: `builds 1`, `removes 2`,
    /// `builds 1 (2 due, 1 free home center)`; `None` outside a Winter, with nothing to
    /// adjust, or where the ledger tells it (Shadow Worlds).
    pub fn adjustment_due(&self, power: PowerId) -> Option<String> {
        (self.state.phase.kind == PhaseKind::Adjustments).then(|| self.rules().adjustment_due(self, power)).flatten()
    }

    /// Each of a power's Winter orders: (accepted, what the judge will do).
    fn winter_outcomes(&self, power: PowerId) -> Vec<(bool, String)> {
        self.rules().winter_outcomes(self, power)
    }

    /// Units (or adjustments) of a power still without orders.
    pub fn missing_orders(&self, power: PowerId) -> Vec<String> {
        self.missing(power).words(&self.map)
    }

    /// [`Game::missing_orders`] as values.
    pub fn missing(&self, power: PowerId) -> Missing {
        let rules = self.rules();
        let kind = self.state.phase.kind;
        if kind == PhaseKind::Adjustments {
            return Missing::Words(if self.has_duty(power) { self.winter_shortfall(power) } else { Vec::new() });
        }
        let ordered = |b: usize, u: &Unit| {
            let at = self.map.province_of(u.region);
            self.state.orders.iter().any(|o| {
                o.power == power && o.board.0 as usize == b && o.order.unit().is_some_and(|r| r.at.province == at)
            })
        };
        let mut missing = Vec::new();
        for (b, board) in self.state.boards.iter().enumerate() {
            let label = rules.board_label(Board(b as u8));
            if kind == PhaseKind::Movement {
                for u in board.units.iter().filter(|u| u.power == power && !ordered(b, u)) {
                    missing.push((label, *u, false));
                }
            } else {
                for r in board.retreating.iter().filter(|r| r.dislodgement.unit.power == power) {
                    if !ordered(b, &r.dislodgement.unit) {
                        missing.push((label, r.dislodgement.unit, true));
                    }
                }
            }
        }
        Missing::Units(missing)
    }

    /// What a power's Winter orders so far leave undone, as the adjudication would settle
    /// it now: builds not ordered (waived; in a standard game only as many as it still has
    /// vacant owned home centers for) and removals not ordered (civil disorder chooses
    /// them), per board in Shadow Worlds.
    fn winter_shortfall(&self, power: PowerId) -> Vec<String> {
        shortfall_words(self.rules().winter_shortfall(self, power))
    }

    /// Can the phase be adjudicated now (every power with something to order has sent orders)?
    pub fn ready(&self) -> bool {
        self.state.end.is_none() && self.waiting_for().is_empty()
    }

    /// Adjudicate the current phase and move to the next one; the phase's report.
    pub fn adjudicate(&mut self) -> PhaseReport {
        self.decide().report(&self.settings, &self.map)
    }

    /// Adjudicate the current phase and move to the next one, keeping what was decided
    /// without words ([`Adjudicated::report`] words it, as [`Game::adjudicate`] does).
    pub fn decide(&mut self) -> Adjudicated {
        let phase = self.state.phase;
        let mut boards = Vec::with_capacity(self.boards());
        let mut told = Told::default();
        match phase.kind {
            PhaseKind::Movement => self.adjudicate_movement(&mut boards),
            PhaseKind::Retreats => self.adjudicate_retreats(&mut boards),
            PhaseKind::Adjustments => self.rules().adjudicate_winter(self, &mut boards, &mut told),
        }
        self.state.orders.clear();
        self.state.submitted.clear();
        self.state.waiting.clear();
        // Where next?
        let any_retreats = self.state.boards.iter().any(|b| !b.retreating.is_empty());
        let season_over = match phase.kind {
            PhaseKind::Movement => !any_retreats,
            PhaseKind::Retreats => true,
            PhaseKind::Adjustments => false,
        };
        let mut year_end = None;
        let next = if phase.kind == PhaseKind::Movement && any_retreats {
            Some(phase.retreats())
        } else if season_over && phase.season == Season::Fall {
            let year = self.end_of_year();
            // The ledger after the Fall (Shadow Worlds; none in a standard game).
            told.ledger = self.rules().ledger(self);
            year_end = Some(year);
            if self.state.end.is_some() {
                None
            } else if self.rules().winter_needed(self) {
                Some(phase.winter())
            } else {
                Some(phase.next_movement())
            }
        } else if self.state.end.is_some() {
            None
        } else {
            Some(phase.next_movement())
        };
        if let Some(n) = next {
            self.state.phase = n;
        }
        Adjudicated {
            phase,
            boards,
            told,
            year_end,
            board_count: self.boards(),
            standings: self.standings(),
            next_phase: next,
        }
    }

    /// The options in force, for report headers.
    pub fn option_lines(&self) -> Vec<String> {
        adjudicated::option_lines(&self.settings, &self.map)
    }

    fn adjustment_rules(&self) -> AdjustmentRules {
        self.settings.rules.adjustments()
    }

    fn victory_centers(&self) -> usize {
        self.settings.victory_centers.unwrap_or(self.map.victory_centers)
    }

    /// Each power still in the game: its centers and units per board, and its adjustment
    /// when a Winter comes next.
    fn standings(&self) -> Vec<Count> {
        let fall_over = self.state.phase.kind == PhaseKind::Adjustments;
        self.active_powers()
            .into_iter()
            .map(|p| {
                let mut count = Count { power: p, centers: [0; 2], units: [0; 2], adjustment: None };
                for (b, board) in self.state.boards.iter().enumerate() {
                    count.centers[b] = board.ownership.count(p);
                    count.units[b] = board.units.iter().filter(|u| u.power == p).count();
                }
                count.adjustment = fall_over.then(|| self.rules().adjustment(self, p));
                count
            })
            .collect()
    }
}

/// What Winter orders leave undone, in words: the builds to be waived, the removals civil
/// disorder will choose (per board where boards are labelled).
fn shortfall_words((unused_builds, removals): (usize, Vec<(Option<char>, usize)>)) -> Vec<String> {
    let mut out = Vec::new();
    match unused_builds {
        0 => {}
        1 => out.push("1 build not ordered (it will be waived)".to_string()),
        n => out.push(format!("{n} builds not ordered (they will be waived)")),
    }
    for (board, n) in removals {
        let board = board.map(|c| format!("[{c}] ")).unwrap_or_default();
        match n {
            0 => {}
            1 => out.push(format!("{board}1 removal not ordered (civil disorder will choose it)")),
            n => out.push(format!("{board}{n} removals not ordered (civil disorder will choose them)")),
        }
    }
    out
}

/// One line naming the rulebook edition and any option set apart from it.
pub fn describe_rulebook(r: &Rulebook) -> String {
    let mut line = format!("{} rulebook", r.edition.name());
    let defaults = Rulebook::edition(r.edition);
    if *r != defaults {
        line.push_str(" with game-specific options (see game.toml)");
    }
    line
}

#[cfg(test)]
mod tests;
