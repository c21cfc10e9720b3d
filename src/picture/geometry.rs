//! The shapes of a map for pictures: read from a geometry file (`maps/*-geometry.toml`),
//! checked against the map, and traced into outlines.
//!
//! The file gives the board as a raster of cells, one province key per cell. A province's
//! shape is the union of its cells. Outlines are traced along the cell edges, cut into
//! chains (a chain runs between two points where three or more areas meet, and has the
//! same two areas on its two sides), and each chain is rounded once; both areas use the
//! very same rounded chain, so neighbours share their boundary exactly and no two shapes
//! overlap.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use crate::map::{Map, ProvinceId, RegionId};

/// The geometry of the standard map, compiled into the binary.
pub const STANDARD_GEOMETRY: &str = include_str!("../../maps/standard-geometry.toml");

/// A point in cell units: x to the right, y down, from the top left corner of the board.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

/// One area's outline: closed loops (an outer outline, and holes such as islands).
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
}

/// The checked geometry of one map.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub columns: usize,
    pub rows: usize,
    /// Per cell (row by row): the province, or none for land off the board.
    pub cells: Vec<Option<ProvinceId>>,
    /// Per province (by id).
    pub outlines: Vec<Outline>,
    /// Land off the board.
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
    columns: usize,
    rows: usize,
    grid: String,
    units: BTreeMap<String, [f32; 2]>,
    labels: BTreeMap<String, [f32; 2]>,
    centers: BTreeMap<String, [f32; 2]>,
}

/// The token for land off the board.
const OFFBOARD: &str = "###";

/// An area of the grid: a province, land off the board, or outside the board.
type Area = i32;
const AREA_OFFBOARD: Area = -1;
const AREA_OUTSIDE: Area = -2;

type Vertex = (i32, i32);

impl Geometry {
    /// The standard map's geometry.
    pub fn standard(map: &Map) -> Result<Geometry, GeometryError> {
        Geometry::from_toml(STANDARD_GEOMETRY, "maps/standard-geometry.toml", map)
    }

    /// Read and check a geometry file for `map`; `file` names it in errors.
    pub fn from_toml(text: &str, file: &str, map: &Map) -> Result<Geometry, GeometryError> {
        let err = |key: &str, message: String| GeometryError { file: file.to_string(), key: key.to_string(), message };
        let raw: RawGeometry = toml::from_str(text).map_err(|e| err("", e.to_string().trim_end().to_string()))?;
        if raw.map != map.name {
            return Err(err("map", format!("this geometry is for the map `{}`, not `{}`", raw.map, map.name)));
        }
        if raw.columns == 0 || raw.rows == 0 || raw.columns > 1000 || raw.rows > 1000 {
            return Err(err("columns", format!("a board of {} x {} cells cannot be drawn", raw.columns, raw.rows)));
        }
        let lines: Vec<&str> = raw.grid.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines.len() != raw.rows {
            return Err(err("grid", format!("{} rows, but `rows` says {}", lines.len(), raw.rows)));
        }
        let mut cells = Vec::with_capacity(raw.columns * raw.rows);
        for (r, line) in lines.iter().enumerate() {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            if tokens.len() != raw.columns {
                return Err(err(
                    "grid",
                    format!("row {}: {} cells, but `columns` says {}", r + 1, tokens.len(), raw.columns),
                ));
            }
            for (c, t) in tokens.iter().enumerate() {
                if *t == OFFBOARD {
                    cells.push(None);
                    continue;
                }
                let p = map.provinces().iter().position(|p| p.key == *t).ok_or_else(|| {
                    err("grid", format!("row {}, column {}: `{t}` is no province of the map", r + 1, c + 1))
                })?;
                cells.push(Some(ProvinceId(p as u16)));
            }
        }
        for id in map.province_ids() {
            if !cells.contains(&Some(id)) {
                return Err(err("grid", format!("{} has no cells", map.province(id).key)));
            }
        }
        let g = Grid { columns: raw.columns as i32, rows: raw.rows as i32, cells: &cells };
        let province_at = |key: &str, [x, y]: [f32; 2]| -> Result<Option<ProvinceId>, GeometryError> {
            if !(x >= 0.0 && y >= 0.0 && x < raw.columns as f32 && y < raw.rows as f32) {
                return Err(err(key, format!("[{x}, {y}] is off the board")));
            }
            Ok(cells[y as usize * raw.columns + x as usize])
        };

        let mut units = vec![None; map.region_count()];
        for (name, at) in &raw.units {
            let key = format!("units.{name}");
            let r = map.parse_region(name).filter(|r| map.region_name(*r) == *name);
            let r = r.ok_or_else(|| err(&key, format!("`{name}` is no region of the map")))?;
            let p = map.province_of(r);
            if province_at(&key, *at)? != Some(p) {
                return Err(err(&key, format!("[{}, {}] is not in {}", at[0], at[1], map.province(p).name)));
            }
            units[r.0 as usize] = Some(Point { x: at[0], y: at[1] });
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
                    if province_at(&key, *at)? != Some(ProvinceId(p as u16)) {
                        return Err(err(&key, format!("[{}, {}] is not in {}", at[0], at[1], map.provinces()[p].name)));
                    }
                    out[p] = Some(Point { x: at[0], y: at[1] });
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

        let mut traced = trace(&g);
        let outlines = (0..map.provinces().len()).map(|i| traced.remove(&(i as Area)).unwrap_or_default()).collect();
        let offboard = traced.remove(&AREA_OFFBOARD).unwrap_or_default();
        Ok(Geometry { columns: raw.columns, rows: raw.rows, cells, outlines, offboard, units, labels, centers })
    }

    /// The province of the cell at column `x`, row `y` (none off the board or outside).
    pub fn cell(&self, x: usize, y: usize) -> Option<ProvinceId> {
        if x < self.columns && y < self.rows {
            self.cells[y * self.columns + x]
        } else {
            None
        }
    }
}

struct Grid<'a> {
    columns: i32,
    rows: i32,
    cells: &'a [Option<ProvinceId>],
}

impl Grid<'_> {
    fn area(&self, x: i32, y: i32) -> Area {
        if x < 0 || y < 0 || x >= self.columns || y >= self.rows {
            return AREA_OUTSIDE;
        }
        match self.cells[(y * self.columns + x) as usize] {
            Some(p) => p.0 as Area,
            None => AREA_OFFBOARD,
        }
    }

    /// How many boundary edges meet at a vertex: 2 on a plain stretch of one boundary.
    fn degree(&self, (x, y): Vertex) -> usize {
        let (tl, tr, bl, br) = (self.area(x - 1, y - 1), self.area(x, y - 1), self.area(x - 1, y), self.area(x, y));
        [tl != tr, bl != br, tl != bl, tr != br].iter().filter(|b| **b).count()
    }

    /// A vertex where a chain must end: more or fewer than two boundary edges, or the
    /// edge of the board (which stays straight).
    fn is_junction(&self, v: Vertex) -> bool {
        v.0 == 0 || v.1 == 0 || v.0 == self.columns || v.1 == self.rows || self.degree(v) != 2
    }
}

/// Trace every area's outline (clockwise on screen, the area on the right).
fn trace(g: &Grid) -> HashMap<Area, Outline> {
    // Directed boundary edges per area, keyed by start vertex.
    let mut edges: HashMap<Area, HashMap<Vertex, Vec<Vertex>>> = HashMap::new();
    for y in 0..g.rows {
        for x in 0..g.columns {
            let a = g.area(x, y);
            let sides = [
                ((0, -1), (x, y), (x + 1, y)),
                ((1, 0), (x + 1, y), (x + 1, y + 1)),
                ((0, 1), (x + 1, y + 1), (x, y + 1)),
                ((-1, 0), (x, y + 1), (x, y)),
            ];
            for ((dx, dy), from, to) in sides {
                if g.area(x + dx, y + dy) != a {
                    edges.entry(a).or_default().entry(from).or_default().push(to);
                }
            }
        }
    }
    let mut chains: HashMap<(Vertex, Vertex), Vec<Point>> = HashMap::new();
    let mut out = HashMap::new();
    let mut areas: Vec<Area> = edges.keys().copied().collect();
    areas.sort_unstable();
    for area in areas {
        let mut from = edges.remove(&area).unwrap_or_default();
        let mut outline = Outline::default();
        let mut starts: Vec<Vertex> = from.keys().copied().collect();
        starts.sort_unstable();
        for start in starts {
            while let Some(first) = from.get_mut(&start).and_then(|v| v.pop()) {
                let mut ring = vec![start];
                let (mut prev, mut at) = (start, first);
                while at != start {
                    ring.push(at);
                    let heading = (at.0 - prev.0, at.1 - prev.1);
                    let Some(nexts) = from.get_mut(&at) else { break };
                    // Turn right first, then straight, then left: the tightest turn keeps
                    // two cells that touch only at a corner in separate loops.
                    let order = [(-heading.1, heading.0), heading, (heading.1, -heading.0)];
                    let Some(i) = order.iter().find_map(|d| nexts.iter().position(|n| (n.0 - at.0, n.1 - at.1) == *d))
                    else {
                        break;
                    };
                    let next = nexts.swap_remove(i);
                    prev = at;
                    at = next;
                }
                outline.loops.push(round_loop(g, &ring, &mut chains));
            }
        }
        out.insert(area, outline);
    }
    out
}

fn pt(v: Vertex) -> Point {
    Point { x: v.0 as f32, y: v.1 as f32 }
}

/// A traced loop of grid vertices, its chains rounded (each chain once for both sides).
fn round_loop(g: &Grid, ring: &[Vertex], chains: &mut HashMap<(Vertex, Vertex), Vec<Point>>) -> Vec<Point> {
    let n = ring.len();
    let Some(first) = (0..n).find(|i| g.is_junction(ring[*i])) else {
        // A loop without junctions (an island): one closed chain, from its least vertex.
        let s = (0..n).min_by_key(|i| ring[*i]).unwrap_or(0);
        let mut vs: Vec<Vertex> = (0..n).map(|i| ring[(s + i) % n]).collect();
        if let Some(back) = chains.get(&(vs[0], vs[n - 1])) {
            let mut pts = back.clone();
            pts.reverse();
            return pts;
        }
        let pts = chaikin_closed(&simplify_closed(&vs));
        vs.truncate(2);
        chains.insert((vs[0], vs[1]), pts.clone());
        return pts;
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        // One chain: from the junction at `first + i` to the next junction.
        let mut chain = vec![ring[(first + i) % n]];
        i += 1;
        loop {
            let v = ring[(first + i) % n];
            chain.push(v);
            if g.is_junction(v) {
                break;
            }
            i += 1;
        }
        let k = chain.len();
        let pts = if let Some(back) = chains.get(&(chain[k - 1], chain[k - 2])) {
            back.iter().rev().copied().collect()
        } else {
            let pts = chaikin_open(&simplify_open(&chain));
            chains.insert((chain[0], chain[1]), pts.clone());
            pts
        };
        // The chain's last point is the next chain's first.
        out.extend_from_slice(&pts[..pts.len() - 1]);
    }
    out
}

fn turns(a: Vertex, b: Vertex, c: Vertex) -> bool {
    (b.0 - a.0, b.1 - a.1) != (c.0 - b.0, c.1 - b.1)
}

fn simplify_open(v: &[Vertex]) -> Vec<Point> {
    let mut out = vec![pt(v[0])];
    for w in v.windows(3) {
        if turns(w[0], w[1], w[2]) {
            out.push(pt(w[1]));
        }
    }
    out.push(pt(v[v.len() - 1]));
    out
}

fn simplify_closed(v: &[Vertex]) -> Vec<Point> {
    let n = v.len();
    (0..n).filter(|i| turns(v[(i + n - 1) % n], v[*i], v[(i + 1) % n])).map(|i| pt(v[i])).collect()
}

/// How far from a corner the rounding cuts: a quarter of the side, at most this many cells.
const MAX_CUT: f32 = 0.45;

fn cut(a: Point, b: Point) -> (Point, Point) {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len = (dx * dx + dy * dy).sqrt();
    if len == 0.0 {
        return (a, b);
    }
    let t = (0.25 * len).min(MAX_CUT) / len;
    (Point { x: a.x + dx * t, y: a.y + dy * t }, Point { x: b.x - dx * t, y: b.y - dy * t })
}

/// Two rounds of corner cutting on an open chain; its two ends stay where they are.
fn chaikin_open(pts: &[Point]) -> Vec<Point> {
    let mut pts = pts.to_vec();
    for _ in 0..2 {
        if pts.len() < 3 {
            return pts;
        }
        let n = pts.len();
        let mut next = vec![pts[0]];
        for i in 0..n - 1 {
            let (q, r) = cut(pts[i], pts[i + 1]);
            if i > 0 {
                next.push(q);
            }
            if i < n - 2 {
                next.push(r);
            }
        }
        next.push(pts[n - 1]);
        pts = next;
    }
    pts
}

/// Two rounds of corner cutting on a closed loop.
fn chaikin_closed(pts: &[Point]) -> Vec<Point> {
    let mut pts = pts.to_vec();
    for _ in 0..2 {
        let n = pts.len();
        let mut next = Vec::with_capacity(2 * n);
        for i in 0..n {
            let (q, r) = cut(pts[i], pts[(i + 1) % n]);
            next.push(q);
            next.push(r);
        }
        pts = next;
    }
    pts
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashSet};

    use super::*;

    fn standard() -> (Map, Geometry) {
        let map = Map::standard();
        let g = Geometry::standard(&map).unwrap();
        (map, g)
    }

    /// The segments of an outline, each as an unordered pair of points (exact bits).
    fn segments(o: &Outline) -> HashSet<[(u32, u32); 2]> {
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

    #[test]
    fn provinces_share_a_boundary_exactly_where_the_map_has_a_border() {
        let (map, g) = standard();
        let segs: Vec<_> = g.outlines.iter().map(segments).collect();
        // Switzerland is impassable: it has no borders, yet it lies between these.
        let swi = map.lookup_province("swi").unwrap();
        let swiss: BTreeSet<&str> = ["bur", "mar", "mun", "pie", "tyr"].into_iter().collect();
        let mut wrong = Vec::new();
        for a in map.province_ids() {
            for b in map.province_ids().filter(|b| b.0 > a.0) {
                let touch = !segs[a.0 as usize].is_disjoint(&segs[b.0 as usize]);
                let (ka, kb) = (&map.province(a).key, &map.province(b).key);
                let border = if a == swi || b == swi {
                    swiss.contains(if a == swi { kb.as_str() } else { ka.as_str() })
                } else {
                    map.provinces_adjacent(a, b)
                };
                if touch != border {
                    wrong.push(format!("{ka}-{kb}: touch {touch}, border {border}"));
                }
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn every_province_and_region_has_its_shape_and_positions() {
        let (map, g) = standard();
        assert_eq!(g.outlines.len(), 76);
        for p in map.province_ids() {
            let o = &g.outlines[p.0 as usize];
            assert!(!o.loops.is_empty(), "{}", map.province(p).key);
            assert!(o.contains(g.labels[p.0 as usize]), "label of {}", map.province(p).key);
            if let Some(c) = g.centers[p.0 as usize] {
                assert!(o.contains(c), "center of {}", map.province(p).key);
            }
        }
        assert_eq!(g.units.len(), map.region_count());
        for (i, at) in g.units.iter().enumerate() {
            let r = RegionId(i as u16);
            assert!(g.outlines[map.province_of(r).0 as usize].contains(*at), "unit position of {}", map.region_name(r));
        }
    }

    #[test]
    fn the_shapes_cover_the_board_without_overlapping() {
        let (_, g) = standard();
        // Four sample points per cell side, off the grid lines.
        let mut covered = 0;
        for sy in 0..g.rows * 4 {
            for sx in 0..g.columns * 4 {
                let p = Point { x: (sx as f32 + 0.37) / 4.0, y: (sy as f32 + 0.61) / 4.0 };
                let n = g.outlines.iter().chain(std::iter::once(&g.offboard)).filter(|o| o.contains(p)).count();
                assert!(n <= 1, "{n} shapes overlap at ({}, {})", p.x, p.y);
                covered += n;
            }
        }
        assert_eq!(covered, g.rows * g.columns * 16, "gaps between shapes");
    }

    #[test]
    fn bad_geometry_files_say_where_and_what() {
        let map = Map::standard();
        let bad = STANDARD_GEOMETRY.replacen("nao nao", "nao xyz", 1);
        let e = Geometry::from_toml(&bad, "g.toml", &map).unwrap_err();
        assert_eq!(e.to_string(), "g.toml: `grid`: row 1, column 2: `xyz` is no province of the map");
        let bad = STANDARD_GEOMETRY.replace("\"adr\" = [23.5, 25.5]", "\"adr\" = [0.5, 0.5]");
        let e = Geometry::from_toml(&bad, "g.toml", &map).unwrap_err();
        assert_eq!(e.to_string(), "g.toml: `units.adr`: [0.5, 0.5] is not in Adriatic Sea");
        let bad = STANDARD_GEOMETRY.replace("\"adr\" = [23.5, 25.5]\n", "");
        let e = Geometry::from_toml(&bad, "g.toml", &map).unwrap_err();
        assert_eq!(e.to_string(), "g.toml: `units`: no position for adr");
    }
}
