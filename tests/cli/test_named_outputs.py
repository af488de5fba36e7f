"""Output that names what it shows (issue 33): objectives with units, legends, rounded times.

Tables name the objective and its unit (from the family's measures, their
one owner), expand abbreviations in a meaning column, in a legend under the
table and in ``--help``, and print times rounded to the machine's noise with
the same decimals down a column (:mod:`hybridsched.io.display`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hybridsched.catalogue import get_family
from hybridsched.io.display import objective_label, seconds, seconds_column, seconds_decimals
from hybridsched.registry import run_method
from hybridsched.storage import load_instance

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = ROOT / "instances"
HD = INSTANCES / "hybrid-deadline" / "small-01.json"
GANG = INSTANCES / "gang" / "small-10.json"
BOT = INSTANCES / "bot-sites" / "small-lolo-c-2s-3b.json"

#: One small instance and one fast method of every family.
SMALL = {"hybrid-deadline": (HD, "cdf"), "bot-sites": (BOT, "gmo"), "gang": (GANG, "fifo"),
         "malleable": (INSTANCES / "malleable" / "batch-04.json", "tree"),
         "pull": (INSTANCES / "pull" / "small-s0.json", "fcfs")}

#: Every family's default objective as tables show it.
LABELS = {"hybrid-deadline": "rent cost ($)", "bot-sites": "makespan (s)",
          "gang": "unfinished jobs (count)",
          "malleable": "penalised cost, policy A (cost units)", "pull": "makespan (s)"}

#: A number with at most 4 decimals (the 0.1 ms resolution), or below it.
TIME = re.compile(r"^(<0\.0001|\d+(\.\d{1,4})?)$")


def decimals(text: str) -> int:
    return len(text.partition(".")[2])


def to_noise(text: str) -> bool:
    """A printed time shows 2 significant digits below 1 s, one decimal from 1 s on."""
    if text.startswith("<"):
        return True
    value = float(text)
    if value >= 1:
        return decimals(text) == 1
    # at most 4 decimals (the 0.1 ms resolution), which leaves 1 digit below 1 ms
    return len(text.replace(".", "").lstrip("0")) == (2 if value >= 0.001 else 1) or value == 0


# -- the family's measures: one owner of names and units -------------------------------------

@pytest.mark.parametrize("family", sorted(SMALL))
def test_every_metric_a_method_reports_is_named_with_its_unit(family):
    path, method = SMALL[family]
    found, instance = load_instance(path)
    result = run_method(found.name, method, instance, seed=0)
    unnamed = [key for key in result.metrics if found.measure(key) is None]
    assert unnamed == [], f"{family}: metrics without a measure: {unnamed}"
    assert found.objective_label() == LABELS[family]
    assert objective_label(family) == LABELS[family]


def test_chosen_objectives_are_named_too():
    assert objective_label("bot-sites", "cost") == "cost ($)"
    assert objective_label("malleable", "penalised_b") == "penalised cost, policy B (cost units)"
    # The stored objective_name of a default run names the default objective.
    gang = get_family("gang")
    assert gang.objective_label(gang.objective_name) == "unfinished jobs (count)"
    assert objective_label("no-such-family", "speed") == "speed"


# -- times rounded to the machine's noise ----------------------------------------------------

@pytest.mark.parametrize(("value", "text"), [
    (0.602624, "0.60"), (0.0031234, "0.0031"), (0.000311, "0.0003"), (0.00002, "<0.0001"),
    (0.996, "1.0"), (1.26, "1.3"), (12.345, "12.3"), (3600.04, "3600.0"), (None, "-"),
    (float("nan"), "-"),
])
def test_a_time_shows_two_significant_digits_below_a_second_then_tenths(value, text):
    assert seconds(value) == text


def test_a_column_of_times_shows_each_to_the_noise():
    column = seconds_column([0.000311, 0.00159, 0.545, 2.51599, None])
    assert column == ["0.0003", "0.0016", "0.55", "2.5", "-"]
    assert all(map(to_noise, column[:-1]))
    assert seconds_column([1.23, 17.89]) == ["1.2", "17.9"]
    assert all(seconds_decimals(v) <= 4 for v in (1e-9, 1e-6, 1e-3))


# -- the commands ----------------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(SMALL))
def test_solve_names_the_objective_and_rounds_its_times(cli, family):
    path, method = SMALL[family]
    code, out, _ = cli("solve", path, "--method", method)
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[1:] if line.strip()}
    assert rows["objective"].rstrip().endswith(LABELS[family])
    value = rows["runtime_s"].split()[1]
    assert TIME.match(value) and len(value.lstrip("0.<")) <= 2, rows["runtime_s"]
    assert "wall-clock time of the algorithm (s)" in rows["runtime_s"]


def test_solve_json_keys_stay_as_they_were(cli):
    code, out, _ = cli("solve", HD, "--method", "cdf", "--json")
    document = json.loads(out)
    assert code == 0 and {"objective", "runtime_s", "cpu_s", "metrics"} <= set(document)
    assert document["runtime_s"] == float(document["runtime_s"])  # every digit kept


def test_compare_heads_the_objective_column_with_its_unit_and_says_what_gap_is(cli):
    code, out, _ = cli("compare", HD, "--methods", "cdf,ffd")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["instance", "method", "rent", "cost"]
    assert "rent cost ($)" in lines[0] and "time (s)" in lines[0]
    times = [line.split()[-1] for line in lines[1:3]]
    assert all(TIME.match(t) for t in times) and all(map(to_noise, times))
    assert any(line.startswith("gap = (objective - reference)") for line in lines)
    assert any(line.startswith("time (s) = wall-clock time") for line in lines)


def test_compare_of_several_families_names_each_rows_objective(cli):
    code, out, _ = cli("compare", HD, GANG, "--methods", "exact", "--time-limit", "10")
    assert code == 0
    header, first, second = out.splitlines()[:3]
    assert "objective is" in header
    assert "rent cost ($)" in first and "unfinished jobs (count)" in second


def test_simulate_gang_expands_its_abbreviations_in_the_table_and_in_help(cli):
    code, out, _ = cli("simulate", "gang", "--jobs", "30")
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "average waiting time of the finished jobs (time units)" in rows["awt"]
    assert "average arrival-to-end time of the finished jobs (time units)" in rows["ave"]
    assert "instructions of the finished jobs" in rows["sin"]
    code, out, _ = cli("simulate", "gang", "--help")
    flat = " ".join(out.split())
    assert code == 0
    for line in ("awt = average waiting time of the finished jobs (time units)",
                 "ave = average arrival-to-end time", "sin = instructions of the finished",
                 "unfinished = unfinished jobs (count)"):
        assert line in flat


def test_bound_names_the_objective_and_rounds_its_times(cli):
    code, out, _ = cli("bound", HD, GANG, "--time-limit", "0")
    assert code == 0
    lines = out.splitlines()
    rows = [line for line in lines if ".json" in line]
    assert "rent cost ($)" in rows[0] and "unfinished jobs (count)" in rows[1]
    times = [row.split()[-1] for row in rows]
    assert all(TIME.match(t) for t in times) and all(map(to_noise, times))
    assert lines[-1].startswith("time (s) = ")


def test_certify_times_are_rounded_and_columns_named(cli, tmp_path):
    code, out, _ = cli("certify", HD, "--time-limit", "10", "--save-dir", tmp_path / "d")
    assert code == 0
    lines = out.splitlines()
    assert "highs time (s)" in lines[1] and "cpsat time (s)" in lines[1]
    row = lines[2]
    assert "rent cost ($)" in row
    assert not re.search(r"\d\.\d{5,}", row)  # no 6-digit times ("0.602624 s") any more
    times = row.split()[-4], row.split()[-1]  # "optimal 0.525 0.071 optimal 0.525 0.048"
    assert all(TIME.match(t) for t in times) and all(map(to_noise, times))
    assert any(line.startswith("best known = ") for line in lines)
