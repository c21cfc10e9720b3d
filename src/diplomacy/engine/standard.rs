//! Standard Diplomacy's rules where the phase machine asks: one board, a Winter only when
//! someone can adjust, victory at the map's (or the game's) center count.

use crate::diplomacy::judge::adjustment::{
    adjudicate_adjustments, AdjustmentOrderResult, AdjustmentResult, DefaultAdjustment,
};
use crate::diplomacy::map::{Map, PowerId};
use crate::diplomacy::order::{Board, Order, Place};
use crate::diplomacy::report::LedgerLine;
use crate::diplomacy::state::GameEnd;
use crate::game::settings::Settings;
use crate::phase::PhaseKind;
use crate::text::count;

use super::adjudicated::{Decided, Told, WinterBoard};
use super::rules::{Rules, WinterPreview};
use super::Game;

/// Standard Diplomacy.
pub struct Standard;

impl Rules for Standard {
    fn title(&self) -> &'static str {
        "standard Diplomacy"
    }

    fn title_on(&self, map: &Map) -> String {
        match map.is_standard_variant() {
            true => self.title().to_string(),
            false => format!("{} Diplomacy", map.title),
        }
    }

    fn board_label(&self, _board: Board) -> Option<char> {
        None
    }

    fn board_of(
        &self,
        _game: &Game,
        written: Option<Board>,
        _kind: PhaseKind,
        _order: &Order<Place>,
    ) -> Result<Board, String> {
        match written {
            None | Some(Board::A) => Ok(Board::A),
            Some(b) => Err(format!("this game has one board; there is no board {b}")),
        }
    }

    fn owes_adjustment(&self, game: &Game, power: PowerId) -> bool {
        game.can_adjust_standard(power)
    }

    fn adjustment(&self, game: &Game, power: PowerId) -> i64 {
        game.adjustment_delta(Board::A, power)
    }

    fn adjustment_due(&self, game: &Game, power: PowerId) -> Option<String> {
        let delta = game.adjustment_delta(Board::A, power);
        if delta < 0 {
            return Some(format!("removes {}", -delta));
        }
        let b = &game.state.boards[0];
        let sites = game
            .map
            .build_sites(power)
            .filter(|h| b.ownership.owner(*h) == Some(power))
            .filter(|h| !b.units.iter().any(|u| game.map.province_of(u.region) == *h))
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

    fn ledger(&self, _game: &Game) -> Vec<LedgerLine> {
        Vec::new()
    }

    fn winter_shortfall(&self, game: &Game, power: PowerId) -> (usize, Vec<(Option<char>, usize)>) {
        shortfall(game, power, &winter_result(game, power))
    }

    fn winter_outcomes(&self, game: &Game, power: PowerId) -> Vec<(bool, String)> {
        outcomes(game, &winter_result(game, power))
    }

    fn winter_preview(&self, game: &Game, power: PowerId) -> WinterPreview {
        let result = winter_result(game, power);
        (outcomes(game, &result), shortfall(game, power, &result))
    }

    /// Skipped, as other judges do, when no power can adjust: no removal due and every
    /// build impossible.
    fn winter_needed(&self, game: &Game) -> bool {
        game.active_powers().iter().any(|p| game.can_adjust_standard(*p))
    }

    fn adjudicate_winter(&self, game: &mut Game, decided: &mut Vec<Decided>, _told: &mut Told) {
        let b = &game.state.boards[0];
        let orders: Vec<(PowerId, Order<Place>)> = game.state.orders.iter().map(|o| (o.power, o.order)).collect();
        let mut result = adjudicate_adjustments(&game.map, &b.units, &b.ownership, &orders, game.adjustment_rules());
        game.state.boards[0].units = std::mem::take(&mut result.units);
        decided.push(Decided::Winter(WinterBoard { outcomes: result.outcomes, defaults: result.defaults }));
    }

    fn is_out(&self, game: &Game, power: PowerId) -> bool {
        let b = &game.state.boards[0];
        b.ownership.count(power) == 0 && !b.units.iter().any(|u| u.power == power)
    }

    fn victory(&self, game: &Game) -> Option<GameEnd> {
        let target = game.victory_centers();
        let winners: Vec<PowerId> =
            game.active_powers().into_iter().filter(|p| game.state.boards[0].ownership.count(*p) >= target).collect();
        match winners.len() {
            0 => None,
            1 => Some(GameEnd::Victory(winners[0])),
            _ => Some(GameEnd::Draw(winners)),
        }
    }

    fn option_line(&self, settings: &Settings, map: &Map) -> String {
        format!("victory at {} centers", settings.victory_centers.unwrap_or(map.victory_centers))
    }
}

impl Game {
    /// Can a power adjust in a standard Winter: a removal due, or a build due and a
    /// vacant home center it owns to build in?
    fn can_adjust_standard(&self, power: PowerId) -> bool {
        let delta = self.adjustment_delta(Board::A, power);
        let b = &self.state.boards[0];
        let site = || {
            self.map.build_sites(power).any(|h| {
                b.ownership.owner(h) == Some(power) && !b.units.iter().any(|u| self.map.province_of(u.region) == h)
            })
        };
        delta < 0 || (delta > 0 && site())
    }
}

/// A power's Winter orders adjudicated alone, as they stand.
fn winter_result(game: &Game, power: PowerId) -> AdjustmentResult {
    let b = &game.state.boards[0];
    let orders: Vec<(PowerId, Order<Place>)> =
        game.state.orders.iter().filter(|o| o.power == power).map(|o| (o.power, o.order)).collect();
    adjudicate_adjustments(&game.map, &b.units, &b.ownership, &orders, game.adjustment_rules())
}

/// The builds to be waived (no more than the free home centers) and the removals civil
/// disorder will choose.
fn shortfall(game: &Game, power: PowerId, result: &AdjustmentResult) -> (usize, Vec<(Option<char>, usize)>) {
    let b = &game.state.boards[0];
    let waived = result
        .defaults
        .iter()
        .find_map(|d| match d {
            DefaultAdjustment::BuildsWaived { power: p, count } if *p == power => Some(*count),
            _ => None,
        })
        .unwrap_or(0);
    let sites = game
        .map
        .build_sites(power)
        .filter(|h| b.ownership.owner(*h) == Some(power))
        .filter(|h| !result.units.iter().any(|u| game.map.province_of(u.region) == *h))
        .count();
    let removals = result
        .defaults
        .iter()
        .filter(|d| matches!(d, DefaultAdjustment::CivilDisorderRemoval { power: p, .. } if *p == power))
        .count();
    (waived.min(sites), vec![(None, removals)])
}

/// Each order: (accepted, what the judge will do).
fn outcomes(game: &Game, result: &AdjustmentResult) -> Vec<(bool, String)> {
    result
        .outcomes
        .iter()
        .map(|o| {
            let ok = !matches!(o.result, AdjustmentOrderResult::Illegal(_) | AdjustmentOrderResult::TooMany);
            (ok, o.result.describe(&game.map))
        })
        .collect()
}
