//! The phase machine, driven directly (no files).
use shadowjudge::diplomacy::engine::Game;
use shadowjudge::diplomacy::map::Map;
use shadowjudge::diplomacy::state::{GameEnd, GameState};
use shadowjudge::game::settings::{Settings, VariantKind};
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
    assert!(notice.starts_with("The game is drawn between Austria, England, France"), "{notice}");
    assert!(notice.ends_with(", Russia and Turkey."), "{notice}");
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
fn a_later_order_replaces_the_earlier_one_for_its_unit_on_its_own_board_only() {
    let mut g = game(VariantKind::ShadowWorlds);
    let france = g.map.lookup_power("france").unwrap();
    g.submit(france, "Board A\nA par - bur\nA par - pic\nBoard B\nA par - gas\nA mar - spa\n", false);
    g.submit(france, "Board B\nA mar - bur\nBoard A\nF bre - mao\n", false);
    let mut texts: Vec<(u8, String)> = g.state.orders.iter().map(|o| (o.board.0, o.order.canonical(&g.map))).collect();
    texts.sort();
    assert_eq!(
        texts,
        [(0, "A par - pic".into()), (0, "F bre - mao".into()), (1, "A mar - bur".into()), (1, "A par - gas".into())]
    );
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

/// A standard game after Fall 1901 in which France owns Belgium besides its home
/// centers: one build due. `vacate`: home centers France's units leave empty.
fn france_with_a_build(vacate: &[&str]) -> (Game, shadowjudge::diplomacy::map::PowerId) {
    let mut g = game(VariantKind::Standard);
    let france = g.map.lookup_power("france").unwrap();
    let bel = g.map.lookup_province("bel").unwrap();
    g.state.boards[0].ownership.set(bel, Some(france));
    let gone: Vec<_> = vacate.iter().map(|p| g.map.lookup_province(p).unwrap()).collect();
    let map = g.map.clone();
    g.state.boards[0].units.retain(|u| !gone.contains(&map.province_of(u.region)));
    g.adjudicate();
    (g, france)
}

#[test]
fn a_standard_winter_where_no_build_is_possible_is_skipped() {
    let (mut g, _) = france_with_a_build(&[]);
    let report = g.adjudicate();
    assert_eq!(report.next_phase, Some(Phase::new(1902, Season::Spring, PhaseKind::Movement)), "every home full");
}

#[test]
fn a_winter_ack_says_which_builds_go_unused_and_that_they_are_waived() {
    let (mut g, france) = france_with_a_build(&["par", "mar"]);
    assert_eq!(g.adjudicate().next_phase, Some(Phase::new(1901, Season::Winter, PhaseKind::Adjustments)));
    assert_eq!(g.waiting_for(), [france], "only France can adjust");
    // Three builds due (four centers, one unit), two vacant home centers: the third build
    // can go nowhere and is not asked for.
    let ack = g.submit(france, "", true);
    assert_eq!(ack.missing, ["2 builds not ordered (they will be waived)"]);
    let ack = g.submit(france, "build A par\n", false);
    assert_eq!(ack.missing, ["1 build not ordered (it will be waived)"]);
    assert!(ack.receipt().render(None).contains("Still without orders: 1 build not ordered (it will be waived)"));
    assert!(!ack.receipt().render(None).contains("Every unit has"), "{}", ack.receipt().render(None));
    let ack = g.submit(france, "build A par\nbuild F mar\n", false);
    assert_eq!(ack.missing, Vec::<String>::new());
    assert!(ack.receipt().render(None).contains("Every adjustment has orders."), "{}", ack.receipt().render(None));
}

#[test]
fn a_winter_ack_says_how_many_removals_civil_disorder_will_choose() {
    let mut g = game(VariantKind::Standard);
    let germany = g.map.lookup_power("germany").unwrap();
    extra_armies(&mut g, 0, germany, &["ruh", "sil"]);
    g.adjudicate();
    g.adjudicate();
    assert_eq!(g.state.phase.kind, PhaseKind::Adjustments);
    let ack = g.submit(germany, "", true);
    assert_eq!(ack.missing, ["2 removals not ordered (civil disorder will choose them)"]);
    let ack = g.submit(germany, "remove A mun\n", false);
    assert_eq!(ack.missing, ["1 removal not ordered (civil disorder will choose it)"]);
    assert!(!ack.receipt().render(None).contains("Every"), "{}", ack.receipt().render(None));
}

#[test]
fn a_shadow_winter_ack_counts_missing_removals_per_board() {
    let mut g = game(VariantKind::ShadowWorlds);
    let germany = g.map.lookup_power("germany").unwrap();
    extra_armies(&mut g, 0, germany, &["ruh", "sil", "boh"]);
    extra_armies(&mut g, 1, germany, &["ruh", "sil", "boh", "tyr"]);
    g.adjudicate();
    g.adjudicate();
    assert_eq!(g.state.phase.kind, PhaseKind::Adjustments);
    let due = -g.ledger_row(germany).delta();
    assert!(due > 0, "Germany must remove");
    let ack = g.submit(germany, "", true);
    let mut counted = 0;
    for line in &ack.missing {
        assert!(line.starts_with("[A] ") || line.starts_with("[B] "), "{line}");
        assert!(line.contains("civil disorder will choose"), "{line}");
        counted += line[4..].split(' ').next().unwrap().parse::<i64>().unwrap();
    }
    assert_eq!(counted, due, "{:?}", ack.missing);
    let ack = g.submit(germany, "Board A\nremove A mun\n", false);
    let counted: i64 = ack.missing.iter().map(|l| l[4..].split(' ').next().unwrap().parse::<i64>().unwrap()).sum();
    assert_eq!(counted, due - 1, "{:?}", ack.missing);
}

/// Armies of `power` added on board `board` in provinces without a supply center.
fn extra_armies(g: &mut Game, board: usize, power: shadowjudge::diplomacy::map::PowerId, at: &[&str]) {
    for p in at {
        let region = g.map.parse_region(p).unwrap();
        let unit =
            shadowjudge::diplomacy::judge::Unit { power, kind: shadowjudge::diplomacy::map::UnitType::Army, region };
        g.state.boards[board].units.push(unit);
    }
}

/// A power's own status shows each kept order with what the judge will make of it (an
/// illegal move holds, a build that cannot be made is refused), and a power with only
/// part of its orders in is marked so, not "orders in".
#[test]
fn status_marks_illegal_kept_orders_and_partial_orders() {
    use shadowjudge::game::status::status_text;
    let mut g = game(VariantKind::Standard);
    let france = g.map.lookup_power("france").unwrap();
    g.submit(france, "A par - mun\nA mar - spa\n", false);
    let text = status_text(&g, Some(france), None);
    assert!(text.contains("A par - mun  (illegal, the unit will hold: "), "{text}");
    assert!(text.lines().any(|l| l.trim() == "A mar - spa"), "{text}");
    assert!(text.lines().any(|l| l.contains("France") && l.contains("some orders")), "{text}");
    assert!(text.contains("Still without orders: F bre"), "{text}");
    g.submit(france, "F bre h\n", false);
    let text = status_text(&g, Some(france), None);
    assert!(text.lines().any(|l| l.contains("France") && l.contains("orders in")), "{text}");

    let (mut g, france) = france_with_a_build(&["par", "mar"]);
    g.adjudicate();
    g.submit(france, "build F par\nbuild A mar\n", false);
    let text = status_text(&g, Some(france), None);
    let par = text.lines().find(|l| l.contains("build F par")).expect("the order is listed");
    assert!(par.contains('('), "a fleet cannot be built inland: {text}");
    assert!(text.lines().any(|l| l.trim() == "build A mar"), "{text}");
}

/// Issue 28, item 1: in a Shadow Worlds Winter a power whose count equals its units owes
/// nothing (not awaited, complete as it is), and a power with builds may waive them with
/// a bare `waive`, whatever the board.
#[test]
fn a_shadow_winter_awaits_only_powers_with_something_to_adjust() {
    let mut g = game(VariantKind::ShadowWorlds);
    let france = g.map.lookup_power("france").unwrap();
    let england = g.map.lookup_power("england").unwrap();
    let bel = g.map.lookup_province("bel").unwrap();
    g.state.boards[0].ownership.set(bel, Some(france));
    let par = g.map.parse_region("par").unwrap();
    g.state.boards[0].units.retain(|u| u.region != par);
    g.adjudicate();
    g.adjudicate();
    assert_eq!(g.state.phase.kind, PhaseKind::Adjustments);
    assert_eq!(g.ledger_row(england).delta(), 0);
    assert!(!g.has_duty(england));
    assert!(!g.waiting_for().contains(&england), "England has nothing to adjust");
    assert!(g.waiting_for().contains(&france));
    let ack = g.submit(france, "waive\n", false);
    assert!(ack.problems.is_empty(), "{:?}", ack.problems);
    assert_eq!(ack.accepted.len(), 1);
    assert_eq!(ack.accepted[0].board, None, "a waive names no board");
    assert!(!ack.receipt().render(None).contains("no orders understood"), "{}", ack.receipt().render(None));
    assert_eq!(g.ledger_row(france).delta(), 2);
    assert!(ack.missing.is_empty(), "one line waives both builds: {:?}", ack.missing);
    assert!(!g.waiting_for().contains(&france));
}

/// Issue 28, item 6: one wording per thing. A Winter removal is acknowledged and listed
/// in `status` as the results word it, with its board; the words for "nothing missing"
/// are the same in the acknowledgement and by mail; a report read by everyone says whose
/// count it means.
#[test]
fn winter_orders_are_worded_alike_in_acks_status_and_results() {
    use shadowjudge::diplomacy::variant::shadow::WinterOutcome;
    use shadowjudge::game::status::status_text;
    let mut g = game(VariantKind::ShadowWorlds);
    let germany = g.map.lookup_power("germany").unwrap();
    extra_armies(&mut g, 1, germany, &["boh"]);
    g.adjudicate();
    g.adjudicate();
    assert_eq!(g.ledger_row(germany).delta(), -1);
    let ack = g.submit(germany, "Board B\nA boh disband\n", false);
    assert_eq!(ack.accepted[0].order, "remove A boh", "{:?}", ack.accepted);
    assert!(ack.receipt().render(None).contains("[B] remove A boh"), "{}", ack.receipt().render(None));
    assert_eq!(ack.complete_words(), "Every adjustment has orders.");
    assert!(ack.receipt().render(None).contains(ack.complete_words()), "{}", ack.receipt().render(None));
    let text = status_text(&g, Some(germany), None);
    assert!(text.lines().any(|l| l.trim() == "[B] remove A boh"), "{text}");
    let report = g.adjudicate();
    assert!(report.adjustments.iter().any(|l| l.order == "remove A boh"), "{:?}", report.adjustments);
    let board = shadowjudge::diplomacy::order::Board::A;
    let excess = WinterOutcome::ExcessBuild { board, allowed_units: 10 };
    assert_eq!(excess.reason(), "its count allows 10 units in all");
}

/// Issue 28, item 4: a power's own status (by mail and on the command line) says the
/// board of every order, as the acknowledgement does.
#[test]
fn status_says_the_board_of_every_order() {
    use shadowjudge::game::status::status_text;
    let mut g = game(VariantKind::ShadowWorlds);
    let france = g.map.lookup_power("france").unwrap();
    g.submit(france, "Board A\nA par - bur\nBoard B\nA par H\n", false);
    let text = status_text(&g, Some(france), None);
    assert!(text.lines().any(|l| l.trim() == "[A] A par - bur"), "{text}");
    assert!(text.lines().any(|l| l.trim() == "[B] A par H"), "{text}");
}

/// Issue 28, item 14: a standard Winter's status says the builds and removals due, and
/// the mark column stays apart from the centers.
#[test]
fn a_standard_winter_status_says_the_builds_and_removals_due() {
    use shadowjudge::game::status::status_text;
    let (mut g, france) = france_with_a_build(&["par", "mar"]);
    g.adjudicate();
    assert_eq!(g.state.phase.kind, PhaseKind::Adjustments);
    let text = status_text(&g, None, None);
    let line = text.lines().find(|l| l.trim_start().starts_with("France")).unwrap();
    assert!(line.ends_with(", builds 2 (3 due, 2 free home centers)"), "{text}");
    g.submit(france, "build A par\n", false);
    let text = status_text(&g, None, None);
    let line = text.lines().find(|l| l.trim_start().starts_with("France")).unwrap();
    assert!(line.contains("some orders | centers 4"), "{text}");
    let england = text.lines().find(|l| l.trim_start().starts_with("England")).unwrap();
    assert!(!england.contains("builds") && !england.contains("removes"), "{text}");
}

/// A check answers exactly as keeping the orders would and leaves the game as it was; a
/// parser built once answers as one built for each submission.
#[test]
fn a_check_answers_as_keeping_would_and_changes_nothing() {
    use shadowjudge::diplomacy::order::grammar::OrderParser;
    let (mut g, france) = france_with_a_build(&["par", "mar"]);
    let mut movement = game(VariantKind::Standard);
    let mut shadow = game(VariantKind::ShadowWorlds);
    g.adjudicate();
    assert_eq!(g.state.phase.kind, PhaseKind::Adjustments);
    let cases = [
        (&mut movement, "A par - bur\nF bre - xyz\nA mar - mun\n", "A par - pic\n"),
        (&mut shadow, "A par - bur (A)\nA mar - spa (B)\nF bre - mao\n", "A par - gas (A)\n"),
        (&mut g, "build A par\nbuild F bre\n", "build A mar\nwaive\n"),
    ];
    for (g, first, second) in cases {
        for text in [first, second] {
            let before = g.state.clone();
            let checked = g.submit(france, text, true);
            assert_eq!(g.state, before, "a check keeps nothing: {text}");
            let map = g.map.clone();
            let parser = OrderParser::new(&map);
            let mut kept_once = g.clone();
            let kept = g.submit(france, text, false);
            assert_eq!(kept, checked, "{text}");
            assert_eq!(kept_once.submit_with(&parser, france, text, false), kept, "{text}");
            assert_eq!(kept_once.state, g.state, "{text}");
            assert_ne!(g.state, before, "kept: {text}");
        }
    }
}
