import sys, tomllib, math, importlib
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
# The variant whose board is made (a folder of maps/); its seeds, projection and hints are
# in seeds_VARIANT.py.
VARIANT = os.environ.get('VARIANT', 'standard')
# Scratch files between the steps.
WORK = Path(os.environ.get('BOARD_WORK', '/tmp/board-work'))
WORK.mkdir(parents=True, exist_ok=True)
import numpy as np
import shapely
from shapely.geometry import Polygon, MultiPolygon, Point, MultiPoint, LineString, box
from shapely.ops import unary_union, polygonize
from land import topo_land, lcc
V = importlib.import_module(f'seeds_{VARIANT}')
SEEDS, PATCHES = V.SEEDS, V.PATCHES
# Water that belongs to no province (lon, lat outlines): it goes to `off`.
OCEAN = getattr(V, 'OCEAN', [])

proj = lcc(*V.PROJ)
# North of YC the board is squeezed by NORTH, east of XC by EAST, south of YS by SOUTH.
YC = proj(*V.NORTH[0])[1]
NORTH = V.NORTH[1]
XC = proj(*V.EAST[0])[0]
EAST = V.EAST[1]
YS, SOUTH = (proj(*V.SOUTH[0])[1], V.SOUTH[1]) if getattr(V, 'SOUTH', None) else (None, 1.0)
X0, X1, Y0, Y1 = V.frame(XC, EAST)
W = V.W
CLOSE = V.CLOSE
S = W / (X1 - X0)
H = round((Y1 - Y0) * S, 1)

def _plain(lon, lat):
    x, y = proj(lon, lat)
    if y > YC:
        y = YC + (y - YC) * NORTH
    if YS is not None and y < YS:
        y = YS + (y - YS) * SOUTH
    if x > XC:
        x = XC + (x - XC) * EAST
    return ((x - X0) * S, (Y1 - y) * S)

# Lenses: some lands larger, so their small provinces have room for their units and names
# (centre in lon, lat; magnification at the centre; radius in board units).
LENSES = [(_plain(*c), m, r) for c, m, r in V.LENSES]

def tb(lon, lat):
    x, y = proj(lon, lat)
    if y > YC:
        y = YC + (y - YC) * NORTH
    if YS is not None and y < YS:
        y = YS + (y - YS) * SOUTH
    if x > XC:
        x = XC + (x - XC) * EAST
    bx, by = (x - X0) * S, (Y1 - y) * S
    for (cx, cy), m, r in LENSES:
        d = math.hypot(bx - cx, by - cy)
        if d < r:
            f = m - (m - 1) * d / r
            bx, by = cx + (bx - cx) * f, cy + (by - cy) * f
    return bx, by

MAP = tomllib.load(open(REPO / f'maps/{VARIANT}/map.toml', 'rb'))
PROV = MAP['provinces']
SEA = {k for k, v in PROV.items() if v.get('terrain') == 'sea'}

def build():
    frame = box(0, 0, W, H)
    polys = []
    for p in topo_land(os.environ['LAND']):
        lons = [q[0] for q in p[0]]; lats = [q[1] for q in p[0]]
        lo0, lo1, la0, la1 = V.CLIP
        if max(lons) < lo0 or min(lons) > lo1 or max(lats) < la0 or min(lats) > la1:
            continue
        rings = [[tb(lon, min(lat, 84)) for lon, lat in r] for r in p]
        polys.append(Polygon(rings[0], rings[1:]).buffer(0))
    for p in PATCHES:
        polys.append(Polygon([tb(*q) for q in p]))
    # Straits narrower than about 10 km are closed (the Bosporus, the Dardanelles, the
    # Sound): the board has no such straits.
    land = unary_union(polys).buffer(CLOSE).buffer(-CLOSE).intersection(frame)
    # Straits the board keeps open however narrow (lon, lat outlines of water).
    if getattr(V, 'OPEN', []):
        land = land.difference(unary_union([Polygon([tb(*q) for q in o]) for o in V.OPEN]))
    sea = frame.difference(land)
    # The water of no province is its own part, `off`'s.
    ocean = None
    if OCEAN:
        ocean = unary_union([Polygon([tb(*q) for q in o]) for o in OCEAN]).intersection(sea)
        sea = sea.difference(ocean)
    seeds = {k: [Point(tb(*q)) for q in v] for k, v in SEEDS.items()}
    ll = {(k, i): q for k, v in SEEDS.items() for i, q in enumerate(v)}
    # Sea parts with no sea seed (the Caspian, lakes) are land; land parts with no land
    # seed (small islands) are sea.
    sea_parts = [g for g in getattr(sea, 'geoms', [sea]) if any(g.contains(p) for k, v in seeds.items() if k in SEA for p in v)]
    land = frame.difference(unary_union(sea_parts))
    if ocean is not None:
        land = land.difference(ocean)
    land_parts = [g for g in getattr(land, 'geoms', [land]) if any(g.contains(p) for k, v in seeds.items() if k not in SEA for p in v)]
    land = unary_union(land_parts)
    sea = frame.difference(land)
    if ocean is not None:
        sea = sea.difference(ocean)
    sea_parts = list(getattr(sea, 'geoms', [sea]))
    parts = [(g, False) for g in land_parts] + [(g, True) for g in sea_parts]
    if ocean is not None:
        parts += [(g, None) for g in getattr(ocean, 'geoms', [ocean])]
    for k, v in seeds.items():
        for i, p in enumerate(v):
            if not any(g.contains(p) and s == (k in SEA) for g, s in parts) and k != 'off':
                print('seed off its kind of ground:', k, ll[(k, i)], file=sys.stderr)
    # Per part, the seeds in it; the Voronoi edges of each part's seeds.
    lines = [land.boundary, frame.boundary] + ([ocean.boundary] if ocean is not None else [])
    part_seeds = []
    for g, is_sea in parts:
        if is_sea is None:
            part_seeds.append([('off', g.representative_point())])
            continue
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
