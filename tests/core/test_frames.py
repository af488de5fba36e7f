"""Schedules and results as pandas DataFrames: one row per assignment, the solution's values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hybridsched import load_instance, run_method
from hybridsched.result import Result, Status

LIBRARY = Path(__file__).resolve().parents[2] / "instances"

#: Per family: a library file, a method, the solution's row count and its base columns.
CASES = {
    "hybrid-deadline": ("hybrid-deadline/small-01.json", "cdf+ra", lambda s: len(s.machine),
                        ["task", "machine", "core", "start_h", "finish_h", "duration_h"]),
    "bot-sites": ("bot-sites/small-hihi-i-3s-4b.json", "gmo", lambda s: s.n_blocks,
                  ["block", "bot", "site", "proc", "count", "start_s"]),
    "gang": ("gang/small-12.json", "cplmt", lambda s: len(s.task_job),
             ["task", "job", "vm", "start"]),
    "malleable": ("malleable/batch-05.json", "round-robin", lambda s: s.n_pieces,
                  ["piece", "job", "resource", "start_min", "end_min", "duration_min",
                   "first_cpu", "cpus"]),
    "pull": ("pull/small-s1.json", "promethee", lambda s: s.n_tasks,
             ["task", "unit", "host", "start_s", "end_s", "duration_s", "delay", "outcome"]),
}
#: The columns an instance adds.
WITH_INSTANCE = {
    "hybrid-deadline": ["task_id", "job_id", "machine_id", "machine_kind", "machine_type",
                        "capacity_ghz", "deadline_h"],
    "bot-sites": ["bot_id", "site_id", "task_s", "end_s", "cost"],
    "gang": ["job_id", "vm_id", "duration", "end", "arrival", "due"],
    "malleable": ["job_id", "resource_id", "arrival_min", "deadline_min"],
    "pull": ["unit_id", "host_id", "dci"],
}


@pytest.fixture(scope="module", params=sorted(CASES))
def solved(request):
    family_name = request.param
    path, method, _, _ = CASES[family_name]
    family, instance = load_instance(LIBRARY / path)
    return family_name, instance, run_method(family.name, method, instance, rng=1)


def test_rows_and_columns_are_the_solutions(solved):
    family, instance, result = solved
    _, _, count, columns = CASES[family]
    bare = result.solution.to_frame()
    assert list(bare.columns) == columns and len(bare) == count(result.solution) > 0
    full = result.solution.to_frame(instance)
    assert list(full.columns) == columns + WITH_INSTANCE[family]
    pd.testing.assert_frame_equal(full[columns], bare)


def test_hybrid_deadline_rows_hold_the_assignment():
    family, instance = load_instance(LIBRARY / CASES["hybrid-deadline"][0])
    solution = run_method(family.name, "cdf+ra", instance).solution
    frame = solution.to_frame(instance)
    assert np.array_equal(frame["machine"], solution.machine)
    assert np.array_equal(frame["start_h"], solution.start)
    assert list(frame["task_id"]) == list(instance.task_ids)
    assert (frame["finish_h"] <= frame["deadline_h"] + 1e-9).all()
    pms = {pm.id for pm in instance.pms}
    kinds = dict(zip(frame["machine_id"], frame["machine_kind"], strict=True))
    assert all((kind == "pm") == (machine in pms) for machine, kind in kinds.items())


def test_bot_sites_blocks_add_up_to_the_tasks_and_the_cost():
    family, instance = load_instance(LIBRARY / CASES["bot-sites"][0])
    result = run_method(family.name, "g-min-min", instance)
    frame = result.solution.to_frame(instance)
    assert frame.groupby("bot_id")["count"].sum().to_dict() == dict(
        zip(instance.bot_ids, instance.tasks.tolist(), strict=True))
    assert frame["cost"].sum() == pytest.approx(result.metrics["cost"])
    assert frame["end_s"].max() == pytest.approx(result.metrics["makespan"])


def test_gang_tasks_start_with_their_job():
    family, instance = load_instance(LIBRARY / CASES["gang"][0])
    solution = run_method(family.name, "fifo", instance).solution
    frame = solution.to_frame(instance)
    assert np.array_equal(frame["start"], solution.start[solution.task_job])
    assert (frame.groupby("job")["vm"].count().to_numpy()
            == instance.parallelism[sorted(set(solution.task_job.tolist()))]).all()


def test_pull_outcomes_are_named():
    family, instance = load_instance(LIBRARY / CASES["pull"][0])
    solution = run_method(family.name, "fcfs", instance).solution
    frame = solution.to_frame(instance)
    assert list(frame["outcome"].cat.codes) == solution.outcome.tolist()
    assert list(frame["host_id"]) == [instance.host_ids[h] for h in solution.host]


def test_result_frames_concatenate_with_the_run_labels(solved):
    family, instance, result = solved
    frame = result.to_frame(instance)
    assert list(frame.columns[:3]) == ["method", "family", "seed"]
    assert set(frame["method"]) == {result.method} and set(frame["seed"]) == {1}
    assert len(frame) == len(result.solution.to_frame())
    empty = Result("none", family, Status.NO_SOLUTION).to_frame()
    assert list(empty.columns) == ["method", "family", "seed"] and empty.empty
    assert len(pd.concat([frame, empty])) == len(frame)


def test_a_solution_without_to_frame_is_a_clear_error():
    with pytest.raises(TypeError, match="no to_frame"):
        Result("m", "toy", Status.FEASIBLE, solution=object()).to_frame()
