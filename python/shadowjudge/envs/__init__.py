"""Reinforcement-learning environments over the judge's games (optional extras).

- `shadowjudge.envs.pettingzoo`: `env(game)`, PettingZoo AEC for every game of
  `shadowjudge.games()`; `parallel_env(variant)`, PettingZoo Parallel for Diplomacy.
- `shadowjudge.envs.gymnasium`: `SinglePlayerEnv`, one seat against given opponents.

They need `pip install "shadowjudge[rl]"` (pettingzoo, gymnasium, numpy); this module
itself imports none of them until asked.
"""

# The standard map's 75 provinces (Switzerland aside) and 6 coasts, alphabetical: the rows of
# the board observation.
LOCATIONS = tuple(
    """ADR AEG ALB ANK APU ARM BAL BAR BEL BER BLA BOH BOT BRE BUD BUL BUL/EC BUL/SC BUR CLY CON
    DEN EAS EDI ENG FIN GAL GAS GRE HEL HOL ION IRI KIE LON LVN LVP LYO MAO MAR MOS MUN NAF NAO NAP
    NTH NWG NWY PAR PIC PIE POR PRU ROM RUH RUM SER SEV SIL SKA SMY SPA SPA/NC SPA/SC STP STP/NC
    STP/SC SWE SYR TRI TUN TUS TYR TYS UKR VEN VIE WAL WAR WES YOR""".split()
)
# Its 34 supply centers.
CENTERS = tuple(
    """ANK BEL BER BRE BUD BUL CON DEN EDI GRE HOL KIE LON LVP MAR MOS MUN NAP NWY PAR POR ROM RUM
    SER SEV SMY SPA STP SWE TRI TUN VEN VIE WAR""".split()
)


def decode(observation):
    """The view (a dict) that an observation's bytes encode."""
    from shadowjudge.envs._core import decode as _decode

    return _decode(observation)


def power_names(game):
    """The powers of a `Game`, whether `game.powers` is a list of names or a dict by name."""
    powers = game.powers
    return list(powers.keys()) if isinstance(powers, dict) else list(powers)


__all__ = ["CENTERS", "LOCATIONS", "decode", "power_names"]
