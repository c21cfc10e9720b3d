"""shadowjudge: the judge's Diplomacy adjudicator, games and small games for Python."""

from shadowjudge._shadowjudge import __version__, random_cases, resolve

__all__ = ["__version__", "random_cases", "resolve"]
