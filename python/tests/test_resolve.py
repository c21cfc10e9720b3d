import json

import pytest

import shadowjudge


def cli_resolve(cli, lines, *args):
    out = cli("resolve", *args, input="".join(line + "\n" for line in lines))
    return out.splitlines()


def test_random_cases_match_the_command_line(cli):
    lines = shadowjudge.random_cases(500, seed=7)
    assert shadowjudge.resolve(lines) == cli_resolve(cli, lines)


def test_dicts_give_dicts_equal_to_the_command_line(cli):
    lines = shadowjudge.random_cases(200, seed=11)
    got = shadowjudge.resolve([json.loads(line) for line in lines])
    assert got == [json.loads(line) for line in cli_resolve(cli, lines)]
    assert all(isinstance(r, dict) for r in got)


@pytest.mark.parametrize("jobs", [0, 2, 3, 64])
def test_jobs_never_change_the_results(jobs):
    lines = shadowjudge.random_cases(301, seed=3)
    assert shadowjudge.resolve(lines, jobs=jobs) == shadowjudge.resolve(lines)


def test_bad_cases_get_their_error_in_place(cli):
    cases = [
        '{"id": "ok", "units": [{"power": "FRANCE", "type": "A", "loc": "PAR"}], "orders": ["A PAR - BUR"]}',
        '{"id": "nojson", ',
        '{"id": 5, "units": [{"power": "ATLANTIS", "type": "A", "loc": "PAR"}]}',
        '{"id": "two", "units": [{"power": "FRANCE", "type": "A", "loc": "PAR"},'
        ' {"power": "GERMANY", "type": "A", "loc": "PAR"}]}',
        '{"id": "bad order", "units": [], "orders": ["FRANCE: A PAR flies to the moon"]}',
    ]
    got = shadowjudge.resolve(cases)
    assert got == cli_resolve(cli, cases)
    assert "error" in json.loads(got[2]) and json.loads(got[0])["orders"][0]["result"] == "succeeds"


def test_mixed_items_keep_their_kind_and_order():
    line = shadowjudge.random_cases(1, seed=5)[0]
    got = shadowjudge.resolve([line, json.loads(line), line])
    assert got[0] == got[2] and json.loads(got[0]) == got[1]


def test_rulebook_is_the_command_lines(cli):
    lines = shadowjudge.random_cases(100, seed=13)
    for edition in ("1971", "dptg"):
        got = shadowjudge.resolve(lines, rulebook=edition)
        assert got == cli_resolve(cli, lines, "--rulebook", edition)


def test_wrong_arguments_say_what_is_wrong():
    with pytest.raises(ValueError, match="unknown rulebook `1999`"):
        shadowjudge.resolve([], rulebook="1999")
    with pytest.raises(TypeError, match="case 1: a case is a dict or a JSON line"):
        shadowjudge.resolve(["{}", 3])


def test_other_threads_run_while_it_works():
    import threading
    import time

    lines = shadowjudge.random_cases(20000, seed=1)
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    try:
        start = time.perf_counter()
        shadowjudge.resolve(lines)
        end = time.perf_counter()
    finally:
        stop.set()
        t.join()
    during = [x for x in ticks if start < x < end]
    # Holding the GIL, the other thread would not tick at all until resolve returned.
    assert len(during) >= 3, f"{len(during)} ticks in {end - start:.3f} s"
