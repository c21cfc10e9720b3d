"""Compare the shipped variants with MILA's `diplomacy` package, when it is installed.

Run by tests/it/map_files.rs (skipped without MILA): for each variant, every border by
unit type, the supply centers, each power's home centers and starting units, the
centers for victory and the first year, as the judge reads them (`map show --json`)
and as MILA's Map has them. Prints each difference; exits 1 if there is any.
"""
import json
import subprocess
import sys

from diplomacy.engine.map import Map

# Our variant name -> MILA's map name.
VARIANTS = {"standard": "standard", "ancmed": "ancmed", "modern": "modern", "pure": "pure", "france-austria": "standard_france_austria"}


def ours(cli, name):
    data = json.loads(subprocess.run([cli, "map", "show", name, "--json"], check=True, capture_output=True).stdout)
    borders, centers, homes = set(), set(), {}
    for p in data["provinces"]:
        key = p["key"].upper()
        if p["terrain"] != "sea" and not p["impassable"]:
            borders |= {("A", key, q.upper()) for q in p["army"]}
        for region, to in p["fleet"].items():
            borders |= {("F", region.upper(), q.upper()) for q in to}
        if p["supply_center"]:
            centers.add(key)
    for power in data["powers"]:
        homes[power["name"].upper()] = sorted(h.upper() for h in power["home_centers"])
    return data, borders, centers, homes


def mila(name):
    m = Map(name)
    borders = set()
    for a in m.locs:
        a = a.upper()
        for b in m.locs:
            b = b.upper()
            if a == b or a[:3] == b[:3]:
                continue
            a_type, b_type = m.area_type(a), m.area_type(b)
            split = lambda loc: "/" not in loc and any(c.upper().startswith(loc + "/") for c in m.locs)
            if a_type != "WATER" and b_type != "WATER" and "/" not in a + b and m.abuts("A", a, "-", b):
                borders.add(("A", a, b))
            if a_type != "LAND" and b_type != "LAND" and not split(a) and not split(b) and m.abuts("F", a, "-", b):
                borders.add(("F", a, b))
    homes = {p: sorted(h.upper() for h in m.homes[p]) for p in m.powers}
    return m, borders, {c.upper() for c in m.scs}, homes


def main():
    cli, problems = sys.argv[1], []
    for ours_name, mila_name in VARIANTS.items():
        data, o_borders, o_centers, o_homes = ours(cli, ours_name)
        m, m_borders, m_centers, m_homes = mila(mila_name)
        say = lambda what: problems.append(f"{ours_name}: {what}")
        for b in sorted(o_borders - m_borders):
            say(f"border {b} is ours only")
        for b in sorted(m_borders - o_borders):
            say(f"border {b} is MILA's only")
        if o_centers != m_centers:
            say(f"centers differ: ours only {sorted(o_centers - m_centers)}, MILA's only {sorted(m_centers - o_centers)}")
        if o_homes != m_homes:
            say(f"home centers differ: ours {o_homes}, MILA's {m_homes}")
        # MILA's victory, when its map sets none, is a majority of the centers.
        victory = m.victory[0] if m.victory else len(m.scs) // 2 + 1
        if data["victory_centers"] != victory:
            say(f"victory at {data['victory_centers']}, MILA's at {victory}")
        if data["first_year"] != m.first_year:
            say(f"the first year is {data['first_year']}, MILA's {m.first_year}")
        units = {p["name"].upper(): sorted(u.upper() for u in p["units"]) for p in data["powers"]}
        m_units = {p: sorted(m.units[p]) for p in m.powers if m.units.get(p)}
        if units != {p: u for p, u in m_units.items()}:
            say(f"starting units differ: ours {units}, MILA's {m_units}")
        print(f"{ours_name}: {len(o_borders)} borders, {len(o_centers)} centers compared with MILA's {mila_name}")
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


main()
