import csv

import pytest

from hybridsched import run_method
from hybridsched.bot_sites.checker import check, evaluate
from hybridsched.heuristics.bot_sites.greedy import GREEDY
from hybridsched.io.etc import read_etc

from .bot_helpers import BRAUN_NAMES
from .bot_naive import NAIVE, expand, same_schedule

#: Makespans published for these instances (Braun et al. 2001 and e.g. Xhafa et al.),
#: one decimal.
PUBLISHED_MIN_MIN = {
    "u_c_hihi.0": 8460675.0, "u_c_hilo.0": 161805.4, "u_c_lohi.0": 275837.3,
    "u_c_lolo.0": 5441.4, "u_i_hihi.0": 3513919.3, "u_i_hilo.0": 80755.7,
    "u_i_lohi.0": 120517.7, "u_i_lolo.0": 2785.6, "u_s_hihi.0": 5160343.0,
    "u_s_hilo.0": 104375.2, "u_s_lohi.0": 140284.5, "u_s_lolo.0": 3806.8,
}
PUBLISHED_MCT = {
    "u_c_hihi.0": 11422624.5, "u_c_hilo.0": 185887.4, "u_c_lohi.0": 378303.6,
    "u_c_lolo.0": 6360.1, "u_i_hihi.0": 4413582.9, "u_i_hilo.0": 94855.9,
    "u_i_lohi.0": 143816.1, "u_i_lolo.0": 3137.4, "u_s_hihi.0": 6693923.9,
    "u_s_hilo.0": 126587.6, "u_s_lohi.0": 186151.3, "u_s_lolo.0": 4436.1,
}


def test_min_min_u_c_hihi(braun):
    inst = read_etc(braun / "u_c_hihi.0")
    assert inst.n_bots == 512 and inst.n_sites == 16
    assert round(evaluate(inst, GREEDY["g-min-min"](inst)).objective, 1) == 8460675.0


@pytest.mark.parametrize("name", BRAUN_NAMES)
def test_published_makespans(braun, name):
    inst = read_etc(braun / name)
    for method, table in (("g-min-min", PUBLISHED_MIN_MIN), ("g-mct", PUBLISHED_MCT)):
        value = evaluate(inst, GREEDY[method](inst)).objective
        # Published with one decimal (rounded or truncated) or to the unit.
        assert value == pytest.approx(table[name], abs=max(0.1, 1e-7 * value)), method


@pytest.mark.parametrize("name", BRAUN_NAMES)
def test_one_pass_heuristics_equal_textbook(braun, name):
    inst = read_etc(braun / name)
    for method in ("g-met", "g-mct", "g-olb"):
        rows = sorted((j, s, k) for k, j, s in NAIVE[method](inst))
        assert same_schedule(expand(inst, GREEDY[method](inst)), rows), method


@pytest.mark.parametrize("method", ["g-min-min", "g-max-min", "g-sufferage"])
def test_batch_heuristics_equal_textbook_on_one_instance(braun, method):
    inst = read_etc(braun / "u_i_lohi.0")
    rows = sorted((j, s, k) for k, j, s in NAIVE[method](inst))
    assert same_schedule(expand(inst, GREEDY[method](inst)), rows)


@pytest.mark.slow
@pytest.mark.parametrize("name", BRAUN_NAMES)
def test_batch_heuristics_equal_textbook_everywhere(braun, name):
    inst = read_etc(braun / name)
    for method in ("g-min-min", "g-max-min", "g-sufferage"):
        rows = sorted((j, s, k) for k, j, s in NAIVE[method](inst))
        assert same_schedule(expand(inst, GREEDY[method](inst)), rows), method


def test_best_known_recorded(braun):
    inst = read_etc(braun / "u_c_hihi.0")
    with (braun / "best_known.csv").open() as handle:
        rows = {r["instance"]: float(r["best_known_makespan"]) for r in csv.DictReader(handle)}
    assert inst.reference["best_known_makespan"] == rows["u_c_hihi.0"]


@pytest.mark.slow
def test_exact_with_time_limit_on_u_c_hihi(braun):
    inst = read_etc(braun / "u_c_hihi.0")
    result = run_method("bot-sites", "exact", inst, time_limit=60)
    assert result.status.has_solution and check(inst, result.solution) == []
    assert result.bound <= inst.reference["best_known_makespan"] <= result.objective * (1 + 1e-9)
    # Never worse than its warm start, Min-min (8,460,675.003: published as 8,460,675.0).
    # Not "better than Min-min": whether HiGHS improves on it within 60 s depends on the
    # machine and its load (here it did not: 8,460,675.003 after 60 s, issue 17).
    assert result.objective <= evaluate(inst, GREEDY["g-min-min"](inst)).objective
