"""Adversarial corpus: bad files and options of every kind, on every command.

Each case must end with exit code 2 and exactly one line on standard error
that names the file, line, field or option, and never a traceback.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from corpus import assert_one_error_line, edited, replaced, set_in, write

ROOT = Path(__file__).resolve().parents[2]
HD_FILE = ROOT / "instances" / "hybrid-deadline" / "small-01.json"
BS_FILE = ROOT / "instances" / "bot-sites" / "small-lolo-c-2s-3b.json"
HD = json.loads(HD_FILE.read_text())
BS = json.loads(BS_FILE.read_text())

RECORD = "{n} 0 -1 {run} {procs} -1 -1 {procs} -1 -1 1 1 1 -1 -1 -1 -1 -1\n"


def hd(tmp: Path, change: Callable[[dict], object], name: str = "hd.json") -> str:
    return write(tmp, name, edited(HD, change))


def bs(tmp: Path, change: Callable[[dict], object], name: str = "bs.json") -> str:
    return write(tmp, name, edited(BS, change))


def hd_raw(tmp: Path, old: str, new: str) -> str:
    """The default instance's JSON text with one literal replaced (count 1)."""
    return write(tmp, "raw.json", replaced(HD, old, new))


def swf(tmp: Path, *records: str, header: str = "; Computer: X\n", name: str = "t.swf") -> str:
    return write(tmp, name, header + "".join(records))


def ok_record(n: int = 1, run: str = "100", procs: str = "1") -> str:
    return RECORD.format(n=n, run=run, procs=procs)


def solution(tmp: Path, change: Callable[[dict], object]) -> str:
    document = {
        "format": "hybridsched-solution", "version": 1, "family": "hybrid-deadline",
        "instance": HD["name"], "vms": [],
        "assignments": [{"task": t["id"], "machine": HD["pms"][0]["id"], "core": 0,
                         "start": 0.0, "finish": 1.0}
                        for j in HD["jobs"] for t in j["tasks"]],
    }
    change(document)
    return write(tmp, "sol.json", json.dumps(document))


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


GEN_HD = ["generate", "hybrid-deadline"]
GEN_BS = ["generate", "bot-sites"]

# (id, argv builder, fragment expected in the one stderr line)
CASES: list[tuple[str, Callable[[Path], list[str]], str]] = [
    # -- instance files: reading and JSON syntax ---------------------------------------
    ("missing-file", lambda t: ["solve", str(t / "nope.json"), "--method", "cdf"],
     "nope.json: no such file"),
    ("folder-as-instance", lambda t: ["solve", str(t), "--method", "cdf"], "is a folder"),
    ("empty-file", lambda t: ["solve", write(t, "e.json", ""), "--method", "cdf"],
     "e.json:1:1: malformed JSON"),
    ("not-json", lambda t: ["solve", write(t, "b.json", "{not json"), "--method", "cdf"],
     "b.json:1:2: malformed JSON"),
    ("not-utf8", lambda t: ["solve", write(t, "u.json", b"\xff\xfe{}"), "--method", "cdf"],
     "u.json: not UTF-8"),
    ("top-level-array", lambda t: ["solve", write(t, "a.json", "[]"), "--method", "cdf"],
     "expected a JSON object"),
    ("no-family", lambda t: ["solve", hd(t, lambda d: d.pop("family")), "--method", "cdf"],
     "field family"),
    ("unknown-family", lambda t: ["solve", hd(t, set_in("family", "x")), "--method", "cdf"],
     "unknown family 'x'"),
    ("duplicate-top-key", lambda t: ["solve", hd_raw(t, '"name": "small-01"',
                                                     '"name": "a", "name": "b"'),
                                     "--method", "cdf"], "duplicate key 'name'"),
    ("duplicate-nested-key", lambda t: ["solve", hd_raw(t, '"work": 9.4149',
                                                        '"work": 9.4149, "work": 1'),
                                        "--method", "cdf"],
     "field jobs.0.tasks.0: duplicate key 'work'"),
    ("nan-constant", lambda t: ["solve", hd_raw(t, "9.4149", "NaN"), "--method", "cdf"],
     "NaN is not a JSON number"),
    ("infinity-constant", lambda t: ["solve", hd_raw(t, "9.4149", "Infinity"),
                                     "--method", "cdf"], "Infinity is not a JSON number"),
    ("overflowing-float", lambda t: ["solve", hd_raw(t, "9.4149", "1e400"), "--method", "cdf"],
     "1e400 is out of range"),
    ("huge-integer-literal", lambda t: ["solve", hd_raw(t, "9.4149", "9" * 5000),
                                        "--method", "cdf"], "more than 30 digits"),
    ("nested-200-deep", lambda t: ["solve", hd(t, set_in("provenance", {"x": nested(200)})),
                                   "--method", "cdf"], "nested more than 100 levels"),
    ("nested-100000-deep", lambda t: ["solve", write(t, "deep.json", "[" * 100000
                                                     + "]" * 100000), "--method", "cdf"],
     "nested more than 100 levels"),
    # -- hybrid-deadline instance fields -------------------------------------------------
    ("work-as-string", lambda t: ["solve", hd(t, set_in("jobs.0.tasks.0.work", "1.5")),
                                  "--method", "cdf"], "jobs.0.tasks.0.work"),
    ("work-as-bool", lambda t: ["solve", hd(t, set_in("jobs.0.tasks.0.work", True)),
                                "--method", "cdf"], "jobs.0.tasks.0.work"),
    ("negative-deadline", lambda t: ["solve", hd(t, set_in("jobs.0.deadline", -1)),
                                     "--method", "cdf"], "jobs.0.deadline"),
    ("cores-as-string", lambda t: ["solve", hd(t, set_in("pms.0.cores", "2")),
                                   "--method", "cdf"], "pms.0.cores"),
    ("cores-huge", lambda t: ["solve", hd(t, set_in("pms.0.cores", 10**12)),
                              "--method", "cdf"], "less than or equal to 10000"),
    ("cores-fractional", lambda t: ["solve", hd(t, set_in("pms.0.cores", 1.5)),
                                    "--method", "cdf"], "pms.0.cores"),
    ("vm-cores-huge", lambda t: ["solve", hd(t, set_in("vm_types.0.cores", 10**9)),
                                 "--method", "cdf"], "vm_types.0.cores"),
    ("pm-named-like-a-vm", lambda t: ["solve", hd(t, set_in("pms.0.id", "vm-0")),
                                      "--method", "cdf"], "pms.0.id"),
    ("duplicate-task-id", lambda t: ["solve", hd(t, set_in("jobs.1.tasks.0.id", "t0")),
                                     "--method", "cdf"], "duplicate tasks id 't0'"),
    ("unknown-field", lambda t: ["solve", hd(t, set_in("surprise", 1)), "--method", "cdf"],
     "field surprise"),
    ("wrong-version", lambda t: ["solve", hd(t, set_in("version", 2)), "--method", "cdf"],
     "field version"),
    ("free-vm", lambda t: ["solve", hd(t, set_in("vm_types.0.price", 0)), "--method", "cdf"],
     "vm_types.0.price"),
    ("negative-max-vms", lambda t: ["solve", hd(t, set_in("max_vms", -1)), "--method", "cdf"],
     "field max_vms"),
    ("max-vms-as-bool", lambda t: ["solve", hd(t, set_in("max_vms", True)), "--method", "cdf"],
     "field max_vms"),
    ("jobs-not-a-list", lambda t: ["solve", hd(t, set_in("jobs", {"a": 1})),
                                   "--method", "cdf"], "field jobs"),
    # -- bot-sites instance fields (shared number types) ---------------------------------
    ("bs-etc-as-string", lambda t: ["solve", bs(t, set_in("bots.0.etc.0", "8.5")),
                                    "--method", "gmo"], "bots.0.etc"),
    ("bs-price-as-bool", lambda t: ["solve", bs(t, set_in("sites.0.price", True)),
                                    "--method", "gmo"], "sites.0.price"),
    ("bs-etc-overflow", lambda t: ["solve", write(t, "o.json", json.dumps(BS).replace(
        "8.513667", "1e999", 1)), "--method", "gmo"], "out of range"),
    ("bs-duplicate-site-key", lambda t: ["solve", write(t, "d.json", json.dumps(BS).replace(
        '"procs": 2,', '"procs": 2, "procs": 3,', 1)), "--method", "gmo"],
     "field sites.0: duplicate key 'procs'"),
    # -- SWF traces ---------------------------------------------------------------------
    ("swf-empty", lambda t: ["import-swf", swf(t, header=""), "-o", str(t / "i.json")],
     "no job record"),
    ("swf-header-only", lambda t: ["import-swf", swf(t), "-o", str(t / "i.json")],
     "no job record"),
    ("swf-no-run-times", lambda t: ["import-swf", swf(t, ok_record(1, "-1"), ok_record(2, "0")),
                                    "-o", str(t / "i.json")],
     "no usable record: all 2 records skipped (2 with no usable run time)"),
    ("swf-run-time-1e400", lambda t: ["import-swf", swf(t, ok_record(1, "1e400")),
                                      "-o", str(t / "i.json")],
     "t.swf:2: SWF field run_time must be a finite number"),
    ("swf-run-time-nan", lambda t: ["import-swf", swf(t, ok_record(1, "nan")),
                                    "-o", str(t / "i.json")], "t.swf:2: SWF field run_time"),
    ("swf-17-fields", lambda t: ["import-swf", swf(t, "1 0 -1 100 1 -1 -1 1 -1 -1 1 1 1 -1 "
                                                      "-1 -1 -1\n"), "-o", str(t / "i.json")],
     "t.swf:2: malformed SWF record: expected 18 fields, found 17"),
    ("swf-word", lambda t: ["import-swf", swf(t, ok_record(1, "abc")), "-o", str(t / "i.json")],
     "t.swf:2: malformed SWF field run_time"),
    ("swf-fractional-count", lambda t: ["import-swf", swf(t, ok_record(1, "100", "1.5")),
                                        "-o", str(t / "i.json")],
     "allocated_processors must be an integer"),
    ("swf-corrupt-gzip", lambda t: ["import-swf", write(t, "c.swf.gz", b"\x1f\x8b\x08\x00"
                                                        + b"garbage" * 20),
                                    "-o", str(t / "i.json")], "corrupt or truncated gzip"),
    ("swf-truncated-gzip", lambda t: ["import-swf", write(
        t, "tr.swf.gz", gzip.compress((ok_record() * 2000).encode())[:300]),
        "-o", str(t / "i.json")], "corrupt or truncated gzip"),
    ("swf-binary-line", lambda t: ["import-swf", write(t, "bin.swf", b"\x00" * 200_000),
                                   "-o", str(t / "i.json")], "line longer than"),
    ("swf-job-of-a-billion-tasks", lambda t: ["import-swf", swf(t, ok_record(1, "100",
                                                                             "1000000000")),
                                              "--grouping", "job", "-o", str(t / "i.json")],
     "more than 10000000 tasks"),
    ("swf-no-processor-counts", lambda t: ["import-swf", swf(t, ok_record(1, "100", "0"),
                                                             ok_record(2, "100", "-1")),
                                           "--grouping", "job", "-o", str(t / "i.json")],
     "2 with no processor count"),
    ("swf-folder", lambda t: ["import-swf", str(t), "-o", str(t / "i.json")], "is a folder"),
    ("swf-limit-0", lambda t: ["import-swf", swf(t, ok_record()), "--limit", "0",
                               "-o", str(t / "i.json")], "'--limit'"),
    ("swf-alpha-nan", lambda t: ["import-swf", swf(t, ok_record()), "--alpha", "nan",
                                 "-o", str(t / "i.json")], "'--alpha'"),
    ("swf-alpha-zero", lambda t: ["import-swf", swf(t, ok_record()), "--alpha", "0",
                                  "-o", str(t / "i.json")], "'--alpha'"),
    ("swf-alpha-negative", lambda t: ["import-swf", swf(t, ok_record()), "--alpha", "-2",
                                      "-o", str(t / "i.json")], "'--alpha'"),
    ("swf-window-inf", lambda t: ["import-swf", swf(t, ok_record()), "--grouping", "window",
                                  "--window", "inf", "-o", str(t / "i.json")], "'--window'"),
    ("swf-grouping-unknown", lambda t: ["import-swf", swf(t, ok_record()), "--grouping", "day",
                                        "-o", str(t / "i.json")], "'--grouping'"),
    ("swf-pms-too-many", lambda t: ["import-swf", swf(t, ok_record()), "--pms", "99",
                                    "-o", str(t / "i.json")], "--pms"),
    ("swf-output-folder-missing", lambda t: ["import-swf", swf(t, ok_record()),
                                             "-o", str(t / "no" / "i.json")],
     "does not exist"),
    ("swf-output-is-input", lambda t: ["import-swf", swf(t, ok_record()),
                                       "-o", str(t / "t.swf")], "is an input file"),
    # -- Braun ETC matrices ----------------------------------------------------------------
    ("etc-missing", lambda t: ["import-etc", str(t / "no.etc"), "-o", str(t / "x.json")],
     "no.etc: no such file"),
    ("etc-ragged", lambda t: ["import-etc", write(t, "r.etc", "2 2 0\n1\n2\n3\n"),
                              "-o", str(t / "x.json")], "r.etc:4: ragged matrix"),
    ("etc-overflow", lambda t: ["import-etc", write(t, "o.etc", "1 1 0\n1e400\n"),
                                "-o", str(t / "x.json")], "o.etc:2: execution time"),
    ("etc-output-folder", lambda t: ["import-etc", write(t, "g.etc", "1 1 0\n1\n"),
                                     "-o", str(t)], "is a folder"),
    # -- generate --------------------------------------------------------------------------
    ("gen-hd-negative-tasks", lambda t: [*GEN_HD, "--tasks", "-1", "-o", str(t / "x.json")],
     "'--tasks'"),
    ("gen-hd-huge-tasks", lambda t: [*GEN_HD, "--tasks", str(10**12), "-o", str(t / "x.json")],
     "'--tasks'"),
    ("gen-hd-negative-seed", lambda t: [*GEN_HD, "--seed", "-1", "-o", str(t / "x.json")],
     "'--seed'"),
    ("gen-hd-alpha-7", lambda t: [*GEN_HD, "--alpha", "7", "-o", str(t / "x.json")],
     "'--alpha'"),
    ("gen-hd-local-share-nan", lambda t: [*GEN_HD, "--local-share", "nan",
                                          "-o", str(t / "x.json")], "'--local-share'"),
    ("gen-hd-local-share-0", lambda t: [*GEN_HD, "--local-share", "0",
                                        "-o", str(t / "x.json")], "'--local-share'"),
    ("gen-hd-pms-99", lambda t: [*GEN_HD, "--pms", "99", "-o", str(t / "x.json")], "--pms"),
    ("gen-hd-empty-output", lambda t: [*GEN_HD, "-o", ""], "-o: empty file name"),
    ("gen-hd-output-folder", lambda t: [*GEN_HD, "-o", str(t)], "is a folder"),
    ("gen-hd-output-missing-folder", lambda t: [*GEN_HD, "-o", str(t / "a" / "b.json")],
     "does not exist"),
    ("gen-hd-output-parent-is-file", lambda t: [*GEN_HD, "-o", str(Path(write(t, "f", ""))
                                                                   / "x.json")],
     "is not a folder"),
    ("gen-hd-no-output", lambda t: [*GEN_HD], "Missing option '-o'"),
    ("gen-bs-zero-sites", lambda t: [*GEN_BS, "--sites", "0", "-o", str(t / "x.json")],
     "'--sites'"),
    ("gen-bs-pairs-too-many", lambda t: [*GEN_BS, "--sites", "100000", "--bots", "1000",
                                         "-o", str(t / "x.json")], "(site, BoT) pairs"),
    ("gen-bs-tasks-too-many", lambda t: [*GEN_BS, "--tasks-per-bot", "1:1000000000",
                                         "-o", str(t / "x.json")], "'--tasks-per-bot'"),
    ("gen-bs-procs-too-many", lambda t: [*GEN_BS, "--procs-per-site", "1000000",
                                         "-o", str(t / "x.json")], "'--procs-per-site'"),
    ("gen-bs-range-reversed", lambda t: [*GEN_BS, "--tasks-per-bot", "9:3",
                                         "-o", str(t / "x.json")], "--tasks-per-bot"),
    ("gen-bs-dependency-2", lambda t: [*GEN_BS, "--dependency", "2", "-o", str(t / "x.json")],
     "'--dependency'"),
    ("gen-bs-dependency-nan", lambda t: [*GEN_BS, "--dependency", "nan",
                                         "-o", str(t / "x.json")], "'--dependency'"),
    ("gen-bs-tightness-negative", lambda t: [*GEN_BS, "--tightness", "-1",
                                             "-o", str(t / "x.json")], "'--tightness'"),
    ("gen-bs-private-share-inf", lambda t: [*GEN_BS, "--private-share", "inf",
                                            "-o", str(t / "x.json")], "'--private-share'"),
    ("gen-bs-scenario", lambda t: [*GEN_BS, "--scenario", "Foo", "-o", str(t / "x.json")],
     "'--scenario'"),
    ("gen-bs-preset-unknown", lambda t: [*GEN_BS, "--preset", "nope", "-o", str(t / "x.json")],
     "--preset"),
    ("gen-bs-preset-with-options", lambda t: [*GEN_BS, "--preset", "gmo-table2-inconsistent",
                                              "--sites", "3", "-o", str(t / "x.json")],
     "'--preset'"),
    ("gen-bs-negative-seed", lambda t: [*GEN_BS, "--seed", "-5", "-o", str(t / "x.json")],
     "'--seed'"),
    ("gen-unknown-family", lambda t: ["generate", "nope", "-o", str(t / "x.json")],
     "No such command 'nope'"),
    # -- solve ------------------------------------------------------------------------------
    ("solve-no-method", lambda t: ["solve", str(HD_FILE)], "Missing option '--method'"),
    ("solve-unknown-method", lambda t: ["solve", str(HD_FILE), "--method", "magic"],
     "unknown method 'magic'"),
    ("solve-time-limit-negative", lambda t: ["solve", str(HD_FILE), "--method", "exact",
                                             "--time-limit", "-1"], "'--time-limit'"),
    ("solve-time-limit-nan", lambda t: ["solve", str(HD_FILE), "--method", "exact",
                                        "--time-limit", "nan"], "'--time-limit'"),
    ("solve-time-limit-inf", lambda t: ["solve", str(HD_FILE), "--method", "exact",
                                        "--time-limit", "inf"], "'--time-limit'"),
    ("solve-time-limit-word", lambda t: ["solve", str(HD_FILE), "--method", "exact",
                                         "--time-limit", "soon"], "'--time-limit'"),
    ("solve-seed-float", lambda t: ["solve", str(HD_FILE), "--method", "cdf", "--seed", "1.5"],
     "'--seed'"),
    ("solve-seed-negative", lambda t: ["solve", str(BS_FILE), "--method", "gmo",
                                       "--seed", "-3"], "'--seed'"),
    ("solve-objective-one-objective-family", lambda t: ["solve", str(HD_FILE), "--method",
                                                        "cdf", "--objective", "cost"],
     "--objective"),
    ("solve-objective-unknown", lambda t: ["solve", str(BS_FILE), "--method", "gmo",
                                           "--objective", "banana"], "--objective"),
    ("solve-output-is-input", lambda t: ["solve", hd(t, lambda d: None), "--method", "cdf",
                                         "-o", str(t / "hd.json")], "is an input file"),
    ("solve-output-folder", lambda t: ["solve", str(HD_FILE), "--method", "cdf", "-o", str(t)],
     "is a folder"),
    ("solve-output-empty", lambda t: ["solve", str(HD_FILE), "--method", "cdf", "-o", ""],
     "-o: empty file name"),
    ("solve-unknown-option", lambda t: ["solve", str(HD_FILE), "--method", "cdf", "--bogus"],
     "No such option: --bogus"),
    # -- validate ---------------------------------------------------------------------------
    ("validate-missing-solution", lambda t: ["validate", str(HD_FILE), str(t / "s.json")],
     "s.json: no such file"),
    ("validate-other-family", lambda t: ["validate", str(HD_FILE), solution(
        t, set_in("family", "bot-sites"))], "field family: solution is for 'bot-sites'"),
    ("validate-unknown-task", lambda t: ["validate", str(HD_FILE), solution(
        t, set_in("assignments.0.task", "zz"))], "assignments.0.task: unknown task 'zz'"),
    ("validate-start-as-string", lambda t: ["validate", str(HD_FILE), solution(
        t, set_in("assignments.0.start", "0"))], "assignments.0.start"),
    ("validate-start-nan", lambda t: ["validate", str(HD_FILE), write(
        t, "n.json", '{"family": "hybrid-deadline", "assignments": [{"start": NaN}]}')],
     "NaN is not a JSON number"),
    ("validate-core-huge", lambda t: ["validate", str(HD_FILE), solution(
        t, set_in("assignments.0.core", 10**15))], "assignments.0.core"),
    ("validate-lease-as-bool", lambda t: ["validate", str(HD_FILE), solution(
        t, set_in("vms", [{"id": "vm-0", "type": "c3.large", "lease_hours": True}]))],
     "vms.0.lease_hours"),
    ("validate-duplicate-key", lambda t: ["validate", str(HD_FILE), write(
        t, "dk.json", '{"family": "hybrid-deadline", "family": "bot-sites"}')],
     "duplicate key 'family'"),
    ("validate-swapped-arguments", lambda t: ["validate", solution(t, lambda d: None),
                                              str(HD_FILE)],
     "this is a solution file, not an instance file (arguments swapped?)"),
    ("validate-instance-as-solution", lambda t: ["validate", str(HD_FILE), str(HD_FILE)],
     "this is an instance file, not a solution file"),
    ("validate-missing-argument", lambda t: ["validate", str(HD_FILE)],
     "Missing argument 'SOLUTION'"),
    # -- compare ----------------------------------------------------------------------------
    ("compare-empty-methods", lambda t: ["compare", str(HD_FILE), "--methods", ""],
     "'--methods': no method given"),
    ("compare-only-commas", lambda t: ["compare", str(HD_FILE), "--methods", ", ,"],
     "'--methods': no method given"),
    ("compare-unknown-method", lambda t: ["compare", str(HD_FILE), "--methods", "cdf,magic"],
     "unknown method 'magic'"),
    ("compare-csv-and-json", lambda t: ["compare", str(HD_FILE), "--csv", "--json"],
     "'--json'"),
    ("compare-objective-one-objective-family", lambda t: ["compare", str(HD_FILE),
                                                          "--methods", "cdf",
                                                          "--objective", "cost"],
     "--objective"),
    ("compare-one-bad-file", lambda t: ["compare", str(HD_FILE), str(t / "gone.json"),
                                        "--methods", "cdf"], "gone.json: no such file"),
    ("compare-time-limit-negative", lambda t: ["compare", str(HD_FILE), "--time-limit", "-5"],
     "'--time-limit'"),
    ("compare-no-files", lambda t: ["compare"], "Missing argument 'INSTANCE'"),
    # -- pareto -----------------------------------------------------------------------------
    ("pareto-wrong-family", lambda t: ["pareto", str(HD_FILE)], "bot-sites instances only"),
    ("pareto-max-points-0", lambda t: ["pareto", str(BS_FILE), "--max-points", "0"],
     "'--max-points'"),
    ("pareto-plot-extension", lambda t: ["pareto", str(BS_FILE), "-o", str(t / "f.txt")],
     "cannot draw a plot with '.txt'"),
    ("pareto-plot-no-extension", lambda t: ["pareto", str(BS_FILE), "-o", str(t / "front")],
     "cannot draw a plot with no extension"),
    ("pareto-plot-missing-folder", lambda t: ["pareto", str(BS_FILE),
                                              "-o", str(t / "no" / "f.png")], "does not exist"),
    ("pareto-time-limit-nan", lambda t: ["pareto", str(BS_FILE), "--time-limit", "nan"],
     "'--time-limit'"),
    # -- gantt, methods, schema, global -----------------------------------------------------
    ("gantt-instance-as-solution", lambda t: ["gantt", str(BS_FILE), bs(t, lambda d: None),
                                              "-o", str(t / "g.png")],
     "this is an instance file, not a solution file"),
    ("gantt-plot-extension", lambda t: ["gantt", str(HD_FILE), str(HD_FILE),
                                        "-o", str(t / "g.json")], "cannot draw a plot"),
    ("gantt-max-rows-0", lambda t: ["gantt", str(HD_FILE), str(HD_FILE), "-o", str(t / "g.png"),
                                    "--max-rows", "0"], "'--max-rows'"),
    ("gantt-output-is-input", lambda t: ["gantt", str(HD_FILE), write(t, "s.png", ""),
                                         "-o", str(t / "s.png")], "is an input file"),
    ("methods-unknown-family", lambda t: ["methods", "nope"], "unknown family 'nope'"),
    ("schema-unknown-family", lambda t: ["schema", "nope"], "unknown family 'nope'"),
    ("unknown-command", lambda t: ["frobnicate"], "No such command 'frobnicate'"),
    ("unknown-global-option", lambda t: ["--bogus", "methods"], "No such option: --bogus"),
]


@pytest.mark.parametrize(("argv", "fragment"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_with_exit_code_2(tmp_path, cli, argv, fragment):
    code, out, err = cli(*argv(tmp_path))
    assert_one_error_line(code, out, err, fragment)


def test_the_corpus_is_large_and_covers_every_command(tmp_path):
    commands = {argv(tmp_path)[0] for _, argv, _ in CASES}
    assert len(CASES) >= 60
    assert {"generate", "import-swf", "import-etc", "solve", "validate", "compare",
            "pareto", "gantt", "methods", "schema"} <= commands


def test_infeasible_instance_in_compare_exits_1_naming_the_items(tmp_path, cli):
    path = hd(tmp_path, set_in("jobs.0.tasks.0.work", 1000.0))
    code, out, err = cli("compare", path, "--methods", "cdf,ffd")
    assert code == 1
    assert "t0" in out and "infeasible" in out          # the table names the items
    assert "error: hd: infeasible" in err and "t0" in err
    assert "Traceback" not in out + err


def test_gantt_refuses_an_invalid_solution(tmp_path, cli):
    sol, png = tmp_path / "s.json", tmp_path / "g.png"
    assert cli("solve", HD_FILE, "--method", "cdf", "-o", sol)[0] == 0
    document = json.loads(sol.read_text())
    document["assignments"][0]["finish"] += 100
    sol.write_text(json.dumps(document))
    code, out, err = cli("gantt", HD_FILE, sol, "-o", png)
    assert code == 1 and "INVALID" in err and "finish" in out
    assert not png.exists()


def test_validate_warns_when_the_solution_names_another_instance(tmp_path, cli):
    sol = tmp_path / "s.json"
    assert cli("solve", HD_FILE, "--method", "cdf", "-o", sol)[0] == 0
    document = json.loads(sol.read_text())
    document["instance"] = "another"
    sol.write_text(json.dumps(document))
    code, out, err = cli("validate", HD_FILE, sol)
    assert code == 0 and "valid" in out
    assert "warning:" in err and "'another'" in err and "'small-01'" in err


def test_internal_errors_are_one_line_with_exit_code_3(monkeypatch, cli):
    import hybridsched.cli.views as views

    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr("hybridsched.catalogue.family_names", broken)
    monkeypatch.delenv("HYBRIDSCHED_DEBUG", raising=False)
    code, out, err = cli("methods")
    assert code == 3 and "Traceback" not in err
    assert err.strip() == ("error: internal error: ZeroDivisionError: boom (please report it; "
                           "HYBRIDSCHED_DEBUG=1 shows the traceback)")
    monkeypatch.setenv("HYBRIDSCHED_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        cli("methods")
    assert views  # the module that looks family_names up at call time
