"""``hybridsched bench``: a tier of the library, schedules checked, a leaderboard, resumable."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from hybridsched.cli import run
from hybridsched.errors import InputError
from hybridsched.experiments.library import tier_files
from hybridsched.experiments.store_read import load_results

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def library(tmp_path: Path) -> Path:
    """A library with the bot-sites files only (fast heuristics, recorded optima)."""
    folder = tmp_path / "lib"
    source = ROOT / "instances" / "bot-sites"
    shutil.copytree(source, folder / "bot-sites",
                    ignore=shutil.ignore_patterns("medium", "large", "real"))
    return folder


def test_tiers_come_from_the_reference_blocks(library: Path):
    tiny = [p.name for p in tier_files("bot-sites", "tiny", library)]
    assert "gmo-table2-inconsistent.json" in tiny and "tiny-00.json" in tiny
    assert not any(name.startswith("small-") for name in tiny)
    assert len(tier_files("bot-sites", "small", library)) == 2
    with pytest.raises(InputError, match="no bot-sites instance of tier 'large'.*tiny, small"):
        tier_files("bot-sites", "large", library)
    with pytest.raises(InputError, match="--tier: must be one of tiny, small, medium, large"):
        tier_files("bot-sites", "huge", library)
    with pytest.raises(InputError, match="no folder for family 'gang'"):
        tier_files("gang", "small", library)


def test_bench_writes_a_leaderboard_and_resumes(library: Path, tmp_path: Path, capsys):
    out = tmp_path / "bench"
    argv = ["bench", "bot-sites", "--tier", "small", "-o", str(out), "--library", str(library),
            "--methods", "g-met,g-min-min,g-sufferage", "--serial", "--json", "-q"]
    assert run(argv) == 0
    document = json.loads(capsys.readouterr().out)
    board = {row["method"]: row for row in document["leaderboard"]}
    assert set(board) == {"g-met", "g-min-min", "g-sufferage"}
    assert all(row["runs"] == 2 and row["solved"] == 2 for row in board.values())
    # Gaps are to the recorded optima: never negative, and a heuristic's gap is real.
    assert all(row["mean_gap"] >= 0 for row in board.values())
    assert document["references"] == {"optimum (recorded)": 2}
    markdown = (out / "leaderboard.md").read_text()
    assert "| method | runs | solved |" in markdown and "g-min-min" in markdown
    # Named (issue 33): what was compared, with its unit; what a win is; rounded times,
    # each time to the machine's noise.
    assert document["objective"] == "makespan (s)"
    assert "compared on the makespan (s)" in markdown
    assert "a tie is a win for every tied method" in markdown and "- wins = " in markdown
    rows = [line.strip("|").split("|") for line in markdown.splitlines()
            if line.startswith("| g-")]
    for column in (-2, -1):
        times = [row[column].strip() for row in rows]
        assert all(re.fullmatch(r"<?\d+\.\d{1,4}", t) for t in times), times
    assert (out / "profile.png").read_bytes()[:4] == b"\x89PNG"
    table = load_results(out / "store")
    assert len(table) == 6 and set(table["status"]) <= {"feasible", "optimal"}
    # Resuming runs nothing again: the store keeps its six rows.
    assert run(argv) == 0
    capsys.readouterr()
    assert len(load_results(out / "store")) == 6


def test_bench_table_names_the_objective_and_defines_wins(library: Path, tmp_path: Path,
                                                          capsys):
    argv = ["bench", "bot-sites", "--tier", "small", "-o", str(tmp_path / "b"), "--library",
            str(library), "--methods", "g-met,g-min-min", "--serial", "-q"]
    assert run(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "bot-sites small: leaderboard on the makespan (s)"
    assert "median time (s)" in lines[1]
    legend = [line for line in lines if line.startswith(("wins = ", "gap = ", "times = "))]
    assert len(legend) == 3 and "a tie is a win for every tied method" in legend[0]
    times = [line.split()[-2:] for line in lines[2:4]]
    assert all(re.fullmatch(r"<?\d+\.\d{1,4}", t) for pair in times for t in pair), times


@pytest.mark.parametrize(("argv", "message"), [
    (["bench", "no-such-family", "-o", "{out}"], "unknown family"),
    (["bench", "bot-sites", "--tier", "medium", "-o", "{out}"], "tier 'medium'"),
    (["bench", "bot-sites", "--methods", "nope", "-o", "{out}"], "unknown method 'nope'"),
    (["bench", "bot-sites", "--plugin", "{missing}", "-o", "{out}"], "missing.py"),
])
def test_bench_bad_input_is_one_line(library: Path, tmp_path: Path, capsys, argv, message):
    values = {"out": str(tmp_path / "o"), "missing": str(tmp_path / "missing.py")}
    code = run([a.format(**values) for a in argv] + ["--library", str(library)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0]
    assert not (tmp_path / "o").exists()
