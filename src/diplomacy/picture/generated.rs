//! A board drawn from a map's borders alone, for maps without a geometry file.
//!
//! The provinces are laid out by stress majorization over their distances in the border
//! graph (neighbours near, far provinces far), from a circle, so the same map always gives
//! the same board. Each province is the part of the board nearer its point than any other
//! (a Voronoi cell, clipped to the board), so the shapes tile the board; units, names and
//! center marks sit near the point, well inside the cell.

use super::geometry::{Geometry, Outline, Point};
use crate::diplomacy::map::{Map, RegionId};

/// The least distance between two provinces' points, in board units (20 px): room for a
/// name, a unit and a center mark.
const SPACING: f32 = 4.2;
const MARGIN: f32 = 2.6;
/// The least board, so the title, legend and ledger below it fit.
const MIN_WIDTH: f32 = 34.0;
const MIN_HEIGHT: f32 = 20.0;
/// The largest board side, in board units (1,600 px).
const MAX_SIDE: f32 = 80.0;

/// The generated geometry of `map`.
pub fn geometry(map: &Map) -> Geometry {
    let n = map.provinces().len();
    let mut points = layout(map);
    // Scale so the closest two points are SPACING apart, and move into the margin.
    let nearest =
        |i: usize| (0..n).filter(|&j| j != i).map(|j| dist(points[i], points[j])).fold(f32::INFINITY, f32::min);
    // Scaled by a low quantile of the nearest distances, not the least: one close pair
    // must not blow the whole board up (its marks still fit, kept within its cell).
    let mut nearest_all: Vec<f32> = (0..n).map(nearest).filter(|d| d.is_finite()).collect();
    nearest_all.sort_by(f32::total_cmp);
    let closest = nearest_all.get(nearest_all.len() / 5).copied().unwrap_or(f32::INFINITY);
    // From the top left corner.
    let min_x = points.iter().map(|p| p.0).fold(f32::INFINITY, f32::min);
    let min_y = points.iter().map(|p| p.1).fold(f32::INFINITY, f32::min);
    for p in &mut points {
        *p = (p.0 - min_x, p.1 - min_y);
    }
    let mut scale = if closest.is_finite() && closest > 1e-6 { SPACING / closest } else { SPACING };
    // At most MAX_SIDE board units a side.
    let span = points.iter().fold(0.0f32, |m, p| m.max(p.0).max(p.1));
    if span * scale + 2.0 * MARGIN > MAX_SIDE {
        scale = (MAX_SIDE - 2.0 * MARGIN) / span;
    }
    let spread = |f: fn(&(f32, f32)) -> f32, min: f32| {
        let span = points.iter().map(f).fold(0.0, f32::max) * scale + 2.0 * MARGIN;
        (span.max(min), (min - span).max(0.0) / 2.0 + MARGIN)
    };
    let (width, dx) = spread(|p| p.0, MIN_WIDTH);
    let (height, dy) = spread(|p| p.1, MIN_HEIGHT);
    let sites: Vec<Point> = points.iter().map(|p| Point { x: p.0 * scale + dx, y: p.1 * scale + dy }).collect();
    let outlines: Vec<Outline> = (0..n).map(|i| Outline { loops: vec![cell(&sites, i, width, height)] }).collect();
    // Marks within half the way to the nearest other point stay inside the cell.
    let room: Vec<f32> = (0..n)
        .map(|i| {
            let d = (0..n).filter(|&j| j != i).map(|j| dist((sites[i].x, sites[i].y), (sites[j].x, sites[j].y)));
            d.fold(f32::INFINITY, f32::min).min(2.0 * SPACING) / 2.0
        })
        .collect();
    let at = |i: usize, dx: f32, dy: f32| {
        let r = room[i] * 0.9;
        let len = (dx * dx + dy * dy).sqrt().max(1e-6);
        let k = if len > r { r / len } else { 1.0 };
        Point { x: sites[i].x + dx * k, y: sites[i].y + dy * k }
    };
    let mut units = Vec::with_capacity(map.region_count());
    for r in 0..map.region_count() {
        let region = map.region(RegionId(r as u16));
        let i = region.province.0 as usize;
        match region.coast {
            None => units.push(at(i, 0.0, 0.9)),
            Some(_) => {
                // A coast's fleet stands toward the waters it borders.
                let (mut sx, mut sy, mut k) = (0.0, 0.0, 0.0);
                for to in map.neighbours(crate::diplomacy::map::UnitType::Fleet, RegionId(r as u16)) {
                    let q = sites[map.province_of(to).0 as usize];
                    (sx, sy, k) = (sx + q.x, sy + q.y, k + 1.0);
                }
                let (dx, dy) = if k > 0.0 { (sx / k - sites[i].x, sy / k - sites[i].y) } else { (1.0, 0.0) };
                let len = (dx * dx + dy * dy).sqrt().max(1e-6);
                units.push(at(i, dx / len * 2.0, dy / len * 2.0));
            }
        }
    }
    let labels = (0..n).map(|i| at(i, 0.0, -0.9)).collect();
    let centers = map.provinces().iter().enumerate().map(|(i, p)| p.supply_center.then(|| at(i, 1.5, 0.9))).collect();
    Geometry { width, height, outlines, offboard: Outline::default(), units, labels, centers }
}

fn dist(a: (f32, f32), b: (f32, f32)) -> f32 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// Points for the provinces: stress majorization on the border graph's distances.
fn layout(map: &Map) -> Vec<(f32, f32)> {
    let n = map.provinces().len();
    if n == 0 {
        return Vec::new();
    }
    // Graph distances (breadth first from each province); apart pieces count as far.
    let mut d = vec![0f32; n * n];
    for s in 0..n {
        let mut seen = vec![u32::MAX; n];
        seen[s] = 0;
        let mut queue = std::collections::VecDeque::from([s]);
        while let Some(p) = queue.pop_front() {
            for q in 0..n {
                let adjacent = map.provinces_adjacent(
                    crate::diplomacy::map::ProvinceId(p as u16),
                    crate::diplomacy::map::ProvinceId(q as u16),
                );
                if adjacent && seen[q] == u32::MAX {
                    seen[q] = seen[p] + 1;
                    queue.push_back(q);
                }
            }
        }
        let far = seen.iter().filter(|&&v| v != u32::MAX).max().copied().unwrap_or(0) + 2;
        for q in 0..n {
            d[s * n + q] = if seen[q] == u32::MAX { far as f32 } else { seen[q] as f32 };
        }
    }
    // From a circle, in the map's order.
    let mut x: Vec<(f32, f32)> = (0..n)
        .map(|i| {
            let a = i as f32 / n as f32 * std::f32::consts::TAU;
            (a.cos() * n as f32 / 4.0, a.sin() * n as f32 / 4.0)
        })
        .collect();
    for _ in 0..300 {
        for i in 0..n {
            let (mut sx, mut sy, mut sw) = (0.0, 0.0, 0.0);
            for j in 0..n {
                if i == j {
                    continue;
                }
                let dij = d[i * n + j].max(1.0);
                let w = 1.0 / (dij * dij);
                let (ex, ey) = (x[i].0 - x[j].0, x[i].1 - x[j].1);
                let len = (ex * ex + ey * ey).sqrt().max(1e-4);
                sx += w * (x[j].0 + dij * ex / len);
                sy += w * (x[j].1 + dij * ey / len);
                sw += w;
            }
            if sw > 0.0 {
                x[i] = (sx / sw, sy / sw);
            }
        }
    }
    x
}

/// The Voronoi cell of `sites[i]` in the board `w` x `h`: the board cut by the half-plane
/// nearer `i` than each other site.
fn cell(sites: &[Point], i: usize, w: f32, h: f32) -> Vec<Point> {
    let mut poly = vec![Point { x: 0.0, y: 0.0 }, Point { x: w, y: 0.0 }, Point { x: w, y: h }, Point { x: 0.0, y: h }];
    let p = sites[i];
    for (j, q) in sites.iter().enumerate() {
        if j == i || poly.is_empty() {
            continue;
        }
        // Keep the points x with (x - m) . (q - p) <= 0, m the midpoint.
        let (nx, ny) = (q.x - p.x, q.y - p.y);
        let (mx, my) = ((p.x + q.x) / 2.0, (p.y + q.y) / 2.0);
        let side = |a: Point| (a.x - mx) * nx + (a.y - my) * ny;
        let mut out = Vec::with_capacity(poly.len() + 1);
        for k in 0..poly.len() {
            let a = poly[k];
            let b = poly[(k + 1) % poly.len()];
            let (sa, sb) = (side(a), side(b));
            if sa <= 0.0 {
                out.push(a);
            }
            if (sa <= 0.0) != (sb <= 0.0) {
                let t = sa / (sa - sb);
                out.push(Point { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });
            }
        }
        poly = out;
    }
    poly
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_board_places_every_mark_inside_its_province() {
        for v in crate::diplomacy::map::shipped::VARIANTS {
            let map = v.build().unwrap();
            let g = geometry(&map);
            assert!(g.width > 0.0 && g.height > 0.0 && g.width < 1000.0 && g.height < 1000.0, "{}", v.name);
            for (i, p) in map.provinces().iter().enumerate() {
                let o = &g.outlines[i];
                assert!(o.loops[0].len() >= 3, "{} {}", v.name, p.key);
                assert!(o.contains(g.labels[i]), "{} label {}", v.name, p.key);
                if let Some(c) = g.centers[i] {
                    assert!(o.contains(c), "{} center {}", v.name, p.key);
                }
                for r in map.regions_of(crate::diplomacy::map::ProvinceId(i as u16)) {
                    assert!(o.contains(g.units[r.0 as usize]), "{} unit {}", v.name, map.region_name(r));
                }
            }
            // The cells tile the board.
            let area: f64 = g.outlines.iter().map(|o| o.area().abs()).sum();
            let board = f64::from(g.width) * f64::from(g.height);
            assert!((area - board).abs() < board * 1e-3, "{}: {area} of {board}", v.name);
        }
    }
}
