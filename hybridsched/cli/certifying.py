"""``certify``: solve instances with both exact backends and say what their answers prove."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import app
from hybridsched.cli.options import ExactTimeLimit, MethodOptions, Objective
from hybridsched.cli.solving import method_options
from hybridsched.errors import InputError
from hybridsched.io.inputs import check_readable, check_rewritable

CERTIFY_EXIT = (
    "Exit codes: 0 every instance certified, proven by one backend, or open; 1 a defect "
    "(one backend's proven bound above the other's checked schedule, or a proof of "
    "infeasibility against a schedule; both schedules are saved in --save-dir), or an "
    "infeasible instance; 2 bad input (one line naming the file or option); 130 interrupted."
)


@app.command(epilog=CERTIFY_EXIT, short_help="Solve with both exact backends and compare "
                                             "their proofs.")
def certify(
    files: Annotated[list[Path], typer.Argument(metavar="INSTANCE", show_default=False,
                                                help="Instance files (any family).")],
    time_limit: ExactTimeLimit = 60.0,
    objective: Objective = None,
    option: MethodOptions = None,
    save_dir: Annotated[Path, typer.Option(
        "--save-dir", help="Where a defect's two schedules are written "
                           "(<instance>.<backend>.json).")] = Path("certify-defects"),
    record: Annotated[bool, typer.Option(
        "--record", help="Write each certificate into its instance file's reference block "
                         "(atomically; the benchmark library's scripts use it).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Solve each instance with the exact method on both backends (HiGHS and CP-SAT).

    Verdicts: certified (both prove the same optimum, or both infeasibility),
    proven (one proves it, the other stopped at its time limit without
    contradicting it), open (no proof: the best schedule and the best bound
    of either), defect (the two contradict each other).
    """
    from hybridsched.backends import check_backend
    from hybridsched.io.jsonio import dumps_strict
    from hybridsched.provenance import provenance

    extra = method_options(option)
    check_readable(files)
    check_backend("cpsat")
    from hybridsched.experiments.certify import DEFECT
    from hybridsched.experiments.certify_files import certify_file, load_checked

    if save_dir.exists() and not save_dir.is_dir():
        raise InputError(f"--save-dir {save_dir}: exists and is not a folder")
    if record:
        check_rewritable(files)
    loaded = [load_checked(path, objective=objective, options=extra) for path in files]
    certificates = []
    with ui.spinner("certifying") as say:
        for index, path in enumerate(files, 1):
            say(f"certifying {path.name} ({index}/{len(files)}): HiGHS, then CP-SAT")
            certificates.append(certify_file(path, loaded[index - 1], time_limit=time_limit,
                                             objective=objective,
                                             options=extra, save_dir=save_dir, record=record))
    summaries = [c.summary() for c in certificates]
    if as_json:
        counts: dict[str, int] = {}
        for item in summaries:
            counts[item["verdict"]] = counts.get(item["verdict"], 0) + 1
        ui.echo(dumps_strict({"certificates": summaries, "verdicts": counts,
                              "produced_by": provenance()}))
    else:
        _print(summaries)
    for cert in certificates:
        if cert.recorded is False:
            ui.warn(f"{cert.instance}: not recorded: the optimum recorded earlier stands "
                    f"(this run, {cert.verdict}, did not prove it again within the limit)")
        if cert.verdict == DEFECT:
            ui.error(f"{cert.instance}: DEFECT: {cert.reason} (schedules in {save_dir})")
        elif cert.infeasible:
            ui.error(f"{cert.instance}: infeasible: "
                     + next(iter(r.message for r in cert.runs.values() if r.message), ""))
    if any(c.verdict == DEFECT or c.infeasible for c in certificates):
        raise typer.Exit(1)


#: Under certify's table: what its columns mean.
CERTIFY_LEGEND = (
    "best known = the best checked schedule's objective; best bound = the best proven lower "
    "bound; gap = (best known - best bound) / |best bound|",
    "highs, cpsat = each backend's status and objective; time (s) = its wall-clock time, "
    "rounded to the machine's timing noise",
)


def _print(summaries: list[dict[str, Any]]) -> None:
    from hybridsched.io.display import objective_label, seconds_column

    backends = ("highs", "cpsat")
    runs = [[item["backends"].get(b) for b in backends] for item in summaries]
    # Both backends' times under the one rounding rule, so that they compare at a glance.
    times = seconds_column([run["runtime_s"] if run else None for row in runs for run in row],
                           missing="")
    table = ui.new_table("certify: HiGHS and CP-SAT")
    for column in ("instance", "objective", "verdict", "best known", "best bound", "gap",
                   "highs", "highs time (s)", "cpsat", "cpsat time (s)"):
        table.add_column(column, justify="right" if column.startswith(("best", "gap")) or
                         column.endswith("(s)") else "left")
    for n, (item, row) in enumerate(zip(summaries, runs, strict=True)):
        cells = []
        for k, run in enumerate(row):
            cells += ["" if run is None else f"{run['status']} {ui.fmt(run['objective'])}",
                      times[2 * n + k]]
        table.add_row(item["instance"], objective_label(item["family"], item["objective"]),
                      item["verdict"], ui.fmt(item["best_known"]), ui.fmt(item["best_bound"]),
                      ui.fmt(item["gap"], gap=True), *cells)
    ui.print_table(table)
    ui.print_legend(CERTIFY_LEGEND)
