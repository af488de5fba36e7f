"""``bench``: run methods on a tier of the benchmark library and print the leaderboard."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, app
from hybridsched.cli.options import (
    ExactTimeLimit,
    Scheduler,
    Serial,
    Workers,
    check_run_mode,
    method_list,
)
from hybridsched.io.outputs import check_output_folder


@app.command(epilog=EXIT_CODES, short_help="Rank methods on a tier of the benchmark library.")
def bench(
    family: Annotated[str, typer.Argument(metavar="FAMILY", show_default=False,
                                          help="Family (see 'hybridsched methods').")],
    output: Annotated[Path, typer.Option("-o", "--output", show_default=False,
                                         help="Folder for the result store (resumable), "
                                              "leaderboard.md/.csv and profile.png.")],
    tier: Annotated[str, typer.Option(help="Tier of instances/<family>/: tiny, small, "
                                           "medium, large, or real (built from the shared "
                                           "data by the library's recipes).")] = "small",
    methods_: Annotated[str | None, typer.Option(
        "--methods", help="Comma-separated methods (default: every method of the family, "
                          "plug-ins' included).")] = None,
    plugin: Annotated[list[Path] | None, typer.Option(
        "--plugin", metavar="FILE", show_default=False,
        help="A Python file registering methods of your own (repeatable).")] = None,
    time_limit: ExactTimeLimit = 60.0,
    library: Annotated[Path | None, typer.Option(
        help="Library folder (default: $HYBRIDSCHED_INSTANCES, else the checkout's "
             "instances/, else the installed copy: 'hybridsched instances list').",
        show_default=False)] = None,
    serial: Serial = False,
    workers: Workers = None,
    scheduler: Scheduler = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the leaderboard as one "
                                                         "JSON document.")] = False,
) -> None:
    """Run methods on every instance of a tier and rank them against the recorded references.

    Every schedule is checked by the family's checker; gaps are to the
    optimum recorded in each file (see 'hybridsched certify --record'), else
    to the best proven value or bound. Runs go through the campaign engine:
    interrupted, the same command resumes where it stopped.

    The leaderboard names the objective and its unit; wins are the instances
    where a method's value is the best of all methods' (a tie is a win for
    every tied method); times are seconds rounded to the machine's timing
    noise (leaderboard.csv and --json keep every digit). Lines under the
    table say so.
    """
    from hybridsched.io.inputs import check_readable

    check_run_mode(serial, workers, scheduler)
    names = method_list(methods_)
    plugins = [str(p) for p in plugin or []]
    check_readable([Path(p) for p in plugins])
    from hybridsched.catalogue import check_family

    check_family(family)
    from hybridsched.cli.run_progress import RunProgress
    from hybridsched.experiments.bench import plan_bench, run_bench
    from hybridsched.io.jsonio import dumps_strict
    from hybridsched.provenance import provenance

    campaign = plan_bench(family, tier, methods=names, plugins=plugins,
                          time_limit=time_limit, library=library, output=output)
    folder = check_output_folder(output, "-o")
    with RunProgress(campaign.name) as display:
        mode = "serial" if serial else "local" if workers else "auto"
        outcome = run_bench(campaign, folder, mode=mode, workers=workers, scheduler=scheduler,
                            progress=display.update)
    records = outcome.leaderboard.to_dict("records")
    if as_json:
        ui.echo(dumps_strict({"family": family, "tier": tier, "objective": outcome.objective,
                              "leaderboard": records,
                              "produced_by": provenance(),
                              "references": outcome.references,
                              "files": [str(p) for p in outcome.files]}))
    else:
        _print(outcome.leaderboard, f"{family} {tier}: leaderboard on the {outcome.objective}",
               outcome.objective)
        ui.note("wrote " + ", ".join(str(p) for p in outcome.files))


def _print(board: Any, title: str, objective: str) -> None:
    from hybridsched.experiments.bench import legend, shown_leaderboard

    shown = shown_leaderboard(board)
    table = ui.new_table(title)
    for heading in shown.columns:
        table.add_column(heading, justify="left" if heading == "method" else "right")
    for row in shown.itertuples(index=False):
        table.add_row(*(ui.fmt(cell) for cell in row))
    ui.print_table(table)
    ui.print_legend(legend(objective))
