"""shadowjudge: the judge's Diplomacy adjudicator, games and small games for Python."""

from typing import Any, Dict, Optional, Sequence, Union

from shadowjudge._shadowjudge import (
    Game,
    Power,
    ReadOnlyDict,
    TurnGame,
    __version__,
    games,
    random_cases,
    resolve,
)
from shadowjudge.mila import GamePhaseData, from_saved_game_format, to_saved_game_format

Players = Union[int, Sequence[str]]
Seed = Union[int, str]


def Duplexity(  # noqa: N802 (a game's name, as before)
    seed: Seed,
    *,
    players: Optional[Players] = None,
    name: str = "python",
    options: Optional[Dict[str, Any]] = None,
) -> TurnGame:
    """Duplexity for two players: `TurnGame("duplexity", ...)`."""
    return TurnGame("duplexity", seed, players=players, name=name, options=options)


def Overdue(  # noqa: N802
    players: Players,
    seed: Seed,
    *,
    name: str = "python",
    options: Optional[Dict[str, Any]] = None,
) -> TurnGame:
    """Overdue for 3 to 10 players: `TurnGame("overdue", ...)`."""
    return TurnGame("overdue", seed, players=players, name=name, options=options)


def Duple(  # noqa: N802
    players: Players,
    seed: Seed,
    *,
    name: str = "python",
    options: Optional[Dict[str, Any]] = None,
) -> TurnGame:
    """Duple, the race to name a word: `TurnGame("duple", ...)`."""
    return TurnGame("duple", seed, players=players, name=name, options=options)


__all__ = [
    "Duple",
    "Duplexity",
    "Game",
    "GamePhaseData",
    "Overdue",
    "Power",
    "ReadOnlyDict",
    "TurnGame",
    "__version__",
    "from_saved_game_format",
    "games",
    "random_cases",
    "resolve",
    "to_saved_game_format",
]
