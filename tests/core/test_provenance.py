"""Results record the versions that made them; a resume with other versions says which."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hybridsched import provenance as provenance_module
from hybridsched.provenance import changes, code_version, provenance

ROOT = Path(__file__).resolve().parents[2]
GANG = ROOT / "instances" / "gang" / "small-10.json"


def test_provenance_names_the_package_the_solvers_python_and_cores():
    record = provenance()
    assert record["hybridsched"] == code_version()
    assert record["hybridsched"].startswith("0.") and "+" in record["hybridsched"]
    for library in ("highspy", "pyomo", "pulp", "numpy", "dask", "distributed"):
        assert isinstance(record[library], str) and record[library][0].isdigit()
    assert isinstance(record["cores"], int) and record["cores"] >= 1
    assert record["python"].count(".") == 2
    json.dumps(record)  # storable as it is


def test_changes_say_which_version_changed_and_what_appeared():
    before = {"hybridsched": "0.1.0+a", "highspy": "1.15.0", "cores": 2}
    now = {"hybridsched": "0.1.0+a", "highspy": "1.16.0", "cores": 2, "ortools": "9.14"}
    assert changes(before, now) == ["highspy 1.15.0 -> 1.16.0", "ortools absent -> 9.14"]
    assert changes(now, now) == []


def test_a_solution_file_records_what_made_it_and_still_validates(cli, tmp_path):
    out = tmp_path / "s.json"
    assert cli("solve", GANG, "--method", "exact", "-o", out)[0] == 0
    assert json.loads(out.read_text())["produced_by"] == provenance()
    code, stdout, _ = cli("validate", GANG, out)
    assert code == 0 and "valid" in stdout


def _spec(folder: Path) -> Path:
    spec = folder / "c.toml"
    spec.write_text('[campaign]\nname = "v"\n[[instances]]\n'
                    f'files = ["{GANG}"]\n[[methods]]\nname = "fifo"\n'
                    '[[methods]]\nname = "cmms"\n')
    return spec


def test_store_rows_and_report_record_versions_and_a_resume_warns_of_changes(
        cli, tmp_path, monkeypatch):
    spec, store, report = _spec(tmp_path), tmp_path / "store", tmp_path / "report"
    code, _, err = cli("campaign", spec, "-o", store, "--serial")
    assert code == 0 and "warning" not in err
    from hybridsched.experiments.store_read import read_store

    rows = read_store(store).to_pylist()
    assert len(rows) == 2 and all(json.loads(r["versions"]) == provenance() for r in rows)
    assert cli("report", store, "-o", report)[0] == 0
    text = (report / "report.md").read_text()
    assert "## Produced by" in text and provenance()["highspy"] in text

    # The same campaign again, as if highspy had been upgraded in between.
    real = provenance_module._libraries()
    changed = tuple((n, "99.0" if n == "highspy" else v) for n, v in real)
    monkeypatch.setattr(provenance_module, "_libraries", lambda: changed)
    code, _, err = cli("campaign", spec, "-o", store, "--serial")
    assert code == 0
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert f"highspy {dict(real)['highspy']} -> 99.0" in warnings[0]


@pytest.mark.parametrize("record", [None, {}, {"highspy": "1.0"}])
def test_a_store_written_before_versions_were_recorded_is_reported_as_such(record):
    import pandas as pd

    from hybridsched.experiments.report import _provenance_section

    frame = pd.DataFrame({"versions": [None if record is None else json.dumps(record)]})
    text = " ".join(getattr(b, "text", "") for b in _provenance_section(frame))
    assert "This report: hybridsched" in text
    assert ("do not record" in text) == (not record)
