//! `orders check --position`: orders understood but impossible in a position are warnings.

fn check(position: &str, orders: &str, json: bool) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let pos = dir.path().join("position.toml");
    let file = dir.path().join("orders.txt");
    std::fs::write(&pos, position).unwrap();
    std::fs::write(&file, orders).unwrap();
    let mut args = vec!["orders", "check", "--position", pos.to_str().unwrap(), file.to_str().unwrap()];
    if json {
        args.push("--json");
    }
    let run = crate::harness::shadowjudge_at("", None, &args, None, &[]);
    (run.code, run.stdout, run.stderr)
}

const SPRING: &str =
    "season = \"spring\"\nyear = 1901\n[units]\nfrance = [\"A par\", \"F bre\"]\ngermany = [\"A mun\"]\n";

#[test]
fn illegal_orders_are_warnings_with_their_line() {
    let (code, stdout, stderr) = check(SPRING, "France:\nA par - bur\nF bre - par\nA mun - ber\nA ruh - bur\n", false);
    assert_eq!(code, 0, "illegal is not invalid: {stderr}");
    assert_eq!(stdout.lines().count(), 4);
    assert!(stderr.contains("orders.txt:3:1") && stderr.contains("cannot move inland"), "{stderr}");
    assert!(stderr.contains("orders.txt:4:1") && stderr.contains("German, not yours"), "{stderr}");
    assert!(stderr.contains("orders.txt:5:1") && stderr.contains("no unit in Ruhr"), "{stderr}");
    assert!(!stderr.contains(":2:1"), "the legal move is not flagged: {stderr}");
}

#[test]
fn json_lists_illegal_orders_apart_from_diagnostics() {
    let (code, stdout, _) = check(SPRING, "France:\nA par - bur\nF bre - par\nA par - Bugundy\n", true);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["illegal"].as_array().unwrap().len(), 1);
    assert_eq!(v["illegal"][0]["line"], 3);
    assert_eq!(v["diagnostics"][0]["line"], 4);
}

#[test]
fn winter_builds_are_checked_against_the_position() {
    let winter = "season = \"winter\"\nyear = 1901\n[units]\nfrance = [\"A par\"]\n[centers]\nfrance = [\"par\", \"bre\", \"mar\", \"spa\"]\n";
    let (_, _, stderr) = check(winter, "France:\nbuild A par\nbuild F bre\nbuild A mun\n", false);
    assert!(stderr.contains("orders.txt:2"), "Paris is occupied: {stderr}");
    assert!(stderr.contains("orders.txt:4"), "Munich is not French: {stderr}");
    assert!(!stderr.contains("orders.txt:3"), "Brest is fine: {stderr}");
}

const ISSUE_28: &str = "season = \"spring\"\nyear = 1901\n[units]\naustria = [\"A vie\", \"A bud\"]\nengland = [\"F hol\", \"F nth\"]\nrussia = [\"A rum\"]\nturkey = [\"A bul\"]\nitaly = [\"A ven\"]\n";

#[test]
fn a_fleet_that_does_not_border_its_target_is_told_so_not_that_fleets_are_not_convoyed() {
    let (_, _, stderr) = check(ISSUE_28, "England:\nF hol - den\n", false);
    assert!(stderr.contains("F hol cannot reach den"), "{stderr}");
    assert!(!stderr.contains("only armies"), "{stderr}");
}

#[test]
fn a_power_adjective_before_a_supported_or_convoyed_unit_is_read() {
    let (code, stdout, stderr) =
        check(ISSUE_28, "Russia:\nA rum S TURKISH A bul - ser\nEngland:\nF nth C English A hol - den\n", false);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("A rum S A bul - ser"), "{stdout}");
    assert!(stdout.contains("F nth C A hol - den"), "{stdout}");
    assert!(!stderr.contains("tun"), "{stderr}");
}

#[test]
fn a_misspelt_unit_is_matched_against_the_powers_own_units_first() {
    let (_, _, stderr) = check(ISSUE_28, "Austria:\nA vei - tyr\n", false);
    assert!(stderr.contains("did you mean `vie` (Vienna)?"), "{stderr}");
    // Another power's army in Venice is not what Austria meant; Italy may have.
    let (_, _, stderr) = check(ISSUE_28, "Italy:\nA vei - tyr\n", false);
    assert!(stderr.contains("did you mean `ven` (Venice)?"), "{stderr}");
}
