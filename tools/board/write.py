import pickle, sys
import shapely
from gen import PROV, WORK, HERE, REPO, VARIANT, V

names, wk, W, H = pickle.load(open(WORK / 'final.pkl', 'rb'))
G = {k: shapely.from_wkb(v) for k, v in wk.items()}
units, labels, centers = pickle.load(open(WORK / 'places.pkl', 'rb'))

def f(v):
    s = f'{v:.2f}'.rstrip('0').rstrip('.')
    return '0' if s == '-0' else s

def ring(coords):
    pts = list(coords)[:-1]
    return ' '.join(f'{f(x)},{f(y)}' for x, y in pts)

def loops(g):
    out = []
    # Outlines clockwise on the screen (y down), holes the other way: shoelace areas add up.
    g = shapely.orient_polygons(g, exterior_cw=False)
    for p in sorted(g.geoms, key=lambda p: -p.area):
        out.append(ring(p.exterior.coords))
        for h in p.interiors:
            out.append(ring(h.coords))
    return out

def arr(ls):
    return '[\n' + ''.join(f'  "{l}",\n' for l in ls) + ']'

HEADER = open(HERE / f'header_{VARIANT}.txt').read()
o = [HEADER.rstrip() + '\n']
o.append(f'map = "{VARIANT}"')
o.append(f'width = {W:.1f}')
o.append(f'height = {H:.1f}')
o.append(V.OFFBOARD)
o.append('offboard = ' + arr(loops(G['off'])))
o.append('')
o.append('[shapes]')
for k in sorted(PROV):
    o.append(f'{k} = ' + arr(loops(G[k])))
def table(name, d):
    o.append('')
    o.append(f'[{name}]')
    for k in sorted(d):
        x, y = d[k]
        o.append(f'"{k}" = [{f(x)}, {f(y)}]')
table('units', units)
table('labels', labels)
table('centers', centers)
open(REPO / f'maps/{VARIANT}/geometry.toml', 'w').write('\n'.join(o) + '\n')
print('written', sum(len(l) for l in o))
