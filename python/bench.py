"""Speed of the Python package, beside the Rust benchmarks (benches/).

    python python/bench.py [--games 20] [--cases 10000] [--cli target/release/shadowjudge]

1. Random standard games played through `Game` (set orders, process), and through MILA's
   `diplomacy` on the same orders in the same run when it is installed: phases per second.
   The orders are drawn from `get_all_possible_orders()`. With MILA installed, a game
   ends where the two engines part ways (they rule differently on a few orders, such as
   a move `VIA` convoy with no convoy, or more Winter orders than adjustments due), so
   both are timed on the same phases with the same orders. Two figures:
   - each engine alone: the games replayed through one engine at a time, as a bot runs
     one (possible orders, the bot reads them and picks, set orders, process);
   - called in turn: as the games are first played, each call of one engine right after
     the other's, so every call starts with caches cold (as after any heavy Python work
     between two calls); MILA's 2 ms of Python costs our short calls more than its own.
2. `get_all_possible_orders()` on the same positions: calls per second, both ways.
3. `resolve` of 10,000 random cases, as JSON lines and as dicts, against the command
   line's `shadowjudge resolve` on the same lines: cases per second.

Times are CPU seconds (this process's, and the command line's as a child), so a busy
machine does not skew the ratios; Python's cyclic garbage collector is paused while a call
is timed, as `timeit` does. Build the package with `maturin build --release` (or `pip install ./python`) first: a
debug build is many times slower.
"""

import argparse
import gc
import json
import logging
import os
import pathlib
import random
import resource
import subprocess
import sys
import time

# Run as `python python/bench.py`, Python puts python/ first on the path, and its
# shadowjudge/ is the source folder, without the built extension: use the installed one.
if sys.path and pathlib.Path(sys.path[0] or ".").resolve() == pathlib.Path(__file__).resolve().parent:
    del sys.path[0]

import shadowjudge  # noqa: E402

try:
    import diplomacy

    logging.getLogger("diplomacy").setLevel(logging.ERROR)
except ImportError:  # MILA's package is optional
    diplomacy = None

ROOT = pathlib.Path(__file__).resolve().parents[1]


class Clock:
    """CPU time spent in the calls it timed, and how many."""

    def __init__(self):
        self.seconds = 0.0
        self.count = 0

    def time(self, f, *args):
        # The cyclic garbage collector is paused while a call is timed (as `timeit` does):
        # a collection set off by one engine's garbage is not charged to whatever call
        # happens to run when it comes due.
        was_on = gc.isenabled()
        gc.disable()
        try:
            start = time.process_time()
            out = f(*args)
            self.seconds += time.process_time() - start
        finally:
            if was_on:
                gc.enable()
        self.count += 1
        return out

    def rate(self):
        return self.count / self.seconds if self.seconds else float("nan")


def play_phase(game, orders):
    """Every power's orders, then the phase processed (either engine's `Game`)."""
    for power, mine in orders.items():
        game.set_orders(power, mine)
    game.process()


def play_games(games, seed, max_phases):
    """Play the games through both engines in turn; returns the clocks and each game's
    orders, phase by phase (only the phases both engines played alike)."""
    rng = random.Random(seed)
    ours, theirs = Clock(), Clock()
    ours_possible, theirs_possible = Clock(), Clock()
    played = []
    for _ in range(games):
        g = shadowjudge.Game()
        m = diplomacy.Game() if diplomacy else None
        phases = []
        played.append(phases)
        for _ in range(max_phases):
            if g.is_game_done:
                break
            possible = ours_possible.time(g.get_all_possible_orders)
            if m is not None:
                theirs_possible.time(m.get_all_possible_orders)
            orders = {
                power: [rng.choice(possible[loc]) for loc in locs]
                for power, locs in g.get_orderable_locations().items()
            }
            phases.append(orders)
            ours.time(play_phase, g, orders)
            if m is not None:
                theirs.time(play_phase, m, orders)
                if m.get_current_phase() != g.phase and not (m.is_game_done and g.is_game_done):
                    break  # the engines part ways: the game ends here
    return (ours, theirs, ours_possible, theirs_possible), played


def replay(new_game, played, seed):
    """Replay the games' orders through one engine alone, as a bot's loop: possible
    orders, a pick from each place's (the bot's own work, not timed), set orders,
    process. Returns the clocks of the phases and of the possible orders."""
    rng = random.Random(seed)
    phases, possible = Clock(), Clock()
    for orders_by_phase in played:
        g = new_game()
        for orders in orders_by_phase:
            offered = possible.time(g.get_all_possible_orders)
            picks = [rng.choice(v) for v in offered.values() if v]
            del offered, picks  # let go before the next call, as when played in turn
            phases.time(play_phase, g, orders)
    return phases, possible


def bench_resolve(cases, cli, jobs):
    lines = shadowjudge.random_cases(cases, seed=1)
    dicts = [json.loads(line) for line in lines]
    text = "".join(line + "\n" for line in lines)
    out = {}
    best = lambda f: min(_timed(f) for _ in range(3))  # noqa: E731
    out["package, JSON lines"] = best(lambda: shadowjudge.resolve(lines, jobs=jobs))
    out["package, dicts"] = best(lambda: shadowjudge.resolve(dicts, jobs=jobs))
    if cli:
        run = lambda: subprocess.run(  # noqa: E731
            [cli, "resolve", "--jobs", str(jobs)], input=text, capture_output=True, text=True, check=True
        )
        out["command line"] = best(run)
        got = shadowjudge.resolve(lines, jobs=jobs)
        assert got == run().stdout.splitlines(), "the package and the command line disagree"
    return out


def _cpu():
    """CPU seconds of this process and of its children that ended."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _timed(f):
    start = _cpu()
    f()
    return _cpu() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--phases", type=int, default=40, help="at most this many phases a game")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--jobs", type=int, default=1)
    default_cli = os.environ.get("SHADOWJUDGE_CLI") or str(ROOT / "target" / "release" / "shadowjudge")
    ap.add_argument("--cli", default=default_cli)
    a = ap.parse_args()
    cli = a.cli if pathlib.Path(a.cli).exists() else None

    print(f"python {sys.version.split()[0]}, shadowjudge {shadowjudge.__version__}, "
          f"MILA diplomacy {diplomacy.__version__ if diplomacy and hasattr(diplomacy, '__version__') else ('installed' if diplomacy else 'not installed')}")
    (ours, theirs, op, tp), played = play_games(a.games, a.seed, a.phases)
    both = ", each played by both engines on the same orders" if diplomacy else ""
    print(f"\n{a.games} random standard games, {ours.count} phases{both}.")

    def show(title, ours, theirs, op, tp):
        print(f"\n{title}")
        print(f"  Game, set_orders + process    {ours.rate():12,.0f} phases/s")
        if theirs:
            print(f"  MILA, set_orders + process    {theirs.rate():12,.0f} phases/s   "
                  f"({ours.rate() / theirs.rate():,.1f}x)")
        print(f"  Game.get_all_possible_orders  {op.rate():12,.0f} calls/s")
        if tp:
            print(f"  MILA.get_all_possible_orders  {tp.rate():12,.0f} calls/s    "
                  f"({op.rate() / tp.rate():,.1f}x)")

    alone_ours, alone_op = replay(shadowjudge.Game, played, a.seed)
    alone_theirs, alone_tp = replay(diplomacy.Game, played, a.seed) if diplomacy else (None, None)
    title = "each engine alone, as a bot runs one:" if diplomacy else "alone, as a bot runs it:"
    show(title, alone_ours, alone_theirs, alone_op, alone_tp)
    if diplomacy:
        show("called in turn, each call right after the other engine's (caches cold):", ours, theirs, op, tp)

    times = bench_resolve(a.cases, cli, a.jobs)
    print(f"\nresolve, {a.cases:,} cases, jobs={a.jobs} (best of 3, CPU time)")
    for name, seconds in times.items():
        print(f"  {name:<22} {a.cases / seconds:12,.0f} cases/s  {seconds:8.3f} s")
    if "command line" in times:
        print(f"  package (JSON lines) / command line: {times['package, JSON lines'] / times['command line']:.2f}x the time")
    else:
        print(f"  (no command line at {a.cli}: build it with cargo build --release)")


if __name__ == "__main__":
    main()
