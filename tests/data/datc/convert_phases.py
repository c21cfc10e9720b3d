#!/usr/bin/env python3
"""One-off conversion of the DATC retreat, build and civil-disorder cases (sections 6.H,
6.I, 6.J) to this project's data files 6h.json, 6i.json and 6j.json beside this script.

6.H starts from datc.json as shared with the team (from the `diplomacy` crate's repository,
MIT, see LICENSE beside this script): the preceding movement phase and the retreat orders
with their expected success. Where that file leaves something out (the support and convoy
orders of 6.H.1-6.H.3, which its parser could not read, and the movement phase of 6.H.2 and
6.H.3) the DATC v3.1 text is followed and the AMENDMENTS say so. The position after the
moves (units, dislodgements with the attacker's origin, standoffs) is derived here from the
expected move results, so the retreat runner can work without the movement engine, and
checks the movement engine when it is there.

6.I and 6.J are written here from the DATC v3.1 text (Lucas Kruijswijk; the test cases of
chapter 6 may be copied freely), because datc.json predates the v3.1 corrections of 6.J.3,
6.J.5, 6.J.9 and 6.J.10, leaves out ownerships the text states (6.I.1, 6.J.2, 6.J.11) and
changes some orders (6.I.1, 6.I.4, 6.I.7). Each case says what it adds to the text.

Every order is stored as its text and as structured fields (read by order_text.py, shared
with convert.py), so the runner does not depend on the order grammar.

Usage: python3 convert_phases.py /path/to/datc.json
"""
import json
import os
import re
import sys
import tomllib

from order_text import POWERS, parse_order, split_place, unit

HERE = os.path.dirname(os.path.abspath(__file__))
MAP = os.path.join(HERE, "..", "..", "..", "maps", "standard.toml")

LICENSE = ("6.H derived from the DATC test cases of the `diplomacy` crate (https://github.com/"
           "TedDriggs/diplomacy), Copyright (c) 2025 Ted Driggs, MIT License (full text in "
           "LICENSE beside this file). The DATC itself (Diplomacy Adjudicator Test Cases v3.1, "
           "Lucas B. Kruijswijk) may be copied freely; 6.I and 6.J are written from its text.")

URL = "https://webdiplomacy.net/doc/DATC_v3_0.html#"

with open(MAP, "rb") as f:
    STANDARD = tomllib.load(f)


def full_name(place):
    """`spa/nc` -> `Spain(nc)`, in the DATC's own spelling."""
    prov, _, coast = place.partition("/")
    name = STANDARD["provinces"][prov]["name"]
    return f"{name}({coast})" if coast else name


# --- 6.H --------------------------------------------------------------------------------

def retreat_order(text):
    """A retreat-phase line: a move means a retreat; supports and convoys stay as they are."""
    o = parse_order(text)
    if o["kind"] == "move":
        o["kind"] = "retreat"
        o.pop("via_convoy")
    return o


# The movement phases of 6.H.2 and 6.H.3 are missing or cut short in datc.json: the DATC
# text gives the same positions as 6.H.8 and 6.H.4.
MOVEMENT_FROM = {"6.H.2": "6.H.8", "6.H.3": "6.H.4"}

# Orders datc.json could not express (its parser reads no support or convoy in a retreat
# phase), from the DATC text.
EXTRA_RETREAT_ORDERS = {
    "6.H.1": ["AUS: A ser supports F tri -> alb"],
    "6.H.2": ["RUS: F edi -> nth", "RUS: F hol supports F edi -> nth"],
    "6.H.3": ["ENG: F nth convoys hol -> yor"],
}

# datc.json names Norway `nor` in 6.H.2 (the retreat orders of the DATC text are those of
# 6.H.8 with a support in place of the third retreat).
REPLACE_RETREAT_ORDERS = {"6.H.2": ["ENG: F nwy -> nth"]}

# Moves datc.json leaves without an expected result. 6.H.12: 'the convoy from Liverpool to
# Edinburgh is disrupted' - the French fleet dislodges the English fleet in the Channel.
MOVE_RESULTS = {("6.H.12", "FRA: F bre -> eng"): "Succeeds"}

# What becomes of each dislodged unit, from the DATC text: 'retreated', 'bounced',
# 'illegal order', 'no order'. The reason for an illegal order is checked by kind.
FATES = {
    "6.H.1": {"tri": ("bounced",), "gre": ("bounced",)},
    "6.H.2": {"nwy": ("bounced",), "edi": ("bounced",), "hol": ("illegal order", "not a retreat order")},
    "6.H.3": {"hol": ("illegal order", "cannot reach")},
    "6.H.4": {"hol": ("retreated", "bel")},
    "6.H.5": {"ank": ("illegal order", "attacker origin")},
    "6.H.6": {"vie": ("illegal order", "standoff")},
    "6.H.7": {"vie": ("bounced",), "boh": ("bounced",)},
    "6.H.8": {"nwy": ("bounced",), "edi": ("bounced",), "hol": ("bounced",)},
    "6.H.9": {"kie": ("retreated", "ber"), "pru": ("no order",)},
    "6.H.10": {"kie": ("illegal order", "attacker origin"), "pru": ("retreated", "ber")},
    "6.H.11": {"mar": ("retreated", "gas")},
    "6.H.12": {"lvp": ("retreated", "edi"), "eng": ("no order",)},
    "6.H.13": {"pic": ("illegal order", "cannot reach")},
    "6.H.14": {"pic": ("bounced",), "bur": ("bounced",)},
    "6.H.15": {"por": ("illegal order", "attacker origin")},
    "6.H.16": {"wes": ("illegal order", "standoff")},
}

# 6.H.11 and 6.H.12 depend on DATC issue 4.A.5; the case runs under the 2023 rule (b,
# preferred) and again under choice a, where the retreat to the attacker's origin fails.
CHOICE_A = {
    "6.H.11": {"mar": ("illegal order", "attacker origin")},
    "6.H.12": {"lvp": ("illegal order", "attacker origin"), "eng": ("no order",)},
}


def case_id(name):
    m = re.match(r"t6([a-z])(\d+)_(.*)", name)
    return f"6.{m.group(1).upper()}.{int(m.group(2))}", m.group(3)


def after_movement(orders):
    """Units after the moves, dislodgements and standoffs, from the expected move results."""
    moved = {}  # origin province -> destination place
    for o in orders:
        if o["kind"] == "move" and o["expect"] == "succeeds":
            moved[o["place"]] = o
    entered = {m["to"]: m for m in moved.values()}
    units, dislodged = [], []
    for o in orders:
        u = {"power": o["power"], "type": o["unit_type"], "place": o["place"], "coast": o["coast"]}
        if o["place"] in moved:
            u["place"], u["coast"] = o["to"], o["to_coast"]
            units.append(u)
        elif o["place"] in entered:
            attacker = entered[o["place"]]
            convoyed = attacker.get("via_convoy", False)
            dislodged.append({"unit": u, "attacker_from": attacker["place"], "via_convoy": convoyed})
        else:
            units.append(u)
    occupied = {u["place"] for u in units}
    failed = {}
    for o in orders:
        if o["kind"] == "move" and o["expect"] != "succeeds":
            failed[o["to"]] = failed.get(o["to"], 0) + 1
    standoffs = sorted(p for p, n in failed.items() if n >= 2 and p not in occupied)
    return units, dislodged, standoffs


def convert_6h(datc):
    by_id = {}
    for c in datc["cases"]:
        if c["name"].startswith("t6h"):
            by_id[case_id(c["name"])[0]] = c
    cases = []
    for cid, c in by_id.items():
        title = case_id(c["name"])[1]
        source = by_id[MOVEMENT_FROM.get(cid, cid)]
        movement = []
        for text, result in source["preceding_main_phase"]["orders"].items():
            o = parse_order(text)
            result = MOVE_RESULTS.get((cid, text), result)
            if o["kind"] == "move" and result is None:
                raise ValueError(f"{cid}: no result for {text}")
            o["expect"] = result.lower() if result else None
            movement.append(o)
        units, dislodged, standoffs = after_movement(movement)
        retreat_lines = [(t, None) for t in REPLACE_RETREAT_ORDERS.get(cid, [])] or list(c["orders"].items())
        for extra in EXTRA_RETREAT_ORDERS.get(cid, []):
            if extra not in dict(retreat_lines):
                retreat_lines.append((extra, None))
        def orders_for(table):
            orders = []
            for text, _ in retreat_lines:
                o = retreat_order(text)
                dislodged_here = any(d["unit"]["place"] == o["place"] for d in dislodged)
                ok = o["kind"] == "retreat" and dislodged_here
                fate = table.get(o["place"], ("",))[0]
                o["expect"] = "accepted" if ok and fate != "illegal order" else "illegal"
                orders.append(o)
            return orders

        def fates(table):
            out = []
            for d in dislodged:
                f = table[d["unit"]["place"]]
                entry = {"place": d["unit"]["place"], "fate": f[0]}
                if f[0] == "retreated":
                    entry["to"] = f[1]
                if f[0] == "illegal order":
                    entry["reason"] = f[1]
                out.append(entry)
            return out

        edition = "2023" if cid in CHOICE_A else "any"
        for variant, table, opens in [("", FATES[cid], True), ("_choice_a", CHOICE_A.get(cid), False)]:
            if table is None:
                continue
            if variant:
                edition_note = "DATC 4.A.5 choice a: no retreat to the attacker's origin even after a convoy"
            else:
                edition_note = None
            case = {
                "case": cid,
                "name": c["name"],
                "test": f"datc_{cid.lower().replace('.', '_')}_{title}{variant}",
                "url": c["url"],
                "edition": edition,
                "phase": "retreat",
                "convoyed_attack_opens_origin": opens,
                "movement": movement,
                "after_movement": {"units": units, "dislodged": dislodged, "standoffs": standoffs},
                "orders": orders_for(table),
                "fates": fates(table),
            }
            if edition_note:
                case["note"] = edition_note
            if cid in MOVEMENT_FROM:
                case["amended"] = f"movement phase as in {MOVEMENT_FROM[cid]}, which the DATC text repeats"
            if cid in REPLACE_RETREAT_ORDERS:
                case["amended"] += "; retreat orders from the DATC text (datc.json spells Norway `nor`)"
            if cid in EXTRA_RETREAT_ORDERS:
                case.setdefault("amended", "")
                case["amended"] = (case["amended"] + "; " if case["amended"] else "") + \
                    "retreat-phase support/convoy orders added from the DATC text"
            cases.append(case)
    for case in cases:
        for o in case["orders"]:
            if o["expect"] == "accepted":
                assert o["kind"] == "retreat"
    return cases


# --- 6.I and 6.J ------------------------------------------------------------------------

def build(power, unit_type, place, expect):
    prov, coast = split_place(place)
    ut = f"{unit_type} " if unit_type else ""
    return {"text": f"{STANDARD['powers'][POWERS[power]]['name']}: Build {ut}{full_name(place.replace('(', '/').rstrip(')'))}",
            "power": POWERS[power], "kind": "build", "unit_type": unit_type, "place": prov, "coast": coast,
            "expect": expect}


def remove(power, unit_type, place, expect):
    prov, coast = split_place(place)
    return {"text": f"{STANDARD['powers'][POWERS[power]]['name']}: Remove {unit_type} {full_name(prov)}",
            "power": POWERS[power], "kind": "remove", "unit_type": unit_type, "place": prov, "coast": coast,
            "expect": expect}


def adjustment_case(cid, title, units, owners, orders, removed=(), waived=None, edition="any", added="",
                    suffix=""):
    """`owners`: changes to the starting ownership (province -> power abbreviation)."""
    slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")
    case = {
        "case": cid,
        "test": f"datc_{cid.lower().replace('.', '_')}_{slug}{suffix}",
        "url": URL + cid,
        "edition": edition,
        "phase": "adjustment",
        "ownership": {p: POWERS[w] for p, w in owners.items()},
        "units": [unit(*u.replace(":", "").split(" ")) for u in units],
        "orders": orders,
        "civil_disorder": [unit(*u.replace(":", "").split(" ")) for u in removed],
    }
    if waived is not None:
        case["builds_waived"] = {POWERS[p]: n for p, n in waived.items()}
    if added:
        case["added"] = added
    return case


def convert_6i():
    return [
        adjustment_case(
            "6.I.1", "too many build orders",
            ["GER: F den", "GER: A ruh", "GER: A pru"], {"den": "GER"},
            [build("GER", "A", "war", "illegal"), build("GER", "A", "kie", "built"),
             build("GER", "A", "mun", "too many")],
            waived={"GER": 0},
            added="Germany owns Denmark, so that it may build one"),
        adjustment_case(
            "6.I.2", "fleets can not be build in land areas",
            ["RUS: A war", "RUS: F sev", "RUS: F stp/sc"], {},
            [build("RUS", "F", "mos", "illegal")], waived={"RUS": 1},
            added="Russian units in Warsaw, Sevastopol and St Petersburg, so that it has one build"),
        adjustment_case(
            "6.I.3", "supply center must be empty for building",
            ["GER: A ber"], {}, [build("GER", "A", "ber", "illegal")], waived={"GER": 2}),
        adjustment_case(
            "6.I.4", "both coasts must be empty for building",
            ["RUS: F stp/sc", "RUS: A mos", "RUS: A war"], {},
            [build("RUS", "A", "stp(nc)", "illegal")], waived={"RUS": 1},
            added="Russian armies in Moscow and Warsaw, so that it has one build"),
        adjustment_case(
            "6.I.5", "building in home supply center that is not owned",
            ["GER: A ruh", "GER: F nth"], {"ber": "RUS", "den": "GER", "hol": "GER"},
            [build("GER", "A", "ber", "illegal")], waived={"GER": 2},
            added="Germany owns Denmark and Holland and has two units elsewhere"),
        adjustment_case(
            "6.I.6", "building in owned supply center that is not a home supply center",
            ["GER: F kie", "GER: A ber", "GER: A mun"], {"war": "GER"},
            [build("GER", "A", "war", "illegal")], waived={"GER": 1},
            added="Germany's three home units stay in place"),
        adjustment_case(
            "6.I.7", "only one build in a home supply center",
            ["RUS: F sev", "RUS: F stp/nc"], {},
            [build("RUS", "A", "mos", "built"), build("RUS", "A", "mos", "illegal")], waived={"RUS": 1}),
    ]


def convert_6j():
    def disorder(cid, title, units, owners, removed, edition="2023"):
        """No orders: the removal is made by the civil-disorder rule."""
        suffix = f"_{edition}" if cid == "6.J.11" else ""
        return adjustment_case(cid, title, units, owners, [], removed, edition=edition, suffix=suffix)

    return [
        adjustment_case(
            "6.J.1", "too many remove orders",
            ["FRA: A pic", "FRA: A par"], {"bre": "ENG", "mar": "ITA"},
            [remove("FRA", "F", "lyo", "illegal"), remove("FRA", "A", "pic", "removed"),
             remove("FRA", "A", "par", "too many")],
            added="England owns Brest and Italy Marseilles, so that France removes one"),
        adjustment_case(
            "6.J.2", "removing the same unit twice",
            ["FRA: A par", "FRA: A pic", "FRA: F lyo"], {"bre": "ENG", "mar": "ITA"},
            [remove("FRA", "A", "par", "removed"), remove("FRA", "A", "par", "illegal")],
            removed=["FRA: F lyo"],
            added=("France owns Paris only and has a fleet in the Gulf of Lyon and an army in "
                   "Picardy too; by every rulebook the fleet is farther and goes")),
        disorder("6.J.3", "civil disorder two armies with different distance",
               ["RUS: A lvn", "RUS: A pru"], {"war": "GER", "mos": "GER", "sev": "TUR"}, ["RUS: A pru"]),
        disorder("6.J.4", "civil disorder two armies with equal distance",
               ["RUS: A lvn", "RUS: A ukr"], {"stp": "ENG", "war": "GER", "sev": "TUR"}, ["RUS: A lvn"]),
        disorder("6.J.5", "civil disorder two fleets with different distance",
               ["RUS: F ska", "RUS: F nao"], {"mos": "ENG", "war": "GER", "sev": "TUR"}, ["RUS: F nao"]),
        disorder("6.J.6", "civil disorder two fleets with equal distance",
               ["RUS: F bot", "RUS: F nth"],
               {"stp": "ENG", "mos": "ENG", "war": "GER", "sev": "TUR", "mun": "RUS"}, ["RUS: F bot"]),
        disorder("6.J.7", "civil disorder two fleets and army with equal distance",
               ["RUS: A boh", "RUS: F ska", "RUS: F nth"], {"mos": "ENG", "sev": "TUR"}, ["RUS: F nth"]),
        disorder("6.J.8", "civil disorder a fleet with shorter distance then the army",
               ["RUS: A tyr", "RUS: F bal"], {"stp": "ENG", "mos": "ENG", "sev": "TUR"}, ["RUS: A tyr"]),
        disorder("6.J.9", "civil disorder must be counted from both coasts",
               ["RUS: A alb", "RUS: A sev", "RUS: F bal"], {"war": "GER", "mos": "ENG"}, ["RUS: A alb"]),
        disorder("6.J.9", "civil disorder must be counted from both coasts second scenario",
               ["RUS: A alb", "RUS: A sev", "RUS: F ska"], {"war": "GER", "mos": "ENG"}, ["RUS: A alb"]),
        disorder("6.J.10", "civil disorder counting convoying distance",
               ["ITA: A pie", "ITA: A alb"], {"ven": "AUS", "rom": "FRA"}, ["ITA: A pie"]),
        disorder("6.J.11", "distance to owned supply center",
               ["ITA: A war", "ITA: A tus"], {"ven": "AUS", "rom": "FRA", "nap": "AUS", "war": "ITA"},
               ["ITA: A war"], edition="1971"),
        disorder("6.J.11", "distance to owned supply center",
               ["ITA: A war", "ITA: A tus"], {"ven": "AUS", "rom": "FRA", "nap": "AUS", "war": "ITA"},
               ["ITA: A tus"], edition="2023"),
    ]


def write(name, section, cases):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump({"license": LICENSE, "section": section, "cases": cases}, f, indent=1)
        f.write("\n")


def main():
    with open(sys.argv[1]) as f:
        datc = json.load(f)
    write("6h.json", "6.H", convert_6h(datc))
    write("6i.json", "6.I", convert_6i())
    write("6j.json", "6.J", convert_6j())


if __name__ == "__main__":
    main()
