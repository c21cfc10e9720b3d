//! The map checker: what a playable map needs beyond what the loader refuses.
//!
//! The loader already refuses unknown names, asymmetric borders, fleets inland and units
//! where they cannot stand. This checks the map as a game: every coast has water, every
//! province and center can be reached from the starting units, each power starts on its
//! own home centers, one unit to a province, and victory is possible for one power only.
//! `shadowjudge map check` prints it; every shipped variant passes it (tested).

use std::collections::VecDeque;

use super::{Map, Terrain};

/// Every problem found, one sentence each; empty when the map is sound.
pub fn check(map: &Map) -> Vec<String> {
    let mut problems = Vec::new();
    let name = |r| map.region_name(r);
    // Coasts with water, seas with borders.
    for p in map.provinces().iter().filter(|p| !p.impassable) {
        let fleet_regions = if p.coasts.is_empty() { vec![p.main_region] } else { p.coasts.clone() };
        if p.terrain == Terrain::Land {
            continue;
        }
        for r in fleet_regions {
            if map.neighbours(super::UnitType::Fleet, r).next().is_none() {
                let what = if p.terrain == Terrain::Sea { "a sea" } else { "a coast" };
                problems.push(format!("{} ({}) is {what} without a fleet border", name(r), p.name));
            }
        }
    }
    // Every province reached from a starting unit, by any border.
    let n = map.provinces().len();
    let mut reached = vec![false; n];
    let mut queue = VecDeque::new();
    for power in map.powers() {
        for &(_, region) in &power.starting_units {
            let p = map.province_of(region);
            if !reached[p.0 as usize] {
                reached[p.0 as usize] = true;
                queue.push_back(p);
            }
        }
    }
    while let Some(p) = queue.pop_front() {
        for q in map.province_ids() {
            if !reached[q.0 as usize] && map.provinces_adjacent(p, q) {
                reached[q.0 as usize] = true;
                queue.push_back(q);
            }
        }
    }
    for (i, p) in map.provinces().iter().enumerate() {
        if !reached[i] && !p.impassable {
            let what = if p.supply_center { "supply center" } else { "province" };
            problems.push(format!("the {what} {} ({}) cannot be reached from any starting unit", p.key, p.name));
        }
    }
    // Each power: home centers, and its units on them, one to a province.
    let mut occupied = vec![None; n];
    for power in map.powers() {
        if power.home_centers.is_empty() {
            problems.push(format!("{} has no home center, so it can never build", power.name));
        }
        if power.starting_units.is_empty() {
            problems.push(format!("{} has no starting unit", power.name));
        }
        for &(unit, region) in &power.starting_units {
            let p = map.province_of(region);
            if let Some(other) = occupied[p.0 as usize].replace(&power.name) {
                problems.push(format!("{} and {} both start a unit in {}", other, power.name, map.province(p).key));
            }
            if !power.home_centers.contains(&p) {
                problems.push(format!(
                    "{}'s starting {} {} is not on one of its home centers",
                    power.name,
                    unit.letter(),
                    name(region)
                ));
            }
        }
    }
    // Victory: reachable, and by one power at a time.
    let centers = map.supply_centers().count();
    if map.victory_centers * 2 <= centers {
        problems.push(format!(
            "victory at {} of {centers} centers lets two powers reach it at once (make it more than half)",
            map.victory_centers
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_variant_passes_and_a_broken_map_is_told_what_is_wrong() {
        for v in super::super::shipped::VARIANTS {
            let map = v.build().unwrap();
            assert_eq!(check(&map), Vec::<String>::new(), "{}", v.name);
        }
        // Pure with Vienna cut off from the rest, Vienna's army in Rome, and victory at 3.
        let text = include_str!("../../../maps/pure/map.toml")
            .replace("victory_centers = 4", "victory_centers = 3")
            .replace("units = [\"A vie\"]", "units = [\"A rom\"]")
            .replace("units = [\"A rom\"]\n\n[powers.russia]", "units = []\n\n[powers.russia]")
            .replace(", \"vie\"]", "]")
            .replace("army = [\"ber\", \"con\", \"lon\", \"mos\", \"par\", \"rom\"]", "army = []");
        let map = Map::from_toml(&text, "broken.toml").unwrap();
        let problems = check(&map);
        for want in [
            "the supply center vie (Vienna) cannot be reached from any starting unit",
            "Italy has no starting unit",
            "Austria's starting A rom is not on one of its home centers",
            "victory at 3 of 7 centers lets two powers reach it at once (make it more than half)",
        ] {
            assert!(problems.iter().any(|p| p == want), "{want}\n{problems:#?}");
        }
    }
}
