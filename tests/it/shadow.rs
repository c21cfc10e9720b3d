//! Shadow Worlds: the worked examples of the rulings (docs/shadow-worlds.md).
use shadowjudge::diplomacy::judge::adjustment::CivilDisorderRule;
use shadowjudge::diplomacy::judge::{Ownership, Unit};
use shadowjudge::diplomacy::map::{Map, PowerId};
use shadowjudge::diplomacy::order::grammar::parse_orders;
use shadowjudge::diplomacy::order::Board;
use shadowjudge::diplomacy::position::parse_unit;
use shadowjudge::diplomacy::variant::shadow::{
    adjudicate_power_winter, apply_winter, check_victory, ledger_row, LedgerRow, ShadowOptions, VictoryCheck,
    VictoryCounts, WinterIllegal, WinterOrder, WinterOutcome,
};

fn power(map: &Map, name: &str) -> PowerId {
    map.lookup_power(name).unwrap()
}

fn units(map: &Map, power_name: &str, list: &[&str]) -> Vec<Unit> {
    let p = power(map, power_name);
    list.iter().map(|u| parse_unit(map, p, u).unwrap()).collect()
}

fn owned(map: &Map, power_name: &str, centers: &[&str]) -> Ownership {
    let mut o = Ownership::new(map);
    for c in centers {
        o.set(map.lookup_province(c).unwrap(), Some(power(map, power_name)));
    }
    o
}

/// The seed's Italy: A owns Ven Rom Nap Tri Mar, B owns Ven Tri Nap Vie Tun; 6 units on A
/// (none in Ven, Rom or Nap) and 2 on B.
struct Italy {
    map: Map,
    units: [Vec<Unit>; 2],
    ownership: [Ownership; 2],
}

fn italy() -> Italy {
    let map = Map::standard();
    let a = units(&map, "italy", &["A tri", "A mar", "A pie", "A tus", "A apu", "F tys"]);
    let b = units(&map, "italy", &["A vie", "F tun"]);
    let oa = owned(&map, "italy", &["ven", "rom", "nap", "tri", "mar"]);
    let ob = owned(&map, "italy", &["ven", "tri", "nap", "vie", "tun"]);
    Italy { map, units: [a, b], ownership: [oa, ob] }
}

impl Italy {
    fn winter(&self, text: &str) -> Vec<WinterOutcome> {
        let parsed = parse_orders(text, &self.map);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let orders: Vec<WinterOrder> =
            parsed.orders.iter().map(|o| WinterOrder { board: o.board, order: o.order }).collect();
        let w = adjudicate_power_winter(
            &self.map,
            power(&self.map, "italy"),
            [&self.units[0], &self.units[1]],
            [&self.ownership[0], &self.ownership[1]],
            &orders,
            CivilDisorderRule::Rulebook2023,
        );
        let mut after = self.units.clone();
        apply_winter(&mut after, std::slice::from_ref(&w));
        let outcomes: Vec<WinterOutcome> = w.orders.into_iter().map(|(_, o)| o).chain(w.civil_disorder).collect();
        // Applying the Winter builds exactly the units built and removes exactly the ones
        // removed, on the board each names.
        for (board, now) in after.iter().enumerate() {
            let mut expected = self.units[board].clone();
            for o in &outcomes {
                match o {
                    WinterOutcome::Built { board: b, unit } if b.0 as usize == board => expected.push(*unit),
                    WinterOutcome::Removed { board: b, unit } | WinterOutcome::CivilDisorder { board: b, unit, .. }
                        if b.0 as usize == board =>
                    {
                        expected.retain(|u| u != unit)
                    }
                    _ => {}
                }
            }
            assert_eq!(*now, expected, "board {board} after the Winter");
        }
        outcomes
    }

    fn row(&self) -> LedgerRow {
        ledger_row(
            &self.map,
            power(&self.map, "italy"),
            [&self.ownership[0], &self.ownership[1]],
            [&self.units[0], &self.units[1]],
        )
    }
}

fn built(o: &WinterOutcome) -> bool {
    matches!(o, WinterOutcome::Built { .. })
}

fn removed(o: &WinterOutcome) -> bool {
    matches!(o, WinterOutcome::Removed { .. })
}

#[test]
fn the_seed_italy_counts_nine() {
    let it = italy();
    let row = it.row();
    assert_eq!(row.count, 9);
    assert_eq!(row.control_list.len(), 7, "Ven Rom Nap Tri Mar Vie Tun");
    let doubled: Vec<&str> = row.doubled.iter().map(|p| it.map.province(*p).key.as_str()).collect();
    assert_eq!(doubled, ["nap", "ven"]);
    assert_eq!(row.total_units(), 8);
    assert_eq!(row.delta(), 1);
}

#[test]
fn split_one_build_on_either_board() {
    let it = italy();
    let on_a = it.winter("Board A\nBuild A ven\n");
    assert!(built(&on_a[0]), "{on_a:?}");
    let on_b = it.winter("Board B\nBuild A ven\n");
    assert!(built(&on_b[0]), "{on_b:?}");
}

#[test]
fn split_remove_one_on_b_and_build_two_on_a() {
    let it = italy();
    let out = it.winter("Board B\nRemove F tun\nBoard A\nBuild A ven\nBuild F nap\n");
    assert!(removed(&out[0]), "{out:?}");
    assert!(built(&out[1]) && built(&out[2]), "{out:?}");
    assert_eq!(out.len(), 3);
}

#[test]
fn split_go_down_to_zero_on_b_and_build_three_on_a() {
    let it = italy();
    let out = it.winter("[B]\nRemove A vie\nRemove F tun\n[A]\nBuild A ven\nBuild A rom\nBuild F nap\n");
    assert_eq!(out.iter().filter(|o| removed(o)).count(), 2, "{out:?}");
    assert_eq!(out.iter().filter(|o| built(o)).count(), 3, "{out:?}");
}

#[test]
fn builds_and_removals_on_one_board_are_refused_with_the_reason() {
    let it = italy();
    let out = it.winter("Board B\nRemove F tun\nBuild A ven\n");
    assert!(
        matches!(out[1], WinterOutcome::Illegal(WinterIllegal::BuildsAndRemovalsOnOneBoard { board: Board::B })),
        "{out:?}"
    );
    assert!(out[1].describe(&it.map).contains("builds or removes, never both"));
    // Nothing built, so the voluntary removal is cancelled too.
    assert!(matches!(out[0], WinterOutcome::RemovalCancelled { .. }), "{out:?}");
}

#[test]
fn builds_beyond_the_count_are_ignored() {
    let it = italy();
    let out = it.winter("Board B\nRemove F tun\nBoard A\nBuild A ven\nBuild A rom\nBuild F nap\n");
    assert!(removed(&out[0]));
    assert!(built(&out[1]) && built(&out[2]));
    assert!(matches!(out[3], WinterOutcome::ExcessBuild { .. }), "{out:?}");
    assert!(out[3].describe(&it.map).contains("allows 9 units"), "{}", out[3].describe(&it.map));
}

#[test]
fn a_winter_order_without_a_board_is_illegal() {
    let it = italy();
    let out = it.winter("Build A ven\n");
    assert!(matches!(out[0], WinterOutcome::Illegal(WinterIllegal::NoBoard)), "{out:?}");
}

#[test]
fn civil_disorder_removes_across_both_boards() {
    let map = Map::standard();
    // France owns Par and Bre on A and nothing on B, count 2 + (Par, Bre doubled? no: B owns none) = 2;
    // 2 units on A near home, 2 on B far away: two removals, both on B (farthest first).
    let a = units(&map, "france", &["A par", "F bre"]);
    let b = units(&map, "france", &["A mos", "F nwg"]);
    let oa = owned(&map, "france", &["par", "bre"]);
    let ob = Ownership::new(&map);
    let w = adjudicate_power_winter(
        &map,
        power(&map, "france"),
        [&a, &b],
        [&oa, &ob],
        &[],
        CivilDisorderRule::Rulebook2023,
    );
    assert_eq!(w.civil_disorder.len(), 2, "{w:?}");
    for cd in &w.civil_disorder {
        assert!(matches!(cd, WinterOutcome::CivilDisorder { board: Board::B, .. }), "{cd:?}");
    }
}

#[test]
fn civil_disorder_takes_the_farthest_unit_on_either_board() {
    let map = Map::standard();
    // France owns Par and Bre on A and Par on B: control list 2, Par doubled, count 3.
    // Four units: one removal. A ukr (board A) is farthest from a center France owns on
    // its own board; A bur on B stands next to Paris.
    let a = units(&map, "france", &["A par", "F bre", "A ukr"]);
    let b = units(&map, "france", &["A bur"]);
    let oa = owned(&map, "france", &["par", "bre"]);
    let ob = owned(&map, "france", &["par"]);
    let w = adjudicate_power_winter(
        &map,
        power(&map, "france"),
        [&a, &b],
        [&oa, &ob],
        &[],
        CivilDisorderRule::Rulebook2023,
    );
    assert_eq!(w.civil_disorder.len(), 1, "{w:?}");
    match &w.civil_disorder[0] {
        WinterOutcome::CivilDisorder { board, unit, .. } => {
            assert_eq!(*board, Board::A);
            assert_eq!(unit.describe(&map), "A ukr");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn two_powers_reaching_the_target_at_once_draw() {
    let map = Map::standard();
    let options = ShadowOptions { short_game: true, victory_counts: VictoryCounts::Distinct };
    let centers: Vec<_> = map.supply_centers().collect();
    let row = |p: PowerId, list: &[shadowjudge::diplomacy::map::ProvinceId]| LedgerRow {
        power: p,
        centers: [list.to_vec(), Vec::new()],
        doubled: Vec::new(),
        control_list: list.to_vec(),
        count: list.len(),
        units: [list.len(), 0],
    };
    let france = power(&map, "france");
    let italy = power(&map, "italy");
    let rows = vec![row(france, &centers[..18]), row(italy, &centers[16..34])];
    assert_eq!(check_victory(&map, &options, &rows), VictoryCheck::Draw(vec![france, italy]));
    let rows = vec![row(france, &centers[..18]), row(italy, &centers[20..34])];
    assert_eq!(check_victory(&map, &options, &rows), VictoryCheck::Victory(france));
    let full = ShadowOptions::default();
    assert_eq!(check_victory(&map, &full, &rows), VictoryCheck::None);
}

#[test]
fn the_ledger_option_counts_doubled_home_centers() {
    let map = Map::standard();
    let italy = power(&map, "italy");
    let options = ShadowOptions { short_game: true, victory_counts: VictoryCounts::Ledger };
    let row = LedgerRow {
        power: italy,
        centers: [Vec::new(), Vec::new()],
        doubled: Vec::new(),
        control_list: map.supply_centers().take(15).collect(),
        count: 18,
        units: [0, 0],
    };
    assert_eq!(check_victory(&map, &options, std::slice::from_ref(&row)), VictoryCheck::Victory(italy));
    let distinct = ShadowOptions { short_game: true, victory_counts: VictoryCounts::Distinct };
    assert_eq!(check_victory(&map, &distinct, &[row]), VictoryCheck::None);
}
