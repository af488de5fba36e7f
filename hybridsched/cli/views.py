"""Commands that show things: ``gantt``, ``methods``, ``schema``."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, app
from hybridsched.cli.options import Instance, SolutionFile
from hybridsched.io.outputs import check_output_path

#: Schedules with more tasks than this get a spinner while the chart is drawn.
GANTT_SPINNER_TASKS = 2000


@app.command(epilog=EXIT_CODES)
def gantt(
    instance_file: Instance,
    solution_file: SolutionFile,
    output: Annotated[str, typer.Option(
        "-o", "--output", show_default=False,
        help="Plot file; its extension gives the format (png, svg, pdf, ...).")],
    max_rows: Annotated[int, typer.Option(
        min=1, help="Most rows (used cores) drawn; beyond it rows are sampled, shared "
                    "between PM and VM cores, and the title says so.")] = 60,
) -> None:
    """Draw a Gantt chart of a solution (cores, processors, or clusters and cloud VMs).

    An invalid solution is refused (exit code 1, with its violations).
    """
    from hybridsched.cli.solving import read_solution
    from hybridsched.storage import load_instance

    target = check_output_path(output, "-o", kind="plot",
                               inputs=[instance_file, solution_file])
    family, instance = load_instance(instance_file)
    from hybridsched.plots.gantt import gantt_for

    solution = read_solution(solution_file, family, instance)
    violations = family.check(instance, solution)
    if violations:
        for line in violations:
            ui.echo(f"- {line}")
        ui.error(f"{solution_file}: INVALID ({len(violations)} violations); no chart drawn "
                 f"(see 'hybridsched validate')")
        raise typer.Exit(1)
    import matplotlib.pyplot as plt

    from hybridsched.cli.solving import save_figure

    _warn_cut_rows(family.name, instance, solution, max_rows)
    size = family.size(instance) if family.size is not None else 0
    with ui.spinner(f"drawing {size} items") if size > GANTT_SPINNER_TASKS else nullcontext():
        figure = gantt_for(family.name, instance, solution, max_rows=max_rows)
        save_figure(figure, target)
        plt.close(figure)
    ui.note(f"wrote {output}")


@app.command("methods", epilog=EXIT_CODES)
def list_methods(
    family: Annotated[str | None, typer.Argument(help="Family (default: all).")] = None,
    options: Annotated[bool, typer.Option(
        "--options", help="Also list each method's options with their defaults (a paper's "
                          "readings among them; give them to solve with --option "
                          "KEY=VALUE or in a campaign's [methods.options]).")] = False,
) -> None:
    """List the registered methods of each family."""
    from hybridsched.catalogue import family_names, plugin_failures
    from hybridsched.errors import InputError
    from hybridsched.registry import method_defaults, methods, shown_default

    rows = []
    names = family_names() if family is None else [family]
    for name in names:
        try:
            found = methods(name)
        except InputError:
            if family is not None:
                raise
            continue  # a family whose plug-ins all failed: the warnings below name them
        for method in found.values():
            rows.append((name, method.name, "exact" if method.exact else "heuristic",
                         method.description, method_defaults(method.func) if options else {},
                         method.option_notes if options else ()))
    widths = [max((len(r[c]) for r in rows), default=0) for c in range(3)]
    for row in rows:
        ui.echo("  ".join(f"{cell:{w}}" for cell, w in zip(row[:3], widths, strict=True))
                + f"  {row[3]}")
        if options and row[4]:
            ui.echo(" " * (widths[0] + 2) + "options: "
                    + ", ".join(f"{key}={shown_default(value)}" for key, value in row[4].items()))
        for key, note in row[5]:  # the paper's words behind a reading
            ui.echo(" " * (widths[0] + 4) + f"{key}: {note}")
    for name in names:
        for line in plugin_failures(name):
            ui.warn(line)



def _warn_cut_rows(family: str, instance: Any, solution: Any, max_rows: int) -> None:
    """Say when a chart samples its rows."""
    from hybridsched.plots.gantt import select_rows, select_rows_bot_sites

    if family == "hybrid-deadline":
        rows = select_rows(instance, solution, max_rows)
        if rows.cut:
            ui.warn(f"{rows.describe(len(instance.pms))}; raise --max-rows to see more")
    elif family == "bot-sites":
        used = len(set(zip(solution.site.tolist(), solution.proc.tolist(), strict=True)))
        shown = len(select_rows_bot_sites(solution, max_rows))
        if shown < used:
            ui.warn(f"{shown} of {used} used processors shown; raise --max-rows to see more")


@app.command(epilog=EXIT_CODES, short_help="Print the JSON Schema of a family's files.")
def schema(
    family: Annotated[str, typer.Argument(help="Family name (see 'hybridsched methods').",
                                          show_default=False)],
    solution: Annotated[bool, typer.Option("--solution", help="Schema of solution "
                                           "files instead of instance files.")] = False,
) -> None:
    """Print the JSON Schema of a family's instance (or solution) files."""
    from hybridsched.catalogue import schema_model
    from hybridsched.io.jsonio import dumps_strict

    model = schema_model(family, solution=solution)
    ui.echo(dumps_strict(model.model_json_schema(), indent=1))
