//! What the two DATC runners share: the data files under `tests/data/datc/` (6a.json ...
//! 6j.json, made by `convert.py` and `convert_phases.py` there), the stored form of a unit
//! and of an order, how they become the judge's units and orders, and how a movement phase
//! is adjudicated and its orders compared with their expected results.
//!
//! Orders are read from their structured fields, never from their text, so the runners do
//! not depend on the order grammar.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use shadowjudge::diplomacy::judge::legality::{collect_orders, PhaseOrders, WrittenOrder};
use shadowjudge::diplomacy::judge::{adjudicate_movement, MovementResult, Rulebook, Unit};
use shadowjudge::diplomacy::map::{Coast, Map, PowerId, ProvinceId, UnitType};
use shadowjudge::diplomacy::order::{Order, Place, UnitRef};

/// The text of one section's data file: `"6a"` ... `"6j"`.
pub fn data(section: &str) -> &'static str {
    match section {
        "6a" => include_str!("../data/datc/6a.json"),
        "6b" => include_str!("../data/datc/6b.json"),
        "6c" => include_str!("../data/datc/6c.json"),
        "6d" => include_str!("../data/datc/6d.json"),
        "6e" => include_str!("../data/datc/6e.json"),
        "6f" => include_str!("../data/datc/6f.json"),
        "6g" => include_str!("../data/datc/6g.json"),
        "6h" => include_str!("../data/datc/6h.json"),
        "6i" => include_str!("../data/datc/6i.json"),
        "6j" => include_str!("../data/datc/6j.json"),
        other => panic!("no DATC data file {other}"),
    }
}

#[derive(Deserialize)]
struct Section<C> {
    license: String,
    cases: Vec<C>,
}

/// The cases of one section's data file, read as `C`; the file must keep its licence notice.
pub fn cases<C: DeserializeOwned>(section: &str) -> Vec<C> {
    let file: Section<C> = serde_json::from_str(data(section)).expect("a valid DATC data file");
    assert!(file.license.contains("MIT"), "{section}.json keeps its licence notice");
    file.cases
}

/// A unit as stored: `{"power": "england", "type": "F", "place": "spa", "coast": "nc"}`.
#[derive(Deserialize, Clone)]
pub struct UnitData {
    pub power: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub place: String,
    pub coast: Option<String>,
}

/// An order as stored: its text and its structured fields. Builds leave out the unit type
/// when the text does, waives have no unit at all; `expect` is the result the DATC gives.
#[derive(Deserialize, Clone)]
pub struct OrderData {
    pub text: String,
    pub power: String,
    pub kind: String,
    pub unit_type: Option<String>,
    pub place: Option<String>,
    pub coast: Option<String>,
    pub to: Option<String>,
    pub to_coast: Option<String>,
    #[serde(default)]
    pub via_convoy: bool,
    pub target_type: Option<String>,
    pub target_place: Option<String>,
    pub target_coast: Option<String>,
    pub expect: Option<String>,
}

pub fn province(map: &Map, name: &str) -> ProvinceId {
    map.lookup_province(name).unwrap_or_else(|| panic!("unknown province {name}"))
}

pub fn coast(name: Option<&str>) -> Option<Coast> {
    name.map(|c| Coast::from_short(c).unwrap_or_else(|| panic!("unknown coast {c}")))
}

pub fn power(map: &Map, name: &str) -> PowerId {
    map.lookup_power(name).unwrap_or_else(|| panic!("unknown power {name}"))
}

pub fn kind(letter: &str) -> UnitType {
    match letter {
        "A" => UnitType::Army,
        "F" => UnitType::Fleet,
        other => panic!("unknown unit type {other}"),
    }
}

pub fn place(map: &Map, province_name: Option<&str>, coast_name: Option<&str>) -> Place {
    Place { province: province(map, province_name.expect("a place")), coast: coast(coast_name) }
}

pub fn unit(map: &Map, u: &UnitData) -> Unit {
    let k = kind(&u.kind);
    let region = map
        .region_for(k, province(map, &u.place), coast(u.coast.as_deref()))
        .unwrap_or_else(|| panic!("{} cannot stand in {}", u.kind, u.place));
    Unit { power: power(map, &u.power), kind: k, region }
}

/// The order as the judge takes it (the power that wrote it is [`OrderData::power`]).
pub fn order(map: &Map, o: &OrderData) -> Order<Place> {
    let at = || place(map, o.place.as_deref(), o.coast.as_deref());
    let unit = || UnitRef { kind: o.unit_type.as_deref().map(kind), at: at() };
    let target = || UnitRef {
        kind: o.target_type.as_deref().map(kind),
        at: place(map, o.target_place.as_deref(), o.target_coast.as_deref()),
    };
    let to = || place(map, o.to.as_deref(), o.to_coast.as_deref());
    match o.kind.as_str() {
        "hold" => Order::Hold { unit: unit() },
        "move" => Order::Move { unit: unit(), to: to(), via_convoy: o.via_convoy },
        "retreat" => Order::Retreat { unit: unit(), to: to() },
        "support_hold" => Order::SupportHold { unit: unit(), supported: target() },
        "support_move" => Order::SupportMove { unit: unit(), supported: target(), to: to() },
        "convoy" => Order::Convoy { unit: unit(), army: target(), to: to() },
        "disband" | "remove" => Order::Disband { unit: unit() },
        "build" => Order::Build { kind: o.unit_type.as_deref().map(kind), at: at() },
        "waive" => Order::Waive,
        other => panic!("unknown order kind {other}"),
    }
}

/// A movement phase as the judge runs it: the written orders checked for legality and
/// settled to one per unit, then adjudicated.
pub fn adjudicate(
    map: &Map,
    units: &[Unit],
    orders: &[OrderData],
    rulebook: &Rulebook,
) -> (PhaseOrders, MovementResult) {
    let written: Vec<WrittenOrder> =
        orders.iter().map(|o| WrittenOrder { power: Some(power(map, &o.power)), order: order(map, o) }).collect();
    let phase = collect_orders(map, units, &written, rulebook);
    let result = adjudicate_movement(map, units, &phase.orders, rulebook);
    (phase, result)
}

/// Each order of a movement phase whose result is not the one expected, with what happened
/// to it instead (an illegal order fails). Orders with no expected result are not checked.
pub fn unexpected_results(
    map: &Map,
    units: &[Unit],
    orders: &[OrderData],
    phase: &PhaseOrders,
    result: &MovementResult,
) -> Vec<String> {
    let mut failures = Vec::new();
    for (o, w) in orders.iter().zip(&phase.written) {
        let (succeeded, why) = match w {
            Ok(i) => (result.outcomes[*i].succeeded, result.outcomes[*i].reason.describe(map, units, &phase.orders)),
            Err(e) => (false, format!("illegal: {}", e.describe(map))),
        };
        if let Some(expect) = &o.expect {
            if succeeded != (expect == "succeeds") {
                failures.push(format!("{}: expected {expect}, got {why}", o.text));
            }
        }
    }
    failures
}
