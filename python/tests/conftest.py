"""The command line the package is checked against: SHADOWJUDGE_CLI, or the crate's build."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def find_cli():
    given = os.environ.get("SHADOWJUDGE_CLI")
    if given:
        return given
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "shadowjudge"
        if path.exists():
            return str(path)
    return None


@pytest.fixture(scope="session")
def cli():
    path = find_cli()
    if path is None:
        pytest.skip("no shadowjudge command line: build the crate or set SHADOWJUDGE_CLI")

    def run(*args, input=None, cwd=None, fails=False):
        """Standard output; `fails`: the command is expected to end in failure."""
        done = subprocess.run(
            [path, *args], input=input, cwd=cwd, capture_output=True, text=True, check=False
        )
        assert (done.returncode != 0) == fails, f"shadowjudge {' '.join(args)}: {done.stderr}"
        return done.stdout

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    return lambda *args, **kw: json.loads(cli(*args, **kw))
