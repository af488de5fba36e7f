"""An independent sweep of bad input over every command, beyond the per-area corpora.

The other corpora (``test_bad_input.py``, ``test_bad_input_malleable_gang.py``,
``test_bad_input_pull_traces.py``, ``tests/experiments/test_bad_input_campaigns.py``)
go field by field through each format. This one tries what a new user does
to any command: links that loop, ``-o -`` where standard output already
shows the results, a full disk (``/dev/full``), numbers spelled ``1e309``,
``0x10`` or ``-0``, empty or differently cased names, files with a byte-order
mark or other line ends, a solution of another instance, numbers a format
accepted but the algorithms could not compute with (``5e-324``, ``1e300``),
and a ``compare`` run that finds its instance unusable only once it runs.

Every case must end with exit code 2 and exactly one line on standard error
that starts with ``error: `` and names the file, line, field or option, never
a traceback, and must leave nothing behind: the folder the case works in
(also the working directory) is unchanged apart from the inputs it wrote.
Exit codes 1 and the other promises (the round trip of what ``generate`` and
``import-*`` write) are tested after the corpus.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from corpus import assert_one_error_line, edited, set_in, tree_state, write

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = ROOT / "instances"
HD_FILE = INSTANCES / "hybrid-deadline" / "small-01.json"
HD_OTHER = INSTANCES / "hybrid-deadline" / "small-02.json"
BS_FILE = INSTANCES / "bot-sites" / "small-lolo-c-2s-3b.json"
GANG_FILE = INSTANCES / "gang" / "small-10.json"
MAL_FILE = INSTANCES / "malleable" / "batch-04.json"
TREE_FILE = ROOT / "examples" / "trees" / "paper.toml"
SOFT_FILE = ROOT / "examples" / "soft" / "small.toml"
#: A device on which every write fails with "no space left" (Linux).
FULL = "/dev/full"

SWF_RECORD = "{n} 0 -1 {run} 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1"
FTA = ("# event_id component_id node_id platform_id node_name type start stop reason\n"
       "1 0 n1 0 a 1 0 40000 0\n"
       "2 0 n2 0 b 1 0 -1 0\n")
SPEC = ('[campaign]\nname = "sweep"\n[[instances]]\ngenerator = "hybrid-deadline"\n'
        'options = { tasks = 5 }\n[[methods]]\nname = "cdf"\n')

Argv = Callable[[Path], list]


# -- builders -----------------------------------------------------------------------------

def loop(tmp: Path, name: str = "loop") -> str:
    """A symbolic link in a loop of two (``name`` -> ``name.2`` -> ``name``)."""
    first, second = tmp / name, tmp / f"{name}.2"
    if not first.is_symlink():
        first.symlink_to(second.name)
        second.symlink_to(first.name)
    return str(first)


def changed(source: Path, change: Callable[[dict], object], name: str = "i.json") -> Callable[
        [Path], str]:
    """A builder of a copy of instance file ``source`` with ``change`` applied."""
    def build(tmp: Path) -> str:
        return write(tmp, name, edited(json.loads(source.read_text()), change))
    return build


def hd(change: Callable[[dict], object]) -> Callable[[Path], str]:
    return changed(HD_FILE, change)


def bs(change: Callable[[dict], object]) -> Callable[[Path], str]:
    return changed(BS_FILE, change)


def bs_links(change: Callable[[dict], object]) -> Callable[[Path], str]:
    """The bot-sites instance with data, bandwidth and storage on every BoT and site."""
    def add(document: dict) -> None:
        for bot in document["bots"]:
            bot.update(data=[300.0, 300.0], bandwidth=[0.1, 0.2], storage=20.0)
        for site in document["sites"]:
            site.update(bandwidth=0.5, storage=60.0)
        change(document)
    return changed(BS_FILE, add)


def late_malleable(tmp: Path) -> str:
    """A malleable instance each of whose jobs fits the time range alone, but not both.

    The loader accepts it; only a simulation finds that the second job would
    end after minute 10^7 (bad input found once a run has started).
    """
    document = json.loads(MAL_FILE.read_text())
    document.pop("reference")
    document["resources"] = [{"id": "d", "type": "dedicated", "cpus": 1, "performance": 1.0,
                              "price": 0.0}]
    document["jobs"] = [{"id": f"j{i}", "size": 4e6, "priority": 1, "deadline": 9_999_999,
                         "budget": 1.0, "arrival": 5_000_000, "serial_fraction": 0.0}
                        for i in range(2)]
    return write(tmp, "late.json", json.dumps(document))


@cache
def _solution_text(family: str, source: Path, method: str) -> str:
    """A valid solution of ``source`` (JSON text), computed once."""
    from hybridsched.registry import run_method
    from hybridsched.storage import load_instance

    found, instance = load_instance(source)
    result = run_method(family, method, instance)
    return json.dumps(found.solution_to_dict(result.solution, instance, method=method))


def solution(family: str, source: Path, method: str,
             change: Callable[[dict], object] = lambda d: None) -> Callable[[Path], str]:
    def build(tmp: Path) -> str:
        document = json.loads(_solution_text(family, source, method))
        change(document)
        return write(tmp, "s.json", json.dumps(document))
    return build


def hd_sol(tmp: Path) -> str:
    return solution("hybrid-deadline", HD_FILE, "cdf")(tmp)


def swf(tmp: Path, *records: str, end: str = "\n", prefix: str = "",
        name: str = "t.swf") -> str:
    lines = ["; Computer: X", *records]
    return write(tmp, name, prefix + end.join(lines) + end)


def spec(text: str = SPEC, name: str = "spec.toml") -> Callable[[Path], str]:
    return lambda tmp: write(tmp, name, text)


def o(tmp: Path, name: str = "out.json") -> list[str]:
    return ["-o", str(tmp / name)]


def gz(text: str) -> bytes:
    return gzip.compress(text.encode())


GEN_HD = ["generate", "hybrid-deadline", "--tasks", "5"]
GEN_BS = ["generate", "bot-sites", "--sites", "2", "--bots", "2", "--tasks-per-bot", "3"]
SIM_P = ["simulate", "pull", "--units", "5"]

# (id, argv builder, fragment expected in the one stderr line)
CASES: list[tuple[str, Argv, str]] = [
    # -- solve: paths -------------------------------------------------------------------
    ("solve-input-link-loop", lambda t: ["solve", loop(t), "--method", "cdf"],
     "loop: cannot read"),
    ("solve-output-link-loop", lambda t: ["solve", HD_FILE, "--method", "cdf",
                                          "-o", loop(t)], "a loop of symbolic links"),
    ("solve-output-through-a-loop", lambda t: ["solve", HD_FILE, "--method", "cdf",
                                               "-o", f"{loop(t)}/s.json"],
     "a loop of symbolic links"),
    ("solve-output-stdout", lambda t: ["solve", HD_FILE, "--method", "cdf", "-o", "-"],
     "-o -: standard output shows this command's results"),
    ("solve-output-stdout-json", lambda t: ["solve", HD_FILE, "--method", "cdf", "--json",
                                            "-o", "-"], "give a file name"),
    ("solve-output-disk-full", lambda t: ["solve", HD_FILE, "--method", "cdf", "-o", FULL],
     "/dev/full: cannot write (No space left on device)"),
    ("solve-path-with-spaces-missing", lambda t: ["solve", t / "my instances" / "a b.json",
                                                  "--method", "cdf"],
     "a b.json: no such file"),
    ("solve-emoji-file-malformed", lambda t: ["solve", write(t, "🚀 é.json", "{"),
                                              "--method", "cdf"], "🚀 é.json:1:2"),
    ("solve-newline-in-file-name", lambda t: ["solve", write(t, "a\nb.json", "[1, 2"),
                                              "--method", "cdf"], "malformed JSON"),
    ("solve-bom-then-garbage", lambda t: ["solve", write(t, "b.json", b"\xef\xbb\xbf{x"),
                                          "--method", "cdf"], "b.json:1:2: malformed JSON"),
    ("solve-crlf-malformed-line-2", lambda t: ["solve", write(t, "c.json", b"{\r\n\"a\": }"),
                                               "--method", "cdf"], "c.json:2:6"),
    ("solve-gzip-instance", lambda t: ["solve", write(t, "g.json", gz(HD_FILE.read_text())),
                                       "--method", "cdf"], "g.json: not UTF-8"),
    ("solve-solution-as-instance", lambda t: ["solve", hd_sol(t), "--method", "cdf"],
     "this is a solution file, not an instance file"),
    # -- solve: option values -----------------------------------------------------------
    ("solve-time-limit-1e309", lambda t: ["solve", HD_FILE, "--method", "exact",
                                          "--time-limit", "1e309"], "'--time-limit'"),
    ("solve-time-limit-hex", lambda t: ["solve", HD_FILE, "--method", "exact",
                                        "--time-limit", "0x10"], "'--time-limit'"),
    ("solve-time-limit-empty", lambda t: ["solve", HD_FILE, "--method", "exact",
                                          "--time-limit", ""], "'--time-limit'"),
    ("solve-seed-hex", lambda t: ["solve", HD_FILE, "--method", "cdf", "--seed", "0x10"],
     "'--seed'"),
    ("solve-seed-exponent", lambda t: ["solve", HD_FILE, "--method", "cdf", "--seed", "1e3"],
     "'--seed'"),
    ("solve-seed-minus-one-word", lambda t: ["solve", HD_FILE, "--method", "cdf",
                                             "--seed", "-1x"], "'--seed'"),
    ("solve-method-empty", lambda t: ["solve", HD_FILE, "--method", ""],
     "unknown method '' for family 'hybrid-deadline'"),
    ("solve-method-uppercase", lambda t: ["solve", HD_FILE, "--method", "CDF"],
     "unknown method 'CDF'"),
    ("solve-method-trailing-space", lambda t: ["solve", HD_FILE, "--method", "cdf "],
     "unknown method 'cdf '"),
    ("solve-gang-time-limit-hex", lambda t: ["solve", GANG_FILE, "--method", "exact",
                                             "--time-limit", "0x1"], "'--time-limit'"),
    ("solve-method-of-another-family", lambda t: ["solve", BS_FILE, "--method", "cdf"],
     "unknown method 'cdf' for family 'bot-sites'"),
    ("solve-objective-empty", lambda t: ["solve", BS_FILE, "--method", "gmo",
                                         "--objective", ""], "'' is not an objective"),
    ("solve-objective-uppercase", lambda t: ["solve", BS_FILE, "--method", "gmo",
                                             "--objective", "COST"],
     "'COST' is not an objective"),
    # -- hybrid-deadline numbers the algorithms could not compute with ------------------
    ("hd-price-near-max-double", lambda t: ["solve", hd(set_in("vm_types.0.price", 1.7e308))(t),
                                            "--method", "exact", "--time-limit", "1"],
     "field vm_types.0.price"),
    ("hd-price-huge", lambda t: ["solve", hd(set_in("vm_types.0.price", 1e10))(t),
                                 "--method", "cdf"], "vm_types.0.price"),
    ("hd-capacity-subnormal", lambda t: ["solve", hd(set_in("pms.0.capacity", 5e-324))(t),
                                         "--method", "cdf"], "field pms.0.capacity"),
    ("hd-capacity-huge", lambda t: ["solve", hd(set_in("vm_types.0.capacity", 1e300))(t),
                                    "--method", "cdf"], "field vm_types.0.capacity"),
    ("hd-work-huge", lambda t: ["solve", hd(set_in("jobs.0.tasks.0.work", 1e300))(t),
                                "--method", "cdf"], "field jobs.0.tasks.0.work"),
    ("hd-deadline-huge", lambda t: ["solve", hd(set_in("jobs.1.deadline", 1e300))(t),
                                    "--method", "cdf"], "field jobs.1.deadline"),
    # -- bot-sites numbers the algorithms could not compute with ------------------------
    ("bs-etc-subnormal", lambda t: ["solve", bs(set_in("bots.0.etc.1", 5e-324))(t),
                                    "--method", "gmo"], "field bots.0.etc"),
    ("bs-etc-tiny", lambda t: ["solve", bs(set_in("bots.1.etc.0", 1e-300))(t),
                               "--method", "gmo"], "field bots.1.etc"),
    ("bs-etc-huge", lambda t: ["solve", bs(set_in("bots.0.etc.0", 1e300))(t),
                               "--method", "g-min-min"], "field bots.0.etc"),
    ("bs-etc-object-huge", lambda t: ["solve", bs(set_in("bots.0.etc", {"s0": 1.0,
                                                                        "s1": 1e12}))(t),
                                      "--method", "gmo"], "field bots.0.etc"),
    ("bs-data-huge", lambda t: ["solve", bs_links(set_in("bots.0.data.1", 1e300))(t),
                                "--method", "gmo"], "field bots.0.data"),
    ("bs-bandwidth-tiny", lambda t: ["solve", bs_links(set_in("bots.0.bandwidth.0", 1e-300))(t),
                                     "--method", "gmo"], "field bots.0.bandwidth"),
    ("bs-bot-storage-tiny", lambda t: ["solve", bs_links(set_in("bots.1.storage", 1e-300))(t),
                                       "--method", "gmo"], "field bots.1.storage"),
    ("bs-site-price-huge", lambda t: ["solve", bs(set_in("sites.0.price", 1e300))(t),
                                      "--method", "gmo"], "field sites.0.price"),
    ("bs-site-bandwidth-tiny", lambda t: ["solve", bs_links(set_in("sites.1.bandwidth",
                                                                   1e-300))(t),
                                          "--method", "gmo"], "field sites.1.bandwidth"),
    ("bs-site-storage-huge", lambda t: ["solve", bs_links(set_in("sites.0.storage", 1e300))(t),
                                        "--method", "gmo"], "field sites.0.storage"),
    # -- validate -----------------------------------------------------------------------
    ("val-solution-of-another-instance", lambda t: ["validate", HD_OTHER, hd_sol(t)],
     "unknown machine 'pm12-xeon-5120' (the solution names instance 'small-01', not "
     "'small-02': is it a solution of another instance?)"),
    ("val-solution-link-loop", lambda t: ["validate", HD_FILE, loop(t)], "loop: cannot read"),
    ("val-solution-folder", lambda t: ["validate", HD_FILE, t], "is a folder"),
    ("val-solution-gzip", lambda t: ["validate", HD_FILE, write(t, "s.json.gz", gz("{}"))],
     "s.json.gz: not UTF-8"),
    ("val-solution-empty", lambda t: ["validate", HD_FILE, write(t, "s.json", "")],
     "s.json:1:1: malformed JSON"),
    ("val-bs-solution-of-hd", lambda t: ["validate", BS_FILE, hd_sol(t)],
     "solution is for 'hybrid-deadline', instance is 'bot-sites'"),
    ("val-gang-solution-start-string", lambda t: [
        "validate", GANG_FILE, solution("gang", GANG_FILE, "fifo",
                                        set_in("started.0.start", "0"))(t)],
     "field started.0.start"),
    ("val-malleable-solution-of-gang", lambda t: [
        "validate", MAL_FILE, solution("gang", GANG_FILE, "fifo")(t)],
     "solution is for 'gang', instance is 'malleable'"),
    ("val-instance-link-loop", lambda t: ["validate", loop(t), hd_sol(t)],
     "loop: cannot read"),
    # -- compare ------------------------------------------------------------------------
    ("compare-run-finds-bad-input", lambda t: ["compare", late_malleable(t),
                                               "--methods", "tree"],
     "late.json: method tree: instance 'batch-04': job 'j1' would end at minute"),
    ("compare-run-finds-bad-input-json", lambda t: ["compare", late_malleable(t), "--json",
                                                    "--methods", "tree,flat"],
     "(and 1 more failed run, see the table)"),
    ("compare-good-and-malformed", lambda t: ["compare", HD_FILE, write(t, "b.json", "{"),
                                              "--methods", "cdf"], "b.json:1:2"),
    ("compare-good-and-link-loop", lambda t: ["compare", HD_FILE, loop(t),
                                              "--methods", "cdf"], "loop: cannot read"),
    ("compare-solution-as-instance", lambda t: ["compare", HD_FILE, hd_sol(t)],
     "this is a solution file, not an instance file"),
    ("compare-method-of-one-family", lambda t: ["compare", HD_FILE, BS_FILE,
                                                "--methods", "cdf"],
     "unknown method 'cdf' for family 'bot-sites'"),
    ("compare-method-uppercase", lambda t: ["compare", HD_FILE, "--methods", "CDF"],
     "unknown method 'CDF'"),
    ("compare-workers-zero", lambda t: ["compare", HD_FILE, "--workers", "0"],
     "'--workers'"),
    ("compare-workers-word", lambda t: ["compare", HD_FILE, "--workers", "two"],
     "'--workers'"),
    ("compare-scheduler-no-port", lambda t: ["compare", HD_FILE, "--methods", "cdf",
                                             "--scheduler", "nowhere"],
     "--scheduler nowhere"),
    ("compare-time-limit-1e309", lambda t: ["compare", HD_FILE, "--time-limit", "1e309"],
     "'--time-limit'"),
    ("compare-seed-hex", lambda t: ["compare", HD_FILE, "--seed", "0x1"], "'--seed'"),
    # -- generate -----------------------------------------------------------------------
    ("gen-hd-name-empty", lambda t: [*GEN_HD, "--name", "", *o(t)],
     "'--name': an instance name cannot be empty"),
    ("gen-hd-name-blank", lambda t: [*GEN_HD, "--name", "  ", *o(t)], "'--name'"),
    ("gen-bs-name-empty", lambda t: [*GEN_BS, "--name", "", *o(t)], "'--name'"),
    ("gen-hd-output-link-loop", lambda t: [*GEN_HD, "-o", loop(t)],
     "a loop of symbolic links"),
    ("gen-hd-output-disk-full", lambda t: [*GEN_HD, "-o", FULL], "No space left on device"),
    ("gen-hd-tasks-hex", lambda t: [*GEN_HD, "--tasks", "0x5", *o(t)], "'--tasks'"),
    ("gen-hd-tasks-exponent", lambda t: [*GEN_HD, "--tasks", "1e3", *o(t)], "'--tasks'"),
    ("gen-hd-local-share-1e309", lambda t: [*GEN_HD, "--local-share", "1e309", *o(t)],
     "'--local-share'"),
    ("gen-hd-local-share-minus-zero", lambda t: [*GEN_HD, "--local-share", "-0", *o(t)],
     "'--local-share'"),
    ("gen-hd-alpha-uppercase", lambda t: [*GEN_HD, "--alpha", "MIXED", *o(t)], "'--alpha'"),
    ("gen-bs-tightness-huge", lambda t: [*GEN_BS, "--storage", "--tightness", "1e300",
                                         *o(t)], "'--tightness'"),
    ("gen-bs-range-colon", lambda t: [*GEN_BS[:-2], "--tasks-per-bot", ":", *o(t)],
     "--tasks-per-bot: expected A:B"),
    ("gen-bs-range-three", lambda t: [*GEN_BS[:-2], "--tasks-per-bot", "1:2:3", *o(t)],
     "--tasks-per-bot: expected A:B"),
    ("gen-bs-range-exponent", lambda t: [*GEN_BS, "--procs-per-site", "1e3", *o(t)],
     "--procs-per-site"),
    ("gen-bs-range-negative", lambda t: [*GEN_BS, "--procs-per-site", "-1:5", *o(t)],
     "--procs-per-site: need 1 <= A <= B"),
    ("gen-bs-range-empty", lambda t: [*GEN_BS[:-2], "--tasks-per-bot", "", *o(t)],
     "--tasks-per-bot"),
    ("gen-m-mix-uppercase", lambda t: ["generate", "malleable", "--jobs", "3", "--mix",
                                       "SMALL", *o(t)], "'--mix'"),
    ("gen-m-serial-fraction-1e309", lambda t: ["generate", "malleable", "--jobs", "3",
                                               "--serial-fraction", "1e309", *o(t)],
     "'--serial-fraction'"),
    ("gen-g-rate-hex", lambda t: ["generate", "gang", "--jobs", "3", "--rate", "0x1", *o(t)],
     "'--rate'"),
    ("gen-g-scenario-uppercase", lambda t: ["generate", "gang", "--jobs", "3", "--scenario",
                                            "TABLE1", *o(t)], "'--scenario'"),
    ("gen-p-capacity-minus-zero", lambda t: ["generate", "pull", "--units", "3",
                                             "--capacity", "-0", *o(t)], "'--capacity'"),
    ("gen-m-output-link-loop", lambda t: ["generate", "malleable", "--jobs", "3", "-o",
                                          loop(t)], "a loop of symbolic links"),
    ("gen-m-tree-link-loop", lambda t: ["generate", "malleable", "--jobs", "3",
                                        "--tree", loop(t, "t.toml"), *o(t)],
     "t.toml: cannot read"),
    ("gen-g-output-disk-full", lambda t: ["generate", "gang", "--jobs", "3", "-o", FULL],
     "No space left on device"),
    ("gen-p-output-link-loop", lambda t: ["generate", "pull", "--units", "3", "-o", loop(t)],
     "a loop of symbolic links"),
    # -- import-swf ---------------------------------------------------------------------
    ("swf-input-link-loop", lambda t: ["import-swf", loop(t), *o(t)], "loop: cannot read"),
    ("swf-output-link-loop", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9)),
                                        "-o", loop(t)], "a loop of symbolic links"),
    ("swf-output-disk-full", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9)),
                                        "-o", FULL], "No space left on device"),
    ("swf-bom-bad-record", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run="x"),
                                                        prefix="\ufeff"), *o(t)],
     "t.swf:2: malformed SWF field run_time"),
    ("swf-cr-only-bad-record", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9),
                                                            SWF_RECORD.format(n=2, run="x"),
                                                            end="\r"), *o(t)],
     "t.swf:3: malformed SWF field run_time"),
    ("swf-crlf-bad-record", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run="x"),
                                                         end="\r\n"), *o(t)],
     "t.swf:2: malformed SWF field run_time"),
    ("swf-work-beyond-the-format", lambda t: ["import-swf", swf(t, SWF_RECORD.format(
        n=1, run="1e300")), *o(t)], "t.swf:2: run time 1e+300 s"),
    ("swf-time-unit-1e309", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9)),
                                       "--family", "gang", "--time-unit", "1e309", *o(t)],
     "'--time-unit'"),
    ("swf-window-hex", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9)),
                                  "--grouping", "window", "--window", "0x10", *o(t)],
     "'--window'"),
    ("swf-limit-hex", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9)),
                                 "--limit", "0x1", *o(t)], "'--limit'"),
    ("swf-family-uppercase", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9)),
                                        "--family", "GANG", *o(t)], "'--family'"),
    ("swf-skip-negative", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9)),
                                     "--skip", "-1", *o(t)], "'--skip'"),
    ("swf-skip-past-the-end", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9)),
                                         "--skip", "1", *o(t)],
     "no usable record after skipping 1"),
    ("swf-days-nan", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9)),
                                "--days", "nan", *o(t)], "'--days'"),
    ("swf-days-for-gang", lambda t: ["import-swf", swf(t, SWF_RECORD.format(n=1, run=9)),
                                     "--family", "gang", "--days", "2", *o(t)],
     "--days is not an option of --family gang"),
    # -- import-etc ---------------------------------------------------------------------
    ("etc-input-link-loop", lambda t: ["import-etc", loop(t), *o(t)], "loop: cannot read"),
    ("etc-output-link-loop", lambda t: ["import-etc", write(t, "a.etc", "1 1 0\n1\n"),
                                        "-o", loop(t)], "a loop of symbolic links"),
    ("etc-output-disk-full", lambda t: ["import-etc", write(t, "a.etc", "1 1 0\n1\n"),
                                        "-o", FULL], "No space left on device"),
    ("etc-time-tiny", lambda t: ["import-etc", write(t, "a.etc", "1 2 0\n1\n1e-300\n"), *o(t)],
     "a.etc:3: execution time must be positive and within [1e-06, 1e+09], got 1e-300"),
    ("etc-time-huge", lambda t: ["import-etc", write(t, "a.etc", "1 1 0\n1e300\n"), *o(t)],
     "a.etc:2: execution time"),
    ("etc-crlf-ragged", lambda t: ["import-etc", write(t, "a.etc", b"2 2 0\r\n1\r\n2\r\n3\r\n"),
                                   *o(t)], "a.etc:4: ragged matrix"),
    ("etc-given-a-json-instance", lambda t: ["import-etc", HD_FILE, *o(t)],
     "small-01.json:1: header must be 'n m 0'"),
    ("etc-given-an-swf-trace", lambda t: ["import-etc", swf(t, SWF_RECORD.format(n=1, run=9)),
                                          *o(t)], "t.swf:1: header must hold integers"),
    ("swf-given-an-etc-matrix", lambda t: ["import-swf", write(t, "a.etc", "1 1 0\n1\n"),
                                           *o(t)], "a.etc:1: malformed SWF record"),
    ("etc-gzip", lambda t: ["import-etc", write(t, "a.etc", gz("1 1 0\n1\n")), *o(t)],
     "a.etc: not UTF-8"),
    # -- import-fta ---------------------------------------------------------------------
    ("fta-input-link-loop", lambda t: ["import-fta", loop(t), *o(t)], "loop: cannot read"),
    ("fta-output-link-loop", lambda t: ["import-fta", write(t, "t.txt", FTA), "-o", loop(t)],
     "a loop of symbolic links"),
    ("fta-output-disk-full", lambda t: ["import-fta", write(t, "t.txt", FTA), "-o", FULL],
     "No space left on device"),
    ("fta-bom-bad-line", lambda t: ["import-fta", write(t, "t.txt", "\ufeff" + FTA
                                                        + "3 0 n3 0 c 1 x 5 0\n"), *o(t)],
     "t.txt:4: the start time"),
    ("fta-cr-only-bad-line", lambda t: ["import-fta", write(t, "t.txt", (
        FTA + "3 0 n3\n").replace("\n", "\r")), *o(t)], "t.txt:4: expected at least 8 columns"),
    ("fta-node-column-hex", lambda t: ["import-fta", write(t, "t.txt", FTA),
                                       "--node-column", "0x1", *o(t)], "'--node-column'"),
    ("fta-capacity-1e309", lambda t: ["import-fta", write(t, "t.txt", FTA),
                                      "--capacity", "1e309", *o(t)], "'--capacity'"),
    # -- simulate -----------------------------------------------------------------------
    ("sim-m-output-link-loop", lambda t: ["simulate", "malleable", MAL_FILE, "-o", loop(t)],
     "-o "),
    ("sim-m-output-disk-full", lambda t: ["simulate", "malleable", MAL_FILE, "-o", FULL],
     "No space left on device"),
    ("sim-g-save-instance-link-loop", lambda t: ["simulate", "gang", "--jobs", "3",
                                                 "--save-instance", loop(t)],
     "--save-instance "),
    ("sim-g-save-instance-through-a-loop", lambda t: ["simulate", "gang", "--jobs", "3",
                                                      "--save-instance",
                                                      f"{loop(t)}/i.json"],
     "a loop of symbolic links"),
    ("sim-g-save-instance-disk-full", lambda t: ["simulate", "gang", "--jobs", "3",
                                                 "--save-instance", FULL],
     "No space left on device"),
    ("sim-p-output-link-loop", lambda t: [*SIM_P, "-o", loop(t)], "a loop of symbolic links"),
    ("sim-p-weights-1e309", lambda t: [*SIM_P, "--weights", "1e309,0,0"], "option --weights"),
    ("sim-p-weights-hex", lambda t: [*SIM_P, "--weights", "0x1,0,0"], "option --weights"),
    ("sim-p-weights-trailing-comma", lambda t: [*SIM_P, "--weights", "0.6,0.1,0.3,"],
     "option --weights"),
    ("sim-p-window-1e309", lambda t: [*SIM_P, "--window", "1e309"], "'--window'"),
    ("sim-p-window-minus-zero", lambda t: [*SIM_P, "--window", "-0"], "'--window'"),
    ("sim-m-scheduler-uppercase", lambda t: ["simulate", "malleable", "--jobs", "3",
                                             "--scheduler", "TREE"], "'--scheduler'"),
    ("sim-p-preference-uppercase", lambda t: [*SIM_P, "--preference", "LEVEL"],
     "'--preference'"),
    ("sim-g-method-uppercase", lambda t: ["simulate", "gang", "--jobs", "3", "--method",
                                          "FIFO"], "unknown method 'FIFO' for family 'gang'"),
    ("sim-m-instance-link-loop", lambda t: ["simulate", "malleable", loop(t)],
     "loop: cannot read"),
    ("sim-g-hd-instance", lambda t: ["simulate", "gang", HD_FILE],
     "a hybrid-deadline instance, not a gang one"),
    # -- gantt --------------------------------------------------------------------------
    ("gantt-solution-of-another-instance", lambda t: ["gantt", HD_OTHER, hd_sol(t),
                                                      "-o", t / "g.png"],
     "(the solution names instance 'small-01', not 'small-02'"),
    ("gantt-instance-link-loop", lambda t: ["gantt", loop(t), hd_sol(t), "-o", t / "g.png"],
     "loop: cannot read"),
    ("gantt-output-link-loop", lambda t: ["gantt", HD_FILE, hd_sol(t), "-o", loop(t, "g.png")],
     "a loop of symbolic links"),
    ("gantt-output-dot-png", lambda t: ["gantt", HD_FILE, hd_sol(t), "-o", t / ".png"],
     "cannot draw a plot with no extension"),
    ("gantt-output-trailing-dot", lambda t: ["gantt", HD_FILE, hd_sol(t), "-o", t / "g.png."],
     "cannot draw a plot with no extension"),
    ("gantt-output-stdout", lambda t: ["gantt", HD_FILE, hd_sol(t), "-o", "-"],
     "-o -: a plot is drawn into a file"),
    ("pareto-output-stdout", lambda t: ["pareto", BS_FILE, "-o", "-"],
     "-o -: a plot is drawn into a file"),
    ("gantt-max-rows-negative", lambda t: ["gantt", HD_FILE, hd_sol(t), "-o", t / "g.png",
                                           "--max-rows", "-1"], "'--max-rows'"),
    ("gantt-max-rows-hex", lambda t: ["gantt", HD_FILE, hd_sol(t), "-o", t / "g.png",
                                      "--max-rows", "0x10"], "'--max-rows'"),
    # -- tree ---------------------------------------------------------------------------
    ("tree-config-link-loop", lambda t: ["tree", loop(t, "t.toml")], "t.toml: cannot read"),
    ("tree-output-link-loop", lambda t: ["tree", TREE_FILE, "-o", loop(t, "t.png")],
     "a loop of symbolic links"),
    ("tree-unknown-option", lambda t: ["tree", TREE_FILE, "--max-rows", "3"],
     "No such option: --max-rows"),
    ("tree-given-a-campaign-spec", lambda t: ["tree", spec()(t)],
     "spec.toml: fanout: Field required"),
    ("tree-given-a-pull-instance", lambda t: ["tree", write(t, "p.json", json.dumps(
        {"format": "hybridsched-instance", "version": 1, "family": "pull",
         "work_units": [], "hosts": []}))], "got family 'pull'"),
    ("tree-hd-instance", lambda t: ["tree", HD_FILE],
     "a platform file is a malleable instance"),
    # -- pareto -------------------------------------------------------------------------
    ("pareto-input-link-loop", lambda t: ["pareto", loop(t)], "loop: cannot read"),
    ("pareto-output-link-loop", lambda t: ["pareto", BS_FILE, "-o", loop(t, "f.png")],
     "a loop of symbolic links"),
    ("pareto-gang-instance", lambda t: ["pareto", GANG_FILE], "bot-sites instances only"),
    ("pareto-max-points-negative", lambda t: ["pareto", BS_FILE, "--max-points", "-1"],
     "'--max-points'"),
    ("pareto-time-limit-1e309", lambda t: ["pareto", BS_FILE, "--time-limit", "1e309"],
     "'--time-limit'"),
    # -- methods, schema ----------------------------------------------------------------
    ("methods-empty-family", lambda t: ["methods", ""], "unknown family ''"),
    ("methods-uppercase-family", lambda t: ["methods", "GANG"], "unknown family 'GANG'"),
    ("schema-empty-family", lambda t: ["schema", ""], "unknown family ''"),
    ("schema-underscore-family", lambda t: ["schema", "hybrid_deadline"],
     "unknown family 'hybrid_deadline'"),
    ("schema-extra-argument", lambda t: ["schema", "gang", "malleable"],
     "unexpected extra argument"),
    # -- campaign, soft, report ---------------------------------------------------------
    ("campaign-output-link-loop", lambda t: ["campaign", spec()(t), "-o", loop(t),
                                             "--serial"], "-o "),
    ("campaign-csv-link-loop", lambda t: ["campaign", spec()(t), "-o", t / "r", "--serial",
                                          "--csv", loop(t)], "--csv "),
    ("campaign-csv-stdout", lambda t: ["campaign", spec()(t), "-o", t / "r", "--serial",
                                       "--csv", "-"], "--csv -: standard output"),
    ("campaign-spec-link-loop", lambda t: ["campaign", loop(t, "s.toml"), "-o", t / "r",
                                           "--serial"], "s.toml: cannot read"),
    ("campaign-bs-tightness-huge", lambda t: ["campaign", spec(
        '[[instances]]\ngenerator = "bot-sites"\noptions = { tightness = 1e300, storage = '
        'true }\n[[methods]]\nname = "gmo"\n')(t), "-o", t / "r", "--serial"],
     "instances[0].options.tightness"),
    ("campaign-output-stdout", lambda t: ["campaign", spec()(t), "-o", "-", "--serial"],
     "-o -: give a folder name"),
    ("campaign-workers-hex", lambda t: ["campaign", spec()(t), "-o", t / "r", "--workers",
                                        "0x2"], "'--workers'"),
    ("soft-output-stdout", lambda t: ["soft", SOFT_FILE, "-o", "-", "--serial"],
     "-o -: give a folder name"),
    ("soft-workers-negative", lambda t: ["soft", SOFT_FILE, "-o", t / "r", "--workers", "-1"],
     "'--workers'"),
    ("campaign-given-a-tree-config", lambda t: ["campaign", TREE_FILE, "-o", t / "r",
                                                "--serial"],
     "paper.toml:3: name: unknown key (known: campaign, instances, methods)"),
    ("campaign-given-a-soft-spec", lambda t: ["campaign", SOFT_FILE, "-o", t / "r",
                                              "--serial"], "small.toml:4: study: unknown key"),
    ("soft-given-a-campaign-spec", lambda t: ["soft", spec()(t), "-o", t / "r", "--serial"],
     "spec.toml:1: campaign: Extra inputs are not permitted"),
    ("soft-output-link-loop", lambda t: ["soft", SOFT_FILE, "-o", loop(t), "--serial"],
     "a loop of symbolic links"),
    ("soft-spec-link-loop", lambda t: ["soft", loop(t, "s.toml"), "-o", t / "r", "--serial"],
     "s.toml: cannot read"),
    ("report-output-stdout", lambda t: ["report", _store(t), "-o", "-"],
     "-o -: give a folder name"),
    ("report-results-link-loop", lambda t: ["report", loop(t), "-o", t / "rep"],
     "loop: no such folder"),
    ("report-extra-argument", lambda t: ["report", _store(t), "-o", t / "rep", "--gantt",
                                         "extra"], "unexpected extra argument"),
    ("report-output-link-loop", lambda t: ["report", _store(t), "-o", loop(t)],
     "a loop of symbolic links"),
    ("effects-unknown-baseline", lambda t: ["effects", _store(t), "--baseline", "nope"],
     "--baseline: no run has method 'nope'"),
    ("effects-unknown-measure", lambda t: ["effects", _store(t), "--baseline", "cdf",
                                           "--measure", "status"],
     "measure 'status' is not a numeric column"),
    ("effects-missing-store", lambda t: ["effects", t / "none", "--baseline", "cdf"],
     "none: no such folder"),
    ("effects-csv-and-json", lambda t: ["effects", _store(t), "--baseline", "cdf", "--csv",
                                        "--json"], "give --csv or --json, not both"),
    ("effects-no-baseline", lambda t: ["effects", _store(t)], "--baseline"),
    ("effects-plot-not-an-image", lambda t: ["effects", _store(t), "--baseline", "cdf",
                                             "--plot", t / "e.txt"],
     "cannot draw a plot with '.txt'"),
]


@cache
def _good_store() -> Path:
    """A small result store, made once (copied by the cases that read one)."""
    import tempfile

    from hybridsched.experiments.campaign import run_campaign

    folder = Path(tempfile.mkdtemp(prefix="hybridsched-sweep-"))
    (folder / "spec.toml").write_text(SPEC)
    run_campaign(folder / "spec.toml", folder / "results", mode="serial")
    return folder / "results"


def _store(tmp: Path) -> str:
    import shutil

    target = tmp / "results"
    if not target.exists():
        shutil.copytree(_good_store(), target)
    return str(target)


@pytest.mark.parametrize(("argv", "fragment"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_with_exit_code_2(tmp_path, cli, monkeypatch, argv, fragment):
    monkeypatch.chdir(tmp_path)  # a file written to the working directory is seen too
    args = [str(a) for a in argv(tmp_path)]
    if FULL in args and not os.path.exists(FULL):
        pytest.skip(f"no {FULL} on this system")
    before = tree_state(tmp_path)
    code, out, err = cli(*args)
    assert_one_error_line(code, out, err, fragment)
    assert tree_state(tmp_path) == before  # nothing written, made or left behind


def test_the_sweep_covers_every_command(tmp_path):
    commands = set()
    for k, (_, argv, _) in enumerate(CASES):
        folder = tmp_path / str(k)
        folder.mkdir()
        args = [str(a) for a in argv(folder)]
        commands.add(" ".join(args[:2]) if args[0] in ("generate", "simulate") else args[0])
    assert {"generate hybrid-deadline", "generate bot-sites", "generate malleable",
            "generate gang", "generate pull", "import-swf", "import-etc", "import-fta",
            "simulate malleable", "simulate gang", "simulate pull", "solve", "validate",
            "compare", "campaign", "soft", "report", "effects", "pareto", "gantt", "tree",
            "methods", "schema"} <= commands
    assert len({c[0] for c in CASES}) == len(CASES)
    assert len(CASES) >= 150


# -- compare: runs that fail ------------------------------------------------------------------

def _broken_method(monkeypatch, family: str, name: str, error: Exception) -> None:
    """Make registered method ``name`` raise ``error`` (for this test only)."""
    import dataclasses

    from hybridsched import registry

    def broken(*args, **kwargs):
        raise error

    method = registry.get_method(family, name)
    monkeypatch.setitem(registry._METHODS[family], name, dataclasses.replace(method,
                                                                             target=broken))


def test_compare_shows_why_a_run_failed_and_exits_1(tmp_path, cli, monkeypatch):
    # A method that crashes is not bad input: the table gives the reason, standard error one
    # line per failed run naming the file and method, exit code 1 (was: exit 0, no reason).
    _broken_method(monkeypatch, "hybrid-deadline", "ffd", ZeroDivisionError("boom"))
    code, out, err = cli("compare", HD_FILE, "--methods", "cdf,ffd")
    assert code == 1 and "Traceback" not in out + err
    assert err.strip().splitlines() == [
        f"error: {HD_FILE}: method ffd failed: ZeroDivisionError: boom"]
    row = next(line for line in out.splitlines() if " ffd " in f" {line} ")
    assert "failed" in row and "ZeroDivisionError: boom" in row
    code, out, _ = cli("compare", HD_FILE, "--methods", "cdf,ffd", "--json")
    assert code == 1
    records = {r["method"]: r for r in json.loads(out)}
    assert records["ffd"]["status"] == "failed" and records["cdf"]["status"] == "feasible"
    assert records["ffd"]["message"] == "ZeroDivisionError: boom"


def test_compare_run_that_finds_bad_input_still_prints_its_table(tmp_path, cli):
    path = late_malleable(tmp_path)
    code, out, err = cli("compare", path, "--methods", "tree,flat", "--csv")
    assert code == 2 and "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: method tree: instance ")
    assert "InputError" not in lines[0]
    rows = out.strip().splitlines()
    assert len(rows) == 3 and all(",failed," in row for row in rows[1:])
    assert all("would end at minute" in row for row in rows[1:])  # each run's reason


def test_compare_bad_input_outranks_infeasible_and_failed_runs(tmp_path, cli, monkeypatch):
    _broken_method(monkeypatch, "hybrid-deadline", "ffd", ZeroDivisionError("boom"))
    infeasible = hd(set_in("jobs.0.tasks.0.work", 1000.0))(tmp_path)
    code, out, err = cli("compare", infeasible, HD_FILE, "--methods", "cdf,ffd")
    assert code == 1  # no bad input: the infeasible instance, then each failed run
    assert err.strip().splitlines() == [
        "error: i: infeasible: t0",
        f"error: {HD_FILE}: method ffd failed: ZeroDivisionError: boom"]
    late = late_malleable(tmp_path)
    code, out, err = cli("compare", infeasible, HD_FILE, late, "--time-limit", "0")
    assert code == 2 and "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {late}: method tree: ")
    assert "more failed runs, see the table)" in lines[0]


# -- solve: no schedule, one line -----------------------------------------------------------

def test_solve_without_a_schedule_says_why_in_one_line(tmp_path, cli):
    # Hosts that err 99% of the time and leave early: no correct result for any unit, so
    # no schedule (was: exit 1 and nothing on standard error, or a warning line; now one
    # error line, also with --json).
    generated = tmp_path / "p.json"
    assert cli("generate", "pull", "--units", "2", "--dci", "idg", "--capacity", "100",
               "-o", generated)[0] == 0
    document = json.loads(generated.read_text())
    for host in document["hosts"]:
        host["error"], host["windows"] = 0.99, host["windows"][:1]
    instance = write(tmp_path, "rare.json", json.dumps(document))
    target = tmp_path / "s.json"
    for extra in ([], ["--json"]):
        code, out, err = cli("solve", instance, "--method", "fcfs", "-o", target, *extra)
        assert code == 1 and "Traceback" not in out + err
        assert err.strip().splitlines() == [
            "error: no solution: no correct result for work unit(s) 'w0', 'w1': the hosts' "
            f"availability ends first (or the horizon, 1e+09 s) (nothing written to {target})"], err
        assert not target.exists()


def test_an_exact_method_out_of_time_returns_the_best_heuristic(tmp_path, cli):
    # Gang's exact method starts from the best heuristic: a time limit too short for the
    # model (1e-300 s, like 0) still gives that schedule, with its bound.
    target = tmp_path / "s.json"
    heuristics_not_optimal = INSTANCES / "gang" / "small-12.json"
    code, out, err = cli("solve", heuristics_not_optimal, "--method", "exact", "--time-limit",
                         "1e-300", "-o", target, "--json")
    assert code == 0 and err.strip() == f"wrote {target}", err
    result = json.loads(out)
    assert result["status"] == "time_limit" and "best heuristic" in result["message"]
    assert result["bound"] < result["objective"] and target.exists()


def test_solve_of_an_infeasible_instance_is_one_line(tmp_path, cli):
    path = hd(set_in("jobs.0.tasks.0.work", 1000.0))(tmp_path)
    for extra in ([], ["--json"]):
        code, out, err = cli("solve", path, "--method", "cdf", "-o", tmp_path / "s.json",
                             *extra)
        assert code == 1
        assert err.strip().splitlines() == [
            f"error: infeasible: t0 (nothing written to {tmp_path / 's.json'})"]
        assert not (tmp_path / "s.json").exists()


# -- the data folder variable ---------------------------------------------------------------

@pytest.mark.parametrize(("value", "fragment"), [
    ("/no/such/folder", "$HYBRIDSCHED_DATA is '/no/such/folder', which does not exist"),
    (str(HD_FILE), "which is not a folder"),
])
def test_a_data_variable_naming_no_folder_is_refused(tmp_path, cli, monkeypatch, value,
                                                     fragment):
    # Set but wrong, it was silently replaced by ../shared/data (other data than asked).
    monkeypatch.setenv("HYBRIDSCHED_DATA", value)
    path = spec('[[instances]]\nimporter = "etc"\nfiles = ["{data}/braun-etc-512x16/u_c_hihi.0"]'
                '\n[[methods]]\nname = "gmo"\n')(tmp_path)
    code, out, err = cli("campaign", path, "-o", tmp_path / "r", "--serial")
    assert code == 2 and "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "spec.toml:3: instances[0].files[0]: {data}: " in lines[0]
    assert fragment in lines[0]
    assert not (tmp_path / "r").exists()


# -- what is accepted, as documented --------------------------------------------------------

def test_an_option_given_twice_takes_its_last_value(tmp_path, cli):
    # The usual convention of command lines (an alias may set a default the user overrides).
    code, _, err = cli("generate", "hybrid-deadline", "--tasks", "3", "--tasks", "4",
                       *o(tmp_path))
    assert code == 0, err
    document = json.loads((tmp_path / "out.json").read_text())
    assert sum(len(job["tasks"]) for job in document["jobs"]) == 4


def test_a_solution_may_carry_unknown_summary_fields(tmp_path, cli):
    # Solution headers keep what producers add (versions, options); the checker recomputes
    # every value it uses, so an unknown top-level field is not an error.
    path = solution("hybrid-deadline", HD_FILE, "cdf",
                    set_in("made_with", {"tool": "mine", "run": 3}))(tmp_path)
    code, out, err = cli("validate", HD_FILE, path)
    assert code == 0 and "valid" in out and err == ""


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_text_inputs_read_any_line_end_and_a_byte_order_mark(tmp_path, cli, end, bom):
    records = [SWF_RECORD.format(n=n, run=100 * n) for n in range(1, 4)]
    code, _, err = cli("import-swf", swf(tmp_path, *records, end=end, prefix=bom), *o(tmp_path))
    assert code == 0 and "3 tasks from 3 records" in err, err
    trace = write(tmp_path, "t.txt", bom + FTA.replace("\n", end))
    code, _, err = cli("import-fta", trace, *o(tmp_path, "f.json"))
    assert code == 0 and "2 hosts" in err, err
    if end != "\r":  # TOML lines end with LF or CRLF (a lone CR is refused, one line)
        config = write(tmp_path, "t.toml", bom + TREE_FILE.read_text().replace("\n", end))
        code, out, err = cli("tree", config)
        assert code == 0 and "Traceback" not in out + err, err
    matrix = write(tmp_path, "m.etc", bom + end.join(["2 1 0", "1", "2"]) + end)
    code, _, err = cli("import-etc", matrix, *o(tmp_path, "e.json"))
    assert code == 0 and "2 tasks x 1 machines" in err, err


# -- round trip at the new limits -----------------------------------------------------------

def _solved_and_valid(cli, tmp: Path, instance: Path, method: str) -> None:
    solved = tmp / "solved.json"
    code, _, err = cli("solve", instance, "--method", method, "-o", solved)
    assert code == 0, err
    code, out, err = cli("validate", instance, solved)
    assert code == 0 and "valid" in out, err


@pytest.mark.parametrize("options", [
    ["--scenario", "HiHi", "--communication", "--storage", "--tightness", "1000"],
    ["--scenario", "LoLo", "--consistent", "--communication", "--storage", "--hard-limits",
     "--tightness", "1e-9"],
    ["--scenario", "HiLo", "--procs-per-site", "1", "--private-share", "1"],
])
def test_what_generate_bot_sites_writes_at_its_extremes_reads_back(tmp_path, cli, options):
    path = tmp_path / "i.json"
    code, _, err = cli("generate", "bot-sites", "--sites", "3", "--bots", "3",
                       "--tasks-per-bot", "1:4", *options, "--seed", "7", "-o", path)
    assert code == 0, err
    code, _, err = cli("solve", path, "--method", "g-min-min", "-o", tmp_path / "s.json")
    assert code in (0, 1) and "Traceback" not in err, err  # hard limits may leave no schedule
    if code == 0:
        code, out, err = cli("validate", path, tmp_path / "s.json")
        assert code == 0, out + err


def test_what_import_etc_and_import_swf_write_at_the_limits_reads_back(tmp_path, cli):
    from hybridsched.bot_sites.schema import MAX_ETC, MIN_ETC
    from hybridsched.hybrid_deadline.schema import MAX_HOURS, MAX_WORK

    matrix = write(tmp_path, "m.etc", f"2 2 0\n{MIN_ETC!r}\n{MAX_ETC!r}\n1\n{MAX_ETC!r}\n")
    code, _, err = cli("import-etc", matrix, "-o", tmp_path / "e.json")
    assert code == 0, err
    _solved_and_valid(cli, tmp_path, tmp_path / "e.json", "g-min-min")
    # The longest run time whose work (at 1 GHz-hour per 1800 s on a 2 GHz core, deadline
    # alpha x run time) stays within the format's limits.
    seconds = min(MAX_WORK, MAX_HOURS) * 1800
    code, _, err = cli("import-swf", swf(tmp_path, SWF_RECORD.format(n=1, run=repr(seconds))),
                       "--alpha", "1", "-o", tmp_path / "h.json")
    assert code == 0, err
    _solved_and_valid(cli, tmp_path, tmp_path / "h.json", "cdf+ra")
    code, _, err = cli("import-swf", swf(tmp_path, SWF_RECORD.format(n=1, run=repr(seconds
                                                                                 * 4))),
                       "--alpha", "1", "-o", tmp_path / "h2.json")
    assert code == 2 and "t.swf:2: run time" in err and not (tmp_path / "h2.json").exists()


def test_instances_at_the_number_limits_solve_and_validate(tmp_path, cli):
    from hybridsched.bot_sites import schema as bs_schema
    from hybridsched.hybrid_deadline import schema as hd_schema

    def hd_extremes(document: dict) -> None:
        document["jobs"][0]["tasks"][0]["work"] = hd_schema.MAX_WORK
        document["jobs"][0]["deadline"] = hd_schema.MAX_HOURS
        document["pms"][0]["capacity"] = hd_schema.MIN_CAPACITY
        document["vm_types"][0].update(price=hd_schema.MAX_PRICE,
                                       capacity=hd_schema.MAX_CAPACITY)
        document.pop("reference", None)

    _solved_and_valid(cli, tmp_path, Path(hd(hd_extremes)(tmp_path)), "cdf+ra")

    def bs_extremes(document: dict) -> None:
        document["bots"][0]["etc"] = [bs_schema.MIN_ETC, bs_schema.MAX_ETC]
        document["bots"][1].update(data=[bs_schema.MAX_DATA, 1.0],
                                   bandwidth=[bs_schema.MIN_BANDWIDTH, bs_schema.MAX_BANDWIDTH])
        document["sites"][0]["price"] = bs_schema.MAX_PRICE
        document.pop("reference", None)

    def links(document: dict) -> None:
        for bot in document["bots"]:
            bot.setdefault("data", [1.0, 1.0])
            bot.setdefault("bandwidth", [1.0, 1.0])
        bs_extremes(document)

    for method in ("gmo", "g-sufferage", "g-min-min"):
        _solved_and_valid(cli, tmp_path, Path(bs(links)(tmp_path)), method)
