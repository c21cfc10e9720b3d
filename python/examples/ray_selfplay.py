"""Self-play, evaluation and `resolve` over many machines with Ray.

    pip install "shadowjudge[rl,ray]"
    python python/examples/ray_selfplay.py                      # on this machine
    RAY_ADDRESS=auto python python/examples/ray_selfplay.py     # on a running Ray cluster

Each game is one Ray task, so games spread over every core of every machine of the
cluster; Ray, not this package, schedules them and gathers the results. A policy is any
picklable callable (observation, info) -> action, as `SinglePlayerEnv` takes.
"""

import argparse
import random
from typing import Any, Callable, Dict, List, Optional

import ray

import shadowjudge
from shadowjudge.envs.gymnasium import RandomPolicy
from shadowjudge.envs.pettingzoo import env as make_env


def play(game: str, seed: int, policies: Dict[str, Callable], env_kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """One whole game in the AEC environment; each seat's return and the steps taken."""
    aec = make_env(game, **env_kwargs)
    aec.reset(seed=seed)
    returns = {a: 0.0 for a in aec.possible_agents}
    steps = 0
    for agent in aec.agent_iter():
        observation, reward, terminated, truncated, info = aec.last()
        returns[agent] += reward
        if terminated or truncated:
            action = None
        else:
            policy = policies.get(agent) or RandomPolicy(seed * 1000 + aec.possible_agents.index(agent))
            action = policy(observation, info)
        aec.step(action)
        steps += 1
    return {"seed": seed, "returns": returns, "steps": steps}


play_task = ray.remote(play)


def self_play(game: str, seeds: List[int], policies=None, **env_kwargs) -> List[Dict[str, Any]]:
    """Many games at once, one Ray task each, results in the order of `seeds`."""
    return ray.get([play_task.remote(game, s, policies or {}, env_kwargs) for s in seeds])


def evaluate(game: str, seat: str, policy, seeds: List[int], **env_kwargs) -> Dict[str, float]:
    """`policy` in `seat` against random opponents: its mean return and how often it won."""
    results = self_play(game, seeds, {seat: policy}, **env_kwargs)
    returns = [r["returns"][seat] for r in results]
    return {"games": len(returns), "mean_return": sum(returns) / len(returns), "wins": sum(r > 0 for r in returns)}


@ray.remote
def resolve_task(cases: List[str]) -> List[str]:
    return shadowjudge.resolve(cases)


def resolve_spread(cases: List[str], batch: int = 1000) -> List[str]:
    """`shadowjudge.resolve` of many cases, one Ray task a batch, results in input order."""
    batches = [cases[i : i + batch] for i in range(0, len(cases), batch)]
    return [r for results in ray.get([resolve_task.remote(b) for b in batches]) for r in results]


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="overdue")
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--cases", type=int, default=5000)
    args = parser.parse_args(argv)
    ray.init(ignore_reinit_error=True)
    seat = make_env(args.game).possible_agents[0]
    seeds = [random.randrange(2**32) for _ in range(args.games)]
    print(args.game, seat, "random against random:", evaluate(args.game, seat, RandomPolicy(0), seeds, max_steps=5000))
    cases = shadowjudge.random_cases(args.cases, seed=1)
    results = resolve_spread(cases)
    print(f"resolve: {len(results)} cases, in Ray tasks of up to 1000 each")


if __name__ == "__main__":
    main()
