"""Round trip: whatever ``generate pull``, ``import-fta``, ``import-swf`` and ``simulate pull``
write, the loaders and ``validate`` accept.

Over small grids of options at their extremes (no units, one host per DCI, the
largest seed, every behaviour), FTA traces in epoch seconds (with zero-length
and touching windows, gzip under a plain name, offsets), SWF traces at the
limits of each family, and a property over random instances with very slow
hosts and times near the horizon (10^9 s). A run either writes a schedule that
``validate`` accepts, or exits 1 and writes nothing.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hybridsched.catalogue import get_family
from hybridsched.pull.instance import Behaviour, Instance
from hybridsched.pull.schema import MAX_TIME
from hybridsched.registry import run_method
from hybridsched.storage import load_instance

MAX_SEED = 2**63 - 1
METHODS = ["promethee", "fcfs"]


def ok(cli, *argv) -> str:
    code, out, err = cli(*argv)
    assert code == 0, (argv, err)
    return out


def simulate_and_validate(cli, instance: Path, folder: Path, method: str,
                          *options: str) -> int:
    """``simulate pull`` then ``validate``; or exit 1 with nothing written. The exit code."""
    schedule = folder / f"s-{method}.json"
    code, out, err = cli("simulate", "pull", instance, "--method", method, "-o", schedule,
                         *options)
    assert "Traceback" not in out + err
    if code == 1:  # no schedule: named units, nothing written
        assert "work unit" in err and not schedule.exists(), err
        return code
    assert code == 0, err
    assert "valid" in ok(cli, "validate", instance, schedule)
    return code


# -- generate pull, then simulate ----------------------------------------------------------

# (units, dci, capacity, behaviour, seed): extremes of every option, not a full product.
GRID = [
    (0, "idg,cloud,beg", 10_000, "all", 0),
    (1, "idg", 1e-9, "all", MAX_SEED),  # one host per DCI
    (7, "cloud", 1, "never", 3),
    (12, "beg", 50, "delay", 4),
    (25, "idg,beg", 400, "intime", 5),
    (40, "idg,cloud,beg", 300, "all", 6),
]


@pytest.mark.parametrize(("units", "dci", "capacity", "behaviour", "seed"), GRID,
                         ids=[f"{g[0]}-{g[1]}-{g[2]}-{g[3]}" for g in GRID])
def test_what_generate_and_simulate_write_is_accepted(tmp_path: Path, cli, units, dci,
                                                      capacity, behaviour, seed) -> None:
    instance = tmp_path / "i.json"
    options = ["--units", units, "--dci", dci, "--capacity", capacity, "--behaviour",
               behaviour]
    ok(cli, "generate", "pull", *options, "--seed", seed, "-o", instance)
    load_instance(instance)
    for method in METHODS:
        code = simulate_and_validate(cli, instance, tmp_path, method, "--seed", str(seed))
        assert code == 0 or "cloud" not in dci  # cloud hosts stay: every unit completes
    saved = tmp_path / "saved.json"  # the generator options of simulate write the same file
    code, _, err = cli("simulate", "pull", *options, "--seed", seed, "--save-instance", saved)
    assert code in (0, 1), err
    assert json.loads(saved.read_text()) == json.loads(instance.read_text())


# -- import-fta ----------------------------------------------------------------------------

EPOCH = 1_200_000_000
TRACE = "".join(f"{k} 0 {node} 0 x {kind} {EPOCH + a} {end} 0\n" for k, (node, kind, a, end)
                in enumerate([
                    ("n1", 1, 0, EPOCH + 40_000), ("n1", 0, 40_000, EPOCH + 50_000),
                    ("n1", 1, 50_000, EPOCH + 50_000),     # zero length: dropped
                    ("n1", 1, 60_000, EPOCH + 70_000),
                    ("n1", 1, 70_000, EPOCH + 90_000),     # touches the previous: merged
                    ("n2", 1, 500, -1),                    # stays
                    ("n3", 1, 1000, EPOCH + 1000),         # only zero length: not a host
                    ("n4", 1, 0.5, EPOCH + 7200.25),       # fractional epoch seconds
                    ("n5", 1, 3_000_000, EPOCH + 900_000_000),
                ]))


@pytest.mark.parametrize(("compressed", "offset", "capacity", "dci"), [
    (False, "0", None, "idg"),
    (True, "0", "300", "idg,cloud"),
    (False, "45000", None, "beg"),
    (True, "5e8", None, "cloud,beg,idg"),
])
def test_what_import_fta_writes_is_accepted(tmp_path: Path, cli, compressed, offset,
                                            capacity, dci) -> None:
    dcis = dci.split(",")
    traces = []
    for k in range(len(dcis)):
        path = tmp_path / f"trace{k}.txt"  # gzip data under a plain name
        path.write_bytes(gzip.compress(TRACE.encode()) if compressed else TRACE.encode())
        traces.append(path)
    instance = tmp_path / "i.json"
    ok(cli, "import-fta", *traces, "--dci", dci, "--units", "6", "--offset", offset,
       *(["--capacity", capacity] if capacity else []), "-o", instance)
    _, loaded = load_instance(instance)
    assert loaded.provenance["origins"] == [EPOCH] * len(dcis)
    assert all(b > a for spans in loaded.windows for a, b in spans)
    assert not any("n3" in h for h in loaded.host_ids)
    for method in METHODS:  # with every host, n2 stays: every unit completes
        code = simulate_and_validate(cli, instance, tmp_path, method)
        assert code == 0 or capacity is not None


def test_epoch_windows_are_rebased_merged_and_kept_positive(tmp_path: Path, cli) -> None:
    trace, instance = tmp_path / "t.txt", tmp_path / "i.json"
    trace.write_text(TRACE)
    ok(cli, "import-fta", trace, "--units", "1", "-o", instance)
    _, loaded = load_instance(instance)
    windows = dict(zip(loaded.host_ids, loaded.windows, strict=True))
    assert windows["idg-n1"] == ((0.0, 40_000.0), (60_000.0, 90_000.0))
    assert windows["idg-n2"] == ((500.0, math.inf),)
    assert windows["idg-n4"] == ((0.5, 7200.25),)
    assert windows["idg-n5"] == ((3_000_000.0, 900_000_000.0),)


# -- import-swf ----------------------------------------------------------------------------

RECORD = "{n} {submit} -1 {run} {procs} -1 -1 {procs} -1 -1 1 1 1 -1 -1 -1 -1 -1\n"


def swf(tmp: Path, rows: list[tuple[float, float, int]], name: str = "t.swf") -> Path:
    path = tmp / name
    path.write_text("; Computer: Test\n" + "".join(
        RECORD.format(n=k + 1, submit=s, run=r, procs=p) for k, (s, r, p) in enumerate(rows)))
    return path


#: Records at the edges of what each family accepts (submit, run, processors).
EDGES = [(0, 1, 1), (0, 1e-3, 1), (3600, 7200, 128), (6e10, 60, 2), (10, 5e7, 1_000_000)]


@pytest.mark.parametrize("options", [
    ["--grouping", "task"], ["--grouping", "job", "--limit", "3"],
    ["--grouping", "window", "--window", "1e-3"], ["--pms", "0", "--alpha", "1e-6"],
    ["--alpha", "1e6"],
])
def test_what_import_swf_writes_is_accepted_hybrid_deadline(tmp_path: Path, cli,
                                                            options) -> None:
    rows = [r if "job" not in options else (r[0], r[1], min(r[2], 16)) for r in EDGES]
    instance = tmp_path / "i.json"
    ok(cli, "import-swf", swf(tmp_path, rows), *options, "-o", instance)
    family, loaded = load_instance(instance)
    assert family.name == "hybrid-deadline" and loaded.n_tasks >= 1


@pytest.mark.parametrize("options", [
    [], ["--time-unit", "1", "--limit", "3"], ["--time-unit", "1e9", "--vms", "1"],
    ["--deadline-factor", "1e-6"], ["--deadline-factor", "16", "--vms", "500"],
])
def test_what_import_swf_writes_is_accepted_gang(tmp_path: Path, cli, options) -> None:
    instance, schedule = tmp_path / "i.json", tmp_path / "s.json"
    ok(cli, "import-swf", swf(tmp_path, EDGES), "--family", "gang", *options, "-o", instance)
    family, _ = load_instance(instance)
    assert family.name == "gang"
    ok(cli, "simulate", "gang", instance, "-o", schedule)
    assert "valid" in ok(cli, "validate", instance, schedule)


@pytest.mark.parametrize("family", ["hybrid-deadline", "gang"])
def test_the_nasa_trace_imports_whatever_its_name(tmp_path: Path, cli, nasa_trace_path,
                                                  family) -> None:
    plain = tmp_path / "nasa.swf"  # gzip data named .swf
    plain.write_bytes(nasa_trace_path.read_bytes())
    instance = tmp_path / "i.json"
    ok(cli, "import-swf", plain, "--family", family, "--limit", "200", "-o", instance)
    assert load_instance(instance)[0].name == family


# -- simulate pull: a property over slow hosts and late times ------------------------------

def _instance(noi, arrival, hosts, behaviour) -> Instance:
    return Instance("t", tuple(f"w{k}" for k in range(len(noi))), np.array(noi, float),
                    np.array(arrival, float), tuple(f"h{k}" for k in range(len(hosts))),
                    tuple(h[0] for h in hosts), np.array([h[1] for h in hosts], float),
                    np.zeros(len(hosts)), np.array([h[2] for h in hosts], float),
                    tuple(h[3] for h in hosts), behaviour=behaviour)


@st.composite
def slow_instances(draw):
    """Few units and hosts; host speeds from 10^-6 to 10^12, times up to the horizon."""
    time = st.one_of(st.floats(0, 1e-5), st.floats(0, 100), st.floats(0, MAX_TIME))
    n = draw(st.integers(1, 5))
    noi = [draw(st.one_of(st.floats(1e-9, 1e-3), st.floats(1, 1e15))) for _ in range(n)]
    arrival = [draw(time) for _ in range(n)]
    hosts = []
    for _ in range(draw(st.integers(1, 3))):
        cuts = sorted(set(draw(st.lists(time, max_size=6))))
        spans = [(cuts[k], cuts[k + 1]) for k in range(0, len(cuts) - 1, 2)]
        if draw(st.booleans()) and (not spans or spans[-1][1] < MAX_TIME - 1):
            spans.append((spans[-1][1] + 1 if spans else 0.0, math.inf))
        hosts.append(("idg", draw(st.one_of(st.floats(1e-6, 1e3), st.just(1e12))),
                      draw(st.sampled_from((0.0, 0.5))), tuple(spans)))
    behaviour = Behaviour(draw(st.sampled_from((0.0, 0.15, 0.5))),
                          draw(st.sampled_from((0.0, 0.05, 0.3))),
                          draw(st.sampled_from((1.0, 1.5, 100.0))), draw(st.integers(0, 9)))
    return _instance(noi, arrival, hosts, behaviour)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(slow_instances(), st.sampled_from(METHODS))
# E summed two ways could exceed 1 by a rounding, which the schedule loader refused.
@example(_instance([1.0, 5.62949953e14, 1.875], [0, 0, 0],
                   [("idg", 562950.0, 0.0, ((0.0, math.inf),))],
                   Behaviour(0.0, 0.0, 1.0, 0)), "fcfs")
# Two windows closer than the checker's tolerance: it looked up the wrong one.
@example(_instance([1.0], [0.0], [("idg", 1.0, 0.0, ((0.0, 1e-300),
                                                      (1.1754943508222875e-38, 1.0)))],
                   Behaviour(0.0, 0.0, 1.0, 0)), "fcfs")
# Slow hosts: tasks would end after 10^9 s, which schedule files refuse.
@example(_instance([1e7, 2e7], [0.0, 0.0], [("idg", 1e-3, 0.3, ((0.0, math.inf),)),
                                            ("idg", 0.7, 0.0, ((0.0, 1e6), (2e6, math.inf)))],
                   Behaviour(0.15, 0.05, 1.5, 0)), "promethee")
def test_what_simulate_writes_validate_accepts(instance: Instance, method: str) -> None:
    family = get_family("pull")
    instance = family.instance_from_dict(json.loads(json.dumps(
        family.instance_to_dict(instance))), "i.json")
    result = run_method("pull", method, instance)
    if result.solution is None:
        assert result.status.value in ("infeasible", "no_solution") and "'w" in result.message
        return
    document = json.loads(json.dumps(family.solution_to_dict(result.solution, instance)))
    assert family.check(instance, family.solution_from_dict(document, instance, "s.json")) == []
