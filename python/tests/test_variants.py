"""Games on every shipped variant's map (`Game(map_name=...)`, as MILA's `diplomacy` names
the maps): random games played through, the names, first phase and victory of each map;
checked against MILA itself when its `diplomacy` 1.1.2 is installed (those checks skip
without it)."""

import logging
import random
import re

import pytest

import shadowjudge
from shadowjudge import Game

# MILA's name of each map: its powers, its first phase, the centers for victory.
MAPS = {
    "standard": (["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"], "S1901M", 18),
    "ancmed": (["CARTHAGE", "EGYPT", "GREECE", "PERSIA", "ROME"], "S0001M", 18),
    "modern": (
        ["BRITAIN", "EGYPT", "FRANCE", "GERMANY", "ITALY", "POLAND", "RUSSIA", "SPAIN", "TURKEY", "UKRAINE"],
        "S1994M",
        33,
    ),
    "pure": (["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"], "S1901M", 4),
    "standard_france_austria": (["AUSTRIA", "FRANCE"], "S1901M", 18),
}

PHASE = re.compile(r"^[SFW]\d{4}[MRA]$")


def mila():
    diplomacy = pytest.importorskip("diplomacy")
    logging.getLogger("diplomacy").setLevel(logging.ERROR)
    return diplomacy


def picks(game, rng, possible=None):
    """A random possible order for each orderable place of each power, as a bot picks them:
    no move by convoy (MILA moves one over land when no fleet convoys it, the judge holds
    it) and in a Winter no more orders than the builds or removals due (which ones MILA
    keeps of too many differs), so that both engines may play the same orders alike."""
    possible = game.get_all_possible_orders() if possible is None else possible
    builds = game.get_state()["builds"]
    out = {}
    for power, locs in game.get_orderable_locations().items():
        orders = []
        for loc in locs:
            offered = [o for o in possible[loc] if not o.endswith(" VIA")] or possible[loc]
            if offered:
                orders.append(rng.choice(offered))
        if game.get_current_phase().endswith("A"):
            orders = orders[: abs(builds[power]["count"])]
        out[power] = orders
    return out


@pytest.mark.parametrize("map_name", sorted(MAPS))
def test_a_new_game_has_the_maps_powers_phase_and_name(map_name):
    powers, first, _ = MAPS[map_name]
    game = Game(map_name=map_name)
    assert sorted(game.powers) == powers == sorted(game.get_state()["units"])
    assert game.get_current_phase() == first == game.phase
    assert game.map_name == map_name
    assert game.variant == "standard"
    possible = game.get_all_possible_orders()
    for power, locs in game.get_orderable_locations().items():
        assert locs and all(possible[loc] for loc in locs), power
        assert sorted(game.get_units(power)) == sorted(f"{u[0]} {u[2:]}" for u in game.get_units(power))


def test_the_judges_names_of_the_maps_are_taken_too():
    assert Game(map_name="france-austria").map_name == "standard_france_austria"
    assert Game("ancmed").map_name == "ancmed"  # a variant's name as the variant: its map
    assert Game("standard", map_name="ANCMED").get_current_phase() == "S0001M"


def test_an_unknown_map_names_the_maps():
    with pytest.raises(ValueError, match=r"unknown map_name `nowhere`: the maps played here are standard, ancmed, "
                       r"modern, pure, standard_france_austria \(france-austria\)"):
        Game(map_name="nowhere")
    with pytest.raises(ValueError, match="unknown variant `nowhere`"):
        Game("nowhere")
    with pytest.raises(TypeError, match="`ancmed` is a map"):
        Game("ancmed", map_name="modern")


@pytest.mark.parametrize("map_name,seed", [(m, s) for m in sorted(MAPS) for s in (1, 2)])
def test_random_games_play_through(map_name, seed):
    rng = random.Random(seed)
    powers, _, victory = MAPS[map_name]
    game = Game(map_name=map_name)
    for _ in range(40 if map_name != "modern" else 24):
        if game.is_game_done:
            break
        possible = game.get_all_possible_orders()
        for power, orders in picks(game, rng, possible).items():
            ack = game.set_orders(power, orders)
            assert ack["problems"] == [], (game.phase, power, ack)
        game.process()
        # Every possible order is one the judge carries out as written.
        assert [o for o in game.outcomes if o["result"] == "illegal"] == [], game.phase
        assert PHASE.match(game.phase) or game.phase == "COMPLETED", game.phase
        state = game.get_state()
        assert sorted(state["units"]) == powers == sorted(state["centers"])
    assert game.phase != MAPS[map_name][1]
    if game.winner:
        assert len(game.get_centers(game.winner)) >= victory
    copy = Game.from_json(game.to_json())
    assert copy.map_name == map_name and copy.get_state() == game.get_state()
    assert shadowjudge._shadowjudge._known_lines_differ(map_name) == (shadowjudge._shadowjudge._known_lines(map_name)[0]
                                                                       + shadowjudge._shadowjudge._known_lines(map_name)[1], [])


def test_pure_is_won_at_four_centers():
    # Seven armies, seven centers, every one next to every other: a random game is won soon.
    rng = random.Random(5)
    game = Game(map_name="pure")
    while not game.is_game_done:
        for power, orders in picks(game, rng).items():
            game.set_orders(power, orders)
        game.process()
    assert game.phase == "COMPLETED" and game.winner
    assert len(game.get_centers(game.winner)) >= 4


@pytest.mark.parametrize("map_name,power,phase", [("ancmed", "ROME", "F0003M"), ("modern", "BRITAIN", "F1996M")])
def test_a_power_wins_at_the_maps_victory_count(cli_json, map_name, power, phase):
    # One center short of victory, with a unit moving into one more in a Fall.
    _, _, victory = MAPS[map_name]
    centers = {p["key"].upper() for p in cli_json("map", "show", map_name, "--json")["provinces"] if p["supply_center"]}
    game = Game(map_name=map_name)
    possible = game.get_all_possible_orders()
    homes = game.get_state()["homes"][power]
    unit, move, to = next(
        (unit, o, o.split(" - ")[1][:3])
        for unit in game.get_units(power)
        for o in possible[unit[2:5]]
        if " - " in o and " S " not in o and " C " not in o and o.split(" - ")[1][:3] in centers - set(homes)
    )
    mine = sorted(homes) + sorted(centers - set(homes) - {to})[: victory - 1 - len(homes)]
    assert len(mine) == victory - 1
    for short, won in ((0, True), (1, False)):
        game = Game(map_name=map_name)
        game._set_position(phase, {power: [unit]}, {power: mine[short:]})
        game.set_orders(power, [move])
        game.process()
        assert (game.winner == power) == won == (game.phase == "COMPLETED")
        assert len(game.get_centers(power)) == victory - short


@pytest.mark.parametrize("map_name", ["ancmed", "modern", "standard_france_austria"])
def test_shadow_worlds_on_a_variants_map(map_name):
    rng = random.Random(4)
    game = Game("shadow-worlds", map_name=map_name)
    assert game.variant == "shadow-worlds" and game.map_name == map_name
    assert sorted(game.get_state()["boards"]) == ["A", "B"]
    for _ in range(8):
        if game.is_game_done:
            break
        possible = game.get_all_possible_orders()
        assert all(loc.endswith((" (A)", " (B)")) for loc in possible)
        for power, locs in game.get_orderable_locations().items():
            ack = game.set_orders(power, [rng.choice(possible[loc]) for loc in locs])
            assert ack["problems"] == [], (game.phase, power, ack)
        game.process()
        assert [o for o in game.outcomes if o["result"] == "illegal"] == [], game.phase
    assert game.phase != MAPS[map_name][1]


def test_a_year_1_game_is_drawn_in_its_100th_year():
    game = Game(map_name="ancmed", draw_in_year=2)
    while not game.is_game_done:
        game.process()
    assert game.phase == "COMPLETED" and game.winner is None
    assert [p.name for p in game.get_phase_history()][-1] in ("W0002A", "S0003M")


# Against MILA itself.


# MILA offers a support of a fleet's move to a coast both as `- STP` and as `- STP/SC`; the
# judge writes it the first way only (the support is to the province).
SUPPORT_TO_A_COAST = re.compile(r" S F \S+ - \S+/\S+$")


def same_possible_orders(ours, theirs, where):
    """Our possible orders are MILA's, place by place, for every place some power may
    order (the others MILA lists, most of them empty, are not ours)."""
    for loc, orders in ours.items():
        extra = set(orders) - set(theirs.get(loc, []))
        assert not extra, f"{where}: {loc}: ours only {sorted(extra)}"
        missing = {o for o in set(theirs.get(loc, [])) - set(orders) if not SUPPORT_TO_A_COAST.search(o)}
        assert not missing, f"{where}: {loc}: MILA's only {sorted(missing)}"
        assert len(orders) == len(set(orders)), f"{where}: {loc}: an order twice"
    ordered = {loc for loc, orders in theirs.items() if orders}
    assert set(ours) <= ordered, where


def same_position(ours, theirs, where):
    assert ours.get_current_phase() == theirs.get_current_phase(), where
    for what in ("get_units", "get_centers"):
        mine = {p: sorted(u) for p, u in getattr(ours, what)().items()}
        recorded = {p: sorted(u) for p, u in getattr(theirs, what)().items()}
        assert mine == recorded, f"{where}: {what}"


@pytest.mark.parametrize("map_name", sorted(MAPS))
def test_a_new_game_is_milas(map_name):
    diplomacy = mila()
    ours, theirs = Game(map_name=map_name), diplomacy.Game(map_name=map_name)
    assert sorted(ours.powers) == sorted(theirs.powers)
    same_position(ours, theirs, "start")
    assert ours.get_orderable_locations() == {p: sorted(v) for p, v in theirs.get_orderable_locations().items()} or {
        p: sorted(v) for p, v in ours.get_orderable_locations().items()
    } == {p: sorted(v) for p, v in theirs.get_orderable_locations().items()}
    ours_state, theirs_state = ours.get_state(), theirs.get_state()
    for key in ("name", "homes"):
        assert {p: sorted(v) for p, v in ours_state[key].items()} == {
            p: sorted(v) for p, v in theirs_state[key].items()
        } if key == "homes" else ours_state[key] == theirs_state[key]
    same_possible_orders(ours.get_all_possible_orders(), theirs.get_all_possible_orders(), "start")


@pytest.mark.parametrize("map_name,seed", [(m, s) for m in sorted(MAPS) for s in (3, 4)])
def test_random_phases_are_adjudicated_as_milas(map_name, seed):
    diplomacy = mila()
    rng = random.Random(seed)
    ours, theirs = Game(map_name=map_name), diplomacy.Game(map_name=map_name)
    for _ in range(12):
        if ours.is_game_done:
            break
        possible = ours.get_all_possible_orders()
        same_possible_orders(possible, theirs.get_all_possible_orders(), ours.phase)
        where = ours.phase
        for power, orders in picks(ours, rng, possible).items():
            ours.set_orders(power, orders)
            theirs.set_orders(power, orders)
        ours.process()
        theirs.process()
        same_position(ours, theirs, f"after {where}")


@pytest.mark.parametrize("map_name", ["ancmed", "standard_france_austria"])
def test_a_variants_saved_game_is_read_and_replayed(map_name):
    from shadowjudge import from_saved_game_format, to_saved_game_format
    from shadowjudge.replay import replay

    rng = random.Random(6)
    game = Game(map_name=map_name)
    for _ in range(10):
        for power, orders in picks(game, rng).items():
            game.set_orders(power, orders)
        game.process()
    saved = to_saved_game_format(game)
    assert saved["map"] == map_name
    again = from_saved_game_format(saved)
    assert again.map_name == map_name and again.get_current_phase() == game.get_current_phase()
    assert again.get_units() == game.get_units()
    assert replay(saved) == []
    assert replay({**saved, "map": "chaos"})[0]["error"].startswith("unknown map_name `chaos`")


def test_a_variants_saved_game_is_read_by_mila():
    diplomacy = mila()
    from diplomacy.utils.export import from_saved_game_format as mila_read

    from shadowjudge import to_saved_game_format

    rng = random.Random(9)
    game = Game(map_name="ancmed")
    for _ in range(8):
        for power, orders in picks(game, rng).items():
            game.set_orders(power, orders)
        game.process()
    theirs = mila_read(to_saved_game_format(game))
    assert isinstance(theirs, diplomacy.Game) and theirs.map_name == "ancmed"
    same_position(game, theirs, "read by MILA")
