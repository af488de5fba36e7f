"""Blocks of the guide's pages: the paper-scale gaps (``docs/guide/bounds.md``)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from published import ROOT, Block


def paper_scale_script() -> ModuleType:
    """``scripts/paper_scale_gaps.py`` as a module (it owns the table's layout)."""
    name = "paper_scale_gaps"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up while defined
        spec.loader.exec_module(module)
    return sys.modules[name]


def _paper_scale(paths: Sequence[Path]) -> str:
    import pandas as pd

    return paper_scale_script().render(pd.read_csv(paths[0]))


BLOCKS = [
    # The stores under results/paper-scale/ are committed: the command resumes from them
    # (a fresh measurement: delete them first), then writes gaps.csv.
    Block("paper-scale-gaps", "python scripts/paper_scale_gaps.py --seeds 3 --time-limit 120 "
          "--output results/paper-scale",
          ("results/paper-scale/gaps.csv",), _paper_scale),
]
