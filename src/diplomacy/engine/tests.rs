//! The engine's own checks of the variants' rules.

use super::rules;
use super::*;
use crate::diplomacy::order::{Board, Order, Place};
use crate::diplomacy::report::PhaseReport;
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
    let france = g.map.lookup_power("france").unwrap();
    let france = g.standings().into_iter().find(|s| s.power == france).unwrap();
    assert_eq!(france.adjustment, Some(1));
    assert_eq!(france.centers[0], 4);
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

/// Two years of a game: moves, a bounce, a dislodgement with and without a retreat
/// order, centers changing hands, a build and defaults for everyone else.
const SCRIPT: &[&[(&str, &str)]] = &[
    // Spring 1901.
    &[
        ("france", "A par - bur\nA mar - spa\nF bre - mao"),
        ("germany", "F kie - hol\nA ber - kie"),
        ("england", "F lon - nth\nF edi - nwg\nA lvp - yor"),
        ("italy", "A ven - tyr\nA rom - ven"),
        ("austria", "A vie - boh\nA bud - gal"),
    ],
    // Fall 1901.
    &[
        ("france", "A bur - bel\nF mao - por"),
        ("germany", "A mun H\nA kie - ruh\nF hol - bel"),
        ("england", "F nth - hol\nF nwg - nwy\nA yor H"),
        ("austria", "A boh - mun\nA gal - sil"),
        ("italy", "A tyr S A boh - mun"),
    ],
    // Fall 1901 retreats (Germany dislodged from Munich), Winter, Spring 1902.
    &[("germany", "A mun - sil")],
    &[("france", "A par B\nF bre B")],
    &[("germany", "A ruh - bur"), ("france", "A spa - gas")],
];

/// Plays SCRIPT (each power's lines, on board A in Shadow Worlds) and returns what each
/// phase decided and the reports worded at once, phase by phase.
fn play_script(variant: VariantKind) -> (Game, Vec<(Adjudicated, PhaseReport)>) {
    let mut g = game(variant);
    let mut phases = Vec::new();
    for orders in SCRIPT {
        if g.state.end.is_some() {
            break;
        }
        for (power, text) in *orders {
            let p = g.map.lookup_power(power).unwrap();
            let text = match variant {
                VariantKind::ShadowWorlds => format!("Board A\n{text}"),
                VariantKind::Standard => text.to_string(),
            };
            g.submit(p, &text, false);
        }
        let at_once = g.clone().adjudicate();
        phases.push((g.decide(), at_once));
    }
    (g, phases)
}

#[test]
fn a_decided_phase_is_worded_the_same_however_late() {
    for variant in [VariantKind::Standard, VariantKind::ShadowWorlds] {
        let (g, phases) = play_script(variant);
        assert!(phases.len() >= 4, "{variant:?}: only {} phases", phases.len());
        let kinds: Vec<PhaseKind> = phases.iter().map(|(d, _)| d.phase.kind).collect();
        assert!(kinds.contains(&PhaseKind::Retreats) && kinds.contains(&PhaseKind::Adjustments), "{kinds:?}");
        let text: String = phases.iter().map(|(_, r)| r.to_text()).collect();
        for needed in ["Dislodged units:", "Ownership changes:", "Defaults applied:", "succeeds", "fails"] {
            assert!(text.contains(needed), "{variant:?}: no `{needed}` in\n{text}");
        }
        // Worded now, phases after the game moved on: the same report, byte for byte.
        for (decided, at_once) in &phases {
            let later = decided.report(&g.settings, &g.map);
            assert_eq!(later, *at_once);
            assert_eq!(later.to_text(), at_once.to_text());
        }
    }
}

#[test]
fn orders_kept_without_an_answer_leave_the_game_as_an_answered_submission_does() {
    for variant in [VariantKind::Standard, VariantKind::ShadowWorlds] {
        let (mut answered, mut kept) = (game(variant), game(variant));
        let map = answered.map.clone();
        let mut submissions = 0;
        for orders in SCRIPT {
            for (power, text) in *orders {
                let p = map.lookup_power(power).unwrap();
                let board = if variant == VariantKind::ShadowWorlds { "Board A\n" } else { "" };
                // A line refused, a unit not the power's, and every order given twice (the
                // second replaces the first; in a Winter it is one adjustment too many).
                let text = format!("{board}{text}\nnonsense here\nF lon H\n{text}");
                let parsed =
                    crate::diplomacy::order::grammar::parse_orders_on(&text, &map, &answered.unit_places(), Some(p));
                let answer = answered.take_orders(p, &text, &parsed, false);
                assert!(!answer.accepted.is_empty() && !answer.problems.is_empty(), "{variant:?}: {text}");
                kept.keep_orders(p, &text, &parsed.orders);
                assert_eq!(kept.state, answered.state, "{variant:?}: {power}: {text}");
                submissions += 1;
            }
            assert_eq!(kept.decide().report(&kept.settings, &map), answered.adjudicate(), "{variant:?}");
        }
        assert_eq!(submissions, SCRIPT.iter().map(|o| o.len()).sum::<usize>());
    }
}

#[test]
fn a_phase_adjudicated_in_reused_space_is_the_phase_adjudicated_afresh() {
    use rand::{Rng, SeedableRng};
    // The movement's working space is kept by the game from one phase to the next; a copy
    // starts with none. Every phase of random games, decided in both, is the same.
    let mut movements = 0;
    for (variant, seed) in [(VariantKind::Standard, 1), (VariantKind::Standard, 2), (VariantKind::ShadowWorlds, 3)] {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut g = game(variant);
        for _ in 0..30 {
            if g.state.end.is_some() {
                break;
            }
            let powers: Vec<PowerId> = g.map.power_ids().collect();
            let possible = g.possible_orders(&powers);
            g.state.orders = possible
                .iter()
                .filter_map(|(p, orders)| {
                    // A place in ten is left without orders.
                    let pick = rng.gen_range(0..orders.len() * 10 / 9 + 1);
                    let order = orders.get(pick)?.order(&g.map);
                    let board = if order == Order::Waive { Board::A } else { p.board };
                    Some(crate::diplomacy::state::StoredOrder { power: p.power, board, order, text: String::new() })
                })
                .collect();
            movements += usize::from(g.state.phase.kind == PhaseKind::Movement);
            let mut afresh = g.clone();
            let fresh_report = afresh.adjudicate();
            assert_eq!(g.adjudicate(), fresh_report, "{variant:?} {seed}");
            assert_eq!(g.state, afresh.state, "{variant:?} {seed}");
        }
    }
    assert!(movements >= 40, "{movements} movement phases");
}
