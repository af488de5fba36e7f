"""Round trip: what ``generate malleable`` and ``simulate malleable`` write, ``validate`` accepts.

Over a grid of generator options at their extremes (no jobs, one job, the
largest seed, serial fractions near 1), every platform source (the default,
TOML, GraphML, JSON, a platform whose resources are named like the implicit
tree's nodes, clusters of 10^6 processors and clouds of 10^6 VMs), every
scheduler and both policies; and the exact method's schedules too.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridsched.cli.options import MAX_SEED

ROOT = Path(__file__).resolve().parents[2]
TREES = ROOT / "examples" / "trees"


def platform_file(tmp: Path, name: str, resources: list[dict], tree: list | None = None) -> str:
    document: dict = {"resources": resources}
    if tree is not None:
        document["tree"] = {"edges": tree}
    path = tmp / name
    path.write_text(json.dumps(document))
    return str(path)


def named_like_the_implicit_tree(tmp: Path) -> str:
    """Resources called ``root`` and ``dedicated-agent``: the implicit trees must avoid them."""
    return platform_file(tmp, "names.json", [
        {"id": "root", "type": "dedicated", "cpus": 8},
        {"id": "dedicated-agent", "type": "dedicated", "cpus": 4},
        {"id": "root_", "type": "allocated", "cpus": 8, "price": 1},
        {"id": "cloud-agent", "type": "cloud", "cpus": 2, "price": 100, "max_vms": 3}])


def huge_platform(tmp: Path) -> str:
    """A cluster of 10^6 processors and a cloud of 10^6 one-CPU VMs (the limits)."""
    return platform_file(tmp, "huge.json", [
        {"id": "big", "type": "dedicated", "cpus": 10**6},
        {"id": "sky", "type": "cloud", "cpus": 1, "price": 60, "max_vms": 10**6,
         "spot_vms": 10}])


PLATFORMS = {
    "default": lambda t: None,
    "paper.toml": lambda t: str(TREES / "paper.toml"),
    "paper.graphml": lambda t: str(TREES / "paper.graphml"),
    "paper.json": lambda t: str(TREES / "paper.json"),
    "hundred-leaves": lambda t: str(TREES / "hundred-leaves.toml"),
    "named-like-the-tree": named_like_the_implicit_tree,
    "one-cloud-leaf": lambda t: platform_file(t, "cloud.json", [
        {"id": "c", "type": "cloud", "cpus": 1, "price": 1e9, "max_vms": 1,
         "on_demand_price": 1e9}], [["top", "c"]]),
    "slow-allocated": lambda t: platform_file(t, "slow.json", [
        {"id": "a", "type": "allocated", "cpus": 1, "performance": 1e-3, "price": 1e9}]),
}

# (platform, jobs, mix, seed, serial fraction): extremes of every option, not a full product.
GRID = [
    ("default", 0, "mixed", 0, 0.0),
    ("default", 1, "big", MAX_SEED, 0.0),
    ("default", 9, "mixed", 3, 0.999999),
    ("paper.toml", 7, "small", 1, 0.5),
    ("paper.graphml", 6, "big", 2, 0.0),
    ("paper.json", 5, "mixed", MAX_SEED, 0.9),
    ("hundred-leaves", 12, "mixed", 4, 0.2),
    ("named-like-the-tree", 8, "mixed", 5, 0.0),
    ("one-cloud-leaf", 3, "small", 6, 0.3),
    ("slow-allocated", 2, "small", 7, 0.0),
]


def run(cli, *argv) -> str:
    code, out, err = cli(*argv)
    assert code == 0, (argv, err)
    assert "Traceback" not in err
    return out


@pytest.mark.parametrize("scheduler", ["tree", "flat", "round-robin"])
@pytest.mark.parametrize(("where", "jobs", "mix", "seed", "fraction"), GRID,
                         ids=[f"{g[0]}-{g[1]}-{g[2]}-{g[4]}" for g in GRID])
def test_what_simulate_writes_validate_accepts(tmp_path: Path, cli, where: str, jobs: int,
                                               mix: str, seed: int, fraction: float,
                                               scheduler: str) -> None:
    tree = PLATFORMS[where](tmp_path)
    inst, sched = tmp_path / "i.json", tmp_path / "s.json"
    options = ["--jobs", jobs, "--mix", mix, "--seed", seed, "--serial-fraction", fraction,
               *([] if tree is None else ["--tree", tree])]
    policy = "B" if seed % 2 else "A"
    run(cli, "simulate", "malleable", *options, "--scheduler", scheduler, "--policy", policy,
        "--save-instance", inst, "-o", sched)
    out = run(cli, "validate", inst, sched)
    assert "valid" in out
    assert len(json.loads(inst.read_text())["jobs"]) == jobs
    # generate writes the same instance, and simulating the file gives the same schedule
    again, sched2 = tmp_path / "g.json", tmp_path / "s2.json"
    run(cli, "generate", "malleable", *options, "-o", again)
    assert json.loads(again.read_text())["jobs"] == json.loads(inst.read_text())["jobs"]
    run(cli, "simulate", "malleable", again, "--scheduler", scheduler, "--policy", policy,
        "--seed", seed, "-o", sched2)
    assert json.loads(sched2.read_text())["jobs"] == json.loads(sched.read_text())["jobs"]


@pytest.mark.parametrize("where", ["default", "named-like-the-tree", "one-cloud-leaf"])
def test_what_the_exact_method_writes_validate_accepts(tmp_path: Path, cli, where: str
                                                       ) -> None:
    tree = PLATFORMS[where](tmp_path)
    inst, sol = tmp_path / "i.json", tmp_path / "s.json"
    run(cli, "generate", "malleable", "--jobs", 3, "--mix", "small", "--seed", 1,
        *([] if tree is None else ["--tree", tree]), "-o", inst)
    run(cli, "solve", inst, "--method", "exact", "--time-limit", 0, "-o", sol)
    assert "valid" in run(cli, "validate", inst, sol)


def test_a_platform_of_a_million_processors_is_checked_by_ranges(tmp_path: Path, cli) -> None:
    """Jobs as wide as the limits: checked per range of processors, not per processor.

    Checking 200 jobs of 10^6 processors one processor at a time took 8.6 GB
    (2 x 10^8 rows); by ranges, a few hundred rows. The peak is measured with
    tracemalloc (numpy reports its buffers to it), not with a clock.
    """
    from hybridsched.heuristics.malleable import simulation as online
    from hybridsched.malleable import checker, files
    from hybridsched.storage import load_instance

    tree = huge_platform(tmp_path)
    inst, sched = tmp_path / "i.json", tmp_path / "s.json"
    run(cli, "simulate", "malleable", "--jobs", 12, "--mix", "big", "--tree", tree,
        "--save-instance", inst, "-o", sched)
    assert "valid" in run(cli, "validate", inst, sched)
    _, instance = load_instance(inst)
    solution = files.solution_from_dict(json.loads(sched.read_text()), instance)
    assert int(solution.count.sum()) > 10**6  # as many processor rows as the old way made
    tracemalloc.start()
    try:
        assert checker.check(instance, solution) == []
        checker.evaluate(instance, solution)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20, peak
    assert online  # the simulator wrote it (imported for the reader of this test)


@settings(max_examples=25, deadline=None)
@given(jobs=st.integers(0, 12), mix=st.sampled_from(["small", "big", "mixed"]),
       seed=st.integers(0, MAX_SEED), fraction=st.floats(0, 0.999999),
       scheduler=st.sampled_from(["tree", "flat", "round-robin"]),
       policy=st.sampled_from(["A", "B"]))
def test_generated_files_round_trip_through_json(jobs: int, mix: str, seed: int,
                                                 fraction: float, scheduler: str,
                                                 policy: str) -> None:
    """The same property without the command line: more draws, in process."""
    from hybridsched.heuristics.malleable import simulation as online
    from hybridsched.malleable import checker, files, generator

    instance = generator.generate(jobs, mix, seed, serial_fraction=fraction)
    text = json.dumps(files.instance_to_dict(instance))
    again = files.instance_from_dict(json.loads(text), "i.json")
    solution, _ = online.simulate(again, scheduler, policy, seed)
    document = json.loads(json.dumps(files.solution_to_dict(solution, again)))
    read = files.solution_from_dict(document, again, "s.json")
    assert checker.check(again, read) == []
