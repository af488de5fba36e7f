"""The docs' paper-scale table prints what ``results/paper-scale/gaps.csv`` holds.

The table moved from the README to ``docs/guide/bounds.md`` (issue 33): it is
the generated block ``paper-scale-gaps`` of ``scripts/publish_numbers.py``,
which ``scripts/paper_scale_gaps.py --docs`` rewrites.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
GAPS = ROOT / "results" / "paper-scale" / "gaps.csv"
PAGE = ROOT / "docs" / "guide" / "bounds.md"


def _load(name: str):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up while defined
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_the_docs_table_is_the_generated_one():
    script, publish = _load("paper_scale_gaps"), _load("publish_numbers")
    text = PAGE.read_text()
    found = [b for b in publish.find_blocks(text, PAGE) if b.name == script.BLOCK]
    assert len(found) == 1, f"{PAGE} holds {len(found)} blocks {script.BLOCK}"
    table = publish.body(text, found[0]).split("\n\n")[0]
    assert table == script.render(pd.read_csv(GAPS)).strip()
    assert table.startswith("| family | setup | method |")


def test_every_setup_of_the_script_has_rows_and_every_row_its_command():
    script = _load("paper_scale_gaps")
    gaps = pd.read_csv(GAPS)
    assert set(gaps["family"]) == {s.family for s in script.SETUPS}
    for row in gaps.itertuples():
        assert row.command.startswith("python scripts/paper_scale_gaps.py --setups ")
        if row.bounded:
            assert row.ci_low <= row.mean_gap <= row.ci_high
