#!/usr/bin/env python3
"""One-off conversion of the DATC cases (sections 6.A-6.G) to this project's data files.

Input: datc.json and datc-extra.json as shared with the team (from the `diplomacy` crate's
repository, MIT, see LICENSE beside this script). Output: 6a.json ... 6g.json beside this
script, one per section, each order stored both as its original text and as structured
fields (read by order_text.py, shared with convert_phases.py), so the runner does not
depend on the order grammar; and the list of test cases between the GENERATED markers of
tests/it/datc.rs.

Usage: python3 convert.py /path/to/datc.json /path/to/datc-extra.json
"""
import json
import os
import re
import sys

from order_text import parse_order, unit

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "..", "it", "datc.rs")

LICENSE = ("Derived from the DATC test cases of the `diplomacy` crate (https://github.com/"
           "TedDriggs/diplomacy), Copyright (c) 2025 Ted Driggs, MIT License (full text in "
           "LICENSE beside this file). The DATC itself (Diplomacy Adjudicator Test Cases, "
           "Lucas Kruijswijk) may be copied freely.")

# Where the shared data disagrees with the DATC v3.1 text's preferred choice, the DATC
# text wins; each override quotes its reason. Keyed by case name, then order text.
OVERRIDES = {
    "t6a05_move_to_own_sector_with_convoy": {
        "ENG: A lvp supports A yor -> yor": ("Fails", "DATC 6.A.5: 'This makes the support of Liverpool also illegal'; illegal orders fail"),
    },
    "t6b02_moving_with_unspecified_coast_when_coast_is_not_necessary": {
        "FRA: F gas -> spa": ("Succeeds", "DATC 6.B.2 / 4.B.2 preferred: 'an attempt is made to the only possible coast'"),
    },
    "t6b10_unit_ordered_with_wrong_coast": {
        "FRA: F spa(nc) -> lyo": ("Succeeds", "DATC 6.B.10 / 4.B.5 preferred: 'I prefer that a move will be attempted'"),
    },
    "t6b15_supporting_foreign_unit_with_unspecified_coast": {
        "ENG: F mao -> spa(nc)": ("Fails", "DATC 6.B.15 preferred: 'the support succeeds and the Italian fleet in the Western Mediterranean bounces' (two against two: neither enters)"),
    },
    "t6g11_a_convoy_to_an_adjacent_place_with_a_paradox": {
        "ENG: F nth -> ska": ("Succeeds", "DATC 6.G.11 preferred (no fallback): 'the fleet in the North Sea will dislodge the Russian fleet in Skagerrak and the army in Sweden will not advance'"),
        "RUS: A swe -> nwy": ("Fails", "DATC 6.G.11 preferred, as above"),
    },
    "t6b12_army_movement_with_coastal_specification": {
        "FRA: A gas -> spa(nc)": ("Succeeds", "DATC 6.B.12 / 4.B.6 preferred: 'I prefer that a move will be attempted'"),
    },
}

def test_name(case):
    m = re.fullmatch(r"t6([a-z])(\d\d)_(.*)", case["name"])
    section, number, title = m.group(1), int(m.group(2)), m.group(3)
    name = f"datc_6_{section}_{number}_{title}"
    if case.get("edition"):
        name += f"_{case['edition']}"
    return name


def convert(case):
    orders = [parse_order(t) for t in case["orders"]]
    notes = []
    for o in orders:
        o["expect"] = {"Succeeds": "succeeds", "Fails": "fails", None: None}[case["orders"][o["text"]]]
        override = OVERRIDES.get(case["name"], {}).get(o["text"])
        if override:
            o["expect"] = override[0].lower()
            notes.append(f"{o['text']}: the shared data said {case['orders'][o['text']]}; {override[1]}")
    units = []
    seen = set()
    for s in case.get("starting_state", []):
        power, rest = s.split(": ", 1)
        units.append(unit(power, *rest.split()))
        seen.add(units[-1]["place"])
    for o in orders:
        if o["kind"] != "build" and o["place"] not in seen:
            units.append({"power": o["power"], "type": o["unit_type"], "place": o["place"], "coast": o["coast"]})
            seen.add(o["place"])
    out = {
        "case": "6." + case["name"][2].upper() + "." + str(int(case["name"][3:5])),
        "name": case["name"],
        "test": test_name(case),
        "url": case["url"],
        "edition": case.get("edition", "2023"),
        "phase": "build" if case["phase"] == "Build" else "movement",
        "units": units,
        "orders": orders,
    }
    moves = [o for o in orders if o["kind"] == "move"]
    if case["phase"] == "Main" and all(o["expect"] is not None for o in moves):
        arrived = {o["to"] for o in moves if o["expect"] == "succeeds"}
        left = {o["place"] for o in moves if o["expect"] == "succeeds"}
        out["dislodged"] = sorted(p for p in arrived if p in seen and p not in left)
        out["dislodged_note"] = "derived from the expected move results"
    if case.get("ignore"):
        notes.append(f"marked ignore in the shared data ({case['ignore']}); tested here by the DATC preferred choice")
    if case.get("errata"):
        notes.append(f"shared data erratum: {case['errata']}")
    if notes:
        out["notes"] = notes
    return out


def main():
    cases = []
    for path in sys.argv[1:]:
        cases += json.load(open(path))["cases"]
    cases = [c for c in cases if re.match(r"t6[a-g]\d", c["name"])]
    cases.sort(key=lambda c: (c["name"][:5], c["name"], c.get("edition", "")))
    by_section = {}
    for c in cases:
        by_section.setdefault(c["name"][2], []).append(convert(c))
    lines = []
    for section, items in sorted(by_section.items()):
        doc = {"license": LICENSE, "section": f"6.{section.upper()}", "cases": items}
        with open(os.path.join(HERE, f"6{section}.json"), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        for c in items:
            lines.append(f"datc!({c['test']}, \"6{section}\", \"{c['name']}\", \"{c['edition']}\");")
    text = open(RUNNER).read()
    begin, end = "// BEGIN GENERATED by tests/data/datc/convert.py\n", "// END GENERATED\n"
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    open(RUNNER, "w").write(head + begin + "\n".join(lines) + "\n" + end + tail)
    print(f"{len(cases)} cases in {len(by_section)} files")


if __name__ == "__main__":
    main()
