"""MILA's saved games, where MILA's `diplomacy.utils.export` has them."""

from shadowjudge.mila import from_saved_game_format, to_saved_game_format

__all__ = ["from_saved_game_format", "to_saved_game_format"]
