//! Reading a map file: TOML -> raw structs -> validated [`Map`].
//!
//! Every error names the file and the key it is about; nothing here panics on a bad file.

use std::collections::{BTreeMap, HashMap};

use petgraph::graph::UnGraph;
use serde::Deserialize;

use super::{
    normalize_name, Coast, Crossing, Map, Power, PowerId, Province, ProvinceId, Region, RegionId, Terrain, UnitType,
};

/// A map file that cannot be used, with the file and the key at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {}{message}", if key.is_empty() { String::new() } else { format!("`{key}`: ") })]
pub struct MapError {
    pub file: String,
    pub key: String,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMap {
    name: String,
    victory_centers: Option<usize>,
    /// The year of the first Spring (1901 when not given).
    first_year: Option<u16>,
    powers: BTreeMap<String, RawPower>,
    provinces: BTreeMap<String, RawProvince>,
}

/// A variant's rules (`maps/NAME/rules.toml`): what it changes of its map's game.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRules {
    /// The variant's full name (`Ancient Mediterranean`).
    title: String,
    /// Centers for victory; default: the map's.
    victory_centers: Option<usize>,
    /// The year of the first Spring; default: the map's.
    first_year: Option<u16>,
    /// The powers that play, when not all the map's: the others are left out, their
    /// home centers neutral and empty.
    powers: Option<Vec<String>>,
    /// Where a power builds: `home` (its home centers, the default) or `any` (any supply
    /// center it owns).
    #[serde(default)]
    builds: Builds,
    /// Other names of the variant: MILA's map names.
    #[serde(default)]
    aliases: Vec<String>,
}

/// Where a power may build.
#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Builds {
    #[default]
    Home,
    Any,
}

/// The aliases a rules file gives (none when it does not read; building the variant
/// reports that).
pub(super) fn rules_aliases(text: &str) -> Vec<String> {
    toml::from_str::<RawRules>(text).map(|r| r.aliases).unwrap_or_default()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPower {
    name: String,
    adjective: String,
    abbreviation: String,
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    units: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProvince {
    name: String,
    terrain: Terrain,
    center: Option<String>,
    #[serde(default)]
    impassable: bool,
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    army: Vec<String>,
    #[serde(default)]
    fleet: Vec<String>,
    #[serde(default)]
    coasts: BTreeMap<String, Vec<String>>,
}

struct Loader<'a> {
    file: &'a str,
}

impl Loader<'_> {
    fn err(&self, key: impl Into<String>, message: impl Into<String>) -> MapError {
        MapError { file: self.file.to_string(), key: key.into(), message: message.into() }
    }
}

/// The largest map file the loader reads.
pub const MAX_MAP_BYTES: usize = 4 << 20;
/// The most regions (provinces, plus one per coast of a split-coast province) a map may
/// have: the adjacency tables grow with the square of it.
pub const MAX_REGIONS: usize = 4000;

impl Map {
    /// Parse and validate a map. `file` is only used to name the file in errors.
    pub fn from_toml(text: &str, file: &str) -> Result<Map, MapError> {
        let l = Loader { file };
        if text.len() > MAX_MAP_BYTES {
            return Err(l.err(
                "",
                format!(
                    "the map file is {} KiB; a map file may be at most {} KiB",
                    text.len() / 1024,
                    MAX_MAP_BYTES / 1024
                ),
            ));
        }
        let raw: RawMap = toml::from_str(text).map_err(|e| {
            let key = String::new();
            let message = e.to_string().trim_end().replace('\n', "\n  ");
            MapError { file: file.to_string(), key, message }
        })?;
        build(&l, raw, None)
    }

    /// A shipped variant: its map file's text and its rules file's text (`*_file` name
    /// them in errors).
    pub fn from_variant(
        variant: &str,
        map_text: &str,
        map_file: &str,
        rules_text: &str,
        rules_file: &str,
    ) -> Result<Map, MapError> {
        let l = Loader { file: map_file };
        let mut raw: RawMap =
            toml::from_str(map_text).map_err(|e| l.err("", e.to_string().trim_end().replace('\n', "\n  ")))?;
        let r = Loader { file: rules_file };
        let rules: RawRules =
            toml::from_str(rules_text).map_err(|e| r.err("", e.to_string().trim_end().replace('\n', "\n  ")))?;
        if let Some(playing) = &rules.powers {
            for p in playing {
                if !raw.powers.contains_key(p) {
                    return Err(r.err("powers", format!("the map has no power `{p}`")));
                }
            }
            raw.powers.retain(|k, _| playing.contains(k));
            for prov in raw.provinces.values_mut() {
                if prov.center.as_ref().is_some_and(|c| c != "neutral" && !playing.contains(c)) {
                    prov.center = Some("neutral".into());
                }
            }
        }
        if rules.victory_centers.is_some() {
            raw.victory_centers = rules.victory_centers;
        }
        if rules.first_year.is_some() {
            raw.first_year = rules.first_year;
        }
        let mut map = build(&l, raw, Some((variant, rules.title)))?;
        if rules.builds == Builds::Any {
            map.builds_anywhere = true;
        }
        Ok(map)
    }
}

/// Validate a map; `variant` names the shipped variant it is and gives its title.
fn build(l: &Loader, raw: RawMap, variant: Option<(&str, String)>) -> Result<Map, MapError> {
    if raw.powers.len() > 64 {
        return Err(l.err("powers", "a map may have at most 64 powers"));
    }
    if raw.provinces.len() > 4000 {
        return Err(l.err("provinces", "a map may have at most 4000 provinces"));
    }
    // Powers and their names.
    let mut power_names: HashMap<String, PowerId> = HashMap::new();
    let mut powers = Vec::new();
    for (i, (key, p)) in raw.powers.iter().enumerate() {
        let id = PowerId(i as u8);
        for name in [key, &p.name, &p.adjective, &p.abbreviation].into_iter().chain(p.aliases.iter()) {
            let n = normalize_name(name);
            if n.is_empty() {
                return Err(l.err(format!("powers.{key}"), "a name or alias is empty"));
            }
            if let Some(other) = power_names.insert(n.clone(), id) {
                if other != id {
                    let other_key = raw.powers.keys().nth(other.0 as usize).cloned().unwrap_or_default();
                    return Err(l.err(
                        format!("powers.{key}"),
                        format!("the name \"{n}\" is also used by power `{other_key}`"),
                    ));
                }
            }
        }
        powers.push(Power {
            key: key.clone(),
            name: p.name.clone(),
            adjective: p.adjective.clone(),
            abbreviation: p.abbreviation.to_uppercase(),
            home_centers: Vec::new(),
            starting_units: Vec::new(),
        });
    }

    // Provinces and regions.
    let mut provinces = Vec::new();
    let mut regions = Vec::new();
    let mut place_names: HashMap<String, ProvinceId> = HashMap::new();
    let keys: Vec<&String> = raw.provinces.keys().collect();
    for (i, (key, p)) in raw.provinces.iter().enumerate() {
        let id = ProvinceId(i as u16);
        let at = format!("provinces.{key}");
        if key.contains(['/', ' ', '(']) || key.is_empty() {
            return Err(l.err(&at, "a province key must be one word without `/` or `(`"));
        }
        for name in [key, &p.name].into_iter().chain(p.aliases.iter()) {
            let n = normalize_name(name);
            if n.is_empty() {
                return Err(l.err(&at, "a name or alias is empty"));
            }
            if let Some(other) = place_names.insert(n.clone(), id) {
                if other != id {
                    return Err(
                        l.err(&at, format!("the name \"{n}\" is also used by province `{}`", keys[other.0 as usize]))
                    );
                }
            }
        }
        let (supply_center, home) = match p.center.as_deref() {
            None => (false, None),
            Some("neutral") => (true, None),
            Some(power) => match power_names.get(&normalize_name(power)) {
                Some(pid) => (true, Some(*pid)),
                None => return Err(l.err(format!("{at}.center"), format!("unknown power \"{power}\""))),
            },
        };
        match p.terrain {
            Terrain::Land if !p.fleet.is_empty() || !p.coasts.is_empty() => {
                return Err(l.err(&at, "a land province cannot have fleet borders or coasts"))
            }
            Terrain::Sea if !p.army.is_empty() || !p.coasts.is_empty() => {
                return Err(l.err(&at, "a sea province cannot have army borders or coasts"))
            }
            _ => {}
        }
        if !p.coasts.is_empty() && !p.fleet.is_empty() {
            return Err(l.err(&at, "a province with split coasts lists its fleet borders per coast, not in `fleet`"));
        }
        let main_region = RegionId(regions.len() as u16);
        let split = !p.coasts.is_empty();
        regions.push(Region {
            province: id,
            coast: None,
            army_can_stand: p.terrain != Terrain::Sea && !p.impassable,
            fleet_can_stand: p.terrain != Terrain::Land && !split && !p.impassable,
        });
        let mut coasts = Vec::new();
        for c in p.coasts.keys() {
            let coast = Coast::from_short(c)
                .ok_or_else(|| l.err(format!("{at}.coasts.{c}"), "a coast must be nc, sc, ec or wc"))?;
            coasts.push(RegionId(regions.len() as u16));
            regions.push(Region { province: id, coast: Some(coast), army_can_stand: false, fleet_can_stand: true });
        }
        if let Some(h) = home {
            powers[h.0 as usize].home_centers.push(id);
        }
        provinces.push(Province {
            key: key.clone(),
            name: p.name.clone(),
            terrain: p.terrain,
            supply_center,
            home,
            impassable: p.impassable,
            main_region,
            coasts,
        });
    }
    if regions.len() > MAX_REGIONS {
        return Err(l.err(
            "provinces",
            format!(
                "a map may have at most {MAX_REGIONS} regions (provinces plus their coasts); this one has {}",
                regions.len()
            ),
        ));
    }

    // Borders, as directed lists, checked for symmetry afterwards.
    let n = regions.len();
    let mut crossing = vec![Crossing::NONE; n * n];
    let find_province = |name: &str| keys.iter().position(|k| k.as_str() == name).map(|i| ProvinceId(i as u16));
    let resolve_fleet = |name: &str, at: &str| -> Result<RegionId, MapError> {
        let (pk, coast) = match name.split_once('/') {
            Some((p, c)) => {
                (p, Some(Coast::from_short(c).ok_or_else(|| l.err(at, format!("unknown coast in \"{name}\"")))?))
            }
            None => (name, None),
        };
        let pid = find_province(pk).ok_or_else(|| l.err(at, format!("unknown province \"{pk}\"")))?;
        let prov = &provinces[pid.0 as usize];
        match coast {
            None if prov.coasts.is_empty() => {
                if prov.terrain == Terrain::Land {
                    Err(l.err(at, format!("\"{name}\" is inland: fleets cannot go there")))
                } else {
                    Ok(prov.main_region)
                }
            }
            None => Err(l.err(at, format!("\"{name}\" has split coasts: name the coast (\"{name}/nc\")"))),
            Some(c) => prov
                .coasts
                .iter()
                .copied()
                .find(|r| regions[r.0 as usize].coast == Some(c))
                .ok_or_else(|| l.err(at, format!("\"{pk}\" has no {} coast", c.short()))),
        }
    };
    for (i, (key, p)) in raw.provinces.iter().enumerate() {
        let prov = &provinces[i];
        let at = format!("provinces.{key}.army");
        for other in &p.army {
            let o = find_province(other).ok_or_else(|| l.err(&at, format!("unknown province \"{other}\"")))?;
            let op = &provinces[o.0 as usize];
            if op.terrain == Terrain::Sea {
                return Err(l.err(&at, format!("\"{other}\" is a sea: armies cannot go there")));
            }
            if o.0 as usize == i {
                return Err(l.err(&at, "a province cannot border itself"));
            }
            let c = &mut crossing[prov.main_region.0 as usize * n + op.main_region.0 as usize];
            *c = c.with(Crossing::ARMY);
        }
        let mut fleet_lists: Vec<(RegionId, String, &Vec<String>)> = Vec::new();
        if !p.fleet.is_empty() {
            fleet_lists.push((prov.main_region, format!("provinces.{key}.fleet"), &p.fleet));
        }
        for (ci, (c, list)) in p.coasts.iter().enumerate() {
            fleet_lists.push((prov.coasts[ci], format!("provinces.{key}.coasts.{c}"), list));
        }
        for (from, at, list) in fleet_lists {
            for other in list {
                let to = resolve_fleet(other, &at)?;
                if regions[to.0 as usize].province == regions[from.0 as usize].province {
                    return Err(l.err(&at, "a province cannot border itself"));
                }
                let c = &mut crossing[from.0 as usize * n + to.0 as usize];
                *c = c.with(Crossing::FLEET);
            }
        }
    }
    let region_name = |r: usize| {
        let reg = &regions[r];
        let k = &provinces[reg.province.0 as usize].key;
        match reg.coast {
            Some(c) => format!("{k}/{}", c.short()),
            None => k.clone(),
        }
    };
    for a in 0..n {
        for b in 0..n {
            let ab = crossing[a * n + b];
            let ba = crossing[b * n + a];
            for unit in [UnitType::Army, UnitType::Fleet] {
                if ab.allows(unit) && !ba.allows(unit) {
                    let list = if unit == UnitType::Army { "army" } else { "fleet" };
                    let pa = &provinces[regions[a].province.0 as usize].key;
                    let pb = &provinces[regions[b].province.0 as usize].key;
                    return Err(l.err(
                        format!("provinces.{pa}.{list}"),
                        format!(
                            "asymmetric border: {} lists \"{}\" but provinces.{pb} does not list \"{}\"",
                            region_name(a),
                            region_name(b),
                            region_name(a)
                        ),
                    ));
                }
            }
        }
    }
    let np = provinces.len();
    let mut province_adjacent = vec![false; np * np];
    let mut graph = UnGraph::with_capacity(n, n * 3);
    for r in 0..n {
        graph.add_node(RegionId(r as u16));
    }
    for a in 0..n {
        for b in (a + 1)..n {
            let c = crossing[a * n + b];
            if c != Crossing::NONE {
                graph.add_edge(petgraph::graph::NodeIndex::new(a), petgraph::graph::NodeIndex::new(b), c);
                let pa = regions[a].province.0 as usize;
                let pb = regions[b].province.0 as usize;
                province_adjacent[pa * np + pb] = true;
                province_adjacent[pb * np + pa] = true;
            }
        }
    }

    // Starting units.
    for (i, (key, p)) in raw.powers.iter().enumerate() {
        let at = format!("powers.{key}.units");
        for u in &p.units {
            let (t, place) =
                u.trim().split_once(' ').ok_or_else(|| l.err(&at, format!("\"{u}\" is not a unit like \"A par\"")))?;
            let unit = match t {
                "A" | "a" => UnitType::Army,
                "F" | "f" => UnitType::Fleet,
                _ => return Err(l.err(&at, format!("\"{u}\": the unit type must be A or F"))),
            };
            let region = if unit == UnitType::Fleet {
                resolve_fleet(place.trim(), &at)?
            } else {
                let pid =
                    find_province(place.trim()).ok_or_else(|| l.err(&at, format!("unknown province \"{place}\"")))?;
                provinces[pid.0 as usize].main_region
            };
            let reg = &regions[region.0 as usize];
            let ok = match unit {
                UnitType::Army => reg.army_can_stand,
                UnitType::Fleet => reg.fleet_can_stand,
            };
            if !ok {
                return Err(l.err(&at, format!("\"{u}\": {} cannot stand there", unit.name())));
            }
            powers[i].starting_units.push((unit, region));
        }
    }
    let centers = provinces.iter().filter(|p| p.supply_center).count();
    let victory_centers = raw.victory_centers.unwrap_or(centers / 2 + 1);
    if victory_centers == 0 || victory_centers > centers {
        return Err(l.err("victory_centers", format!("must be between 1 and the {centers} supply centers")));
    }
    let first_year = raw.first_year.unwrap_or(1901);
    // The last year a game may reach is 9999 (`Phase::MAX_YEAR`, a layer above).
    if !(1..=9000).contains(&first_year) {
        return Err(l.err("first_year", "must be between 1 and 9000"));
    }
    let (variant, title) = match variant {
        Some((v, t)) => (v.to_string(), t),
        None => (raw.name.clone(), raw.name.clone()),
    };
    Ok(Map {
        name: raw.name,
        variant,
        title,
        first_year,
        builds_anywhere: false,
        victory_centers,
        powers,
        provinces,
        regions,
        crossing,
        province_adjacent,
        graph,
        place_names,
        power_names,
        reach: Default::default(),
    })
}
