"""Speed of the RL environments (shadowjudge.envs) against a plain loop over the same game.

    python python/bench_envs.py [--seconds 3]

For each game, random play for about `--seconds` of CPU time each way:
- plain: `Game` (possible orders, a random order for every orderable place, set orders,
  process) or `TurnGame` (legal lines, a random one, step);
- AEC: the PettingZoo AEC environment, a random unmasked action each step, the
  observation read each step (as a learner does); in Diplomacy also with
  `observation="board"`;
- Parallel (Diplomacy): the PettingZoo parallel environment, one phase a step, a random
  candidate for each of a power's places.

Diplomacy is counted in phases and in decisions (one order for one place: an AEC step);
a small game in decisions (a turn file sent; an AEC step, waiting included). Needs the
`rl` extra; build the package in release mode for figures worth comparing.
"""

import argparse
import pathlib
import random
import sys
import time

if sys.path and pathlib.Path(sys.path[0] or ".").resolve() == pathlib.Path(__file__).resolve().parent:
    del sys.path[0]  # the installed package, not the source folder

import numpy as np  # noqa: E402

import shadowjudge  # noqa: E402
from shadowjudge.envs.pettingzoo import env, parallel_env  # noqa: E402


def timed(seconds, run):
    """Repeat `run()` (it returns what it counted) for about `seconds` of CPU time."""
    counts, start = {}, time.process_time()
    while time.process_time() - start < seconds:
        for key, n in run().items():
            counts[key] = counts.get(key, 0) + n
    spent = time.process_time() - start
    return {key: n / spent for key, n in counts.items()}


def plain_diplomacy(variant, rng, phases):
    def run():
        game = shadowjudge.Game(variant)
        done = decisions = 0
        while done < phases and not game.is_game_done:
            possible = game.get_all_possible_orders()
            for power, locs in game.get_orderable_locations().items():
                orders = [rng.choice(possible[loc]) for loc in locs if possible[loc]]
                decisions += len(orders)
                game.set_orders(power, orders)
            game.process()
            done += 1
        return {"phases": done, "decisions": decisions}

    return run


def aec_run(game, rng, **kwargs):
    def run():
        aec = env(game, **kwargs)
        aec.reset(seed=rng.randrange(2**32))
        steps = 0
        for agent in aec.agent_iter():
            obs, _, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            aec.step(rng.choice(np.flatnonzero(obs["action_mask"])))
            steps += 1
        phases = getattr(aec.table, "phases", 0)
        return {"decisions": steps, "phases": phases}

    return run


def parallel_run(variant, rng, phases):
    def run():
        par = parallel_env(variant, max_phases=phases)
        _, infos = par.reset()
        done = 0
        while par.agents:
            actions = {}
            for a in par.agents:
                action = np.zeros(par.max_units, dtype=np.int64)
                picks = [rng.randrange(len(c)) for c in infos[a]["legal_actions"]]
                action[: len(picks)] = picks
                actions[a] = action
            _, _, _, _, infos = par.step(actions)
            done += 1
        return {"phases": done}

    return run


def plain_turn(game, rng, steps):
    def run():
        g = shadowjudge.TurnGame(game, rng.randrange(2**32))
        done = 0
        while done < steps and not g.is_done:
            legal = g.legal_actions()
            if legal:
                g.step(rng.choice(legal))
            else:
                g.force()
            done += 1
        return {"decisions": done}

    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--phases", type=int, default=20, help="phases of a Diplomacy game")
    parser.add_argument("--steps", type=int, default=400, help="decisions of a small game")
    args = parser.parse_args()
    rng = random.Random(1)
    s = args.seconds
    print(f"random play, {s:g} CPU seconds each; per CPU second")
    for variant in ("standard", "shadow-worlds"):
        plain = timed(s, plain_diplomacy(variant, rng, args.phases))
        aec = timed(s, aec_run(variant, rng, max_phases=args.phases))
        board = timed(s, aec_run(variant, rng, max_phases=args.phases, observation="board"))
        par = timed(s, parallel_run(variant, rng, args.phases))
        print(
            f"{variant}: plain Game {plain['phases']:,.0f} phases ({plain['decisions']:,.0f} decisions); "
            f"AEC {aec['phases']:,.0f} phases ({aec['decisions']:,.0f} steps), "
            f"{plain['phases'] / aec['phases']:.1f}x slower; "
            f"AEC board {board['phases']:,.0f} phases ({board['decisions']:,.0f} steps), "
            f"{plain['phases'] / board['phases']:.1f}x slower; "
            f"Parallel {par['phases']:,.0f} phases, {plain['phases'] / par['phases']:.1f}x slower"
        )
    for game in [g["name"] for g in shadowjudge.games() if not g["powers"]]:
        plain = timed(s, plain_turn(game, rng, args.steps))
        aec = timed(s, aec_run(game, rng, max_steps=args.steps))
        print(
            f"{game}: plain TurnGame {plain['decisions']:,.0f} decisions; "
            f"AEC {aec['decisions']:,.0f} steps, {plain['decisions'] / aec['decisions']:.1f}x slower"
        )


if __name__ == "__main__":
    main()
