"""The Failure Trace Archive reader: windows per node, and malformed lines."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

from hybridsched.errors import InputError
from hybridsched.io.fta import read_fta
from hybridsched.sim import Simulation

GOOD = """# event_id component_id node_id platform_id node_name type start stop reason
1 0 n1 0 a 1 0 100 0
2 0 n1 0 a 0 100 150 0
3 0 n1 0 a 1 150 200 0
4 0 n1 0 a 1 190 260 0
5 0 n2 0 b 1 50 -1 0

6 0 n3 0 c 0 0 10 0
"""


def test_windows_are_read_sorted_and_merged(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text(GOOD)
    trace = read_fta(path)
    assert trace.nodes == ("n1", "n2")
    assert trace.windows["n1"] == ((0.0, 100.0), (150.0, 260.0))
    assert trace.windows["n2"] == ((50.0, math.inf),)
    gz = tmp_path / "t.txt.gz"
    gz.write_bytes(gzip.compress(GOOD.encode()))
    assert read_fta(gz).windows == trace.windows


def test_configurable_columns(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("n1\tup\t0\t5\nn1\tdown\t5\t9\nn2\tup\t1\t2\n")
    trace = read_fta(path, node_column=0, type_column=1, start_column=2, end_column=3,
                     available_type="up")
    assert trace.windows == {"n1": ((0.0, 5.0),), "n2": ((1.0, 2.0),)}


def test_windows_drive_the_simulation(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text(GOOD)
    trace = read_fta(path)
    sim = Simulation()
    seen = []
    sim.availability(trace.windows["n1"], lambda: seen.append(("join", sim.now)),
                     lambda: seen.append(("leave", sim.now)))
    sim.run()
    assert seen == [("join", 0), ("leave", 100), ("join", 150), ("leave", 260)]


@pytest.mark.parametrize("text, fragment", [
    ("1 0 n1 0 a 1 0\n", ":1: expected at least 8 columns"),
    ("1 0 n1 0 a 1 zero 5 0\n", ":1: the start time must be a number"),
    ("1 0 n1 0 a 1 0 nan 0\n", ":1: the end time must be a finite number"),
    ("# header\n1 0 n1 0 a 1 9 5 0\n", ":2: the event ends at 5, before its start 9"),
    ("1 0 n1 0 a 0 0 5 0\n", "no availability event"),
    ("", "no availability event"),
])
def test_malformed_traces_are_one_line_errors(tmp_path: Path, text: str, fragment: str
                                              ) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=fragment.replace("(", r"\(")) as caught:
        read_fta(path)
    assert "\n" not in str(caught.value) and "bad.txt" in str(caught.value)


def test_missing_file_and_bad_columns(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_fta(tmp_path / "none.txt")
    (tmp_path / "t.txt").write_text(GOOD)
    with pytest.raises(InputError, match="node column"):
        read_fta(tmp_path / "t.txt", node_column=-1)
