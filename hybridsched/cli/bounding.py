"""``bound``: each instance's strong lower bound, recomputed from its proof, optionally recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import app
from hybridsched.cli.options import finite
from hybridsched.io.inputs import check_readable, check_rewritable

BoundTimeLimit = Annotated[float | None, typer.Option(
    "--time-limit", callback=finite(ge=0),
    help="Seconds for each instance's bound, model building included; 0: the family's "
         "cheap closed-form bound only.")]

BOUND_EXIT = (
    "Exit codes: 0 every bound computed and recomputed from its proof; 1 a proof that "
    "does not prove its bound (a bug: the bound is not reported); 2 bad input (one line "
    "naming the file or option); 130 interrupted."
)


@app.command(epilog=BOUND_EXIT, short_help="A lower bound on each instance's optimum, "
                                           "with its proof checked.")
def bound(
    files: Annotated[list[Path], typer.Argument(metavar="INSTANCE", show_default=False,
                                                help="Instance files (any family).")],
    time_limit: BoundTimeLimit = 60.0,
    record: Annotated[bool, typer.Option(
        "--record", help="Keep each verified bound and its proof in the instance file's "
                         "reference block when it proves more than the one recorded "
                         "(atomically).")] = False,
    proof_dir: Annotated[Path | None, typer.Option(
        "--proof-dir", help="Also write each certificate (value, method, proof) to "
                            "<proof-dir>/<instance>.bound.json.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Compute each instance's strong lower bound and recompute it from its proof.

    The family's strong bound (an LP or relaxation proved by its dual values,
    see each family's documentation) runs within --time-limit and the memory
    budget; the value reported is the one recomputed from the instance and the
    proof in exact arithmetic, never the solver's own figure.
    """
    from hybridsched.experiments.bounding import compute_bound, record_bound
    from hybridsched.io.jsonio import dumps_strict, write_json
    from hybridsched.io.outputs import check_output_folder
    from hybridsched.provenance import provenance
    from hybridsched.storage import load_instance
    from hybridsched.version import __version__

    check_readable(files)
    if record:
        check_rewritable(files)
    folder = None if proof_dir is None else check_output_folder(proof_dir, "--proof-dir")
    loaded = [load_instance(path) for path in files]
    runs = []
    with ui.spinner("bounding") as say:
        for index, (path, (family, instance)) in enumerate(zip(files, loaded, strict=True), 1):
            say(f"bounding {path.name} ({index}/{len(files)})")
            run = compute_bound(family, instance, name=str(path), time_limit=time_limit)
            runs.append(run)
            if run.error is None and folder is not None:
                write_json(folder / f"{path.stem}.bound.json",
                           {**run.certificate.to_dict(), "value": run.value})
            if record and run.error is None:
                record_bound(path, run, __version__)
    summaries = [run.summary() for run in runs]
    if as_json:
        ui.echo(dumps_strict({"bounds": summaries, "produced_by": provenance()}))
    else:
        _print(summaries)
    failed = [run for run in runs if run.error is not None]
    for run in failed:
        ui.error(f"{run.instance}: {run.error}")
    if failed:
        raise typer.Exit(1)


def _print(summaries: list[dict[str, Any]]) -> None:
    from hybridsched.io.display import objective_label, seconds_column

    table = ui.new_table("bound: lower bounds recomputed from their proofs")
    for column in ("instance", "objective", "lower bound", "method", "time (s)"):
        table.add_column(column, justify="right" if column in ("lower bound", "time (s)")
                         else "left")
    times = seconds_column(item["runtime_s"] + item["verify_s"] for item in summaries)
    for item, time in zip(summaries, times, strict=True):
        table.add_row(item["instance"], objective_label(item["family"], item["objective"]),
                      ui.fmt(item["bound"]), item["method"], time)
    ui.print_table(table)
    ui.print_legend(("time (s) = computing the bound and recomputing it from its proof, "
                     "rounded to the machine's timing noise",))
