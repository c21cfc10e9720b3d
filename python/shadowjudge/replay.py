"""Replay MILA's saved games through the judge, phase by phase.

Each phase of a saved game is played again from the position recorded for it, with the
orders recorded for it; the position the judge reaches is compared with the one recorded
for the next phase (its name, units, centers and dislodged units). Every phase where they
differ is reported.

    python -m shadowjudge.replay games.jsonl        # one saved game a line
    shadowjudge-replay games.jsonl --json > differences.jsonl
"""

import argparse
import json
import os
import sys
from typing import Any, Dict, Iterator, List, Optional, Tuple

from shadowjudge._shadowjudge import Game

__all__ = ["game_at", "replay", "main"]


def game_at(
    state: Dict[str, Any],
    name: Optional[str] = None,
    *,
    ended_in: Optional[str] = None,
    map_name: str = "standard",
    **kwargs,
) -> Game:
    """A game in the position of a MILA state (`units`, `centers`, `retreats`, `name`);
    `name` overrides the state's phase. A state named COMPLETED is a game over, whose
    phase MILA does not keep: `ended_in` names the last phase played (the game's phase
    is then that one's, and the game is over)."""
    phase = name or state.get("name")
    ended = phase == "COMPLETED"
    game = Game(map_name=map_name, **kwargs)
    if ended:
        phase = ended_in or game.phase
    # A power's entry may be null in a saved game (one out of the game): as empty.
    units = {p: list(v or []) for p, v in (state.get("units") or {}).items()}
    centers = {p: list(v or []) for p, v in (state.get("centers") or {}).items()}
    retreats = {p: {u: list(to or []) for u, to in (v or {}).items()} for p, v in (state.get("retreats") or {}).items()}
    game._set_position(phase, units, centers, retreats, ended)
    return game


def _position(state: Dict[str, Any]) -> Dict[str, Any]:
    """What is compared of a state: units, centers and dislodged units, as sets by power."""

    def by_power(d):
        return {p: sorted(u.lstrip("*") for u in v) for p, v in (d or {}).items() if v}

    retreats = {p: sorted(v) for p, v in (state.get("retreats") or {}).items() if v}
    units = {p: sorted(u for u in v if not u.startswith("*")) for p, v in (state.get("units") or {}).items() if v}
    units = {p: v for p, v in units.items() if v}
    return {"units": units, "centers": by_power(state.get("centers")), "dislodged": retreats}


def _differences(ours: Dict[str, Any], theirs: Dict[str, Any]) -> List[str]:
    out = []
    for key in ("units", "centers", "dislodged"):
        a, b = ours[key], theirs[key]
        for power in sorted(set(a) | set(b)):
            mine, recorded = set(a.get(power, [])), set(b.get(power, []))
            if mine != recorded:
                extra = ", ".join(sorted(mine - recorded)) or "-"
                missing = ", ".join(sorted(recorded - mine)) or "-"
                out.append(f"{key} of {power}: the judge has {extra} where the record has {missing}")
    return out


def replay(saved_game: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Every phase of a saved game (a dict) where the judge's result differs from the one
    recorded: each as `{"phase", "next" (the phase recorded after it), "judge_next",
    "differences" (lines), "problems" (orders the judge did not accept)}`. A phase that
    cannot be set up (a place or unit the judge does not know) is reported with `error`."""
    phases = saved_game.get("phases") or []
    map_name = saved_game.get("map", "standard")
    try:
        Game(map_name=map_name)
    except ValueError as e:
        return [{"phase": None, "error": str(e)}]
    report = []
    following = {id(a): b for a, b in zip(phases, phases[1:])}

    def drawn(phase):
        """A phase MILA's `draw()` recorded (no orders, no results) before COMPLETED."""
        nxt = following.get(id(phase))
        no_orders = not any((phase.get("orders") or {}).values()) and not phase.get("results")
        return nxt is not None and nxt.get("name") == "COMPLETED" and no_orders

    for before, after in zip(phases, phases[1:]):
        name = before.get("name")
        if name == "COMPLETED" or after.get("name") is None:
            continue
        if drawn(before):
            continue  # no phase was played: the game was drawn in it
        try:
            game = game_at(before["state"], name, map_name=map_name)
        except ValueError as e:
            report.append({"phase": name, "error": str(e)})
            continue
        problems = []
        for power, orders in (before.get("orders") or {}).items():
            if orders:
                answer = game.set_orders(power, list(orders))
                problems += [f"{power}: {p['message']} ({orders[p['line'] - 1]})" for p in answer["problems"]]
        game.process()
        recorded = after["name"]
        differences = []
        judge_next = game.get_current_phase()
        # A game drawn at the end of this phase: MILA records the phase it was drawn in.
        if judge_next != recorded and not (judge_next == "COMPLETED" and drawn(after)):
            differences.append(f"next phase: the judge has {judge_next} where the record has {recorded}")
        differences += _differences(_position(game.get_state()), _position(after["state"]))
        if differences:
            report.append(
                {"phase": name, "next": recorded, "judge_next": judge_next, "differences": differences, "problems": problems}
            )
    return report


def _open(path: str):
    if path.endswith(".gz"):
        import gzip  # noqa: PLC0415

        return gzip.open(path, "rt")
    return open(path)


def _games(path: str) -> Iterator[Tuple[Dict[str, Any], float]]:
    """Each game of the file with how far through the file it ends (0 to 1): read a line
    at a time, so a file of many games is never all in memory (a JSON list is)."""
    with _open(path) as f:
        first = f.read(1)
        while first.isspace():
            first = f.read(1)
        if first == "[":
            games = json.loads(first + f.read())
            for i, saved in enumerate(games, 1):
                yield saved, i / len(games)
            return
    total = os.path.getsize(path) or 1
    with open(path, "rb") as raw:
        import gzip  # noqa: PLC0415

        lines = gzip.open(raw) if path.endswith(".gz") else raw
        for number, line in enumerate(lines, 1):
            done = min(raw.tell() / total, 1.0)
            if not line.strip():
                continue
            try:
                yield json.loads(line), done
            except json.JSONDecodeError as e:
                yield {"id": f"line {number}", "_error": f"{path}:{number}: not JSON: {e}"}, done


def _progress(done: float, games: int, differing: int) -> None:
    width = 30
    filled = int(width * done)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done:4.0%} {games} games, {differing} differ")
    sys.stderr.flush()


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="shadowjudge-replay",
        description="Replay MILA saved games (one JSON game a line, or a JSON list; .gz too) through "
        "the judge and report every phase whose result differs from the one recorded.",
    )
    ap.add_argument("file", help="the saved games")
    ap.add_argument("--json", action="store_true", help="one JSON line per game that differs, for programs")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)
    count = differing = phases = 0
    try:
        for saved, done in _games(a.file):
            count += 1
            gid = saved.get("id")
            found = [{"phase": None, "error": saved["_error"]}] if "_error" in saved else replay(saved)
            phases += max(len(saved.get("phases") or []) - 1, 0)
            if found:
                differing += 1
                if not a.quiet:
                    sys.stderr.write("\r\033[K")
                _print(gid, found, a.json)
            if not a.quiet:
                _progress(done, count, differing)
    except OSError as e:
        print(f"shadowjudge-replay: {a.file}: {e.strerror or e}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as e:
        print(f"shadowjudge-replay: {a.file}: not JSON: {e}", file=sys.stderr)
        return 2
    if not a.quiet:
        sys.stderr.write("\n")
    print(f"{count} games, {phases} phases replayed: {differing} game(s) with differences", file=sys.stderr)
    return 1 if differing else 0


def _print(gid: Any, found: List[Dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print(json.dumps({"id": gid, "phases": found}))
    else:
        print(f"game {gid}: {len(found)} phase(s) differ")
        for f in found:
            if "error" in f:
                print(f"  {f['phase']}: cannot be replayed: {f['error']}")
                continue
            print(f"  {f['phase']} -> {f['next']}:")
            for line in f["differences"]:
                print(f"    {line}")
            for line in f["problems"]:
                print(f"    order not accepted: {line}")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
