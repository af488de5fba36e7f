"""The gang family so far: files, checker by hand, online FIFO and CMMS, command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched import run_method
from hybridsched.errors import InputError
from hybridsched.gang import files
from hybridsched.gang.checker import check, evaluate
from hybridsched.gang.generator import generate
from hybridsched.gang.instance import Instance
from hybridsched.gang.solution import from_starts

METHODS = ("cplmt", "fifo", "fair", "asjs", "cmms")


def tiny() -> Instance:
    """Two VMs (speeds 1 and 2, memory 2 and 4); three jobs."""
    return Instance(
        "tiny", ("a", "b", "c"), arrival=np.array([0.0, 0.0, 1.0]),
        parallelism=np.array([2, 1, 1]), instructions=np.array([2.0, 2.0, 4.0]),
        memory=np.array([1.0, 3.0, 1.0]), bandwidth=np.ones(3), disk=np.zeros(3),
        deadline=np.array([3.0, 2.0, 2.0]), vm_ids=("v0", "v1"), speed=np.array([1.0, 2.0]),
        vm_memory=np.array([2.0, 4.0]), vm_bandwidth=np.ones(2) * 5, vm_disk=np.full(2, np.inf))


def test_checker_rules_and_metrics_by_hand() -> None:
    instance = tiny()
    # a on both VMs at 0 (ends at 2 = max(2/1, 2/2)); b on v1 at 1 (memory 3 needs v1):
    # ends at 2 <= 0 + 2; c dropped.
    good = from_starts(3, {0: (0.0, [0, 1]), 1: (1.0, [1])}, {2: "too slow"})
    assert check(instance, good) == []
    m = evaluate(instance, good).metrics
    assert (m["unfinished"], m["finished"]) == (1, 2)
    assert m["awt"] == pytest.approx(0.5) and m["ave"] == pytest.approx((2 + 2) / 2)
    assert m["sin"] == pytest.approx(2 * 2 + 2)
    bad = {
        "VM 'v1' runs job": from_starts(3, {0: (0.0, [0, 1]), 1: (0.5, [1])}, {2: ""}),
        "does not meet": from_starts(3, {1: (0.0, [0])}, {0: "", 2: ""}),
        "distinct VMs": from_starts(3, {0: (0.0, [1, 1])}, {1: "", 2: ""}),
        "before its arrival": from_starts(3, {2: (0.5, [1])}, {0: "", 1: ""}),
        "after its deadline": from_starts(3, {2: (1.0, [0])}, {0: "", 1: ""}),
        "neither started nor dropped": from_starts(3, {}, {0: ""}),
    }
    for words, solution in bad.items():
        problems = check(instance, solution)
        assert any(words in p for p in problems), (words, problems)


@pytest.mark.parametrize("scenario", ["table1", "table2"])
@pytest.mark.parametrize("method", METHODS)
def test_online_schedules_are_valid_and_deterministic(scenario: str, method: str) -> None:
    instance = generate(400, 20.0, scenario, seed=2)
    first = run_method("gang", method, instance)
    again = run_method("gang", method, instance)
    assert check(instance, first.solution) == []
    assert first.solution.events == again.solution.events
    assert first.objective == evaluate(instance, first.solution).metrics["unfinished"]
    from hybridsched.gang import lower_bound

    assert first.objective >= lower_bound(instance)


@settings(max_examples=25, deadline=None)
@given(jobs=st.integers(0, 60), rate=st.floats(0.5, 50), seed=st.integers(0, 10**6),
       method=st.sampled_from(METHODS))
def test_random_workloads_give_valid_schedules(jobs: int, rate: float, seed: int,
                                               method: str) -> None:
    instance = generate(jobs, rate, "table1", seed, vms=12)
    result = run_method("gang", method, instance)
    assert check(instance, result.solution) == []
    dropped_by_size = (instance.fits().sum(axis=1) < instance.parallelism)
    assert all(int(j) in result.solution.dropped for j in np.flatnonzero(dropped_by_size))


def test_files_round_trip_and_bad_documents(tmp_path: Path) -> None:
    instance = generate(30, 5.0, "table1", seed=1, vms=10)
    again = files.instance_from_dict(files.instance_to_dict(instance))
    assert np.array_equal(again.arrival, instance.arrival)
    assert np.array_equal(again.speed, instance.speed)
    result = run_method("gang", "cmms", again)
    document = files.solution_to_dict(result.solution, again, method="cmms")
    assert check(again, files.solution_from_dict(document, again)) == []
    base = files.instance_to_dict(instance)
    for path, value, words in [(("jobs", 0, "parallelism"), 0, "parallelism"),
                               (("jobs", 0, "memory"), -1, "memory"),
                               (("vms", 0, "speed"), 0, "speed"),
                               (("jobs", 0, "deadline"), 0, "deadline")]:
        document = json.loads(json.dumps(base))
        document[path[0]][path[1]][path[2]] = value
        with pytest.raises(InputError, match=words) as caught:
            files.instance_from_dict(document, "x.json")
        assert "\n" not in str(caught.value)


def test_command_line_round_trip_and_bad_input(tmp_path: Path, cli) -> None:
    inst, sched = tmp_path / "g.json", tmp_path / "s.json"
    assert cli("generate", "gang", "--jobs", "80", "--rate", "8", "--seed", "3", "-o",
               inst)[0] == 0
    code, out, _ = cli("simulate", "gang", inst, "--method", "cmms", "-o", sched, "--json")
    assert code == 0 and json.loads(out)["status"] == "feasible"
    assert cli("validate", inst, sched)[0] == 0
    assert cli("gantt", inst, sched, "-o", tmp_path / "g.png")[0] == 0
    for argv, fragment in [
        (("simulate", "gang", "--method", "nope"), "unknown method"),
        (("simulate", "gang", "--rate", "0"), "--rate"),
        (("simulate", "gang", "--scenario", "table9"), "--scenario"),
        (("simulate", "gang", inst, "--jobs", "3"), "--jobs"),
        (("generate", "gang", "--vms", "0", "-o", tmp_path / "x.json"), "--vms"),
    ]:
        code, _, err = cli(*argv)
        assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, err


def test_cplmt_serves_the_scarce_job_first() -> None:
    """Two jobs fit on one fast VM only; the one only that VM can host goes first."""
    instance = Instance(
        "scarce", ("easy", "hard"), arrival=np.zeros(2), parallelism=np.array([1, 1]),
        instructions=np.array([2.0, 2.0]), memory=np.array([1.0, 4.0]),
        bandwidth=np.ones(2), disk=np.zeros(2), deadline=np.array([2.0, 2.0]),
        vm_ids=("slow", "big"), speed=np.array([1.0, 1.0]), vm_memory=np.array([1.0, 4.0]),
        vm_bandwidth=np.ones(2), vm_disk=np.full(2, np.inf))
    result = run_method("gang", "cplmt", instance)
    assert result.objective == 0  # easy on the slow VM, hard on the big one
    fifo_result = run_method("gang", "fifo", instance)
    assert check(instance, fifo_result.solution) == []


def test_swf_records_become_gang_jobs(tmp_path: Path, cli) -> None:
    header = "; Computer: test\n"
    lines = ["1 0 5 120 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
             "2 60 5 -1 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",       # no run time
             "3 120 5 600 300 -1 -1 300 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"]  # wider than 128
    trace = tmp_path / "t.swf"
    trace.write_text(header + "".join(lines))
    out = tmp_path / "g.json"
    code, _, err = cli("import-swf", trace, "--family", "gang", "--deadline-factor", "3",
                       "-o", out)
    assert code == 0, err
    family, instance = __import__("hybridsched").load_instance(out)
    assert family.name == "gang" and instance.n_jobs == 2
    assert list(instance.parallelism) == [4, 300]
    assert instance.instructions[0] == pytest.approx(2.0)      # 120 s in minutes
    assert instance.deadline[0] == pytest.approx(6.0)          # 3 x run time
    assert instance.arrival[1] == pytest.approx(2.0)
    result = run_method("gang", "cplmt", instance)
    assert result.objective == 1 and "needs 300" in result.solution.dropped[1]
    code, _, err = cli("import-swf", trace, "--family", "gang", "--alpha", "2", "-o", out)
    assert code == 2 and "--alpha" in err


@pytest.mark.parametrize("where, value, fragment", [
    (("vms", 0, "speed"), 0, "vms.0.speed"),
    (("vms", 1, "memory"), -2, "vms.1.memory"),
    (("jobs", 2, "parallelism"), 0, "jobs.2.parallelism"),
    (("jobs", 2, "instructions"), "9", "jobs.2.instructions"),
    (("jobs", 2, "bandwidth"), 0, "jobs.2.bandwidth"),
    (("jobs", 3, "arrival"), -1, "jobs.3.arrival"),
])
def test_bad_instance_files_are_one_line_errors(tmp_path: Path, cli, where, value,
                                                fragment: str) -> None:
    document = files.instance_to_dict(generate(5, 2.0, "table1", seed=0, vms=4))
    document[where[0]][where[1]][where[2]] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    code, _, err = cli("simulate", "gang", path, "--method", "cplmt")
    assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, err


def test_sizes_and_rates_beyond_the_limits_are_one_line_errors(cli) -> None:
    for argv, fragment in [(("simulate", "gang", "--jobs", "1000000", "--vms", "100000"),
                            "(job, VM) pairs"),
                           (("simulate", "gang", "--jobs", "10", "--rate", "1e-8"),
                            "too low"),
                           (("simulate", "malleable", "--jobs", "1000000", "--tree",
                             str(Path(__file__).parents[2] / "examples" / "trees"
                                 / "hundred-leaves.toml")), "(job, resource) pairs")]:
        code, _, err = cli(*argv)
        assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, err


def test_cplmt_assigns_the_vms_nearest_the_standard_below_it_first() -> None:
    from hybridsched.heuristics.gang.cplmt import _assign

    times = np.array([1.0, 2.0, 3.0, 5.0, 6.0])
    usable = np.ones(5, dtype=bool)
    assert list(_assign(times, usable, 2, 3.0)) == [1, 2]      # 2.0 and 3.0, not 5.0
    assert list(_assign(times, usable, 4, 3.0)) == [0, 1, 2, 3]  # then the nearest above
    usable[[1, 2]] = False
    assert list(_assign(times, usable, 2, 3.0)) == [0, 3]
