//! Geography: provinces, coasts, borders, supply centers and powers.
//!
//! A map is data (`maps/*.toml`), loaded and validated by [`Map::from_toml`], and turned
//! into integer ids and flat adjacency tables so the judge never hashes or allocates to
//! ask "can this unit go there?". A petgraph graph of the same borders serves the
//! questions that walk the map (distances for civil disorder, listings).
//!
//! This module knows nothing of orders, units in play or the moves of the powers.

pub mod cache;
pub mod check;
mod load;
pub mod reach;
pub mod shipped;
pub use load::{MAX_MAP_BYTES, MAX_REGIONS};

use std::collections::HashMap;
use std::fmt;

use petgraph::graph::{NodeIndex, UnGraph};
use serde::{Deserialize, Serialize};

pub use load::MapError;

/// The standard map, compiled into the binary so the judge runs without its data folder.
pub const STANDARD_TOML: &str = include_str!("../../../maps/standard/map.toml");

/// A power (a country) by its index in the map's power list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PowerId(pub u8);

/// A province (a space on the board) by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProvinceId(pub u16);

/// A region: a place one unit can stand. A province without split coasts is one region;
/// a province with split coasts is one region for armies plus one per coast for fleets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RegionId(pub u16);

/// A named coast of a province with split coasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Coast {
    North,
    South,
    East,
    West,
}

impl Coast {
    /// The two-letter form used in canonical orders: `nc`, `sc`, `ec`, `wc`.
    pub fn short(self) -> &'static str {
        match self {
            Coast::North => "nc",
            Coast::South => "sc",
            Coast::East => "ec",
            Coast::West => "wc",
        }
    }

    pub fn from_short(s: &str) -> Option<Coast> {
        match s.to_ascii_lowercase().as_str() {
            "nc" | "n" | "north" | "north coast" => Some(Coast::North),
            "sc" | "s" | "south" | "south coast" => Some(Coast::South),
            "ec" | "e" | "east" | "east coast" => Some(Coast::East),
            "wc" | "w" | "west" | "west coast" => Some(Coast::West),
            _ => None,
        }
    }
}

impl fmt::Display for Coast {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Terrain {
    Land,
    Sea,
    Coast,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum UnitType {
    Army,
    Fleet,
}

impl UnitType {
    /// `A` or `F`.
    pub fn letter(self) -> char {
        match self {
            UnitType::Army => 'A',
            UnitType::Fleet => 'F',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            UnitType::Army => "army",
            UnitType::Fleet => "fleet",
        }
    }
}

impl fmt::Display for UnitType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Which units may cross a border (a bit set: armies, fleets or both).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Crossing(u8);

impl Crossing {
    pub const NONE: Crossing = Crossing(0);
    pub const ARMY: Crossing = Crossing(1);
    pub const FLEET: Crossing = Crossing(2);

    pub fn allows(self, unit: UnitType) -> bool {
        match unit {
            UnitType::Army => self.0 & 1 != 0,
            UnitType::Fleet => self.0 & 2 != 0,
        }
    }

    fn with(self, other: Crossing) -> Crossing {
        Crossing(self.0 | other.0)
    }
}

#[derive(Clone, Debug)]
pub struct Power {
    /// The key in the map file, lower case (`france`).
    pub key: String,
    pub name: String,
    pub adjective: String,
    /// Three upper-case letters (`FRA`).
    pub abbreviation: String,
    pub home_centers: Vec<ProvinceId>,
    pub starting_units: Vec<(UnitType, RegionId)>,
}

#[derive(Clone, Debug)]
pub struct Province {
    /// The short name, lower case (`stp`).
    pub key: String,
    pub name: String,
    pub terrain: Terrain,
    pub supply_center: bool,
    /// The power whose home center this is.
    pub home: Option<PowerId>,
    pub impassable: bool,
    /// The region armies stand in (and fleets, unless the province has split coasts).
    pub main_region: RegionId,
    /// The coast regions of a province with split coasts; empty otherwise.
    pub coasts: Vec<RegionId>,
}

#[derive(Clone, Debug)]
pub struct Region {
    pub province: ProvinceId,
    pub coast: Option<Coast>,
    pub army_can_stand: bool,
    pub fleet_can_stand: bool,
}

/// A validated map with dense adjacency tables.
#[derive(Clone, Debug)]
pub struct Map {
    /// The geography's name (`standard`): what a picture geometry is drawn for.
    pub name: String,
    /// The variant's name (`france-austria`; for a map file, its `name`).
    pub variant: String,
    /// The variant's full name (`Ancient Mediterranean`).
    pub title: String,
    /// The year of the first Spring.
    pub first_year: u16,
    /// Whether a power builds in any supply center it owns (Modern), not only at home.
    pub builds_anywhere: bool,
    /// Distinct centers a power needs to win a standard game on this map.
    pub victory_centers: usize,
    powers: Vec<Power>,
    provinces: Vec<Province>,
    regions: Vec<Region>,
    /// `crossing[a * regions + b]`: who may move from region a to region b.
    crossing: Vec<Crossing>,
    /// Province-level: `province_adjacent[a * provinces + b]` when any unit crosses.
    province_adjacent: Vec<bool>,
    graph: UnGraph<RegionId, Crossing>,
    /// Normalized name or alias -> province.
    place_names: HashMap<String, ProvinceId>,
    /// Normalized name, adjective, abbreviation or alias -> power.
    power_names: HashMap<String, PowerId>,
    /// Who reaches what, as sets of provinces: made when first asked for.
    reach: std::sync::OnceLock<reach::Reach>,
}

/// Lower-case a name, drop dots and apostrophes, treat `-` and `_` as spaces and collapse
/// runs of spaces: "St. Petersburg" and "st  petersburg" meet as "st petersburg".
pub fn normalize_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '.' | '\'' => {}
            '-' | '_' => out.push(' '),
            c => out.extend(c.to_lowercase()),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Map {
    /// The standard map shipped with the judge.
    pub fn standard() -> Map {
        shipped::VARIANTS[0].build().expect("the shipped standard map is valid")
    }

    /// What the integer ids of this map mean, as a hash: the powers', provinces' and
    /// regions' names in id order (sha256, lowercase hex). Game files store ids; a game
    /// records this when it is created and refuses to open under a map whose ids mean
    /// something else (reordered or renamed). New borders do not change it.
    pub fn id_fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for p in &self.powers {
            h.update(b"power:");
            h.update(p.key.as_bytes());
            h.update(b"\n");
        }
        for p in &self.provinces {
            h.update(b"province:");
            h.update(p.key.as_bytes());
            h.update(b"\n");
        }
        for r in 0..self.regions.len() {
            h.update(b"region:");
            h.update(self.region_name(RegionId(r as u16)).as_bytes());
            h.update(b"\n");
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Whether this is the standard variant (the standard map, all seven powers).
    pub fn is_standard_variant(&self) -> bool {
        self.variant == "standard"
    }

    pub fn powers(&self) -> &[Power] {
        &self.powers
    }

    pub fn power(&self, id: PowerId) -> &Power {
        &self.powers[id.0 as usize]
    }

    pub fn power_ids(&self) -> impl Iterator<Item = PowerId> + '_ {
        (0..self.powers.len()).map(|i| PowerId(i as u8))
    }

    pub fn provinces(&self) -> &[Province] {
        &self.provinces
    }

    pub fn province(&self, id: ProvinceId) -> &Province {
        &self.provinces[id.0 as usize]
    }

    pub fn province_ids(&self) -> impl Iterator<Item = ProvinceId> + '_ {
        (0..self.provinces.len()).map(|i| ProvinceId(i as u16))
    }

    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    pub fn region(&self, id: RegionId) -> &Region {
        &self.regions[id.0 as usize]
    }

    pub fn region_count(&self) -> usize {
        self.regions.len()
    }

    pub fn province_of(&self, region: RegionId) -> ProvinceId {
        self.regions[region.0 as usize].province
    }

    /// The supply centers of the map.
    pub fn supply_centers(&self) -> impl Iterator<Item = ProvinceId> + '_ {
        self.province_ids().filter(|p| self.province(*p).supply_center)
    }

    /// Can a unit of this type stand in this region?
    pub fn unit_can_stand(&self, unit: UnitType, region: RegionId) -> bool {
        let r = self.region(region);
        match unit {
            UnitType::Army => r.army_can_stand,
            UnitType::Fleet => r.fleet_can_stand,
        }
    }

    /// Can a unit of this type move in one step from `from` to `to` (regions)?
    pub fn can_move(&self, unit: UnitType, from: RegionId, to: RegionId) -> bool {
        self.crossing[from.0 as usize * self.regions.len() + to.0 as usize].allows(unit)
    }

    /// Who may cross from one region to another.
    pub fn crossing(&self, from: RegionId, to: RegionId) -> Crossing {
        self.crossing[from.0 as usize * self.regions.len() + to.0 as usize]
    }

    /// Do two provinces share any border?
    pub fn provinces_adjacent(&self, a: ProvinceId, b: ProvinceId) -> bool {
        self.province_adjacent[a.0 as usize * self.provinces.len() + b.0 as usize]
    }

    /// Can a unit of this type in `from` reach some region of province `to` in one step?
    pub fn can_reach_province(&self, unit: UnitType, from: RegionId, to: ProvinceId) -> bool {
        self.regions_of(to).any(|r| self.can_move(unit, from, r))
    }

    /// Every region of a province: the main region first, then its coasts.
    pub fn regions_of(&self, province: ProvinceId) -> impl Iterator<Item = RegionId> + '_ {
        let p = self.province(province);
        std::iter::once(p.main_region).chain(p.coasts.iter().copied())
    }

    /// The region a unit of this type occupies in a province, given an optional coast.
    /// `None` when the coast does not exist, or a fleet names no coast in a province with
    /// split coasts (the caller decides whether one coast can be inferred).
    pub fn region_for(&self, unit: UnitType, province: ProvinceId, coast: Option<Coast>) -> Option<RegionId> {
        let p = self.province(province);
        match (unit, coast) {
            (UnitType::Army, None) => Some(p.main_region).filter(|r| self.region(*r).army_can_stand),
            (UnitType::Army, Some(_)) => None,
            (UnitType::Fleet, None) => {
                if p.coasts.is_empty() && self.region(p.main_region).fleet_can_stand {
                    Some(p.main_region)
                } else {
                    None
                }
            }
            (UnitType::Fleet, Some(c)) => p.coasts.iter().copied().find(|r| self.region(*r).coast == Some(c)),
        }
    }

    /// Regions adjacent to `region` for a unit of this type.
    pub fn neighbours(&self, unit: UnitType, region: RegionId) -> impl Iterator<Item = RegionId> + '_ {
        let n = self.regions.len();
        let row = &self.crossing[region.0 as usize * n..(region.0 as usize + 1) * n];
        row.iter().enumerate().filter(move |(_, c)| c.allows(unit)).map(|(i, _)| RegionId(i as u16))
    }

    /// Who reaches what, as sets of provinces (made once, when first asked for).
    pub fn reach(&self) -> &reach::Reach {
        self.reach.get_or_init(|| reach::Reach::new(self))
    }

    /// The border graph: one node per region, one edge per border, weighted by who may
    /// cross it.
    pub fn graph(&self) -> &UnGraph<RegionId, Crossing> {
        &self.graph
    }

    /// The graph node of a region (node indices equal region ids).
    pub fn node(&self, region: RegionId) -> NodeIndex {
        NodeIndex::new(region.0 as usize)
    }

    /// Find a province by short name, full name or alias (any case, dots ignored).
    pub fn lookup_province(&self, name: &str) -> Option<ProvinceId> {
        self.place_names.get(&normalize_name(name)).copied()
    }

    /// Find a power by name, adjective, abbreviation or alias (any case).
    pub fn lookup_power(&self, name: &str) -> Option<PowerId> {
        self.power_names.get(&normalize_name(name)).copied()
    }

    /// Every name and alias a province answers to, normalized.
    pub fn place_names(&self) -> impl Iterator<Item = (&str, ProvinceId)> {
        self.place_names.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// Every name a power answers to, normalized.
    pub fn power_names(&self) -> impl Iterator<Item = (&str, PowerId)> {
        self.power_names.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// The closest known place name to a misspelt one, for "did you mean".
    pub fn suggest_province(&self, name: &str) -> Option<ProvinceId> {
        closest(name, &self.place_names)
    }

    /// The closest power name to a misspelt one (`englnd`), for "did you mean".
    pub fn suggest_power(&self, name: &str) -> Option<PowerId> {
        closest(name, &self.power_names)
    }

    /// The canonical short name of a region: `par`, `stp/sc`.
    pub fn region_name(&self, region: RegionId) -> String {
        let mut name = String::new();
        self.push_region_name(&mut name, region);
        name
    }

    /// [`Map::region_name`], appended to a longer text.
    pub fn push_region_name(&self, out: &mut String, region: RegionId) {
        let r = self.region(region);
        out.push_str(&self.province(r.province).key);
        if let Some(c) = r.coast {
            out.push('/');
            out.push_str(c.short());
        }
    }

    /// The full name of a region: `Paris`, `St Petersburg (south coast)`.
    pub fn region_full_name(&self, region: RegionId) -> String {
        let r = self.region(region);
        let p = self.province(r.province);
        match r.coast {
            Some(c) => format!("{} ({})", p.name, coast_words(c)),
            None => p.name.clone(),
        }
    }

    /// Parse a canonical region name (`par`, `stp/sc`, `SPA/NC`, `spa(nc)`).
    pub fn parse_region(&self, text: &str) -> Option<RegionId> {
        self.parse_region_by(text, |name| self.lookup_province(name))
    }

    /// Parse a canonical region name, finding the province with `find` (a faster lookup
    /// table, for example).
    pub fn parse_region_by(&self, text: &str, find: impl Fn(&str) -> Option<ProvinceId>) -> Option<RegionId> {
        let t = text.trim();
        let (prov, coast) = match t.bytes().position(|b| b == b'/' || b == b'(') {
            Some(i) => {
                let c = t[i + 1..].trim_end_matches(')');
                (&t[..i], Some(Coast::from_short(c)?))
            }
            None => (t, None),
        };
        let p = find(prov)?;
        match coast {
            Some(c) => self.province(p).coasts.iter().copied().find(|r| self.region(*r).coast == Some(c)),
            None => Some(self.province(p).main_region),
        }
    }

    /// The home centers of a power.
    /// Where `power` may build, if it owns the center and it is vacant: its home centers,
    /// or every supply center on a map where powers build anywhere.
    /// In province order, as [`Map::home_centers`].
    pub fn build_sites(&self, power: PowerId) -> impl Iterator<Item = ProvinceId> + '_ {
        let anywhere = self.builds_anywhere;
        self.supply_centers().filter(move |c| anywhere || self.province(*c).home == Some(power))
    }

    pub fn home_centers(&self, power: PowerId) -> &[ProvinceId] {
        &self.power(power).home_centers
    }
}

/// "north coast", "south coast", ...
pub fn coast_words(c: Coast) -> &'static str {
    match c {
        Coast::North => "north coast",
        Coast::South => "south coast",
        Coast::East => "east coast",
        Coast::West => "west coast",
    }
}

/// The id whose name is closest to `name` (Jaro-Winkler, at least 0.8; ties to the first
/// name in order), for "did you mean".
fn closest<I: Copy>(name: &str, names: &HashMap<String, I>) -> Option<I> {
    let wanted = normalize_name(name);
    if wanted.is_empty() {
        return None;
    }
    let mut best: Option<(f64, &str, I)> = None;
    for (known, id) in names {
        let score = strsim::jaro_winkler(&wanted, known);
        let better = match best {
            None => true,
            Some((s, k, _)) => score > s || (score == s && known.as_str() < k),
        };
        if better {
            best = Some((score, known, *id));
        }
    }
    best.filter(|(s, _, _)| *s >= 0.8).map(|(_, _, id)| id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_map_has_the_standard_shape() {
        let map = Map::standard();
        assert_eq!(map.provinces().len(), 76);
        assert_eq!(map.supply_centers().count(), 34);
        assert_eq!(map.powers().len(), 7);
        let units: usize = map.powers().iter().map(|p| p.starting_units.len()).sum();
        assert_eq!(units, 22);
        let stp = map.lookup_province("St. Petersburg").unwrap();
        assert_eq!(map.province(stp).coasts.len(), 2);
        let russia = map.lookup_power("russia").unwrap();
        let stp_sc = map.parse_region("stp/sc").unwrap();
        assert!(map.power(russia).starting_units.contains(&(UnitType::Fleet, stp_sc)));
    }

    #[test]
    fn aliases_find_their_provinces() {
        let map = Map::standard();
        for (alias, key) in [
            ("nth", "nth"),
            ("North Sea", "nth"),
            ("nts", "nth"),
            ("Gulf of Lyon", "lyo"),
            ("gol", "lyo"),
            ("mid", "mao"),
            ("MAT", "mao"),
            ("Mid-Atlantic Ocean", "mao"),
            ("nwg", "nwg"),
            ("Norwegian Sea", "nwg"),
        ] {
            let p = map.lookup_province(alias).unwrap_or_else(|| panic!("{alias} not found"));
            assert_eq!(map.province(p).key, key, "{alias}");
        }
    }

    #[test]
    fn adjacency_respects_coasts_and_terrain() {
        let map = Map::standard();
        let r = |s: &str| map.parse_region(s).unwrap();
        assert!(map.can_move(UnitType::Fleet, r("mao"), r("spa/nc")));
        assert!(map.can_move(UnitType::Fleet, r("mao"), r("spa/sc")));
        assert!(!map.can_move(UnitType::Fleet, r("lyo"), r("spa/nc")));
        assert!(map.can_move(UnitType::Army, r("gas"), r("spa")));
        assert!(!map.can_move(UnitType::Fleet, r("gas"), r("spa")));
        assert!(!map.can_move(UnitType::Army, r("par"), r("eng")));
        assert!(map.can_move(UnitType::Fleet, r("con"), r("smy")));
        assert!(!map.can_move(UnitType::Fleet, r("rom"), r("ven")));
        assert!(map.can_move(UnitType::Army, r("rom"), r("ven")));
        assert!(!map.provinces_adjacent(map.lookup_province("swi").unwrap(), map.lookup_province("mun").unwrap()));
    }

    #[test]
    fn misspelt_places_get_a_suggestion() {
        let map = Map::standard();
        let p = map.suggest_province("Bugundy").unwrap();
        assert_eq!(map.province(p).key, "bur");
    }
}
