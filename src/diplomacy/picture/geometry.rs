//! The shapes of a map for pictures: read from a geometry file (`maps/*-geometry.toml`)
//! and checked against the map.
//!
//! The file gives each province's shape as closed loops of points (an outline, holes such
//! as the islands in a sea, further pieces such as Sicily). Neighbours share their boundary
//! point for point, so the shapes tile the board; the tests below check that, and that two
//! provinces share a stretch of boundary exactly where the map has a border between them.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::diplomacy::map::{Map, ProvinceId, RegionId};

/// The geometry of the standard map, compiled into the binary.
pub const STANDARD_GEOMETRY: &str = include_str!("../../../maps/standard/geometry.toml");

/// A point in board units (20 pixels in a picture): x to the right, y down, from the top
/// left corner of the board.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

/// One area's outline: closed loops (outlines clockwise on the screen, holes such as
/// islands the other way round).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outline {
    pub loops: Vec<Vec<Point>>,
}

impl Outline {
    /// Whether `p` lies inside (even-odd rule over all loops).
    pub fn contains(&self, p: Point) -> bool {
        let mut inside = false;
        for l in &self.loops {
            let n = l.len();
            for i in 0..n {
                let a = l[i];
                let b = l[(i + 1) % n];
                if (a.y > p.y) != (b.y > p.y) {
                    let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
                    if p.x < x {
                        inside = !inside;
                    }
                }
            }
        }
        inside
    }

    /// The area inside: outlines count, holes take away.
    pub fn area(&self) -> f64 {
        let mut twice = 0.0;
        for l in &self.loops {
            let n = l.len();
            for i in 0..n {
                let (a, b) = (l[i], l[(i + 1) % n]);
                twice += f64::from(a.x) * f64::from(b.y) - f64::from(b.x) * f64::from(a.y);
            }
        }
        twice / 2.0
    }
}

/// The checked geometry of one map.
#[derive(Clone, Debug)]
pub struct Geometry {
    /// The board's size in board units.
    pub width: f32,
    pub height: f32,
    /// Per province (by id).
    pub outlines: Vec<Outline>,
    /// Land that belongs to no province.
    pub offboard: Outline,
    /// Per region (by id): where a unit stands.
    pub units: Vec<Point>,
    /// Per province: where its name goes.
    pub labels: Vec<Point>,
    /// Per province: its supply-center mark (none for a province without a center).
    pub centers: Vec<Option<Point>>,
}

/// A geometry file that does not fit its map: the file, the key and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {}{message}", if key.is_empty() { String::new() } else { format!("`{key}`: ") })]
pub struct GeometryError {
    pub file: String,
    pub key: String,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGeometry {
    map: String,
    width: f32,
    height: f32,
    offboard: Vec<String>,
    shapes: BTreeMap<String, Vec<String>>,
    units: BTreeMap<String, [f32; 2]>,
    labels: BTreeMap<String, [f32; 2]>,
    centers: BTreeMap<String, [f32; 2]>,
}

impl Geometry {
    /// The standard map's geometry.
    pub fn standard(map: &Map) -> Result<Geometry, GeometryError> {
        Geometry::from_toml(STANDARD_GEOMETRY, "maps/standard/geometry.toml", map)
    }

    /// Read and check a geometry file for `map`; `file` names it in errors.
    pub fn from_toml(text: &str, file: &str, map: &Map) -> Result<Geometry, GeometryError> {
        let err = |key: &str, message: String| GeometryError { file: file.to_string(), key: key.to_string(), message };
        let raw: RawGeometry = toml::from_str(text).map_err(|e| err("", e.to_string().trim_end().to_string()))?;
        if raw.map != map.name {
            return Err(err("map", format!("this geometry is for the map `{}`, not `{}`", raw.map, map.name)));
        }
        let (width, height) = (raw.width, raw.height);
        let sane = |v: f32| v.is_finite() && v > 0.0 && v <= 1000.0;
        if !sane(width) || !sane(height) {
            return Err(err("width", format!("a board of {width} x {height} cannot be drawn")));
        }
        let outline = |key: &str, loops: &[String]| -> Result<Outline, GeometryError> {
            let mut out = Outline::default();
            for (i, text) in loops.iter().enumerate() {
                let mut points = Vec::new();
                for (j, word) in text.split_whitespace().enumerate() {
                    let at = || format!("loop {}, point {}", i + 1, j + 1);
                    let p = word
                        .split_once(',')
                        .and_then(|(x, y)| Some(Point { x: x.parse().ok()?, y: y.parse().ok()? }))
                        .ok_or_else(|| err(key, format!("{}: `{word}` is no point (x,y)", at())))?;
                    if !(p.x >= 0.0 && p.y >= 0.0 && p.x <= width && p.y <= height) {
                        return Err(err(key, format!("{}: {word} is off the board", at())));
                    }
                    points.push(p);
                }
                if points.len() < 3 {
                    return Err(err(key, format!("loop {} has {} points; a shape needs 3", i + 1, points.len())));
                }
                out.loops.push(points);
            }
            if out.loops.is_empty() {
                return Err(err(key, "no loops: the shape is empty".to_string()));
            }
            Ok(out)
        };
        let offboard = outline("offboard", &raw.offboard)?;
        let mut outlines = vec![None; map.provinces().len()];
        for (name, loops) in &raw.shapes {
            let key = format!("shapes.{name}");
            let p = map
                .provinces()
                .iter()
                .position(|p| p.key == *name)
                .ok_or_else(|| err(&key, format!("`{name}` is no province of the map")))?;
            outlines[p] = Some(outline(&key, loops)?);
        }
        let outlines = outlines
            .into_iter()
            .enumerate()
            .map(|(i, o)| o.ok_or_else(|| err("shapes", format!("{} has no shape", map.provinces()[i].key))))
            .collect::<Result<Vec<_>, _>>()?;
        let in_province = |key: &str, [x, y]: [f32; 2], p: ProvinceId| -> Result<Point, GeometryError> {
            let at = Point { x, y };
            if outlines[p.0 as usize].contains(at) {
                Ok(at)
            } else {
                Err(err(key, format!("[{x}, {y}] is not in {}", map.province(p).name)))
            }
        };

        let mut units = vec![None; map.region_count()];
        for (name, at) in &raw.units {
            let key = format!("units.{name}");
            let r = map.parse_region(name).filter(|r| map.region_name(*r) == *name);
            let r = r.ok_or_else(|| err(&key, format!("`{name}` is no region of the map")))?;
            units[r.0 as usize] = Some(in_province(&key, *at, map.province_of(r))?);
        }
        let units = units
            .iter()
            .enumerate()
            .map(|(i, u)| {
                u.ok_or_else(|| err("units", format!("no position for {}", map.region_name(RegionId(i as u16)))))
            })
            .collect::<Result<Vec<_>, _>>()?;

        let per_province =
            |table: &BTreeMap<String, [f32; 2]>, what: &str| -> Result<Vec<Option<Point>>, GeometryError> {
                let mut out = vec![None; map.provinces().len()];
                for (name, at) in table {
                    let key = format!("{what}.{name}");
                    let p = map
                        .provinces()
                        .iter()
                        .position(|p| p.key == *name)
                        .ok_or_else(|| err(&key, format!("`{name}` is no province of the map")))?;
                    out[p] = Some(in_province(&key, *at, ProvinceId(p as u16))?);
                }
                Ok(out)
            };
        let labels = per_province(&raw.labels, "labels")?
            .iter()
            .enumerate()
            .map(|(i, l)| l.ok_or_else(|| err("labels", format!("no label for {}", map.provinces()[i].key))))
            .collect::<Result<Vec<_>, _>>()?;
        let centers = per_province(&raw.centers, "centers")?;
        for (i, p) in map.provinces().iter().enumerate() {
            if p.supply_center != centers[i].is_some() {
                let message = if p.supply_center {
                    format!("no mark for the supply center {}", p.key)
                } else {
                    format!("{} is no supply center", p.key)
                };
                return Err(err("centers", message));
            }
        }
        Ok(Geometry { width, height, outlines, offboard, units, labels, centers })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashSet};

    use super::*;
    use crate::diplomacy::map::{Terrain, UnitType};

    /// Every shipped variant's drawn board (once per geometry file): the file, the map and
    /// the geometry.
    fn drawn() -> Vec<(&'static str, Map, Geometry)> {
        let mut out: Vec<(&'static str, Map, Geometry)> = Vec::new();
        for v in crate::diplomacy::map::shipped::VARIANTS {
            let Some((text, file)) = v.geometry else { continue };
            if out.iter().any(|(f, _, _)| *f == file) {
                continue;
            }
            let map = v.build().unwrap();
            let g = Geometry::from_toml(text, file, &map).unwrap_or_else(|e| panic!("{}: {e}", v.name));
            out.push((file, map, g));
        }
        out
    }

    /// Where a drawn board departs from its map's borders on purpose, as its file's header
    /// says: pairs whose shapes touch with no border between them, and pairs with a border
    /// whose shapes do not touch.
    fn exceptions(file: &str) -> (&'static [[&'static str; 2]], &'static [[&'static str; 2]]) {
        match file {
            // Switzerland is impassable: it has no borders, yet it lies between these.
            "maps/standard/geometry.toml" => {
                (&[["swi", "bur"], ["swi", "mar"], ["swi", "mun"], ["swi", "pie"], ["swi", "tyr"]], &[])
            }
            // Baleares is an island whose fleets cross to the mainland; armies cross the
            // Pillars of Hercules and the Strait of Messina, open water where fleets pass;
            // Thebes reaches the Gulf of Pelusium by the Nile.
            "maps/ancmed/geometry.toml" => {
                (&[], &[["bal", "sag"], ["bal", "tar"], ["mau", "sag"], ["nea", "sic"], ["thb", "gop"]])
            }
            _ => (&[], &[]),
        }
    }

    #[test]
    fn the_drawn_boards_are_the_standard_ancient_mediterranean_and_modern() {
        let drawn: Vec<&str> = drawn().iter().map(|(f, _, _)| *f).collect();
        assert_eq!(drawn, ["maps/standard/geometry.toml", "maps/ancmed/geometry.toml", "maps/modern/geometry.toml"]);
        let ancmed = crate::diplomacy::map::shipped::map("ancmed").unwrap();
        let g = crate::diplomacy::picture::geometry_for(&ancmed).unwrap();
        assert_eq!((g.width, g.height), (70.0, 44.3));
        assert!(!g.offboard.loops.is_empty(), "a drawn board, not a generated one");
        let modern = crate::diplomacy::map::shipped::map("modern").unwrap();
        let g = crate::diplomacy::picture::geometry_for(&modern).unwrap();
        assert_eq!((g.width, g.height), (80.0, 67.6));
        assert!(!g.offboard.loops.is_empty(), "a drawn board, not a generated one");
    }

    type Segment = [(u32, u32); 2];

    /// The segments of an outline, each as an unordered pair of points (exact bits).
    fn segments(o: &Outline) -> HashSet<Segment> {
        let key = |p: Point| (p.x.to_bits(), p.y.to_bits());
        let mut out = HashSet::new();
        for l in &o.loops {
            for i in 0..l.len() {
                let (a, b) = (key(l[i]), key(l[(i + 1) % l.len()]));
                out.insert(if a < b { [a, b] } else { [b, a] });
            }
        }
        out
    }

    fn point(k: (u32, u32)) -> Point {
        Point { x: f32::from_bits(k.0), y: f32::from_bits(k.1) }
    }

    fn dist(a: Point, b: Point) -> f32 {
        ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
    }

    /// The distance from `p` to the segment `s`.
    fn to_segment(p: Point, s: &Segment) -> f32 {
        let (a, b) = (point(s[0]), point(s[1]));
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let len2 = dx * dx + dy * dy;
        let t = if len2 == 0.0 { 0.0 } else { (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0) };
        dist(p, Point { x: a.x + t * dx, y: a.y + t * dy })
    }

    #[test]
    fn provinces_share_a_boundary_exactly_where_the_map_has_a_border() {
        for (file, map, g) in drawn() {
            let segs: Vec<_> = g.outlines.iter().map(segments).collect();
            let (touch_ok, apart_ok) = exceptions(file);
            let pair = |a: &str, b: &str| -> BTreeSet<String> { [a.to_string(), b.to_string()].into() };
            let touch_ok: Vec<BTreeSet<String>> = touch_ok.iter().map(|[a, b]| pair(a, b)).collect();
            let apart_ok: Vec<BTreeSet<String>> = apart_ok.iter().map(|[a, b]| pair(a, b)).collect();
            let mut wrong = Vec::new();
            let mut excepted = 0;
            for a in map.province_ids() {
                for b in map.province_ids().filter(|b| b.0 > a.0) {
                    let touch = !segs[a.0 as usize].is_disjoint(&segs[b.0 as usize]);
                    let (ka, kb) = (&map.province(a).key, &map.province(b).key);
                    let border = map.provinces_adjacent(a, b);
                    // An exception is a pair the map and the shapes really disagree on.
                    let excepted_here = if border { &apart_ok } else { &touch_ok };
                    let want = if excepted_here.contains(&pair(ka, kb)) {
                        excepted += 1;
                        !border
                    } else {
                        border
                    };
                    if touch != want {
                        wrong.push(format!("{ka}-{kb}: touch {touch}, border {border}"));
                    }
                }
            }
            assert!(wrong.is_empty(), "{file}: {wrong:#?}");
            assert_eq!(excepted, touch_ok.len() + apart_ok.len(), "{file}: an exception that the map does not need");
        }
    }

    #[test]
    fn a_split_coast_stands_on_the_shores_of_its_own_seas() {
        for (file, map, g) in drawn() {
            split_coasts_on_their_shores(file, &map, &g);
        }
    }

    fn split_coasts_on_their_shores(file: &str, map: &Map, g: &Geometry) {
        let segs: Vec<_> = g.outlines.iter().map(segments).collect();
        let mut checked = 0;
        for p in map.province_ids() {
            let coasts: Vec<RegionId> = map.regions_of(p).filter(|r| map.region(*r).coast.is_some()).collect();
            for &r in &coasts {
                let at = g.units[r.0 as usize];
                for n in map.neighbours(UnitType::Fleet, r) {
                    let sea = map.province_of(n);
                    if map.province(sea).terrain != Terrain::Sea {
                        continue;
                    }
                    // Some stretch of the shore on that sea is nearer this coast's fleet
                    // than any other coast's.
                    let shore: Vec<&Segment> = segs[p.0 as usize].intersection(&segs[sea.0 as usize]).collect();
                    let name = format!("{file}: {} on {}", map.region_name(r), map.province(sea).key);
                    assert!(!shore.is_empty(), "{name}: no shore");
                    let nearer = shore.iter().any(|s| {
                        coasts
                            .iter()
                            .filter(|o| **o != r)
                            .all(|o| to_segment(at, s) < to_segment(g.units[o.0 as usize], s))
                    });
                    assert!(nearer, "{name}: the fleet stands nearer another coast");
                    checked += 1;
                }
            }
        }
        // Standard: Spain 1 + 3, St Petersburg 1 + 1, Bulgaria 1 + 1. Modern: Iran 1 + 2.
        // Ancient Mediterranean has no split coasts.
        let want = match file {
            "maps/standard/geometry.toml" => 8,
            "maps/modern/geometry.toml" => 3,
            _ => 0,
        };
        assert_eq!(checked, want, "{file}");
    }

    #[test]
    fn every_province_and_region_has_its_shape_and_positions() {
        for (file, map, g) in drawn() {
            shapes_and_positions(file, &map, &g);
        }
    }

    fn shapes_and_positions(file: &str, map: &Map, g: &Geometry) {
        let provinces = match file {
            "maps/standard/geometry.toml" => 76,
            "maps/modern/geometry.toml" => 141,
            _ => 79,
        };
        assert_eq!(g.outlines.len(), provinces, "{file}");
        for p in map.province_ids() {
            let o = &g.outlines[p.0 as usize];
            assert!(!o.loops.is_empty(), "{file}: {}", map.province(p).key);
            assert!(o.contains(g.labels[p.0 as usize]), "{file}: label of {}", map.province(p).key);
            if let Some(c) = g.centers[p.0 as usize] {
                assert!(o.contains(c), "{file}: center of {}", map.province(p).key);
            }
        }
        assert_eq!(g.units.len(), map.region_count(), "{file}");
        for (i, at) in g.units.iter().enumerate() {
            let r = RegionId(i as u16);
            assert!(
                g.outlines[map.province_of(r).0 as usize].contains(*at),
                "{file}: unit position of {}",
                map.region_name(r)
            );
        }
    }

    #[test]
    fn the_shapes_tile_the_board_without_gaps_or_overlaps() {
        for (file, map, g) in drawn() {
            tiles(file, &map, &g);
        }
    }

    fn tiles(file: &str, map: &Map, g: &Geometry) {
        let shapes: Vec<&Outline> = g.outlines.iter().chain(std::iter::once(&g.offboard)).collect();
        // Their areas add up to the board's ...
        for (i, o) in g.outlines.iter().enumerate() {
            assert!(o.area() > 0.1, "{file}: {} has an area of {}", map.provinces()[i].key, o.area());
        }
        let total: f64 = shapes.iter().map(|o| o.area()).sum();
        let board = f64::from(g.width) * f64::from(g.height);
        assert!((total - board).abs() < 1e-3 * board, "{file}: the shapes cover {total} of {board}");
        // ... and no point lies in two of them (nor in none).
        let boxes: Vec<(f32, f32, f32, f32)> = shapes
            .iter()
            .map(|o| {
                let pts = o.loops.iter().flatten();
                pts.fold((f32::MAX, f32::MAX, f32::MIN, f32::MIN), |b, p| {
                    (b.0.min(p.x), b.1.min(p.y), b.2.max(p.x), b.3.max(p.y))
                })
            })
            .collect();
        let step = 0.2;
        let (nx, ny) = ((g.width / step) as usize, (g.height / step) as usize);
        for sy in 0..ny {
            for sx in 0..nx {
                let p = Point { x: (sx as f32 + 0.37) * step, y: (sy as f32 + 0.61) * step };
                let n = shapes
                    .iter()
                    .zip(&boxes)
                    .filter(|(o, b)| p.x >= b.0 && p.x <= b.2 && p.y >= b.1 && p.y <= b.3 && o.contains(p))
                    .count();
                assert_eq!(n, 1, "{file}: {n} shapes at ({}, {})", p.x, p.y);
            }
        }
    }

    /// What the picture draws at the fixed positions, as boxes in board units (a unit is
    /// 20 pixels): a fleet's hull (the widest unit, 25 x 15 pixels), a name (10 pixel
    /// letters, about 6 pixels wide each), a center mark, a coast's name under its fleet.
    fn marks(map: &Map, g: &Geometry) -> Vec<(String, ProvinceId, [f32; 4])> {
        let around = |p: Point, w: f32, h: f32| [p.x - w, p.y - h, p.x + w, p.y + h];
        let mut out = Vec::new();
        for (i, at) in g.units.iter().enumerate() {
            let r = RegionId(i as u16);
            let p = map.province_of(r);
            out.push((format!("unit {}", map.region_name(r)), p, around(*at, 0.62, 0.42)));
            if map.region(r).coast.is_some() {
                let under = Point { x: at.x, y: at.y + 0.7 };
                out.push((format!("coast of {}", map.region_name(r)), p, around(under, 0.3, 0.18)));
            }
        }
        for p in map.province_ids() {
            let key = &map.province(p).key;
            let w = 0.155 * key.len() as f32 + 0.05;
            out.push((format!("name {key}"), p, around(g.labels[p.0 as usize], w, 0.25)));
            if let Some(c) = g.centers[p.0 as usize] {
                out.push((format!("center {key}"), p, around(c, 0.26, 0.26)));
            }
        }
        out
    }

    #[test]
    fn no_unit_name_or_center_hides_another() {
        for (file, map, g) in drawn() {
            marks_apart(file, &map, &g);
        }
    }

    fn marks_apart(file: &str, map: &Map, g: &Geometry) {
        let marks = marks(map, g);
        let mut wrong = Vec::new();
        for (i, (a, pa, ba)) in marks.iter().enumerate() {
            for (b, pb, bb) in &marks[i + 1..] {
                // A province holds one unit: its coasts' places may share the spot.
                if pa == pb && a.starts_with("unit") && b.starts_with("unit") {
                    continue;
                }
                if ba[0] < bb[2] && bb[0] < ba[2] && ba[1] < bb[3] && bb[1] < ba[3] {
                    wrong.push(format!("{a} and {b}"));
                }
            }
        }
        assert!(wrong.is_empty(), "{file}: {wrong:#?}");
    }

    #[test]
    fn bad_geometry_files_say_where_and_what() {
        let map = Map::standard();
        let adr = STANDARD_GEOMETRY.find("\nadr = [\n  \"").unwrap() + "\nadr = [\n  \"".len();
        let mut bad = STANDARD_GEOMETRY.to_string();
        bad.insert_str(adr, "1,x ");
        let e = Geometry::from_toml(&bad, "g.toml", &map).unwrap_err();
        assert_eq!(e.to_string(), "g.toml: `shapes.adr`: loop 1, point 1: `1,x` is no point (x,y)");
        let mut bad = STANDARD_GEOMETRY.to_string();
        bad.insert_str(adr, "99,1 ");
        let e = Geometry::from_toml(&bad, "g.toml", &map).unwrap_err();
        assert_eq!(e.to_string(), "g.toml: `shapes.adr`: loop 1, point 1: 99,1 is off the board");
        let bad = STANDARD_GEOMETRY.replacen("\nadr = [", "\nxyz = [", 1);
        let e = Geometry::from_toml(&bad, "g.toml", &map).unwrap_err();
        assert_eq!(e.to_string(), "g.toml: `shapes.xyz`: `xyz` is no province of the map");
        let line = STANDARD_GEOMETRY.lines().find(|l| l.starts_with("\"adr\" = [")).unwrap();
        let bad = STANDARD_GEOMETRY.replace(line, "\"adr\" = [0.5, 0.5]");
        let e = Geometry::from_toml(&bad, "g.toml", &map).unwrap_err();
        assert_eq!(e.to_string(), "g.toml: `units.adr`: [0.5, 0.5] is not in Adriatic Sea");
        let bad = STANDARD_GEOMETRY.replace(&format!("{line}\n"), "");
        let e = Geometry::from_toml(&bad, "g.toml", &map).unwrap_err();
        assert_eq!(e.to_string(), "g.toml: `units`: no position for adr");
    }
}
