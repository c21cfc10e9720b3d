"""MILA's shapes for a `shadowjudge.Game`: phase history, order results and saved games.

`Game`'s methods of the same names (`get_phase_history()`, `order_history`, ...) call the
functions here; `to_saved_game_format` and `from_saved_game_format` are MILA's functions
of `diplomacy.utils.export`, for the JSON of MILA's saved games (one game a line).
"""

import json
from typing import Any, Dict, List, Optional

from shadowjudge._shadowjudge import Game

# The keys of a state in MILA's saved games (get_state() also gives the judge's own).
STATE_KEYS = ("name", "note", "units", "retreats", "centers", "homes", "civil_disorder", "builds")
# MILA's rules that say how a game is run, not what it is: not written to a saved game.
RULES_NOT_SAVED = {"SOLITAIRE", "NO_DEADLINE", "CD_DUMMIES", "ALWAYS_WAIT", "IGNORE_ERRORS"}


class GamePhaseData:
    """One phase of a game: `name` (`S1901M`), `state` (as `get_state()` gives it), the
    `orders` given by power, each unit's `results` (MILA's codes) and `messages` (none)."""

    def __init__(self, name, state, orders, results, messages=None):
        self.name = name
        self.state = state
        self.orders = orders
        self.results = results
        self.messages = messages if messages is not None else {}

    def to_dict(self) -> Dict[str, Any]:
        return {
            "name": self.name,
            "state": self.state,
            "orders": self.orders,
            "results": self.results,
            "messages": list(self.messages.values()) if isinstance(self.messages, dict) else self.messages,
        }

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "GamePhaseData":
        return cls(d["name"], d["state"], d.get("orders", {}), d.get("results", {}), d.get("messages", []))

    def __repr__(self):
        return f"<GamePhaseData {self.name}>"


def _unit(order: str) -> Optional[str]:
    """`A PAR` of an order (`A par - bur`), or None (`WAIVE`)."""
    words = order.split()
    if words and words[0].lower() in ("build", "remove", "disband"):
        words = words[1:]  # a Winter's order as the judge words it: `build A par`
    if len(words) >= 2 and words[0].upper() in ("A", "F"):
        return f"{words[0].upper()} {words[1].upper()}"
    return None


def _code(order: str, result: str, reason: str) -> List[str]:
    """MILA's result codes of one order, from the judge's result and reason."""
    words = order.split()
    verb = words[2].upper() if len(words) > 2 else "H"
    why = reason.lower()
    if result == "succeeds" and verb == "DISBAND":
        return ["disband"]  # a retreat's disband, as MILA reports it
    if result in ("succeeds", "default", ""):
        return []
    if result in ("illegal", "ignored", "cancelled") or why.startswith("void"):
        return ["void"]
    if "cut" in why:
        return ["cut"]
    if verb == "-":
        return ["no convoy"] if "convoy" in why else ["bounce"]
    if verb == "C":
        return ["disrupted"] if "paradox" in why else ["void"]
    return []


def results_of(report: Optional[Dict[str, Any]]) -> Dict[str, List[str]]:
    """Each unit ordered in a phase with its results in MILA's codes, from the judge's
    report (`process()`): an order that succeeded `[]`, one that failed `bounce` (a
    move), `cut` (a support), `void` (illegal, or with nothing to do), `no convoy`, and
    `dislodged` for a unit dislodged. A draw's phase has none."""
    if not report:
        return {}
    out: Dict[str, List[str]] = {}
    for board in report.get("boards", []):
        for line in board.get("orders", []):
            unit = _unit(line["order"])
            if unit is not None:
                out[unit] = _code(line["order"], line["result"], line.get("reason", ""))
        for d in board.get("dislodged", []):
            unit = _unit(d["unit"].lstrip("*"))
            if unit is None:
                continue
            out.setdefault(unit, [])
            if "dislodged" not in out[unit]:
                out[unit].append("dislodged")
    for line in report.get("adjustments", []):  # Shadow Worlds
        unit = _unit(line["order"])
        if unit is not None:
            out[unit] = _code(line["order"], line["result"], line.get("reason", ""))
    return out


def _mila_state(game: Game, state: Dict[str, Any]) -> Dict[str, Any]:
    out = {k: state[k] for k in STATE_KEYS if k in state}
    out["game_id"], out["map"] = game.game_id, game.map_name
    out["rules"] = [r for r in game.rules if r not in RULES_NOT_SAVED]
    return out


def _phases(game: Game, last: Optional[int] = None) -> List[GamePhaseData]:
    """Every phase played (the `last` ones when given), those read from a saved game
    first, oldest first."""
    phases = [
        GamePhaseData(name, state, orders, results_of(report), {})
        for name, state, orders, report in game._played(last)
    ]
    if last is None or len(phases) < last:
        imported = game._imported()
        if last is not None:
            imported = imported[len(imported) - (last - len(phases)) :] if last > len(phases) else []
        phases = [GamePhaseData.from_dict(json.loads(text)) for text in imported] + phases
    return phases


def phase_data(game: Game) -> GamePhaseData:
    """The current phase: its state and the orders given so far."""
    return GamePhaseData(game.get_current_phase(), game.get_state(), game.get_orders(), {}, {})


def _index(phases: List[GamePhaseData], at, default: int) -> int:
    if at is None:
        return default
    if isinstance(at, int):
        return at if at >= 0 else len(phases) + at
    names = [p.name for p in phases]
    if at not in names:
        raise ValueError(f"no phase {at!r} in the game's history: it has {', '.join(names) or 'none'}")
    return names.index(at)


def phase_history(game: Game, from_phase=None, to_phase=None) -> List[GamePhaseData]:
    """The phases played from `from_phase` to `to_phase` (names or indexes, both included)."""
    phases = _phases(game)
    first = _index(phases, from_phase, 0)
    last = _index(phases, to_phase, len(phases) - 1)
    return phases[first : last + 1]


def history(game: Game, field: str) -> Dict[str, Any]:
    """One field of each phase played, by phase name, oldest first."""
    return {p.name: getattr(p, field) for p in _phases(game)}


def order_status(game: Game, power_name=None, unit=None, loc=None):
    """MILA's `get_order_status`: the last phase's results by power then unit; of one
    power; of one `unit` (a list); or at one `loc` (the unit and its list)."""
    phases = _phases(game, last=1)
    last = phases[-1] if phases else None
    results = last.results if last else {}
    if unit is not None and loc is not None:
        raise ValueError("get_order_status: give unit= or loc=, not both")
    if unit is not None:
        return list(results.get(unit, []))
    if loc is not None:
        for u, codes in results.items():
            if u[2:5] == loc[:3].upper():
                return u, list(codes)
        return loc, []
    units = last.state["units"] if last else {}
    by_power = {
        power: {u.lstrip("*"): list(results.get(u.lstrip("*"), [])) for u in units.get(power, [])}
        for power in (units if power_name is None else [power_name.upper()])
    }
    return by_power if power_name is None else by_power[power_name.upper()]


def to_saved_game_format(game: Game, output_path: Optional[str] = None, output_mode: str = "a") -> Dict[str, Any]:
    """The game as MILA's saved game: `id`, `map`, `rules` and every phase played and the
    current one, each with its state, orders, results and messages. With `output_path`,
    also written to that file as one line of JSON (appended, as MILA does)."""
    phases = phase_history(game) + [phase_data(game)]
    saved = {
        "id": game.game_id,
        "map": game.map_name,
        "rules": [r for r in game.rules if r not in RULES_NOT_SAVED],
        "phases": [],
    }
    for p in phases:
        d = p.to_dict()
        d["state"] = _mila_state(game, d["state"])
        saved["phases"].append(d)
    if output_path:
        with open(output_path, output_mode) as out:
            out.write(json.dumps(saved) + "\n")
    return saved


def from_saved_game_format(saved_game: Dict[str, Any], **kwargs) -> Game:
    """A game from MILA's saved game (a dict, `json.loads` of one line): at its last
    phase, with the phases before it as its history and the orders of that phase given.
    `kwargs` go to `Game` (`draw_in_year=`, say)."""
    from shadowjudge.replay import game_at  # noqa: PLC0415 (replay imports this module)

    map_name = saved_game.get("map", "standard")
    phases = saved_game.get("phases") or []
    if not phases:
        raise ValueError("saved game: no phases")
    last = phases[-1]
    try:
        ended_in = phases[-2].get("name") if len(phases) > 1 else None
        game = game_at(last["state"], last.get("name"), ended_in=ended_in, map_name=map_name, **kwargs)
    except ValueError as e:
        raise ValueError(f"saved game {saved_game.get('id')!r}, phase {last.get('name')}: {e}") from None
    rules = list(saved_game.get("rules", []))
    game._set_saved(str(saved_game.get("id") or game.game_id), rules, [json.dumps(p) for p in phases[:-1]])
    if not game.is_game_done:
        for power, orders in (last.get("orders") or {}).items():
            if orders:
                game.set_orders(power, list(orders))
    return game
