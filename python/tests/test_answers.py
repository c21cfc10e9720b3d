"""What `set_orders` and `process` return: read-only mappings made on first read, equal
to the dicts earlier versions returned (recorded in data/, see data/record_games.py)."""

import collections.abc
import copy
import gzip
import json
import pathlib
import pickle
import random

import pytest

import shadowjudge

RECORDED = pathlib.Path(__file__).parent / "data" / "recorded_games.json.gz"


def recorded_games():
    with gzip.open(RECORDED, "rt") as f:
        return json.load(f)


@pytest.mark.parametrize("index", [0, 1], ids=["standard", "shadow-worlds"])
def test_replayed_games_answer_as_recorded(index):
    """The same orders give the same acknowledgements, reports, outcomes and text, key
    order included, as the dicts recorded before the answers became lazy."""
    recorded = recorded_games()[index]
    game = shadowjudge.Game(recorded["variant"])
    for phase in recorded["phases"]:
        assert game.phase == phase["phase"]
        for power, orders in phase["orders"].items():
            ack = game.set_orders(power, orders)
            assert json.dumps(dict(ack)) == json.dumps(phase["acks"][power]), (phase["phase"], power)
        report = game.process()
        assert json.dumps(dict(report)) == json.dumps(phase["report"]), phase["phase"]
        assert game.outcomes == phase["outcomes"], phase["phase"]
        assert game.report_text() == phase["text"], phase["phase"]
    assert any(a["problems"] for p in recorded["phases"] for a in p["acks"].values())
    assert any(line.get("note") for p in recorded["phases"] for a in p["acks"].values() for line in a["accepted"])


@pytest.mark.parametrize("index", [0, 1], ids=["standard", "shadow-worlds"])
def test_a_report_read_phases_later_is_the_one_recorded(index):
    """`process()` keeps what the phase decided and words it when first read: read only
    after the game has moved on, each report is still its own phase's."""
    recorded = recorded_games()[index]
    game = shadowjudge.Game(recorded["variant"])
    unread = []
    for phase in recorded["phases"]:
        for power, orders in phase["orders"].items():
            game.set_orders(power, orders)
        unread.append(game.process())
    assert len(unread) > 10
    for report, phase in zip(unread, recorded["phases"]):
        assert json.dumps(dict(report)) == json.dumps(phase["report"]), phase["phase"]


@pytest.mark.parametrize("index", [0, 1], ids=["standard", "shadow-worlds"])
def test_answers_let_go_unread_change_nothing(index):
    """An answer nobody holds any more is never worked out (its orders are only kept):
    the orders, the reports, and the answers held beside it and read late are still the
    recorded ones."""
    recorded = recorded_games()[index]
    game, held = shadowjudge.Game(recorded["variant"]), []
    answered, answers = shadowjudge.Game(recorded["variant"]), []
    for n, phase in enumerate(recorded["phases"]):
        for i, (power, orders) in enumerate(phase["orders"].items()):
            answer = game.set_orders(power, orders)
            answers.append(answered.set_orders(power, orders))
            if (n + i) % 2:
                held.append((answer, phase["acks"][power]))
            del answer  # the others are let go unread
        assert game.get_orders() == answered.get_orders(), phase["phase"]
        answered.process()
        report = game.process()
        assert json.dumps(dict(report)) == json.dumps(phase["report"]), phase["phase"]
        assert game.report_text() == phase["text"], phase["phase"]
    assert len(held) > 10 and any(phase["phase"].endswith("A") for phase in recorded["phases"])
    for answer, ack in held:
        assert json.dumps(dict(answer)) == json.dumps(ack)


def test_answers_are_read_only_mappings_that_behave_as_dicts():
    g = shadowjudge.Game()
    ack = g.set_orders("FRANCE", ["A PAR - BUR", "F BRE - XYZ"])
    plain = dict(ack)
    assert isinstance(ack, collections.abc.Mapping) and not isinstance(ack, dict)
    assert ack == plain and plain == ack and not (ack != plain) and ack != {}
    assert list(ack) == list(plain) == list(ack.keys()) and len(ack) == len(plain)
    assert list(ack.values()) == list(plain.values()) and list(ack.items()) == list(plain.items())
    assert "missing" in ack and "nothing" not in ack
    assert ack["missing"] == ["F bre", "A mar"] and ack.get("nothing") is None and ack.get("x", 3) == 3
    assert repr(ack) == repr(plain) and str(ack) == str(plain)
    assert ack.copy() == plain and pickle.loads(pickle.dumps(ack)) == plain and copy.deepcopy(ack) == plain
    with pytest.raises(KeyError):
        ack["nothing"]
    with pytest.raises(TypeError):
        ack["power"] = "England"
    with pytest.raises(TypeError):
        hash(ack)
    report = g.process()
    assert report == json.loads(json.dumps(dict(report))) and report != ack
    assert report["phase"] == {"year": 1901, "season": "spring", "kind": "movement"}
    # Read once, the same objects come back.
    assert report["boards"] is report["boards"]


def test_order_lines_read_before_are_read_as_the_whole_text_is():
    """A list of lines (each line's reading kept from the last time it was sent) is
    acknowledged as the same lines sent as one text, read by the grammar in full."""
    rng = random.Random(4)
    odd = ["", "  A PAR - BUR  ", "France:", "[A]", "# a comment", "A PAR-BUR // note", "\ufeffA PAR H",
           "F BRE - XYZ", "A MAR S A PAR", "A MAR - SPA\nA PAR H", "GERMANY: A MUN - RUH", "Board B"]
    for variant in ["standard", "shadow-worlds"]:
        game = shadowjudge.Game(variant)
        for _ in range(12):
            if game.is_game_done:
                break
            possible = game.get_all_possible_orders()
            for power, locs in game.get_orderable_locations().items():
                lines = [rng.choice(possible[loc]) for loc in locs]
                for _ in range(2):  # the second time, every line has been read before
                    sent = lines + rng.sample(odd, rng.choice([0, 0, 1, 2]))
                    as_text = game.clone().set_orders(power, "\n".join(sent))
                    assert game.clone().set_orders(power, sent) == as_text, (game.phase, power, sent)
                game.set_orders(power, lines)
            game.process()


def test_order_lines_are_read_the_same_from_any_sequence_however_long_or_many():
    """A list, a tuple or any iterable of lines; lines too long to be kept by their string
    object (read by their text each time); and more strings than are kept at once."""
    lines = ["A PAR - BUR", "F BRE   -   MID-ATLANTIC OCEAN   // a note longer than most", "A MAR H"]
    as_text = dict(shadowjudge.Game().set_orders("FRANCE", "\n".join(lines)))
    for _ in range(2):  # the second time, every line has been seen before
        for given in (lines, tuple(lines), iter(lines), (line for line in lines)):
            assert shadowjudge.Game().set_orders("FRANCE", given) == as_text
    refused = shadowjudge.Game()
    kept = refused.set_orders("GERMANY", ["A MUN - RUH"])
    with pytest.raises(ValueError, match="a list of order lines"):
        refused.set_orders("FRANCE", ("A PAR - BUR", 3))
    assert refused.set_orders("FRANCE", lines) == as_text and kept["accepted"][0]["order"] == "A mun - ruh"
    assert refused.get_orders("FRANCE") == ["A PAR - BUR", lines[1].upper(), "A MAR H"]
    game = shadowjudge.Game()
    for i in range(100_500):  # a new string object each time: the table is emptied once
        game.set_orders("FRANCE", ["A PAR - BUR".encode().decode(), "A MAR - SPA" if i % 2 else "A MAR H"])
    assert game.get_orders("FRANCE") == ["A PAR - BUR", "A MAR - SPA"]
    assert game.set_orders("FRANCE", lines) == as_text
    known, differ = shadowjudge._shadowjudge._known_lines_differ()
    assert 0 < known <= 100_000 and differ == []
