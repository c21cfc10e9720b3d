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

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::judge::legality::{collect_orders, Illegal, WrittenOrder};
use crate::judge::movement::Adjudicator;
use crate::judge::rulebook::Rulebook;
use crate::judge::Unit;
use crate::map::{Map, UnitType};
use crate::order::grammar::OrderParser;

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

#[derive(Serialize)]
struct CaseOut<'a> {
    id: &'a Value,
    units_after: Vec<String>,
    dislodged: Vec<String>,
    orders: Vec<OrderOut<'a>>,
}

#[derive(Serialize)]
struct OrderOut<'a> {
    order: &'a str,
    result: &'static str,
    reason: String,
}

#[derive(Serialize)]
struct ErrorOut<'a> {
    id: &'a Value,
    error: String,
}

/// Adjudicates cases one line at a time, reusing its parser and scratch space.
pub struct BatchResolver<'m> {
    map: &'m Map,
    parser: OrderParser<'m>,
    rulebook: Rulebook,
    adjudicator: Adjudicator,
}

impl<'m> BatchResolver<'m> {
    pub fn new(map: &'m Map, rulebook: Rulebook) -> BatchResolver<'m> {
        BatchResolver { map, parser: OrderParser::new(map), rulebook, adjudicator: Adjudicator::default() }
    }

    /// One input line to one output line (without the newline). Never panics.
    pub fn resolve_line(&mut self, line: &str) -> String {
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
        if let Some(season) = &case.season {
            let s = season.to_ascii_lowercase();
            if !matches!(s.as_str(), "spring" | "fall" | "autumn") {
                return Err(format!("a movement phase is in spring or fall, not `{season}`"));
            }
        }
        let map = self.map;
        let mut units = Vec::with_capacity(case.units.len());
        let mut occupied = vec![false; map.provinces().len()];
        for u in &case.units {
            let unit = read_unit(map, u)?;
            let p = map.province_of(unit.region).0 as usize;
            if occupied[p] {
                return Err(format!("two units in {}", map.province(map.province_of(unit.region)).key.to_uppercase()));
            }
            occupied[p] = true;
            units.push(unit);
        }
        let parsed: Vec<_> = case.orders.iter().map(|o| self.parser.parse_order_line(o)).collect();
        let written: Vec<WrittenOrder> = parsed
            .iter()
            .filter_map(|p| p.as_ref().ok())
            .map(|(power, order)| WrittenOrder { power: *power, order: *order })
            .collect();
        let phase = collect_orders(map, &units, &written, &self.rulebook);
        let result = self.adjudicator.adjudicate(map, &units, &phase.orders, &self.rulebook);
        let mut orders = Vec::with_capacity(case.orders.len());
        let mut resolved = phase.written.iter();
        for (text, p) in case.orders.iter().zip(&parsed) {
            let (result_word, reason) = match p {
                Err(d) => ("invalid", d.message.clone()),
                Ok(_) => match resolved.next() {
                    Some(Ok(i)) => {
                        let o = &result.outcomes[*i];
                        let word = if o.succeeded { "succeeds" } else { "fails" };
                        (word, o.reason.describe(map, &units, &phase.orders))
                    }
                    Some(Err(e)) => {
                        let holds = !matches!(
                            e,
                            Illegal::NoUnit { .. } | Illegal::ForeignUnit { .. } | Illegal::NotAMovementOrder
                        );
                        let suffix = if holds { "; the unit holds" } else { "" };
                        ("illegal", format!("{}{suffix}", e.describe(map)))
                    }
                    None => ("invalid", "not understood".to_string()),
                },
            };
            orders.push(OrderOut { order: text, result: result_word, reason });
        }
        let mut units_after: Vec<String> = result.units_after.iter().map(|u| unit_text(map, u)).collect();
        units_after.sort();
        let mut dislodged: Vec<String> =
            result.dislodged.iter().map(|d| unit_text(map, &d.dislodgement.unit)).collect();
        dislodged.sort();
        let out = CaseOut { id, units_after, dislodged, orders };
        serde_json::to_string(&out).map_err(|e| format!("cannot write the result: {e}"))
    }
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

fn read_unit(map: &Map, u: &UnitIn) -> Result<Unit, String> {
    let power = map.lookup_power(&u.power).ok_or_else(|| format!("unknown power `{}`", u.power))?;
    let kind = match u.kind.to_ascii_lowercase().as_str() {
        "a" | "army" => UnitType::Army,
        "f" | "fleet" => UnitType::Fleet,
        _ => return Err(format!("unknown unit type `{}` (A or F)", u.kind)),
    };
    let region = map.parse_region(&u.loc).ok_or_else(|| format!("unknown place `{}`", u.loc))?;
    let province = map.province_of(region);
    // A coast written for an army is ignored; a fleet in a split-coast province needs one.
    let region = match (kind, map.region(region).coast) {
        (UnitType::Army, Some(_)) => map.province(province).main_region,
        _ => region,
    };
    if !map.unit_can_stand(kind, region) {
        let place = u.loc.to_uppercase();
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

/// `FRANCE A PAR`, `RUSSIA F STP/SC`.
fn unit_text(map: &Map, u: &Unit) -> String {
    format!(
        "{} {} {}",
        map.power(u.power).name.to_uppercase(),
        u.kind.letter(),
        map.region_name(u.region).to_uppercase()
    )
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
