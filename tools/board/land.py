import json, math
import numpy as np
from shapely.geometry import Polygon, MultiPolygon, box
from shapely.ops import unary_union

def topo_land(path):
    t = json.load(open(path))
    sx, sy = t['transform']['scale']; tx, ty = t['transform']['translate']
    arcs = []
    for a in t['arcs']:
        x = y = 0; pts = []
        for dx, dy in a:
            x += dx; y += dy
            pts.append((x * sx + tx, y * sy + ty))
        arcs.append(pts)
    def ring(ids):
        out = []
        for i in ids:
            pts = arcs[i] if i >= 0 else arcs[~i][::-1]
            out.extend(pts if not out else pts[1:])
        return out
    polys = []
    for g in t['objects']['land']['geometries']:
        cs = g['arcs'] if g['type'] == 'MultiPolygon' else [g['arcs']]
        for p in cs:
            polys.append([ring(r) for r in p])
    return polys

R = 1.0
def lcc(lat1, lat2, lat0, lon0):
    f1, f2, f0 = map(math.radians, (lat1, lat2, lat0))
    n = math.log(math.cos(f1)/math.cos(f2)) / math.log(math.tan(math.pi/4+f2/2)/math.tan(math.pi/4+f1/2))
    F = math.cos(f1)*math.tan(math.pi/4+f1/2)**n / n
    r0 = F / math.tan(math.pi/4+f0/2)**n
    def proj(lon, lat):
        lat = max(min(lat, 89.0), -89.0)
        r = F / math.tan(math.pi/4+math.radians(lat)/2)**n
        th = n*math.radians(lon-lon0)
        return (r*math.sin(th), r0 - r*math.cos(th))
    return proj
