"""Reinforcement-learning environments over the judge's games (optional extras).

- `shadowjudge.envs.pettingzoo`: `env(game)`, PettingZoo AEC for every game of
  `shadowjudge.games()`; `parallel_env(variant)`, PettingZoo Parallel for Diplomacy.
- `shadowjudge.envs.gymnasium`: `SinglePlayerEnv`, one seat against given opponents.

They need `pip install "shadowjudge[rl]"` (pettingzoo, gymnasium, numpy); this module
itself imports none of them until asked.
"""


def decode(observation):
    """The view (a dict) that an observation's bytes encode."""
    from shadowjudge.envs._core import decode as _decode

    return _decode(observation)


def power_names(game):
    """The powers of a `Game`, whether `game.powers` is a list of names or a dict by name."""
    powers = game.powers
    return list(powers.keys()) if isinstance(powers, dict) else list(powers)


__all__ = ["decode", "power_names"]
