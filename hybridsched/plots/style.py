"""The look every figure shares: axes, colours, markers, labels, rows, empty panels.

Public so that every figure module draws the same way; matplotlib is
imported on first use only. The helpers that read a campaign's results
table (:func:`labels`, :func:`solved`) rely on its columns only
(``method``, ``objective_name``, ``status``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from hybridsched.result import Status

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Point markers and line styles cycled through methods (overlapping curves stay visible).
MARKERS = "os^vD<>pPX*hH"
LINESTYLES = ("-", "--", "-.", ":")

#: Statuses of runs that have a schedule (:attr:`hybridsched.result.Status.has_solution`).
SOLVED = tuple(status.value for status in Status if status.has_solution)


def axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """``ax`` and its figure, or a new pyplot-free figure with one ``Axes``."""
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize, layout="constrained")
    return figure, figure.add_subplot()


def text(label: object) -> str:
    """``label`` as plain text for matplotlib (a ``$`` would start mathtext)."""
    return str(label).replace("$", r"\$")


def colours(n: int) -> list[Any]:
    """``n`` distinct colours (tab10, tab20, then a continuous map)."""
    import matplotlib as mpl

    if n <= 10:
        return list(mpl.colormaps["tab10"].colors[:max(n, 1)])
    if n <= 20:
        return list(mpl.colormaps["tab20"].colors[:n])
    return [mpl.colormaps["turbo"](x) for x in np.linspace(0, 1, n)]


def labels(df: pd.DataFrame) -> pd.Series:
    """Method labels, with the objective's name when ``df`` mixes several objectives."""
    if df["objective_name"].nunique(dropna=False) <= 1:
        return df["method"].astype(str)
    return df["method"].astype(str) + " (" + df["objective_name"].astype(str) + ")"


def measure_of(df: pd.DataFrame) -> str:
    """The objective a results table measures, with its unit (``"rent cost ($)"``).

    From its ``family`` and ``objective_name`` columns and the family's
    measures; ``"objective"`` when the table mixes several or says none.
    """
    from hybridsched.io.display import objective_label

    if df.empty or "family" not in df:
        return "objective"
    names = df["objective_name"] if "objective_name" in df else pd.Series(None, df.index)
    pairs = pd.DataFrame({"f": df["family"], "o": names}).drop_duplicates()
    labels = {objective_label(f, o if isinstance(o, str) else None)
              for f, o in pairs.itertuples(index=False)}
    return next(iter(labels)) if len(labels) == 1 else "objective"


def size_of(df: pd.DataFrame) -> str:
    """What instance sizes count in a results table's family (``"tasks"``; else ``"items"``)."""
    from hybridsched.io.display import size_name

    families = df["family"].dropna().unique() if "family" in df else []
    return size_name(families[0]) if len(families) == 1 else "items"


def solved(df: pd.DataFrame) -> pd.Series:
    """Whether each run of a results table has a schedule (its status is in :data:`SOLVED`)."""
    return df["status"].isin(SOLVED)


def empty(ax: Axes, message: str) -> None:
    """Say ``message`` in the middle of ``ax``, which has nothing to draw."""
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes,
            color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def spread_rows(used: np.ndarray, max_rows: int) -> tuple[np.ndarray, dict[int, int]]:
    """At most ``max_rows`` of the resources ``used``, evenly spread, and ``{resource: row}``."""
    shown = used if len(used) <= max_rows else used[
        np.linspace(0, len(used) - 1, max_rows).round().astype(int)]
    return shown, {int(r): k for k, r in enumerate(shown)}
