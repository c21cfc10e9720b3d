import json
import random

import pytest

import shadowjudge

SEED = 0x5EED


def play(env, rng, steps):
    """Random legal lines for whoever is awaited; the lines sent, by player."""
    sent = []
    for _ in range(steps):
        if env.is_done:
            break
        player = env.to_play[0]
        legal = env.legal_actions()
        assert legal, (player, env.observation())
        line = rng.choice(legal)
        answer = env.step(line)
        assert answer["accepted"], (line, answer)
        sent.append((player, line))
    return sent


def strip(status):
    """The fields the game itself gives (not the store's: deadline, early processing)."""
    status = dict(status)
    for key in ("deadline", "early", "waiting", "held", "unlisted", "dice"):
        status.pop(key, None)
    return status


@pytest.mark.parametrize(
    "kind,make,steps",
    [
        ("duplexity", lambda: shadowjudge.Duplexity(seed=SEED, name="g"), 120),
        ("overdue", lambda: shadowjudge.Overdue(players=3, seed=SEED, name="g"), 150),
    ],
)
def test_seeded_random_episodes_match_the_command_line(cli, tmp_path, kind, make, steps):
    env = make()
    sent = play(env, random.Random(4), steps)
    (tmp_path / "players.txt").write_text("".join(f"{p}, {p}@example.org\n" for p in env.players))
    gdir = str(tmp_path / "g")
    cli("new", gdir, "--game", kind, "--players", str(tmp_path / "players.txt"), "--seed", f"{SEED:064x}")
    for player, line in sent:
        cli("submit", gdir, "-", "--player", player, input=line + "\n")
    theirs = json.loads(cli("status", gdir, "--json"))
    ours = env.observation()
    assert strip(ours) == strip(theirs)
    assert ours["dice"]["commitment"] == theirs["dice"]["commitment"]
    assert ours["dice"]["rolls"] == theirs["dice"]["rolls"] > 0


def test_every_game_of_the_registry_is_one_environment_and_plays_from_its_legal_lines():
    listed = {g["name"]: g for g in shadowjudge.games()}
    assert {"standard", "shadow-worlds", "duplexity", "overdue", "duple"} <= set(listed)
    for name, game in listed.items():
        env = shadowjudge.TurnGame(name, SEED, name="g")
        assert env.game == name and len(env.players) == game["players"][0]
        assert repr(env).startswith(f"<{game['title']} ")
        sent = play(env, random.Random(5), 30)
        assert sent, name
        # A game offers dice or rolls none.
        assert (env.observation()["dice"]["rolls"] > 0) == game["dice"], name
    assert type(shadowjudge.Duple(players=2, seed=1)) is shadowjudge.TurnGame
    with pytest.raises(ValueError, match="unknown game `chess`: the judge runs"):
        shadowjudge.TurnGame("chess", 1)


def test_a_seeded_episode_replays_exactly():
    def episode():
        env = shadowjudge.Overdue(players=["ann", "bob", "cy"], seed=SEED)
        play(env, random.Random(9), 400)
        return env.observation()

    assert episode() == episode()


def test_clone_plays_on_alone_with_the_same_dice():
    env = shadowjudge.Duplexity(seed=7)
    play(env, random.Random(1), 10)
    copy = env.clone()
    rng_a, rng_b = random.Random(2), random.Random(2)
    play(env, rng_a, 20)
    before = copy.observation()
    assert before != env.observation()
    play(copy, rng_b, 20)
    assert copy.observation() == env.observation()


def test_games_end_with_a_winner_or_none():
    env = shadowjudge.Overdue(players=3, seed=3)
    play(env, random.Random(3), 5000)
    assert env.is_done and env.to_play == [] and env.legal_actions() == []
    assert env.winners is not None and env.winner in (env.winners + [None])
    assert env.observation()["dice"]["seed"] == f"{3:064x}"


def test_refused_lines_say_why():
    env = shadowjudge.Duplexity(seed=1)
    answer = env.step("bid 9")
    assert not answer["accepted"] and answer["lines"][0]["text"]
    with pytest.raises(ValueError, match="no player called `zed`"):
        env.step("bid 0", player="zed")
    with pytest.raises(ValueError, match="seed is a whole number"):
        shadowjudge.Duplexity(seed=-1)
    with pytest.raises(ValueError, match="seed"):
        shadowjudge.Duplexity(seed="beef")


def test_the_stubs_name_everything_the_module_has():
    import ast
    import pathlib

    import shadowjudge._shadowjudge as module

    stubs = ast.parse((pathlib.Path(shadowjudge.__file__).parent / "_shadowjudge.pyi").read_text())
    named = {node.name: node for node in stubs.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    for public in [n for n in dir(module) if not n.startswith("_")]:
        assert public in named, public
        if isinstance(named[public], ast.ClassDef):
            cls = named[public]
            members = {m.name for m in cls.body if isinstance(m, ast.FunctionDef)}
            # A base of this module adds its members (a typing base such as Mapping[...] none).
            for base in [b for b in cls.bases if isinstance(b, ast.Name)]:
                members |= {m.name for m in named[base.id].body if isinstance(m, ast.FunctionDef)}
            missing = [m for m in dir(getattr(module, public)) if not m.startswith("_") and m not in members]
            assert missing == [], (public, missing)
