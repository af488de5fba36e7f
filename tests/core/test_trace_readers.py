"""Trace readers: FTA times rebased to the trace's start, compressed traces sniffed by
content, SWF reading that stops at ``--limit``, and importers that refuse what their
family's loader would."""

from __future__ import annotations

import bz2
import gzip
import lzma
import math
from pathlib import Path

import pytest

from hybridsched.errors import InputError
from hybridsched.gang.trace import instance_from_trace as gang_from_trace
from hybridsched.hybrid_deadline.trace import instance_from_trace
from hybridsched.io.fta import read_fta
from hybridsched.io.swf import read_swf

EPOCH = 1_200_000_000.0


def fta(tmp: Path, *events: tuple[str, float, float | int]) -> Path:
    path = tmp / "t.txt"
    path.write_text("".join(f"{k} 0 {node} 0 x 1 {start!r} {end!r} 0\n"
                            for k, (node, start, end) in enumerate(events)))
    return path


def test_fta_times_are_rebased_to_the_trace_start(tmp_path: Path) -> None:
    trace = read_fta(fta(tmp_path, ("a", EPOCH + 10, EPOCH + 50), ("b", EPOCH, -1)),
                     max_span=1e9)
    assert trace.origin == EPOCH
    assert trace.windows == {"a": ((10.0, 50.0),), "b": ((0.0, math.inf),)}


def test_fta_drops_zero_length_windows_and_hosts_left_without_one(tmp_path: Path) -> None:
    trace = read_fta(fta(tmp_path, ("a", 0, 10), ("a", 20, 20), ("a", 10, 10), ("b", 5, 5)))
    assert trace.windows == {"a": ((0.0, 10.0),)}
    with pytest.raises(InputError, match="no availability event of positive length"):
        read_fta(fta(tmp_path, ("b", 5, 5)))


@pytest.mark.parametrize(("events", "fragment"), [
    ((("a", 0.0, 10), ("b", 5.0, 2e9)), "t.txt:2: the event reaches 2e+09"),
    ((("a", 0.0, -1), ("b", 3e9, -1)), "t.txt:2: the event reaches 3e+09"),
])
def test_fta_refuses_a_trace_longer_than_the_span(tmp_path: Path, events, fragment) -> None:
    with pytest.raises(InputError, match=fragment.replace("+", r"\+")):
        read_fta(fta(tmp_path, *events), max_span=1e9)
    assert read_fta(fta(tmp_path, *events)).origin == 0.0  # no span: no limit


RECORD = "{n} 0 -1 {run} 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"


def swf_text(*runs: float) -> str:
    return "; Computer: X\n" + "".join(RECORD.format(n=k + 1, run=r) for k, r in enumerate(runs))


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_compressed_swf_is_read_whatever_its_name(tmp_path: Path, compress) -> None:
    path = tmp_path / "plain-name.swf"
    path.write_bytes(compress(swf_text(5, 6).encode()))
    assert [r.run_time for r in read_swf(path).records] == [5, 6]


def test_swf_reading_stops_at_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "t.swf"
    path.write_text(swf_text(-1, 5, 6) + "this line is not a record\n")
    trace = read_swf(path, usable=lambda r: r.run_time > 0, limit=2)
    assert [r.run_time for r in trace.records] == [-1, 5, 6]  # the bad line is never read
    with pytest.raises(InputError, match="t.swf:5: malformed SWF record"):
        read_swf(path)


def test_hybrid_deadline_import_refuses_a_repeated_job_number(tmp_path: Path) -> None:
    path = tmp_path / "t.swf"
    path.write_text(swf_text(5, 6) + RECORD.format(n=1, run=7))
    with pytest.raises(InputError, match="t.swf:4: job number 1 repeats line 2"):
        instance_from_trace(read_swf(path))
    assert instance_from_trace(read_swf(path), limit=2).used_records == 2  # before it


def test_gang_import_names_the_line_and_the_option(tmp_path: Path) -> None:
    path = tmp_path / "t.swf"
    path.write_text(swf_text(5, 6e7))
    with pytest.raises(InputError, match=r"t.swf:3: the deadline, --deadline-factor 2 x the "
                                         r"run time, is 2e\+09 time units"):
        gang_from_trace(read_swf(path), time_unit_s=0.06)
    assert gang_from_trace(read_swf(path)).instance.n_jobs == 2
