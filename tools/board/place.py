import pickle, sys, math
import numpy as np
import shapely
from shapely.geometry import Point, Polygon, MultiPolygon, box
from gen import tb, SEA, PROV, WORK, V

names, wk, W, H = pickle.load(open(WORK / 'final.pkl', 'rb'))
G = {k: shapely.from_wkb(v) for k, v in wk.items()}

# Footprints as the test in src/diplomacy/picture/geometry.rs has them (board units).
def unit_box(p): return box(p[0] - 0.62, p[1] - 0.42, p[0] + 0.62, p[1] + 0.42)
def coast_box(p): return box(p[0] - 0.3, p[1] + 0.7 - 0.18, p[0] + 0.3, p[1] + 0.7 + 0.18)
def label_box(p, k):
    w = 0.155 * len(k) + 0.05
    return box(p[0] - w, p[1] - 0.25, p[0] + w, p[1] + 0.25)
def center_box(p): return box(p[0] - 0.26, p[1] - 0.26, p[0] + 0.26, p[1] + 0.26)
PAD = 0.06

# Where some units stand (lon, lat: the coasts of split provinces, and a few by hand), and
# the piece of a province its unit and name go on when that is not its largest.
TARGETS = V.TARGETS
MAINLAND = V.MAINLAND

def regions(k):
    return [k] + [f'{k}/{c}' for c in PROV[k].get('coasts', {})]

def candidates(g, step=0.1):
    x0, y0, x1, y1 = g.bounds
    xs = np.arange(math.floor(x0 * 10) / 10 + step / 2, x1, step)
    ys = np.arange(math.floor(y0 * 10) / 10 + step / 2, y1, step)
    pts = shapely.points(np.array([(x, y) for y in ys for x in xs]))
    pts = pts[shapely.contains(g, pts)]
    d = shapely.distance(g.boundary, pts)
    return np.array([(p.x, p.y) for p in pts]), d

placed = []  # (province, shape)
def clear(shape, k, same_ok=False):
    for pk, s in placed:
        if pk == k and same_ok:
            continue
        if s.intersects(shape):
            return False
    return True

units, labels, centers = {}, {}, {}
fails = []
order = sorted(PROV, key=lambda k: G[k].area)
for k in order:
    g = G[k]
    if k in MAINLAND:
        t = Point(tb(*MAINLAND[k]))
        main = min(g.geoms, key=lambda p: p.distance(t))
    else:
        main = max(g.geoms, key=lambda p: p.area)
    pts, d = candidates(main)
    regs = regions(k)
    c = np.array(main.centroid.coords[0])
    for r in regs:
        if r in TARGETS:
            t = np.array(tb(*TARGETS[r]))
            score = -np.hypot(*(pts - t).T) + 3 * np.minimum(d, 0.62)
        else:
            score = np.minimum(d, 1.8) - 0.03 * np.hypot(*(pts - c).T)
        chosen = None
        for j in np.argsort(-score):
            p = tuple(pts[j])
            shapes = [unit_box(p).buffer(PAD)] + ([coast_box(p).buffer(PAD)] if '/' in r else [])
            inside = all(main.buffer(0.02).contains(s) for s in shapes) or d[j] >= 0.62
            if inside and all(clear(s, k, same_ok=True) for s in shapes):
                chosen = p; break
        if chosen is None:
            fails.append((r, 'unit')); chosen = tuple(pts[np.argmax(score)])
        units[r] = chosen
    for r in regs:
        placed.append((k, unit_box(units[r])))
        if '/' in r:
            placed.append((k, coast_box(units[r])))
    u = np.array(units[k])
    near = np.argsort(np.hypot(*(pts - u).T))
    best = None
    for need in (1.0, 0.8, 0.6, 0.0):
        for j in near:
            p = tuple(pts[j])
            b = label_box(p, k)
            if not clear(b.buffer(PAD), k):
                continue
            if b.intersection(main).area / b.area >= need - 1e-9:
                best = p; break
        if best: break
    if need < 1.0:
        fails.append((k, f'label partly outside ({need})'))
    if best is None:
        fails.append((k, 'label')); best = tuple(pts[np.argmax(d)])
    labels[k] = best
    placed.append((k, label_box(best, k)))
    if PROV[k].get('center'):
        cb = None
        for need in (0.26, 0.15, 0.0):
            for j in near:
                if d[j] < need: continue
                p = tuple(pts[j])
                if clear(center_box(p).buffer(PAD), k):
                    cb = p; break
            if cb: break
        if cb is None:
            fails.append((k, 'center')); cb = tuple(pts[np.argmax(d)])
        centers[k] = cb
        placed.append((k, center_box(cb)))
for f in fails: print('placing:', *f, file=sys.stderr)
pickle.dump((units, labels, centers), open(WORK / 'places.pkl', 'wb'))
