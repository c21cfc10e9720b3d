"""The Ray example (python/examples/ray_selfplay.py) on a one-machine Ray cluster the test
starts (Ray 2.5x dropped `local_mode`), and the PettingZoo environment under RLlib's
wrapper (the `ray` extra)."""

import importlib.util
import json
import pathlib
import sys

import pytest

pytest.importorskip("pettingzoo")
ray = pytest.importorskip("ray")

import shadowjudge  # noqa: E402

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "ray_selfplay.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("ray_selfplay", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    # The example is no module Ray's workers can import: its functions travel by value.
    ray.cloudpickle.register_pickle_by_value(module)
    ray.init(num_cpus=2, object_store_memory=200 * 1024**2, include_dashboard=False, log_to_driver=False)
    yield module
    ray.shutdown()
    del sys.modules[spec.name]


def test_games_played_as_ray_tasks_are_the_games_played_here(example):
    seeds = [1, 2, 3]
    results = example.self_play("overdue", seeds, max_steps=5000)
    assert [r["seed"] for r in results] == seeds
    assert results == [example.play("overdue", s, {}, {"max_steps": 5000}) for s in seeds]
    for r in results:
        assert sorted(r["returns"].values()) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.0] * 3)


def test_evaluation_counts_the_seats_wins(example):
    seeds = [4, 5, 6, 7]
    score = example.evaluate("overdue", "p1", example.RandomPolicy(0), seeds, max_steps=5000)
    returns = [r["returns"]["p1"] for r in example.self_play("overdue", seeds, {"p1": example.RandomPolicy(0)})]
    assert score == {"games": 4, "mean_return": sum(returns) / 4, "wins": sum(r > 0 for r in returns)}


def test_resolve_spread_over_tasks_is_resolve_in_one_call(example):
    cases = shadowjudge.random_cases(250, seed=3)
    spread = example.resolve_spread(cases, batch=100)
    assert spread == shadowjudge.resolve(cases)
    assert [json.loads(r)["id"] for r in spread] == [json.loads(c)["id"] for c in cases]


def test_the_example_runs_as_a_script(example, capsys):
    example.main(["--games", "2", "--cases", "300"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("overdue p1 random against random: {'games': 2, 'mean_return': ")
    assert out[1] == "resolve: 300 cases, in Ray tasks of up to 1000 each"


def test_the_environment_runs_under_rllibs_pettingzoo_wrapper():
    pytest.importorskip("ray.rllib")
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from shadowjudge.envs.pettingzoo import env

    wrapped = PettingZooEnv(env("overdue", players=3, max_steps=300))
    obs, infos = wrapped.reset(seed=1)
    steps, done = 0, False
    while not done:
        (agent,) = obs.keys()
        mask = obs[agent]["action_mask"]
        obs, rewards, terminateds, truncateds, infos = wrapped.step({agent: int(mask.nonzero()[0][-1])})
        steps += 1
        done = terminateds["__all__"] or truncateds["__all__"]
    assert steps > 10
    assert set(wrapped.get_agent_ids()) == {"p1", "p2", "p3"}


def test_the_parallel_environment_runs_under_rllibs_parallel_wrapper():
    pytest.importorskip("ray.rllib")
    np = pytest.importorskip("numpy")
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    from shadowjudge.envs.pettingzoo import parallel_env

    wrapped = ParallelPettingZooEnv(parallel_env("standard", max_phases=3))
    obs, _ = wrapped.reset()
    phases = 0
    while True:
        holds = {power: np.zeros(34, dtype=np.int64) for power in obs}
        obs, _, terminateds, truncateds, _ = wrapped.step(holds)
        phases += 1
        if terminateds["__all__"] or truncateds["__all__"]:
            break
    assert phases == 3 and truncateds["FRANCE"] and not terminateds["FRANCE"]
