"""The neighbourhood search that improves the CP-SAT assignment model's start (issue 22)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ortools")

from hybridsched.models.bot_sites import cpsat_assign as search_module  # noqa: E402


def _matrix(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    dur = np.sort(rng.integers(1, 1000, size=(40, 6)), axis=1)
    return dur, np.ones_like(dur, dtype=bool)


@pytest.mark.parametrize("seed", range(3))
def test_rounding_descent_and_search_never_worsen(seed, monkeypatch):
    monkeypatch.setattr(search_module, "MAX_ROUNDS", 30)
    dur, ok = _matrix(seed)
    start = search_module.lp_rounding(dur, ok)
    down = search_module.descend(dur, ok, start)
    assert search_module.max_load(dur, down) <= search_module.max_load(dur, start)
    search = search_module._Search(dur, ok, down, seed, None)
    search.run()
    assert search.loads.max() <= search_module.max_load(dur, down)
    assert search.loads.max() == search_module.max_load(dur, search.assign)


def test_same_seed_same_assignment(monkeypatch):
    monkeypatch.setattr(search_module, "MAX_ROUNDS", 30)
    dur, ok = _matrix(7)
    start = search_module.lp_rounding(dur, ok)
    runs = [search_module._Search(dur, ok, start, 3, None) for _ in range(2)]
    for search in runs:
        search.run()
    assert np.array_equal(runs[0].assign, runs[1].assign)
