import pickle, sys, shapely, random
import matplotlib; matplotlib.use('Agg')
import matplotlib.pyplot as plt
from gen import *
names, wkbs, W, H = pickle.load(open(WORK / 'raw.pkl', 'rb'))
geoms = [shapely.from_wkb(b) for b in wkbs]
G = dict(zip(names, geoms))
adj = adjacency()
found = set()
for i, a in enumerate(names):
    for j in range(i + 1, len(names)):
        b = names[j]
        if a == 'off' or b == 'off': continue
        x = geoms[i].boundary.intersection(geoms[j].boundary)
        if x.length > 1e-6:
            found.add(tuple(sorted((a, b))))
missing = sorted(adj - found - V.APART_OK)
extra = sorted(found - adj - V.TOUCH_OK)
print('missing:', missing)
print('extra:', extra)
for a, b in extra:
    x = G[a].boundary.intersection(G[b].boundary)
    print('  ', a, b, [round(v, 1) for v in x.bounds], round(x.length, 2))
def draw(fname, x0, y0, x1, y1, per=25):
    fig, ax = plt.subplots(figsize=((x1-x0)*per/50, (y1-y0)*per/50))
    for k, g in G.items():
        random.seed(k)
        col = '#%02x%02xff' % (random.randint(120,220), random.randint(160,230)) if k in SEA else ('#999' if k == 'off' else '#%02x%02x%02x' % (random.randint(170,250), random.randint(170,240), random.randint(130,200)))
        for p in getattr(g, 'geoms', [g]):
            if p.geom_type != 'Polygon': continue
            x, y = p.exterior.xy; ax.fill(x, y, color=col, ec='k', lw=0.4)
            for h in p.interiors:
                x, y = h.xy; ax.plot(x, y, color='k', lw=0.4)
        if k != 'off':
            c = g.representative_point()
            if x0 < c.x < x1 and y0 < c.y < y1: ax.text(c.x, c.y, k, fontsize=12, ha='center', weight='bold')
    for k, v in SEEDS.items():
        for q in v:
            x, y = tb(*q); ax.plot(x, y, 'r.', ms=3)
    for lon in range(-30, 60, 2):
        pts = [tb(lon, la/2) for la in range(0, 160)]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color='r', lw=0.2)
    for la in range(0, 80, 2):
        pts = [tb(lo/2, la) for lo in range(-80, 120)]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color='b', lw=0.2)
        for lon in range(-30, 60, 2):
            p = tb(lon, la)
            if x0 < p[0] < x1 and y0 < p[1] < y1:
                ax.text(p[0], p[1], f'{lon},{la}', fontsize=7, color='#a00')
    ax.set_xlim(x0, x1); ax.set_ylim(y1, y0); ax.set_aspect('equal')
    plt.savefig(WORK / (fname + '.png'), dpi=50, bbox_inches='tight'); plt.close(fig)
if len(sys.argv) > 1:
    a = sys.argv[1:]
    draw(a[0], *map(float, a[1:5]), per=float(a[5]) if len(a) > 5 else 25)
