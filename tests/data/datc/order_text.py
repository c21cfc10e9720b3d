"""The order-text reader both conversion scripts use: a datc.json order line or unit
(`ENG: F nth convoys lon -> bel`, `FRA: F spa(sc)`) -> the structured fields stored in
6a.json ... 6j.json, so the runners never depend on the order grammar.
"""
import re

POWERS = {"AUS": "austria", "ENG": "england", "FRA": "france", "GER": "germany",
          "ITA": "italy", "RUS": "russia", "TUR": "turkey"}


def split_place(text):
    """`spa(nc)` or `spa/nc` -> (`spa`, `nc`); `bel` -> (`bel`, None)."""
    m = re.fullmatch(r"([a-z]{3})(?:[(/]([a-z]{2})\)?)?", text)
    if not m:
        raise ValueError(f"not a place: {text}")
    return m.group(1), m.group(2)


def unit(power, unit_type, place):
    """`("ENG", "F", "spa(nc)")` -> a stored unit."""
    prov, coast = split_place(place)
    return {"power": POWERS[power], "type": unit_type, "place": prov, "coast": coast}


ORDER = re.compile(
    r"(?P<power>[A-Z]{3}): (?P<type>[AF]) (?P<place>[a-z()/]+) (?:"
    r"(?P<hold>holds?)"
    r"|(?P<build>build)"
    r"|supports (?P<stype>[AF]) (?P<splace>[a-z()/]+)(?: -> (?P<sto>[a-z()/]+))?"
    r"|convoys? (?P<cfrom>[a-z]+) -> (?P<cto>[a-z]+)"
    r"|-> (?P<to>[a-z()/]+)(?P<via> via convoy)?"
    r")$",
    re.IGNORECASE,
)


def parse_order(text):
    """A datc.json order line -> structured fields (`kind` is hold, build, support_hold,
    support_move, convoy or move; a convoy's army is always an army)."""
    m = ORDER.fullmatch(text)
    if not m:
        raise ValueError(f"cannot read {text!r}")
    place, coast = split_place(m["place"])
    if m["build"]:
        return {"text": text, "power": POWERS[m["power"]], "kind": "build", "unit_type": m["type"],
                "place": place, "coast": coast}
    o = {"text": text, "power": POWERS[m["power"]], "unit_type": m["type"], "place": place, "coast": coast}
    if m["hold"]:
        o["kind"] = "hold"
    elif m["stype"]:
        tp, tc = split_place(m["splace"])
        o.update(target_type=m["stype"], target_place=tp, target_coast=tc)
        if m["sto"]:
            to, to_coast = split_place(m["sto"])
            o.update(kind="support_move", to=to, to_coast=to_coast)
        else:
            o["kind"] = "support_hold"
    elif m["cfrom"]:
        o.update(kind="convoy", target_type="A", target_place=m["cfrom"], to=m["cto"])
    else:
        to, to_coast = split_place(m["to"])
        o.update(kind="move", to=to, to_coast=to_coast, via_convoy=bool(m["via"]))
    return o
