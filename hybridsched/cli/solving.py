"""Commands that solve and check: ``solve``, ``validate``, ``compare``, ``pareto``."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, app
from hybridsched.cli.options import (
    Backend,
    ExactTimeLimit,
    Instance,
    MethodOptions,
    Objective,
    Scheduler,
    Seed,
    SolutionFile,
    Workers,
    finite,
    method_list,
)
from hybridsched.errors import InputError
from hybridsched.io.inputs import check_readable
from hybridsched.io.outputs import atomic_write_bytes, check_output_path


def _objective_options(objective: str | None) -> dict[str, str]:
    return {} if objective is None else {"objective": objective}


def backend_options(backend: str | None, method: str, exact: bool) -> dict[str, str]:
    """``--backend`` as a method option, refused (one line) for a method that is not exact."""
    if backend is None:
        return {}
    if not exact:
        raise InputError(f"option --backend: applies to exact methods; {method!r} is not one")
    return {"backend": backend}


def method_options(pairs: list[str] | None) -> dict[str, object]:
    """``--option KEY=VALUE`` pairs as method options (numbers and true/false parsed).

    Keys take ``-`` or ``_`` (``ra-accept=machine``); a value that reads as an
    integer or a finite number is one, ``true``/``false`` are booleans, and
    anything else stays text (``weights=0.2,0.3,0.5``).
    """
    options: dict[str, object] = {}
    for pair in pairs or []:
        key, sep, text = pair.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier():
            raise typer.BadParameter(f"expected KEY=VALUE, got {pair!r}",
                                     param_hint="'--option'")
        if key in options:
            raise typer.BadParameter(f"{key} given twice", param_hint="'--option'")
        options[key] = _option_value(text.strip())
    return options


def _option_value(text: str) -> object:
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if kind is int or math.isfinite(value):
            return value
    return text


@app.command(epilog=EXIT_CODES)
def solve(
    instance_file: Instance,
    method: Annotated[str, typer.Option(help="Method name (see 'hybridsched methods').",
                                        show_default=False)],
    time_limit: ExactTimeLimit = None,
    seed: Seed = 0,
    output: Annotated[str | None, typer.Option(
        "-o", "--output", help="Write the solution here (atomically; nothing is written "
                               "without a solution).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object (strict "
                                                         "JSON: null for infinite or "
                                                         "unknown values), with the "
                                                         "versions that made it "
                                                         "(produced_by).")] = False,
    objective: Objective = None,
    option: MethodOptions = None,
    backend: Backend = None,
) -> None:
    """Solve one instance with one method.

    Exit code 1 when the instance is infeasible or no solution was found; an
    exact method stopped by its time limit returns its incumbent with the
    proven bound and gap (exit code 0). With --json, the document records
    what made it under ``produced_by``, as a solution file written with -o does.

    The table's first column holds the keys of --json; its last names each
    number in words, with its unit (the objective's: 'hybridsched methods'
    lists the families; e.g. rent cost ($) for hybrid-deadline, unfinished
    jobs (count) for gang). Times are seconds rounded to the machine's
    timing noise.
    """
    from hybridsched.io.jsonio import dumps_strict
    from hybridsched.provenance import provenance
    from hybridsched.registry import check_options, check_run_settings, get_method, run_method
    from hybridsched.result import Status
    from hybridsched.storage import load_instance, save_solution

    target = None if output is None else check_output_path(output, "-o",
                                                             inputs=[instance_file])
    extra = method_options(option)
    family, instance = load_instance(instance_file)
    found = get_method(family.name, method)
    options = {**extra, **_objective_options(objective),
               **backend_options(backend, method, found.exact)}
    check_options(family.name, method, options)
    check_run_settings(seed, time_limit)
    with ui.solver_status(f"{method}") if found.exact else ui.spinner(f"{method}"):
        result = run_method(family.name, method, instance, seed=seed, time_limit=time_limit,
                            **options)
    if target is not None and result.solution is not None:
        save_solution(target, family, instance, result.solution, method=result.method,
                      status=result.status.value, objective=result.objective,
                      optimised=result.metrics.get("optimised"))
        ui.note(f"wrote {output}")
    if as_json:
        ui.echo(dumps_strict({**result.summary(), "produced_by": provenance()}))
    else:
        ui.print_key_values(f"{instance_file} - {method}",
                            ui.result_rows(family, result.summary(), objective))
        if result.message:
            ui.echo(f"message: {result.message}")
    if not result.status.has_solution:
        # One line says why (also with --json: standard error is not the document).
        if result.status is Status.INFEASIBLE:
            line = result.message or "infeasible instance"
        else:
            line = f"no solution: {result.message or f'{method} found none'}"
        ui.error(line + ("" if target is None else f" (nothing written to {output})"))
        raise typer.Exit(1)


@app.command(epilog=EXIT_CODES)
def validate(instance_file: Instance, solution_file: SolutionFile) -> None:
    """Check a solution against its instance.

    Exit codes: 0 valid; 1 invalid (every violation on standard output, one
    per line); 2 a file that cannot be read, or a solution that does not fit
    its instance (unknown task, machine or VM type, a task missing or given
    twice). A solution that names another instance is checked, with a
    warning.
    """
    from hybridsched.storage import load_instance

    check_readable([instance_file, solution_file])
    family, instance = load_instance(instance_file)
    solution = read_solution(solution_file, family, instance)
    violations = family.check(instance, solution)
    if violations:
        for line in violations:
            ui.echo(f"- {line}")
        ui.error(f"{solution_file}: INVALID ({len(violations)} violations)")
        raise typer.Exit(1)
    evaluation = family.evaluate(instance, solution)
    ui.echo(f"{solution_file}: valid; {family.objective_label()} = {evaluation.objective:g}")


def read_solution(path: Path, family: Any, instance: Any) -> Any:
    """Load the solution at ``path``; a solution naming another instance is said once.

    When it still fits the instance, that is a warning; when it does not, the
    one error line says it too (the likely cause), instead of a warning line
    before the error line.
    """
    from hybridsched.storage import load_solution

    warnings: list[str] = []
    try:
        solution = load_solution(path, family, instance, warn=warnings.append)
    except InputError as exc:
        if warnings:
            said = warnings[0].removeprefix(f"{path}: field instance: ")
            raise InputError(f"{exc} ({said}: is it a solution of another instance?)"
                             ) from None
        raise
    for line in warnings:
        ui.warn(line)
    return solution


@app.command(epilog=EXIT_CODES, short_help="Compare methods: objective, gap, status, time.")
def compare(
    files: Annotated[list[Path], typer.Argument(metavar="INSTANCE", show_default=False,
                                                help="Instance files (any family).")],
    methods_: Annotated[str | None, typer.Option("--methods", help="Comma-separated "
                                                 "methods (default: every method of each "
                                                 "instance's family).")] = None,
    time_limit: ExactTimeLimit = 60.0,
    seed: Seed = 0,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON records (strict JSON), "
                                                         "each with the versions that made "
                                                         "it (produced_by).")]
    = False,
    objective: Objective = None,
    workers: Workers = None,
    scheduler: Scheduler = None,
    backend: Backend = None,
) -> None:
    """Compare methods: objective, gap to the optimum (or best bound), status, run time.

    Runs on the campaign engine: in this process by default, on a local Dask
    cluster with --workers N (N > 1), or on an existing Dask cluster with
    --scheduler. The table is printed in every case, a failed run with its
    reason. Exit code 2 when a run found its instance unusable (one line
    naming the file, the method and why); 1 when an instance is infeasible
    (its items are named in the table and on standard error) or a run failed
    otherwise.

    The objective column is headed by what it measures, with its unit
    (rent cost ($), makespan (s), unfinished jobs (count), ...); times are
    seconds rounded to the machine's timing noise; lines under the table
    define the gap and the time. --csv and --json keep full precision.
    """
    if as_csv and as_json:
        raise typer.BadParameter("give --csv or --json, not both", param_hint="'--json'")
    names = method_list(methods_)
    check_readable(files)  # before the campaign engine (pandas, pyarrow) is imported
    from hybridsched.cli.run_progress import RunProgress
    from hybridsched.experiments.compare import compare as run_compare
    from hybridsched.io.jsonio import dumps_strict

    with RunProgress("solving") as runs:
        table = run_compare(files, names, time_limit=time_limit, seed=seed,
                            on_start=runs.start, progress=runs.update, objective=objective,
                            workers=workers, scheduler=scheduler, backend=backend)
    records = table.to_dict("records")
    if as_csv:
        ui.echo(table.to_csv(index=False), end="")
    elif as_json:
        from hybridsched.provenance import provenance

        # What made the runs, as solution files record it; every record carries it, so
        # that a row copied into a results table still says (the CSV keeps its columns).
        made = provenance()
        ui.echo(dumps_strict([{**row, "produced_by": made} for row in records]))
    else:
        _print_compare(records, objective)
    _end_compare(records, {path.stem: str(path) for path in reversed(files)})


def _end_compare(records: list[dict[str, Any]], files: dict[str, str]) -> None:
    """Exit 2 when a run found bad input (one line), 1 on infeasible or failed runs."""
    from hybridsched.experiments.compare import failures

    failed = failures(records)
    bad = [f for f in failed if f.bad_input]
    if bad:
        first = bad[0]
        more = len(failed) - 1
        raise InputError(f"{files.get(first.instance, first.instance)}: method {first.method}: "
                         f"{first.reason}" + (f" (and {more} more failed run{'s' * (more > 1)}"
                                              ", see the table)" if more else ""))
    infeasible = {}
    for row in records:
        if row["status"] == "infeasible":
            infeasible.setdefault(row["instance"], row["message"] or "infeasible")
    for instance, message in infeasible.items():
        ui.error(f"{instance}: {message}")
    for failure in failed:
        ui.error(f"{files.get(failure.instance, failure.instance)}: method {failure.method} "
                 f"failed: {failure.reason}")
    if infeasible or failed:
        raise typer.Exit(1)


#: What the columns of compare's table mean, printed under it.
COMPARE_LEGEND = (
    "gap = (objective - reference) / |reference|, the reference named in 'gap to'",
    "time (s) = wall-clock time of the method alone (no file reading or checking), "
    "rounded to the machine's timing noise",
)


def _print_compare(records: list[dict[str, Any]], objective: str | None = None) -> None:
    """The comparison as a table whose objective column names its measure and unit.

    One measure for every row: the column is headed by it (``rent cost
    ($)``); rows of several families: the column is ``objective`` and a
    column ``objective is`` names each row's.
    """
    from hybridsched.io.display import objective_label, seconds_column

    labels = [objective_label(row["family"], objective) for row in records]
    mixed = len(set(labels)) > 1
    shown = ["instance", "method", "objective", "gap", "reference_kind", "status",
             "runtime_s"]
    headers = {"reference_kind": "gap to", "runtime_s": "time (s)",
               "objective": "objective" if mixed or not labels else labels[0]}
    noted = ("infeasible", "no_solution", "failed")
    notes = any(r["status"] in noted for r in records)
    table = ui.new_table()
    for column in shown:
        table.add_column(headers.get(column, column), justify="left" if column in
                         ("instance", "method", "status", "reference_kind") else "right")
        if column == "objective" and mixed:
            table.add_column("objective is")
    if notes:
        table.add_column("note")
    times = seconds_column(row["runtime_s"] for row in records)
    for row, label, time in zip(records, labels, times, strict=True):
        cells = []
        for column in shown:
            cells.append(time if column == "runtime_s" else ui.fmt(row[column],
                                                                   gap=column == "gap"))
            if column == "objective" and mixed:
                cells.append(label)
        if notes:
            cells.append((row["message"] or "") if row["status"] in noted else "")
        table.add_row(*cells)
    ui.print_table(table)
    ui.print_legend(COMPARE_LEGEND)


@app.command(epilog=EXIT_CODES, short_help="Cost-makespan Pareto front, with the heuristics.")
def pareto(
    instance_file: Annotated[Path, typer.Argument(metavar="INSTANCE", show_default=False,
                                                  help="bot-sites instance file.")],
    output: Annotated[str | None, typer.Option(
        "-o", "--output", help="Plot file; its extension gives the format (png, svg, "
                               "pdf, ...).")] = None,
    time_limit: Annotated[float | None, typer.Option(
        callback=finite(ge=0), help="Seconds for the whole front (heuristics and exact "
                                    "solves); the front is marked partial when it runs "
                                    "out.")] = 60.0,
    max_points: Annotated[int, typer.Option(min=1, help="Most front points to compute.")]
    = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (strict JSON).")]
    = False,
) -> None:
    """Cost-makespan Pareto front (epsilon-constraint), with every heuristic's point."""
    from hybridsched.io.jsonio import dumps_strict
    from hybridsched.storage import load_instance

    target = None if output is None else check_output_path(output, "-o", kind="plot",
                                                             inputs=[instance_file])
    family, instance = load_instance(instance_file)
    if family.name != "bot-sites":
        raise InputError(f"{instance_file}: pareto supports bot-sites instances only "
                         f"(this is a {family.name} instance)")
    from hybridsched.models.bot_sites.pareto_report import pareto_report
    from hybridsched.plots.pareto import plot_pareto

    with ui.spinner("Pareto front: computing the first point") as update:

        def on_point(index: int, makespan: float, cost: float) -> None:
            update(f"Pareto front: {index + 1} points found (last: makespan "
                   f"{ui.fmt(makespan)}, cost {ui.fmt(cost)})")

        report = pareto_report(instance, time_limit=time_limit, max_points=max_points,
                               on_point=on_point)
    if as_json:
        from hybridsched.provenance import provenance

        ui.echo(dumps_strict({**report.to_dict(), "produced_by": provenance()}))
    else:
        table = ui.new_table(f"Pareto front of {instance.name}"
                             + ("" if report.complete else " (partial: time limit)"))
        from hybridsched.io.display import measure_label

        for column in ("point", "makespan", "cost", "proven"):
            table.add_column(measure_label(family.name, column) or column)
        for n, point in enumerate(report.front):
            table.add_row(str(n), ui.fmt(point.makespan), ui.fmt(point.cost),
                          str(point.proven))
        for label, (makespan, cost) in sorted(report.heuristics.items()):
            table.add_row(label, ui.fmt(makespan), ui.fmt(cost), "heuristic")
        ui.print_table(table)
    if target is not None:
        import matplotlib.pyplot as plt

        axes = plot_pareto(report)
        save_figure(axes.figure, target)
        plt.close(axes.figure)
        ui.note(f"wrote {output}")


def save_figure(figure: Any, path: Path) -> None:
    """Render ``figure`` in the format of ``path``'s extension and write it atomically."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format=path.suffix.lower().lstrip("."), dpi=120,
                   bbox_inches="tight")
    atomic_write_bytes(path, buffer.getvalue())
