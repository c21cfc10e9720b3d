//! The phase machine, driven directly (no files).
use shadowjudge::game::engine::Game;
use shadowjudge::game::settings::{Settings, VariantKind};
use shadowjudge::game::state::{GameEnd, GameState};
use shadowjudge::map::Map;
use shadowjudge::phase::{Phase, PhaseKind, Season};

fn game(variant: VariantKind) -> Game {
    let map = Map::standard();
    let state = GameState::start(&map, variant.boards());
    Game::new(Settings::new("t", variant), map, state)
}

#[test]
fn a_draw_needs_every_surviving_power() {
    let mut g = game(VariantKind::Standard);
    let powers: Vec<_> = g.map.power_ids().collect();
    for p in &powers[..6] {
        assert_eq!(g.vote_draw(*p), None);
    }
    let notice = g.vote_draw(powers[6]).expect("the last vote draws the game");
    assert!(notice.starts_with("The game is drawn between Austria and England"), "{notice}");
    assert!(matches!(g.state.end, Some(GameEnd::Draw(ref ps)) if ps.len() == 7));
}

#[test]
fn a_later_submission_replaces_orders_unit_by_unit() {
    let mut g = game(VariantKind::Standard);
    let france = g.map.lookup_power("france").unwrap();
    g.submit(france, "A par - bur\nA mar - spa\n", false);
    let ack = g.submit(france, "A par - pic\n", false);
    assert_eq!(ack.missing, vec!["F bre".to_string()]);
    let texts: Vec<String> = g.state.orders.iter().map(|o| o.order.canonical(&g.map)).collect();
    assert_eq!(texts, ["A mar - spa", "A par - pic"]);
}

#[test]
fn a_shadow_worlds_order_without_a_board_is_refused_with_its_line() {
    let mut g = game(VariantKind::ShadowWorlds);
    let italy = g.map.lookup_power("italy").unwrap();
    let ack = g.submit(italy, "A ven - tyr\nBoard B\nA ven - pie\nBoard C\n", false);
    assert_eq!(ack.accepted.len(), 1);
    assert_eq!(ack.accepted[0].board, Some('B'));
    assert_eq!(ack.problems[0].line, 1);
    assert!(ack.problems[0].message.contains("which board?"), "{:?}", ack.problems);
}

#[test]
fn the_seasons_turn_and_a_shadow_winter_is_always_held() {
    let mut g = game(VariantKind::ShadowWorlds);
    let report = g.adjudicate();
    assert_eq!(report.next_phase, Some(Phase::new(1901, Season::Fall, PhaseKind::Movement)));
    assert_eq!(report.boards.len(), 2);
    let report = g.adjudicate();
    assert_eq!(report.next_phase, Some(Phase::new(1901, Season::Winter, PhaseKind::Adjustments)));
    assert_eq!(report.ledger.len(), 7, "the ledger is shown after the Fall update");
    let report = g.adjudicate();
    assert_eq!(report.next_phase, Some(Phase::new(1902, Season::Spring, PhaseKind::Movement)));
}

#[test]
fn a_standard_game_skips_a_winter_with_nothing_to_adjust() {
    let mut g = game(VariantKind::Standard);
    g.adjudicate();
    let report = g.adjudicate();
    assert_eq!(report.next_phase, Some(Phase::new(1902, Season::Spring, PhaseKind::Movement)));
}
