"""shadowjudge: the judge's Diplomacy adjudicator, games and small games for Python."""

from shadowjudge._shadowjudge import Game, __version__, random_cases, resolve

__all__ = ["Game", "__version__", "random_cases", "resolve"]
