"""Adversarial corpus of the pull family, the trace importers and the SOFT study.

Every case runs one command in-process on a bad file or option and must end
with exit code 2, exactly one line on standard error that starts with
``error: `` and names the file, line, field or option, no traceback, and no
output left behind (the folder the case works in is unchanged, apart from
the inputs the case wrote). Commands: ``generate pull``, ``simulate pull``,
``validate``, ``gantt``, ``solve`` and ``compare`` on pull files,
``import-fta``, ``import-swf`` (both families) and ``soft``.

Exit code 1 (an instance no host can complete) is tested at the end.
"""

from __future__ import annotations

import bz2
import copy
import gzip
import json
import lzma
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from corpus import assert_one_error_line, drop, edited, replaced, set_in, tree_state, write

#: A folder nobody may write in, root included (the tests run as root in CI).
UNWRITABLE = "/proc"
LINUX = os.path.isdir("/proc/self")

PULL = {"format": "hybridsched-instance", "version": 1, "family": "pull", "name": "tiny",
        "work_units": [{"id": "w0", "noi": 1000}, {"id": "w1", "noi": 2000, "arrival": 5},
                       {"id": "w2", "noi": 1500}],
        "hosts": [{"id": "c0", "dci": "cloud", "cpu": 100, "price": 0.01},
                  {"id": "i0", "dci": "idg", "cpu": 50, "error": 0.3,
                   "windows": [[0, 100], [200, None]]}],
        "behaviour": {"delayed": 0.15, "never": 0.05, "max_delay": 1.5, "seed": 1}}

FTA = ("# event_id component_id node_id platform_id node_name type start stop reason\n"
       "1 0 n1 0 a 1 1200000000 1200040000 0\n"
       "2 0 n1 0 a 0 1200040000 1200050000 0\n"
       "3 0 n1 0 a 1 1200050000 -1 0\n"
       "4 0 n2 0 b 1 1200000000 -1 0\n")

SWF_RECORD = "{n} {submit} -1 {run} {procs} -1 -1 {procs} -1 -1 1 1 1 -1 -1 -1 -1 -1\n"


# -- builders ---------------------------------------------------------------------------

def inst(tmp: Path, change: Callable[[dict], object] = lambda d: None,
         name: str = "i.json") -> str:
    return write(tmp, name, edited(PULL, change))


def inst_text(tmp: Path, old: str, new: str) -> str:
    """The instance's JSON text with one literal replaced."""
    return write(tmp, "raw.json", replaced(PULL, old, new))


@cache
def _schedule() -> str:
    """A valid schedule of :data:`PULL` (JSON text), simulated once."""
    from hybridsched.catalogue import get_family
    from hybridsched.registry import run_method

    family = get_family("pull")
    instance = family.instance_from_dict(copy.deepcopy(PULL), "i.json")
    result = run_method("pull", "fcfs", instance)
    return json.dumps(family.solution_to_dict(result.solution, instance))


def sol(tmp: Path, change: Callable[[dict], object] = lambda d: None) -> str:
    return write(tmp, "s.json", edited(json.loads(_schedule()), change))


def fta(tmp: Path, text: str = FTA, name: str = "t.txt") -> str:
    return write(tmp, name, text)


def swf(tmp: Path, *records: str, name: str = "t.swf", header: str = "; Computer: X\n",
        compress: Callable[[bytes], bytes] | None = None) -> str:
    data = (header + "".join(records)).encode()
    return write(tmp, name, compress(data) if compress else data)


def rec(n: int = 1, run: str = "100", procs: str = "4", submit: str = "0") -> str:
    return SWF_RECORD.format(n=n, run=run, procs=procs, submit=submit)


def spec(tmp: Path, text: str, name: str = "soft.toml") -> str:
    return write(tmp, name, text)


def study_folder(tmp: Path, campaign: str | None, runs: bool = False) -> str:
    """A results folder marked with ``campaign`` as its campaign.toml (and a runs/ folder)."""
    folder = tmp / "res"
    folder.mkdir()
    if campaign is not None:
        (folder / "campaign.toml").write_text(campaign)
    if runs:
        (folder / "runs").mkdir()
    return str(folder)


SMALL = '[study]\nname = "mine"\nunits = 5\nfamilies = [1]\nweights = [1, 2]\n'
GEN = ["generate", "pull"]
SIM = ["simulate", "pull"]


def o(tmp: Path, name: str = "out.json") -> list[str]:
    return ["-o", str(tmp / name)]


# (id, argv builder, fragment expected in the one stderr line)
CASES: list[tuple[str, Callable[[Path], list[str]], str]] = [
    # -- generate pull ----------------------------------------------------------------------
    ("gen-units-negative", lambda t: [*GEN, "--units", "-1", *o(t)], "'--units'"),
    ("gen-units-huge", lambda t: [*GEN, "--units", "100001", *o(t)], "'--units'"),
    ("gen-units-word", lambda t: [*GEN, "--units", "many", *o(t)], "'--units'"),
    ("gen-units-float", lambda t: [*GEN, "--units", "2.5", *o(t)], "'--units'"),
    ("gen-dci-empty", lambda t: [*GEN, "--dci", "", *o(t)], "'--dci'"),
    ("gen-dci-commas", lambda t: [*GEN, "--dci", ",,", *o(t)], "'--dci'"),
    ("gen-dci-unknown", lambda t: [*GEN, "--dci", "idg,grid", *o(t)], "(got idg, grid)"),
    ("gen-dci-twice", lambda t: [*GEN, "--dci", "idg,cloud,idg", *o(t)], "names a DCI twice"),
    ("gen-seed-negative", lambda t: [*GEN, "--seed", "-1", *o(t)], "'--seed'"),
    ("gen-seed-float", lambda t: [*GEN, "--seed", "1.5", *o(t)], "'--seed'"),
    ("gen-seed-2-64", lambda t: [*GEN, "--seed", str(2**64), *o(t)], "'--seed'"),
    ("gen-capacity-zero", lambda t: [*GEN, "--capacity", "0", *o(t)], "'--capacity'"),
    ("gen-capacity-negative", lambda t: [*GEN, "--capacity", "-5", *o(t)], "'--capacity'"),
    ("gen-capacity-nan", lambda t: [*GEN, "--capacity", "nan", *o(t)], "'--capacity'"),
    ("gen-capacity-inf", lambda t: [*GEN, "--capacity", "inf", *o(t)], "'--capacity'"),
    ("gen-capacity-too-many-hosts", lambda t: [*GEN, "--capacity", "1e9", *o(t)],
     "more than 100,000 hosts"),
    ("gen-behaviour-unknown", lambda t: [*GEN, "--behaviour", "sometimes", *o(t)],
     "'--behaviour'"),
    ("gen-name-empty", lambda t: [*GEN, "--name", "", *o(t)], "'--name'"),
    ("gen-output-folder", lambda t: [*GEN, "-o", str(t)], "is a folder"),
    ("gen-output-missing-folder", lambda t: [*GEN, "-o", str(t / "no" / "x.json")],
     "does not exist"),
    ("gen-output-empty", lambda t: [*GEN, "-o", ""], "-o: empty file name"),
    ("gen-output-parent-is-file", lambda t: [*GEN, "-o", write(t, "f", "") + "/x.json"],
     "is not a folder"),
    ("gen-output-unwritable", lambda t: [*GEN, "-o", f"{UNWRITABLE}/x.json"], "cannot write"),
    ("gen-no-output", lambda t: [*GEN], "Missing option '-o'"),
    ("gen-unknown-option", lambda t: [*GEN, "--hosts", "3", *o(t)], "No such option: --hosts"),
    # -- simulate pull: reading the instance ------------------------------------------------
    ("sim-missing-file", lambda t: [*SIM, str(t / "none.json")], "none.json: no such file"),
    ("sim-folder", lambda t: [*SIM, str(t)], "is a folder"),
    ("sim-empty-file", lambda t: [*SIM, write(t, "e.json", "")], "e.json:1:1: malformed JSON"),
    ("sim-truncated", lambda t: [*SIM, write(t, "tr.json", json.dumps(PULL)[:150])],
     "tr.json:1:151: malformed JSON"),
    ("sim-not-utf8", lambda t: [*SIM, write(t, "u.json", b"\xff\xfe{}")], "u.json: not UTF-8"),
    ("sim-gzip-instance", lambda t: [*SIM, write(t, "g.json", gzip.compress(b"{}"))],
     "g.json: not UTF-8"),
    ("sim-top-level-array", lambda t: [*SIM, write(t, "a.json", "[]")],
     "expected a JSON object"),
    ("sim-nan-constant", lambda t: [*SIM, inst_text(t, '"noi": 1000', '"noi": NaN')],
     "NaN is not a JSON number"),
    ("sim-overflowing-number", lambda t: [*SIM, inst_text(t, '"noi": 1000', '"noi": 1e400')],
     "1e400 is out of range"),
    ("sim-duplicate-key", lambda t: [*SIM, inst_text(t, '"cpu": 100', '"cpu": 100, "cpu": 1')],
     "field hosts.0: duplicate key 'cpu'"),
    ("sim-no-family", lambda t: [*SIM, inst(t, drop("family"))], "field family"),
    ("sim-other-family", lambda t: [*SIM, str(Path(__file__).resolve().parents[2] / "instances"
                                              / "hybrid-deadline" / "small-01.json")],
     "a hybrid-deadline instance, not a pull one"),
    ("sim-solution-as-instance", lambda t: [*SIM, sol(t)], "this is a solution file"),
    ("sim-version-2", lambda t: [*SIM, inst(t, set_in("version", 2))], "field version"),
    ("sim-unknown-field", lambda t: [*SIM, inst(t, set_in("surprise", 1))], "field surprise"),
    ("sim-seed-string", lambda t: [*SIM, inst(t, set_in("seed", "1"))], "field seed"),
    # -- simulate pull: work units ---------------------------------------------------------
    ("unit-noi-zero", lambda t: [*SIM, inst(t, set_in("work_units.0.noi", 0))],
     "work_units.0.noi"),
    ("unit-noi-negative", lambda t: [*SIM, inst(t, set_in("work_units.1.noi", -1))],
     "work_units.1.noi"),
    ("unit-noi-string", lambda t: [*SIM, inst(t, set_in("work_units.0.noi", "1000"))],
     "work_units.0.noi: expected a number, got the string"),
    ("unit-noi-bool", lambda t: [*SIM, inst(t, set_in("work_units.0.noi", True))],
     "work_units.0.noi: expected a number, got the boolean"),
    ("unit-noi-huge", lambda t: [*SIM, inst(t, set_in("work_units.0.noi", 1e16))],
     "work_units.0.noi"),
    ("unit-noi-missing", lambda t: [*SIM, inst(t, drop("work_units.0.noi"))],
     "work_units.0.noi: Field required"),
    ("unit-arrival-negative", lambda t: [*SIM, inst(t, set_in("work_units.1.arrival", -5))],
     "work_units.1.arrival"),
    ("unit-arrival-beyond-horizon", lambda t: [*SIM, inst(t, set_in("work_units.1.arrival",
                                                                     2e9))],
     "work_units.1.arrival"),
    ("unit-id-missing", lambda t: [*SIM, inst(t, drop("work_units.2.id"))], "work_units.2.id"),
    ("unit-id-empty", lambda t: [*SIM, inst(t, set_in("work_units.2.id", ""))],
     "work_units.2.id"),
    ("unit-id-number", lambda t: [*SIM, inst(t, set_in("work_units.2.id", 7))],
     "work_units.2.id"),
    ("unit-id-duplicate", lambda t: [*SIM, inst(t, set_in("work_units.2.id", "w0"))],
     "field work_units: duplicate id 'w0'"),
    ("units-not-a-list", lambda t: [*SIM, inst(t, set_in("work_units", {"w0": 1}))],
     "field work_units"),
    ("units-missing", lambda t: [*SIM, inst(t, drop("work_units"))],
     "field work_units: Field required"),
    ("unit-unknown-key", lambda t: [*SIM, inst(t, set_in("work_units.0.deadline", 5))],
     "work_units.0.deadline"),
    # -- simulate pull: hosts and windows ---------------------------------------------------
    ("hosts-empty", lambda t: [*SIM, inst(t, set_in("hosts", []))], "field hosts"),
    ("hosts-missing", lambda t: [*SIM, inst(t, drop("hosts"))], "field hosts: Field required"),
    ("host-dci-unknown", lambda t: [*SIM, inst(t, set_in("hosts.0.dci", "grid"))],
     "hosts.0.dci"),
    ("host-cpu-zero", lambda t: [*SIM, inst(t, set_in("hosts.0.cpu", 0))], "hosts.0.cpu"),
    ("host-cpu-negative", lambda t: [*SIM, inst(t, set_in("hosts.1.cpu", -50))],
     "hosts.1.cpu"),
    ("host-cpu-huge", lambda t: [*SIM, inst(t, set_in("hosts.0.cpu", 1e13))], "hosts.0.cpu"),
    ("host-cpu-missing", lambda t: [*SIM, inst(t, drop("hosts.0.cpu"))], "hosts.0.cpu"),
    ("host-price-negative", lambda t: [*SIM, inst(t, set_in("hosts.0.price", -0.01))],
     "hosts.0.price"),
    ("host-error-above-1", lambda t: [*SIM, inst(t, set_in("hosts.1.error", 1.5))],
     "hosts.1.error"),
    ("host-error-string", lambda t: [*SIM, inst(t, set_in("hosts.1.error", "0.3"))],
     "hosts.1.error"),
    ("host-id-duplicate", lambda t: [*SIM, inst(t, set_in("hosts.1.id", "c0"))],
     "field hosts: duplicate id 'c0'"),
    ("windows-unsorted", lambda t: [*SIM, inst(t, set_in("hosts.1.windows",
                                                         [[200, None], [0, 100]]))],
     "hosts.1.windows.1: the window starts at 0, before the previous one ends"),
    ("windows-overlapping", lambda t: [*SIM, inst(t, set_in("hosts.1.windows",
                                                            [[0, 100], [50, 300]]))],
     "hosts.1.windows.1"),
    ("windows-zero-length", lambda t: [*SIM, inst(t, set_in("hosts.1.windows", [[5, 5]]))],
     "hosts.1.windows.0: the window ends at 5, not after its start"),
    ("windows-reversed", lambda t: [*SIM, inst(t, set_in("hosts.1.windows", [[50, 5]]))],
     "hosts.1.windows.0: the window ends at 5"),
    ("windows-negative", lambda t: [*SIM, inst(t, set_in("hosts.1.windows", [[-5, 10]]))],
     "hosts.1.windows.0.0"),
    ("windows-beyond-horizon", lambda t: [*SIM, inst(t, set_in("hosts.1.windows",
                                                               [[0, 2e9]]))],
     "hosts.1.windows.0.1"),
    ("windows-three-numbers", lambda t: [*SIM, inst(t, set_in("hosts.1.windows", [[0, 1, 2]]))],
     "hosts.1.windows.0"),
    ("windows-null-start", lambda t: [*SIM, inst(t, set_in("hosts.1.windows", [[None, 10]]))],
     "hosts.1.windows.0.0"),
    ("windows-open-then-more", lambda t: [*SIM, inst(t, set_in("hosts.1.windows",
                                                               [[0, None], [10, 20]]))],
     "hosts.1.windows.1"),
    ("windows-string", lambda t: [*SIM, inst(t, set_in("hosts.1.windows", "always"))],
     "hosts.1.windows"),
    ("behaviour-over-1", lambda t: [*SIM, inst(t, set_in("behaviour",
                                                         {"delayed": 0.7, "never": 0.5}))],
     "field behaviour: delayed + never must be at most 1"),
    ("behaviour-max-delay-below-1", lambda t: [*SIM, inst(t, set_in("behaviour.max_delay",
                                                                    0.5))],
     "behaviour.max_delay"),
    ("behaviour-seed-negative", lambda t: [*SIM, inst(t, set_in("behaviour.seed", -1))],
     "behaviour.seed"),
    ("behaviour-unknown-key", lambda t: [*SIM, inst(t, set_in("behaviour.late", 0.1))],
     "behaviour.late"),
    # -- simulate pull: options -------------------------------------------------------------
    ("sim-method-unknown", lambda t: [*SIM, inst(t), "--method", "magic"],
     "unknown method 'magic'"),
    ("sim-file-and-generator", lambda t: [*SIM, inst(t), "--units", "5"],
     "option --units: give an instance file or generator options, not both"),
    ("sim-weights-sum", lambda t: [*SIM, inst(t), "--weights", "0.5,0.5,0.3"], "must sum to 1"),
    ("sim-weights-nan", lambda t: [*SIM, inst(t), "--weights", "nan,0.5,0.5"],
     "option --weights"),
    ("sim-weights-four", lambda t: [*SIM, inst(t), "--weights", "0.25,0.25,0.25,0.25"],
     "give 3 weights"),
    ("sim-weights-words", lambda t: [*SIM, inst(t), "--weights", "a,b,c"], "option --weights"),
    ("sim-targets-unknown", lambda t: [*SIM, inst(t), "--targets", "up,max,max"],
     "each target is min or max"),
    ("sim-targets-two", lambda t: [*SIM, inst(t), "--targets", "min,max"], "give 3 targets"),
    ("sim-preference-unknown", lambda t: [*SIM, inst(t), "--preference", "cubic"],
     "'--preference'"),
    ("sim-q-nan", lambda t: [*SIM, inst(t), "--q", "nan"], "'--q'"),
    ("sim-q-negative", lambda t: [*SIM, inst(t), "--q", "-1"], "'--q'"),
    ("sim-p-inf", lambda t: [*SIM, inst(t), "--p", "inf"], "'--p'"),
    ("sim-q-above-p", lambda t: [*SIM, inst(t), "--preference", "level", "--q", "2",
                                 "--p", "1"], "q (2) must not exceed p (1)"),
    ("sim-window-zero", lambda t: [*SIM, inst(t), "--window", "0"], "'--window'"),
    ("sim-window-above-1", lambda t: [*SIM, inst(t), "--window", "1.5"], "'--window'"),
    ("sim-fcfs-with-window", lambda t: [*SIM, inst(t), "--method", "fcfs", "--window", "0.5"],
     "only the promethee method takes it"),
    ("sim-seed-negative", lambda t: [*SIM, inst(t), "--seed", "-2"], "'--seed'"),
    ("sim-gen-dci-unknown", lambda t: [*SIM, "--units", "5", "--dci", "grid"], "'--dci'"),
    ("sim-gen-behaviour", lambda t: [*SIM, "--units", "5", "--behaviour", "late"],
     "'--behaviour'"),
    ("sim-gen-capacity-nan", lambda t: [*SIM, "--units", "5", "--capacity", "nan"],
     "'--capacity'"),
    ("sim-json-with-value", lambda t: [*SIM, inst(t), "--json=yes"],
     "Option '--json' does not take a value"),
    ("sim-output-is-input", lambda t: [*SIM, inst(t), "-o", str(t / "i.json")],
     "is an input file"),
    ("sim-output-same-as-save", lambda t: [*SIM, inst(t), *o(t), "--save-instance",
                                           str(t / "out.json")],
     "-o and --save-instance name the same file"),
    ("sim-save-instance-folder", lambda t: [*SIM, "--units", "5", "--save-instance", str(t)],
     "--save-instance"),
    ("sim-output-missing-folder", lambda t: [*SIM, inst(t), "-o", str(t / "no" / "s.json")],
     "does not exist"),
    ("sim-output-unwritable", lambda t: [*SIM, inst(t), "-o", f"{UNWRITABLE}/s.json"],
     "cannot write"),
    # -- validate, gantt, solve, compare on pull files --------------------------------------
    ("val-missing-solution", lambda t: ["validate", inst(t), str(t / "none.json")],
     "none.json: no such file"),
    ("val-unknown-unit", lambda t: ["validate", inst(t), sol(t, set_in("tasks.0.unit", "zz"))],
     "field tasks.0.unit: unknown work unit 'zz'"),
    ("val-unknown-host", lambda t: ["validate", inst(t), sol(t, set_in("tasks.0.host", "zz"))],
     "field tasks.0.host: unknown host 'zz'"),
    ("val-outcome-unknown", lambda t: ["validate", inst(t), sol(t, set_in("tasks.0.outcome",
                                                                          "ok"))],
     "tasks.0.outcome"),
    ("val-start-negative", lambda t: ["validate", inst(t), sol(t, set_in("tasks.0.start", -1))],
     "tasks.0.start"),
    ("val-end-beyond-horizon", lambda t: ["validate", inst(t), sol(t, set_in("tasks.0.end",
                                                                             1e20))],
     "tasks.0.end"),
    ("val-end-string", lambda t: ["validate", inst(t), sol(t, set_in("tasks.0.end", "9"))],
     "tasks.0.end"),
    ("val-delay-below-1", lambda t: ["validate", inst(t), sol(t, set_in("tasks.0.delay", 0.5))],
     "tasks.0.delay"),
    ("val-tasks-missing", lambda t: ["validate", inst(t), sol(t, drop("tasks"))],
     "field tasks: Field required"),
    ("val-tasks-not-a-list", lambda t: ["validate", inst(t), sol(t, set_in("tasks", {}))],
     "field tasks"),
    ("val-efficiency-above-1", lambda t: ["validate", inst(t), sol(t, set_in("efficiency",
                                                                             2))],
     "field efficiency"),
    ("val-makespan-negative", lambda t: ["validate", inst(t), sol(t, set_in("makespan", -1))],
     "field makespan"),
    ("val-events-not-objects", lambda t: ["validate", inst(t), sol(t, set_in("events",
                                                                             [1, 2]))],
     "field events.0"),
    ("val-other-family", lambda t: ["validate", inst(t), sol(t, set_in("family", "gang"))],
     "field family: solution is for 'gang', instance is 'pull'"),
    ("val-truncated-solution", lambda t: ["validate", inst(t), write(t, "s.json",
                                                                     _schedule()[:200])],
     "s.json:1:190: malformed JSON"),
    ("val-swapped", lambda t: ["validate", sol(t), inst(t)],
     "this is a solution file, not an instance file"),
    ("val-instance-twice", lambda t: ["validate", inst(t), inst(t, name="j.json")],
     "this is an instance file, not a solution file"),
    ("val-bad-instance", lambda t: ["validate", inst(t, set_in("hosts", [])), sol(t)],
     "field hosts"),
    ("gantt-unknown-host", lambda t: ["gantt", inst(t), sol(t, set_in("tasks.0.host", "zz")),
                                      "-o", str(t / "g.png")], "unknown host 'zz'"),
    ("gantt-plot-extension", lambda t: ["gantt", inst(t), sol(t), "-o", str(t / "g.json")],
     "cannot draw a plot"),
    ("gantt-missing-folder", lambda t: ["gantt", inst(t), sol(t), "-o",
                                        str(t / "no" / "g.png")], "does not exist"),
    ("solve-pull-exact-backend", lambda t: ["solve", inst(t), "--method", "exact", "--backend",
                                            "gurobi"], "--backend: must be one of highs, cpsat"),
    ("solve-pull-time-limit", lambda t: ["solve", inst(t), "--method", "fcfs",
                                         "--time-limit", "-1"], "'--time-limit'"),
    ("solve-pull-output-folder", lambda t: ["solve", inst(t), "--method", "fcfs", "-o", str(t)],
     "is a folder"),
    ("compare-pull-unknown-method", lambda t: ["compare", inst(t), "--methods", "fcfs,magic"],
     "unknown method 'magic'"),
    ("compare-pull-bad-file", lambda t: ["compare", inst(t), inst(t, set_in("hosts.0.cpu", 0),
                                                                  name="bad.json")],
     "bad.json: field hosts.0.cpu"),
    # -- import-fta -------------------------------------------------------------------------
    ("fta-missing", lambda t: ["import-fta", str(t / "none.txt"), *o(t)],
     "none.txt: no such file"),
    ("fta-folder", lambda t: ["import-fta", str(t), *o(t)], "is a folder"),
    ("fta-empty", lambda t: ["import-fta", fta(t, ""), *o(t)], "t.txt: no availability event"),
    ("fta-comments-only", lambda t: ["import-fta", fta(t, "# a\n# b\n"), *o(t)],
     "no availability event"),
    ("fta-other-types-only", lambda t: ["import-fta", fta(t, "1 0 n1 0 a 0 0 10 0\n"), *o(t)],
     "no availability event (type '1' in column 5)"),
    ("fta-too-few-columns", lambda t: ["import-fta", fta(t, FTA + "5 0 n3 0 c 1 0\n"), *o(t)],
     "t.txt:6: expected at least 8 columns, found 7"),
    ("fta-start-word", lambda t: ["import-fta", fta(t, FTA + "5 0 n3 0 c 1 soon 9 0\n"), *o(t)],
     "t.txt:6: the start time must be a number"),
    ("fta-end-nan", lambda t: ["import-fta", fta(t, FTA + "5 0 n3 0 c 1 0 nan 0\n"), *o(t)],
     "t.txt:6: the end time must be a finite number"),
    ("fta-start-inf", lambda t: ["import-fta", fta(t, FTA + "5 0 n3 0 c 1 inf 9 0\n"), *o(t)],
     "t.txt:6: the start time must be a finite number"),
    ("fta-end-before-start", lambda t: ["import-fta", fta(t, FTA + "5 0 n3 0 c 1 90 10 0\n"),
                                        *o(t)], "t.txt:6: the event ends at 10, before"),
    ("fta-span-beyond-horizon", lambda t: ["import-fta", fta(t, FTA + "5 0 n3 0 c 1 "
                                                             "1200000000 3300000000 0\n"),
                                           *o(t)],
     "t.txt:6: the event reaches 3.3e+09, 2.1e+09 s after the trace's start"),
    ("fta-only-zero-length", lambda t: ["import-fta", fta(t, "1 0 n1 0 a 1 5 5 0\n"
                                                             "2 0 n2 0 b 1 9 9 0\n"), *o(t)],
     "no availability event of positive length"),
    ("fta-not-utf8", lambda t: ["import-fta", fta(t, b"1 0 n\xff 0 a 1 0 9 0\n".decode(
        "latin-1")) and write(t, "t.txt", b"1 0 n\xff 0 a 1 0 9 0\n"), *o(t)],
     "t.txt:1: not UTF-8 text"),
    ("fta-binary", lambda t: ["import-fta", write(t, "b.txt", b"\x00" * 100_000), *o(t)],
     "b.txt:1: line longer than"),
    ("fta-truncated-gzip", lambda t: ["import-fta", write(t, "t.txt.gz",
                                                          gzip.compress(FTA.encode() * 50)[:60]),
                                      *o(t)], "corrupt or truncated gzip data"),
    ("fta-corrupt-gzip-plain-name", lambda t: ["import-fta", write(
        t, "t.txt", b"\x1f\x8b\x08\x00" + b"garbage" * 10), *o(t)],
     "t.txt: corrupt or truncated gzip data"),
    ("fta-zip-archive", lambda t: ["import-fta", write(t, "t.zip", b"PK\x03\x04" + b"x" * 40),
                                   *o(t)], "t.zip: a zip archive, not a text trace"),
    ("fta-given-an-swf", lambda t: ["import-fta", swf(t, rec(1), rec(2)), *o(t)],
     "t.swf:1: expected at least 8 columns, found 3"),
    ("fta-given-a-json-instance", lambda t: ["import-fta", inst(t), *o(t)],
     "i.json: no availability event (type '1' in column 5)"),
    ("fta-dci-count", lambda t: ["import-fta", fta(t), "--dci", "idg,cloud", *o(t)],
     "option --dci: 1 trace(s) but 2 DCI(s)"),
    ("fta-dci-unknown", lambda t: ["import-fta", fta(t), "--dci", "grid", *o(t)], "'--dci'"),
    ("fta-dci-twice", lambda t: ["import-fta", fta(t), fta(t, name="u.txt"), "--dci",
                                 "idg,idg", *o(t)], "names a DCI twice"),
    ("fta-units-negative", lambda t: ["import-fta", fta(t), "--units", "-1", *o(t)],
     "'--units'"),
    ("fta-units-huge", lambda t: ["import-fta", fta(t), "--units", "100001", *o(t)],
     "'--units'"),
    ("fta-seed-negative", lambda t: ["import-fta", fta(t), "--seed", "-1", *o(t)], "'--seed'"),
    ("fta-capacity-zero", lambda t: ["import-fta", fta(t), "--capacity", "0", *o(t)],
     "'--capacity'"),
    ("fta-capacity-nan", lambda t: ["import-fta", fta(t), "--capacity", "nan", *o(t)],
     "'--capacity'"),
    ("fta-offset-negative", lambda t: ["import-fta", fta(t), "--offset", "-1", *o(t)],
     "'--offset'"),
    ("fta-offset-inf", lambda t: ["import-fta", fta(t), "--offset", "inf", *o(t)],
     "'--offset'"),
    ("fta-offset-past-every-window", lambda t: ["import-fta", fta(t, "1 0 n1 0 a 1 0 90 0\n"),
                                                "--offset", "100", *o(t)],
     "no host is available after the offset 100 s"),
    ("fta-node-column-negative", lambda t: ["import-fta", fta(t), "--node-column", "-1",
                                            *o(t)], "'--node-column'"),
    ("fta-end-column-far", lambda t: ["import-fta", fta(t), "--end-column", "40", *o(t)],
     "t.txt:2: expected at least 41 columns, found 9"),
    ("fta-type-column-word", lambda t: ["import-fta", fta(t), "--type-column", "five", *o(t)],
     "'--type-column'"),
    ("fta-start-column-names-a-word", lambda t: ["import-fta", fta(t), "--start-column", "4",
                                                 *o(t)], "t.txt:2: the start time must be a "
                                                         "number, got 'a'"),
    ("fta-available-type-absent", lambda t: ["import-fta", fta(t), "--available-type", "up",
                                             *o(t)], "no availability event (type 'up'"),
    ("fta-behaviour-unknown", lambda t: ["import-fta", fta(t), "--behaviour", "late", *o(t)],
     "'--behaviour'"),
    ("fta-name-empty", lambda t: ["import-fta", fta(t), "--name", "", *o(t)], "'--name'"),
    ("fta-output-is-input", lambda t: ["import-fta", fta(t), "-o", str(t / "t.txt")],
     "is an input file"),
    ("fta-output-folder", lambda t: ["import-fta", fta(t), "-o", str(t)], "is a folder"),
    ("fta-output-missing-folder", lambda t: ["import-fta", fta(t), "-o",
                                             str(t / "no" / "x.json")], "does not exist"),
    ("fta-output-unwritable", lambda t: ["import-fta", fta(t), "-o", f"{UNWRITABLE}/x.json"],
     "cannot write"),
    # -- import-swf: files, both families ---------------------------------------------------
    ("swf-gzip-named-swf-job-twice", lambda t: ["import-swf", swf(t, rec(1), rec(2), rec(1),
                                                                  compress=gzip.compress),
                                                *o(t)],
     "t.swf:4: job number 1 repeats line 2"),
    ("swf-job-twice-grouping-job", lambda t: ["import-swf", swf(t, rec(7), rec(7)),
                                              "--grouping", "job", *o(t)],
     "t.swf:3: job number 7 repeats line 2"),
    ("swf-job-twice-window", lambda t: ["import-swf", swf(t, rec(7), rec(7)), "--grouping",
                                        "window", *o(t)], "job number 7 repeats"),
    ("swf-window-overflow", lambda t: ["import-swf", swf(t, rec(1, submit="-1e300"),
                                                         rec(2, submit="1e300")),
                                       "--grouping", "window", "--window", "1e-300", *o(t)],
     "t.swf:3: submitted 1e+300 s, too many --window spans"),
    ("swf-deadline-overflow", lambda t: ["import-swf", swf(t, rec(1, run="1e308")),
                                         "--alpha", "1e308", *o(t)],
     "t.swf:2: run time 1e+308 s with --alpha 1e+308"),
    ("swf-work-underflow", lambda t: ["import-swf", swf(t, rec(1, run="1e-320")), *o(t)],
     "t.swf:2: run time 9.99989e-321 s with --alpha 1 gives work 4.94066e-324 GHz-hours "
     "and deadline 0 h"),
    ("swf-bzip2-truncated", lambda t: ["import-swf", swf(t, *[rec(n) for n in range(1, 300)],
                                                         compress=lambda b: bz2.compress(b)[
                                                             :200]), *o(t)],
     "t.swf: corrupt or truncated bzip2 data"),
    ("swf-xz-corrupt", lambda t: ["import-swf", write(t, "t.swf", b"\xfd7zXZ\x00" + b"x" * 50),
                                  *o(t)], "t.swf: corrupt or truncated xz data"),
    ("swf-zstd", lambda t: ["import-swf", write(t, "t.swf", b"\x28\xb5\x2f\xfd" + b"x" * 50),
                            *o(t)], "zstd data, not a text trace"),
    ("swf-empty-gzip", lambda t: ["import-swf", swf(t, header="", compress=gzip.compress),
                                  *o(t)], "no job record"),
    ("swf-gzip-magic-only", lambda t: ["import-swf", write(t, "t.swf.gz", b"\x1f\x8b"), *o(t)],
     "corrupt or truncated gzip data"),
    ("swf-plain-named-gz-bad-record", lambda t: ["import-swf", swf(t, rec(1), "1 2 3\n",
                                                                   name="t.swf.gz"), *o(t)],
     "t.swf.gz:3: malformed SWF record: expected 18 fields, found 3"),
    ("swf-given-an-fta-trace", lambda t: ["import-swf", fta(t), *o(t)],
     "t.txt:1: malformed SWF record: expected 18 fields, found 1"),
    ("swf-given-a-json-instance", lambda t: ["import-swf", inst(t), *o(t)],
     "i.json:1: malformed SWF record"),
    ("swf-name-empty", lambda t: ["import-swf", swf(t, rec(1)), "--name", "", *o(t)],
     "'--name'"),
    ("swf-output-unwritable", lambda t: ["import-swf", swf(t, rec(1)), "-o",
                                         f"{UNWRITABLE}/x.json"], "cannot write"),
    ("swf-pms-negative", lambda t: ["import-swf", swf(t, rec(1)), "--pms", "-1", *o(t)],
     "'--pms'"),
    ("swf-window-zero", lambda t: ["import-swf", swf(t, rec(1)), "--grouping", "window",
                                   "--window", "0", *o(t)], "'--window'"),
    ("swf-limit-negative", lambda t: ["import-swf", swf(t, rec(1)), "--limit", "-3", *o(t)],
     "'--limit'"),
    ("swf-alpha-inf", lambda t: ["import-swf", swf(t, rec(1)), "--alpha", "inf", *o(t)],
     "'--alpha'"),
    ("swf-family-unknown", lambda t: ["import-swf", swf(t, rec(1)), "--family", "pull", *o(t)],
     "'--family'"),
    ("swf-hd-with-gang-option", lambda t: ["import-swf", swf(t, rec(1)), "--vms", "8", *o(t)],
     "--vms is not an option of --family hybrid-deadline"),
    # -- import-swf --family gang -----------------------------------------------------------
    ("gang-huge-processors", lambda t: ["import-swf", swf(t, rec(1), rec(2, procs="2000000")),
                                        "--family", "gang", *o(t)],
     "t.swf:3: 2000000 processors"),
    ("gang-huge-processors-1e30", lambda t: ["import-swf", swf(t, rec(1, procs="1e30")),
                                             "--family", "gang", *o(t)],
     "t.swf:2: 1e+30 processors"),
    ("gang-huge-submit", lambda t: ["import-swf", swf(t, rec(1), rec(2, submit="1e12")),
                                    "--family", "gang", *o(t)],
     "t.swf:3: submit time 1e+12 s is 1.66667e+10 time units"),
    ("gang-huge-run", lambda t: ["import-swf", swf(t, rec(1, run="1e15")), "--family", "gang",
                                 *o(t)], "t.swf:2: run time 1e+15 s is 1.66667e+13 time units"),
    ("gang-deadline-beyond", lambda t: ["import-swf", swf(t, rec(1, run="1e9")), "--family",
                                        "gang", "--deadline-factor", "100", *o(t)],
     "t.swf:2: the deadline, --deadline-factor 100 x the run time"),
    ("gang-time-unit-tiny", lambda t: ["import-swf", swf(t, rec(1)), "--family", "gang",
                                       "--time-unit", "1e-9", *o(t)], "'--time-unit'"),
    ("gang-time-unit-zero", lambda t: ["import-swf", swf(t, rec(1)), "--family", "gang",
                                       "--time-unit", "0", *o(t)], "'--time-unit'"),
    ("gang-time-unit-nan", lambda t: ["import-swf", swf(t, rec(1)), "--family", "gang",
                                      "--time-unit", "nan", *o(t)], "'--time-unit'"),
    ("gang-time-unit-small-long-trace", lambda t: ["import-swf", swf(t, rec(1), rec(
        2, submit="5e6")), "--family", "gang", "--time-unit", "0.001", *o(t)],
     "t.swf:3: submit time 5e+06 s is 5e+09 time units"),
    ("gang-deadline-factor-huge", lambda t: ["import-swf", swf(t, rec(1)), "--family", "gang",
                                             "--deadline-factor", "1e300", *o(t)],
     "'--deadline-factor'"),
    ("gang-deadline-factor-zero", lambda t: ["import-swf", swf(t, rec(1)), "--family", "gang",
                                             "--deadline-factor", "0", *o(t)],
     "'--deadline-factor'"),
    ("gang-vms-zero", lambda t: ["import-swf", swf(t, rec(1)), "--family", "gang", "--vms",
                                 "0", *o(t)], "'--vms'"),
    ("gang-vms-huge", lambda t: ["import-swf", swf(t, rec(1)), "--family", "gang", "--vms",
                                 "100001", *o(t)], "'--vms'"),
    ("gang-too-many-pairs", lambda t: ["import-swf", swf(t, *[rec(n) for n in range(1, 202)]),
                                       "--family", "gang", "--vms", "100000", *o(t)],
     "201 jobs x 100000 VMs exceeds 20,000,000"),
    ("gang-with-hd-option", lambda t: ["import-swf", swf(t, rec(1)), "--family", "gang",
                                       "--alpha", "2", *o(t)],
     "--alpha is not an option of --family gang"),
    ("gang-no-usable-record", lambda t: ["import-swf", swf(t, rec(1, run="-1"),
                                                           rec(2, procs="-1")),
                                         "--family", "gang", *o(t)], "no usable record"),
    ("gang-gzip-truncated", lambda t: ["import-swf", swf(t, *[rec(n) for n in range(1, 400)],
                                                         compress=lambda b: gzip.compress(b)[
                                                             :100]),
                                       "--family", "gang", *o(t)], "corrupt or truncated gzip"),
    ("gang-limit-zero", lambda t: ["import-swf", swf(t, rec(1)), "--family", "gang",
                                   "--limit", "0", *o(t)], "'--limit'"),
    ("gang-output-is-input", lambda t: ["import-swf", swf(t, rec(1)), "--family", "gang",
                                        "-o", str(t / "t.swf")], "is an input file"),
    # -- soft -------------------------------------------------------------------------------
    ("soft-missing-spec", lambda t: ["soft", str(t / "none.toml"), "-o", str(t / "r")],
     "none.toml: no such file"),
    ("soft-spec-folder", lambda t: ["soft", str(t), "-o", str(t / "r")], "is a folder"),
    ("soft-invalid-toml", lambda t: ["soft", spec(t, "[study\n"), "-o", str(t / "r")],
     "soft.toml:1: invalid TOML"),
    ("soft-unknown-table", lambda t: ["soft", spec(t, "[studies]\n"), "-o", str(t / "r")],
     "soft.toml:1: studies"),
    ("soft-unknown-key", lambda t: ["soft", spec(t, SMALL + "speed = 2\n"), "-o",
                                    str(t / "r")], "soft.toml:6: study.speed"),
    ("soft-study-not-a-table", lambda t: ["soft", spec(t, "study = 3\n"), "-o", str(t / "r")],
     "soft.toml:1: study"),
    ("soft-units-string", lambda t: ["soft", spec(t, '[study]\nunits = "5"\n'), "-o",
                                     str(t / "r")], "soft.toml:2: study.units"),
    ("soft-units-zero", lambda t: ["soft", spec(t, "[study]\nunits = 0\n"), "-o",
                                   str(t / "r")], "study.units"),
    ("soft-units-huge", lambda t: ["soft", spec(t, "[study]\nunits = 100001\n"), "-o",
                                   str(t / "r")], "study.units"),
    ("soft-seeds-empty", lambda t: ["soft", spec(t, "[study]\nseeds = []\n"), "-o",
                                    str(t / "r")], "study.seeds"),
    ("soft-seeds-repeated", lambda t: ["soft", spec(t, "[study]\nseeds = [3, 3]\n"), "-o",
                                       str(t / "r")], "study.seeds: 3 is given twice"),
    ("soft-seeds-negative", lambda t: ["soft", spec(t, "[study]\nseeds = [-1]\n"), "-o",
                                       str(t / "r")], "study.seeds[0]"),
    ("soft-seeds-scalar", lambda t: ["soft", spec(t, "[study]\nseeds = 0\n"), "-o",
                                     str(t / "r")], "study.seeds"),
    ("soft-families-out-of-range", lambda t: ["soft", spec(t, "[study]\nfamilies = [9]\n"),
                                              "-o", str(t / "r")], "study.families[0]"),
    ("soft-weights-empty", lambda t: ["soft", spec(t, "[study]\nweights = []\n"), "-o",
                                      str(t / "r")], "study.weights"),
    ("soft-weights-repeated", lambda t: ["soft", spec(t, "[study]\nweights = [4, 4]\n"), "-o",
                                         str(t / "r")], "study.weights: 4 is given twice"),
    ("soft-one-strategy", lambda t: ["soft", spec(t, "[study]\nfamilies = [1]\n"
                                                     "weights = [1]\n"), "-o", str(t / "r")],
     "soft.toml:3: study.weights: a study compares at least 2 strategies"),
    ("soft-p-above-strategies", lambda t: ["soft", spec(t, SMALL + "[filters]\np = 3\n"), "-o",
                                           str(t / "r")],
     "soft.toml:7: filters.p: 3 winners asked of the study's 2 strategies"),
    ("soft-q1-repeated", lambda t: ["soft", spec(t, "[filters]\nq1 = [0.5, 0.5]\n"), "-o",
                                    str(t / "r")], "filters.q1: 0.5 is given twice"),
    ("soft-q1-above-1", lambda t: ["soft", spec(t, "[filters]\nq1 = [1.5]\n"), "-o",
                                   str(t / "r")], "filters.q1[0]"),
    ("soft-q2-empty", lambda t: ["soft", spec(t, "[filters]\nq2 = []\n"), "-o",
                                 str(t / "r")], "filters.q2"),
    ("soft-q3-zero", lambda t: ["soft", spec(t, "[filters]\nq3 = 0\n"), "-o", str(t / "r")],
     "filters.q3"),
    ("soft-p-fraction", lambda t: ["soft", spec(t, "[filters]\np = 1.5\n"), "-o",
                                   str(t / "r")], "filters.p"),
    ("soft-dci-unknown", lambda t: ["soft", spec(t, '[study]\ndci = "idg,grid"\n'), "-o",
                                    str(t / "r")], "soft.toml:2: study.dci: choose among"),
    ("soft-capacity-nan", lambda t: ["soft", spec(t, "[study]\ncapacity = nan\n"), "-o",
                                     str(t / "r")], "study.capacity"),
    ("soft-capacity-too-many-hosts", lambda t: ["soft", spec(t, "[study]\ncapacity = 1e9\n"),
                                                "-o", str(t / "r")],
     "study.capacity: 1e+09 per DCI could need more than 100,000 hosts"),
    ("soft-window-zero", lambda t: ["soft", spec(t, "[study]\nwindow = 0\n"), "-o",
                                    str(t / "r")], "study.window"),
    ("soft-time-limit-zero", lambda t: ["soft", spec(t, "[study]\ntime_limit = 0\n"), "-o",
                                        str(t / "r")], "study.time_limit"),
    ("soft-behaviour-unknown", lambda t: ["soft", spec(t, '[study]\nbehaviour = "late"\n'),
                                          "-o", str(t / "r")], "study.behaviour"),
    ("soft-preference-unknown", lambda t: ["soft", spec(t, '[study]\npreference = "cubic"\n'),
                                           "-o", str(t / "r")], "study.preference"),
    ("soft-name-empty", lambda t: ["soft", spec(t, '[study]\nname = ""\n'), "-o",
                                   str(t / "r")], "soft.toml:2: study.name"),
    ("soft-name-newline", lambda t: ["soft", spec(t, '[study]\nname = "a\\nb"\n'), "-o",
                                     str(t / "r")], "study.name: a study name needs"),
    ("soft-name-blank", lambda t: ["soft", spec(t, '[study]\nname = "   "\n'), "-o",
                                   str(t / "r")], "study.name: a study name needs"),
    ("soft-name-long", lambda t: ["soft", spec(t, f'[study]\nname = "{"x" * 101}"\n'), "-o",
                                  str(t / "r")], "study.name"),
    ("soft-name-number", lambda t: ["soft", spec(t, "[study]\nname = 5\n"), "-o",
                                    str(t / "r")], "study.name"),
    ("soft-output-is-file", lambda t: ["soft", spec(t, SMALL), "-o", spec(t, "", "f.txt")],
     "is a file, not a folder"),
    ("soft-output-unwritable", lambda t: ["soft", spec(t, SMALL), "-o", f"{UNWRITABLE}/r"],
     "cannot write"),
    ("soft-output-other-study", lambda t: ["soft", spec(t, SMALL), "-o", study_folder(
        t, '[campaign]\nname = "theirs"\n', runs=True)],
     "holds SOFT study 'theirs', not study 'mine'"),
    ("soft-output-same-name-other-settings", lambda t: ["soft", spec(t, SMALL), "-o",
                                                        study_folder(t, '[campaign]\n'
                                                                     'name = "mine"\n')],
     "holds SOFT study 'mine' run with other settings"),
    ("soft-output-store-without-study", lambda t: ["soft", spec(t, SMALL), "-o",
                                                   study_folder(t, None, runs=True)],
     "holds a result store (runs/) but no campaign.toml"),
    ("soft-output-unreadable-marker", lambda t: ["soft", spec(t, SMALL), "-o",
                                                 study_folder(t, "[[[")],
     "holds an unreadable campaign.toml, not study 'mine'"),
    ("soft-workers-zero", lambda t: ["soft", spec(t, SMALL), "-o", str(t / "r"), "--workers",
                                     "0"], "'--workers'"),
    ("soft-serial-and-workers", lambda t: ["soft", spec(t, SMALL), "-o", str(t / "r"),
                                           "--serial", "--workers", "2"], "'--serial'"),
    ("soft-no-output", lambda t: ["soft", spec(t, SMALL)], "Missing option '-o'"),
]


@pytest.mark.parametrize(("argv", "fragment"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_with_exit_code_2(tmp_path, cli, argv, fragment):
    args = argv(tmp_path)
    if any(UNWRITABLE in a for a in args) and not LINUX:
        pytest.skip("needs /proc to have a folder nobody can write in")
    before = tree_state(tmp_path)
    code, out, err = cli(*args)
    assert_one_error_line(code, out, err, fragment)
    assert tree_state(tmp_path) == before  # nothing written, made or left behind


def test_the_corpus_covers_every_command(tmp_path):
    commands = set()
    for k, (_, argv, _) in enumerate(CASES):
        (tmp_path / str(k)).mkdir()
        args = argv(tmp_path / str(k))
        commands.add(" ".join(args[:2]) if args[0] in ("generate", "simulate") else args[0])
    assert {"generate pull", "simulate pull", "validate", "gantt", "solve", "compare",
            "import-fta", "import-swf", "soft"} <= commands
    assert len(CASES) >= 150
    assert len({name for name, _, _ in CASES}) == len(CASES)


# -- exit code 1: instances no host can complete -----------------------------------------

@pytest.mark.parametrize(("change", "fragment"), [
    (set_in("hosts", [{"id": "h", "dci": "idg", "cpu": 1, "windows": [[0, 10]]}]),
     "infeasible: work unit(s) 'w0', 'w1', 'w2' fit in no availability window"),
    (set_in("hosts", [{"id": "h", "dci": "idg", "cpu": 1, "windows": []}]),
     "no host ever returns a correct result"),
    (set_in("behaviour", {"never": 1.0, "delayed": 0.0}), "no host ever returns a correct"),
    (lambda d: [h.__setitem__("error", 1.0) for h in d["hosts"]],
     "no host ever returns a correct result"),
    # Very slow hosts: no unit could end before the horizon (10^9 s).
    (set_in("hosts", [{"id": "h", "dci": "cloud", "cpu": 1e-7}]),
     "'w0', 'w1', 'w2' fit in no availability window of any host after their arrival (and "
     "before the horizon, 1e+09 s)"),
])
def test_simulate_pull_on_an_instance_no_host_can_complete_exits_1(tmp_path, cli, change,
                                                                   fragment):
    path = inst(tmp_path, change)
    for extra in ([], ["--json"]):
        code, out, err = cli("simulate", "pull", path, "-o", tmp_path / "s.json", *extra)
        assert code == 1 and "Traceback" not in out + err, err
        assert err.strip().splitlines() == [err.strip()] and fragment in err, err
        assert not (tmp_path / "s.json").exists()
    assert json.loads(out)["status"] == "infeasible"  # --json still prints its one document
    code, _, err = cli("solve", path, "--method", "fcfs", "-o", tmp_path / "s.json")
    assert code == 1 and "infeasible" in err and not (tmp_path / "s.json").exists()


def test_a_run_that_never_gets_a_correct_result_stops_and_exits_1(tmp_path, cli, monkeypatch):
    # Hosts that nearly always err: the run would go on for a very long time. It stops at
    # the task cap (lowered here) with exit 1 naming the units, and writes nothing.
    import hybridsched.heuristics.pull.simulation as online

    monkeypatch.setattr(online, "MAX_PULL_TASKS", 50)
    monkeypatch.setattr(online.simulate, "__kwdefaults__",
                        {**online.simulate.__kwdefaults__, "max_tasks": 50})
    path = inst(tmp_path, lambda d: [h.__setitem__("error", 0.999999) for h in d["hosts"]])
    code, out, err = cli("simulate", "pull", path, "-o", tmp_path / "s.json")
    assert code == 1 and "Traceback" not in out + err
    assert "no schedule: no correct result for work unit(s)" in err
    assert "the run stopped after 50 tasks" in err
    assert not (tmp_path / "s.json").exists()


def test_import_fta_refuses_more_hosts_than_an_instance_may_have(tmp_path, cli, monkeypatch):
    monkeypatch.setattr("hybridsched.pull.traces.MAX_HOSTS", 1)
    code, _, err = cli("import-fta", fta(tmp_path), "-o", tmp_path / "x.json")
    assert code == 2 and "t.txt: more than 1 hosts" in err and "capacity" in err
    assert not (tmp_path / "x.json").exists()


def test_import_swf_reads_no_more_than_its_record_limit(tmp_path, cli, monkeypatch):
    monkeypatch.setattr("hybridsched.io.swf.MAX_RECORDS", 3)
    path = swf(tmp_path, *[rec(n) for n in range(1, 6)])
    code, _, err = cli("import-swf", path, "-o", tmp_path / "x.json")
    assert code == 2 and "t.swf:5: more than 3 records" in err and "--limit" in err
    code, _, err = cli("import-swf", path, "--limit", "2", "-o", tmp_path / "x.json")
    assert code == 0, err  # with --limit, reading stops before the cap


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress, None])
@pytest.mark.parametrize("name", ["t.swf", "t.swf.gz"])
def test_traces_are_recognised_by_content_not_name(tmp_path, cli, compress, name):
    path = swf(tmp_path, rec(1), rec(2, procs="8"), name=name, compress=compress)
    for family in ("hybrid-deadline", "gang"):
        code, _, err = cli("import-swf", path, "--family", family, "-o", tmp_path / "x.json")
        assert code == 0, err
    fta_path = write(tmp_path, name.replace("swf", "txt"),
                     compress(FTA.encode()) if compress else FTA)
    code, _, err = cli("import-fta", fta_path, "-o", tmp_path / "y.json")
    assert code == 0, err


def test_a_soft_study_whose_runs_all_fail_exits_1(tmp_path, cli, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("every run fails")

    monkeypatch.setattr("hybridsched.pull.adapters.simulate", broken)
    code, out, err = cli("soft", spec(tmp_path, SMALL), "-o", tmp_path / "r", "--serial")
    assert code == 1 and "Traceback" not in out + err
    assert err.strip().splitlines()[-1].startswith(
        "error: SOFT: no strategy ran successfully; nothing to select (failed: s1,1, s1,2)")
    assert (tmp_path / "r" / "runs").is_dir()  # the failed runs are kept, as in a campaign
