"""The benchmark runs as its docstring says, and prints what it says it measures."""

import pathlib
import subprocess
import sys

from conftest import find_cli

BENCH = pathlib.Path(__file__).resolve().parents[1] / "bench.py"


def test_the_benchmark_runs_and_prints_each_figure(tmp_path):
    cli = find_cli() or "/nonexistent"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--games", "2", "--phases", "3", "--cases", "30", "--cli", cli],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "2 random standard games, " in out, out
    alone = out.split(" as a bot runs ")[1]
    assert "Game, set_orders + process" in alone and "Game.get_all_possible_orders" in alone, out
    assert "resolve, 30 cases" in out and "package, dicts" in out, out
    if cli != "/nonexistent":
        assert "package (JSON lines) / command line:" in out, out
