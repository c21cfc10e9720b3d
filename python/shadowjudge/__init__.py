"""shadowjudge: the judge's Diplomacy adjudicator, games and small games for Python."""

from shadowjudge._shadowjudge import (
    Duplexity,
    Game,
    Overdue,
    ReadOnlyDict,
    __version__,
    random_cases,
    resolve,
)

__all__ = ["Duplexity", "Game", "Overdue", "ReadOnlyDict", "__version__", "random_cases", "resolve"]
