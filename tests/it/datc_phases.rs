//! The DATC retreat, build and civil-disorder cases (sections 6.H, 6.I, 6.J) from
//! `tests/data/datc/6h.json`, `6i.json` and `6j.json` (made by `convert_phases.py` there).
//!
//! Orders are read from their structured fields, not their text, so these tests do not
//! depend on the order grammar (the data file helpers are in `datc_common`). A retreat case
//! starts from the position after its movement phase as the data file gives it (derived from
//! the DATC's expected move results by `convert_phases.py`, not by the movement engine); the
//! tests in `after_movement` check that position against the movement adjudicator.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use shadowjudge::diplomacy::judge::adjustment::{
    adjudicate_adjustments, AdjustmentIllegal, AdjustmentOrderResult, AdjustmentRules, BuildIllegal, CivilDisorderRule,
    DefaultAdjustment,
};
use shadowjudge::diplomacy::judge::retreat::{
    adjudicate_retreats, retreat_target, RetreatFate, RetreatIllegal, RetreatOrderStatus, RetreatPhase,
};
use shadowjudge::diplomacy::judge::{Dislodgement, Edition, Ownership, Rulebook, Unit};
use shadowjudge::diplomacy::map::{Map, PowerId, ProvinceId, RegionId, UnitType};
use shadowjudge::diplomacy::order::{Order, Place};

use crate::datc_common::{
    adjudicate, cases, coast, order, power, province, unexpected_results, unit, OrderData, UnitData,
};

#[derive(Deserialize)]
struct DislodgedData {
    unit: UnitData,
    attacker_from: String,
    via_convoy: bool,
}

#[derive(Deserialize)]
struct AfterMovement {
    units: Vec<UnitData>,
    dislodged: Vec<DislodgedData>,
    standoffs: Vec<String>,
}

#[derive(Deserialize)]
struct FateData {
    place: String,
    fate: String,
    to: Option<String>,
    reason: Option<String>,
}

#[derive(Deserialize)]
struct RetreatCase {
    test: String,
    edition: String,
    convoyed_attack_opens_origin: bool,
    /// The movement phase before the retreats: every unit's order with its expected result.
    movement: Vec<OrderData>,
    after_movement: AfterMovement,
    orders: Vec<OrderData>,
    fates: Vec<FateData>,
}

#[derive(Deserialize)]
struct AdjustmentCase {
    test: String,
    edition: String,
    ownership: BTreeMap<String, String>,
    units: Vec<UnitData>,
    orders: Vec<OrderData>,
    civil_disorder: Vec<UnitData>,
    #[serde(default)]
    builds_waived: BTreeMap<String, usize>,
}

fn orders(map: &Map, data: &[OrderData]) -> Vec<(PowerId, Order<Place>)> {
    data.iter().map(|o| (power(map, &o.power), order(map, o))).collect()
}

fn sorted(mut units: Vec<Unit>) -> Vec<Unit> {
    units.sort();
    units
}

fn find_case<C: DeserializeOwned>(section: &str, test: &str, name: impl Fn(&C) -> &str) -> C {
    cases::<C>(section).into_iter().find(|c| name(c) == test).unwrap_or_else(|| panic!("no case {test}"))
}

/// The position after the moves as the data file stores it.
fn stored_retreat_phase(map: &Map, after: &AfterMovement) -> RetreatPhase {
    RetreatPhase {
        units_after: after.units.iter().map(|u| unit(map, u)).collect(),
        dislodged: after
            .dislodged
            .iter()
            .map(|d| Dislodgement {
                unit: unit(map, &d.unit),
                attacker_from: province(map, &d.attacker_from),
                via_convoy: d.via_convoy,
            })
            .collect(),
        standoffs: after.standoffs.iter().map(|p| province(map, p)).collect(),
    }
}

fn run_retreat_case(test: &str) {
    let map = Map::standard();
    let case: RetreatCase = find_case("6h", test, |c: &RetreatCase| &c.test);
    let phase = stored_retreat_phase(&map, &case.after_movement);
    let result = adjudicate_retreats(&map, &phase, &orders(&map, &case.orders), case.convoyed_attack_opens_origin);

    for (data, report) in case.orders.iter().zip(&result.orders) {
        let got = match report.status {
            RetreatOrderStatus::Accepted { .. } => "accepted".to_string(),
            RetreatOrderStatus::Illegal(why) => format!("illegal ({})", why.describe(&map)),
        };
        let expected = data.expect.as_deref().unwrap_or("");
        assert!(got.starts_with(expected), "{}: expected {expected}, got {got}", data.text);
    }

    assert_eq!(result.outcomes.len(), case.fates.len());
    let mut expected_units = phase.units_after.clone();
    for (fate, outcome) in case.fates.iter().zip(&result.outcomes) {
        assert_eq!(map.province_of(outcome.unit.region), province(&map, &fate.place));
        let what = format!("{}: {}", outcome.unit.describe(&map), outcome.fate.describe(&map));
        match (fate.fate.as_str(), &outcome.fate) {
            ("retreated", RetreatFate::Retreated { to }) => {
                let wanted = province(&map, fate.to.as_deref().expect("a destination"));
                assert_eq!(map.province_of(*to), wanted, "{what}");
                expected_units.push(Unit { region: *to, ..outcome.unit });
            }
            ("bounced", RetreatFate::Bounced { with }) => assert!(!with.is_empty(), "{what}"),
            ("no order", RetreatFate::NoOrder) | ("disbanded", RetreatFate::Disbanded) => {}
            ("illegal order", RetreatFate::IllegalOrder(why)) => {
                let matches = match fate.reason.as_deref() {
                    Some("not a retreat order") => matches!(why, RetreatIllegal::NotARetreatOrder { .. }),
                    Some("cannot reach") => matches!(why, RetreatIllegal::CannotReach { .. }),
                    Some("attacker origin") => matches!(why, RetreatIllegal::AttackerOrigin { .. }),
                    Some("standoff") => matches!(why, RetreatIllegal::Standoff { .. }),
                    other => panic!("unknown reason {other:?}"),
                };
                assert!(matches, "{what}: expected {:?}", fate.reason);
            }
            (expected, _) => panic!("{what}: expected {expected}"),
        }
    }
    assert_eq!(sorted(result.units.clone()), sorted(expected_units));

    // The options reported agree with the check of a single retreat.
    for (d, outcome) in phase.dislodged.iter().zip(&result.outcomes) {
        for r in 0..map.region_count() {
            let r = RegionId(r as u16);
            let reg = map.region(r);
            let to = Place { province: reg.province, coast: reg.coast };
            let legal = retreat_target(&map, &phase, d, to, case.convoyed_attack_opens_origin) == Ok(r);
            assert_eq!(legal, outcome.options.contains(&r), "{} to {}", d.unit.describe(&map), map.region_name(r));
        }
    }
}

/// The unit an order is for, where the order says it stands.
fn ordered_unit(map: &Map, o: &OrderData) -> Unit {
    let u = UnitData {
        power: o.power.clone(),
        kind: o.unit_type.clone().expect("a unit type"),
        place: o.place.clone().expect("a place"),
        coast: o.coast.clone(),
    };
    unit(map, &u)
}

/// `F kie (england)`.
fn unit_name(map: &Map, u: &Unit) -> String {
    format!("{} ({})", u.describe(map), map.power(u.power).key)
}

/// Sorted, so that two lists compare as sets and a difference reads well.
fn sorted_names<T>(items: impl IntoIterator<Item = T>, name: impl Fn(T) -> String) -> Vec<String> {
    let mut names: Vec<String> = items.into_iter().map(name).collect();
    names.sort();
    names
}

/// `A mar (italy) dislodged from gas via convoy`.
fn dislodgement_name(map: &Map, d: &Dislodgement) -> String {
    let via = if d.via_convoy { " via convoy" } else { "" };
    format!("{} dislodged from {}{via}", unit_name(map, &d.unit), map.province(d.attacker_from).key)
}

/// The position a retreat case starts from is the one the movement adjudicator reaches from
/// the case's movement phase. DATC 6.H gives every unit of a movement phase an order, so the
/// units before the moves are the ones the orders are for. The phase runs under the 2023
/// rules with the case's choice on retreating to a convoyed attacker's origin (DATC 4.A.5);
/// every order must get its expected result, and the units left standing, the dislodged
/// units (with where the attack came from and whether by convoy), the standoffs and each
/// dislodged unit's retreat options must be the ones the retreat phase starts from.
fn check_after_movement(test: &str) {
    let map = Map::standard();
    let case: RetreatCase = find_case("6h", test, |c: &RetreatCase| &c.test);
    assert!(!case.movement.is_empty(), "{test}: the data has no movement phase");
    let units: Vec<Unit> = case.movement.iter().map(|o| ordered_unit(&map, o)).collect();
    for (i, u) in units.iter().enumerate() {
        let province = map.province_of(u.region);
        let twice = units[..i].iter().any(|v| map.province_of(v.region) == province);
        assert!(!twice, "{test}: two units ordered in {}", map.province(province).key);
    }
    let edition = match case.edition.as_str() {
        "any" => Edition::E2023,
        e => Edition::parse(e).unwrap_or_else(|| panic!("{test}: unknown edition {e}")),
    };
    let rulebook =
        Rulebook { retreat_to_convoy_origin: Some(case.convoyed_attack_opens_origin), ..Rulebook::edition(edition) };
    let (orders, result) = adjudicate(&map, &units, &case.movement, &rulebook);
    let mut failures = unexpected_results(&map, &units, &case.movement, &orders, &result);

    let stored = stored_retreat_phase(&map, &case.after_movement);
    let mut compare = |what: &str, adjudicated: Vec<String>, stored: Vec<String>| {
        if adjudicated != stored {
            failures.push(format!("{what}: adjudicated {adjudicated:?}, stored {stored:?}"));
        }
    };
    let units = |units: &[Unit]| sorted_names(units, |u| unit_name(&map, u));
    compare("units after the moves", units(&result.units_after), units(&stored.units_after));
    let adjudicated = sorted_names(&result.dislodged, |d| dislodgement_name(&map, &d.dislodgement));
    compare("dislodged", adjudicated, sorted_names(&stored.dislodged, |d| dislodgement_name(&map, d)));
    let provinces = |provinces: &[ProvinceId]| sorted_names(provinces, |p| map.province(*p).key.clone());
    compare("standoffs", provinces(&result.standoffs), provinces(&stored.standoffs));
    // The options the movement phase reports are the ones the retreat phase gives.
    let retreat_phase = adjudicate_retreats(&map, &stored, &[], case.convoyed_attack_opens_origin);
    let regions = |regions: &[RegionId]| sorted_names(regions, |r| map.region_name(*r));
    for d in &result.dislodged {
        if let Some(outcome) = retreat_phase.outcomes.iter().find(|o| o.unit == d.dislodgement.unit) {
            let what = format!("retreats of {}", d.dislodgement.unit.describe(&map));
            compare(&what, regions(&d.retreats), regions(&outcome.options));
        }
    }
    assert!(failures.is_empty(), "{test}:\n  {}", failures.join("\n  "));
}

fn run_adjustment_case(section: &str, test: &str) {
    let map = Map::standard();
    let case: AdjustmentCase = find_case(section, test, |c: &AdjustmentCase| &c.test);
    let mut ownership = Ownership::initial(&map);
    for (p, owner) in &case.ownership {
        ownership.set(province(&map, p), Some(power(&map, owner)));
    }
    let units: Vec<Unit> = case.units.iter().map(|u| unit(&map, u)).collect();
    let orders = orders(&map, &case.orders);
    let civil_disorder = match case.edition.as_str() {
        "1971" => CivilDisorderRule::HomeCenters1971,
        _ => CivilDisorderRule::Rulebook2023,
    };
    let result = adjudicate_adjustments(&map, &units, &ownership, &orders, AdjustmentRules { civil_disorder });

    let mut expected_units = units.clone();
    for (data, outcome) in case.orders.iter().zip(&result.outcomes) {
        let got = &outcome.result;
        let what = format!("{}: {}", data.text, got.describe(&map));
        match (data.expect.as_deref(), got) {
            (Some("built"), AdjustmentOrderResult::Built { unit }) => {
                let k = unit.kind;
                let coast = if k == UnitType::Fleet { coast(data.coast.as_deref()) } else { None };
                let region = map.region_for(k, province(&map, data.place.as_deref().expect("a place")), coast);
                assert_eq!(Some(unit.region), region, "{what}");
                expected_units.push(*unit);
            }
            (Some("removed"), AdjustmentOrderResult::Removed { unit }) => {
                assert_eq!(map.province_of(unit.region), province(&map, data.place.as_deref().expect("a place")));
                expected_units.retain(|u| u != unit);
            }
            (Some("waived"), AdjustmentOrderResult::Waived)
            | (Some("illegal"), AdjustmentOrderResult::Illegal(_))
            | (Some("too many"), AdjustmentOrderResult::TooMany) => {}
            (expected, _) => panic!("{what}: expected {expected:?}"),
        }
    }

    let mut removed_in_disorder = Vec::new();
    let mut waived: BTreeMap<String, usize> = BTreeMap::new();
    for d in &result.defaults {
        match d {
            DefaultAdjustment::CivilDisorderRemoval { unit, .. } => removed_in_disorder.push(*unit),
            DefaultAdjustment::BuildsWaived { power, count } => {
                waived.insert(map.power(*power).key.clone(), *count);
            }
        }
    }
    let expected_disorder: Vec<Unit> = case.civil_disorder.iter().map(|u| unit(&map, u)).collect();
    assert_eq!(removed_in_disorder, expected_disorder, "civil-disorder removals");
    for (p, n) in &case.builds_waived {
        assert_eq!(waived.get(p).copied().unwrap_or(0), *n, "builds waived by {p}");
    }
    expected_units.retain(|u| !expected_disorder.contains(u));
    assert_eq!(sorted(result.units.clone()), sorted(expected_units));
}

/// Two tests per retreat case: the retreat phase from the stored position, and (in module
/// `after_movement`) that position against the movement adjudicator. Attributes written
/// before a case's name apply to its `after_movement` test only.
macro_rules! retreat_cases {
    ($($(#[$after_movement:meta])* $name:ident),* $(,)?) => {
        $( #[test] fn $name() { run_retreat_case(stringify!($name)); } )*
        const RETREAT_TESTS: &[&str] = &[$(stringify!($name)),*];

        mod after_movement {
            $( #[test] $(#[$after_movement])* fn $name() { super::check_after_movement(stringify!($name)); } )*
        }
    };
}

macro_rules! adjustment_cases {
    ($section:literal, $list:ident: $($name:ident),* $(,)?) => {
        $( #[test] fn $name() { run_adjustment_case($section, stringify!($name)); } )*
        const $list: &[&str] = &[$(stringify!($name)),*];
    };
}

retreat_cases!(
    datc_6_h_1_no_supports_during_retreat,
    datc_6_h_2_no_supports_from_retreating_unit,
    datc_6_h_3_no_convoy_during_retreat,
    datc_6_h_4_no_other_moves_during_retreat,
    datc_6_h_5_a_unit_may_not_retreat_to_the_area_from_which_it_is_attacked,
    datc_6_h_6_unit_may_not_retreat_to_a_contested_area,
    datc_6_h_7_multiple_retreat_to_same_area_will_disband_units,
    datc_6_h_8_triple_retreat_to_same_area_will_disband_units,
    datc_6_h_9_dislodged_unit_will_not_make_attackers_area_contested,
    datc_6_h_10_not_retreating_to_attacker_does_not_mean_contested,
    datc_6_h_11_retreat_when_dislodged_by_adjacent_convoy,
    datc_6_h_11_retreat_when_dislodged_by_adjacent_convoy_choice_a,
    datc_6_h_12_retreat_when_dislodged_by_adjacent_convoy_while_trying_to_do_the_same,
    datc_6_h_12_retreat_when_dislodged_by_adjacent_convoy_while_trying_to_do_the_same_choice_a,
    datc_6_h_13_no_retreat_with_convoy_in_main_phase,
    datc_6_h_14_no_retreat_with_support_in_main_phase,
    datc_6_h_15_no_coastal_crawl_in_retreat,
    datc_6_h_16_contested_for_both_coasts,
);

adjustment_cases!("6i", BUILD_TESTS:
    datc_6_i_1_too_many_build_orders,
    datc_6_i_2_fleets_can_not_be_build_in_land_areas,
    datc_6_i_3_supply_center_must_be_empty_for_building,
    datc_6_i_4_both_coasts_must_be_empty_for_building,
    datc_6_i_5_building_in_home_supply_center_that_is_not_owned,
    datc_6_i_6_building_in_owned_supply_center_that_is_not_a_home_supply_center,
    datc_6_i_7_only_one_build_in_a_home_supply_center,
);

adjustment_cases!("6j", DISORDER_TESTS:
    datc_6_j_1_too_many_remove_orders,
    datc_6_j_2_removing_the_same_unit_twice,
    datc_6_j_3_civil_disorder_two_armies_with_different_distance,
    datc_6_j_4_civil_disorder_two_armies_with_equal_distance,
    datc_6_j_5_civil_disorder_two_fleets_with_different_distance,
    datc_6_j_6_civil_disorder_two_fleets_with_equal_distance,
    datc_6_j_7_civil_disorder_two_fleets_and_army_with_equal_distance,
    datc_6_j_8_civil_disorder_a_fleet_with_shorter_distance_then_the_army,
    datc_6_j_9_civil_disorder_must_be_counted_from_both_coasts,
    datc_6_j_9_civil_disorder_must_be_counted_from_both_coasts_second_scenario,
    datc_6_j_10_civil_disorder_counting_convoying_distance,
    datc_6_j_11_distance_to_owned_supply_center_1971,
    datc_6_j_11_distance_to_owned_supply_center_2023,
);

#[derive(Deserialize)]
struct Named {
    test: String,
}

/// Every case in the data files has its test above, and every test its case.
#[test]
fn every_phase_case_has_a_test() {
    for (section, tests) in [("6h", RETREAT_TESTS), ("6i", BUILD_TESTS), ("6j", DISORDER_TESTS)] {
        let named = cases::<Named>(section);
        let mut in_data: Vec<&str> = named.iter().map(|c| c.test.as_str()).collect();
        let mut in_code = tests.to_vec();
        in_data.sort();
        in_code.sort();
        assert_eq!(in_data, in_code);
    }
}

/// The reasons DATC 6.I gives for failed builds are the ones reported.
#[test]
fn datc_6_i_builds_fail_for_the_datc_reason() {
    let map = Map::standard();
    type ReasonCheck = fn(&BuildIllegal) -> bool;
    let expected: &[(&str, ReasonCheck)] = &[
        ("datc_6_i_1_too_many_build_orders", |b| matches!(b, BuildIllegal::NotAHomeCenter { .. })),
        ("datc_6_i_2_fleets_can_not_be_build_in_land_areas", |b| matches!(b, BuildIllegal::FleetInland { .. })),
        ("datc_6_i_3_supply_center_must_be_empty_for_building", |b| matches!(b, BuildIllegal::Occupied { .. })),
        ("datc_6_i_4_both_coasts_must_be_empty_for_building", |b| matches!(b, BuildIllegal::Occupied { .. })),
        ("datc_6_i_5_building_in_home_supply_center_that_is_not_owned", |b| {
            matches!(b, BuildIllegal::NotOwned { owner: Some(_), .. })
        }),
        ("datc_6_i_6_building_in_owned_supply_center_that_is_not_a_home_supply_center", |b| {
            matches!(b, BuildIllegal::NotAHomeCenter { .. })
        }),
        ("datc_6_i_7_only_one_build_in_a_home_supply_center", |b| {
            matches!(b, BuildIllegal::SecondBuildInCenter { .. })
        }),
    ];
    for (test, check) in expected {
        let case: AdjustmentCase = find_case("6i", test, |c: &AdjustmentCase| &c.test);
        let ownership = {
            let mut o = Ownership::initial(&map);
            for (p, owner) in &case.ownership {
                o.set(province(&map, p), Some(power(&map, owner)));
            }
            o
        };
        let units: Vec<Unit> = case.units.iter().map(|u| unit(&map, u)).collect();
        let result =
            adjudicate_adjustments(&map, &units, &ownership, &orders(&map, &case.orders), AdjustmentRules::default());
        let reasons: Vec<BuildIllegal> = result
            .outcomes
            .iter()
            .filter_map(|o| match o.result {
                AdjustmentOrderResult::Illegal(AdjustmentIllegal::Build(b)) => Some(b),
                _ => None,
            })
            .collect();
        assert_eq!(reasons.len(), 1, "{test}");
        assert!(check(&reasons[0]), "{test}: {}", reasons[0].describe(&map));
    }
}
