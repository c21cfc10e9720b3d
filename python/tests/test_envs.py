"""The PettingZoo and Gymnasium environments (the `rl` extra): the libraries' own API
checks, the meaning of an action, and what each player may see."""

import functools
import json
import random
import warnings

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

import shadowjudge  # noqa: E402
from shadowjudge.envs import decode, power_names  # noqa: E402
from shadowjudge.envs.gymnasium import SinglePlayerEnv  # noqa: E402
from shadowjudge.envs.pettingzoo import env, parallel_env  # noqa: E402

GAMES = [g["name"] for g in shadowjudge.games()]
SMALL = [g["name"] for g in shadowjudge.games() if not g["powers"]]
DIPLOMACY = [g["name"] for g in shadowjudge.games() if g["powers"]]


def cut_short(game, steps):
    """Keywords that end a random game soon: phases for Diplomacy, decisions for any game."""
    return {"max_phases": 6, "max_steps": steps} if game in DIPLOMACY else {"max_steps": steps}


def test_every_game_of_the_registry_is_covered():
    assert {"standard", "shadow-worlds"} <= set(DIPLOMACY)
    assert {"duplexity", "overdue", "duple"} <= set(SMALL)


@pytest.mark.parametrize("game", GAMES)
def test_the_aec_environment_passes_pettingzoos_api_test(game):
    api_test(env(game, **cut_short(game, 400)), num_cycles=300)


@pytest.mark.parametrize("variant", DIPLOMACY)
def test_the_board_observation_passes_the_api_tests(variant):
    api_test(env(variant, observation="board", **cut_short(variant, 400)), num_cycles=300)
    parallel_api_test(parallel_env(variant, observation="board", max_phases=6), num_cycles=20)
    single = SinglePlayerEnv(variant, player="ITALY", observation="board", max_phases=4)
    check_env(single, skip_render_check=True)


@pytest.mark.parametrize("variant", DIPLOMACY)
def test_the_parallel_environment_passes_pettingzoos_parallel_api_test(variant):
    parallel_api_test(parallel_env(variant, max_phases=6), num_cycles=20)
    parallel_seed_test(functools.partial(parallel_env, variant, max_phases=4), num_cycles=10)


@pytest.mark.parametrize("game", GAMES)
def test_the_aec_environment_passes_pettingzoos_seed_test(game):
    seed_test(functools.partial(env, game, **cut_short(game, 300)), num_cycles=300)


@pytest.mark.parametrize("game", GAMES)
def test_the_single_player_environment_passes_gymnasiums_check_env(game):
    player = "FRANCE" if game in DIPLOMACY else "p2"
    single = SinglePlayerEnv(game, player=player, **cut_short(game, 400))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning from the checker
        check_env(single, skip_render_check=True)
    assert single.player == player


def play(aec, rng, steps):
    for _ in range(steps):
        if not aec.agents:
            break
        agent = aec.agent_selection
        if aec.terminations[agent] or aec.truncations[agent]:
            aec.step(None)
            continue
        mask = aec.observe(agent)["action_mask"]
        assert mask.sum() == len(aec.infos[agent]["legal_actions"]) > 0
        aec.step(rng.randrange(int(mask.sum())))


@pytest.mark.parametrize("game", GAMES)
def test_a_mask_marks_each_candidate_and_the_view_is_the_players_own(game):
    aec = env(game, max_steps=500)
    aec.reset(seed=3)
    play(aec, random.Random(3), 20)
    agent = aec.agent_selection
    assert not aec.terminations[agent]
    view = decode(aec.observe(agent))
    assert view["you"] == agent
    legal = aec.infos[agent]["legal_actions"]
    assert legal[0] == "" and len(set(legal)) == len(legal)
    others = [a for a in aec.agents if a != agent]
    assert all(aec.infos[a]["legal_actions"] == [] for a in others)
    assert all(aec.observe(a)["action_mask"].sum() == 0 for a in others)


@pytest.mark.parametrize("variant", DIPLOMACY)
def test_an_observation_decodes_to_the_players_view(variant):
    aec = env(variant)
    aec.reset()
    play(aec, random.Random(8), 150)
    for power in aec.agents:
        assert decode(aec.observe(power)) == json.loads(json.dumps(aec.table.view(power)))
    assert decode(aec.observe(aec.agent_selection))["to_order"] is not None
    par = parallel_env(variant)
    obs, infos = par.reset()
    view = decode(obs["FRANCE"])
    assert view["to_order"] == infos["FRANCE"]["locations"] and view["state"] == par.table.game.get_state()


def test_a_diplomacy_action_is_the_order_at_its_index():
    aec = env("standard")
    aec.reset()
    moved = None
    for agent in aec.agent_iter():
        legal = aec.infos[agent]["legal_actions"]
        if decode(aec.observe(agent))["to_order"] == "PAR":
            moved = legal.index("A PAR - BUR")
            aec.step(moved)
        else:
            aec.step(0)
        if decode(aec.observe("FRANCE"))["state"]["phase"] != "S1901M":
            break
    assert moved is not None
    assert "A BUR" in shadowjudge.Game.from_json(aec.table.game.to_json()).get_units("FRANCE")


def test_a_solo_ends_the_game_with_the_end_rewards():
    # France holds 18 centres in the Fall, alone on the board: the phase ends the game.
    game = json.loads(shadowjudge.Game().to_json())
    board = game["state"]["boards"][0]
    owned = [i for i, owner in enumerate(board["ownership"]) if owner is not None]
    for i in owned[:18]:
        board["ownership"][i] = 2
    board["units"] = [u for u in board["units"] if u["power"] == 2]
    game["state"]["phase"]["season"] = "fall"
    aec = env("standard", start=json.dumps(game))
    aec.reset()
    assert [aec.agent_selection] + [len(aec.infos["FRANCE"]["legal_actions"]) > 1] == ["FRANCE", True]
    returns = {}
    for agent in aec.agent_iter():
        _, reward, terminated, truncated, _ = aec.last()
        returns[agent] = returns.get(agent, 0.0) + reward
        aec.step(None if terminated or truncated else 0)
    assert aec.agents == [] and aec.table.game.winner == "FRANCE"
    assert returns == {p: 1.0 if p == "FRANCE" else -1.0 for p in aec.possible_agents}


def test_an_eliminated_power_gets_minus_one_and_leaves():
    game = json.loads(shadowjudge.Game().to_json())
    board = game["state"]["boards"][0]  # Austria without a unit or a centre
    board["ownership"] = [None if owner == 0 else owner for owner in board["ownership"]]
    board["units"] = [u for u in board["units"] if u["power"] != 0]
    aec = env("standard", start=json.dumps(game))
    aec.reset()
    seen = []
    for agent in aec.agent_iter():
        _, reward, terminated, truncated, _ = aec.last()
        if terminated:
            seen.append((agent, reward, aec.table.game.phase))
        aec.step(None if terminated or truncated else 0)
        if "AUSTRIA" not in aec.agents:
            break
    assert seen == [("AUSTRIA", -1.0, "S1902M")]
    assert len(aec.agents) == 6 and aec.agent_selection != "AUSTRIA"


def test_keywords_of_another_kind_of_game_are_refused():
    with pytest.raises(ValueError, match="players and options are for the small games"):
        env("standard", players=3)
    with pytest.raises(ValueError, match="rules, max_phases and start are for Diplomacy"):
        env("overdue", max_phases=3)
    with pytest.raises(ValueError, match="not a game of Diplomacy's powers"):
        parallel_env("duple")
    with pytest.raises(ValueError, match='observation="board" is for Diplomacy'):
        env("overdue", observation="board")


def test_the_board_observation_shows_the_position_and_the_place_to_order():
    from shadowjudge.envs import LOCATIONS
    from shadowjudge.envs._core import FEATURES

    aec = env("standard", observation="board")
    aec.reset()
    while aec.agent_selection != "FRANCE":
        aec.step(0)
    obs = aec.observe("FRANCE")["observation"]
    planes, extra = obs[: len(LOCATIONS) * FEATURES].reshape(len(LOCATIONS), FEATURES), obs[-12:]
    row = {name: planes[LOCATIONS.index(name)] for name in ("PAR", "BRE", "STP/SC", "BEL", "MUN")}
    france, russia, germany = 2, 5, 3
    assert row["PAR"][france] == 1 and row["PAR"][21 + france] == 1  # a French army, a French centre
    assert row["BRE"][7 + france] == 1 and row["STP/SC"][7 + russia] == 1  # fleets, on a coast too
    assert row["BEL"][28] == 1 and row["MUN"][21 + germany] == 1  # nobody's centre, Germany's
    assert planes[:, 29].sum() == 1 and row["BRE"][29] == 1  # the place to order: France's first
    assert list(extra[:7]) == [0, 0, 1, 0, 0, 0, 0] and list(extra[7:10]) == [1, 0, 0]
    assert planes.sum() == 22 + 22 + 12 + 1
    aec.step(aec.infos["FRANCE"]["legal_actions"].index("F BRE - MAO"))
    planes = aec.observe("FRANCE")["observation"][: len(LOCATIONS) * FEATURES].reshape(len(LOCATIONS), FEATURES)
    assert planes[LOCATIONS.index("BRE"), 30] == 1 and planes[LOCATIONS.index("MAR"), 29] == 1


def test_the_places_and_centers_are_the_maps():
    tomllib = pytest.importorskip("tomllib")
    from conftest import ROOT

    from shadowjudge.envs import CENTERS, LOCATIONS

    provinces = tomllib.loads((ROOT / "maps" / "standard" / "map.toml").read_text())["provinces"]
    places = []
    for name, province in provinces.items():
        if not province.get("impassable"):
            places += [name.upper()] + [f"{name.upper()}/{c.upper()}" for c in province.get("coasts", {})]
    assert LOCATIONS == tuple(sorted(places)) and len(LOCATIONS) == 81
    assert CENTERS == tuple(sorted(n.upper() for n, p in provinces.items() if "center" in p)) and len(CENTERS) == 34


def test_every_place_the_judge_names_has_its_row():
    from shadowjudge.envs import LOCATIONS

    rng = random.Random(6)
    game = shadowjudge.Game()
    seen = set()
    for _ in range(60):
        possible = game.get_all_possible_orders()
        for power, locs in game.get_orderable_locations().items():
            game.set_orders(power, [rng.choice(possible[loc]) for loc in locs if possible[loc]])
        for units in game.get_units().values():
            seen |= {u.lstrip("*").split(" ")[1] for u in units}
        moves = [order for orders in possible.values() for order in orders if " - " in order]
        seen |= {order.split(" - ")[1].split(" ")[0] for order in moves}
        game.process()
    assert seen <= set(LOCATIONS) and len(seen) > 60


@pytest.mark.parametrize("observation", ["json", "board"])
def test_one_powers_view_does_not_change_with_anothers_orders(observation):
    def after(order):
        aec = env("standard", observation=observation)
        aec.reset()
        while aec.agent_selection != "GERMANY":
            agent = aec.agent_selection
            legal = aec.infos[agent]["legal_actions"]
            aec.step(legal.index(order) if order in legal else 0)
        return aec

    quiet, busy = after(None), after("A PAR - BUR")
    for power in power_names(quiet.table.game):
        same = np.array_equal(quiet.observe(power)["observation"], busy.observe(power)["observation"])
        assert same == (power != "FRANCE"), power
    if observation == "json":
        assert decode(busy.observe("FRANCE"))["your_orders"] == ["A PAR - BUR"]
        assert decode(quiet.observe("FRANCE"))["your_orders"] == []


def test_a_sealed_bid_is_seen_by_its_bidder_only():
    def after_bid(bid):
        aec = env("duplexity")
        aec.reset(seed=11)
        rng = random.Random(11)
        # Setup: each places a pawn, until the bids open.
        while not any(line.startswith("bid") for line in aec.infos[aec.agent_selection]["legal_actions"]):
            aec.step(rng.randrange(1, len(aec.infos[aec.agent_selection]["legal_actions"])))
        bidder = aec.agent_selection
        aec.step(aec.infos[bidder]["legal_actions"].index(bid))
        return aec, bidder

    (low, bidder), (high, _) = after_bid("bid 0"), after_bid("bid 1")
    other = next(a for a in low.agents if a != bidder)
    assert low.agent_selection == other and "bid 0" in low.infos[other]["legal_actions"]
    assert np.array_equal(low.observe(other)["observation"], high.observe(other)["observation"])
    assert decode(low.observe(bidder))["you_sent"][-1] == "bid 0"
    assert decode(high.observe(bidder))["you_sent"][-1] == "bid 1"


@pytest.mark.parametrize("game", SMALL)
def test_the_dice_seed_stays_secret_until_the_end(game):
    aec = env(game, max_steps=3000)
    aec.reset(seed=5)
    rng = random.Random(5)
    while aec.agents:
        agent = aec.agent_selection
        view = decode(aec.observe(agent))
        done = aec.terminations[agent] or aec.truncations[agent]
        assert view["status"]["dice"]["seed"] is None or aec.table.done
        aec.step(None if done else rng.randrange(len(aec.infos[agent]["legal_actions"])))


def test_a_seeded_episode_replays_exactly():
    def episode():
        aec = env("overdue", players=3)
        aec.reset(seed=9)
        play(aec, random.Random(9), 60)
        assert aec.agents
        return aec.observe("p1")["observation"]

    assert np.array_equal(episode(), episode())


def test_waiting_lets_the_deadline_come():
    aec = env("overdue", players=3)
    aec.reset(seed=2)
    before = decode(aec.observe(aec.agent_selection))["status"]
    for _ in range(3):  # every awaited player waits: the deadline's defaults are applied
        aec.step(0)
    assert decode(aec.observe(aec.agent_selection))["status"] != before


def test_the_parallel_environment_plays_whole_phases():
    par = parallel_env("standard")
    obs, infos = par.reset()
    assert infos["FRANCE"]["locations"] == ["BRE", "MAR", "PAR"]
    france = infos["FRANCE"]["legal_actions"]
    action = np.zeros(par.max_units, dtype=np.int64)
    action[2] = france[2].index("A PAR - BUR")
    masks = obs["FRANCE"]["action_mask"]
    assert [int(m.sum()) for m in masks[:4]] == [len(c) for c in france] + [1]
    action[0] = 399  # no candidate: no order at BRE
    _, _, _, _, infos = par.step({"FRANCE": action})
    assert "A BUR" in par.table.game.get_units("FRANCE") and "F BRE" in par.table.game.get_units("FRANCE")
    assert par.table.game.phase == "F1901M"
    assert infos["FRANCE"]["invalid_actions"] == 1 and infos["ENGLAND"]["invalid_actions"] == 0


def test_a_single_player_meets_its_opponents_and_gets_the_end_reward():
    single = SinglePlayerEnv("overdue", players=3, max_steps=5000)
    obs, info = single.reset(seed=4)
    total, done = 0.0, False
    rng = random.Random(4)
    while not done:
        obs, reward, terminated, truncated, info = single.step(rng.randrange(len(info["legal_actions"])))
        total += reward
        done = terminated or truncated
    assert terminated and single.aec.table.done
    assert total == (1.0 if "p1" in single.aec.table.game.winners else -1.0 if single.aec.table.game.winners else 0.0)


def test_an_action_without_a_candidate_counts_as_waiting():
    single = SinglePlayerEnv("overdue", players=3)
    _, info = single.reset(seed=1)
    *_, info = single.step(single.action_space.n - 1)
    assert info["invalid_action"] is True
    *_, info = single.step(0)
    assert info["invalid_action"] is False


def test_the_environment_benchmark_runs_and_prints_each_game(tmp_path):
    import pathlib
    import subprocess
    import sys

    bench = pathlib.Path(__file__).resolve().parents[1] / "bench_envs.py"
    args = [sys.executable, str(bench), "--seconds", "0.05", "--phases", "2", "--steps", "20"]
    done = subprocess.run(args, capture_output=True, text=True, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for variant in DIPLOMACY:
        assert f"\n{variant}: plain Game " in done.stdout and "Parallel " in done.stdout, done.stdout
    for game in SMALL:
        assert f"\n{game}: plain TurnGame " in done.stdout, done.stdout


def test_render_gives_the_position_as_text():
    aec = env("standard", render_mode="ansi")
    aec.reset()
    assert aec.render().splitlines()[:2] == ["S1901M", "AUSTRIA: A VIE, A BUD, F TRI; 3 centers"]
    small = env("overdue", players=3, render_mode="ansi")
    small.reset(seed=1)
    assert small.render() == small.table.game.report_text() and "p1" in small.render()
    assert env("standard").render() is None


def test_the_opponents_given_play_their_seats():
    calls = []

    def last_line(observation, info):
        calls.append((decode(observation)["you"], info["legal_actions"]))
        return len(info["legal_actions"]) - 1

    single = SinglePlayerEnv("overdue", player="p1", opponents={"p2": last_line, "p3": last_line}, players=3)
    _, info = single.reset(seed=3)
    for _ in range(5):
        *_, info = single.step(1 if len(info["legal_actions"]) > 1 else 0)
    assert {you for you, _ in calls} == {"p2", "p3"} and len(calls) >= 5
    assert all(legal and legal[0] == "" for _, legal in calls)
