//! The orders found from the position against the orders found by asking the judge: its
//! legality check of every candidate support and convoy, and a preview of each Winter
//! order alone, over random games of both variants and random crowded boards.

use std::collections::HashSet;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::diplomacy::judge::legality::UnitIndex;
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, RegionId, Terrain};
use crate::diplomacy::order::grammar::ParsedOrder;
use crate::diplomacy::order::{Order, UnitRef};
use crate::diplomacy::state::{BoardState, GameState, StoredOrder};
use crate::game::settings::{Settings, VariantKind};

/// One place's orders, as a list of their own.
#[derive(Debug, PartialEq, Eq)]
struct Listed {
    power: PowerId,
    board: Board,
    place: ProvinceId,
    orders: Vec<Possible>,
}

/// The orders found from the position, place by place.
fn found(g: &Game, powers: &[PowerId]) -> Vec<Listed> {
    let all = g.possible_orders(powers);
    all.iter()
        .map(|(p, orders)| Listed { power: p.power, board: p.board, place: p.place, orders: orders.to_vec() })
        .collect()
}

/// The orders as found by asking the judge about each candidate (the way the Python
/// package found them before).
fn asked(g: &Game, powers: &[PowerId]) -> Vec<Listed> {
    let mut out = Vec::new();
    if g.state.end.is_some() {
        return out;
    }
    match g.state.phase.kind {
        PhaseKind::Movement => {
            for (b, state) in g.state.boards.iter().enumerate() {
                asked_movement(g, Board(b as u8), state, powers, &mut out);
            }
        }
        PhaseKind::Retreats => {
            for (b, state) in g.state.boards.iter().enumerate() {
                for r in state.retreating.iter().filter(|r| powers.contains(&r.dislodgement.unit.power)) {
                    let u = r.dislodgement.unit;
                    let mut orders: Vec<Possible> =
                        r.options.iter().map(|o| Possible::Retreat(u.kind, u.region, *o)).collect();
                    orders.push(Possible::Disband(u.kind, u.region));
                    let place = g.map.province_of(u.region);
                    out.push(Listed { power: u.power, board: Board(b as u8), place, orders });
                }
            }
        }
        PhaseKind::Adjustments => {
            for &p in powers.iter().filter(|p| g.has_duty(**p)) {
                asked_winter(g, p, &mut out);
            }
        }
    }
    out
}

/// The seas a convoy of the army in `from` could pass through, and the coasts it could
/// land on.
fn convoy_reach(
    map: &Map,
    fleets_at_sea: &HashSet<ProvinceId>,
    from: ProvinceId,
) -> (HashSet<ProvinceId>, Vec<ProvinceId>) {
    let mut seas: HashSet<ProvinceId> = HashSet::new();
    let mut stack: Vec<ProvinceId> =
        fleets_at_sea.iter().copied().filter(|s| map.provinces_adjacent(from, *s)).collect();
    while let Some(s) = stack.pop() {
        if seas.insert(s) {
            stack.extend(fleets_at_sea.iter().copied().filter(|t| !seas.contains(t) && map.provinces_adjacent(s, *t)));
        }
    }
    let mut coasts: Vec<ProvinceId> = map
        .province_ids()
        .filter(|c| *c != from && map.province(*c).terrain == Terrain::Coast)
        .filter(|c| map.region(map.province(*c).main_region).army_can_stand)
        .filter(|c| seas.iter().any(|s| map.provinces_adjacent(*s, *c)))
        .collect();
    coasts.sort();
    (seas, coasts)
}

fn asked_movement(g: &Game, board: Board, state: &BoardState, powers: &[PowerId], out: &mut Vec<Listed>) {
    let map: &Map = &g.map;
    let rules = &g.settings.rules;
    let fleets_at_sea: HashSet<ProvinceId> = state
        .units
        .iter()
        .filter(|u| u.kind == UnitType::Fleet)
        .map(|u| map.province_of(u.region))
        .filter(|p| map.province(*p).terrain == Terrain::Sea)
        .collect();
    let convoys: Vec<Option<(HashSet<ProvinceId>, Vec<ProvinceId>)>> = state
        .units
        .iter()
        .map(|u| {
            let at = map.province_of(u.region);
            (u.kind == UnitType::Army && map.province(at).terrain == Terrain::Coast && !fleets_at_sea.is_empty())
                .then(|| convoy_reach(map, &fleets_at_sea, at))
        })
        .collect();
    let reach: Vec<Vec<ProvinceId>> = state
        .units
        .iter()
        .zip(&convoys)
        .map(|(u, c)| {
            let mut to: Vec<ProvinceId> = map.neighbours(u.kind, u.region).map(|r| map.province_of(r)).collect();
            if let Some((_, coasts)) = c {
                to.extend(coasts);
            }
            to.sort();
            to.dedup();
            to
        })
        .collect();
    let index = UnitIndex::new(map, &state.units);
    let whole = |p: ProvinceId| Place { province: p, coast: None };
    let unit_ref = |u: &Unit| UnitRef {
        kind: Some(u.kind),
        at: Place { province: map.province_of(u.region), coast: map.region(u.region).coast },
    };
    for (i, u) in state.units.iter().enumerate().filter(|(_, u)| powers.contains(&u.power)) {
        let me = unit_ref(u);
        let at = me.at.province;
        let legal = |o: &Order<Place>| index.resolve_main_order(Some(u.power), o, rules).is_ok();
        let (k, r) = (u.kind, u.region);
        let can_reach = |p: ProvinceId| map.can_reach_province(k, r, p);
        let mut list = vec![Possible::Hold(k, r)];
        for to in map.neighbours(u.kind, u.region) {
            list.push(Possible::Move(k, r, to));
        }
        if let Some((_, coasts)) = &convoys[i] {
            for &c in coasts {
                if legal(&Order::Move { unit: me, to: whole(c), via_convoy: true }) {
                    list.push(Possible::Via(k, r, c));
                }
            }
        }
        for (j, v) in state.units.iter().enumerate().filter(|(j, _)| *j != i) {
            let supported = unit_ref(v);
            if can_reach(supported.at.province) && legal(&Order::SupportHold { unit: me, supported }) {
                list.push(Possible::SupportHold(k, r, v.kind, v.region));
            }
            for &to in reach[j].iter().filter(|to| **to != at && can_reach(**to)) {
                if legal(&Order::SupportMove { unit: me, supported, to: whole(to) }) {
                    list.push(Possible::SupportMove(k, r, v.kind, v.region, to));
                }
            }
            if u.kind == UnitType::Fleet && map.province(at).terrain == Terrain::Sea {
                if let Some((seas, coasts)) = &convoys[j] {
                    if seas.contains(&at) {
                        for &c in coasts {
                            if legal(&Order::Convoy { unit: me, army: supported, to: whole(c) }) {
                                list.push(Possible::Convoy(k, r, v.kind, v.region, c));
                            }
                        }
                    }
                }
            }
        }
        out.push(Listed { power: u.power, board, place: at, orders: list });
    }
}

/// Every build, removal and waive the judge's preview accepts from this power alone.
fn asked_winter(g: &Game, power: PowerId, out: &mut Vec<Listed>) {
    let map: &Map = &g.map;
    let boards = g.state.boards.len();
    let mut candidates: Vec<((Board, ProvinceId), Possible, Order<Place>)> = Vec::new();
    for b in 0..boards {
        let board = Board(b as u8);
        let state = &g.state.boards[b];
        for h in map.build_sites(power) {
            if state.units.iter().any(|u| map.province_of(u.region) == h) {
                continue;
            }
            for r in map.regions_of(h) {
                for kind in [UnitType::Army, UnitType::Fleet] {
                    if map.unit_can_stand(kind, r) {
                        let at = Place { province: h, coast: map.region(r).coast };
                        candidates.push(((board, h), Possible::Build(kind, r), Order::Build { kind: Some(kind), at }));
                    }
                }
            }
        }
        for u in state.units.iter().filter(|u| u.power == power) {
            let at = Place { province: map.province_of(u.region), coast: map.region(u.region).coast };
            let order = Order::Disband { unit: UnitRef { kind: Some(u.kind), at } };
            candidates.push(((board, at.province), Possible::Disband(u.kind, u.region), order));
        }
    }
    let shadow = boards > 1;
    let accepted = |order: Order<Place>, board: Option<Board>| {
        let po = ParsedOrder { order, power: None, board, line: 1, span: 0..0 };
        g.check_order(power, &po).is_ok() && g.preview_winter(power, &[&po]).first().is_some_and(|(ok, _)| *ok)
    };
    let waive = accepted(Order::Waive, None);
    let mut places: Vec<((Board, ProvinceId), Vec<Possible>)> = Vec::new();
    for (place, text, order) in candidates {
        if !accepted(order, shadow.then_some(place.0)) {
            continue;
        }
        match places.iter_mut().find(|(l, _)| *l == place) {
            Some((_, list)) => list.push(text),
            None => places.push((place, vec![text])),
        }
    }
    for ((board, place), mut orders) in places {
        if waive && orders.iter().any(|o| matches!(o, Possible::Build(..))) {
            orders.push(Possible::Waive);
        }
        out.push(Listed { power, board, place, orders });
    }
}

fn new_game(variant: VariantKind) -> Game {
    game_on(Map::standard(), variant)
}

fn game_on(map: Map, variant: VariantKind) -> Game {
    let state = GameState::start(&map, variant.boards());
    Game::new(Settings::new("t", variant), map, state)
}

/// Orders drawn from the possible ones: mostly moves, many supports of the moves chosen
/// (so units are dislodged and retreat), some other orders, some places left without.
fn give_random_orders(g: &mut Game, possible: &[Listed], rng: &mut ChaCha8Rng) {
    let mut chosen: Vec<Option<Possible>> = vec![None; possible.len()];
    for (c, p) in chosen.iter_mut().zip(possible) {
        let moves: Vec<&Possible> =
            p.orders.iter().filter(|o| matches!(o, Possible::Move(..) | Possible::Via(..))).collect();
        if !moves.is_empty() && rng.gen_bool(0.5) {
            *c = Some(*moves[rng.gen_range(0..moves.len())]);
        }
    }
    let moved: Vec<(RegionId, ProvinceId)> = chosen
        .iter()
        .filter_map(|c| match c {
            Some(Possible::Move(_, r, to)) => Some((*r, g.map.province_of(*to))),
            Some(Possible::Via(_, r, to)) => Some((*r, *to)),
            _ => None,
        })
        .collect();
    for (c, p) in chosen.iter_mut().zip(possible).filter(|(c, _)| c.is_none()) {
        let helping: Vec<&Possible> = p
            .orders
            .iter()
            .filter(|o| matches!(o, Possible::SupportMove(_, _, _, r, to) if moved.contains(&(*r, *to))))
            .collect();
        if !helping.is_empty() && rng.gen_bool(0.8) {
            *c = Some(*helping[rng.gen_range(0..helping.len())]);
        } else if rng.gen_bool(0.8) {
            *c = Some(p.orders[rng.gen_range(0..p.orders.len())]);
        }
    }
    g.state.orders = chosen
        .into_iter()
        .zip(possible)
        .filter_map(|(c, p)| {
            let c = c?;
            let board = if c == Possible::Waive { Board::A } else { p.board };
            Some(StoredOrder { power: p.power, board, order: c.order(&g.map), text: String::new() })
        })
        .collect();
}

/// The same orders, place by place, in the same order.
fn assert_same(g: &Game, what: &str) {
    let powers: Vec<PowerId> = g.map.power_ids().collect();
    let found = found(g, &powers);
    let want = asked(g, &powers);
    assert_eq!(found, want, "{what}, {}", g.state.phase.code());
    // A power alone gets its own places, as among all (France on the standard map).
    let france = PowerId(2.min(g.map.powers().len() as u8 - 1));
    let alone = self::found(g, &[france]);
    let among: Vec<Listed> = found.into_iter().filter(|p| p.power == france).collect();
    assert_eq!(alone, among, "{what}, France alone");
}

#[test]
fn the_orders_found_are_the_orders_the_judge_accepts_in_random_games() {
    let mut kinds = [0usize; 3];
    for (variant, games) in [(VariantKind::Standard, 40), (VariantKind::ShadowWorlds, 25)] {
        for seed in 0..games {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut g = new_game(variant);
            for _ in 0..40 {
                if g.state.end.is_some() {
                    break;
                }
                kinds[g.state.phase.kind as usize] += 1;
                assert_same(&g, &format!("{variant:?} game {seed}"));
                let powers: Vec<PowerId> = g.map.power_ids().collect();
                let possible = found(&g, &powers);
                give_random_orders(&mut g, &possible, &mut rng);
                g.adjudicate();
            }
        }
    }
    assert!(kinds.iter().all(|k| *k >= 300), "every kind of phase, often: {kinds:?}");
}

/// Every shipped variant, alone and as Shadow Worlds: whole random games in which every
/// order found is one the judge accepts, units move, and centers change hands.
#[test]
fn every_shipped_variant_plays_whole_random_games() {
    for shipped in crate::diplomacy::map::shipped::VARIANTS {
        let map = shipped.build().unwrap();
        for (variant, games) in [(VariantKind::Standard, 6), (VariantKind::ShadowWorlds, 3)] {
            let (mut phases, mut captured, mut ended) = (0, 0, 0);
            for seed in 0..games {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let mut g = game_on(map.clone(), variant);
                assert_eq!(g.state.phase.year, map.first_year, "{}", shipped.name);
                let first_owners = g.state.boards[0].ownership.clone();
                for _ in 0..60 {
                    if g.state.end.is_some() {
                        ended += 1;
                        break;
                    }
                    phases += 1;
                    assert_same(&g, &format!("{} {variant:?} game {seed}", shipped.name));
                    let powers: Vec<PowerId> = g.map.power_ids().collect();
                    let possible = found(&g, &powers);
                    give_random_orders(&mut g, &possible, &mut rng);
                    g.adjudicate();
                }
                if g.state.boards[0].ownership != first_owners {
                    captured += 1;
                }
            }
            assert!(phases >= games * 20, "{} {variant:?}: {phases} phases", shipped.name);
            assert!(captured + ended >= games / 2, "{} {variant:?}: centers changed hands in {captured}", shipped.name);
        }
    }
}

#[test]
fn the_orders_found_are_the_orders_the_judge_accepts_on_crowded_boards() {
    // Random boards of 10 to 34 units, many fleets at sea: many convoys and supports of
    // convoyed moves.
    let mut convoys = 0;
    for seed in 0..1500 {
        let mut g = new_game(VariantKind::Standard);
        g.state.boards[0].units = crate::diplomacy::judge::random::random_phase(&g.map, seed).units;
        assert_same(&g, &format!("random board {seed}"));
        let powers: Vec<PowerId> = g.map.power_ids().collect();
        convoys += g.possible_orders(&powers).orders.iter().filter(|o| matches!(o, Possible::Convoy(..))).count();
    }
    assert!(convoys > 1000, "convoys were tried: {convoys}");
}
