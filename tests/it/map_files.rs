//! Every variant shipped in `maps/` is a folder with its rules and doc, has its line in
//! the registry, and loads through the same code the judge uses.
use shadowjudge::diplomacy::map::{shipped, Map};

#[test]
fn every_variant_folder_is_shipped_and_loads() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/maps");
    let mut folders = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for file in ["rules.toml", "README.md"] {
            assert!(path.join(file).is_file(), "maps/{name} has no {file}");
        }
        // A folder's own map loads alone, as a map file given to a game would.
        if path.join("map.toml").is_file() {
            let text = std::fs::read_to_string(path.join("map.toml")).unwrap();
            let map = Map::from_toml(&text, &format!("maps/{name}/map.toml"));
            assert!(map.is_ok(), "maps/{name}/map.toml: {}", map.unwrap_err());
        }
        let v = shipped::find(&name).unwrap_or_else(|| panic!("maps/{name} has no line in map::shipped::VARIANTS"));
        assert_eq!(v.name, name);
        assert_eq!(shipped::map(&name).unwrap().variant, name);
        folders.push(name);
    }
    folders.sort();
    let mut names = shipped::names();
    names.sort();
    assert_eq!(folders, names, "every registry line has its folder");
}

use shadowjudge::diplomacy::map::UnitType;
use std::collections::BTreeSet;

/// (unit type, from, to) for every directed border of the reference list.
fn reference_borders() -> BTreeSet<(char, String, String)> {
    let text = include_str!("../data/standard-map/borders.csv");
    let mut set = BTreeSet::new();
    for line in text.lines().skip(1) {
        let f: Vec<String> = line.split(',').map(|s| s.trim().replace('(', "/").replace(')', "")).collect();
        let (a, b, kind) = (&f[0], &f[1], f[2].as_str());
        let prov = |r: &str| r.split('/').next().unwrap().to_string();
        if kind == "land" || kind == "coast" {
            set.insert(('A', prov(a), prov(b)));
            set.insert(('A', prov(b), prov(a)));
        }
        if kind == "sea" || kind == "coast" {
            set.insert(('F', a.clone(), b.clone()));
            set.insert(('F', b.clone(), a.clone()));
        }
    }
    set
}

#[test]
fn the_standard_map_has_exactly_the_reference_borders() {
    let map = Map::standard();
    let mut ours = BTreeSet::new();
    for from in 0..map.region_count() {
        let from = shadowjudge::diplomacy::map::RegionId(from as u16);
        for unit in [UnitType::Army, UnitType::Fleet] {
            for to in map.neighbours(unit, from) {
                ours.insert((unit.letter(), map.region_name(from), map.region_name(to)));
            }
        }
    }
    let reference = reference_borders();
    let missing: Vec<_> = reference.difference(&ours).collect();
    let extra: Vec<_> = ours.difference(&reference).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:?}, extra {extra:?}");
    assert_eq!(ours.len(), 504);
}

fn load_err(text: &str) -> String {
    Map::from_toml(text, "bad.toml").unwrap_err().to_string()
}

const TINY: &str = r#"
name = "tiny"
[powers.red]
name = "Red"
adjective = "Red"
abbreviation = "RED"
units = ["A one"]
[provinces.one]
name = "One"
terrain = "land"
center = "red"
army = ["two"]
[provinces.two]
name = "Two"
terrain = "land"
center = "neutral"
army = ["one"]
"#;

#[test]
fn a_small_valid_map_loads() {
    let map = Map::from_toml(TINY, "tiny.toml").unwrap();
    assert_eq!(map.provinces().len(), 2);
    assert_eq!(map.victory_centers, 2);
}

#[test]
fn an_asymmetric_border_is_named() {
    let e = load_err(&TINY.replacen("army = [\"one\"]", "army = []", 1));
    assert!(e.starts_with("bad.toml: `provinces.one.army`"), "{e}");
    assert!(e.contains("asymmetric border") && e.contains("\"two\""), "{e}");
}

#[test]
fn an_unknown_province_is_named() {
    let e = load_err(&TINY.replacen("army = [\"two\"]", "army = [\"two\", \"three\"]", 1));
    assert!(e.contains("`provinces.one.army`") && e.contains("unknown province \"three\""), "{e}");
}

#[test]
fn a_duplicate_name_is_named() {
    let e = load_err(&TINY.replacen("name = \"Two\"", "name = \"One\"", 1));
    assert!(e.contains("`provinces.two`") && e.contains("\"one\" is also used by province `one`"), "{e}");
}

#[test]
fn a_toml_error_names_the_file_and_line() {
    let e = load_err("name = \"x\"\n[powers.red\n");
    assert!(e.starts_with("bad.toml:") && e.contains("line 2"), "{e}");
}

/// The shipped variants agree with MILA's `diplomacy` package border for border (centers,
/// homes, starting units, victory and the first year too), when a Python with it is at
/// hand: `SHADOWJUDGE_MILA_PYTHON`, or `python3`. Skipped otherwise.
#[test]
fn the_shipped_variants_agree_with_mila_when_it_is_installed() {
    let python = std::env::var("SHADOWJUDGE_MILA_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_mila = std::process::Command::new(&python)
        .args(["-c", "import diplomacy.engine.map"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_mila {
        eprintln!("skipped: no MILA `diplomacy` package for {python}");
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/mila/check_maps.py");
    let out = std::process::Command::new(&python).args([script, env!("CARGO_BIN_EXE_shadowjudge")]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("ancmed: 534 borders"), "{text}");
}
