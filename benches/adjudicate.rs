//! Movement adjudication speed (criterion; never a timed test).
//!
//! - `adjudicate/random_phases`: 10,000 seeded random phases on the standard map (10-34
//!   units, orders biased to interact), orders already resolved: adjudication only.
//! - `adjudicate/datc`: every movement case of DATC 6.A-6.G, orders already resolved.
//! - `resolve/*`: one JSON Lines case in, one result out, end to end, on the same 1,000
//!   random cases: `shadowjudge` (JSON, order grammar, legality, adjudication, JSON) against
//!   the crates.io `diplomacy` 0.2.0 crate (its order text parsed, units placed,
//!   adjudicated, outcomes written as JSON). The `diplomacy` crate is given the orders in
//!   its own notation, prepared outside the timing.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use diplomacy::judge::{MappedMainOrder, OrderState, Rulebook as TheirRules, Submission};
use diplomacy::UnitPosition;
use shadowjudge::diplomacy::judge::batch::BatchResolver;
use shadowjudge::diplomacy::judge::legality::{collect_orders, WrittenOrder};
use shadowjudge::diplomacy::judge::movement::{Adjudicator, MovementResult};
use shadowjudge::diplomacy::judge::random::{random_phase, RandomPhase};
use shadowjudge::diplomacy::judge::{Rulebook, Unit};
use shadowjudge::diplomacy::map::{Map, RegionId, UnitType};
use shadowjudge::diplomacy::order::grammar::parse_order_line;
use shadowjudge::diplomacy::order::Order;

const DATC: [&str; 7] = [
    include_str!("../tests/data/datc/6a.json"),
    include_str!("../tests/data/datc/6b.json"),
    include_str!("../tests/data/datc/6c.json"),
    include_str!("../tests/data/datc/6d.json"),
    include_str!("../tests/data/datc/6e.json"),
    include_str!("../tests/data/datc/6f.json"),
    include_str!("../tests/data/datc/6g.json"),
];

/// The DATC movement cases, resolved to units and orders by their own order text.
fn datc_phases(map: &Map) -> Vec<(Vec<Unit>, Vec<shadowjudge::diplomacy::judge::MainOrder>, Rulebook)> {
    let mut phases = Vec::new();
    for text in DATC {
        let file: serde_json::Value = serde_json::from_str(text).expect("DATC data");
        for case in file["cases"].as_array().expect("cases") {
            if case["phase"] != "movement" {
                continue;
            }
            let units: Vec<Unit> = case["units"]
                .as_array()
                .expect("units")
                .iter()
                .map(|u| {
                    let kind = if u["type"] == "A" { UnitType::Army } else { UnitType::Fleet };
                    let place = match u["coast"].as_str() {
                        Some(c) => format!("{}/{c}", u["place"].as_str().expect("place")),
                        None => u["place"].as_str().expect("place").to_string(),
                    };
                    let region = map.parse_region(&place).expect("region");
                    let region =
                        if kind == UnitType::Army { map.province(map.province_of(region)).main_region } else { region };
                    Unit { power: map.lookup_power(u["power"].as_str().expect("power")).expect("power"), kind, region }
                })
                .collect();
            let written: Vec<WrittenOrder> = case["orders"]
                .as_array()
                .expect("orders")
                .iter()
                .filter_map(|o| parse_order_line(o["text"].as_str().expect("text"), map).ok())
                .map(|(power, order)| WrittenOrder { power, order })
                .collect();
            let edition = shadowjudge::diplomacy::judge::Edition::parse(case["edition"].as_str().expect("edition"))
                .expect("edition");
            let rules = Rulebook::edition(edition);
            let orders = collect_orders(map, &units, &written, &rules).orders;
            phases.push((units, orders, rules));
        }
    }
    phases
}

fn their_region(map: &Map, r: RegionId) -> String {
    let region = map.region(r);
    let key = &map.province(region.province).key;
    match region.coast {
        Some(c) => format!("{key}({})", c.short()),
        None => key.clone(),
    }
}

/// The phase in the `diplomacy` crate's notation: unit positions and order lines.
fn their_notation(map: &Map, p: &RandomPhase) -> (Vec<String>, Vec<String>) {
    let nation = |u: &Unit| map.power(u.power).abbreviation.clone();
    let units =
        p.units.iter().map(|u| format!("{}: {} {}", nation(u), u.kind.letter(), their_region(map, u.region))).collect();
    let place = |pl: shadowjudge::diplomacy::order::Place| match pl.coast {
        Some(c) => format!("{}({})", map.province(pl.province).key, c.short()),
        None => map.province(pl.province).key.clone(),
    };
    let orders = p
        .written
        .iter()
        .zip(&p.units)
        .map(|(w, u)| {
            let head = format!("{}: {} {}", nation(u), u.kind.letter(), their_region(map, u.region));
            let letter = |k: Option<UnitType>| k.map(|k| k.letter()).unwrap_or('A');
            match w.order {
                Order::Move { to, via_convoy, .. } => {
                    format!("{head} -> {}{}", place(to), if via_convoy { " via convoy" } else { "" })
                }
                Order::SupportHold { supported, .. } => {
                    format!("{head} supports {} {}", letter(supported.kind), place(supported.at))
                }
                Order::SupportMove { supported, to, .. } => {
                    format!("{head} supports {} {} -> {}", letter(supported.kind), place(supported.at), place(to))
                }
                Order::Convoy { army, to, .. } => format!("{head} convoys {} -> {}", place(army.at), place(to)),
                _ => format!("{head} holds"),
            }
        })
        .collect();
    (units, orders)
}

/// The `diplomacy` crate end to end: parse, adjudicate, write the outcomes as JSON.
fn their_resolve(units: &[String], orders: &[String]) -> String {
    let map = diplomacy::geo::standard_map();
    let positions: Vec<UnitPosition<'static, diplomacy::geo::RegionKey>> =
        units.iter().filter_map(|u| u.parse().ok()).collect();
    let parsed: Vec<MappedMainOrder> = orders.iter().filter_map(|o| o.parse().ok()).collect();
    let submission = Submission::new(map, &positions, parsed);
    let outcome = submission.adjudicate(TheirRules::default());
    let results: Vec<(String, bool)> = submission
        .submitted_orders()
        .map(|o| (o.to_string(), outcome.get(o).map(|r| OrderState::from(r) == OrderState::Succeeds).unwrap_or(false)))
        .collect();
    serde_json::to_string(&results).expect("json")
}

fn benches(c: &mut Criterion) {
    let map = Map::standard();
    let rules = Rulebook::default();
    let phases: Vec<RandomPhase> = (0..10_000u64).map(|seed| random_phase(&map, seed)).collect();

    let mut group = c.benchmark_group("adjudicate");
    group.throughput(Throughput::Elements(phases.len() as u64));
    group.bench_function("random_phases", |b| {
        // The scratch space and the result are reused from phase to phase, as a batch does.
        let (mut adjudicator, mut result) = (Adjudicator::default(), MovementResult::default());
        b.iter(|| {
            for p in &phases {
                adjudicator.adjudicate_into(&map, &p.units, &p.orders, &rules, &mut result);
                black_box(result.units_after.len());
            }
        })
    });
    let datc = datc_phases(&map);
    group.throughput(Throughput::Elements(datc.len() as u64));
    group.bench_function("datc", |b| {
        let (mut adjudicator, mut result) = (Adjudicator::default(), MovementResult::default());
        b.iter(|| {
            for (units, orders, rules) in &datc {
                adjudicator.adjudicate_into(&map, units, orders, rules, &mut result);
                black_box(result.units_after.len());
            }
        })
    });
    group.finish();

    let cases = &phases[..1_000];
    let lines: Vec<String> = cases.iter().enumerate().map(|(i, p)| p.to_json_line(&map, &format!("r{i}"))).collect();
    let theirs: Vec<(Vec<String>, Vec<String>)> = cases.iter().map(|p| their_notation(&map, p)).collect();
    let mut group = c.benchmark_group("resolve");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("shadowjudge", |b| {
        // As `shadowjudge resolve` runs: every output line appended to one buffer.
        let mut resolver = BatchResolver::new(&map, rules.clone());
        let mut out = String::new();
        b.iter(|| {
            out.clear();
            for line in &lines {
                resolver.resolve_line_into(line, &mut out);
                out.push('\n');
            }
            black_box(out.len())
        })
    });
    group.bench_function("diplomacy-0.2.0", |b| {
        b.iter(|| {
            for (units, orders) in &theirs {
                black_box(their_resolve(units, orders));
            }
        })
    });
    group.finish();
}

criterion_group!(adjudicate, benches);
criterion_main!(adjudicate);
