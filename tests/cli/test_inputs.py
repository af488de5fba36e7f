"""Input layer: SWF traces and their import, strict JSON reading, size limits."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from hybridsched.errors import InputError
from hybridsched.hybrid_deadline.generator import generate
from hybridsched.hybrid_deadline.trace import instance_from_trace
from hybridsched.io.documents import MAX_TASKS
from hybridsched.io.jsonio import loads_strict
from hybridsched.io.swf import read_swf

ROOT = Path(__file__).resolve().parents[2]
HD_FILE = ROOT / "instances" / "hybrid-deadline" / "small-01.json"

HEADER = """; Version: 2.2
; Computer: Intel iPSC/860
; Information: http://www.nas.nasa.gov/
;              http://www.cs.huji.ac.il/labs/parallel/workload/
;
; Note: There is no information on wait times - the given submit
;       times are actually start times
; Note: group 1 is normal users
;       group 2 is system personnel
; MaxProcs: 128
"""


def record(n: int, run: float = 100, procs: int = 1, submit: float = 0) -> str:
    return f"{n} {submit} -1 {run} {procs} -1 -1 {procs} -1 -1 1 1 1 -1 -1 -1 -1 -1\n"


def test_header_continuation_lines_continue_their_field(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(HEADER + record(1))
    fields = read_swf(path).header_fields()
    assert fields["Computer"] == "Intel iPSC/860"
    assert fields["Information"] == ("http://www.nas.nasa.gov/ "
                                     "http://www.cs.huji.ac.il/labs/parallel/workload/")
    assert fields["Note"] == ("There is no information on wait times - the given submit "
                              "times are actually start times\n"
                              "group 1 is normal users group 2 is system personnel")
    assert fields["MaxProcs"] == "128"
    assert "group 2 is system personnel" not in fields  # not taken as a key


def test_gzip_is_recognised_by_content_not_name(tmp_path):
    path = tmp_path / "compressed.swf"  # no .gz suffix
    path.write_bytes(gzip.compress((HEADER + record(1) + record(2)).encode()))
    assert [r.job_number for r in read_swf(path).records] == [1, 2]


def test_skipped_records_are_those_read_before_the_limit(tmp_path):
    path = tmp_path / "t.swf"
    lines = [record(1, -1), record(2), record(3, 0), record(4), record(5, -1), record(6),
             record(7, -1)]
    path.write_text(HEADER + "".join(lines))
    trace = read_swf(path)
    imported = instance_from_trace(trace, limit=2)
    assert imported.used_records == 2 and imported.instance.task_ids == ("r2", "r4")
    assert imported.skipped_records == 2  # records 1 and 3; 5 and 7 were never reached
    assert imported.skipped == {"no usable run time": 2}
    whole = instance_from_trace(trace)
    assert whole.used_records == 3 and whole.skipped_records == 4


def test_records_without_processors_have_their_own_reason(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(HEADER + record(1, 100, 0) + record(2, -1, 4) + record(3, 50, 3)
                    + record(4, 60, -1))
    imported = instance_from_trace(read_swf(path), grouping="job")
    assert imported.instance.n_tasks == 3 and imported.used_records == 1
    assert imported.skipped == {"no usable run time": 1, "no processor count": 2}
    assert imported.instance.provenance["skipped_by_reason"] == imported.skipped


def test_import_swf_names_the_skip_reasons(tmp_path, cli):
    path = tmp_path / "t.swf"
    path.write_text(HEADER + record(1, 100, 0) + record(2, -1, 4) + record(3, 50, 3))
    code, _, err = cli("import-swf", path, "--grouping", "job", "-o", tmp_path / "i.json")
    assert code == 0
    assert ("3 tasks from 1 records; skipped 2 records (1 with no usable run time, "
            "1 with no processor count)") in err


def test_nasa_trace_header_and_window_grouping(nasa_trace_path, tmp_path, cli):
    trace = read_swf(nasa_trace_path)
    fields = trace.header_fields()
    assert fields["Computer"] == "Intel iPSC/860"
    assert fields["Note"].count("\n") >= 2 and "start times" in fields["Note"]
    code, _, err = cli("import-swf", nasa_trace_path, "--limit", 300, "--grouping",
                       "window", "-o", tmp_path / "n.json")
    assert code == 0 and "from 300 records" in err


def test_strict_json_reader_accepts_what_json_accepts():
    text = '\ufeff{"a": [1, 2.5, -3e2, true, null, "x"], "b": {"c": {}}}'
    assert loads_strict(text.lstrip("\ufeff"), "f") == {"a": [1, 2.5, -300.0, True, None, "x"],
                                                        "b": {"c": {}}}


def test_a_byte_order_mark_is_accepted(tmp_path, cli):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + HD_FILE.read_bytes())
    assert cli("solve", path, "--method", "cdf")[0] == 0


def test_duplicate_keys_are_found_deep_in_arrays():
    with pytest.raises(InputError, match=r"field a\.1\.b: duplicate key 'c'"):
        loads_strict('{"a": [{}, {"b": {"c": 1, "c": 2}}]}', "f")


def test_generator_refuses_sizes_and_seeds_before_allocating():
    # The library names its parameters (the command line prints --tasks, --seed).
    with pytest.raises(InputError, match="^n_tasks: "):
        generate(MAX_TASKS + 1)
    with pytest.raises(InputError, match="^seed: "):
        generate(3, seed=-1)


def test_numbers_in_solution_files_are_strict(tmp_path, cli):
    sol = tmp_path / "s.json"
    assert cli("solve", HD_FILE, "--method", "cdf", "-o", sol)[0] == 0
    document = json.loads(sol.read_text())
    document["assignments"][0]["core"] = "0"
    sol.write_text(json.dumps(document))
    code, _, err = cli("validate", HD_FILE, sol)
    assert code == 2 and "assignments.0.core: expected a number, got the string '0'" in err


def test_a_pm_named_like_a_vm_is_refused_so_solutions_stay_valid(tmp_path, cli):
    document = json.loads(HD_FILE.read_text())
    document["pms"][0]["id"] = "vm-0"
    path = tmp_path / "i.json"
    path.write_text(json.dumps(document))
    code, _, err = cli("solve", path, "--method", "cdf", "-o", tmp_path / "s.json")
    assert code == 2 and "pms.0.id" in err and "reserved" in err
    document["pms"][0]["id"] = "vm-zero"  # only vm-<number> is reserved
    path.write_text(json.dumps(document))
    assert cli("solve", path, "--method", "cdf", "-o", tmp_path / "s.json")[0] == 0
    assert cli("validate", path, tmp_path / "s.json")[0] == 0
