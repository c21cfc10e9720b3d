//! `shadowjudge map ...`: show what a map file holds, as the judge reads it.
//!
//! Reads the map through the same loader the judge uses, so what it prints is what the
//! judge believes; it never changes a map.

use std::io::Write;
use std::process::ExitCode;

use super::CliError;
use crate::diplomacy::map::{Map, ProvinceId, RegionId, Terrain, UnitType};

#[derive(clap::Subcommand, Debug)]
pub enum MapCommand {
    /// List the provinces of a map: short name, full name, terrain, supply center and
    /// home power, other names, coasts, and army and fleet neighbours.
    Show(ShowArgs),
    /// List the shipped variants: name, full name, powers, centers and victory, picture.
    List,
    /// Check a map as a game: coasts with water, every center reachable, each power
    /// starting on its own home centers, victory for one power at a time. Exit 1 when
    /// anything is wrong.
    Check(CheckArgs),
    /// Draw a game's board as a picture (SVG or PNG, by the output file's name): the
    /// position now, or the results of a phase with every order and what became of it.
    Draw(DrawArgs),
}

#[derive(clap::Args, Debug)]
pub struct DrawArgs {
    /// The game directory.
    #[arg(required_unless_present = "position", conflicts_with = "position")]
    dir: Option<std::path::PathBuf>,
    /// The phase whose results to draw (`S1901M`, `F1901R`, `W1901A`, "fall 1901");
    /// `last` for the last results; default: the position now.
    phase: Option<String>,
    /// Draw one board of a Shadow Worlds game (`A` or `B`); default: both.
    #[arg(long)]
    board: Option<String>,
    /// Draw a position file (the format `new --from` reads) instead of a game.
    #[arg(long, value_name = "FILE")]
    position: Option<std::path::PathBuf>,
    /// Where to write the picture: a name ending in .svg or .png.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: std::path::PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The map: a variant's name (`ancmed`), or the path of a map file.
    map: String,
}

#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// The map: a variant's name (`standard`, `ancmed`; `map list` lists them), or the
    /// path of a map file.
    #[arg(default_value = "standard")]
    map: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(c: MapCommand) -> Result<ExitCode, CliError> {
    match c {
        MapCommand::Show(args) => {
            let map = super::load_map(&args.map).map_err(|e| CliError::Usage(e.to_string()))?;
            let mut out = if args.json { json_listing(&map).to_string() } else { text_listing(&map) };
            out.push('\n');
            std::io::stdout()
                .lock()
                .write_all(out.as_bytes())
                .map_err(|e| CliError::Io(format!("cannot write: {e}")))?;
            Ok(ExitCode::SUCCESS)
        }
        MapCommand::Draw(args) => draw(args),
        MapCommand::List => {
            print!("{}", variant_list());
            Ok(ExitCode::SUCCESS)
        }
        MapCommand::Check(args) => {
            let map = super::load_map(&args.map).map_err(|e| CliError::Usage(e.to_string()))?;
            let problems = crate::diplomacy::map::check::check(&map);
            let centers = map.supply_centers().count();
            let summary = format!(
                "{} ({}): {} powers, {} provinces, {centers} supply centers, victory at {}",
                map.variant,
                map.title,
                map.powers().len(),
                map.provinces().len(),
                map.victory_centers
            );
            if problems.is_empty() {
                println!("{summary}: no problem found.");
                return Ok(ExitCode::SUCCESS);
            }
            println!("{summary}: {} problems.", problems.len());
            for p in &problems {
                println!("  {p}");
            }
            Ok(ExitCode::from(1))
        }
    }
}

/// `map list`: one line per shipped variant.
fn variant_list() -> String {
    use crate::diplomacy::map::shipped;
    let mut out = String::new();
    for v in shipped::VARIANTS {
        let Some(map) = shipped::map(v.name) else { continue };
        let picture = if v.geometry.is_some() { "drawn board" } else { "generated board" };
        let aliases = v.aliases();
        let also = if aliases.is_empty() { String::new() } else { format!("; also {}", aliases.join(", ")) };
        out.push_str(&format!(
            "{:<16} {:<24} {:>2} powers, {:>2} centers, victory at {:>2}, from {}; {picture}{also}\n",
            v.name,
            map.title,
            map.powers().len(),
            map.supply_centers().count(),
            map.victory_centers,
            map.first_year,
        ));
    }
    out
}

fn draw(a: DrawArgs) -> Result<ExitCode, CliError> {
    use crate::diplomacy::picture::{self, Scene};
    use crate::phase::Phase;
    let out_name = a.output.display().to_string();
    let png = match a.output.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()) {
        Some(e) if e == "png" => true,
        Some(e) if e == "svg" => false,
        _ => return Err(CliError::Usage(format!("{out_name}: the picture's name must end in .svg or .png"))),
    };
    let board = match a.board.as_deref().map(|b| b.trim().to_ascii_uppercase()) {
        None => None,
        Some(b) if b == "A" => Some('A'),
        Some(b) if b == "B" => Some('B'),
        Some(_) => {
            let b = a.board.as_deref().unwrap_or_default();
            return Err(CliError::Usage(format!("`{b}` is not a board: write A or B")));
        }
    };
    let usage = |e: crate::game::any::PictureError| CliError::Usage(e.to_string());
    let drawing = match (&a.dir, &a.position) {
        (_, Some(file)) => {
            if a.phase.is_some() {
                return Err(CliError::Usage("a position file has no results: leave out the phase".into()));
            }
            let (text, name) = super::read_input(Some(file))?;
            let map = std::sync::Arc::new(Map::standard());
            let boards = if text.contains("[boards.") { 2 } else { 1 };
            let position = crate::diplomacy::position::parse_position(&text, &name, &map, boards)
                .map_err(|e| CliError::Usage(e.to_string()))?;
            let state = crate::diplomacy::state::GameState::from_position(&map, &position);
            let title = file.file_stem().map_or("position".to_string(), |s| s.to_string_lossy().into_owned());
            let mut scene = Scene::from_state(&title, &state);
            if let Some(letter) = board {
                scene.only_board(letter).map_err(|e| CliError::Usage(e.to_string()))?;
            }
            let geometry = picture::geometry_for(&map).map_err(|e| CliError::Usage(e.to_string()))?;
            let svg = picture::draw_svg(&map, &geometry, &scene).map_err(usage)?;
            crate::game::any::Drawing { title: scene.title, file: title, svg }
        }
        (Some(dir), None) => {
            let mut g = crate::game::any::open_read_only(dir).map_err(super::game_cmd::game_error)?;
            let Some(pictures) = g.pictures() else {
                return Err(super::game_cmd::lacks(dir, crate::game::any::Lacking::Pictures));
            };
            let results = match a.phase.as_deref() {
                None => None,
                Some(p) if p.eq_ignore_ascii_case("last") => Some(None),
                Some(p) => Some(Some(
                    p.parse::<Phase>().map_err(|e: crate::phase::PhaseParseError| CliError::Usage(e.to_string()))?,
                )),
            };
            pictures.drawing(results, board).map_err(usage)?
        }
        (None, None) => return Err(CliError::Usage("name a game directory or a --position file".into())),
    };
    let bytes = if png { drawing.png().map_err(usage)? } else { drawing.svg.into_bytes() };
    std::fs::write(&a.output, &bytes)
        .map_err(|e| CliError::Io(format!("{out_name}: cannot write the picture: {e}")))?;
    println!("Wrote {out_name}: {}.", drawing.title);
    Ok(ExitCode::SUCCESS)
}

fn terrain_name(t: Terrain) -> &'static str {
    match t {
        Terrain::Land => "land",
        Terrain::Sea => "sea",
        Terrain::Coast => "coast",
    }
}

/// Where a unit of this type may go from a region, by canonical name, sorted.
fn neighbour_names(map: &Map, unit: UnitType, region: RegionId) -> Vec<String> {
    let mut names: Vec<String> = map.neighbours(unit, region).map(|r| map.region_name(r)).collect();
    names.sort();
    names
}

/// The names a province answers to besides its short name, sorted.
fn other_names(map: &Map, id: ProvinceId) -> Vec<&str> {
    let key = &map.province(id).key;
    let mut names: Vec<&str> = map.place_names().filter(|(n, p)| *p == id && n != key).map(|(n, _)| n).collect();
    names.sort();
    names
}

/// The fleet regions of a province: its coasts, or the province itself.
fn fleet_regions(map: &Map, id: ProvinceId) -> Vec<RegionId> {
    let p = map.province(id);
    if p.coasts.is_empty() {
        vec![p.main_region].into_iter().filter(|r| map.region(*r).fleet_can_stand).collect()
    } else {
        p.coasts.clone()
    }
}

fn text_listing(map: &Map) -> String {
    let mut s = format!(
        "map {}: {} provinces, {} supply centers, {} powers; {} centers win\n\npowers\n",
        map.name,
        map.provinces().len(),
        map.supply_centers().count(),
        map.powers().len(),
        map.victory_centers
    );
    for p in map.powers() {
        let homes: Vec<&str> = p.home_centers.iter().map(|c| map.province(*c).key.as_str()).collect();
        s.push_str(&format!(
            "  {:<8} {} ({}, {}), home: {}\n",
            p.key,
            p.name,
            p.abbreviation,
            p.adjective,
            homes.join(" ")
        ));
    }
    s.push_str("\nprovinces\n");
    for id in map.province_ids() {
        let p = map.province(id);
        let mut line = format!("  {:<4} {}, {}", p.key, p.name, terrain_name(p.terrain));
        if p.supply_center {
            match p.home {
                Some(h) => line.push_str(&format!(", center, home of {}", map.power(h).name)),
                None => line.push_str(", center"),
            }
        }
        if p.impassable {
            line.push_str(", impassable");
        }
        s.push_str(&line);
        s.push('\n');
        let names = other_names(map, id);
        if !names.is_empty() {
            s.push_str(&format!("       names: {}\n", names.join(", ")));
        }
        if !p.coasts.is_empty() {
            let coasts: Vec<String> = p.coasts.iter().map(|r| map.region_name(*r)).collect();
            s.push_str(&format!("       coasts: {}\n", coasts.join(" ")));
        }
        if map.region(p.main_region).army_can_stand {
            s.push_str(&format!("       army: {}\n", neighbour_names(map, UnitType::Army, p.main_region).join(" ")));
        }
        for r in fleet_regions(map, id) {
            let label = if p.coasts.is_empty() { "fleet".to_string() } else { format!("fleet {}", map.region_name(r)) };
            s.push_str(&format!("       {label}: {}\n", neighbour_names(map, UnitType::Fleet, r).join(" ")));
        }
    }
    s.truncate(s.trim_end().len());
    s
}

fn json_listing(map: &Map) -> serde_json::Value {
    let powers: Vec<_> = map
        .powers()
        .iter()
        .map(|p| {
            let homes: Vec<&str> = p.home_centers.iter().map(|c| map.province(*c).key.as_str()).collect();
            let units: Vec<String> =
                p.starting_units.iter().map(|(t, r)| format!("{} {}", t.letter(), map.region_name(*r))).collect();
            serde_json::json!({
                "key": p.key, "name": p.name, "adjective": p.adjective,
                "abbreviation": p.abbreviation, "home_centers": homes, "units": units,
            })
        })
        .collect();
    let provinces: Vec<_> = map
        .province_ids()
        .map(|id| {
            let p = map.province(id);
            let army = if map.region(p.main_region).army_can_stand {
                neighbour_names(map, UnitType::Army, p.main_region)
            } else {
                Vec::new()
            };
            let fleet: serde_json::Map<String, serde_json::Value> = fleet_regions(map, id)
                .into_iter()
                .map(|r| (map.region_name(r), serde_json::json!(neighbour_names(map, UnitType::Fleet, r))))
                .collect();
            let coasts: Vec<&str> = p.coasts.iter().filter_map(|r| map.region(*r).coast.map(|c| c.short())).collect();
            serde_json::json!({
                "key": p.key,
                "name": p.name,
                "names": other_names(map, id),
                "terrain": terrain_name(p.terrain),
                "supply_center": p.supply_center,
                "home": p.home.map(|h| map.power(h).key.as_str()),
                "impassable": p.impassable,
                "coasts": coasts,
                "army": army,
                "fleet": fleet,
            })
        })
        .collect();
    serde_json::json!({
        "name": map.name,
        "victory_centers": map.victory_centers,
        "variant": map.variant,
        "title": map.title,
        "first_year": map.first_year,
        "powers": powers,
        "provinces": provinces,
    })
}
