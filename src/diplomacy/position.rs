//! Position files: a phase and, per board, the units, the center ownership and (in a
//! retreat phase) the dislodged units. Used by `new --from` (a game moved from another
//! judge, a scenario, a test) and by `orders check --position`.
//!
//! ```toml
//! season = "fall"          # spring | fall | winter
//! year = 1901
//! phase = "movement"       # movement | retreats | adjustments (winter: adjustments)
//!
//! [units]                  # per power: "A par", "F stp/sc"
//! france = ["A par", "F bre", "A bur"]
//! germany = ["A mun"]
//!
//! [centers]                # per power; leave the table out for the home centers
//! france = ["par", "bre", "mar", "spa"]
//!
//! [[dislodged]]            # only in a retreat phase
//! unit = "GERMANY A mun"   # power, unit
//! attacked_from = "bur"
//! via_convoy = false       # optional
//! ```
//!
//! A Shadow Worlds position puts the same three tables under `[boards.A]` and `[boards.B]`
//! (`[boards.A.units]`, `[boards.B.centers]`, `[[boards.B.dislodged]]`).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::diplomacy::judge::{Dislodgement, Ownership, Unit};
use crate::diplomacy::map::{Map, PowerId, UnitType};
use crate::phase::{Phase, PhaseKind, Season};

/// One board of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardPosition {
    pub units: Vec<Unit>,
    pub ownership: Ownership,
    pub dislodged: Vec<Dislodgement>,
}

impl BoardPosition {
    /// The standard start: every power's starting units and home centers.
    pub fn start(map: &Map) -> BoardPosition {
        let units = map
            .power_ids()
            .flat_map(|p| {
                map.power(p).starting_units.iter().map(move |(kind, region)| Unit {
                    power: p,
                    kind: *kind,
                    region: *region,
                })
            })
            .collect();
        BoardPosition { units, ownership: Ownership::initial(map), dislodged: Vec::new() }
    }
}

/// A whole position: the phase and one board (standard) or two (Shadow Worlds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub phase: Phase,
    pub boards: Vec<BoardPosition>,
}

/// A position file that cannot be used: the file, the key and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {}{message}", if key.is_empty() { String::new() } else { format!("`{key}`: ") })]
pub struct PositionError {
    pub file: String,
    pub key: String,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPosition {
    season: Season,
    year: u16,
    phase: Option<PhaseKind>,
    #[serde(flatten)]
    board: RawBoard,
    #[serde(default)]
    boards: BTreeMap<String, RawBoard>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawBoard {
    #[serde(default)]
    units: BTreeMap<String, Vec<String>>,
    centers: Option<BTreeMap<String, Vec<String>>>,
    #[serde(default)]
    dislodged: Vec<RawDislodged>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDislodged {
    unit: String,
    attacked_from: String,
    #[serde(default)]
    via_convoy: bool,
}

/// Read a position. `boards` is how many boards the game has (1 or 2); `file` names the
/// file in errors.
pub fn parse_position(text: &str, file: &str, map: &Map, boards: usize) -> Result<Position, PositionError> {
    let err = |key: &str, message: String| PositionError { file: file.to_string(), key: key.to_string(), message };
    let raw: RawPosition = toml::from_str(text).map_err(|e| err("", e.to_string().trim_end().to_string()))?;
    let kind = match (raw.season, raw.phase) {
        (Season::Winter, None | Some(PhaseKind::Adjustments)) => PhaseKind::Adjustments,
        (Season::Winter, Some(_)) => return Err(err("phase", "a Winter phase is an adjustments phase".into())),
        (_, Some(PhaseKind::Adjustments)) => {
            return Err(err("phase", "adjustments come in Winter: set season = \"winter\"".into()))
        }
        (_, k) => k.unwrap_or(PhaseKind::Movement),
    };
    if raw.year == 0 || raw.year > Phase::MAX_YEAR {
        return Err(err("year", format!("{} is not a year between 1 and {}", raw.year, Phase::MAX_YEAR)));
    }
    let phase = Phase::new(raw.year, raw.season, kind);
    let raw_boards: Vec<(String, RawBoard)> = if boards == 1 {
        if !raw.boards.is_empty() {
            return Err(err("boards", "this game has one board: put units and centers at the top level".into()));
        }
        vec![(String::new(), raw.board)]
    } else {
        if !raw.board.units.is_empty() || raw.board.centers.is_some() || !raw.board.dislodged.is_empty() {
            return Err(err(
                "units",
                format!("this game has {boards} boards: put units under [boards.A.units] and [boards.B.units]"),
            ));
        }
        let mut raw_boards = raw.boards;
        let mut out = Vec::new();
        for i in 0..boards {
            let letter = ((b'A' + i as u8) as char).to_string();
            let b = raw_boards
                .remove(&letter)
                .or_else(|| raw_boards.remove(&letter.to_lowercase()))
                .ok_or_else(|| err("boards", format!("board {letter} is missing ([boards.{letter}.units])")))?;
            out.push((format!("boards.{letter}."), b));
        }
        if let Some(extra) = raw_boards.keys().next() {
            return Err(err(&format!("boards.{extra}"), "no such board: the boards are A and B".into()));
        }
        out
    };
    let mut result = Vec::new();
    for (prefix, b) in raw_boards {
        result.push(read_board(map, &prefix, b, kind, &err)?);
    }
    Ok(Position { phase, boards: result })
}

fn power(
    map: &Map,
    name: &str,
    key: &str,
    err: &dyn Fn(&str, String) -> PositionError,
) -> Result<PowerId, PositionError> {
    map.lookup_power(name).ok_or_else(|| err(key, format!("unknown power `{name}`")))
}

/// Read "A par" or "F stp/sc" for a power.
pub fn parse_unit(map: &Map, power: PowerId, text: &str) -> Result<Unit, String> {
    let t = text.trim();
    let (kind, place) = t.split_once(char::is_whitespace).ok_or_else(|| format!("`{t}` is not a unit like `A par`"))?;
    let kind = match kind.to_ascii_uppercase().as_str() {
        "A" | "ARMY" => UnitType::Army,
        "F" | "FLEET" => UnitType::Fleet,
        _ => return Err(format!("`{t}`: the unit type must be A or F")),
    };
    let place = place.trim();
    let region = map.parse_region(place).ok_or_else(|| format!("`{t}`: unknown place `{place}`"))?;
    let province = map.province_of(region);
    // A fleet in a province with split coasts must name its coast; an army never does.
    let region = match (kind, map.region(region).coast) {
        (UnitType::Army, Some(_)) => return Err(format!("`{t}`: an army stands in a province, not on a coast")),
        (UnitType::Fleet, None) if !map.province(province).coasts.is_empty() => {
            return Err(format!("`{t}`: name the coast (`{}/nc`)", map.province(province).key))
        }
        _ => region,
    };
    if !map.unit_can_stand(kind, region) {
        let what = if kind == UnitType::Army { "an army cannot stand at sea" } else { "a fleet cannot stand inland" };
        return Err(format!("`{t}`: {what}"));
    }
    Ok(Unit { power, kind, region })
}

fn read_board(
    map: &Map,
    prefix: &str,
    b: RawBoard,
    kind: PhaseKind,
    err: &dyn Fn(&str, String) -> PositionError,
) -> Result<BoardPosition, PositionError> {
    let mut units: Vec<Unit> = Vec::new();
    for (pname, list) in &b.units {
        let key = format!("{prefix}units.{pname}");
        let p = power(map, pname, &key, err)?;
        for u in list {
            let unit = parse_unit(map, p, u).map_err(|m| err(&key, m))?;
            let province = map.province_of(unit.region);
            if let Some(other) = units.iter().find(|o| map.province_of(o.region) == province) {
                return Err(err(
                    &key,
                    format!(
                        "two units in {}: {} and {}",
                        map.province(province).name,
                        other.describe(map),
                        unit.describe(map)
                    ),
                ));
            }
            units.push(unit);
        }
    }
    let ownership = match &b.centers {
        None => Ownership::initial(map),
        Some(centers) => {
            let mut o = Ownership::new(map);
            for (pname, list) in centers {
                let key = format!("{prefix}centers.{pname}");
                let p = power(map, pname, &key, err)?;
                for c in list {
                    let prov = map.lookup_province(c).ok_or_else(|| err(&key, format!("unknown place `{c}`")))?;
                    if !map.province(prov).supply_center {
                        return Err(err(&key, format!("{} is not a supply center", map.province(prov).name)));
                    }
                    if let Some(other) = o.owner(prov) {
                        return Err(err(
                            &key,
                            format!("{} is also owned by {}", map.province(prov).name, map.power(other).name),
                        ));
                    }
                    o.set(prov, Some(p));
                }
            }
            o
        }
    };
    let mut dislodged = Vec::new();
    if !b.dislodged.is_empty() && kind != PhaseKind::Retreats {
        return Err(err(&format!("{prefix}dislodged"), "dislodged units belong to a retreat phase".into()));
    }
    for d in &b.dislodged {
        let key = format!("{prefix}dislodged");
        let (pname, unit_text) = d
            .unit
            .trim()
            .split_once(char::is_whitespace)
            .ok_or_else(|| err(&key, format!("`{}`: write `POWER A par`", d.unit)))?;
        let p = power(map, pname, &key, err)?;
        let unit = parse_unit(map, p, unit_text).map_err(|m| err(&key, m))?;
        let from = map
            .lookup_province(&d.attacked_from)
            .ok_or_else(|| err(&key, format!("unknown place `{}`", d.attacked_from)))?;
        let at = map.province_of(unit.region);
        let shown = format!("{} {}", map.power(p).name, unit.describe(map));
        if units.iter().any(|u| u.power == p && map.province_of(u.region) == at) {
            return Err(err(
                &key,
                format!(
                    "{shown} is dislodged, so it is not also under [units] (the unit that dislodged it stands in {})",
                    map.province(at).name
                ),
            ));
        }
        if let Some(other) = dislodged.iter().find(|o: &&Dislodgement| map.province_of(o.unit.region) == at) {
            return Err(err(
                &key,
                format!(
                    "two units dislodged from {}: {} and {shown}; a province loses one unit at most",
                    map.province(at).name,
                    other.unit.describe(map)
                ),
            ));
        }
        if from == at {
            return Err(err(&key, format!("{shown} cannot have been attacked from its own province")));
        }
        if !d.via_convoy && !map.provinces_adjacent(from, at) {
            return Err(err(
                &key,
                format!(
                    "{shown}: `attacked_from` = {} does not border {} (say `via_convoy = true` if the attack came by convoy)",
                    map.province(from).name,
                    map.province(at).name
                ),
            ));
        }
        dislodged.push(Dislodgement { unit, attacker_from: from, via_convoy: d.via_convoy });
    }
    Ok(BoardPosition { units, ownership, dislodged })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_standard_position_reads_with_defaults() {
        let map = Map::standard();
        let text =
            "season = \"fall\"\nyear = 1902\n[units]\nfrance = [\"A bur\", \"F spa/sc\"]\nrussia = [\"F stp/nc\"]\n";
        let pos = parse_position(text, "p.toml", &map, 1).unwrap();
        assert_eq!(pos.phase, Phase::new(1902, Season::Fall, PhaseKind::Movement));
        assert_eq!(pos.boards[0].units.len(), 3);
        let france = map.lookup_power("france").unwrap();
        assert_eq!(pos.boards[0].ownership.count(france), 3);
    }

    #[test]
    fn errors_name_the_key() {
        let map = Map::standard();
        let e = parse_position("season = \"spring\"\nyear = 1901\n[units]\nfrance = [\"A eng\"]\n", "p.toml", &map, 1)
            .unwrap_err();
        assert_eq!(e.key, "units.france");
        assert!(e.to_string().contains("army cannot stand at sea"), "{e}");
        let e = parse_position("season = \"spring\"\nyear = 1901\n[units]\nfrance = [\"A par\"]\n", "p.toml", &map, 2)
            .unwrap_err();
        assert!(e.to_string().contains("boards"), "{e}");
        let e = parse_position("season = \"spring\"\nyear = 1901\n[units]\nfrance = [\"F spa\"]\n", "p.toml", &map, 1)
            .unwrap_err();
        assert!(e.message.contains("name the coast"), "{e}");
    }

    #[test]
    fn dislodged_units_are_checked_as_the_format_promises() {
        let map = Map::standard();
        let retreat = |rest: &str| {
            format!(
                "season = \"fall\"\nyear = 1902\nphase = \"retreats\"\n[units]\nfrance = [\"A mun\", \"A bur\"]\n\
                 germany = [\"A ber\"]\n{rest}"
            )
        };
        let good = retreat("[[dislodged]]\nunit = \"GERMANY A mun\"\nattacked_from = \"bur\"\n");
        let pos = parse_position(&good, "p.toml", &map, 1).unwrap();
        assert_eq!(pos.boards[0].dislodged.len(), 1);
        for (rest, wanted) in [
            ("[[dislodged]]\nunit = \"FRANCE A mun\"\nattacked_from = \"bur\"\n", "not also under [units]"),
            (
                "[[dislodged]]\nunit = \"GERMANY A mun\"\nattacked_from = \"bur\"\n\
                 [[dislodged]]\nunit = \"ITALY A mun\"\nattacked_from = \"tyr\"\n",
                "two units dislodged from Munich",
            ),
            ("[[dislodged]]\nunit = \"GERMANY A mun\"\nattacked_from = \"mun\"\n", "its own province"),
            ("[[dislodged]]\nunit = \"GERMANY A mun\"\nattacked_from = \"par\"\n", "does not border Munich"),
        ] {
            let e = parse_position(&retreat(rest), "p.toml", &map, 1).unwrap_err();
            assert_eq!(e.key, "dislodged", "{rest}");
            assert!(e.message.contains(wanted), "{rest}: {e}");
        }
        // By convoy, an attack may come from afar.
        let convoyed = retreat("[[dislodged]]\nunit = \"GERMANY A mun\"\nattacked_from = \"par\"\nvia_convoy = true\n");
        assert!(parse_position(&convoyed, "p.toml", &map, 1).is_ok());
    }

    #[test]
    fn years_stay_in_range() {
        let map = Map::standard();
        for year in ["0", "10000", "65535"] {
            let text = format!("season = \"spring\"\nyear = {year}\n");
            let e = parse_position(&text, "p.toml", &map, 1).unwrap_err();
            assert_eq!(e.key, "year", "{year}");
        }
        let e = parse_position("season = \"spring\"\nyear = 65536\n", "p.toml", &map, 1).unwrap_err();
        assert!(e.to_string().starts_with("p.toml: "), "{e}");
        assert!(parse_position("season = \"spring\"\nyear = 9999\n", "p.toml", &map, 1).is_ok());
    }

    #[test]
    fn a_two_board_position_reads_both_boards() {
        let map = Map::standard();
        let text = "season = \"winter\"\nyear = 1901\n[boards.A.units]\nitaly = [\"A ven\"]\n[boards.B.units]\nitaly = [\"A rom\"]\n[boards.B.centers]\nitaly = [\"rom\", \"tun\"]\n";
        let pos = parse_position(text, "p.toml", &map, 2).unwrap();
        assert_eq!(pos.phase.kind, PhaseKind::Adjustments);
        assert_eq!(pos.boards.len(), 2);
        let italy = map.lookup_power("italy").unwrap();
        assert_eq!(pos.boards[1].ownership.count(italy), 2);
        assert_eq!(pos.boards[0].ownership.count(italy), 3);
    }
}
