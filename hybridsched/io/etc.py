"""Reader for Braun et al. (2001) ETC matrices.

The classic format: a first line ``n m 0`` (tasks, machines, and a field
that is 0 in every published file), then the ``n * m`` expected times,
task-major (all machines of task 0, then task 1, ...), one per line or one
task per line. Each task becomes a BoT of one task and each machine a site
with one processor and price 0, so the greedy heuristics of the bot-sites
family reproduce the published Braun results.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.schema import MAX_ETC, MIN_ETC
from hybridsched.errors import InputError
from hybridsched.io.jsonio import read_text


def _parse_header(line: str, source: str) -> tuple[int, int]:
    fields = line.split()
    if len(fields) not in (2, 3):
        raise InputError(f"{source}:1: header must be 'n m 0' (tasks, machines), got {line!r}")
    try:
        values = [int(f) for f in fields]
    except ValueError:
        raise InputError(f"{source}:1: header must hold integers, got {line!r}") from None
    n, m = values[0], values[1]
    if n < 1 or m < 1:
        raise InputError(f"{source}:1: need at least one task and one machine, got {n} x {m}")
    return n, m


def parse_etc(text: str, source: str = "<etc>") -> np.ndarray:
    """Parse Braun ETC text into an ``(n, m)`` matrix.

    Raises
    ------
    InputError
        One line naming ``source`` and the line number: bad header, a
        non-numeric, non-finite or non-positive time, rows of the wrong
        length (ragged), or too few / too many values.
    """
    lines = text.splitlines()
    numbered = [(no, line) for no, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise InputError(f"{source}: empty file (expected a header 'n m 0')")
    n, m = _parse_header(numbered[0][1], source)
    values: list[float] = []
    widths = set()
    for no, line in numbered[1:]:
        fields = line.split()
        widths.add(len(fields))
        if len(fields) not in (1, m):
            raise InputError(f"{source}:{no}: ragged row: {len(fields)} values, expected 1 or {m}")
        for field in fields:
            try:
                value = float(field)
            except ValueError:
                raise InputError(f"{source}:{no}: not a number: {field!r}") from None
            if not MIN_ETC <= value <= MAX_ETC:  # NaN too: the format's range
                raise InputError(f"{source}:{no}: execution time must be positive and within "
                                 f"[{MIN_ETC:g}, {MAX_ETC:g}], got {field}")
            values.append(value)
        if len(values) > n * m:
            raise InputError(f"{source}:{no}: more than n * m = {n * m} values")
    if len(widths) > 1:
        raise InputError(f"{source}: ragged matrix: rows of {sorted(widths)} values mixed")
    if len(values) != n * m:
        last = numbered[-1][0]
        raise InputError(f"{source}:{last}: ragged matrix: {len(values)} values, "
                         f"expected n * m = {n} * {m} = {n * m}")
    return np.array(values).reshape(n, m)


def best_known(path: Path) -> float | None:
    """Best-known makespan of ``path`` from a ``best_known.csv`` beside it, if any."""
    table = path.parent / "best_known.csv"
    if not table.is_file():
        return None
    with table.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row.get("instance") == path.name:
                try:
                    return float(row["best_known_makespan"])
                except (KeyError, ValueError):
                    return None
    return None


def read_etc(path: str | Path) -> Instance:
    """Read a Braun ETC file as a bot-sites instance.

    Each of the ``n`` tasks is a BoT of one task (``t0`` ...), each of the
    ``m`` machines a site of one processor (``m0`` ...) with price 0. When a
    ``best_known.csv`` (columns ``instance,best_known_makespan``) sits beside
    the file, its value is recorded as ``reference.best_known_makespan`` and
    ``reference.upper_bound``.
    """
    path = Path(path)
    etc = parse_etc(read_text(path), str(path))
    n, m = etc.shape
    known = best_known(path)
    reference = None if known is None else {"best_known_makespan": known, "upper_bound": known}
    return Instance(
        name=path.name,
        bot_ids=tuple(f"t{k}" for k in range(n)),
        site_ids=tuple(f"m{i}" for i in range(m)),
        tasks=np.ones(n, dtype=np.int64),
        procs=np.ones(m, dtype=np.int64),
        price=np.zeros(m),
        compute=etc,
        reference=reference,
        provenance={"format": "braun-etc", "source": path.name},
    )
