//! `shadowjudge resolve`: the real binary on JSON Lines, a property test that no input
//! makes the batch function panic, and `--jobs 2` printing the same bytes as `--jobs 1`.

use proptest::prelude::*;
use shadowjudge::diplomacy::judge::batch::resolve_line;
use shadowjudge::diplomacy::judge::random::random_phase;
use shadowjudge::diplomacy::map::Map;

fn run_resolve(args: &[&str], input: &str) -> (String, bool) {
    let mut all = vec!["resolve"];
    all.extend_from_slice(args);
    let run = crate::harness::shadowjudge_at("", None, &all, Some(input.as_bytes()), &[]);
    (run.stdout, run.code == 0)
}

#[test]
fn resolve_answers_each_case_in_order_and_goes_on_after_a_bad_one() {
    let input = concat!(
        r#"{"id": "c1", "season": "spring", "units": [{"power": "FRANCE", "type": "A", "loc": "PAR"}, {"power": "GERMANY", "type": "A", "loc": "MUN"}], "orders": ["FRANCE: A PAR - BUR", "GERMANY: A MUN - BUR"]}"#,
        "\n",
        "this is not json\n",
        r#"{"id": "c3", "units": [{"power": "ENGLAND", "type": "F", "loc": "LON"}, {"power": "ENGLAND", "type": "A", "loc": "LON"}], "orders": []}"#,
        "\n",
        r#"{"id": "c4", "units": [{"power": "RUSSIA", "type": "F", "loc": "STP/SC"}, {"power": "TURKEY", "type": "F", "loc": "BOT"}], "orders": ["RUSSIA: F STP/SC - BOT", "RUSSIA: A MOS - STP", "TURKEY: F BOT H"]}"#,
        "\n",
    );
    let (out, ok) = run_resolve(&[], input);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[0],
        r#"{"id":"c1","units_after":["FRANCE A PAR","GERMANY A MUN"],"dislodged":[],"orders":[{"order":"FRANCE: A PAR - BUR","result":"fails","reason":"bounced with A mun (Germany)"},{"order":"GERMANY: A MUN - BUR","result":"fails","reason":"bounced with A par (France)"}]}"#
    );
    assert!(lines[1].starts_with(r#"{"id":null,"error":"not a JSON object"#), "{}", lines[1]);
    assert_eq!(lines[2], r#"{"id":"c3","error":"two units in LON"}"#);
    assert_eq!(
        lines[3],
        r#"{"id":"c4","units_after":["RUSSIA F STP/SC","TURKEY F BOT"],"dislodged":[],"orders":[{"order":"RUSSIA: F STP/SC - BOT","result":"fails","reason":"bounced with F bot (Turkey)"},{"order":"RUSSIA: A MOS - STP","result":"illegal","reason":"no unit in mos"},{"order":"TURKEY: F BOT H","result":"succeeds","reason":"held"}]}"#
    );
}

#[test]
fn resolve_rejects_an_unknown_rulebook() {
    let (_, ok) = run_resolve(&["--rulebook", "1066"], "");
    assert!(!ok);
    let (out, ok) = run_resolve(&["--rulebook", "1971"], "");
    assert!(ok && out.is_empty());
}

#[test]
fn ten_thousand_random_cases_give_the_same_bytes_on_one_or_two_threads() {
    let map = Map::standard();
    let mut input = String::new();
    for seed in 0..10_000u64 {
        input.push_str(&random_phase(&map, seed).to_json_line(&map, &format!("r{seed}")));
        input.push('\n');
    }
    let (one, ok1) = run_resolve(&["--jobs", "1"], &input);
    let (two, ok2) = run_resolve(&["--jobs", "2"], &input);
    assert!(ok1 && ok2);
    assert_eq!(one.lines().count(), 10_000);
    assert!(!one.contains("\"error\""), "random cases are all well formed");
    assert!(one == two, "--jobs 2 changed the output");
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(serde_json::Value::from),
        ".{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::hash_map("[a-z]{1,6}", inner, 0..6)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

const POWERS: &[&str] = &["FRANCE", "ENGLAND", "GERMANY", "RUSSIA", "TURKEY", "AUSTRIA", "ITALY", "MARS", ""];
const PLACES: &[&str] = &["PAR", "BUR", "MUN", "NTH", "STP/SC", "STP", "SPA/NC", "ENG", "LON", "KIE", "XYZ", "SWI", ""];

fn unit_value() -> impl Strategy<Value = serde_json::Value> {
    (prop::sample::select(POWERS), prop::sample::select(&["A", "F", "army", "Q"][..]), prop::sample::select(PLACES))
        .prop_map(|(p, t, l)| serde_json::json!({"power": p, "type": t, "loc": l}))
}

fn order_text() -> impl Strategy<Value = String> {
    let word = prop::sample::select(
        &[
            "A", "F", "-", "S", "C", "H", "via", "convoy", "FRANCE:", "ENGLAND:", "PAR", "BUR", "NTH", "STP/SC", "(",
            "R",
        ][..],
    );
    prop_oneof![prop::collection::vec(word, 0..9).prop_map(|w| w.join(" ")), ".{0,30}"]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_text_gives_one_json_line(line in ".{0,200}") {
        let out = resolve_line(&line);
        prop_assert!(!out.contains('\n'));
        prop_assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
    }

    #[test]
    fn random_json_never_panics(v in json_value()) {
        let out = resolve_line(&v.to_string());
        prop_assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
    }

    #[test]
    fn random_units_and_orders_never_panic(
        id in prop_oneof![
            any::<u64>().prop_map(serde_json::Value::from),
            "[0-9]{30,60}".prop_map(|s| serde_json::from_str::<serde_json::Value>(&s).unwrap_or(serde_json::Value::Null)),
            ".{0,300}".prop_map(serde_json::Value::from),
        ],
        units in prop::collection::vec(unit_value(), 0..20),
        orders in prop::collection::vec(order_text(), 0..20),
    ) {
        let line = serde_json::json!({"id": id, "season": "spring", "units": units, "orders": orders}).to_string();
        let out: serde_json::Value = serde_json::from_str(&resolve_line(&line)).expect("one JSON line");
        prop_assert!(out.get("error").is_some() || out.get("orders").map(|o| o.as_array().map(|a| a.len())) == Some(Some(orders.len())));
    }
}
