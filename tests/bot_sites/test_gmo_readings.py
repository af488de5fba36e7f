"""GMO's readings of the paper as options, and the fairness readings of the checker (issue 19)."""

import numpy as np
import pytest

from hybridsched import run_method
from hybridsched.bot_sites.checker import check, evaluate, workflows
from hybridsched.bot_sites.generator import generate
from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.solution import Solution
from hybridsched.errors import InputError
from hybridsched.heuristics.bot_sites.gmo import gmo
from hybridsched.registry import check_options

FIELDS = ("bot", "site", "proc", "count", "start")

#: Each reading away from its (literal) default.
OTHER = [{"regame": "idle"}, {"placement": "shared"}, {"utility": "objective"},
         {"threshold": "relative"}, {"keep": "best"}, {"moves": "sequential"},
         {"epsilon": 1.0}, {"max_stages": 2}]


def _same(a: Solution, b: Solution) -> bool:
    return all(np.array_equal(getattr(a, n), getattr(b, n)) for n in FIELDS)


@pytest.mark.parametrize("options", OTHER, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_each_reading_changes_the_schedule(options):
    inst = generate(sites=3, bots=4, tasks_per_bot=(20, 40), procs_per_site=(2, 4), seed=3,
                    dependency=0.0)
    default, other = gmo(inst), gmo(inst, **options)
    assert check(inst, default) == [] and check(inst, other) == []
    assert not _same(default, other)
    for key, value in options.items():
        if key in other.notes:
            assert other.notes[key] == value


def test_defaults_are_the_literal_readings():
    notes = gmo(generate(sites=2, bots=2, tasks_per_bot=(5, 9), procs_per_site=(1, 3))).notes
    assert {k: notes[k] for k in ("placement", "regame", "utility", "threshold", "keep",
                                  "moves")} == {
        "placement": "dedicated", "regame": "completion", "utility": "sum",
        "threshold": "absolute", "keep": "last", "moves": "simultaneous"}


def test_dedicated_processors_run_one_bot_per_game():
    # Without DAG edges and with regame="completion", the first game's plan runs until the
    # first BoT completes: before then every processor serves a single BoT.
    inst = generate(sites=3, bots=4, tasks_per_bot=(20, 40), procs_per_site=(2, 4), seed=3,
                    dependency=0.0)
    sol = gmo(inst)
    end = sol.start + sol.count * inst.p[sol.bot, sol.site]
    first = min(end[sol.bot == k].max() for k in range(inst.n_bots))
    early = sol.start < first
    glob = inst.proc_offset[sol.site] + sol.proc
    for j in np.unique(glob[early]):
        assert len(set(sol.bot[early & (glob == j)].tolist())) == 1
    shared = gmo(inst, placement="shared")
    sglob = inst.proc_offset[shared.site] + shared.proc
    assert any(len(set(shared.bot[sglob == j].tolist())) > 1 for j in np.unique(sglob))


@pytest.mark.parametrize(("options", "needle"), [
    ({"regame": "sometimes"}, "option --regame"),
    ({"placement": "mixed"}, "option --placement"),
    ({"utility": "product"}, "option --utility"),
    ({"threshold": "both"}, "option --threshold"),
    ({"keep": "first"}, "option --keep"),
    ({"moves": "random"}, "option --moves"),
    ({"epsilon": -1.0}, "option --epsilon"),
    ({"epsilon": float("nan")}, "option --epsilon"),
    ({"epsilon": "small"}, "option --epsilon"),
    ({"max_stages": 0}, "option --max-stages"),
    ({"max_stages": 2.5}, "option --max-stages"),
    ({"max_stages": True}, "option --max-stages"),
])
def test_bad_values_are_refused_before_any_run(options, needle):
    with pytest.raises(InputError) as err:
        check_options("bot-sites", "gmo", options)
    message = str(err.value)
    assert needle in message and "\n" not in message
    inst = generate(sites=2, bots=2, tasks_per_bot=(5, 9), procs_per_site=(1, 3))
    with pytest.raises(InputError):
        run_method("bot-sites", "gmo", inst, **options)


def test_good_values_pass_the_check():
    check_options("bot-sites", "gmo", {"regame": "idle", "placement": "shared",
                                       "utility": "objective", "threshold": "relative",
                                       "keep": "best", "moves": "sequential", "epsilon": 0,
                                       "max_stages": 5, "objective": "cost"})


def test_fairness_readings_on_a_crafted_schedule():
    # One processor; BoT b1 follows b0 (one workflow), b2 is alone (another workflow).
    inst = Instance(name="fair", bot_ids=("b0", "b1", "b2"), site_ids=("s0",),
                    tasks=[1, 1, 2], procs=[1], price=[0.0], compute=[[1.0], [1.0], [1.0]],
                    edges=[(0, 1)])
    sol = Solution(np.array([0, 1, 2]), np.zeros(3, dtype=int), np.zeros(3, dtype=int),
                   np.array([1, 1, 2]), np.array([0.0, 1.0, 2.0]))
    assert check(inst, sol) == []
    assert workflows(inst).tolist() == [0, 0, 1]
    metrics = evaluate(inst, sol).metrics
    # Completions 1, 2, 4; workflows end at 2 and 4; executions (after release) 1, 1, 4;
    # alone on the platform 1, 1, 2, so slowdowns 1, 1, 2.
    assert metrics["jain_fairness"] == pytest.approx(6**2 / (2 * (2**2 + 4**2)))
    assert metrics["jain_fairness_bots"] == pytest.approx(7**2 / (3 * (1 + 4 + 16)))
    assert metrics["jain_fairness_execution"] == pytest.approx(6**2 / (3 * (1 + 1 + 16)))
    assert metrics["jain_fairness_slowdown"] == pytest.approx(4**2 / (3 * (1 + 1 + 4)))
