"""Instance/solution files, the JSON schema, and the SWF importer."""

import gzip
import json
import subprocess
import sys

import numpy as np
import pytest

from hybridsched import get_family, load_instance, load_solution, save_instance, save_solution
from hybridsched.errors import InputError
from hybridsched.heuristics.hybrid_deadline.cdf import cdf
from hybridsched.hybrid_deadline.generator import generate
from hybridsched.hybrid_deadline.trace import instance_from_trace
from hybridsched.io.swf import read_swf

FAMILY = get_family("hybrid-deadline")


def test_instance_and_solution_round_trip(tmp_path):
    instance = generate(12, "mixed", 1)
    save_instance(tmp_path / "i.json", FAMILY, instance)
    family, again = load_instance(tmp_path / "i.json")
    assert family is FAMILY
    assert again.task_ids == instance.task_ids and again.pms == instance.pms
    assert np.array_equal(again.work, instance.work)
    assert np.array_equal(again.deadline, instance.deadline)
    solution = cdf(instance)
    save_solution(tmp_path / "s.json", FAMILY, instance, solution, method="cdf")
    loaded = load_solution(tmp_path / "s.json", FAMILY, again)
    assert FAMILY.check(again, loaded) == []
    assert FAMILY.evaluate(again, loaded).objective == FAMILY.evaluate(instance, solution).objective


def write(tmp_path, document, name="bad.json"):
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def base_document():
    return {"format": "hybridsched-instance", "version": 1, "family": "hybrid-deadline",
            "jobs": [{"id": "j", "deadline": 1.0, "tasks": [{"id": "t", "work": 1.0}]}],
            "pms": [{"id": "p", "cores": 2, "capacity": 2.0}],
            "vm_types": [{"id": "v", "cores": 2, "capacity": 2.7, "price": 0.105}]}


@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda d: d["jobs"][0]["tasks"][0].update(work=-1), "jobs.0.tasks.0.work"),
        (lambda d: d["pms"][0].update(capacity=0), "pms.0.capacity"),
        (lambda d: d["pms"][0].update(cores=-2), "pms.0.cores"),
        (lambda d: d["vm_types"][0].update(price="cheap"), "vm_types.0.price"),
        (lambda d: d["jobs"].append(d["jobs"][0]), "duplicate jobs id"),
        (lambda d: d.update(colour="blue"), "colour"),
        (lambda d: d.pop("family"), "field family"),
        (lambda d: d.update(family="nope"), "unknown family"),
    ],
)
def test_bad_fields_are_named(tmp_path, mutate, fragment):
    document = base_document()
    mutate(document)
    with pytest.raises(InputError) as info:
        load_instance(write(tmp_path, document))
    message = str(info.value)
    assert fragment in message and "bad.json" in message and "\n" not in message


def test_malformed_json_names_line_and_column(tmp_path):
    with pytest.raises(InputError, match=r"bad\.json:2:\d+: malformed JSON"):
        load_instance(write(tmp_path, '{"family":\n  oops}'))


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_instance(tmp_path / "nothing.json")


def test_solution_naming_unknown_task_is_rejected(tmp_path):
    instance = generate(5, 2, 0)
    save_solution(tmp_path / "s.json", FAMILY, instance, cdf(instance))
    document = json.loads((tmp_path / "s.json").read_text())
    document["assignments"][0]["task"] = "ghost"
    with pytest.raises(InputError, match="assignments.0.task: unknown task 'ghost'"):
        load_solution(write(tmp_path, document, "s2.json"), FAMILY, instance)


SWF = """; Computer: Test Machine
; MaxJobs: 4
1 0 -1 3600 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1 -1 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1
3 4000 -1 1800 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1
4 4100 -1 7200 -1 -1 -1 3 -1 -1 1 1 1 -1 -1 -1 -1 -1
"""


@pytest.fixture
def swf_path(tmp_path):
    path = tmp_path / "t.swf.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(SWF)
    return path


def test_swf_records_become_tasks(swf_path):
    trace = read_swf(swf_path)
    assert trace.header_fields()["Computer"] == "Test Machine"
    imported = instance_from_trace(trace, alpha=2)
    assert imported.skipped_records == 1  # record 2 has no run time
    inst = imported.instance
    assert inst.task_ids == ("r1", "r3", "r4")
    assert np.allclose(inst.work, [1.0, 0.5, 2.0])
    assert np.allclose(inst.deadline, [1.0, 0.5, 2.0])  # 2 x run time on a 2 GHz core
    assert len(inst.pms) == 15 and inst.vm_types[0].id == "c3.large"


def test_swf_grouping_options(swf_path):
    trace = read_swf(swf_path)
    by_job = instance_from_trace(trace, grouping="job").instance
    assert by_job.n_tasks == 2 + 1 + 3  # processors: allocated, else requested
    window = instance_from_trace(trace, grouping="window", window_s=3600).instance
    assert window.task_job == ("w0", "w1", "w1")
    assert np.allclose(window.deadline, [0.5, 1.0, 1.0])  # job deadline from its longest task
    assert instance_from_trace(trace, limit=2).instance.n_tasks == 2


def test_swf_windows_by_skip_and_limit_and_by_days(swf_path, tmp_path):
    trace = read_swf(swf_path)
    assert instance_from_trace(trace, skip=1, limit=1).instance.task_ids == ("r3",)
    assert instance_from_trace(trace, skip=2).instance.task_ids == ("r4",)
    with pytest.raises(InputError, match="no usable record after skipping 3"):
        instance_from_trace(trace, skip=5)
    submits = [r.submit_time for r in trace.records]
    within = (submits[2] - submits[0]) / 86_400  # keeps records 1-3 (2 has no run time)
    assert instance_from_trace(trace, days=within).instance.task_ids == ("r1", "r3")
    for bad, words in (({"skip": -1}, "^skip: must be >= 0"),
                       ({"days": 0.0}, "^days: must be a finite number > 0")):
        with pytest.raises(InputError, match=words):
            instance_from_trace(trace, **bad)
    # The command line and a campaign's importer options cut the same window.
    from hybridsched.experiments.sources import import_source

    source = import_source("swf", swf_path, {"skip": 1, "limit": 1})
    assert source.load()[1].task_ids == ("r3",) and "-k1-l1" in source.load()[1].name
    out = tmp_path / "w.json"
    ran = subprocess.run([sys.executable, "-m", "hybridsched", "import-swf", str(swf_path),
                          "-o", str(out), "--skip", "1", "--limit", "1"],
                         capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert load_instance(out)[1].task_ids == ("r3",)


def test_malformed_swf_line(tmp_path):
    path = tmp_path / "bad.swf"
    path.write_text("; header\n1 0 -1 10 1\n")
    with pytest.raises(InputError, match=r"bad\.swf:2: malformed SWF record: expected 18"):
        read_swf(path)
    path.write_text("1 0 -1 ten 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n")
    with pytest.raises(InputError, match=r"bad\.swf:1: malformed SWF field run_time"):
        read_swf(path)


def test_nasa_trace_imports_whole(nasa_trace_path):
    imported = instance_from_trace(read_swf(nasa_trace_path), alpha=1)
    assert imported.used_records + imported.skipped_records == 18239
    assert imported.instance.n_tasks == imported.used_records
    assert imported.instance.provenance["swf_header"]["Computer"] == "Intel iPSC/860"


@pytest.mark.parametrize("n_tasks", [0, 1, 2, 3, 10, 1001])
def test_job_sizes_are_the_old_loop_s_draws(n_tasks):
    """Job sizes drawn ahead are those of one integers(1, 5) call per job, last cut to fit."""
    from hybridsched.hybrid_deadline.generator import job_sizes

    for seed in range(4):
        old = np.random.default_rng(seed)
        sizes: list[int] = []
        while sum(sizes) < n_tasks:
            sizes.append(int(min(old.integers(1, 5), n_tasks - sum(sizes))))
        new = np.random.default_rng(seed)
        assert job_sizes(new, n_tasks).tolist() == sizes
        assert new.random() == old.random()
