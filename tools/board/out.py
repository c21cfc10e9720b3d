import pickle, sys, math, tomllib
import numpy as np
import shapely
from shapely.geometry import Point, Polygon, MultiPolygon, box
from shapely.ops import unary_union
from gen import tb, SEA, PROV, adjacency, WORK, V

TOL = float(sys.argv[1]) if len(sys.argv) > 1 else 0.06
names, wkbs, W, H = pickle.load(open(WORK / 'raw.pkl', 'rb'))
geoms = [shapely.from_wkb(b) for b in wkbs]
# Slivers and specks (under MIN_AREA) go to the area they share the most border with.
MIN_AREA = 0.08
changed = True
while changed:
    changed = False
    for i, g in enumerate(geoms):
        comps = list(getattr(g, 'geoms', [g]))
        small = [c for c in comps if c.area < MIN_AREA]
        if not small or len(small) == len(comps) and names[i] != 'off' and False:
            continue
        for c in small:
            best = max((j for j in range(len(geoms)) if j != i), key=lambda j: c.boundary.intersection(geoms[j].boundary).length)
            geoms[best] = unary_union([geoms[best], c])
            print('speck of', names[i], 'to', names[best], round(c.area, 3), file=sys.stderr)
        keep = [c for c in comps if c.area >= MIN_AREA]
        geoms[i] = MultiPolygon(keep) if len(keep) > 1 else keep[0]
        changed = True
        break
assert shapely.coverage_is_valid(geoms)
simp = shapely.coverage_simplify(geoms, TOL, simplify_boundary=True)
# Round to 1/100 of a cell: shared vertices stay shared.
simp = [shapely.set_precision(g, 0.01, mode='pointwise') for g in simp]
assert shapely.coverage_is_valid(simp), 'the rounded coverage is not valid'

# Specks of shared boundary (under SPECK long) between areas with no border, left where
# three or four areas meet, shrink to a point: their ends move to their middle everywhere.
SPECK = 0.1
def segs(g):
    out = {}
    for p in getattr(g, 'geoms', [g]):
        for r in [p.exterior, *p.interiors]:
            c = list(r.coords)
            for u, v in zip(c, c[1:]):
                out[(u, v) if u < v else (v, u)] = math.dist(u, v)
    return out
adj = adjacency()
S = [segs(g) for g in simp]
moves = {}
for i, a in enumerate(names):
    for j in range(i + 1, len(names)):
        b = names[j]
        if 'off' in (a, b) or tuple(sorted((a, b))) in adj | V.TOUCH_OK:
            continue
        shared = set(S[i]) & set(S[j])
        if shared and sum(S[i][s] for s in shared) < SPECK:
            for u, v in shared:
                m = (round((u[0] + v[0]) / 2, 2), round((u[1] + v[1]) / 2, 2))
                moves[u] = moves[v] = m
            print('speck of border', a, b, 'shrunk', file=sys.stderr)
if moves:
    def move(c):
        return np.array([moves.get((x, y), (x, y)) for x, y in c])
    simp = [shapely.set_precision(shapely.transform(g, move), 0.01, mode='pointwise') for g in simp]
    simp = [shapely.remove_repeated_points(g) for g in simp]
    assert shapely.coverage_is_valid(simp), 'the coverage is not valid after shrinking specks'
G = {}
for k, g in zip(names, simp):
    g = shapely.make_valid(g)
    polys = [p for p in getattr(g, 'geoms', [g]) if p.geom_type == 'Polygon' and p.area > 0.02]
    G[k] = MultiPolygon(polys)
npts = sum(len(p.exterior.coords) + sum(len(i.coords) for i in p.interiors) for g in G.values() for p in g.geoms)
print('vertices', npts, file=sys.stderr)
pickle.dump((names, {k: shapely.to_wkb(g) for k, g in G.items()}, W, H), open(WORK / 'final.pkl', 'wb'))
