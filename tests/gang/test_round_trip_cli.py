"""Round trip: whatever ``generate gang`` and ``simulate gang`` write, ``validate`` accepts.

Over a grid of generator options at their extremes (no jobs, one VM, the
largest seed, arrival rates from 10^-3 to 10^9 jobs per time unit) and every
method, the exact one included; and instances at the edges of the time range,
where jobs start after time 10^9 (up to their due date, 2 x 10^9).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.cli.options import MAX_SEED
from hybridsched.gang.schema import MAX_TIME

METHODS = ["fifo", "cplmt", "fair", "asjs", "cmms"]

# (jobs, rate, scenario, vms, seed): extremes of every option, not a full product.
GRID = [
    (0, None, "table1", 120, 0),
    (1, None, "table2", 1, MAX_SEED),
    (30, 1e-3, "table1", 7, 3),
    (30, 1e9, "table2", 3, 4),
    (60, 5.0, "table1", 120, 5),
]


def run(cli, *argv) -> str:
    code, out, err = cli(*argv)
    assert code == 0, (argv, err)
    assert "Traceback" not in err
    return out


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("jobs", "rate", "scenario", "vms", "seed"), GRID,
                         ids=[f"{g[0]}-{g[1]}-{g[2]}-{g[3]}" for g in GRID])
def test_what_simulate_writes_validate_accepts(tmp_path: Path, cli, jobs: int,
                                               rate: float | None, scenario: str, vms: int,
                                               seed: int, method: str) -> None:
    inst, sched = tmp_path / "i.json", tmp_path / "s.json"
    options = ["--jobs", jobs, "--scenario", scenario, "--vms", vms, "--seed", seed,
               *([] if rate is None else ["--rate", rate])]
    run(cli, "simulate", "gang", *options, "--method", method, "--save-instance", inst,
        "-o", sched)
    assert "valid" in run(cli, "validate", inst, sched)
    again = tmp_path / "g.json"
    run(cli, "generate", "gang", *options, "-o", again)
    assert json.loads(again.read_text())["jobs"] == json.loads(inst.read_text())["jobs"]


def late_instance(tmp: Path) -> Path:
    """Jobs arriving at the last time accepted, with the longest deadlines, on one VM."""
    path = tmp / "late.json"
    path.write_text(json.dumps({
        "format": "hybridsched-instance", "version": 1, "family": "gang", "name": "late",
        "jobs": [{"id": f"j{k}", "arrival": MAX_TIME, "parallelism": 1, "instructions": 1e8,
                  "memory": 1, "bandwidth": 1, "deadline": MAX_TIME} for k in range(4)],
        "vms": [{"id": "v0", "speed": 1, "memory": 1, "bandwidth": 1}]}))
    return path


@pytest.mark.parametrize("method", [*METHODS, "exact"])
def test_jobs_that_start_after_the_last_arrival_time_round_trip(tmp_path: Path, cli,
                                                                method: str) -> None:
    """Starts pass 10^9 (a job waits for the VM) and stay below the due date."""
    inst, sched = late_instance(tmp_path), tmp_path / "s.json"
    run(cli, "solve", inst, "--method", method, "--time-limit", 5, "-o", sched)
    assert "valid" in run(cli, "validate", inst, sched)
    starts = [s["start"] for s in json.loads(sched.read_text())["started"]]
    assert max(starts) > MAX_TIME


@pytest.mark.parametrize("jobs", [0, 4])
def test_what_the_exact_method_writes_validate_accepts(tmp_path: Path, cli, jobs: int) -> None:
    inst, sol = tmp_path / "i.json", tmp_path / "s.json"
    run(cli, "generate", "gang", "--jobs", jobs, "--vms", 3, "--seed", 2, "-o", inst)
    run(cli, "solve", inst, "--method", "exact", "--time-limit", 0, "-o", sol)
    assert "valid" in run(cli, "validate", inst, sol)


@settings(max_examples=25, deadline=None)
@given(jobs=st.integers(0, 40), rate=st.floats(1e-2, 1e6), vms=st.integers(1, 12),
       scenario=st.sampled_from(["table1", "table2"]), seed=st.integers(0, MAX_SEED),
       method=st.sampled_from(METHODS))
def test_generated_files_round_trip_through_json(jobs: int, rate: float, vms: int,
                                                 scenario: str, seed: int, method: str) -> None:
    """The same property without the command line: more draws, in process."""
    from hybridsched.gang import check, files
    from hybridsched.gang.generator import generate
    from hybridsched.registry import run_method

    instance = generate(jobs, rate, scenario, seed, vms=vms)
    again = files.instance_from_dict(json.loads(json.dumps(files.instance_to_dict(instance))))
    result = run_method("gang", method, again)
    document = json.loads(json.dumps(files.solution_to_dict(result.solution, again)))
    assert check(again, files.solution_from_dict(document, again)) == []


def test_validate_refuses_a_misstated_claim_or_log_and_bad_records(tmp_path: Path, cli) -> None:
    """A wrong claim or log is a violation (exit 1); a record it could not write, bad input (2)."""
    inst, sched = tmp_path / "i.json", tmp_path / "s.json"
    run(cli, "simulate", "gang", "--jobs", 30, "--rate", 8, "--seed", 3, "--method", "fair",
        "--save-instance", inst, "-o", sched)
    good = json.loads(sched.read_text())
    assert good["dropped"] and good["events"] and good["objective"] == good["unfinished"]

    def validate(change) -> tuple[int, str, str]:
        document = json.loads(json.dumps(good))
        change(document)
        path = tmp_path / "mutant.json"
        path.write_text(json.dumps(document))
        code, out, err = cli("validate", inst, path)
        assert "Traceback" not in err
        return code, out, err

    for change, reason in [
        (lambda d: d.update(objective=d["objective"] + 1), "objective"),
        (lambda d: d.update(ave=d["ave"] + 0.5), "ave"),
        (lambda d: d["events"].pop(), "records of job"),
        (lambda d: d["events"][0].update(time=d["events"][0]["time"] + 0.5), "arrives at"),
    ]:
        code, out, err = validate(change)
        lines = out.strip().splitlines()
        assert code == 1 and "INVALID" in err and len(err.strip().splitlines()) == 1, err
        assert reason in lines[0], out
        # A claim alone misstated: the one reason naming it.
        assert len(lines) == 1 or reason not in ("objective", "ave"), out
    for change, field in [
        (lambda d: d["dropped"].append(d["dropped"][0]), "dropped."),
        (lambda d: d["dropped"][0].update(job="ghost"), "dropped.0.job"),
        (lambda d: d["events"][1].pop("job"), "events.1.job"),
        (lambda d: d["events"][0].update(time="soon"), "events.0.time"),
        (lambda d: d["events"][0].update(event="explode"), "events.0.event"),
    ]:
        code, _, err = validate(change)
        assert code == 2 and len(err.strip().splitlines()) == 1 and field in err, err
