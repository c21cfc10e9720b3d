import sys, tomllib, math
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
# Scratch files between the steps.
WORK = Path(os.environ.get('BOARD_WORK', '/tmp/board-work'))
WORK.mkdir(parents=True, exist_ok=True)
import numpy as np
import shapely
from shapely.geometry import Polygon, MultiPolygon, Point, MultiPoint, LineString, box
from shapely.ops import unary_union, polygonize
from land import topo_land, lcc
from seeds import SEEDS, PATCHES

proj = lcc(38, 62, 52, 15)
# North of YC the board is squeezed (Scandinavia and the Arctic shorter, as on the board
# players know).
YC = proj(15, 57)[1]
NORTH = 0.72
# East of XC likewise (Russia and Anatolia narrower).
XC = proj(30, 50)[0]
EAST = 0.8
X0, X1, Y0, Y1 = -0.39, XC + (0.40 - XC) * EAST, -0.33, 0.335
W = 54.0
CLOSE = 0.06
S = W / (X1 - X0)
H = round((Y1 - Y0) * S, 1)

def _plain(lon, lat):
    x, y = proj(lon, lat)
    if y > YC:
        y = YC + (y - YC) * NORTH
    if x > XC:
        x = XC + (x - XC) * EAST
    return ((x - X0) * S, (Y1 - y) * S)

# Lenses: Britain and Italy larger, so their small provinces have room for their units and
# names (centre in lon, lat; magnification at the centre; radius in board units).
LENSES = [(_plain(-3.4, 55.4), 1.45, 13.0), (_plain(13.5, 42.0), 1.3, 9.0)]

def tb(lon, lat):
    x, y = proj(lon, lat)
    if y > YC:
        y = YC + (y - YC) * NORTH
    if x > XC:
        x = XC + (x - XC) * EAST
    bx, by = (x - X0) * S, (Y1 - y) * S
    for (cx, cy), m, r in LENSES:
        d = math.hypot(bx - cx, by - cy)
        if d < r:
            f = m - (m - 1) * d / r
            bx, by = cx + (bx - cx) * f, cy + (by - cy) * f
    return bx, by

MAP = tomllib.load(open(REPO / 'maps/standard/map.toml', 'rb'))
PROV = MAP['provinces']
SEA = {k for k, v in PROV.items() if v.get('terrain') == 'sea'}

def build():
    frame = box(0, 0, W, H)
    polys = []
    for p in topo_land(os.environ['LAND']):
        lons = [q[0] for q in p[0]]; lats = [q[1] for q in p[0]]
        if max(lons) < -40 or min(lons) > 70 or max(lats) < 20 or min(lats) > 85:
            continue
        rings = [[tb(lon, min(lat, 84)) for lon, lat in r] for r in p]
        polys.append(Polygon(rings[0], rings[1:]).buffer(0))
    for p in PATCHES:
        polys.append(Polygon([tb(*q) for q in p]))
    # Straits narrower than about 10 km are closed (the Bosporus, the Dardanelles, the
    # Sound): the board has no such straits.
    land = unary_union(polys).buffer(CLOSE).buffer(-CLOSE).intersection(frame)
    sea = frame.difference(land)
    seeds = {k: [Point(tb(*q)) for q in v] for k, v in SEEDS.items()}
    ll = {(k, i): q for k, v in SEEDS.items() for i, q in enumerate(v)}
    # Sea parts with no sea seed (the Caspian, lakes) are land; land parts with no land
    # seed (small islands) are sea.
    sea_parts = [g for g in getattr(sea, 'geoms', [sea]) if any(g.contains(p) for k, v in seeds.items() if k in SEA for p in v)]
    land = frame.difference(unary_union(sea_parts))
    land_parts = [g for g in getattr(land, 'geoms', [land]) if any(g.contains(p) for k, v in seeds.items() if k not in SEA for p in v)]
    land = unary_union(land_parts)
    sea = frame.difference(land)
    sea_parts = list(getattr(sea, 'geoms', [sea]))
    parts = [(g, False) for g in land_parts] + [(g, True) for g in sea_parts]
    for k, v in seeds.items():
        for i, p in enumerate(v):
            if not any(g.contains(p) and s == (k in SEA) for g, s in parts) and k != 'off':
                print('seed off its kind of ground:', k, ll[(k, i)], file=sys.stderr)
    # Per part, the seeds in it; the Voronoi edges of each part's seeds.
    lines = [land.boundary, frame.boundary]
    part_seeds = []
    for g, is_sea in parts:
        ss = [(k, p) for k, v in seeds.items() if (k in SEA) == is_sea for p in v if g.contains(p)]
        part_seeds.append(ss)
        if len(set(k for k, _ in ss)) > 1:
            vd = shapely.voronoi_polygons(MultiPoint([p for _, p in ss]), extend_to=frame, only_edges=True)
            lines.append(vd.intersection(frame.buffer(1)))
    noded = unary_union(lines)
    faces = list(polygonize(noded))
    from shapely.strtree import STRtree
    tree = STRtree([g for g, _ in parts])
    labels = {}
    for f in faces:
        rp = f.representative_point()
        if not frame.contains(rp):
            continue
        idx = [i for i in tree.query(rp) if parts[i][0].contains(rp)]
        if not idx:
            # The largest overlap.
            idx = [max(range(len(parts)), key=lambda i: parts[i][0].intersection(f).area)]
        ss = part_seeds[idx[0]]
        if not ss:
            continue
        k = min(ss, key=lambda kp: kp[1].distance(rp))[0]
        labels.setdefault(k, []).append(f)
    names = sorted(labels)
    geoms = [unary_union(labels[k]) for k in names]
    return names, geoms, frame

def adjacency():
    adj = set()
    for k, v in PROV.items():
        ns = list(v.get('army', [])) + list(v.get('fleet', []))
        for c in v.get('coasts', {}).values():
            ns += list(c)
        for n in ns:
            n = n.split('/')[0]
            adj.add(tuple(sorted((k, n))))
    return adj

if __name__ == '__main__':
    names, geoms, frame = build()
    import pickle
    pickle.dump((names, [shapely.to_wkb(g) for g in geoms], W, H), open(WORK / 'raw.pkl', 'wb'))
    print(len(names), 'areas; board', W, H)
