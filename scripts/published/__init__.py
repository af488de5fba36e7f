"""The generated blocks of the docs: what each one runs, reads and prints (issue 33).

A :class:`Block` names the command that (re)produces its result files under
``results/`` and a renderer from those files to Markdown. The family modules
beside this one define them; ``scripts/publish_numbers.py`` registers them all
and rewrites the pages. This module holds what the renderers share: loading a
result file and formatting numbers with their units.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Block:
    """One generated block of Markdown.

    Attributes
    ----------
    name:
        The block's name, as in ``<!-- generated:NAME -->``.
    command:
        Shell command, run from the checkout's root, that writes ``results``
        (printed beside the block, so it is the exact text a reader runs).
    results:
        The files or result-store folders it writes, relative to the root.
    render:
        ``render(paths) -> Markdown``: the block's body from ``results`` (the
        paths in the same order), without the source line.
    scratch:
        Folders the command fills that a fresh measurement must not resume
        from (a campaign store resumes): removed before ``--run``.
    """

    name: str
    command: str
    results: tuple[str, ...]
    render: Callable[[Sequence[Path]], str]
    scratch: tuple[str, ...] = ()

    def paths(self) -> list[Path]:
        """The result files' absolute paths."""
        return [ROOT / name for name in self.results]

    def source_line(self) -> str:
        """The line under the block: the command and the result files it reads."""
        files = ", ".join(f"`{name}`" for name in self.results)
        return (f"*Source:* `{self.command}` → {files}; rendered by "
                f"`python scripts/publish_numbers.py` (block `{self.name}`).")

    def markdown(self) -> str:
        """The block's whole body: the rendered numbers, then the source line."""
        return f"{self.render(self.paths()).strip()}\n\n{self.source_line()}"


def load_json(path: Path) -> Any:
    """A JSON result file (strict JSON: no NaN)."""
    return json.loads(path.read_text())


def load_store(path: Path) -> Any:
    """A campaign's result store as a table with its gaps and metric columns."""
    from hybridsched.experiments.store_read import load_results, newest_runs

    return newest_runs(load_results(path))


def sig(value: float, digits: int = 2) -> str:
    """``value`` to ``digits`` significant digits (times: what noise allows), thousands with
    commas."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = digits - 1 - math.floor(math.log10(abs(value)))
    return f"{round(value, decimals):,.{max(0, decimals)}f}"


def secs(seconds: float) -> str:
    """A run time in seconds to 2 significant digits (what a shared machine's noise allows);
    below 10 ms, ``< 0.01``."""
    return "< 0.01" if seconds < 0.01 else sig(seconds)


def num(value: float, decimals: int = 0) -> str:
    """``value`` with ``decimals`` decimals and thousands separators."""
    return f"{value:,.{decimals}f}"


def pct(fraction: float, decimals: int = 1, sign: bool = False) -> str:
    """A fraction as a percentage (``0.123`` -> ``12.3%``)."""
    return f"{100 * fraction:{'+' if sign else ''},.{decimals}f}%"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def count_words(n: int, total: int) -> str:
    """``n/total`` as written in a sentence (``all 4``, ``none``, ``2 of 4``)."""
    if n == 0:
        return "none"
    if n == total:
        return f"all {total}"
    return f"{n} of {total}"


def compare_summary(records: list[dict[str, Any]], names: dict[str, str],
                    unit: str) -> str:
    """Per method of a ``hybridsched compare --json`` output: instances where it reached the
    reference, mean and largest gap, and the exact methods' proofs.

    ``names`` maps the methods to show to their printed names, in order; ``unit`` names
    the objective with its unit.
    """
    instances = sorted({r["instance"] for r in records})
    kinds = sorted({r["reference_kind"] for r in records})
    rows = []
    for method, label in names.items():
        runs = [r for r in records if r["method"] == method]
        gaps = [r["gap"] for r in runs if r["gap"] is not None]
        reached = sum(g == 0 for g in gaps)
        proven = sum(r["status"] == "optimal" for r in runs)
        rows.append([label, f"{reached}/{len(runs)}",
                     pct(sum(gaps) / len(gaps)) if gaps else "no reference",
                     pct(max(gaps)) if gaps else "no reference",
                     f"{proven}/{len(runs)}" if method in ("exact", "bound", "grid") else "-"])
    return (table(["method", "reached the reference", "mean gap", "largest gap",
                   "proven optimal"], rows)
            + f"\n\n{len(instances)} instances; objective: {unit}; reference: "
            f"{' or '.join(kinds)}; gap = `(objective - reference) / reference`.")
