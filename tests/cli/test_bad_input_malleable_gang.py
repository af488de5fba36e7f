"""Adversarial corpus of the online families ``malleable`` and ``gang``.

Bad instance and solution files, tree configs (TOML, GraphML, JSON platform
files) and options of every command that reads or writes them: ``solve``,
``validate``, ``simulate malleable|gang``, ``generate malleable|gang``,
``tree``, ``gantt`` and ``compare``. Each case must end with exit code 2 and
exactly one line on standard error, starting ``error: `` and naming the file,
field, node or option (the fragment), never a traceback, and must leave no
output file behind.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from corpus import assert_one_error_line, drop, edited, replaced, set_in, write

ROOT = Path(__file__).resolve().parents[2]
MAL_FILE = ROOT / "instances" / "malleable" / "batch-04.json"
GANG_FILE = ROOT / "instances" / "gang" / "small-10.json"
HD_FILE = ROOT / "instances" / "hybrid-deadline" / "small-01.json"
TREES = ROOT / "examples" / "trees"
PAPER_TOML, PAPER_JSON, PAPER_GRAPHML = (TREES / f"paper.{x}" for x in ("toml", "json",
                                                                         "graphml"))
MAL = json.loads(MAL_FILE.read_text())
GANG = json.loads(GANG_FILE.read_text())
PLATFORM = json.loads(PAPER_JSON.read_text())
GRAPHML = PAPER_GRAPHML.read_text()
TOML = 'name = "t"\nfanout = [2]\n[[leaves]]\ntype = "dedicated"\ncpus = 8\n'

GEN_M, SIM_M = ["generate", "malleable"], ["simulate", "malleable"]
GEN_G, SIM_G = ["generate", "gang"], ["simulate", "gang"]


def _solutions() -> tuple[dict, dict]:
    """A valid schedule document of each bundled instance (the corpus edits copies)."""
    from hybridsched.registry import run_method
    from hybridsched.storage import load_instance

    out = []
    for path, method in ((MAL_FILE, "tree"), (GANG_FILE, "fifo")):
        family, instance = load_instance(path)
        result = run_method(family.name, method, instance)
        out.append(json.loads(json.dumps(family.solution_to_dict(result.solution, instance,
                                                                 method=method))))
    return out[0], out[1]


MAL_SOL, GANG_SOL = _solutions()


# -- builders ---------------------------------------------------------------------------
def mal(tmp: Path, change: Callable[[dict], object] = lambda d: None) -> str:
    return write(tmp, "m.json", edited(MAL, change))


def gang(tmp: Path, change: Callable[[dict], object] = lambda d: None) -> str:
    return write(tmp, "g.json", edited(GANG, change))


def msol(tmp: Path, change: Callable[[dict], object]) -> str:
    return write(tmp, "ms.json", edited(MAL_SOL, change))


def gsol(tmp: Path, change: Callable[[dict], object]) -> str:
    return write(tmp, "gs.json", edited(GANG_SOL, change))


def platform(tmp: Path, change: Callable[[dict], object], name: str = "p.json") -> str:
    return write(tmp, name, edited(PLATFORM, change))


def graphml(tmp: Path, old: str, new: str) -> str:
    assert old in GRAPHML, old
    return write(tmp, "p.graphml", GRAPHML.replace(old, new, 1))


def toml(tmp: Path, text: str, name: str = "t.toml") -> str:
    return write(tmp, name, text)


def both(*changes: Callable[[dict], object]) -> Callable[[dict], None]:
    def change(document: dict) -> None:
        for c in changes:
            c(document)
    return change


def unwritable_folder(tmp: Path) -> str:
    """A folder this process cannot create files in (skip when there is none)."""
    if os.name == "posix" and os.geteuid() != 0:
        folder = tmp / "locked"
        folder.mkdir(exist_ok=True)
        folder.chmod(0o500)
        return str(folder)
    for candidate in ("/sys", "/proc"):
        try:
            fd, probe = tempfile.mkstemp(dir=candidate)
        except OSError:
            return candidate
        os.close(fd)
        os.unlink(probe)
    pytest.skip("no unwritable folder on this machine")
    return ""


def solve(path: str, method: str = "exact", *more: str) -> list[str]:
    return ["solve", path, "--method", method, "--time-limit", "0", *more]


def msolve(tmp: Path, change: Callable[[dict], object]) -> list[str]:
    return solve(mal(tmp, change))


def gsolve(tmp: Path, change: Callable[[dict], object]) -> list[str]:
    return ["simulate", "gang", gang(tmp, change)]


J0, R1, CLOUD = "jobs.0", "resources.1", "resources.3"
CYCLE = '<edge source="agent-1-2" target="cloud-1" />'
Case = tuple[str, Callable[[Path], list[str]], str]

# (id, argv builder, fragment expected in the one stderr line)
CASES: list[Case] = [
    # -- malleable instance files: reading and JSON syntax ------------------------------
    ("m-empty-file", lambda t: solve(write(t, "e.json", "")), "e.json:1:1: malformed JSON"),
    ("m-truncated", lambda t: solve(write(t, "tr.json", json.dumps(MAL)[:300])),
     "tr.json:1:"),
    ("m-not-utf8", lambda t: solve(write(t, "u.json", b"\xff\xfe\x00{")), "not UTF-8"),
    ("m-top-level-list", lambda t: solve(write(t, "l.json", "[1, 2]")),
     "expected a JSON object"),
    ("m-nan-literal", lambda t: solve(write(t, "n.json", replaced(MAL, '"size": 75.0',
                                                             '"size": NaN'))),
     "NaN is not a JSON number"),
    ("m-infinity-literal", lambda t: solve(write(t, "i.json", replaced(MAL, '"budget": 72.47',
                                                                  '"budget": -Infinity'))),
     "Infinity is not a JSON number"),
    ("m-overflowing-size", lambda t: solve(write(t, "o.json", replaced(MAL, '"size": 75.0',
                                                                  '"size": 1e999'))),
     "out of range"),
    ("m-duplicate-key", lambda t: solve(write(t, "d.json", replaced(MAL, '"priority": 18',
                                                               '"priority": 18, "priority": 1'))),
     "field jobs.0: duplicate key 'priority'"),
    ("m-family-missing", lambda t: msolve(t, drop("family")), "field family: missing"),
    ("m-format-wrong", lambda t: msolve(t, set_in("format", "csv")), "field format"),
    ("m-version-2", lambda t: msolve(t, set_in("version", 2)), "field version"),
    ("m-unknown-top-field", lambda t: msolve(t, set_in("colour", "red")), "field colour"),
    ("m-name-empty", lambda t: msolve(t, set_in("name", "")), "field name"),
    ("m-units-not-object", lambda t: msolve(t, set_in("units", [1])), "field units"),
    # -- malleable jobs -----------------------------------------------------------------
    ("m-jobs-missing", lambda t: msolve(t, drop("jobs")), "field jobs: Field required"),
    ("m-jobs-object", lambda t: msolve(t, set_in("jobs", {"j0": {}})), "field jobs"),
    ("m-job-null", lambda t: msolve(t, set_in(J0, None)), "field jobs.0"),
    ("m-job-id-missing", lambda t: msolve(t, drop(f"{J0}.id")), "field jobs.0.id"),
    ("m-job-id-number", lambda t: msolve(t, set_in(f"{J0}.id", 7)), "field jobs.0.id"),
    ("m-job-duplicate-id", lambda t: msolve(t, set_in("jobs.2.id", "j0")),
     "field jobs: duplicate id 'j0'"),
    ("m-size-zero", lambda t: msolve(t, set_in(f"{J0}.size", 0)), "field jobs.0.size"),
    ("m-size-negative", lambda t: msolve(t, set_in(f"{J0}.size", -5)), "(job 'j0')"),
    ("m-size-huge", lambda t: msolve(t, set_in(f"{J0}.size", 1e300)), "field jobs.0.size"),
    ("m-size-string", lambda t: msolve(t, set_in(f"{J0}.size", "75")),
     "got the string '75'"),
    ("m-size-bool", lambda t: msolve(t, set_in(f"{J0}.size", True)), "got the boolean"),
    ("m-priority-fraction", lambda t: msolve(t, set_in(f"{J0}.priority", 1.5)),
     "field jobs.0.priority"),
    ("m-priority-huge", lambda t: msolve(t, set_in(f"{J0}.priority", 10**12)),
     "field jobs.0.priority"),
    ("m-deadline-missing", lambda t: msolve(t, drop(f"{J0}.deadline")),
     "field jobs.0.deadline"),
    ("m-deadline-before-arrival", lambda t: msolve(t, set_in(f"{J0}.deadline", 0)),
     "deadline 0 is before its arrival 1"),
    ("m-deadline-beyond-range", lambda t: msolve(t, set_in(f"{J0}.deadline", 10**8)),
     "field jobs.0.deadline"),
    ("m-arrival-negative", lambda t: msolve(t, set_in(f"{J0}.arrival", -1)),
     "field jobs.0.arrival"),
    ("m-arrival-fraction", lambda t: msolve(t, set_in(f"{J0}.arrival", 0.5)),
     "field jobs.0.arrival"),
    ("m-arrival-at-the-last-minute", lambda t: msolve(t, both(
        set_in(f"{J0}.arrival", 10**7), set_in(f"{J0}.deadline", 10**7))),
     "field jobs.0.arrival: job 'j0' arrives at minute 10000000 and cannot end"),
    ("m-budget-negative", lambda t: msolve(t, set_in(f"{J0}.budget", -0.01)),
     "field jobs.0.budget"),
    ("m-budget-huge", lambda t: msolve(t, set_in(f"{J0}.budget", 1e300)),
     "field jobs.0.budget"),
    ("m-serial-fraction-one", lambda t: msolve(t, set_in(f"{J0}.serial_fraction", 1)),
     "field jobs.0.serial_fraction"),
    ("m-serial-fraction-negative", lambda t: msolve(t, set_in(f"{J0}.serial_fraction", -0.1)),
     "field jobs.0.serial_fraction"),
    ("m-job-unknown-field", lambda t: msolve(t, set_in(f"{J0}.colour", 1)),
     "field jobs.0.colour"),
    # -- malleable resources and platform ---------------------------------------------------
    ("m-resources-empty", lambda t: msolve(t, set_in("resources", [])),
     "field resources: List should have at least 1 item"),
    ("m-resources-missing", lambda t: msolve(t, drop("resources")), "field resources"),
    ("m-resource-duplicate-id", lambda t: msolve(t, set_in(f"{R1}.id", "dedicated")),
     "field resources: duplicate id 'dedicated'"),
    ("m-resource-type-unknown", lambda t: msolve(t, set_in(f"{R1}.type", "gpu")),
     "field resources.1.type"),
    ("m-cpus-zero", lambda t: msolve(t, set_in(f"{R1}.cpus", 0)),
     "field resources.1.cpus: Input should be greater than or equal to 1 (resource 'alloc-1')"),
    ("m-cpus-huge", lambda t: msolve(t, set_in(f"{R1}.cpus", 10**9)), "field resources.1.cpus"),
    ("m-cpus-fraction", lambda t: msolve(t, set_in(f"{R1}.cpus", 2.5)),
     "field resources.1.cpus"),
    ("m-performance-zero", lambda t: msolve(t, set_in(f"{R1}.performance", 0)),
     "field resources.1.performance"),
    ("m-price-negative", lambda t: msolve(t, set_in(f"{R1}.price", -1)),
     "field resources.1.price"),
    ("m-price-huge", lambda t: msolve(t, set_in(f"{R1}.price", 1e300)),
     "field resources.1.price"),
    ("m-dedicated-priced", lambda t: msolve(t, set_in("resources.0.price", 3)),
     "a dedicated cluster is free"),
    ("m-cloud-field-on-cluster", lambda t: msolve(t, set_in(f"{R1}.max_vms", 3)),
     "max_vms is for clouds only"),
    ("m-cloud-without-max-vms", lambda t: msolve(t, drop(f"{CLOUD}.max_vms")),
     "a cloud needs max_vms"),
    ("m-cloud-spot-above-max", lambda t: msolve(t, set_in(f"{CLOUD}.spot_vms", 99)),
     "spot_vms 99 > max_vms 4"),
    ("m-cloud-too-many-processors", lambda t: msolve(t, set_in(f"{CLOUD}.max_vms", 10**6)),
     "exceeds 1000000 processors"),
    ("m-cloud-on-demand-huge", lambda t: msolve(t, set_in(f"{CLOUD}.on_demand_price", 1e200)),
     "field resources.3.on_demand_price"),
    ("m-cloud-vm-table-too-large", lambda t: msolve(t, both(
        set_in(f"{CLOUD}.cpus", 1), set_in(f"{CLOUD}.max_vms", 10**6),
        set_in(f"{CLOUD}.spot_vms", 2),
        set_in("jobs", [dict(MAL["jobs"][0], id=f"j{k}") for k in range(60)]))),
     "(job, VM count) pairs"),
    # -- malleable trees inside instance files ---------------------------------------------
    ("m-tree-leaf-unknown", lambda t: msolve(t, set_in("tree", {"edges": [["root", "x"]]})),
     "field tree: leaf 'x' is not a resource"),
    ("m-tree-empty", lambda t: msolve(t, set_in("tree", {"edges": []})), "field tree.edges"),
    ("m-tree-cycle", lambda t: msolve(t, set_in("tree", {"edges": [
        ["root", "a"], ["a", "dedicated"], ["a", "alloc-1"], ["a", "alloc-2"], ["a", "cloud"],
        ["a", "root"]]})), "field tree: cycle"),
    ("m-tree-two-roots", lambda t: msolve(t, set_in("tree", {"edges": [
        ["r1", "dedicated"], ["r1", "alloc-1"], ["r2", "alloc-2"], ["r2", "cloud"]]})),
     "a tree has one root, found 2"),
    ("m-tree-resource-missing", lambda t: msolve(t, set_in("tree", {"edges": [
        ["root", "dedicated"], ["root", "alloc-1"], ["root", "alloc-2"]]})),
     "resource 'cloud' is not a leaf"),
    ("m-tree-edge-triple", lambda t: msolve(t, set_in("tree", {"edges": [["a", "b", "c"]]})),
     "field tree.edges.0"),
    ("m-tree-extra-field", lambda t: msolve(t, set_in("tree", {"edges": [["root", "cloud"]],
                                                               "root": "x"})),
     "field tree.root"),
    ("m-reference-negative", lambda t: msolve(t, set_in("reference", {"optimal_cost": -1})),
     "field reference.optimal_cost"),
    # -- gang instance files --------------------------------------------------------------
    ("g-empty-file", lambda t: [*SIM_G, write(t, "e.json", "")], "e.json:1:1: malformed JSON"),
    ("g-truncated", lambda t: [*SIM_G, write(t, "tr.json", json.dumps(GANG)[:-40])],
     "tr.json:1:"),
    ("g-nan-literal", lambda t: [*SIM_G, write(t, "n.json", replaced(GANG, '"deadline": 6.0',
                                                                '"deadline": NaN'))],
     "NaN is not a JSON number"),
    ("g-duplicate-key", lambda t: [*SIM_G, write(t, "d.json", replaced(GANG, '"speed": 24.0',
                                                                  '"speed": 24.0, "speed": 1'))],
     "field vms.0: duplicate key 'speed'"),
    ("g-jobs-missing", lambda t: gsolve(t, drop("jobs")), "field jobs"),
    ("g-vms-empty", lambda t: gsolve(t, set_in("vms", [])), "field vms: List should have"),
    ("g-job-duplicate-id", lambda t: gsolve(t, set_in("jobs.3.id", "j0")),
     "field jobs: duplicate id 'j0'"),
    ("g-vm-duplicate-id", lambda t: gsolve(t, set_in("vms.2.id", "v0")),
     "field vms: duplicate id 'v0'"),
    ("g-parallelism-zero", lambda t: gsolve(t, set_in(f"{J0}.parallelism", 0)),
     "field jobs.0.parallelism"),
    ("g-parallelism-huge", lambda t: gsolve(t, set_in(f"{J0}.parallelism", 10**9)),
     "field jobs.0.parallelism"),
    ("g-parallelism-fraction", lambda t: gsolve(t, set_in(f"{J0}.parallelism", 1.5)),
     "field jobs.0.parallelism"),
    ("g-instructions-zero", lambda t: gsolve(t, set_in(f"{J0}.instructions", 0)),
     "field jobs.0.instructions"),
    ("g-instructions-huge", lambda t: gsolve(t, set_in(f"{J0}.instructions", 1e300)),
     "field jobs.0.instructions"),
    ("g-memory-string", lambda t: gsolve(t, set_in(f"{J0}.memory", "1")),
     "field jobs.0.memory"),
    ("g-bandwidth-negative", lambda t: gsolve(t, set_in(f"{J0}.bandwidth", -1)),
     "field jobs.0.bandwidth"),
    ("g-disk-negative", lambda t: gsolve(t, set_in(f"{J0}.disk", -1)), "field jobs.0.disk"),
    ("g-arrival-negative", lambda t: gsolve(t, set_in(f"{J0}.arrival", -0.5)),
     "field jobs.0.arrival"),
    ("g-arrival-beyond-range", lambda t: gsolve(t, set_in(f"{J0}.arrival", 2e9)),
     "field jobs.0.arrival"),
    ("g-deadline-zero", lambda t: gsolve(t, set_in(f"{J0}.deadline", 0)),
     "field jobs.0.deadline"),
    ("g-deadline-missing", lambda t: gsolve(t, drop(f"{J0}.deadline")), "field jobs.0.deadline"),
    ("g-speed-zero", lambda t: gsolve(t, set_in("vms.0.speed", 0)), "field vms.0.speed"),
    ("g-speed-subnormal", lambda t: gsolve(t, set_in("vms.0.speed", 5e-324)),
     "field vms.0.speed"),
    ("g-vm-memory-bool", lambda t: gsolve(t, set_in("vms.0.memory", False)),
     "field vms.0.memory"),
    ("g-vm-disk-zero", lambda t: gsolve(t, set_in("vms.0.disk", 0)), "field vms.0.disk"),
    ("g-vm-unknown-field", lambda t: gsolve(t, set_in("vms.0.cores", 4)), "field vms.0.cores"),
    ("g-reference-fraction", lambda t: gsolve(t, set_in("reference", {"optimal_unfinished": 1.5})),
     "field reference.optimal_unfinished"),
    ("g-too-many-pairs", lambda t: gsolve(t, both(
        set_in("vms", [dict(GANG["vms"][0], id=f"v{k}") for k in range(5000)]),
        set_in("jobs", [dict(GANG["jobs"][0], id=f"j{k}") for k in range(5000)]))),
     "5000 jobs x 5000 VMs exceeds 20,000,000 (job, VM) pairs"),
    # -- solve ----------------------------------------------------------------------------
    ("solve-m-method-of-gang", lambda t: solve(str(MAL_FILE), "fifo"),
     "unknown method 'fifo' for family 'malleable'"),
    ("solve-g-method-of-malleable", lambda t: solve(str(GANG_FILE), "tree"),
     "unknown method 'tree' for family 'gang'"),
    ("solve-m-objective-unknown", lambda t: solve(str(MAL_FILE), "tree", "--objective",
                                                  "makespan"),
     "'makespan' is not an objective of family 'malleable'"),
    ("solve-g-objective", lambda t: solve(str(GANG_FILE), "fifo", "--objective", "cost"),
     "--objective"),
    ("solve-m-time-limit-nan", lambda t: ["solve", str(MAL_FILE), "--method", "exact",
                                          "--time-limit", "nan"], "'--time-limit'"),
    ("solve-g-output-folder", lambda t: solve(str(GANG_FILE), "fifo", "-o", str(t)),
     "is a folder"),
    ("solve-m-output-over-input", lambda t: solve(mal(t), "tree", "-o", str(t / "m.json")),
     "is an input file"),
    ("solve-g-seed-huge", lambda t: solve(str(GANG_FILE), "fifo", "--seed", str(10**40)),
     "'--seed'"),
    # -- validate: malleable solutions ------------------------------------------------------
    ("val-m-empty", lambda t: ["validate", str(MAL_FILE), write(t, "s.json", "")],
     "s.json:1:1: malformed JSON"),
    ("val-m-truncated", lambda t: ["validate", str(MAL_FILE), write(
        t, "s.json", json.dumps(MAL_SOL)[:200])], "s.json:1:"),
    ("val-m-family-gang", lambda t: ["validate", str(MAL_FILE), msol(t, set_in("family",
                                                                           "gang"))],
     "solution is for 'gang', instance is 'malleable'"),
    ("val-m-instance-as-solution", lambda t: ["validate", str(MAL_FILE), str(MAL_FILE)],
     "this is an instance file, not a solution file"),
    ("val-m-swapped", lambda t: ["validate", msol(t, lambda d: None), str(MAL_FILE)],
     "arguments swapped?"),
    ("val-m-jobs-missing", lambda t: ["validate", str(MAL_FILE), msol(t, drop("jobs"))],
     "field jobs: Field required"),
    ("val-m-unknown-job", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("jobs.0.job", "ghost"))], "field jobs.0.job: unknown job 'ghost'"),
    ("val-m-unknown-resource", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("jobs.0.resource", "gpu"))], "field jobs.0.resource: unknown resource 'gpu'"),
    ("val-m-job-twice", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("jobs.1.job", MAL_SOL["jobs"][0]["job"]))], "is placed twice"),
    ("val-m-pieces-empty", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("jobs.0.pieces", []))], "field jobs.0.pieces"),
    ("val-m-piece-count-zero", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("jobs.0.pieces.0.count", 0))], "field jobs.0.pieces.0.count"),
    ("val-m-piece-count-huge", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("jobs.0.pieces.0.count", 10**9))], "field jobs.0.pieces.0.count"),
    ("val-m-piece-cpu-negative", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("jobs.0.pieces.0.cpu", -1))], "field jobs.0.pieces.0.cpu"),
    ("val-m-piece-start-fraction", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("jobs.0.pieces.0.start", 1.5))], "field jobs.0.pieces.0.start"),
    ("val-m-piece-end-beyond-range", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("jobs.0.pieces.0.end", 10**8))], "field jobs.0.pieces.0.end"),
    ("val-m-piece-missing-field", lambda t: ["validate", str(MAL_FILE), msol(
        t, drop("jobs.0.pieces.0.cpu"))], "field jobs.0.pieces.0.cpu: Field required"),
    ("val-m-piece-extra-field", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("jobs.0.pieces.0.vm", 0))], "field jobs.0.pieces.0.vm"),
    ("val-m-cost-negative", lambda t: ["validate", str(MAL_FILE), msol(t, set_in("cost", -1))],
     "field cost"),
    ("val-m-delay-string", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("total_delay", "0"))], "field total_delay"),
    ("val-m-events-not-list", lambda t: ["validate", str(MAL_FILE), msol(
        t, set_in("events", {"a": 1}))], "field events"),
    # -- validate: gang solutions ----------------------------------------------------------
    ("val-g-top-level-string", lambda t: ["validate", str(GANG_FILE), write(t, "s.json",
                                                                            '"started"')],
     "expected a JSON object"),
    ("val-g-family-malleable", lambda t: ["validate", str(GANG_FILE), gsol(
        t, set_in("family", "malleable"))], "solution is for 'malleable', instance is 'gang'"),
    ("val-g-started-missing", lambda t: ["validate", str(GANG_FILE), gsol(t, drop("started"))],
     "field started: Field required"),
    ("val-g-unknown-job", lambda t: ["validate", str(GANG_FILE), gsol(
        t, set_in("started.0.job", "ghost"))], "field started.0.job: unknown job 'ghost'"),
    ("val-g-unknown-vm", lambda t: ["validate", str(GANG_FILE), gsol(
        t, set_in("started.0.vms", ["v0", "vZ"]))], "field started.0.vms: unknown VM 'vZ'"),
    ("val-g-vms-empty", lambda t: ["validate", str(GANG_FILE), gsol(
        t, set_in("started.0.vms", []))], "field started.0.vms"),
    ("val-g-started-twice", lambda t: ["validate", str(GANG_FILE), gsol(
        t, set_in("started.1.job", GANG_SOL["started"][0]["job"]))], "is started twice"),
    ("val-g-dropped-twice", lambda t: ["validate", str(GANG_FILE), gsol(
        t, lambda d: d["dropped"].append(dict(d["dropped"][0])))], "is dropped twice"),
    ("val-g-dropped-unknown", lambda t: ["validate", str(GANG_FILE), gsol(
        t, set_in("dropped.0.job", "ghost"))], "field dropped.0.job: unknown job 'ghost'"),
    ("val-g-start-negative", lambda t: ["validate", str(GANG_FILE), gsol(
        t, set_in("started.0.start", -1))], "field started.0.start"),
    ("val-g-start-beyond-range", lambda t: ["validate", str(GANG_FILE), gsol(
        t, set_in("started.0.start", 3e9))], "field started.0.start"),
    ("val-g-start-infinity", lambda t: ["validate", str(GANG_FILE), write(t, "s.json", replaced(
        GANG_SOL, f'"start": {GANG_SOL["started"][0]["start"]}', '"start": Infinity'))],
     "Infinity is not a JSON number"),
    ("val-g-unfinished-negative", lambda t: ["validate", str(GANG_FILE), gsol(
        t, set_in("unfinished", -1))], "field unfinished"),
    ("val-g-reason-number", lambda t: ["validate", str(GANG_FILE), gsol(
        t, set_in("dropped.0.reason", 3))], "field dropped.0.reason"),
    # -- simulate malleable ---------------------------------------------------------------
    ("sim-m-missing-file", lambda t: [*SIM_M, str(t / "gone.json")], "gone.json: no such file"),
    ("sim-m-folder-as-instance", lambda t: [*SIM_M, str(t)], "is a folder"),
    ("sim-m-gang-instance", lambda t: [*SIM_M, str(GANG_FILE)],
     "a gang instance, not a malleable one"),
    ("sim-m-file-and-serial-fraction", lambda t: [*SIM_M, str(MAL_FILE), "--serial-fraction",
                                                  "0.1"], "option --serial-fraction"),
    ("sim-m-scheduler-unknown", lambda t: [*SIM_M, str(MAL_FILE), "--scheduler", "star"],
     "'--scheduler'"),
    ("sim-m-policy-lowercase", lambda t: [*SIM_M, str(MAL_FILE), "--policy", "a"],
     "'--policy'"),
    ("sim-m-seed-negative", lambda t: [*SIM_M, str(MAL_FILE), "--seed", "-1"], "'--seed'"),
    ("sim-m-seed-huge", lambda t: [*SIM_M, "--jobs", "3", "--seed", str(10**40)], "'--seed'"),
    ("sim-m-jobs-fraction", lambda t: [*SIM_M, "--jobs", "2.5"], "'--jobs'"),
    ("sim-m-serial-fraction-inf", lambda t: [*SIM_M, "--serial-fraction", "inf"],
     "'--serial-fraction'"),
    ("sim-m-output-stdout", lambda t: [*SIM_M, str(MAL_FILE), "-o", "-", "--json"],
     "-o -: standard output shows"),
    ("sim-m-save-instance-stdout", lambda t: [*SIM_M, "--jobs", "3", "--save-instance", "-"],
     "--save-instance -: standard output shows"),
    ("sim-m-output-folder", lambda t: [*SIM_M, str(MAL_FILE), "-o", str(t)], "is a folder"),
    ("sim-m-output-unwritable", lambda t: [*SIM_M, str(MAL_FILE), "-o",
                                           f"{unwritable_folder(t)}/s.json"],
     "cannot write in folder"),
    ("sim-m-save-instance-over-input", lambda t: [*SIM_M, mal(t), "--save-instance",
                                                  str(t / "m.json")], "is an input file"),
    ("sim-m-save-instance-over-tree", lambda t: [*SIM_M, "--tree", toml(t, TOML),
                                                 "--save-instance", str(t / "t.toml")],
     "is an input file"),
    ("sim-m-output-parent-is-file", lambda t: [*SIM_M, str(MAL_FILE), "-o", str(
        Path(write(t, "f", "")) / "s.json")], "is not a folder"),
    ("sim-m-tree-two-resources-named-root", lambda t: [*SIM_M, "--tree", platform(
        t, both(set_in("resources.0.id", "root"), drop("tree"),
                set_in("resources.1.id", "root")))], "field resources: duplicate id 'root'"),
    ("sim-m-tree-unknown-format", lambda t: [*SIM_M, "--tree", write(t, "t.yaml", "a: 1")],
     "unknown tree format '.yaml'"),
    # -- simulate gang --------------------------------------------------------------------
    ("sim-g-missing-file", lambda t: [*SIM_G, str(t / "gone.json")], "gone.json: no such file"),
    ("sim-g-malleable-instance", lambda t: [*SIM_G, str(MAL_FILE)],
     "a malleable instance, not a gang one"),
    ("sim-g-other-family", lambda t: [*SIM_G, str(HD_FILE)], "a hybrid-deadline instance"),
    ("sim-g-method-unknown", lambda t: [*SIM_G, str(GANG_FILE), "--method", "lifo"],
     "unknown method 'lifo' for family 'gang'"),
    ("sim-g-method-empty", lambda t: [*SIM_G, str(GANG_FILE), "--method", ""],
     "unknown method ''"),
    ("sim-g-file-and-rate", lambda t: [*SIM_G, str(GANG_FILE), "--rate", "5"], "option --rate"),
    ("sim-g-file-and-vms", lambda t: [*SIM_G, str(GANG_FILE), "--vms", "5"], "option --vms"),
    ("sim-g-file-and-scenario", lambda t: [*SIM_G, str(GANG_FILE), "--scenario", "table2"],
     "option --scenario"),
    ("sim-g-rate-nan", lambda t: [*SIM_G, "--rate", "nan"], "'--rate'"),
    ("sim-g-rate-too-low", lambda t: [*SIM_G, "--jobs", "20", "--rate", "1e-12"],
     "too low for 20 jobs"),
    ("sim-g-vms-zero", lambda t: [*SIM_G, "--vms", "0"], "'--vms'"),
    ("sim-g-pairs-too-many", lambda t: [*SIM_G, "--jobs", "1000000", "--vms", "100000"],
     "(job, VM) pairs"),
    ("sim-g-policy-option", lambda t: [*SIM_G, str(GANG_FILE), "--policy", "A"],
     "No such option: --policy"),
    ("sim-g-output-same-as-save", lambda t: [*SIM_G, "--jobs", "3", "-o", str(t / "x.json"),
                                            "--save-instance", str(t / "x.json")],
     "name the same file"),
    ("sim-g-output-over-input", lambda t: [*SIM_G, gang(t), "-o", str(t / "g.json")],
     "is an input file"),
    ("sim-g-output-missing-folder", lambda t: [*SIM_G, str(GANG_FILE), "-o",
                                               str(t / "no" / "s.json")], "does not exist"),
    ("sim-g-save-instance-unwritable", lambda t: [*SIM_G, "--jobs", "3", "--save-instance",
                                                  f"{unwritable_folder(t)}/i.json"],
     "cannot write in folder"),
    ("sim-g-output-stdout", lambda t: [*SIM_G, str(GANG_FILE), "-o", "-"],
     "-o -: standard output shows"),
    # -- generate malleable ----------------------------------------------------------------
    ("gen-m-jobs-negative", lambda t: [*GEN_M, "--jobs", "-3", "-o", str(t / "x.json")],
     "'--jobs'"),
    ("gen-m-jobs-too-many", lambda t: [*GEN_M, "--jobs", "2000000", "-o", str(t / "x.json")],
     "'--jobs'"),
    ("gen-m-seed-huge", lambda t: [*GEN_M, "--seed", str(10**40), "-o", str(t / "x.json")],
     "'--seed'"),
    ("gen-m-seed-word", lambda t: [*GEN_M, "--seed", "lucky", "-o", str(t / "x.json")],
     "'--seed'"),
    ("gen-m-serial-fraction-nan", lambda t: [*GEN_M, "--serial-fraction", "nan", "-o",
                                             str(t / "x.json")], "'--serial-fraction'"),
    ("gen-m-mix-empty", lambda t: [*GEN_M, "--mix", "", "-o", str(t / "x.json")], "'--mix'"),
    ("gen-m-name-empty", lambda t: [*GEN_M, "--name", " ", "-o", str(t / "x.json")],
     "'--name'"),
    ("gen-m-output-missing", lambda t: [*GEN_M], "Missing option '-o'"),
    ("gen-m-output-empty", lambda t: [*GEN_M, "-o", ""], "-o: empty file name"),
    ("gen-m-output-folder", lambda t: [*GEN_M, "-o", str(t)], "is a folder"),
    ("gen-m-output-unwritable", lambda t: [*GEN_M, "-o", f"{unwritable_folder(t)}/x.json"],
     "cannot write in folder"),
    ("gen-m-output-is-tree", lambda t: [*GEN_M, "--tree", toml(t, TOML), "-o",
                                        str(t / "t.toml")], "is an input file"),
    ("gen-m-tree-folder", lambda t: [*GEN_M, "--tree", str(t), "-o", str(t / "x.json")],
     "is a folder, not a file"),
    ("gen-m-tree-gang-instance", lambda t: [*GEN_M, "--tree", str(GANG_FILE), "-o",
                                            str(t / "x.json")],
     "field family: a platform file is a malleable instance"),
    ("gen-m-tree-bad-instance", lambda t: [*GEN_M, "--tree", mal(t, set_in(f"{J0}.size", -1)),
                                           "-o", str(t / "x.json")], "field jobs.0.size"),
    ("gen-m-tree-duplicate-resource", lambda t: [*GEN_M, "--tree", platform(
        t, set_in("resources.1.id", "dedicated-1")), "-o", str(t / "x.json")],
     "field resources: duplicate id 'dedicated-1'"),
    ("gen-m-huge-cloud", lambda t: [*GEN_M, "--jobs", "1000", "--tree", toml(
        t, 'fanout = [1]\n[[leaves]]\ntype = "cloud"\ncpus = 1\nprice = 60\n'
           'max_vms = 1000000\n'), "-o", str(t / "x.json")], "(job, VM count) pairs"),
    # -- generate gang --------------------------------------------------------------------
    ("gen-g-jobs-negative", lambda t: [*GEN_G, "--jobs", "-1", "-o", str(t / "x.json")],
     "'--jobs'"),
    ("gen-g-rate-zero", lambda t: [*GEN_G, "--rate", "0", "-o", str(t / "x.json")], "'--rate'"),
    ("gen-g-rate-inf", lambda t: [*GEN_G, "--rate", "inf", "-o", str(t / "x.json")],
     "'--rate'"),
    ("gen-g-rate-negative", lambda t: [*GEN_G, "--rate", "-10", "-o", str(t / "x.json")],
     "'--rate'"),
    ("gen-g-rate-too-low", lambda t: [*GEN_G, "--rate", "1e-300", "-o", str(t / "x.json")],
     "too low for 1000 jobs"),
    ("gen-g-vms-too-many", lambda t: [*GEN_G, "--vms", "100001", "-o", str(t / "x.json")],
     "'--vms'"),
    ("gen-g-scenario-unknown", lambda t: [*GEN_G, "--scenario", "table3", "-o",
                                          str(t / "x.json")], "'--scenario'"),
    ("gen-g-seed-huge", lambda t: [*GEN_G, "--seed", str(2**64), "-o", str(t / "x.json")],
     "'--seed'"),
    ("gen-g-name-empty", lambda t: [*GEN_G, "--name", "", "-o", str(t / "x.json")],
     "'--name'"),
    ("gen-g-output-folder", lambda t: [*GEN_G, "-o", str(t)], "is a folder"),
    ("gen-g-output-missing-folder", lambda t: [*GEN_G, "-o", str(t / "a" / "b.json")],
     "does not exist"),
    ("gen-g-unknown-option", lambda t: [*GEN_G, "--tree", "x.toml", "-o", str(t / "x.json")],
     "No such option: --tree"),
    # -- tree: TOML configs ---------------------------------------------------------------
    ("tree-toml-missing", lambda t: ["tree", str(t / "gone.toml")], "gone.toml: no such file"),
    ("tree-toml-folder", lambda t: ["tree", str(t)], "is a folder, not a file"),
    ("tree-toml-empty", lambda t: ["tree", toml(t, "")], "fanout: Field required"),
    ("tree-toml-malformed", lambda t: ["tree", toml(t, TOML.replace("[2]", "[2"))],
     "t.toml:3: invalid TOML"),
    ("tree-toml-binary", lambda t: ["tree", write(t, "b.toml", b"\x00\xff\xfe")],
     "not UTF-8"),
    ("tree-toml-unknown-key", lambda t: ["tree", toml(t, "depth = 3\n" + TOML)],
     "t.toml:1: depth"),
    ("tree-toml-fanout-string", lambda t: ["tree", toml(t, TOML.replace("[2]", '"2"'))],
     "t.toml:2: fanout"),
    ("tree-toml-fanout-zero", lambda t: ["tree", toml(t, TOML.replace("[2]", "[3, 0]"))],
     "fanout[1]"),
    ("tree-toml-fanout-fraction", lambda t: ["tree", toml(t, TOML.replace("[2]", "[1.5]"))],
     "fanout[0]"),
    ("tree-toml-fanout-nan", lambda t: ["tree", toml(t, TOML.replace("[2]", "[nan]"))],
     "fanout[0]"),
    ("tree-toml-fanout-empty", lambda t: ["tree", toml(t, TOML.replace("[2]", "[]"))],
     "fanout"),
    ("tree-toml-too-many-leaves", lambda t: ["tree", toml(t, TOML.replace("[2]",
                                                                          "[1000, 1000]"))],
     "1000000 leaves, more than 100000"),
    ("tree-toml-no-leaves", lambda t: ["tree", toml(t, 'fanout = [2]\n')],
     "leaves: Field required"),
    ("tree-toml-leaves-empty", lambda t: ["tree", toml(t, 'fanout = [2]\nleaves = []\n')],
     "leaves"),
    ("tree-toml-leaf-zero-cpus", lambda t: ["tree", toml(t, TOML.replace("cpus = 8",
                                                                         "cpus = 0"))],
     "leaves[0]: cpus"),
    ("tree-toml-leaf-type-unknown", lambda t: ["tree", toml(t, TOML.replace('"dedicated"',
                                                                            '"quantum"'))],
     "leaves[0]: type"),
    ("tree-toml-leaf-unknown-key", lambda t: ["tree", toml(t, TOML + "colour = 'red'\n")],
     "leaves[0]: colour"),
    ("tree-toml-leaf-id", lambda t: ["tree", toml(t, TOML + 'id = "mine"\n')],
     "leaves[0]: id: not a field here"),
    ("tree-toml-leaf-price-inf", lambda t: ["tree", toml(t, TOML.replace(
        '"dedicated"', '"allocated"') + "price = inf\n")], "leaves[0]: price"),
    ("tree-toml-cloud-without-max-vms", lambda t: ["tree", toml(t, TOML.replace(
        '"dedicated"', '"cloud"') + "price = 60\n")], "a cloud needs max_vms"),
    ("tree-toml-name-empty", lambda t: ["tree", toml(t, TOML.replace('"t"', '""'))],
     "t.toml:1: name"),
    ("tree-toml-name-number", lambda t: ["tree", toml(t, TOML.replace('"t"', "5"))],
     "t.toml:1: name"),
    # -- tree: GraphML --------------------------------------------------------------------
    ("tree-graphml-empty", lambda t: ["tree", write(t, "e.graphml", "")], "invalid GraphML"),
    ("tree-graphml-truncated", lambda t: ["tree", write(t, "tr.graphml", GRAPHML[:700])],
     "invalid GraphML"),
    ("tree-graphml-undirected", lambda t: ["tree", graphml(t, 'edgedefault="directed"',
                                                           'edgedefault="undirected"')],
     "must be directed"),
    ("tree-graphml-cycle", lambda t: ["tree", graphml(t, CYCLE, CYCLE + '<edge source='
                                                      '"agent-1-1" target="root" />')],
     "p.graphml: cycle"),
    ("tree-graphml-self-loop", lambda t: ["tree", graphml(t, CYCLE, CYCLE + '<edge source='
                                                          '"agent-1-1" target="agent-1-1" />')],
     "is its own child"),
    ("tree-graphml-parallel-edges", lambda t: ["tree", graphml(t, CYCLE, CYCLE * 2)],
     "edge 'agent-1-2' -> 'cloud-1' is given twice"),
    ("tree-graphml-duplicate-node", lambda t: ["tree", graphml(t, '<node id="allocated-1">',
                                                               '<node id="dedicated-1">')],
     "node 'dedicated-1' is declared twice"),
    ("tree-graphml-disconnected-leaf", lambda t: ["tree", graphml(
        t, '<node id="root">', '<node id="lonely"><data key="d2">dedicated</data>'
                               '<data key="d3">4</data></node><node id="root">')],
     "resource 'lonely' is not a leaf of the tree"),
    ("tree-graphml-childless-agent", lambda t: ["tree", graphml(
        t, '<node id="root">', '<node id="idle"><data key="d1">agent</data></node>'
                               '<node id="root">')], "agent 'idle' has no children"),
    ("tree-graphml-edge-to-nowhere", lambda t: ["tree", graphml(
        t, CYCLE, CYCLE + '<edge source="agent-1-2" target="ghost" />')],
     "leaf 'ghost' is not a local scheduler"),
    ("tree-graphml-zero-cpus", lambda t: ["tree", graphml(t, '<data key="d3">64</data>',
                                                          '<data key="d3">0</data>')],
     "node 'dedicated-1': field cpus"),
    ("tree-graphml-cpus-word", lambda t: ["tree", graphml(t, '<data key="d3">64</data>',
                                                          '<data key="d3">many</data>')],
     "invalid GraphML"),
    ("tree-graphml-agent-with-fields", lambda t: ["tree", graphml(
        t, '<data key="d1">agent</data>', '<data key="d1">agent</data><data key="d3">4</data>')],
     "node 'root' has children, so it is an agent, but carries resource fields (cpus)"),
    ("tree-graphml-unknown-kind", lambda t: ["tree", graphml(t, '<data key="d1">agent</data>',
                                                             '<data key="d1">robot</data>')],
     "kind must be agent or scheduler"),
    ("tree-graphml-undeclared-key", lambda t: ["tree", graphml(t, '<data key="d3">64</data>',
                                                               '<data key="d99">64</data>')],
     "no key d99"),
    # -- tree: JSON platform files ----------------------------------------------------------
    ("tree-json-malformed", lambda t: ["tree", write(t, "p.json", '{"resources": [')],
     "p.json:1:"),
    ("tree-json-list", lambda t: ["tree", write(t, "p.json", "[]")],
     "expected a JSON object with 'resources'"),
    ("tree-json-duplicate-resource", lambda t: ["tree", platform(
        t, set_in("resources.1.id", "dedicated-1"))],
     "p.json: field resources: duplicate id 'dedicated-1'"),
    ("tree-json-duplicate-resource-no-tree", lambda t: ["tree", platform(
        t, both(set_in("resources.1.id", "dedicated-1"), drop("tree")))],
     "p.json: field resources: duplicate id 'dedicated-1'"),
    ("tree-json-resources-empty", lambda t: ["tree", platform(t, set_in("resources", []))],
     "field resources: List should have at least 1 item"),
    ("tree-json-resource-id-number", lambda t: ["tree", platform(t, set_in("resources.0.id",
                                                                           5))],
     "field resources.0.id"),
    ("tree-json-zero-cpus", lambda t: ["tree", platform(t, set_in("resources.0.cpus", 0))],
     "field resources.0.cpus: Input should be greater than or equal to 1 "
     "(resource 'dedicated-1')"),
    ("tree-json-unknown-key", lambda t: ["tree", platform(t, set_in("layout", "radial"))],
     "field layout: Extra inputs are not permitted"),
    ("tree-json-name-number", lambda t: ["tree", platform(t, set_in("name", 3))], "field name"),
    ("tree-json-cycle", lambda t: ["tree", platform(
        t, lambda d: d["tree"]["edges"].append(["agent-1-2", "root"]))],
     "field tree: cycle root -> agent-1-2 -> root"),
    ("tree-json-two-parents", lambda t: ["tree", platform(
        t, lambda d: d["tree"]["edges"].append(["agent-1-2", "dedicated-1"]))],
     "node 'dedicated-1' has two parents"),
    ("tree-json-resource-with-children", lambda t: ["tree", platform(t, set_in("tree", {
        "edges": [["root", "a"], ["a", "dedicated-1"], ["dedicated-1", "allocated-1"],
                  ["a", "allocated-2"], ["a", "cloud-1"]]}))],
     "node 'dedicated-1' is a resource (a local scheduler, a leaf): it cannot have children"),
    ("tree-json-edge-names-number", lambda t: ["tree", platform(
        t, set_in("tree", {"edges": [[1, 2]]}))], "field tree.edges.0.0"),
    ("tree-json-chain-cycle", lambda t: ["tree", platform(t, set_in("tree", {"edges": [
        [f"a{k}", f"a{k + 1}"] for k in range(3000)] + [["a3000", "a0"]]}))],
     "field tree: cycle"),
    ("tree-json-output-plot-extension", lambda t: ["tree", str(PAPER_JSON), "-o",
                                                   str(t / "tree.json")],
     "cannot draw a plot with '.json'"),
    ("tree-output-unwritable", lambda t: ["tree", str(PAPER_TOML), "-o",
                                          f"{unwritable_folder(t)}/t.png"],
     "cannot write in folder"),
    ("tree-output-folder", lambda t: ["tree", str(PAPER_TOML), "-o", str(t)], "is a folder"),
    ("tree-no-config", lambda t: ["tree"], "Missing argument 'CONFIG'"),
    # -- gantt ----------------------------------------------------------------------------
    ("gantt-m-gang-solution", lambda t: ["gantt", str(MAL_FILE), gsol(t, lambda d: None), "-o",
                                         str(t / "g.png")],
     "solution is for 'gang', instance is 'malleable'"),
    ("gantt-g-unknown-vm", lambda t: ["gantt", str(GANG_FILE), gsol(
        t, set_in("started.0.vms", ["nope"])), "-o", str(t / "g.png")], "unknown VM 'nope'"),
    ("gantt-m-unknown-resource", lambda t: ["gantt", str(MAL_FILE), msol(
        t, set_in("jobs.0.resource", "nope")), "-o", str(t / "g.png")],
     "unknown resource 'nope'"),
    ("gantt-g-output-extension", lambda t: ["gantt", str(GANG_FILE), gsol(t, lambda d: None),
                                            "-o", str(t / "g.csv")], "cannot draw a plot"),
    ("gantt-m-max-rows-zero", lambda t: ["gantt", str(MAL_FILE), msol(t, lambda d: None), "-o",
                                         str(t / "g.png"), "--max-rows", "0"], "'--max-rows'"),
    ("gantt-g-output-over-solution", lambda t: ["gantt", str(GANG_FILE), write(
        t, "s.png", json.dumps(GANG_SOL)), "-o", str(t / "s.png")], "is an input file"),
    # -- compare --------------------------------------------------------------------------
    ("compare-m-bad-file", lambda t: ["compare", str(MAL_FILE), mal(t, set_in(f"{J0}.size", 0)),
                                      "--methods", "tree"], "field jobs.0.size"),
    ("compare-g-missing-file", lambda t: ["compare", str(GANG_FILE), str(t / "gone.json"),
                                          "--methods", "fifo"], "gone.json: no such file"),
    ("compare-g-unknown-method", lambda t: ["compare", str(GANG_FILE), "--methods",
                                            "fifo,tree"], "unknown method 'tree'"),
    ("compare-m-objective-unknown", lambda t: ["compare", str(MAL_FILE), "--methods", "tree",
                                               "--objective", "unfinished"],
     "--objective"),
    ("compare-g-time-limit-inf", lambda t: ["compare", str(GANG_FILE), "--time-limit", "inf"],
     "'--time-limit'"),
    ("compare-m-empty-tree-edges", lambda t: ["compare", mal(t, set_in("tree", {"edges": []})),
                                              "--methods", "tree"], "field tree.edges"),
]


def _outputs(argv: list[str]) -> list[Path]:
    """The files a command line asks to write (after ``-o`` or ``--save-instance``)."""
    return [Path(argv[k + 1]) for k, a in enumerate(argv[:-1])
            if a in ("-o", "--output", "--save-instance") and argv[k + 1] not in ("", "-")]


@pytest.mark.parametrize(("argv", "fragment"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_with_exit_code_2(tmp_path, cli, argv, fragment):
    args = argv(tmp_path)
    before = {p: p.exists() for p in _outputs(args)}
    code, out, err = cli(*args)
    assert_one_error_line(code, out, err, fragment)
    for path, existed in before.items():  # nothing new is written, and inputs stay
        assert path.exists() == existed, path


def test_the_corpus_covers_every_command(tmp_path):
    commands = {" ".join(argv(tmp_path)[:2]) if argv(tmp_path)[0] in ("simulate", "generate")
                else argv(tmp_path)[0] for _, argv, _ in CASES}
    assert {"solve", "validate", "simulate malleable", "simulate gang", "generate malleable",
            "generate gang", "tree", "gantt", "compare"} <= commands
    assert len(CASES) >= 150
    assert len({c[0] for c in CASES}) == len(CASES)
