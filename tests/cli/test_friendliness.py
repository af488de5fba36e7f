"""Piped output, progress displays, --quiet and Gantt charts of large schedules."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

import hybridsched.cli.ui as ui
from hybridsched.experiments.compare import compare
from hybridsched.hybrid_deadline.instance import PM, Instance, VMType
from hybridsched.hybrid_deadline.solution import Solution
from hybridsched.plots.gantt import MIN_ROWS_PER_KIND, gantt_chart, select_rows

ROOT = Path(__file__).resolve().parents[2]
HD_FILE = ROOT / "instances" / "hybrid-deadline" / "small-01.json"
BS_FILE = ROOT / "instances" / "bot-sites" / "small-lolo-c-2s-3b.json"


@pytest.fixture
def terminal(monkeypatch):
    """Pretend standard error is a terminal; return the buffer progress displays draw on."""
    buffer = io.StringIO()
    monkeypatch.setattr(ui, "progress_enabled", lambda: not ui.SETTINGS.quiet)
    monkeypatch.setattr(ui, "progress_console",
                        lambda: Console(file=buffer, force_terminal=True, width=120))
    return buffer


# -- item 20: piped output is plain and full width ------------------------------------------

def test_piped_tables_are_neither_cut_nor_wrapped(tmp_path, cli):
    long_name = tmp_path / ("an-instance-with-a-really-long-file-name-" * 3 + "x.json")
    shutil.copy(HD_FILE, long_name)
    code, out, _ = cli("compare", long_name, "--methods", "cdf,ffd")
    assert code == 0
    rows = [line for line in out.splitlines() if long_name.stem in line]
    assert len(rows) == 2 and all(len(r) > 120 for r in rows)
    assert not any(ch in out for ch in "│┃━─")  # plain columns, no box drawing


def test_piped_violations_and_methods_are_full_lines(tmp_path, cli):
    sol = tmp_path / "s.json"
    assert cli("solve", HD_FILE, "--method", "cdf", "-o", sol)[0] == 0
    document = json.loads(sol.read_text())
    for entry in document["assignments"]:
        entry["finish"] += 1000
    sol.write_text(json.dumps(document))
    code, out, _ = cli("validate", HD_FILE, sol)
    assert code == 1
    violations = out.splitlines()
    assert len(violations) >= len(document["assignments"])  # one line per violation
    assert all(line.startswith("- ") for line in violations)
    code, out, _ = cli("methods")
    assert code == 0
    assert any(line.endswith("GMO game-theoretic multi-objective scheduler (Duan et al. 2014)")
               for line in out.splitlines())


def test_solve_table_is_plain_when_piped(cli):
    code, out, _ = cli("solve", HD_FILE, "--method", "cdf")
    assert code == 0 and "objective" in out and not any(ch in out for ch in "│┃━─")


# -- item 21: progress on standard error, naming what runs; --quiet --------------------------

def test_exact_solve_shows_elapsed_incumbent_and_bound(cli, terminal, monkeypatch):
    from hybridsched import registry
    from hybridsched.progress import current_reporter

    real = registry.run_method

    def reporting(*args, **kwargs):
        reporter = current_reporter()
        assert reporter is not None  # the CLI listens to the solver while it runs
        reporter(0.5, 12.5, 10.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(registry, "run_method", reporting)
    code, out, err = cli("solve", HD_FILE, "--method", "exact", "--json")
    assert code == 0 and json.loads(out)["status"] == "optimal"
    drawn = terminal.getvalue()
    assert "exact:" in drawn and " s, incumbent " in drawn and "bound " in drawn
    assert "Traceback" not in err


def test_solver_status_line():
    status = ui.SolverStatus("exact")
    assert status.line().endswith("incumbent -, bound -")
    status.update(1.0, 12.5, 10.0)
    status.update(2.0, None, None)  # unknown values keep the last known ones
    assert status.line().endswith("incumbent 12.5, bound 10, gap 20.00%")


def test_quiet_turns_progress_and_notes_off(tmp_path, cli, terminal):
    code, _, err = cli("--quiet", "solve", HD_FILE, "--method", "exact", "-o",
                       tmp_path / "s.json")
    assert code == 0 and err == "" and terminal.getvalue() == ""
    code, _, err = cli("generate", "hybrid-deadline", "-o", tmp_path / "i.json", "-q")
    assert code == 0 and err == ""
    code, _, err = cli("generate", "hybrid-deadline", "-o", tmp_path / "i.json")
    assert code == 0 and err.startswith("wrote ")


def test_compare_names_the_run_in_progress(cli, terminal):
    events = []
    compare([HD_FILE], ["cdf", "ffd"],
            progress=lambda counts, current: events.append((counts.done, current)))
    assert events == [(0, "running cdf on small-01"), (1, None),
                      (1, "running ffd on small-01"), (2, None)]
    from hybridsched.cli.run_progress import RunProgress
    from hybridsched.experiments.engine import Counts

    with RunProgress("solving") as runs:
        runs.start(2)
        runs.update(Counts(2, 0, 1, 0), "running cdf on small-01")
        assert runs.progress.tasks[0].description == "running cdf on small-01"
        runs.update(Counts(2, 1, 0, 0), None)  # the finished run does not replace the label
        assert runs.progress.tasks[0].description == "running cdf on small-01"
        assert runs.progress.tasks[0].completed == 1
    code, _, _ = cli("compare", HD_FILE, "--methods", "cdf,ffd")
    assert code == 0 and "2/2" in terminal.getvalue()


def test_import_swf_reports_records_read(tmp_path, cli, terminal):
    from hybridsched.io.swf import PROGRESS_EVERY, read_swf

    record = "{n} 0 -1 100 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    trace = tmp_path / "t.swf"
    trace.write_text("".join(record.format(n=n) for n in range(1, 2 * PROGRESS_EVERY + 8)))
    counts = []
    read_swf(trace, progress=counts.append)
    assert counts == [PROGRESS_EVERY, 2 * PROGRESS_EVERY, 2 * PROGRESS_EVERY + 7]
    code, _, _ = cli("import-swf", trace, "-o", tmp_path / "i.json")
    assert code == 0 and f"{2 * PROGRESS_EVERY + 7} records" in terminal.getvalue()


def test_pareto_reports_points_found(cli, terminal, monkeypatch):
    from hybridsched.models.bot_sites import pareto_report as pareto

    def fake_report(instance, *, time_limit, max_points, on_point=None):
        for index in range(3):
            on_point(index, 10.0 + index, 5.0 - index)
        return pareto.ParetoReport(instance.name, [], {}, True)

    monkeypatch.setattr(pareto, "pareto_report", fake_report)
    code, _, _ = cli("pareto", BS_FILE, "--json")
    assert code == 0 and "3 points found (last: makespan 12, cost 3)" in terminal.getvalue()


def test_keyboard_interrupt_exits_130(cli, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("hybridsched.registry.run_method", interrupted)
    code, _, err = cli("solve", HD_FILE, "--method", "cdf")
    assert code == 130 and "Traceback" not in err


# -- item 23: Gantt charts of large schedules -----------------------------------------------

def big_schedule(n_pm_cores: int, n_vms: int) -> tuple[Instance, Solution]:
    """One task per core: ``n_pm_cores`` PM cores (on one PM), ``n_vms`` 2-core VMs."""
    n = n_pm_cores + 2 * n_vms
    instance = Instance(name="big", task_ids=tuple(f"t{i}" for i in range(n)),
                        task_job=tuple(f"t{i}" for i in range(n)), work=np.ones(n),
                        deadline=np.full(n, 10.0), pms=(PM("p", n_pm_cores, 1.0),),
                        vm_types=(VMType("v", 2, 1.0, 0.1),))
    machine = np.array([0] * n_pm_cores + [1 + j for j in range(n_vms) for _ in range(2)])
    core = np.array(list(range(n_pm_cores)) + [c for _ in range(n_vms) for c in range(2)])
    solution = Solution(tuple([0] * n_vms), machine, core, np.zeros(n), np.ones(n))
    return instance, solution


@pytest.mark.parametrize(("pm_cores", "vms", "max_rows"), [(200, 3, 60), (4, 300, 60),
                                                            (100, 100, 10), (50, 50, 1)])
def test_cut_gantt_rows_keep_both_kinds(pm_cores, vms, max_rows):
    from hybridsched.hybrid_deadline.checker import check

    instance, solution = big_schedule(pm_cores, vms)
    assert check(instance, solution) == []
    rows = select_rows(instance, solution, max_rows)
    assert rows.cut and len(rows.rows) == max_rows and len(set(rows.rows)) == max_rows
    pm_rows = sum(1 for m, _ in rows.rows if m == 0)
    vm_rows = max_rows - pm_rows
    floor = min(MIN_ROWS_PER_KIND, max_rows // 2)
    assert pm_rows >= floor and vm_rows >= floor
    share = pm_cores / (pm_cores + 2 * vms)
    assert abs(pm_rows - share * max_rows) <= max(floor, 1)  # in proportion
    assert rows.describe(1).startswith(f"{max_rows} of {pm_cores + 2 * vms} used cores")


def test_gantt_says_when_rows_are_cut(tmp_path, cli):
    from hybridsched.catalogue import get_family
    from hybridsched.storage import save_instance, save_solution

    instance, solution = big_schedule(10, 40)
    family = get_family("hybrid-deadline")
    save_instance(tmp_path / "i.json", family, instance)
    save_solution(tmp_path / "s.json", family, instance, solution)
    figure = gantt_chart(instance, solution, max_rows=12)
    assert "12 of 90 used cores shown" in figure.axes[0].get_title()
    assert len(figure.axes[0].get_yticklabels()) == 12
    code, _, err = cli("gantt", tmp_path / "i.json", tmp_path / "s.json", "-o",
                       tmp_path / "g.png", "--max-rows", 12)
    assert code == 0 and "warning: 12 of 90 used cores shown" in err
    assert "--max-rows" in err and (tmp_path / "g.png").stat().st_size > 1000
    code, _, err = cli("gantt", tmp_path / "i.json", tmp_path / "s.json", "-o",
                       tmp_path / "g.png", "--max-rows", 200)
    assert code == 0 and "warning" not in err
