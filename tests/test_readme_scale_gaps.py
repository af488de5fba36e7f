"""The README's paper-scale table prints what ``results/paper-scale/gaps.csv`` holds."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
GAPS = ROOT / "results" / "paper-scale" / "gaps.csv"


def _script():
    spec = importlib.util.spec_from_file_location("paper_scale_gaps",
                                                  ROOT / "scripts" / "paper_scale_gaps.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while defined
    spec.loader.exec_module(module)
    return module


def test_the_readme_table_is_the_generated_one():
    script = _script()
    text = (ROOT / "README.md").read_text()
    block = text.split(script.START, 1)[1].split(script.END, 1)[0].strip()
    assert block == script.render(pd.read_csv(GAPS)).strip()


def test_every_setup_of_the_script_has_rows_and_every_row_its_command():
    script = _script()
    gaps = pd.read_csv(GAPS)
    assert set(gaps["family"]) == {s.family for s in script.SETUPS}
    for row in gaps.itertuples():
        assert row.command.startswith("python scripts/paper_scale_gaps.py --setups ")
        if row.bounded:
            assert row.ci_low <= row.mean_gap <= row.ci_high
