//! A seeded generator of random movement phases, for benchmarks and property tests.
//!
//! The same seed always gives the same phase. Phases are built to interact: moves lean
//! towards occupied provinces, most supports back a move or a hold that was really
//! ordered, and fleets at sea convoy neighbouring armies, so bounces, cuts,
//! dislodgements, head-to-head battles and convoys all happen. Every order is legal.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::diplomacy::judge::legality::{collect_orders, MainOrder, WrittenOrder};
use crate::diplomacy::judge::rulebook::Rulebook;
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, PowerId, ProvinceId, Terrain, UnitType};
use crate::diplomacy::order::{Order, Place, UnitRef};

/// A random phase: the units, the orders as written (one per unit), and the same orders
/// resolved, ready for the adjudicator.
#[derive(Clone, Debug)]
pub struct RandomPhase {
    pub units: Vec<Unit>,
    pub written: Vec<WrittenOrder>,
    pub orders: Vec<MainOrder>,
}

impl RandomPhase {
    /// The phase as a `shadowjudge resolve` input line.
    pub fn to_json_line(&self, map: &Map, id: &str) -> String {
        let units: Vec<serde_json::Value> = self
            .units
            .iter()
            .map(|u| {
                serde_json::json!({
                    "power": map.power(u.power).name.to_uppercase(),
                    "type": u.kind.letter().to_string(),
                    "loc": map.region_name(u.region).to_uppercase(),
                })
            })
            .collect();
        let orders: Vec<String> = self
            .written
            .iter()
            .map(|w| {
                let power = w.power.map(|p| format!("{}: ", map.power(p).name.to_uppercase())).unwrap_or_default();
                format!("{power}{}", w.order.canonical(map))
            })
            .collect();
        serde_json::json!({"id": id, "season": "spring", "units": units, "orders": orders}).to_string()
    }
}

fn place_of(map: &Map, region: crate::diplomacy::map::RegionId) -> Place {
    Place { province: map.province_of(region), coast: map.region(region).coast }
}

/// A random phase of 10 to 34 units on `map` from `seed`.
pub fn random_phase(map: &Map, seed: u64) -> RandomPhase {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut provinces: Vec<ProvinceId> = map.province_ids().filter(|p| !map.province(*p).impassable).collect();
    provinces.shuffle(&mut rng);
    let n = rng.gen_range(10..=34).min(provinces.len());
    let powers = map.powers().len().max(1);
    let mut units = Vec::with_capacity(n);
    for &p in &provinces[..n] {
        let province = map.province(p);
        let kind = match province.terrain {
            Terrain::Sea => UnitType::Fleet,
            Terrain::Land => UnitType::Army,
            Terrain::Coast => {
                if rng.gen_bool(0.5) {
                    UnitType::Fleet
                } else {
                    UnitType::Army
                }
            }
        };
        let region = match kind {
            UnitType::Fleet if !province.coasts.is_empty() => *province.coasts.choose(&mut rng).expect("coasts"),
            _ => province.main_region,
        };
        if !map.unit_can_stand(kind, region) {
            continue;
        }
        units.push(Unit { power: PowerId(rng.gen_range(0..powers) as u8), kind, region });
    }
    let unit_at = |p: ProvinceId| units.iter().position(|u| map.province_of(u.region) == p);
    let unit_ref = |u: &Unit| UnitRef { kind: Some(u.kind), at: place_of(map, u.region) };
    let mut order: Vec<Option<Order<Place>>> = vec![None; units.len()];
    // Convoys first: a fleet at sea carries a neighbouring army to another coast it touches.
    for f in 0..units.len() {
        let fleet = units[f];
        let fp = map.province_of(fleet.region);
        if fleet.kind != UnitType::Fleet || map.province(fp).terrain != Terrain::Sea || !rng.gen_bool(0.35) {
            continue;
        }
        let coasts: Vec<ProvinceId> = map
            .province_ids()
            .filter(|q| map.province(*q).terrain == Terrain::Coast && map.provinces_adjacent(fp, *q))
            .collect();
        let armies: Vec<usize> = coasts
            .iter()
            .filter_map(|q| unit_at(*q))
            .filter(|&a| units[a].kind == UnitType::Army && order[a].is_none())
            .collect();
        let (Some(&a), Some(&to)) = (armies.choose(&mut rng), coasts.choose(&mut rng)) else { continue };
        if map.province_of(units[a].region) == to {
            continue;
        }
        let dest = Place { province: to, coast: None };
        order[a] = Some(Order::Move { unit: unit_ref(&units[a]), to: dest, via_convoy: false });
        order[f] = Some(Order::Convoy { unit: unit_ref(&fleet), army: unit_ref(&units[a]), to: dest });
    }
    // Moves and holds, leaning towards occupied provinces.
    for i in 0..units.len() {
        if order[i].is_some() {
            continue;
        }
        let u = units[i];
        let neighbours: Vec<_> = map.neighbours(u.kind, u.region).collect();
        if neighbours.is_empty() || rng.gen_bool(0.45) {
            continue;
        }
        let occupied: Vec<_> = neighbours.iter().copied().filter(|r| unit_at(map.province_of(*r)).is_some()).collect();
        let pool = if !occupied.is_empty() && rng.gen_bool(0.5) { &occupied } else { &neighbours };
        let to = *pool.choose(&mut rng).expect("neighbours");
        order[i] = Some(Order::Move { unit: unit_ref(&u), to: place_of(map, to), via_convoy: false });
    }
    // The rest support a neighbour's move or hold, or hold.
    for i in 0..units.len() {
        if order[i].is_some() {
            continue;
        }
        let u = units[i];
        let mut choices: Vec<Order<Place>> = Vec::new();
        for (j, o) in order.iter().enumerate() {
            if j == i {
                continue;
            }
            let v = units[j];
            match o {
                Some(Order::Move { to, .. }) => {
                    if to.province != map.province_of(u.region) && map.can_reach_province(u.kind, u.region, to.province)
                    {
                        choices.push(Order::SupportMove { unit: unit_ref(&u), supported: unit_ref(&v), to: *to });
                    }
                }
                _ => {
                    if map.can_reach_province(u.kind, u.region, map.province_of(v.region)) {
                        choices.push(Order::SupportHold { unit: unit_ref(&u), supported: unit_ref(&v) });
                    }
                }
            }
        }
        order[i] = Some(match choices.choose(&mut rng) {
            Some(o) if rng.gen_bool(0.85) => *o,
            _ => Order::Hold { unit: unit_ref(&u) },
        });
    }
    let written: Vec<WrittenOrder> = units
        .iter()
        .zip(order)
        .map(|(u, o)| WrittenOrder { power: Some(u.power), order: o.unwrap_or(Order::Hold { unit: unit_ref(u) }) })
        .collect();
    let orders = collect_orders(map, &units, &written, &Rulebook::default()).orders;
    RandomPhase { units, written, orders }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diplomacy::judge::adjudicate_movement;

    #[test]
    fn phases_are_reproducible_and_interact() {
        let map = Map::standard();
        let a = random_phase(&map, 7);
        let b = random_phase(&map, 7);
        assert_eq!(a.units, b.units);
        assert_eq!(a.orders, b.orders);
        let (mut moved, mut dislodged, mut convoys) = (0, 0, 0);
        for seed in 0..200 {
            let p = random_phase(&map, seed);
            assert!((10..=34).contains(&p.units.len()));
            let r = adjudicate_movement(&map, &p.units, &p.orders, &Rulebook::default());
            moved += r.outcomes.iter().filter(|o| o.reason == crate::diplomacy::judge::Reason::Moved).count();
            dislodged += r.dislodged.len();
            convoys += p.orders.iter().filter(|o| matches!(o, MainOrder::Convoy { .. })).count();
        }
        assert!(moved > 200 && dislodged > 20 && convoys > 20, "{moved} {dislodged} {convoys}");
    }
}
