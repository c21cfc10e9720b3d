//! The order grammar: a corpus of notations with snapshots of what was understood, the
//! mixed-notation sample file, properties over arbitrary input, and `orders check` run
//! as a binary.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use shadowjudge::diplomacy::map::Map;
use shadowjudge::diplomacy::order::grammar::{parse_order_line, parse_orders, ParsedFile};
use shadowjudge::diplomacy::order::power_label;

fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// What the grammar made of a file, line by line, as a reviewer reads it.
fn describe(map: &Map, parsed: &ParsedFile) -> String {
    let mut lines: Vec<(usize, String)> = Vec::new();
    for o in &parsed.orders {
        let board = o.board.map(|b| format!("[{b}] ")).unwrap_or_default();
        let power = o.power.map(|p| format!("{}: ", power_label(map, p))).unwrap_or_default();
        lines.push((o.line, format!("{:>3}  {board}{power}{}", o.line, o.order.canonical(map))));
    }
    for d in &parsed.diagnostics {
        let mut s = format!("{:>3}  error {}:{}: {}", d.line, d.line, d.column, d.message);
        if let Some(h) = &d.hint {
            s.push_str(&format!("\n       help: {h}"));
        }
        lines.push((d.line, s));
    }
    lines.sort_by_key(|(line, _)| *line);
    lines.into_iter().map(|(_, s)| s).collect::<Vec<_>>().join("\n")
}

#[test]
fn grammar_corpus_snapshots() {
    let map = Map::standard();
    let dir = repo_path("tests/data/parser");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the corpus is in {}", dir.display());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let parsed = parse_orders(&text, &map);
        insta::with_settings!({ input_file => &path, prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(format!("grammar_{name}"), describe(&map, &parsed));
        });
    }
}

#[test]
fn grammar_corpus_files_without_errors_in_their_name_have_no_diagnostics() {
    let map = Map::standard();
    for entry in std::fs::read_dir(repo_path("tests/data/parser")).unwrap() {
        let path = entry.unwrap().path();
        if path.file_stem().is_some_and(|s| s == "errors") {
            continue;
        }
        let parsed = parse_orders(&std::fs::read_to_string(&path).unwrap(), &map);
        assert!(parsed.diagnostics.is_empty(), "{}: {:?}", path.display(), parsed.diagnostics);
    }
}

#[test]
fn grammar_mixed_notation_has_40_orders_and_10_broken_lines() {
    let map = Map::standard();
    let text = std::fs::read_to_string(repo_path("orders/mixed-notation.txt")).unwrap();
    let parsed = parse_orders(&text, &map);
    assert_eq!(parsed.orders.len(), 40, "{}", describe(&map, &parsed));
    let at: Vec<(usize, usize)> = parsed.diagnostics.iter().map(|d| (d.line, d.column)).collect();
    assert_eq!(
        at,
        [(22, 9), (30, 15), (37, 13), (38, 1), (44, 6), (46, 7), (54, 13), (58, 9), (64, 6), (66, 8)],
        "{}",
        describe(&map, &parsed)
    );
    // Each span starts where the column says.
    for d in &parsed.diagnostics {
        let line_start = text[..d.span.start].rfind('\n').map_or(0, |i| i + 1);
        assert_eq!(text[line_start..d.span.start].chars().count() + 1, d.column, "{}", d.message);
    }
    let russia = map.lookup_power("russia");
    let build = parsed.orders.iter().find(|o| o.line == 55).unwrap();
    assert_eq!((build.power, build.order.canonical(&map)), (russia, "build A mos".to_string()));
}

#[test]
fn grammar_sample_order_files_are_understood() {
    let map = Map::standard();
    for name in ["orders/spring-1901.txt", "orders/shadow-spring-1901.txt", "orders/winter-1901.txt"] {
        let parsed = parse_orders(&std::fs::read_to_string(repo_path(name)).unwrap(), &map);
        assert!(parsed.diagnostics.is_empty(), "{name}: {:?}", parsed.diagnostics);
        assert!(parsed.orders.iter().all(|o| o.power.is_some()), "{name}: an order has no power");
    }
    let shadow = parse_orders(&std::fs::read_to_string(repo_path("orders/shadow-spring-1901.txt")).unwrap(), &map);
    assert!(shadow.orders.iter().all(|o| o.board.is_some()));
    assert!(shadow.orders.iter().any(|o| o.board == Some(shadowjudge::diplomacy::order::Board::B)));
}

#[test]
fn grammar_datc_notation_from_the_batch_api() {
    let map = Map::standard();
    for (line, power, canonical) in [
        ("FRANCE: A PAR - BUR", "France", "A par - bur"),
        ("ENG: F nth convoys lon -> bel", "England", "F nth C lon - bel"),
        ("AUS: A ven holds", "Austria", "A ven H"),
        ("ENG: A lvp supports A yor -> yor", "England", "A lvp S A yor - yor"),
        ("GER: F kie -> kie", "Germany", "F kie - kie"),
    ] {
        let (p, order) = parse_order_line(line, &map).unwrap_or_else(|d| panic!("{line}: {}", d.message));
        assert_eq!(p.map(|p| power_label(&map, p)), Some(power), "{line}");
        assert_eq!(order.canonical(&map), canonical, "{line}");
    }
    let d = parse_order_line("", &map).unwrap_err();
    assert_eq!((d.line, d.column), (1, 1));
}

/// Other engines' notation (MILA's engine and the bot frameworks): a trailing bare `VIA`
/// is a move by convoy, and their retreats, builds, removals and waives read as ours.
/// Order files, game submissions, mail and `resolve` all read orders with this grammar.
#[test]
fn grammar_other_engines_notation() {
    let map = Map::standard();
    for (line, canonical) in [
        ("A LVP - EDI VIA", "A lvp - edi via convoy"),
        ("ENGLAND: A LVP - EDI VIA", "A lvp - edi via convoy"),
        ("A LVP - EDI VIA.", "A lvp - edi via convoy"),
        ("A PAR R BUR", "A par R bur"),
        ("A PAR B", "build A par"),
        ("F STP/SC B", "build F stp/sc"),
        ("A PAR D", "A par disband"),
        ("WAIVE", "waive"),
    ] {
        let (_, order) = parse_order_line(line, &map).unwrap_or_else(|d| panic!("{line}: {}", d.message));
        assert_eq!(order.canonical(&map), canonical, "{line}");
        let parsed = parse_orders(line, &map);
        assert_eq!(parsed.orders.len(), 1, "{line}: {:?}", parsed.diagnostics);
        assert_eq!(parsed.orders[0].order.canonical(&map), canonical, "{line}");
    }
    // `VIA` followed by anything but the end of the order still wants `convoy`.
    let d = parse_order_line("A LVP - EDI VIA NTH", &map).unwrap_err();
    assert_eq!(d.message, "expected `convoy` after `VIA`, found `NTH`");
    let d = parse_order_line("A LVP - EDI BY", &map).unwrap_err();
    assert_eq!(d.message, "expected `convoy` after `BY`, found the end of the line");
}

/// A MILA-style batch: the army ordered `VIA` is convoyed by a foreign fleet and swaps
/// with the army moving the other way; without `VIA` the two bounce over land.
#[test]
fn grammar_resolve_reads_a_trailing_via_as_by_convoy() {
    let case = |via: &str| {
        format!(
            r#"{{"id":"v","units":[{{"power":"ENGLAND","type":"A","loc":"NWY"}},{{"power":"GERMANY","type":"F","loc":"SKA"}},{{"power":"RUSSIA","type":"A","loc":"SWE"}}],"orders":["ENGLAND: A NWY - SWE{via}","GERMANY: F SKA C A NWY - SWE","RUSSIA: A SWE - NWY"]}}"#
        )
    };
    let with_via = shadowjudge::diplomacy::judge::batch::resolve_line(&case(" VIA"));
    assert!(with_via.contains(r#""units_after":["ENGLAND A SWE","GERMANY F SKA","RUSSIA A NWY"]"#), "{with_via}");
    let without = shadowjudge::diplomacy::judge::batch::resolve_line(&case(""));
    assert!(without.contains(r#""units_after":["ENGLAND A NWY","GERMANY F SKA","RUSSIA A SWE"]"#), "{without}");
}

/// Lines that can never be an order: they start with a character no rule accepts.
fn garbage_line() -> impl Strategy<Value = String> {
    ("[%~*=!?@$^&|]", "[^\n#/]{0,60}").prop_map(|(a, b)| format!("{a}{b}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn grammar_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let map = Map::standard();
        let text = String::from_utf8_lossy(&bytes);
        let parsed = parse_orders(&text, &map);
        check_invariants(&text, &parsed);
    }

    #[test]
    fn grammar_never_panics_on_random_unicode_lines(lines in proptest::collection::vec("\\PC{0,80}", 0..40)) {
        let map = Map::standard();
        let text = lines.join("\n");
        let parsed = parse_orders(&text, &map);
        check_invariants(&text, &parsed);
        for line in &lines {
            let _ = parse_order_line(line, &map);
        }
    }

    #[test]
    fn grammar_gives_one_diagnostic_per_garbage_line(lines in proptest::collection::vec(garbage_line(), 1..50)) {
        let map = Map::standard();
        let text = lines.join("\n");
        let parsed = parse_orders(&text, &map);
        prop_assert_eq!(parsed.diagnostics.len(), lines.len());
        prop_assert!(parsed.orders.is_empty());
        for (i, d) in parsed.diagnostics.iter().enumerate() {
            prop_assert_eq!(d.line, i + 1);
        }
    }

    #[test]
    fn grammar_gives_one_diagnostic_per_broken_line_among_orders(
        broken in proptest::collection::vec(proptest::bool::ANY, 1..40),
    ) {
        let map = Map::standard();
        let lines: Vec<&str> = broken.iter().map(|b| if *b { "A par - Bugundy" } else { "F nth C A lon - bel" }).collect();
        let parsed = parse_orders(&lines.join("\n"), &map);
        prop_assert_eq!(parsed.diagnostics.len(), broken.iter().filter(|b| **b).count());
        prop_assert_eq!(parsed.orders.len(), broken.iter().filter(|b| !**b).count());
    }
}

/// Each line gives at most one thing; lines, columns and spans point into the text.
fn check_invariants(text: &str, parsed: &ParsedFile) {
    let line_count = text.split('\n').count();
    let mut seen = std::collections::HashSet::new();
    for d in &parsed.diagnostics {
        assert!(seen.insert(d.line), "two diagnostics on line {}", d.line);
        assert!(d.line >= 1 && d.line <= line_count);
        assert!(d.column >= 1);
        assert!(text.get(d.span.clone()).is_some(), "span {:?} is not in the text", d.span);
    }
    for o in &parsed.orders {
        assert!(seen.insert(o.line), "an order and something else on line {}", o.line);
        assert!(text.get(o.span.clone()).is_some());
    }
}

#[test]
fn grammar_a_line_of_100_000_characters_is_one_short_diagnostic() {
    let map = Map::standard();
    for line in
        ["x".repeat(100_000), "A ".repeat(50_000), "é ".repeat(50_000), format!("A par -{}", " ".repeat(100_000))]
    {
        let parsed = parse_orders(&line, &map);
        assert_eq!(parsed.diagnostics.len(), 1);
        assert!(parsed.diagnostics[0].message.chars().count() < 200);
    }
}

#[test]
fn grammar_a_file_of_one_megabyte_is_read_whole() {
    // Its speed is measured by `cargo bench --bench grammar`, not here.
    let map = Map::standard();
    let block = "France:\nA par - bur\nF mao - spa/nc # comment\nF nth C A lon - bel\nA par - Bugundy\n\n";
    let text = block.repeat(1_000_000 / block.len() + 1);
    let parsed = parse_orders(&text, &map);
    let blocks = text.len() / block.len();
    assert_eq!(parsed.orders.len(), 3 * blocks);
    assert_eq!(parsed.diagnostics.len(), blocks);
}

/// Run the built binary with `args`, feeding `stdin`; (exit code, stdout, stderr).
fn run_binary(args: &[&str], stdin: &str) -> (i32, String, String) {
    let run = crate::harness::shadowjudge_at("", None, args, Some(stdin.as_bytes()), &[("NO_COLOR", "1")]);
    (run.code, run.stdout, run.stderr)
}

#[test]
fn grammar_cli_check_prints_canonical_orders_and_exits_0() {
    let (code, out, err) = run_binary(&["orders", "check", "--map", "standard", "-"], "Board B\nFrance:\nA par-bur\n");
    assert_eq!((code, out.as_str(), err.as_str()), (0, "[B] France: A par - bur\n", "1 order understood.\n"));
}

#[test]
fn grammar_cli_check_draws_each_bad_line_and_exits_1() {
    let path = repo_path("tests/data/parser/errors.txt");
    let (code, out, err) = run_binary(&["orders", "check", path.to_str().unwrap()], "");
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    let err = err.replace(path.to_str().unwrap(), "errors.txt");
    assert_eq!(err.matches("error: ").count(), 20);
    insta::assert_snapshot!("grammar_cli_errors", err);
}

#[test]
fn grammar_cli_check_json() {
    let (code, out, _) = run_binary(&["orders", "check", "--json", "-"], "[A]\nENG: F lon - nth\nA par - Bugundy\n");
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "orders": [{"line": 2, "power": "England", "board": "A", "order": "F lon - nth"}],
            "diagnostics": [{"line": 3, "column": 9,
                "message": "expected a province after `-`, found `Bugundy`",
                "hint": "did you mean `bur` (Burgundy)?"}],
        })
    );
}

#[test]
fn grammar_cli_check_reads_a_map_file_and_rejects_a_missing_one() {
    let map = repo_path("maps/standard/map.toml");
    let (code, out, _) = run_binary(&["orders", "check", "--map", map.to_str().unwrap(), "-"], "A par H\n");
    assert_eq!((code, out.as_str()), (0, "A par H\n"));
    let (code, _, err) = run_binary(&["orders", "check", "--map", "no/such/map.toml", "-"], "A par H\n");
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run_binary(&["orders", "check", "no/such/orders.txt"], "");
    assert_eq!(code, 3, "{err}");
}

#[test]
fn grammar_cli_map_show() {
    let (code, out, _) = run_binary(&["map", "show", "standard"], "");
    assert_eq!(code, 0);
    assert!(out.contains("  stp  St Petersburg, coast, center, home of Russia\n"), "{out}");
    assert!(out.contains("       fleet stp/sc: bot fin lvn\n"), "{out}");
    let (code, out, _) = run_binary(&["map", "show", "--json"], "");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["provinces"].as_array().unwrap().len(), 76);
    let bul = v["provinces"].as_array().unwrap().iter().find(|p| p["key"] == "bul").unwrap();
    assert_eq!(bul["fleet"]["bul/ec"], serde_json::json!(["bla", "con", "rum"]));
}
