//! The engine's own checks of the variants' rules.

use super::rules;
use super::*;
use crate::diplomacy::order::{Board, Order, Place};
use crate::diplomacy::state::GameState;
use crate::game::settings::{Settings, VariantKind};
use crate::phase::{Phase, PhaseKind, Season};

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
    assert!(!g.rules().winter_needed(&g), "nobody gained or lost a center");
    let france = take_belgium(&mut g, 0);
    assert!(!g.rules().winter_needed(&g), "France may build, but every home center of hers is occupied");
    let paris = g.map.parse_region("par").unwrap();
    g.state.boards[0].units.retain(|u| u.region != paris);
    assert!(g.rules().winter_needed(&g));
    assert!(g.has_duty(france));
    let england = g.map.lookup_power("england").unwrap();
    assert!(!g.has_duty(england), "England neither builds nor removes");
}

#[test]
fn a_shadow_worlds_winter_is_always_held() {
    let mut g = game(VariantKind::ShadowWorlds);
    winter(&mut g);
    assert!(g.rules().winter_needed(&g));
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
    assert_eq!(rules::of(VariantKind::Standard).board_label(Board(1)), None);
    assert_eq!(rules::of(VariantKind::ShadowWorlds).board_label(Board(1)), Some('B'));
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
