import copy
import json
import random
import subprocess
import sys

import pytest

import shadowjudge

PLAYERS = "".join(
    f"{p.lower()}, {p.title()} Player, {p.lower()}@example.org\n"
    for p in ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
)


def random_orders(game, rng):
    """One random possible order for each orderable place of each power."""
    possible = game.get_all_possible_orders()
    return {
        power: [rng.choice(possible[loc]) for loc in locs]
        for power, locs in game.get_orderable_locations().items()
    }


def same_json(ours, theirs):
    """The same values with the same keys in the same order, as the command line's JSON
    (an answer is a read-only mapping: `dict` of it for JSON)."""
    assert ours == theirs
    assert json.dumps(dict(ours)) == json.dumps(theirs)


def same_report(ours, theirs):
    ours, theirs = dict(ours), dict(theirs)
    ours.pop("game"), theirs.pop("game")
    same_json(ours, theirs)


@pytest.mark.parametrize("variant,seed,phases", [("standard", 1, 14), ("standard", 3, 20), ("shadow-worlds", 2, 8)])
def test_random_games_match_the_command_line(cli, tmp_path, variant, seed, phases):
    rng = random.Random(seed)
    (tmp_path / "players.txt").write_text(PLAYERS)
    gdir = str(tmp_path / "g")
    cli("new", gdir, "--variant", variant, "--players", str(tmp_path / "players.txt"))
    game = shadowjudge.Game(variant)
    for _ in range(phases):
        if game.is_game_done:
            break
        for power, orders in random_orders(game, rng).items():
            ack = game.set_orders(power, orders)
            assert ack["problems"] == [], (game.phase, power, ack)
            if orders:
                out = cli("submit", gdir, "-", "--power", power, "--json", input="\n".join(orders) + "\n")
                same_json(ack, json.loads(out))
        before = game.phase
        report = game.process()
        cli("adjudicate", gdir, "--force")
        same_report(report, json.loads(cli("results", gdir, before, "--json")))
        # Every possible order is one the judge carries out as written.
        assert [o for o in game.outcomes if o["result"] == "illegal"] == []
        status = json.loads(cli("status", gdir, "--json"))
        assert status["phase_code"] == game.phase
        units = game.get_units()
        for row in status["powers"]:
            board_units = [u for board in row["units"] for u in board]
            ours = [u for u in units[row["power"].upper()] if not u.startswith("*")]
            assert len(ours) == len(board_units), (game.phase, row["power"])
    assert game.phase != "S1901M"


def test_names_are_milas():
    g = shadowjudge.Game()
    assert g.phase == "S1901M" == g.get_current_phase()
    assert g.get_units("FRANCE") == ["F BRE", "A PAR", "A MAR"]
    assert sorted(g.get_centers()["RUSSIA"]) == ["MOS", "SEV", "STP", "WAR"]
    assert g.get_units()["RUSSIA"].count("F STP/SC") == 1
    assert sorted(g.get_orderable_locations("england")) == ["EDI", "LON", "LVP"]
    possible = g.get_all_possible_orders()
    assert {"A PAR - BUR", "A PAR H", "A MAR S A PAR - BUR"} <= set(possible["PAR"]) | set(possible["MAR"])
    assert "F STP/SC - BOT" in possible["STP"]
    assert not g.is_game_done and g.winner is None


def test_orders_replace_unit_by_unit_and_clear():
    g = shadowjudge.Game()
    g.set_orders("FRANCE", ["A PAR - BUR", "A MAR - SPA"])
    g.set_orders("FRANCE", "A PAR - PIC", replace=False)
    assert g.get_orders("FRANCE") == ["A MAR - SPA", "A PAR - PIC"]
    g.set_orders("FRANCE", "A PAR - BUR")  # MILA's default, replace=True: the others go
    assert g.get_orders("FRANCE") == ["A PAR - BUR"]
    g.clear_orders("FRANCE")
    assert g.get_orders("FRANCE") == []


def test_outcomes_say_what_happened_and_why():
    g = shadowjudge.Game()
    g.set_orders("FRANCE", ["A PAR - BUR"])
    g.set_orders("GERMANY", ["A MUN - BUR"])
    g.process()
    by_order = {o["order"]: o for o in g.outcomes}
    assert by_order["A par - bur"]["result"] == "fails"
    assert "mun" in by_order["A par - bur"]["reason"].lower()
    assert by_order["F bre H"]["result"] == "default"
    assert g.phase == "F1901M"


def test_retreats_and_winter_are_offered_and_played():
    g = shadowjudge.Game()
    g.set_orders("GERMANY", ["A MUN - BUR"])
    g.set_orders("FRANCE", ["A PAR - PIC"])
    g.process()
    g.set_orders("GERMANY", ["A BUR - PAR"])
    g.set_orders("FRANCE", ["A PIC - BRE", "F BRE - MAO", "A MAR - SPA"])
    g.process()
    assert g.phase == "W1901A"
    # Germany took Paris: one build, at its one vacant home center.
    assert g.get_orderable_locations("GERMANY") == ["MUN"]
    assert g.get_orderable_locations("FRANCE") == []
    assert g.get_all_possible_orders()["MUN"] == ["A MUN B", "WAIVE"]
    g.set_orders("GERMANY", ["A MUN B"])
    g.process()
    assert g.phase == "S1902M" and "A MUN" in g.get_units("GERMANY")


def test_clone_is_independent_and_hash_follows_the_position():
    g = shadowjudge.Game()
    c = g.clone()
    assert c.hash() == g.hash() and copy.deepcopy(g).hash() == g.hash()
    g.set_orders("FRANCE", ["A PAR - BUR"])
    assert c.hash() == g.hash(), "orders given are not the position"
    g.process()
    assert c.phase == "S1901M" and g.phase == "F1901M" and c.hash() != g.hash()
    c.process()
    assert c.hash() != g.hash(), "A PAR stayed in c, went to BUR in g"


def test_hash_is_the_same_in_another_process():
    g = shadowjudge.Game("shadow-worlds")
    code = "import shadowjudge; print(shadowjudge.Game('shadow-worlds').hash())"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(other.stdout) == g.hash()


def test_to_json_round_trip_keeps_everything():
    g = shadowjudge.Game("shadow-worlds", rules="2000", short_game=True)
    g.set_orders("ITALY", ["A VEN - TYR (A)", "A ROM - APU (B)"])
    text = g.to_json()
    back = shadowjudge.Game.from_json(text)
    assert back.to_json() == text and back.hash() == g.hash()
    assert back.get_orders("ITALY") == g.get_orders("ITALY")
    assert json.loads(text)["settings"]["rules"]["edition"] == "2000"


def test_from_json_says_what_is_wrong():
    with pytest.raises(ValueError, match="not a saved game"):
        shadowjudge.Game.from_json("{}")
    saved = json.loads(shadowjudge.Game().to_json())
    saved["state"]["boards"][0]["units"][0]["region"] = 9999
    with pytest.raises(ValueError, match=r"state: .*boards\[0\]\.units\[0\]"):
        shadowjudge.Game.from_json(json.dumps(saved))


def test_shadow_worlds_has_both_boards_and_the_ledger():
    g = shadowjudge.Game("shadow-worlds")
    assert "A PAR (A)" in g.get_units("FRANCE") and "A PAR (B)" in g.get_units("FRANCE")
    assert g.get_units("FRANCE", board="B") == ["F BRE", "A PAR", "A MAR"]
    state = g.get_state()
    assert set(state["boards"]) == {"A", "B"}
    assert [line["power"] for line in state["ledger"]][:1] == ["Austria"]
    with pytest.raises(ValueError, match="there is no board `C`"):
        g.get_units(board="C")


def test_bad_arguments_say_what_is_wrong():
    with pytest.raises(ValueError, match="unknown variant `chess`"):
        shadowjudge.Game("chess")
    with pytest.raises(ValueError, match="unknown rulebook `1999`"):
        shadowjudge.Game(rules="1999")
    with pytest.raises(KeyError, match="no power called `GONDOR`"):
        shadowjudge.Game().set_orders("GONDOR", [])


def test_acknowledgements_and_ledger_are_the_command_lines(cli, tmp_path):
    (tmp_path / "players.txt").write_text(PLAYERS)
    gdir = str(tmp_path / "g")
    cli("new", gdir, "--variant", "shadow-worlds", "--players", str(tmp_path / "players.txt"))
    game = shadowjudge.Game("shadow-worlds")
    # Understood, illegal (kept with a note), not understood (with a hint), another power's.
    text = "A PAR - BUR (A)\nA MAR - MUN (B)\nF BRE - Pics (A)\nA VIE - TYR (A)\n"
    ack = game.set_orders("FRANCE", text)
    assert ack["problems"] and any("note" in line for line in ack["accepted"])
    same_json(ack, json.loads(cli("submit", gdir, "-", "--power", "FRANCE", "--json", input=text, fails=True)))
    # The status gives its keys sorted: the same values.
    assert game.ledger() == json.loads(cli("status", gdir, "--json"))["ledger"]


def test_possible_orders_are_kept_per_position_but_never_shared():
    g = shadowjudge.Game()
    first = g.get_all_possible_orders()
    first["PAR"].clear()
    del first["MAR"]
    again = g.get_all_possible_orders()
    assert again == shadowjudge.Game().get_all_possible_orders()
    assert again["PAR"] and "MAR" in again
    assert sorted(g.get_orderable_locations("FRANCE")) == ["BRE", "MAR", "PAR"]
    g.set_orders("FRANCE", ["A PAR - BUR"])
    g.process()
    moved = g.get_all_possible_orders()
    assert "BUR" in moved and "PAR" not in moved
    assert "A BUR - PAR" in moved["BUR"]


@pytest.mark.parametrize("variant", ["standard", "shadow-worlds"])
def test_possible_orders_given_back_are_read_as_the_grammar_reads_them(variant):
    # set_orders knows the strings get_all_possible_orders made without reading them again:
    # each must mean what the grammar makes of its text.
    rng = random.Random(7)
    for _ in range(4):
        game = shadowjudge.Game(variant)
        for _ in range(24):
            if game.is_game_done:
                break
            for power, orders in random_orders(game, rng).items():
                game.set_orders(power, orders)
            game.process()
    known, differ = shadowjudge._shadowjudge._known_lines_differ()
    assert known > 1000
    assert differ == []


def test_past_100000_lines_the_callers_are_let_go_of_and_the_judges_own_kept():
    counts = shadowjudge._shadowjudge._known_lines
    game = shadowjudge.Game()
    game.get_all_possible_orders()
    ours, theirs = counts()
    assert ours > 0
    held = ["".join(["A PAR", " H"]) for _ in range(100_001 - theirs)]
    for start in range(0, len(held) - 1, 1000):
        game.set_orders("FRANCE", held[start:min(start + 1000, len(held) - 1)])
    assert counts() == (ours, 100_000)
    game.set_orders("FRANCE", held[-1:])
    assert counts() == (ours, 1)


SHORT_ENOUGH = """
import random, shadowjudge
rng, seen = random.Random(3), set()
for variant in ["standard", "shadow-worlds"]:
    game = shadowjudge.Game(variant)
    for _ in range(12):
        possible = game.get_all_possible_orders()
        for orders in possible.values():
            seen.update(orders)
        for power, locs in game.get_orderable_locations().items():
            game.set_orders(power, [rng.choice(possible[loc]) for loc in locs])
        game.process()
ours, theirs = shadowjudge._shadowjudge._known_lines()
print(ours, sum(len(s) <= 23 for s in seen), sum(len(s) == 23 for s in seen))
"""


def test_every_possible_order_of_23_characters_or_fewer_is_known_by_address(tmp_path):
    # In a fresh interpreter, whose table of strings known by address holds only these
    # games': a Shadow Worlds support of an army (`F MAO S A PAR - BUR (A)`) is 23.
    done = subprocess.run([sys.executable, "-c", SHORT_ENOUGH], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ours, short, longest_kept = map(int, done.stdout.split())
    assert longest_kept > 0
    assert ours == short


def test_a_possible_order_given_back_is_the_same_as_its_text_typed():
    typed, given = shadowjudge.Game(), shadowjudge.Game()
    possible = given.get_all_possible_orders()
    line = next(o for o in possible["MAR"] if " S " in o)
    again = line.encode().decode()
    assert again is not line
    assert given.set_orders("FRANCE", [line]) == typed.set_orders("FRANCE", [again])
    assert given.get_orders() == typed.get_orders()


def test_an_answer_read_late_says_what_it_said_when_the_orders_were_given():
    # set_orders leaves the deciding until something asks: the answer must not change.
    sends = [("FRANCE", ["A PAR - BUR"]), ("GERMANY", ["A MUN - BUR", "F KIE - HOL"]), ("FRANCE", ["F BRE - MAO"])]
    now, late = shadowjudge.Game(), shadowjudge.Game()
    read_now = [dict(now.set_orders(power, lines)) for power, lines in sends]
    answers = [late.set_orders(power, lines) for power, lines in sends]
    copy_ = late.clone()
    assert copy_.get_orders() == now.get_orders() == late.get_orders()
    late.process()
    assert [dict(a) for a in answers] == read_now
    # The first answer still misses the fleet the third one ordered.
    assert "F bre" in read_now[0]["missing"] and "F bre" not in read_now[2]["missing"]
    assert copy_.process() == now.process()
