//! Who reaches what, as sets of provinces made once per map: the tables that find every
//! order a unit could be given ([`crate::diplomacy::judge::possible`]) without asking the
//! map one province at a time.
//!
//! A set of provinces is a slice of `u64` words, bit `p` for province `p`; every set of
//! one map has [`Reach::words`] words.

use super::{Map, ProvinceId, RegionId, Terrain, UnitType};

/// The reach tables of one map (see [`Map::reach`]).
#[derive(Clone, Debug)]
pub struct Reach {
    words: usize,
    regions: usize,
    /// Per unit type and region: the provinces a unit there can move to in one step.
    moves: Vec<u64>,
    /// Per province: the provinces it shares a border with.
    adjacent: Vec<u64>,
    /// Coastal provinces where an army can stand: where a convoy can land.
    landings: Vec<u64>,
    /// Coastal provinces.
    coasts: Vec<u64>,
    /// Sea provinces.
    seas: Vec<u64>,
    /// Per unit type and region: the regions a unit there can move to, in the order of
    /// their ids, from `first_neighbour[row]` to `first_neighbour[row + 1]`.
    neighbours: Vec<RegionId>,
    first_neighbour: Vec<u32>,
}

impl Reach {
    pub(super) fn new(map: &Map) -> Reach {
        let provinces = map.provinces().len();
        let regions = map.region_count();
        let words = provinces.div_ceil(64).max(1);
        let mut reach = Reach {
            words,
            regions,
            moves: vec![0; 2 * regions * words],
            adjacent: vec![0; provinces * words],
            landings: vec![0; words],
            coasts: vec![0; words],
            seas: vec![0; words],
            neighbours: Vec::new(),
            first_neighbour: vec![0],
        };
        for (k, kind) in [UnitType::Army, UnitType::Fleet].into_iter().enumerate() {
            for r in 0..regions {
                let row = (k * regions + r) * words;
                for to in map.neighbours(kind, RegionId(r as u16)) {
                    insert(&mut reach.moves[row..row + words], map.province_of(to));
                    reach.neighbours.push(to);
                }
                reach.first_neighbour.push(reach.neighbours.len() as u32);
            }
        }
        for a in map.province_ids() {
            let row = a.0 as usize * words;
            for b in map.province_ids().filter(|b| map.provinces_adjacent(a, *b)) {
                insert(&mut reach.adjacent[row..row + words], b);
            }
            let p = map.province(a);
            if p.terrain == Terrain::Sea {
                insert(&mut reach.seas, a);
            }
            if p.terrain == Terrain::Coast {
                insert(&mut reach.coasts, a);
                if map.region(p.main_region).army_can_stand {
                    insert(&mut reach.landings, a);
                }
            }
        }
        reach
    }

    /// Words in each set of this map.
    pub fn words(&self) -> usize {
        self.words
    }

    /// The provinces a unit of `kind` in `region` can move to in one step (as
    /// [`Map::can_reach_province`] says).
    pub fn moves(&self, kind: UnitType, region: RegionId) -> &[u64] {
        let row = (usize::from(kind == UnitType::Fleet) * self.regions + region.0 as usize) * self.words;
        &self.moves[row..row + self.words]
    }

    /// The regions a unit of `kind` in `region` can move to, in the order of their ids
    /// (as [`Map::neighbours`] lists them).
    pub fn neighbours(&self, kind: UnitType, region: RegionId) -> &[RegionId] {
        let row = usize::from(kind == UnitType::Fleet) * self.regions + region.0 as usize;
        &self.neighbours[self.first_neighbour[row] as usize..self.first_neighbour[row + 1] as usize]
    }

    /// The provinces sharing a border with `p` (as [`Map::provinces_adjacent`] says).
    pub fn adjacent(&self, p: ProvinceId) -> &[u64] {
        let row = p.0 as usize * self.words;
        &self.adjacent[row..row + self.words]
    }

    /// Coastal provinces where an army can stand.
    pub fn landings(&self) -> &[u64] {
        &self.landings
    }

    /// Coastal provinces.
    pub fn coasts(&self) -> &[u64] {
        &self.coasts
    }

    /// Sea provinces.
    pub fn seas(&self) -> &[u64] {
        &self.seas
    }
}

/// Is `p` in the set?
pub fn contains(set: &[u64], p: ProvinceId) -> bool {
    let i = p.0 as usize;
    set.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// Put `p` in the set.
pub fn insert(set: &mut [u64], p: ProvinceId) {
    let i = p.0 as usize;
    set[i / 64] |= 1 << (i % 64);
}

/// Take `p` out of the set.
pub fn remove(set: &mut [u64], p: ProvinceId) {
    let i = p.0 as usize;
    set[i / 64] &= !(1 << (i % 64));
}

/// The provinces of the set, in the order of their ids.
pub fn members(set: &[u64]) -> impl Iterator<Item = ProvinceId> + '_ {
    set.iter().enumerate().flat_map(|(i, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            (w != 0).then(|| {
                let bit = w.trailing_zeros() as usize;
                w &= w - 1;
                ProvinceId((i * 64 + bit) as u16)
            })
        })
    })
}

/// Do the two sets share a province?
pub fn meets(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).any(|(x, y)| x & y != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_say_what_the_map_says() {
        let map = Map::standard();
        let reach = map.reach();
        for kind in [UnitType::Army, UnitType::Fleet] {
            for r in 0..map.region_count() {
                let r = RegionId(r as u16);
                for p in map.province_ids() {
                    assert_eq!(contains(reach.moves(kind, r), p), map.can_reach_province(kind, r, p));
                }
                assert_eq!(reach.neighbours(kind, r), map.neighbours(kind, r).collect::<Vec<_>>());
            }
        }
        for a in map.province_ids() {
            let listed: Vec<ProvinceId> = members(reach.adjacent(a)).collect();
            let adjacent: Vec<ProvinceId> = map.province_ids().filter(|b| map.provinces_adjacent(a, *b)).collect();
            assert_eq!(listed, adjacent);
        }
        let coast = |s: &str| map.lookup_province(s).unwrap();
        assert!(contains(reach.landings(), coast("bre")));
        assert!(!contains(reach.landings(), coast("par")));
        assert!(!contains(reach.coasts(), coast("nth")));
        for p in map.province_ids() {
            assert_eq!(contains(reach.seas(), p), map.province(p).terrain == Terrain::Sea);
        }
    }

    #[test]
    fn a_set_lists_its_members_in_order() {
        let mut set = vec![0u64; 2];
        for p in [75, 3, 64, 0, 63] {
            insert(&mut set, ProvinceId(p));
        }
        remove(&mut set, ProvinceId(3));
        assert_eq!(members(&set).map(|p| p.0).collect::<Vec<_>>(), vec![0, 63, 64, 75]);
        assert!(contains(&set, ProvinceId(64)) && !contains(&set, ProvinceId(3)));
        assert!(meets(&set, &[0, 1 << 11]) && !meets(&set, &[2, 0]));
    }
}
