//! Batch adjudication for bots and research: one movement phase as a JSON line in, its
//! result as a JSON line out (the `shadowjudge resolve` format).
//!
//! Input: `{"id": "c1", "season": "spring", "units": [{"power": "FRANCE", "type": "A",
//! "loc": "PAR"}], "orders": ["FRANCE: A PAR - BUR"]}`. Output: `{"id": "c1",
//! "units_after": ["FRANCE A BUR"], "dislodged": [], "orders": [{"order": "FRANCE: A PAR -
//! BUR", "result": "succeeds", "reason": "moved"}]}`, or `{"id": ..., "error": "..."}` for
//! a case that cannot be adjudicated (bad JSON, unknown place or power, a unit where it
//! cannot stand, two units in one province). An order is reported, never fatal:
//! `succeeds`, `fails`, `illegal` (understood but impossible; the unit holds) or
//! `invalid` (not understood). Units without an order hold.
//!
//! Pure: strings in, strings out; the command line does the reading and writing.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::judge::legality::{collect_orders, Illegal, WrittenOrder};
use crate::judge::movement::Adjudicator;
use crate::judge::rulebook::Rulebook;
use crate::judge::Unit;
use crate::map::{Map, UnitType};
use crate::order::grammar::OrderParser;

/// A case as read through a `serde_json::Value` (the general path: it gives the exact
/// error messages for malformed cases).
#[derive(Deserialize)]
struct CaseIn {
    #[serde(default)]
    season: Option<String>,
    units: Vec<UnitIn>,
    #[serde(default)]
    orders: Vec<String>,
}

#[derive(Deserialize)]
struct UnitIn {
    power: String,
    #[serde(rename = "type")]
    kind: String,
    loc: String,
}

/// A case read straight from the text, borrowing its strings where they hold no escapes.
/// Any case this cannot read (duplicate keys, wrong types, not an object...) goes the
/// general way, so both ways give the same answers.
#[derive(Deserialize)]
struct FastCase<'a> {
    #[serde(default)]
    id: Value,
    #[serde(default, borrow)]
    season: Option<Text<'a>>,
    #[serde(borrow)]
    units: Vec<FastUnit<'a>>,
    #[serde(default, borrow)]
    orders: Vec<Text<'a>>,
}

#[derive(Deserialize)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

#[derive(Deserialize)]
struct FastUnit<'a> {
    #[serde(borrow)]
    power: Text<'a>,
    #[serde(rename = "type", borrow)]
    kind: Text<'a>,
    #[serde(borrow)]
    loc: Text<'a>,
}

#[derive(Serialize)]
struct ErrorOut<'a> {
    id: &'a Value,
    error: String,
}

/// One unit as the case gives it: power, type, place.
type UnitText<'a> = (&'a str, &'a str, &'a str);

/// Adjudicates cases one line at a time, reusing its parser and scratch space.
pub struct BatchResolver<'m> {
    map: &'m Map,
    parser: OrderParser<'m>,
    rulebook: Rulebook,
    adjudicator: Adjudicator,
    /// Every unit line the output can hold (`"FRANCE A PAR"`, JSON-escaped), by
    /// [`unit_key`], and its rank when the lines are sorted as strings.
    unit_lines: UnitLines,
    occupied: Vec<bool>,
    units: Vec<Unit>,
    /// The output line being written.
    out: Vec<u8>,
    ranks: Vec<u32>,
}

/// The unit lines of a map, written and ranked once.
struct UnitLines {
    regions: usize,
    /// By key: the byte range of its JSON string in `json`, and its sort rank.
    entries: Vec<(u32, u32, u32)>,
    /// By rank: the key.
    by_rank: Vec<u32>,
    json: Vec<u8>,
}

fn unit_key(regions: usize, u: &Unit) -> usize {
    ((u.power.0 as usize * 2) + (u.kind == UnitType::Fleet) as usize) * regions + u.region.0 as usize
}

impl UnitLines {
    fn new(map: &Map) -> UnitLines {
        let regions = map.region_count();
        let mut texts = Vec::with_capacity(map.powers().len() * 2 * regions);
        for p in map.powers() {
            let power = p.name.to_uppercase();
            for kind in [UnitType::Army, UnitType::Fleet] {
                for r in 0..regions {
                    let region = map.region_name(crate::map::RegionId(r as u16)).to_uppercase();
                    texts.push(format!("{power} {} {region}", kind.letter()));
                }
            }
        }
        let mut by_rank: Vec<u32> = (0..texts.len() as u32).collect();
        by_rank.sort_by(|a, b| texts[*a as usize].cmp(&texts[*b as usize]));
        let mut entries = vec![(0, 0, 0); texts.len()];
        let mut json = Vec::new();
        for (key, text) in texts.iter().enumerate() {
            let start = json.len() as u32;
            json_str(&mut json, text);
            entries[key] = (start, json.len() as u32, 0);
        }
        for (rank, key) in by_rank.iter().enumerate() {
            entries[*key as usize].2 = rank as u32;
        }
        UnitLines { regions, entries, by_rank, json }
    }

    /// `["FRANCE A PAR","RUSSIA F STP/SC"]`: the units as text, sorted as strings.
    fn write<'u>(&self, out: &mut Vec<u8>, ranks: &mut Vec<u32>, units: impl Iterator<Item = &'u Unit>) {
        ranks.clear();
        ranks.extend(units.map(|u| self.entries[unit_key(self.regions, u)].2));
        // Equal ranks are equal lines.
        ranks.sort_unstable();
        out.push(b'[');
        for (k, rank) in ranks.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            let (start, end, _) = self.entries[self.by_rank[*rank as usize] as usize];
            out.extend_from_slice(&self.json[start as usize..end as usize]);
        }
        out.push(b']');
    }
}

impl<'m> BatchResolver<'m> {
    pub fn new(map: &'m Map, rulebook: Rulebook) -> BatchResolver<'m> {
        BatchResolver {
            map,
            parser: OrderParser::new(map),
            rulebook,
            adjudicator: Adjudicator::default(),
            unit_lines: UnitLines::new(map),
            occupied: Vec::new(),
            units: Vec::new(),
            out: Vec::new(),
            ranks: Vec::new(),
        }
    }

    /// One input line to one output line (without the newline). Never panics.
    pub fn resolve_line(&mut self, line: &str) -> String {
        // A case that is an object with the expected fields is read directly; anything
        // else goes through a `Value` for the exact error message.
        if line.trim_start().starts_with('{') {
            if let Ok(case) = serde_json::from_str::<FastCase>(line) {
                let units: Vec<UnitText> = case.units.iter().map(|u| (&*u.power.0, &*u.kind.0, &*u.loc.0)).collect();
                let orders: Vec<&str> = case.orders.iter().map(|o| &*o.0).collect();
                return match self.resolve_case(&case.id, case.season.as_ref().map(|s| &*s.0), &units, &orders) {
                    Ok(out) => out,
                    Err(message) => error_line(&case.id, message),
                };
            }
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return error_line(&Value::Null, format!("not a JSON object: {e}")),
        };
        let id = value.get("id").unwrap_or(&Value::Null);
        match self.resolve_value(&value, id) {
            Ok(out) => out,
            Err(message) => error_line(id, message),
        }
    }

    fn resolve_value(&mut self, value: &Value, id: &Value) -> Result<String, String> {
        if !value.is_object() {
            return Err("a case must be a JSON object".into());
        }
        let case = CaseIn::deserialize(value).map_err(|e| format!("bad case: {e}"))?;
        let units: Vec<UnitText> = case.units.iter().map(|u| (&*u.power, &*u.kind, &*u.loc)).collect();
        let orders: Vec<&str> = case.orders.iter().map(|o| o.as_str()).collect();
        self.resolve_case(id, case.season.as_deref(), &units, &orders)
    }

    fn resolve_case(
        &mut self,
        id: &Value,
        season: Option<&str>,
        unit_texts: &[UnitText],
        order_texts: &[&str],
    ) -> Result<String, String> {
        if let Some(season) = season {
            if !["spring", "fall", "autumn"].iter().any(|s| season.eq_ignore_ascii_case(s)) {
                return Err(format!("a movement phase is in spring or fall, not `{season}`"));
            }
        }
        let map = self.map;
        let mut units = std::mem::take(&mut self.units);
        units.clear();
        self.occupied.clear();
        self.occupied.resize(map.provinces().len(), false);
        for u in unit_texts {
            let unit = match read_unit(map, &self.parser, *u) {
                Ok(unit) => unit,
                Err(e) => {
                    self.units = units;
                    return Err(e);
                }
            };
            let p = map.province_of(unit.region).0 as usize;
            if self.occupied[p] {
                self.units = units;
                return Err(format!("two units in {}", map.province(map.province_of(unit.region)).key.to_uppercase()));
            }
            self.occupied[p] = true;
            units.push(unit);
        }
        let parsed: Vec<_> = order_texts.iter().map(|o| self.parser.parse_order_line(o)).collect();
        let written: Vec<WrittenOrder> = parsed
            .iter()
            .filter_map(|p| p.as_ref().ok())
            .map(|(power, order)| WrittenOrder { power: *power, order: *order })
            .collect();
        let phase = collect_orders(map, &units, &written, &self.rulebook);
        let result = self.adjudicator.adjudicate(map, &units, &phase.orders, &self.rulebook);

        // The output, written as serde_json would write the same fields.
        let out = &mut self.out;
        out.clear();
        out.extend_from_slice(b"{\"id\":");
        json_value(out, id);
        out.extend_from_slice(b",\"units_after\":");
        self.unit_lines.write(out, &mut self.ranks, result.units_after.iter());
        out.extend_from_slice(b",\"dislodged\":");
        self.unit_lines.write(out, &mut self.ranks, result.dislodged.iter().map(|d| &d.dislodgement.unit));
        out.extend_from_slice(b",\"orders\":[");
        let mut resolved = phase.written.iter();
        for (k, (text, p)) in order_texts.iter().zip(&parsed).enumerate() {
            let (result_word, reason) = match p {
                Err(d) => ("invalid", Cow::Borrowed(d.message.as_str())),
                Ok(_) => match resolved.next() {
                    Some(Ok(i)) => {
                        let o = &result.outcomes[*i];
                        let word = if o.succeeded { "succeeds" } else { "fails" };
                        (word, Cow::Owned(o.reason.describe(map, &units, &phase.orders)))
                    }
                    Some(Err(e)) => {
                        let holds = !matches!(
                            e,
                            Illegal::NoUnit { .. } | Illegal::ForeignUnit { .. } | Illegal::NotAMovementOrder
                        );
                        let suffix = if holds { "; the unit holds" } else { "" };
                        ("illegal", Cow::Owned(format!("{}{suffix}", e.describe(map))))
                    }
                    None => ("invalid", Cow::Borrowed("not understood")),
                },
            };
            if k > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"order\":");
            json_str(out, text);
            out.extend_from_slice(b",\"result\":");
            json_str(out, result_word);
            out.extend_from_slice(b",\"reason\":");
            json_str(out, &reason);
            out.push(b'}');
        }
        out.extend_from_slice(b"]}");
        self.units = units;
        String::from_utf8(self.out.clone()).map_err(|e| format!("cannot write the result: {e}"))
    }
}

/// A JSON string, escaped by serde_json.
fn json_str(out: &mut Vec<u8>, s: &str) {
    // Writing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

fn json_value(out: &mut Vec<u8>, v: &Value) {
    let _ = serde_json::to_writer(&mut *out, v);
}

/// Adjudicate one case on the standard map by the default rulebook (see the module
/// documentation for the format).
pub fn resolve_line(line: &str) -> String {
    let map = Map::standard();
    BatchResolver::new(&map, Rulebook::default()).resolve_line(line)
}

fn error_line(id: &Value, error: String) -> String {
    serde_json::to_string(&ErrorOut { id, error: error.clone() })
        .unwrap_or_else(|_| format!("{{\"id\":null,\"error\":{:?}}}", error))
}

fn read_unit(map: &Map, parser: &OrderParser, (power, kind, loc): UnitText) -> Result<Unit, String> {
    let power = parser.power(power).ok_or_else(|| format!("unknown power `{power}`"))?;
    let kind = if kind.eq_ignore_ascii_case("a") || kind.eq_ignore_ascii_case("army") {
        UnitType::Army
    } else if kind.eq_ignore_ascii_case("f") || kind.eq_ignore_ascii_case("fleet") {
        UnitType::Fleet
    } else {
        return Err(format!("unknown unit type `{kind}` (A or F)"));
    };
    let region = parser.region(loc).ok_or_else(|| format!("unknown place `{loc}`"))?;
    let province = map.province_of(region);
    // A coast written for an army is ignored; a fleet in a split-coast province needs one.
    let region = match (kind, map.region(region).coast) {
        (UnitType::Army, Some(_)) => map.province(province).main_region,
        _ => region,
    };
    if !map.unit_can_stand(kind, region) {
        let place = loc.to_uppercase();
        return Err(match kind {
            UnitType::Army => format!("an army cannot stand in {place}"),
            UnitType::Fleet if !map.province(province).coasts.is_empty() => {
                format!("a fleet in {place} needs its coast")
            }
            UnitType::Fleet => format!("a fleet cannot stand in {place}"),
        });
    }
    Ok(Unit { power, kind, region })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_simple_case_moves_and_dislodges() {
        let line = r#"{"id": "c1", "season": "spring", "units": [{"power": "FRANCE", "type": "A", "loc": "PAR"}, {"power": "FRANCE", "type": "A", "loc": "PIC"}, {"power": "GERMANY", "type": "A", "loc": "BUR"}], "orders": ["FRANCE: A PAR - BUR", "FRANCE: A PIC S A PAR - BUR"]}"#;
        let out: Value = serde_json::from_str(&resolve_line(line)).unwrap();
        assert_eq!(out["units_after"], serde_json::json!(["FRANCE A BUR", "FRANCE A PIC"]));
        assert_eq!(out["dislodged"], serde_json::json!(["GERMANY A BUR"]));
        assert_eq!(out["orders"][0]["result"], "succeeds");
        assert_eq!(out["orders"][1]["reason"], "support given");
    }

    #[test]
    fn impossible_cases_are_errors_with_their_id() {
        let out = resolve_line(r#"{"id": 7, "units": [{"power": "FRANCE", "type": "A", "loc": "ENG"}], "orders": []}"#);
        assert_eq!(out, r#"{"id":7,"error":"an army cannot stand in ENG"}"#);
        let out = resolve_line("{not json");
        assert!(out.starts_with(r#"{"id":null,"error":"not a JSON object"#), "{out}");
    }
}
