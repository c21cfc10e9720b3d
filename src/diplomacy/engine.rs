//! The phase machine of a Diplomacy game, for one board (standard) or two (Shadow Worlds).
//!
//! [`Game::submit`] checks and keeps a player's orders (a later submission replaces the
//! earlier orders unit by unit); [`Game::adjudicate`] resolves the phase on every board,
//! applies the defaults for missing orders (units hold, unordered dislodged units disband,
//! missing builds are waived, missing removals go by civil disorder), and moves on:
//! movement -> retreats (only when a board has dislodged units) -> after Fall the
//! ownership update, elimination and victory -> Winter adjustments -> Spring.
//! Pure: no IO and no clock; the store journals what this module decides.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::diplomacy::judge::adjustment::{
    adjudicate_adjustments, AdjustmentOrderResult, AdjustmentRules, DefaultAdjustment,
};
use crate::diplomacy::judge::legality::{collect_orders, resolve_main_order, unit_in, WrittenOrder};
use crate::diplomacy::judge::movement::{adjudicate_movement, Reason};
use crate::diplomacy::judge::retreat::{adjudicate_retreats, RetreatFate, RetreatOrderStatus, RetreatPhase};
use crate::diplomacy::judge::rulebook::Rulebook;
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, PowerId, ProvinceId};
use crate::diplomacy::order::grammar::{OrderParser, ParsedOrder};
use crate::diplomacy::order::{Board, Order, Place, UnitRef};
use crate::diplomacy::report::{BoardReport, DislodgedLine, LedgerLine, OrderLine, PhaseReport, Standing};
use crate::diplomacy::state::{BoardState, Concession, GameEnd, GameState, NamedDraw, Retreating, StoredOrder};
use crate::diplomacy::variant::shadow::{self, WinterOrder, WinterOutcome};
use crate::game::settings::{Settings, VariantKind};
use crate::phase::{Phase, PhaseKind, Season};
use crate::text::count;

/// A game: its settings, its map and its current state.
#[derive(Clone, Debug)]
pub struct Game {
    pub settings: Settings,
    /// Shared: every game on the same map file holds the one loaded copy (see
    /// [`crate::diplomacy::map::cache`]).
    pub map: Arc<Map>,
    pub state: GameState,
}

/// One order of a submission as the judge understood it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckLine {
    pub line: usize,
    pub board: Option<char>,
    pub order: String,
    /// A warning about an order that was kept: illegal (the unit will hold), or how a
    /// Winter order stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A line of a submission that was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub line: usize,
    pub column: usize,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// The acknowledgement of a submission: what was understood, what was not, what is missing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acknowledgement {
    pub power: String,
    pub phase: Phase,
    pub accepted: Vec<AckLine>,
    pub problems: Vec<Problem>,
    /// Units (or adjustments) still without orders, e.g. `[A] F bre`.
    pub missing: Vec<String>,
}

impl Acknowledgement {
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(out, "Orders for {}, {}:", self.power, self.phase);
        for a in &self.accepted {
            let board = a.board.map(|b| format!("[{b}] ")).unwrap_or_default();
            match &a.note {
                Some(n) => {
                    let _ = writeln!(out, "  line {:>3}: {board}{}  ({n})", a.line, a.order);
                }
                None => {
                    let _ = writeln!(out, "  line {:>3}: {board}{}", a.line, a.order);
                }
            }
        }
        if self.accepted.is_empty() {
            let _ = writeln!(out, "  no orders understood");
        }
        if !self.problems.is_empty() {
            let _ = writeln!(out, "Not accepted:");
            for p in &self.problems {
                let hint = p.hint.as_ref().map(|h| format!(" ({h})")).unwrap_or_default();
                let _ = writeln!(out, "  line {}, column {}: {}{hint}", p.line, p.column, p.message);
            }
        }
        if self.missing.is_empty() {
            let _ = writeln!(out, "{}", self.complete_words());
        } else {
            let _ = writeln!(out, "Still without orders: {}", self.missing.join(", "));
        }
        out
    }
}

impl Acknowledgement {
    /// What the acknowledgement says when nothing is missing, the same on the command line
    /// and by mail.
    pub fn complete_words(&self) -> &'static str {
        match self.phase.kind {
            PhaseKind::Movement => "Every unit has an order.",
            PhaseKind::Retreats => "Every dislodged unit has an order.",
            PhaseKind::Adjustments => "Every adjustment has orders.",
        }
    }
}

fn board_label(variant: VariantKind, board: Board) -> Option<char> {
    (variant == VariantKind::ShadowWorlds).then(|| board.letter())
}

/// A power's vote on how the game ends (`draw`, `nodraw`, `concede`, `noconcede`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Vote {
    /// For a draw: between every survivor (no powers named), or between these powers.
    Draw {
        powers: Vec<PowerId>,
    },
    NoDraw,
    /// To concede the game to this power.
    Concede {
        to: PowerId,
    },
    NoConcede,
}

impl Game {
    pub fn new(settings: Settings, map: impl Into<Arc<Map>>, state: GameState) -> Game {
        Game { settings, map: map.into(), state }
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
            PhaseKind::Adjustments => match self.settings.variant {
                VariantKind::Standard => self.can_adjust_standard(power),
                // A power whose count equals its units may still remove on one board
                // to build on the other, but owes nothing: it is complete as it is.
                VariantKind::ShadowWorlds => self.ledger_row(power).delta() != 0,
            },
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

    pub fn ledger_row(&self, power: PowerId) -> shadow::LedgerRow {
        let (a, b) = (&self.state.boards[0], &self.state.boards[self.boards() - 1]);
        shadow::ledger_row(&self.map, power, [&a.ownership, &b.ownership], [&a.units, &b.units])
    }

    /// The combined ledger (Shadow Worlds).
    pub fn ledger(&self) -> Vec<LedgerLine> {
        if self.settings.variant != VariantKind::ShadowWorlds {
            return Vec::new();
        }
        let names = |v: &[crate::diplomacy::map::ProvinceId]| {
            v.iter().map(|p| self.map.province(*p).key.clone()).collect::<Vec<_>>()
        };
        self.active_powers()
            .into_iter()
            .map(|p| {
                let r = self.ledger_row(p);
                LedgerLine {
                    power: self.power_name(p),
                    centers_a: names(&r.centers[0]),
                    centers_b: names(&r.centers[1]),
                    doubled: names(&r.doubled),
                    control_list: r.control_list.len(),
                    count: r.count,
                    units_a: r.units[0],
                    units_b: r.units[1],
                    delta: r.delta(),
                }
            })
            .collect()
    }

    /// Units (or adjustments) of a power still without orders.
    pub fn missing_orders(&self, power: PowerId) -> Vec<String> {
        let variant = self.settings.variant;
        let label = |b: usize| board_label(variant, Board(b as u8)).map(|c| format!("[{c}] ")).unwrap_or_default();
        let ordered = |b: usize, u: &Unit| {
            self.state.orders.iter().any(|o| {
                o.power == power
                    && o.board.0 as usize == b
                    && o.order.unit().is_some_and(|r| r.at.province == self.map.province_of(u.region))
            })
        };
        let mut missing = Vec::new();
        match self.state.phase.kind {
            PhaseKind::Movement => {
                for (b, board) in self.state.boards.iter().enumerate() {
                    for u in board.units.iter().filter(|u| u.power == power && !ordered(b, u)) {
                        missing.push(format!("{}{}", label(b), u.describe(&self.map)));
                    }
                }
            }
            PhaseKind::Retreats => {
                for (b, board) in self.state.boards.iter().enumerate() {
                    for r in board.retreating.iter().filter(|r| r.dislodgement.unit.power == power) {
                        if !ordered(b, &r.dislodgement.unit) {
                            missing.push(format!(
                                "{}{} (dislodged)",
                                label(b),
                                r.dislodgement.unit.describe(&self.map)
                            ));
                        }
                    }
                }
            }
            PhaseKind::Adjustments => {
                if self.has_duty(power) {
                    missing = self.winter_shortfall(power);
                }
            }
        }
        missing
    }

    /// A power's Shadow Worlds Winter over both boards with these orders, as the
    /// adjudication would settle it now (acknowledgements and previews).
    fn shadow_power_winter<'a>(
        &self,
        power: PowerId,
        mine: impl Iterator<Item = &'a StoredOrder>,
    ) -> shadow::PowerWinter {
        let orders: Vec<WinterOrder> = mine.map(|o| WinterOrder { board: Some(o.board), order: o.order }).collect();
        let (a, b) = (&self.state.boards[0], &self.state.boards[1]);
        shadow::adjudicate_power_winter(
            &self.map,
            power,
            [&a.units, &b.units],
            [&a.ownership, &b.ownership],
            &orders,
            self.settings.rules.civil_disorder(),
        )
    }

    /// What a power's Winter orders so far leave undone, as the adjudication would settle
    /// it now: builds not ordered (waived; in a standard game only as many as it still has
    /// vacant owned home centers for) and removals not ordered (civil disorder chooses
    /// them), per board in Shadow Worlds.
    fn winter_shortfall(&self, power: PowerId) -> Vec<String> {
        let mine = self.state.orders.iter().filter(|o| o.power == power);
        let (unused_builds, removals) = match self.settings.variant {
            VariantKind::Standard => {
                let b = &self.state.boards[0];
                let orders: Vec<(PowerId, Order<Place>)> = mine.map(|o| (o.power, o.order)).collect();
                let result =
                    adjudicate_adjustments(&self.map, &b.units, &b.ownership, &orders, self.adjustment_rules());
                let waived = result
                    .defaults
                    .iter()
                    .find_map(|d| match d {
                        DefaultAdjustment::BuildsWaived { power: p, count } if *p == power => Some(*count),
                        _ => None,
                    })
                    .unwrap_or(0);
                let sites = self
                    .map
                    .home_centers(power)
                    .iter()
                    .filter(|h| b.ownership.owner(**h) == Some(power))
                    .filter(|h| !result.units.iter().any(|u| self.map.province_of(u.region) == **h))
                    .count();
                let removals = result
                    .defaults
                    .iter()
                    .filter(|d| matches!(d, DefaultAdjustment::CivilDisorderRemoval { power: p, .. } if *p == power))
                    .count();
                (waived.min(sites), vec![(None, removals)])
            }
            VariantKind::ShadowWorlds => {
                let w = self.shadow_power_winter(power, mine);
                let waived_by_order = w.orders.iter().filter(|(_, o)| matches!(o, WinterOutcome::Waived)).count();
                let on = |board: Board| {
                    w.civil_disorder
                        .iter()
                        .filter(|o| matches!(o, WinterOutcome::CivilDisorder { board: b, .. } if *b == board))
                        .count()
                };
                let removals = [Board::A, Board::B].into_iter().map(|b| (Some(b.letter()), on(b))).collect();
                // One `waive` line waives every build not ordered, on both boards.
                (if waived_by_order > 0 { 0 } else { w.builds_waived }, removals)
            }
        };
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

    /// Every unit on the boards (retreating ones too), as its power and province: what
    /// a misspelt unit is first matched against.
    pub fn unit_places(&self) -> Vec<(PowerId, ProvinceId)> {
        let map = &self.map;
        self.state
            .boards
            .iter()
            .flat_map(|b| {
                b.units.iter().map(|u| (u.power, map.province_of(u.region))).chain(
                    b.retreating
                        .iter()
                        .map(|r| (r.dislodgement.unit.power, map.province_of(r.dislodgement.unit.region))),
                )
            })
            .collect()
    }

    /// Check a power's orders and, unless `check_only`, keep them for this phase.
    pub fn submit(&mut self, power: PowerId, text: &str, check_only: bool) -> Acknowledgement {
        let map = self.map.clone();
        self.submit_with(&OrderParser::new(&map), power, text, check_only)
    }

    /// [`Game::submit`] with a parser built once for this game's map (many submissions
    /// read the same names: a bot's or a test's games).
    pub fn submit_with(
        &mut self,
        parser: &OrderParser,
        power: PowerId,
        text: &str,
        check_only: bool,
    ) -> Acknowledgement {
        let parsed = parser.parse_orders_on(text, &self.unit_places(), Some(power));
        let mut problems: Vec<Problem> = parsed
            .diagnostics
            .iter()
            .map(|d| Problem { line: d.line, column: d.column, message: d.message.clone(), hint: d.hint.clone() })
            .collect();
        let mut accepted = Vec::new();
        // The orders as they will be once these are kept: only the orders and who
        // submitted change, so only they are copied.
        let mut orders = self.state.orders.clone();
        let kind = self.state.phase.kind;
        let lines: Vec<&str> = text.lines().collect();
        let mut winter_replaced = false;
        if self.state.end.is_some() {
            problems.push(Problem { line: 1, column: 1, message: "the game is over".into(), hint: None });
        }
        for po in parsed.orders.iter().filter(|_| self.state.end.is_none()) {
            let (board, order, note) = match self.check_order(power, po) {
                Ok(c) => c,
                Err(message) => {
                    problems.push(Problem { line: po.line, column: 1, message, hint: None });
                    continue;
                }
            };
            let (label, canonical) = self.shown_order(board, &order);
            match order.unit() {
                Some(unit_ref) if kind != PhaseKind::Adjustments => {
                    let province = unit_ref.at.province;
                    orders.retain(|o| {
                        !(o.power == power
                            && o.board == board
                            && o.order.unit().is_some_and(|r| r.at.province == province))
                    });
                }
                _ => {
                    if !winter_replaced {
                        orders.retain(|o| o.power != power);
                        winter_replaced = true;
                    }
                }
            }
            let text_line = lines.get(po.line.saturating_sub(1)).map(|l| l.trim().to_string()).unwrap_or_default();
            orders.push(StoredOrder { power, board, order, text: text_line });
            accepted.push(AckLine { line: po.line, board: label, order: canonical, note });
        }
        // The game as it is with these orders kept, put back below for a check.
        let kept_orders = std::mem::replace(&mut self.state.orders, orders);
        let kept_submitted = self.state.submitted.clone();
        // Winter: preview the outcome of each kept order, so the player sees at once what the
        // judge will do with it.
        if kind == PhaseKind::Adjustments && !accepted.is_empty() {
            let outcomes = self.winter_outcomes(power);
            for (a, o) in accepted.iter_mut().zip(outcomes) {
                if !o.0 {
                    a.note = Some(o.1);
                }
            }
        }
        if !accepted.is_empty() && !self.state.submitted.contains(&power) {
            self.state.submitted.push(power);
        }
        // A check answers "what if I sent this?": what would still be missing once kept.
        let missing = self.missing_orders(power);
        if check_only {
            self.state.orders = kept_orders;
            self.state.submitted = kept_submitted;
        }
        problems.sort_by_key(|p| p.line);
        Acknowledgement { power: self.power_name(power), phase: self.state.phase, accepted, problems, missing }
    }

    /// Check one parsed order of `power` against the phase and the position: the board it
    /// is for, the order as the phase reads it (a move in a retreat phase is a retreat),
    /// and a note when it is understood but illegal (it is kept: the unit holds or
    /// disbands, and the report says why). `Err` when the order cannot be kept at all.
    pub fn check_order(
        &self,
        power: PowerId,
        po: &ParsedOrder,
    ) -> Result<(Board, Order<Place>, Option<String>), String> {
        let variant = self.settings.variant;
        let kind = self.state.phase.kind;
        if let Some(p) = po.power.filter(|p| *p != power) {
            return Err(format!("this order is for {}; you play {}", self.power_name(p), self.power_name(power)));
        }
        let board = match (variant, po.board) {
            (VariantKind::Standard, None | Some(Board::A)) => Board::A,
            (VariantKind::Standard, Some(b)) => return Err(format!("this game has one board; there is no board {b}")),
            (VariantKind::ShadowWorlds, Some(b)) if (b.0 as usize) < self.boards() => b,
            (VariantKind::ShadowWorlds, Some(b)) => {
                return Err(format!("there is no board {b}: the boards are A and B"))
            }
            // A waive is for a build, on whichever board: it needs no board.
            (VariantKind::ShadowWorlds, None) if kind == PhaseKind::Adjustments && po.order == Order::Waive => Board::A,
            (VariantKind::ShadowWorlds, None) => {
                return Err(
                    "which board? put the order under a `Board A` or `Board B` line, or end it with `(A)` or `(B)`"
                        .into(),
                )
            }
        };
        let order = match (kind, po.order) {
            (PhaseKind::Retreats, Order::Move { unit, to, .. }) => Order::Retreat { unit, to },
            (_, o) => o,
        };
        let fits = match kind {
            PhaseKind::Movement => matches!(
                order,
                Order::Hold { .. }
                    | Order::Move { .. }
                    | Order::SupportHold { .. }
                    | Order::SupportMove { .. }
                    | Order::Convoy { .. }
            ),
            PhaseKind::Retreats => matches!(order, Order::Retreat { .. } | Order::Disband { .. }),
            PhaseKind::Adjustments => matches!(order, Order::Build { .. } | Order::Disband { .. } | Order::Waive),
        };
        if !fits {
            let what = match kind {
                PhaseKind::Movement => "a movement phase takes hold, move, support and convoy orders",
                PhaseKind::Retreats => "a retreat phase takes only retreats and disbands (no supports or convoys)",
                PhaseKind::Adjustments => "a Winter phase takes only builds, removals and waives",
            };
            return Err(format!("not an order for {}: {what}", self.state.phase));
        }
        if kind == PhaseKind::Adjustments {
            return Ok((board, order, None));
        }
        let b = &self.state.boards[board.0 as usize];
        let unit_ref: UnitRef<Place> = *order.unit().expect("movement and retreat orders name a unit");
        let candidates: Vec<Unit> = if kind == PhaseKind::Movement {
            b.units.clone()
        } else {
            b.retreating.iter().map(|r| r.dislodgement.unit).collect()
        };
        let on_board = board_label(variant, board).map(|c| format!(" on board {c}")).unwrap_or_default();
        let Some(unit) = candidates.iter().find(|u| self.map.province_of(u.region) == unit_ref.at.province) else {
            let what = if kind == PhaseKind::Movement { "no unit" } else { "no dislodged unit" };
            return Err(format!("{what} in {}{on_board}", self.map.province(unit_ref.at.province).name));
        };
        if unit.power != power {
            return Err(format!(
                "the unit in {}{on_board} is {}, not yours",
                self.map.province(unit_ref.at.province).name,
                self.map.power(unit.power).adjective
            ));
        }
        let mut note = None;
        if kind == PhaseKind::Movement {
            if let Err(illegal) = resolve_main_order(&self.map, &b.units, Some(power), &order, &self.settings.rules) {
                note = Some(format!("illegal, the unit will hold: {}", illegal.describe(&self.map)));
            }
        } else if let Order::Retreat { to, .. } = order {
            let r = b.retreating.iter().find(|r| r.dislodgement.unit == *unit).expect("found above");
            if !r.options.iter().any(|o| self.map.province_of(*o) == to.province) {
                note = Some("illegal, the unit will be disbanded: it cannot retreat there".into());
            }
        }
        Ok((board, order, note))
    }

    /// The power an order is meant for when the text does not say: the owner of the unit
    /// it names (on its board, or board A).
    pub fn owner_of_ordered_unit(&self, po: &ParsedOrder) -> Option<PowerId> {
        let b = self.state.boards.get(po.board.unwrap_or(Board::A).0 as usize)?;
        let at = po.order.unit()?.at.province;
        let in_place = |u: &Unit| self.map.province_of(u.region) == at;
        b.units
            .iter()
            .find(|u| in_place(u))
            .or_else(|| b.retreating.iter().map(|r| &r.dislodgement.unit).find(|u| in_place(u)))
            .map(|u| u.power)
    }

    /// What the judge would do with these Winter orders of a power, each: (accepted, why).
    pub fn preview_winter(&self, power: PowerId, orders: &[&ParsedOrder]) -> Vec<(bool, String)> {
        let mut g = self.clone();
        g.state.orders = orders
            .iter()
            .map(|po| StoredOrder { power, board: po.board.unwrap_or(Board::A), order: po.order, text: String::new() })
            .collect();
        g.winter_outcomes(power)
    }

    /// Each of a power's Winter orders: (accepted, what the judge will do).
    fn winter_outcomes(&self, power: PowerId) -> Vec<(bool, String)> {
        let mine: Vec<&StoredOrder> = self.state.orders.iter().filter(|o| o.power == power).collect();
        match self.settings.variant {
            VariantKind::ShadowWorlds => {
                let w = self.shadow_power_winter(power, mine.iter().copied());
                w.orders.iter().map(|(_, o)| (o.is_accepted(), o.describe(&self.map))).collect()
            }
            VariantKind::Standard => {
                let b = &self.state.boards[0];
                let orders: Vec<(PowerId, Order<Place>)> = mine.iter().map(|o| (o.power, o.order)).collect();
                let result =
                    adjudicate_adjustments(&self.map, &b.units, &b.ownership, &orders, self.adjustment_rules());
                result
                    .outcomes
                    .iter()
                    .map(|o| {
                        let ok =
                            !matches!(o.result, AdjustmentOrderResult::Illegal(_) | AdjustmentOrderResult::TooMany);
                        (ok, o.result.describe(&self.map))
                    })
                    .collect()
            }
        }
    }

    /// A power's orders kept this phase, as written, each with a note when the judge will
    /// not carry it out as written (an illegal move: the unit holds; a retreat it cannot
    /// make: the unit disbands; a build or removal refused), as the acknowledgement said.
    pub fn kept_orders(&self, power: PowerId) -> Vec<(String, Option<String>)> {
        let mine = self.state.orders.iter().filter(|o| o.power == power);
        mine.zip(self.kept_notes(power)).map(|(o, n)| (o.text.clone(), n)).collect()
    }

    /// [`Game::kept_orders`], each order as the acknowledgement showed it: with its board
    /// in Shadow Worlds, a Winter removal as `remove A par` (what `status` lists).
    pub fn kept_orders_shown(&self, power: PowerId) -> Vec<(String, Option<String>)> {
        let shown = |o: &StoredOrder| {
            let (board, text) = self.shown_order(o.board, &o.order);
            board.map_or(text.clone(), |b| format!("[{b}] {text}"))
        };
        let mine = self.state.orders.iter().filter(|o| o.power == power);
        mine.zip(self.kept_notes(power)).map(|(o, n)| (shown(o), n)).collect()
    }

    /// The note of each of a power's kept orders, in order (see [`Game::kept_orders`]).
    fn kept_notes(&self, power: PowerId) -> impl Iterator<Item = Option<String>> {
        let mine: Vec<&StoredOrder> = self.state.orders.iter().filter(|o| o.power == power).collect();
        let notes: Vec<Option<String>> = match self.state.phase.kind {
            PhaseKind::Adjustments => {
                self.winter_outcomes(power).into_iter().map(|(ok, why)| (!ok).then_some(why)).collect()
            }
            PhaseKind::Movement => mine
                .iter()
                .map(|o| {
                    let units = &self.state.boards[o.board.0 as usize].units;
                    resolve_main_order(&self.map, units, Some(power), &o.order, &self.settings.rules)
                        .err()
                        .map(|illegal| format!("illegal, the unit will hold: {}", illegal.describe(&self.map)))
                })
                .collect(),
            PhaseKind::Retreats => mine
                .iter()
                .map(|o| {
                    let Order::Retreat { unit, to } = o.order else { return None };
                    let b = &self.state.boards[o.board.0 as usize];
                    let r = b
                        .retreating
                        .iter()
                        .find(|r| self.map.province_of(r.dislodgement.unit.region) == unit.at.province)?;
                    let can = r.options.iter().any(|x| self.map.province_of(*x) == to.province);
                    (!can).then(|| "illegal, the unit will be disbanded: it cannot retreat there".to_string())
                })
                .collect(),
        };
        notes.into_iter().chain(std::iter::repeat(None))
    }

    /// An order as acknowledgements and `status` show it: with its board in Shadow Worlds
    /// (a waive has none), a Winter removal as the results word it (`remove A par`).
    fn shown_order(&self, board: Board, order: &Order<Place>) -> (Option<char>, String) {
        let label = if *order == Order::Waive { None } else { board_label(self.settings.variant, board) };
        let text = match self.state.phase.kind {
            PhaseKind::Adjustments => self.winter_text(order),
            _ => order.canonical(&self.map),
        };
        (label, text)
    }

    /// Can the phase be adjudicated now (every power with something to order has sent orders)?
    pub fn ready(&self) -> bool {
        self.state.end.is_none() && self.waiting_for().is_empty()
    }

    /// Adjudicate the current phase and move to the next one.
    pub fn adjudicate(&mut self) -> PhaseReport {
        let phase = self.state.phase;
        let mut report = PhaseReport {
            game: self.settings.name.clone(),
            variant: self.variant_title(),
            options: self.option_lines(),
            phase,
            boards: Vec::new(),
            ledger: Vec::new(),
            adjustments: Vec::new(),
            standings: Vec::new(),
            defaults: Vec::new(),
            next_phase: None,
            notices: Vec::new(),
        };
        match phase.kind {
            PhaseKind::Movement => self.adjudicate_movement(&mut report),
            PhaseKind::Retreats => self.adjudicate_retreats(&mut report),
            PhaseKind::Adjustments => self.adjudicate_winter(&mut report),
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
        let next = if phase.kind == PhaseKind::Movement && any_retreats {
            Some(phase.retreats())
        } else if season_over && phase.season == Season::Fall {
            self.end_of_year(&mut report);
            if self.state.end.is_some() {
                None
            } else if self.winter_needed() {
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
        report.next_phase = next;
        report.standings = self.standings();
        report
    }

    fn variant_title(&self) -> String {
        match self.settings.variant {
            VariantKind::Standard => "standard Diplomacy".into(),
            VariantKind::ShadowWorlds => "Shadow Worlds Diplomacy".into(),
        }
    }

    /// The options in force, for report headers.
    pub fn option_lines(&self) -> Vec<String> {
        let mut lines = vec![format!("rules: {}", describe_rulebook(&self.settings.rules))];
        match self.settings.variant {
            VariantKind::Standard => lines.push(format!("victory at {} centers", self.victory_centers())),
            VariantKind::ShadowWorlds => lines.push(self.settings.shadow.describe(&self.map)),
        }
        lines
    }

    fn adjustment_rules(&self) -> AdjustmentRules {
        self.settings.rules.adjustments()
    }

    fn victory_centers(&self) -> usize {
        self.settings.victory_centers.unwrap_or(self.map.victory_centers)
    }

    fn standings(&self) -> Vec<Standing> {
        let fall_over = self.state.phase.kind == PhaseKind::Adjustments;
        self.active_powers()
            .into_iter()
            .map(|p| {
                let centers = self.state.boards.iter().map(|b| b.ownership.count(p)).collect();
                let units = self.state.boards.iter().map(|b| b.units.iter().filter(|u| u.power == p).count()).collect();
                let adjustment = fall_over.then(|| match self.settings.variant {
                    VariantKind::Standard => self.adjustment_delta(Board::A, p),
                    VariantKind::ShadowWorlds => self.ledger_row(p).delta(),
                });
                Standing { power: self.power_name(p), centers, units, adjustment }
            })
            .collect()
    }

    fn order_line(
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

    fn adjudicate_movement(&mut self, report: &mut PhaseReport) {
        let variant = self.settings.variant;
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
                let reason = out.reason.describe(&self.map, &units, &phase_orders.orders);
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
                let reason = match (res, &out.reason) {
                    ("succeeds", Reason::Moved | Reason::SupportGiven | Reason::Held | Reason::ConvoyCarried) => {
                        String::new()
                    }
                    ("default", _) => format!("no orders; {reason}"),
                    _ => reason,
                };
                lines.push((u.power, i, self.order_line(u.power, None, order_text, res, reason)));
            }
            lines.sort_by_key(|(p, i, _)| (*p, *i));
            for p in self.map.power_ids() {
                let list: Vec<String> = unordered.iter().filter(|(q, _)| *q == p).map(|(_, u)| u.clone()).collect();
                if !list.is_empty() {
                    let on = board_label(variant, board).map(|c| format!(" on board {c}")).unwrap_or_default();
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
                board: board_label(variant, board),
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

    fn adjudicate_retreats(&mut self, report: &mut PhaseReport) {
        let variant = self.settings.variant;
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
                        board_label(variant, board).map(|c| format!(" on board {c}")).unwrap_or_default()
                    ));
                }
                let reason = if res == "succeeds" { String::new() } else { r.fate.describe(&self.map) };
                lines.push((r.unit.power, self.order_line(r.unit.power, None, order_text, res, reason)));
            }
            lines.sort_by_key(|(p, _)| *p);
            report.boards.push(BoardReport {
                board: board_label(variant, board),
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
    fn end_of_year(&mut self, report: &mut PhaseReport) {
        let variant = self.settings.variant;
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
            let label = board_label(variant, Board(bi as u8));
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
            let out = match variant {
                VariantKind::Standard => {
                    let b = &self.state.boards[0];
                    b.ownership.count(p) == 0 && !b.units.iter().any(|u| u.power == p)
                }
                VariantKind::ShadowWorlds => self.ledger_row(p).is_out(),
            };
            if out {
                self.state.eliminated.push(p);
                report.notices.push(format!("{} is out of the game.", self.power_name(p)));
            }
        }
        // Victory.
        let end = match variant {
            VariantKind::Standard => {
                let target = self.victory_centers();
                let winners: Vec<PowerId> = self
                    .active_powers()
                    .into_iter()
                    .filter(|p| self.state.boards[0].ownership.count(*p) >= target)
                    .collect();
                match winners.len() {
                    0 => None,
                    1 => Some(GameEnd::Victory(winners[0])),
                    _ => Some(GameEnd::Draw(winners)),
                }
            }
            VariantKind::ShadowWorlds => {
                let rows: Vec<shadow::LedgerRow> =
                    self.active_powers().into_iter().map(|p| self.ledger_row(p)).collect();
                report.ledger = self.ledger();
                match shadow::check_victory(&self.map, &self.settings.shadow, &rows) {
                    shadow::VictoryCheck::None => None,
                    shadow::VictoryCheck::Victory(p) => Some(GameEnd::Victory(p)),
                    shadow::VictoryCheck::Draw(ps) => Some(GameEnd::Draw(ps)),
                }
            }
        };
        if let Some(e) = &end {
            report.notices.push(self.end_notice(e));
        }
        self.state.end = end;
    }

    /// "Italy wins the game." / "The game is drawn between France and Italy."
    pub fn end_notice(&self, end: &GameEnd) -> String {
        match end {
            GameEnd::Victory(p) => format!("{} wins the game.", self.power_name(*p)),
            GameEnd::Draw(ps) => {
                let names: Vec<String> = ps.iter().map(|p| self.power_name(*p)).collect();
                format!("The game is drawn between {}.", names.join(" and "))
            }
        }
    }

    /// Declare a draw between the surviving powers (the game master's decision).
    pub fn declare_draw(&mut self) -> String {
        let end = GameEnd::Draw(self.active_powers());
        let notice = self.end_notice(&end);
        self.state.end = Some(end);
        notice
    }

    /// A power votes for a draw. Returns the end notice when every surviving power has now
    /// voted (the game is drawn between them).
    pub fn vote_draw(&mut self, power: PowerId) -> Option<String> {
        if !self.state.draw_votes.contains(&power) {
            self.state.draw_votes.push(power);
        }
        let all = self.active_powers().iter().all(|p| self.state.draw_votes.contains(p));
        if all && self.state.end.is_none() {
            Some(self.declare_draw())
        } else {
            None
        }
    }

    /// The powers that vote on a draw or concession: those still in the game that a
    /// player plays (a vacant power has no vote, but shares a draw).
    pub fn voters(&self) -> Vec<PowerId> {
        let played = |p: &PowerId| self.settings.players.is_empty() || self.settings.player(&self.map, *p).is_some();
        self.active_powers().into_iter().filter(played).collect()
    }

    /// A power's vote on a draw or concession (it replaces the power's earlier vote of
    /// the same kind). Returns how the game ends when the vote makes a proposal pass: a
    /// draw every voter asked for (between every survivor, or, named, between the same
    /// powers in every vote), or a concession every other voter made to the same power.
    pub fn vote(&mut self, power: PowerId, vote: &Vote) -> Option<GameEnd> {
        let voters = self.voters();
        self.vote_among(power, vote, &voters)
    }

    /// [`Game::vote`], counted among the `voters` given (a journal's replay passes those
    /// of the time the vote was cast).
    pub fn vote_among(&mut self, power: PowerId, vote: &Vote, voters: &[PowerId]) -> Option<GameEnd> {
        let s = &mut self.state;
        match vote {
            Vote::Draw { powers } if powers.is_empty() => {
                if !s.draw_votes.contains(&power) {
                    s.draw_votes.push(power);
                }
            }
            Vote::Draw { powers } => {
                let mut powers = powers.clone();
                powers.sort_unstable();
                powers.dedup();
                s.draw_named.retain(|d| d.power != power);
                s.draw_named.push(NamedDraw { power, powers });
            }
            Vote::NoDraw => {
                s.draw_votes.retain(|p| *p != power);
                s.draw_named.retain(|d| d.power != power);
            }
            Vote::Concede { to } => {
                s.concessions.retain(|c| c.power != power);
                s.concessions.push(Concession { power, to: *to });
            }
            Vote::NoConcede => s.concessions.retain(|c| c.power != power),
        }
        if self.state.end.is_some() {
            return None;
        }
        let end = self.passed(voters)?;
        self.state.end = Some(end.clone());
        Some(end)
    }

    /// The proposal every voter agrees to, if one does.
    fn passed(&self, voters: &[PowerId]) -> Option<GameEnd> {
        let s = &self.state;
        if voters.is_empty() {
            return None;
        }
        if voters.iter().all(|p| s.draw_votes.contains(p)) {
            return Some(GameEnd::Draw(self.active_powers()));
        }
        let named = |p: &PowerId| s.draw_named.iter().find(|d| d.power == *p).map(|d| &d.powers);
        if let Some(first) = named(&voters[0]) {
            if voters.iter().all(|p| named(p) == Some(first)) {
                return Some(GameEnd::Draw(first.clone()));
            }
        }
        let conceded = |p: &PowerId| s.concessions.iter().find(|c| c.power == *p).map(|c| c.to);
        voters
            .iter()
            .copied()
            .find(|winner| voters.iter().filter(|p| *p != winner).all(|p| conceded(p) == Some(*winner)))
            .filter(|_| voters.len() > 1)
            .map(GameEnd::Victory)
    }

    /// A Winter order as reports print it: a disband is a removal there.
    fn winter_text(&self, order: &Order<Place>) -> String {
        match order {
            Order::Disband { .. } => format!("remove {}", order.canonical(&self.map).trim_end_matches(" disband")),
            o => o.canonical(&self.map),
        }
    }

    /// What a power adjusts in a standard Winter, as `status` says it: `builds 1`,
    /// `removes 2`, `builds 1 (2 due, 1 free home center)`; `None` outside a standard
    /// Winter or with nothing to adjust.
    pub fn standard_adjustment_due(&self, power: PowerId) -> Option<String> {
        if self.settings.variant != VariantKind::Standard || self.state.phase.kind != PhaseKind::Adjustments {
            return None;
        }
        let delta = self.adjustment_delta(Board::A, power);
        if delta < 0 {
            return Some(format!("removes {}", -delta));
        }
        let b = &self.state.boards[0];
        let sites = self
            .map
            .home_centers(power)
            .iter()
            .filter(|h| b.ownership.owner(**h) == Some(power))
            .filter(|h| !b.units.iter().any(|u| self.map.province_of(u.region) == **h))
            .count() as i64;
        match delta {
            0 => None,
            d if sites >= d => Some(format!("builds {d}")),
            d => Some(format!(
                "builds {sites} ({d} due, {})",
                count(sites as usize, "free home center", "free home centers")
            )),
        }
    }

    /// Can a power adjust in a standard Winter: a removal due, or a build due and a
    /// vacant home center it owns to build in?
    fn can_adjust_standard(&self, power: PowerId) -> bool {
        let delta = self.adjustment_delta(Board::A, power);
        let b = &self.state.boards[0];
        let site = || {
            self.map.home_centers(power).iter().any(|h| {
                b.ownership.owner(*h) == Some(power) && !b.units.iter().any(|u| self.map.province_of(u.region) == *h)
            })
        };
        delta < 0 || (delta > 0 && site())
    }

    fn winter_needed(&self) -> bool {
        match self.settings.variant {
            // Skipped, as other judges do, when no power can adjust: no removal due and
            // every build impossible.
            VariantKind::Standard => self.active_powers().iter().any(|p| self.can_adjust_standard(*p)),
            // A Shadow Worlds Winter is always held: a power may disband on one board to
            // build on the other even when its count equals its units.
            VariantKind::ShadowWorlds => true,
        }
    }

    fn adjudicate_winter(&mut self, report: &mut PhaseReport) {
        match self.settings.variant {
            VariantKind::Standard => {
                let b = self.state.boards[0].clone();
                let orders: Vec<(PowerId, Order<Place>)> =
                    self.state.orders.iter().map(|o| (o.power, o.order)).collect();
                let result =
                    adjudicate_adjustments(&self.map, &b.units, &b.ownership, &orders, self.adjustment_rules());
                let mut lines = Vec::new();
                for o in &result.outcomes {
                    let res = match o.result {
                        AdjustmentOrderResult::Illegal(_) => "illegal",
                        AdjustmentOrderResult::TooMany => "ignored",
                        _ => "succeeds",
                    };
                    let reason = if res == "succeeds" { String::new() } else { o.result.describe(&self.map) };
                    lines.push((o.power, self.order_line(o.power, None, self.winter_text(&o.order), res, reason)));
                }
                for d in &result.defaults {
                    if let DefaultAdjustment::CivilDisorderRemoval { power, unit } = d {
                        lines.push((
                            *power,
                            self.order_line(
                                *power,
                                None,
                                format!("remove {}", unit.describe(&self.map)),
                                "default",
                                "civil disorder".into(),
                            ),
                        ));
                    }
                    report.defaults.push(d.describe(&self.map));
                }
                lines.sort_by_key(|(p, _)| *p);
                let lines = lines.into_iter().map(|(_, l)| l).collect();
                report.boards.push(BoardReport {
                    board: None,
                    orders: lines,
                    dislodged: Vec::new(),
                    ownership_changes: Vec::new(),
                });
                self.state.boards[0].units = result.units;
            }
            VariantKind::ShadowWorlds => {
                report.ledger = self.ledger();
                let (a, b) = (self.state.boards[0].clone(), self.state.boards[1].clone());
                let mut results = Vec::new();
                for p in self.active_powers() {
                    let orders: Vec<WinterOrder> = self
                        .state
                        .orders
                        .iter()
                        .filter(|o| o.power == p)
                        .map(|o| WinterOrder { board: Some(o.board), order: o.order })
                        .collect();
                    let w = shadow::adjudicate_power_winter(
                        &self.map,
                        p,
                        [&a.units, &b.units],
                        [&a.ownership, &b.ownership],
                        &orders,
                        self.settings.rules.civil_disorder(),
                    );
                    for (wo, out) in &w.orders {
                        let (res, reason) = match out {
                            WinterOutcome::Built { .. } | WinterOutcome::Removed { .. } | WinterOutcome::Waived => {
                                ("succeeds", String::new())
                            }
                            WinterOutcome::Illegal(_) => ("illegal", out.reason()),
                            WinterOutcome::ExcessBuild { .. } => ("ignored", out.reason()),
                            WinterOutcome::RemovalCancelled { .. } => ("cancelled", out.reason()),
                            WinterOutcome::CivilDisorder { .. } => ("default", out.reason()),
                        };
                        report.adjustments.push(self.order_line(
                            p,
                            wo.board.map(|b| b.letter()),
                            self.winter_text(&wo.order),
                            res,
                            reason,
                        ));
                    }
                    for cd in &w.civil_disorder {
                        if let WinterOutcome::CivilDisorder { board, unit, .. } = cd {
                            report.adjustments.push(self.order_line(
                                p,
                                Some(board.letter()),
                                format!("remove {}", unit.describe(&self.map)),
                                "default",
                                cd.reason(),
                            ));
                        }
                    }
                    if !w.civil_disorder.is_empty() {
                        report.defaults.push(format!(
                            "{}: {} removed by civil disorder",
                            self.power_name(p),
                            count(w.civil_disorder.len(), "unit", "units")
                        ));
                    }
                    if w.builds_waived > 0 {
                        report.defaults.push(format!(
                            "{}: {} waived",
                            self.power_name(p),
                            count(w.builds_waived, "build", "builds")
                        ));
                    }
                    results.push(w);
                }
                let mut units = [a.units, b.units];
                shadow::apply_winter(&mut units, &results);
                let [ua, ub] = units;
                self.state.boards[0].units = ua;
                self.state.boards[1].units = ub;
            }
        }
    }
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
mod tests {
    use super::*;
    use crate::phase::{PhaseKind, Season};

    fn game(variant: VariantKind) -> Game {
        let map = Map::standard();
        let state = GameState::start(&map, variant.boards());
        Game::new(Settings::new("t", variant), map, state)
    }

    fn winter(g: &mut Game) {
        g.state.phase = Phase::new(1901, Season::Winter, PhaseKind::Adjustments);
    }

    /// France takes Belgium on board `b`: one center more than units.
    fn take_belgium(g: &mut Game, b: usize) -> PowerId {
        let france = g.map.lookup_power("france").unwrap();
        let bel = g.map.lookup_province("bel").unwrap();
        g.state.boards[b].ownership.set(bel, Some(france));
        france
    }

    #[test]
    fn the_adjustment_delta_is_centers_less_units_on_one_board() {
        let mut g = game(VariantKind::ShadowWorlds);
        let france = take_belgium(&mut g, 1);
        assert_eq!(g.adjustment_delta(Board::A, france), 0);
        assert_eq!(g.adjustment_delta(Board(1), france), 1);
        let paris = g.map.parse_region("par").unwrap();
        g.state.boards[0].units.retain(|u| u.region != paris);
        assert_eq!(g.adjustment_delta(Board::A, france), 1);
    }

    #[test]
    fn a_standard_winter_is_held_only_when_someone_can_adjust() {
        let mut g = game(VariantKind::Standard);
        winter(&mut g);
        assert!(!g.winter_needed(), "nobody gained or lost a center");
        let france = take_belgium(&mut g, 0);
        assert!(!g.winter_needed(), "France may build, but every home center of hers is occupied");
        let paris = g.map.parse_region("par").unwrap();
        g.state.boards[0].units.retain(|u| u.region != paris);
        assert!(g.winter_needed());
        assert!(g.has_duty(france));
        let england = g.map.lookup_power("england").unwrap();
        assert!(!g.has_duty(england), "England neither builds nor removes");
    }

    #[test]
    fn a_shadow_worlds_winter_is_always_held() {
        let mut g = game(VariantKind::ShadowWorlds);
        winter(&mut g);
        assert!(g.winter_needed());
        let england = g.map.lookup_power("england").unwrap();
        assert!(!g.has_duty(england), "a power with nothing to adjust owes nothing");
    }

    #[test]
    fn standings_show_adjustments_only_after_the_fall() {
        let mut g = game(VariantKind::Standard);
        take_belgium(&mut g, 0);
        assert!(g.standings().iter().all(|s| s.adjustment.is_none()));
        winter(&mut g);
        let france = g.standings().into_iter().find(|s| s.power == "France").unwrap();
        assert_eq!(france.adjustment, Some(1));
        assert_eq!(france.centers, vec![4]);
    }

    #[test]
    fn the_victory_target_is_the_game_setting_or_the_map() {
        let mut g = game(VariantKind::Standard);
        assert_eq!(g.victory_centers(), 18);
        g.settings.victory_centers = Some(12);
        assert_eq!(g.victory_centers(), 12);
    }

    #[test]
    fn boards_are_labelled_only_in_shadow_worlds() {
        assert_eq!(board_label(VariantKind::Standard, Board(1)), None);
        assert_eq!(board_label(VariantKind::ShadowWorlds, Board(1)), Some('B'));
    }

    #[test]
    fn a_removal_reads_as_remove() {
        let g = game(VariantKind::Standard);
        let paris = Place { province: g.map.lookup_province("par").unwrap(), coast: None };
        let order = Order::Disband {
            unit: crate::diplomacy::order::UnitRef { kind: Some(crate::diplomacy::map::UnitType::Army), at: paris },
        };
        assert_eq!(g.winter_text(&order), "remove A par");
    }
}
