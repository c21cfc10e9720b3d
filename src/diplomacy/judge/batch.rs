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

mod case_json;

use std::fmt::Write;

use serde::Deserialize;
use serde_json::Value;

use crate::diplomacy::judge::legality::{Illegal, OrderCollector, PhaseOrders, WrittenOrder};
use crate::diplomacy::judge::movement::{Adjudicator, MovementResult};
use crate::diplomacy::judge::rulebook::Rulebook;
use crate::diplomacy::judge::Unit;
use crate::diplomacy::map::{Map, PowerId, UnitType};
use crate::diplomacy::order::grammar::{Diagnostic, OrderParser};
use crate::diplomacy::order::{Order, Place};
use case_json::CaseSpans;

/// A case as read through a `serde_json::Value`: the general path, for every line the
/// quick reader in [`case_json`] declines. It gives the exact error messages.
#[derive(Deserialize)]
struct CaseIn {
    /// The variant the case is on (`ancmed`): checked against the run's map.
    #[serde(default)]
    variant: Option<String>,
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

/// A case as read from its line, by either reader.
struct Case<'a> {
    /// The id as JSON text.
    id: &'a str,
    season: Option<&'a str>,
    units: &'a [UnitText<'a>],
    orders: &'a [&'a str],
    /// The order texts need no escaping in JSON.
    plain: bool,
}

use std::sync::Arc;

/// One order line as the parser read it.
type ParsedOrder = Result<(Option<PowerId>, Order<Place>), Diagnostic>;

/// One unit as the case gives it: power, type, place.
type UnitText<'a> = (&'a str, &'a str, &'a str);

/// Adjudicates cases one line at a time, reusing its parser and scratch space.
pub struct BatchResolver<'m> {
    map: &'m Map,
    /// The name tables, shared by every [`worker`](BatchResolver::worker).
    parser: Arc<OrderParser<'m>>,
    rulebook: Rulebook,
    adjudicator: Adjudicator,
    /// Every unit line the output can hold (`"FRANCE A PAR"`, JSON-escaped), by
    /// [`unit_key`], and its rank when the lines are sorted as strings; shared by every
    /// worker.
    unit_lines: Arc<UnitLines>,
    spans: CaseSpans,
    occupied: Vec<bool>,
    units: Vec<Unit>,
    parsed: Vec<ParsedOrder>,
    written: Vec<WrittenOrder>,
    ranks: Vec<u32>,
    /// The reason being written.
    reason: String,
    collector: OrderCollector,
    phase: PhaseOrders,
    result: MovementResult,
}

/// The unit lines of a map, written and ranked once.
struct UnitLines {
    regions: usize,
    /// By key: the byte range of its JSON string in `json`, and its sort rank.
    entries: Vec<(u32, u32, u32)>,
    /// By rank: the key.
    by_rank: Vec<u32>,
    json: String,
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
                    let region = map.region_name(crate::diplomacy::map::RegionId(r as u16)).to_uppercase();
                    texts.push(format!("{power} {} {region}", kind.letter()));
                }
            }
        }
        let mut by_rank: Vec<u32> = (0..texts.len() as u32).collect();
        by_rank.sort_by(|a, b| texts[*a as usize].cmp(&texts[*b as usize]));
        let mut entries = vec![(0, 0, 0); texts.len()];
        let mut json = String::new();
        for (key, text) in texts.iter().enumerate() {
            let start = json.len() as u32;
            push_json_str(&mut json, text);
            entries[key] = (start, json.len() as u32, 0);
        }
        for (rank, key) in by_rank.iter().enumerate() {
            entries[*key as usize].2 = rank as u32;
        }
        UnitLines { regions, entries, by_rank, json }
    }

    /// `["FRANCE A PAR","RUSSIA F STP/SC"]`: the units as text, sorted as strings.
    fn write<'u>(&self, out: &mut String, ranks: &mut Vec<u32>, units: impl Iterator<Item = &'u Unit>) {
        ranks.clear();
        ranks.extend(units.map(|u| self.entries[unit_key(self.regions, u)].2));
        // Equal ranks are equal lines.
        ranks.sort_unstable();
        out.push('[');
        for (k, rank) in ranks.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            let (start, end, _) = self.entries[self.by_rank[*rank as usize] as usize];
            out.push_str(&self.json[start as usize..end as usize]);
        }
        out.push(']');
    }
}

impl<'m> BatchResolver<'m> {
    pub fn new(map: &'m Map, rulebook: Rulebook) -> BatchResolver<'m> {
        BatchResolver::sharing(map, rulebook, Arc::new(OrderParser::new(map)), Arc::new(UnitLines::new(map)))
    }

    /// Another resolver for the same map and rulebook, for another thread: the map and the
    /// tables built from it are shared, only the scratch space is its own.
    pub fn worker(&self) -> BatchResolver<'m> {
        BatchResolver::sharing(self.map, self.rulebook.clone(), self.parser.clone(), self.unit_lines.clone())
    }

    fn sharing(
        map: &'m Map,
        rulebook: Rulebook,
        parser: Arc<OrderParser<'m>>,
        unit_lines: Arc<UnitLines>,
    ) -> BatchResolver<'m> {
        BatchResolver {
            map,
            parser,
            rulebook,
            adjudicator: Adjudicator::default(),
            unit_lines,
            spans: CaseSpans::default(),
            occupied: Vec::new(),
            units: Vec::new(),
            parsed: Vec::new(),
            written: Vec::new(),
            ranks: Vec::new(),
            reason: String::new(),
            collector: OrderCollector::default(),
            phase: PhaseOrders::default(),
            result: MovementResult::default(),
        }
    }

    /// Whether a case's `variant` names this resolver's map (a shipped variant by any of
    /// its names, or a map file's `name`).
    fn is_on(&self, variant: &str) -> bool {
        let named = crate::diplomacy::map::shipped::find(variant).map_or(variant, |v| v.name);
        crate::diplomacy::map::normalize_name(named) == crate::diplomacy::map::normalize_name(&self.map.variant)
    }

    /// One input line to one output line (without the newline). Never panics.
    pub fn resolve_line(&mut self, line: &str) -> String {
        let mut out = String::new();
        self.resolve_line_into(line, &mut out);
        out
    }

    /// [`BatchResolver::resolve_line`], appending the output line to `out`.
    pub fn resolve_line_into(&mut self, line: &str, out: &mut String) {
        let mut spans = std::mem::take(&mut self.spans);
        if spans.read(line) {
            let text = |r: &std::ops::Range<usize>| &line[r.clone()];
            let units: Vec<UnitText> = spans.units.iter().map(|[p, k, l]| (text(p), text(k), text(l))).collect();
            let orders: Vec<&str> = spans.orders.iter().map(text).collect();
            let id = spans.id.as_ref().map_or("null", text);
            let season = spans.season.as_ref().map(text);
            // The quick reader took strings without escapes: they are written back as they are.
            self.case_into(out, Case { id, season, units: &units, orders: &orders, plain: true });
            self.spans = spans;
            return;
        }
        self.spans = spans;
        self.resolve_general(line, out);
    }

    /// Any line, read through a `serde_json::Value`.
    fn resolve_general(&mut self, line: &str, out: &mut String) {
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return error_into(out, "null", &format!("not a JSON object: {e}")),
        };
        let id = value.get("id").unwrap_or(&Value::Null).to_string();
        if !value.is_object() {
            return error_into(out, &id, "a case must be a JSON object");
        }
        match CaseIn::deserialize(&value) {
            Ok(case) if case.variant.as_deref().is_some_and(|v| !self.is_on(v)) => {
                let v = case.variant.as_deref().unwrap_or_default();
                error_into(
                    out,
                    &id,
                    &format!(
                        "this case is on the variant `{v}` and this run on `{}`: a run resolves one map \
                         (`resolve --map {v}`)",
                        self.map.variant
                    ),
                )
            }
            Ok(case) => {
                let units: Vec<UnitText> = case.units.iter().map(|u| (&*u.power, &*u.kind, &*u.loc)).collect();
                let orders: Vec<&str> = case.orders.iter().map(|o| o.as_str()).collect();
                let season = case.season.as_deref();
                self.case_into(out, Case { id: &id, season, units: &units, orders: &orders, plain: false });
            }
            Err(e) => error_into(out, &id, &format!("bad case: {e}")),
        }
    }

    /// The output line of a case: its result or its error.
    fn case_into(&mut self, out: &mut String, case: Case) {
        let start = out.len();
        if let Err(message) = self.write_case(out, &case) {
            out.truncate(start);
            error_into(out, case.id, &message);
        }
    }

    fn write_case(&mut self, out: &mut String, case: &Case) -> Result<(), String> {
        let (id, unit_texts, order_texts) = (case.id, case.units, case.orders);
        if let Some(season) = case.season {
            if !["spring", "fall", "autumn"].iter().any(|s| season.eq_ignore_ascii_case(s)) {
                return Err(format!("a movement phase is in spring or fall, not `{season}`"));
            }
        }
        let map = self.map;
        let units = &mut self.units;
        units.clear();
        self.occupied.clear();
        self.occupied.resize(map.provinces().len(), false);
        for u in unit_texts {
            let unit = read_unit(map, &self.parser, *u)?;
            let p = map.province_of(unit.region).0 as usize;
            if self.occupied[p] {
                return Err(format!("two units in {}", map.province(map.province_of(unit.region)).key.to_uppercase()));
            }
            self.occupied[p] = true;
            units.push(unit);
        }
        let units = &self.units;
        self.parsed.clear();
        self.parsed.extend(order_texts.iter().map(|o| self.parser.parse_order_line(o)));
        self.written.clear();
        self.written.extend(
            self.parsed
                .iter()
                .filter_map(|p| p.as_ref().ok())
                .map(|(power, order)| WrittenOrder { power: *power, order: *order }),
        );
        let phase = &mut self.phase;
        self.collector.collect_into(map, units, &self.written, &self.rulebook, phase);
        let result = &mut self.result;
        self.adjudicator.adjudicate_into(map, units, &phase.orders, &self.rulebook, result);

        // The output, written as serde_json would write the same fields.
        out.push_str("{\"id\":");
        out.push_str(id);
        out.push_str(",\"units_after\":");
        self.unit_lines.write(out, &mut self.ranks, result.units_after.iter());
        out.push_str(",\"dislodged\":");
        self.unit_lines.write(out, &mut self.ranks, result.dislodged.iter().map(|d| &d.dislodgement.unit));
        out.push_str(",\"orders\":[");
        let mut resolved = phase.written.iter();
        let reason = &mut self.reason;
        for (k, (text, p)) in order_texts.iter().zip(&self.parsed).enumerate() {
            reason.clear();
            let result_word = match p {
                Err(d) => {
                    reason.push_str(&d.message);
                    "invalid"
                }
                Ok(_) => match resolved.next() {
                    Some(Ok(i)) => {
                        let o = &result.outcomes[*i];
                        o.reason.write(reason, map, units, &phase.orders);
                        if o.succeeded {
                            "succeeds"
                        } else {
                            "fails"
                        }
                    }
                    Some(Err(e)) => {
                        let holds = !matches!(
                            e,
                            Illegal::NoUnit { .. } | Illegal::ForeignUnit { .. } | Illegal::NotAMovementOrder
                        );
                        let suffix = if holds { "; the unit holds" } else { "" };
                        let _ = write!(reason, "{}{suffix}", e.describe(map));
                        "illegal"
                    }
                    None => {
                        reason.push_str("not understood");
                        "invalid"
                    }
                },
            };
            if k > 0 {
                out.push(',');
            }
            out.push_str("{\"order\":");
            if case.plain {
                out.push('"');
                out.push_str(text);
                out.push('"');
            } else {
                push_json_str(out, text);
            }
            out.push_str(",\"result\":\"");
            out.push_str(result_word);
            out.push_str("\",\"reason\":");
            push_json_str(out, reason);
            out.push('}');
        }
        out.push_str("]}");
        Ok(())
    }
}

/// A JSON string as serde_json writes it: quoted, and escaped only where it must be.
fn push_json_str(out: &mut String, s: &str) {
    if case_json::plain_len(s.as_bytes()) == s.len() {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        // Serializing a string cannot fail.
        out.push_str(&serde_json::to_string(s).unwrap_or_default());
    }
}

/// Adjudicate one case on the standard map by the default rulebook (see the module
/// documentation for the format).
pub fn resolve_line(line: &str) -> String {
    let map = Map::standard();
    BatchResolver::new(&map, Rulebook::default()).resolve_line(line)
}

/// `{"id":null,"error":"..."}`: the answer to a line that could not be read at all (not
/// text), so the output keeps one line per input line.
pub fn error_line_into(out: &mut String, error: &str) {
    error_into(out, "null", error)
}

/// `{"id":...,"error":"..."}`, the id given as JSON text.
fn error_into(out: &mut String, id: &str, error: &str) {
    out.push_str("{\"id\":");
    out.push_str(id);
    out.push_str(",\"error\":");
    push_json_str(out, error);
    out.push('}');
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
    fn a_case_names_its_variant_and_is_resolved_on_its_map_only() {
        let map = crate::diplomacy::map::shipped::map("ancmed").unwrap();
        let mut r = BatchResolver::new(&map, Rulebook::default());
        let case = |variant: &str| {
            format!(
                r#"{{"id": 1, "variant": "{variant}", "units": [{{"power": "ROME", "type": "A", "loc": "ROM"}}], "orders": ["ROME: A ROM - ETR"]}}"#
            )
        };
        let out: Value = serde_json::from_str(&r.resolve_line(&case("ancient mediterranean"))).unwrap();
        assert_eq!(out["units_after"], serde_json::json!(["ROME A ETR"]), "{out}");
        let out: Value = serde_json::from_str(&r.resolve_line(&case("standard"))).unwrap();
        let error = out["error"].as_str().unwrap();
        assert!(error.contains("`resolve --map standard`"), "{error}");
        // On the standard map a case that names it is resolved as one that does not.
        let standard = Map::standard();
        let mut r = BatchResolver::new(&standard, Rulebook::default());
        let line = r#"{"id": 2, "variant": "standard", "units": [{"power": "FRANCE", "type": "A", "loc": "PAR"}], "orders": ["FRANCE: A PAR - BUR"]}"#;
        let out: Value = serde_json::from_str(&r.resolve_line(line)).unwrap();
        assert_eq!(out["units_after"], serde_json::json!(["FRANCE A BUR"]), "{out}");
    }

    #[test]
    fn the_quick_reader_and_serde_give_the_same_bytes() {
        let map = Map::standard();
        let mut resolver = BatchResolver::new(&map, Rulebook::default());
        let mut lines: Vec<String> = (0..300u64)
            .map(|seed| {
                crate::diplomacy::judge::random::random_phase(&map, seed).to_json_line(&map, &format!("r{seed}"))
            })
            .collect();
        lines.extend(
            [
                r#"{"units": [{"power": "FRANCE", "type": "A", "loc": "PAR"}], "orders": ["A PAR - BUR", "xyz"], "id": 12}"#,
                r#" { "id" : null , "season" : null , "units" : [ ] } "#,
                r#"{"id": true, "season": "winter", "units": []}"#,
                r#"{"id": "x", "units": [{"power": "FRANCE", "type": "A", "loc": "PAR"}, {"power": "ITALY", "type": "F", "loc": "PAR"}]}"#,
                r#"{"id": "y", "units": [{"power": "MARS", "type": "A", "loc": "PAR"}], "extra": {"a": [1, -2, "b"]}}"#,
            ]
            .map(String::from),
        );
        for line in &lines {
            let mut spans = CaseSpans::default();
            assert!(spans.read(line), "the quick reader should take {line}");
            let (mut quick, mut general) = (String::new(), String::new());
            resolver.resolve_line_into(line, &mut quick);
            resolver.resolve_general(line, &mut general);
            assert_eq!(quick, general, "{line}");
        }
    }

    mod quick_and_general {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(400))]

            /// Whatever shape a case takes (ids of every kind, escapes, extra fields, pretty
            /// printing), the quick reader either declines or answers as serde does.
            #[test]
            fn the_quick_reader_never_answers_differently(
                id in prop_oneof![
                    any::<i64>().prop_map(Value::from),
                    any::<f64>().prop_map(Value::from),
                    ".{0,12}".prop_map(Value::from),
                    Just(Value::Null),
                    any::<bool>().prop_map(Value::from),
                ],
                season in prop::option::of("spring|fall|Winter|spr\"ing"),
                units in prop::collection::vec(
                    ("FRANCE|ENGLAND|Russia|MARS|fr\\a", "A|F|army|Q", "PAR|BUR|NTH|STP/SC|SPA|ENG|X\"Y"), 0..8),
                orders in prop::collection::vec("(FRANCE: )?(A|F) (PAR|BUR|NTH|ENG) (- (BUR|PAR|PIC)|H|S A PAR - BUR)|.{0,12}", 0..8),
                extra in prop::option::of(".{0,8}"),
                pretty in any::<bool>(),
            ) {
                let units: Vec<Value> =
                    units.iter().map(|(p, t, l)| serde_json::json!({"power": p, "type": t, "loc": l})).collect();
                let mut case = serde_json::json!({"id": id, "units": units, "orders": orders});
                if let Some(season) = season {
                    case["season"] = Value::from(season);
                }
                if let Some(extra) = extra {
                    case["note"] = serde_json::json!([extra, 1, {"x": null}]);
                }
                let line = if pretty { serde_json::to_string_pretty(&case) } else { serde_json::to_string(&case) };
                let line = line.expect("a JSON value");
                let map = Map::standard();
                let mut resolver = BatchResolver::new(&map, Rulebook::default());
                let (mut quick, mut general) = (String::new(), String::new());
                resolver.resolve_line_into(&line, &mut quick);
                resolver.resolve_general(&line, &mut general);
                prop_assert_eq!(quick, general, "{}", line);
            }
        }
    }

    #[test]
    fn impossible_cases_are_errors_with_their_id() {
        let out = resolve_line(r#"{"id": 7, "units": [{"power": "FRANCE", "type": "A", "loc": "ENG"}], "orders": []}"#);
        assert_eq!(out, r#"{"id":7,"error":"an army cannot stand in ENG"}"#);
        let out = resolve_line("{not json");
        assert!(out.starts_with(r#"{"id":null,"error":"not a JSON object"#), "{out}");
    }
}
