//! Shadow Worlds' rules where the phase machine asks: two boards, one ledger, a Winter
//! every year settled over both boards, and victory by the control list
//! ([`crate::diplomacy::variant::shadow`] does the arithmetic).

use crate::diplomacy::map::{Map, PowerId, ProvinceId};
use crate::diplomacy::order::{Board, Order, Place};
use crate::diplomacy::report::LedgerLine;
use crate::diplomacy::state::{GameEnd, StoredOrder};
use crate::diplomacy::variant::shadow::{self, WinterOrder, WinterOutcome};
use crate::game::settings::Settings;
use crate::phase::PhaseKind;
use crate::text::count;

use super::adjudicated::{order_line, Decided, Told};
use super::rules::Rules;
use super::Game;

/// Shadow Worlds Diplomacy.
pub struct ShadowWorlds;

impl Rules for ShadowWorlds {
    fn title(&self) -> &'static str {
        "Shadow Worlds Diplomacy"
    }

    fn board_label(&self, board: Board) -> Option<char> {
        Some(board.letter())
    }

    fn board_of(
        &self,
        game: &Game,
        written: Option<Board>,
        kind: PhaseKind,
        order: &Order<Place>,
    ) -> Result<Board, String> {
        match written {
            Some(b) if (b.0 as usize) < game.boards() => Ok(b),
            Some(b) => Err(format!("there is no board {b}: the boards are A and B")),
            // A waive is for a build, on whichever board: it needs no board.
            None if kind == PhaseKind::Adjustments && *order == Order::Waive => Ok(Board::A),
            None => {
                Err("which board? put the order under a `Board A` or `Board B` line, or end it with `(A)` or `(B)`"
                    .into())
            }
        }
    }

    /// A power whose count equals its units may still remove on one board to build on
    /// the other, but owes nothing: it is complete as it is.
    fn owes_adjustment(&self, game: &Game, power: PowerId) -> bool {
        game.ledger_row(power).delta() != 0
    }

    fn adjustment(&self, game: &Game, power: PowerId) -> i64 {
        game.ledger_row(power).delta()
    }

    fn adjustment_due(&self, _game: &Game, _power: PowerId) -> Option<String> {
        None
    }

    fn ledger(&self, game: &Game) -> Vec<LedgerLine> {
        let names = |v: &[ProvinceId]| v.iter().map(|p| game.map.province(*p).key.clone()).collect::<Vec<_>>();
        game.active_powers()
            .into_iter()
            .map(|p| {
                let r = game.ledger_row(p);
                LedgerLine {
                    power: game.power_name(p),
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

    fn winter_shortfall(&self, game: &Game, power: PowerId) -> (usize, Vec<(Option<char>, usize)>) {
        let w = game.shadow_power_winter(power, game.state.orders.iter().filter(|o| o.power == power));
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

    fn winter_outcomes(&self, game: &Game, power: PowerId) -> Vec<(bool, String)> {
        let w = game.shadow_power_winter(power, game.state.orders.iter().filter(|o| o.power == power));
        w.orders.iter().map(|(_, o)| (o.is_accepted(), o.describe(&game.map))).collect()
    }

    /// Always held: a power may disband on one board to build on the other even when its
    /// count equals its units.
    fn winter_needed(&self, _game: &Game) -> bool {
        true
    }

    fn adjudicate_winter(&self, game: &mut Game, _decided: &mut Vec<Decided>, told: &mut Told) {
        told.ledger = self.ledger(game);
        let (a, b) = (game.state.boards[0].clone(), game.state.boards[1].clone());
        let mut results = Vec::new();
        for p in game.active_powers() {
            let orders: Vec<WinterOrder> = game
                .state
                .orders
                .iter()
                .filter(|o| o.power == p)
                .map(|o| WinterOrder { board: Some(o.board), order: o.order })
                .collect();
            let w = shadow::adjudicate_power_winter(
                &game.map,
                p,
                [&a.units, &b.units],
                [&a.ownership, &b.ownership],
                &orders,
                game.settings.rules.civil_disorder(),
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
                told.adjustments.push(order_line(
                    &game.map,
                    p,
                    wo.board.map(|b| b.letter()),
                    game.winter_text(&wo.order),
                    res,
                    reason,
                ));
            }
            for cd in &w.civil_disorder {
                if let WinterOutcome::CivilDisorder { board, unit, .. } = cd {
                    told.adjustments.push(order_line(
                        &game.map,
                        p,
                        Some(board.letter()),
                        format!("remove {}", unit.describe(&game.map)),
                        "default",
                        cd.reason(),
                    ));
                }
            }
            if !w.civil_disorder.is_empty() {
                told.defaults.push(format!(
                    "{}: {} removed by civil disorder",
                    game.power_name(p),
                    count(w.civil_disorder.len(), "unit", "units")
                ));
            }
            if w.builds_waived > 0 {
                told.defaults.push(format!(
                    "{}: {} waived",
                    game.power_name(p),
                    count(w.builds_waived, "build", "builds")
                ));
            }
            results.push(w);
        }
        let mut units = [a.units, b.units];
        shadow::apply_winter(&mut units, &results);
        let [ua, ub] = units;
        game.state.boards[0].units = ua;
        game.state.boards[1].units = ub;
    }

    fn is_out(&self, game: &Game, power: PowerId) -> bool {
        game.ledger_row(power).is_out()
    }

    fn victory(&self, game: &Game) -> Option<GameEnd> {
        let rows: Vec<shadow::LedgerRow> = game.active_powers().into_iter().map(|p| game.ledger_row(p)).collect();
        match shadow::check_victory(&game.map, &game.settings.shadow, &rows) {
            shadow::VictoryCheck::None => None,
            shadow::VictoryCheck::Victory(p) => Some(GameEnd::Victory(p)),
            shadow::VictoryCheck::Draw(ps) => Some(GameEnd::Draw(ps)),
        }
    }

    fn option_line(&self, settings: &Settings, map: &Map) -> String {
        settings.shadow.describe(map)
    }
}

impl Game {
    /// A power's row of the Shadow Worlds ledger (its count over both boards).
    pub fn ledger_row(&self, power: PowerId) -> shadow::LedgerRow {
        let (a, b) = (&self.state.boards[0], &self.state.boards[self.boards() - 1]);
        shadow::ledger_row(&self.map, power, [&a.ownership, &b.ownership], [&a.units, &b.units])
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
}
