"""The README's tour prints what the README shows, and CI runs the README's own commands."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tour():
    path = ROOT / "scripts" / "readme_tour.py"
    spec = importlib.util.spec_from_file_location("readme_tour", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while defined
    spec.loader.exec_module(module)
    return module


def test_the_tour_prints_what_the_readme_and_the_docs_show():
    tour = _tour()
    expected = tour.normalise(tour.render(tour.tour_outputs()))
    for page in tour.PAGES:
        assert tour.normalise(tour.shown_block(page.read_text(), page.name)) == expected, page


def test_normalise_masks_times_and_nothing_else():
    tour = _tour()
    table = ("method  objective  time (s)\n"
             "cdf          0.63     0.00061\n"
             "exact       0.525      1.2\n")
    masked = tour.normalise(table)
    assert "0.00061" not in masked and "1.2" not in masked
    assert "0.63" in masked and "0.525" in masked
    assert tour.normalise("optimal 0.525 (1.3 s)") == "optimal 0.525 (<t> s)"
    row = tour.normalise("runtime_s   0.0006   wall-clock time")
    assert row == "runtime_s  <t>  wall-clock time"
    assert tour.normalise("objective 0.63") != tour.normalise("objective 0.64")


def test_ci_runs_the_readme_s_commands_verbatim():
    readme = ROOT.joinpath("README.md").read_text().splitlines()
    commands = [line.strip() for line in ROOT.joinpath(".ci", "run").read_text().splitlines()
                if line.strip() and not line.startswith(("#", "set ", "cd ", "if ", "fi", "  "))]
    assert commands, "no command in .ci/run"
    readme_commands = {line.split("#")[0].strip() for line in readme}
    missing = [c for c in commands if c not in readme_commands]
    assert not missing, f".ci/run lines absent from the README: {missing}"
