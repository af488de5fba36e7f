"""Commands that run campaigns and report on them: ``campaign``, ``report``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, app
from hybridsched.cli.options import Scheduler, Workers
from hybridsched.io.outputs import atomic_write_text, check_output_folder, check_output_path


@app.command(epilog=EXIT_CODES, short_help="Run a campaign spec (TOML) into a result store.")
def campaign(
    spec: Annotated[Path, typer.Argument(metavar="SPEC", show_default=False,
                                         help="Campaign spec (TOML; see examples/campaigns).")],
    output: Annotated[Path, typer.Option("-o", "--output", show_default=False,
                                         help="Result store folder (made if missing; runs "
                                              "already in it are skipped).")],
    serial: Annotated[bool, typer.Option("--serial", help="Run in this process, one run "
                                                          "after the other (debugging).")]
    = False,
    workers: Workers = None,
    scheduler: Scheduler = None,
    csv: Annotated[Path | None, typer.Option("--csv", help="Also write the whole result "
                                                           "table as a flat CSV file.")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
) -> None:
    """Run every run of SPEC that the result store does not hold yet.

    By default on a local Dask cluster with one single-threaded worker
    process per core; --scheduler runs on an existing Dask cluster, --serial
    in this process. Failed runs become rows with their error; an interrupted
    campaign keeps every finished run: run the same command again to resume.
    """
    if serial and (scheduler or workers):
        raise typer.BadParameter("--serial runs in this process: drop --workers/--scheduler",
                                 param_hint="'--serial'")
    if scheduler and workers:
        raise typer.BadParameter("the workers of --scheduler are started by hand: drop "
                                 "--workers", param_hint="'--workers'")
    from hybridsched.cli.run_progress import RunProgress
    from hybridsched.experiments.campaign import run_campaign
    from hybridsched.experiments.spec import load_spec

    csv_target = None if csv is None else check_output_path(csv, "--csv", inputs=[spec])
    loaded = load_spec(spec)  # before the output folder is made: a bad spec leaves nothing
    folder = check_output_folder(output, "-o")
    planned: dict[str, Any] = {}
    with RunProgress(loaded.name) as display:
        try:
            summary = run_campaign(loaded, folder, mode="serial" if serial else "local",
                                   workers=workers, scheduler=scheduler,
                                   progress=display.update,
                                   on_planned=lambda s: planned.update(summary=s))
        except KeyboardInterrupt:
            display.__exit__(None, None, None)
            _interrupted(planned.get("summary"), folder)
            raise typer.Exit(130) from None
    if csv_target is not None:
        from hybridsched.experiments.store import load_results

        atomic_write_text(csv_target, load_results(folder).to_csv(index=False))
    _print_summary(summary.to_dict(), as_json)


def _interrupted(summary: Any, folder: Path) -> None:
    if summary is None:
        ui.error("interrupted before any run started")
    else:
        ui.error(f"interrupted: {summary.ran} runs of this session are stored in {folder}; "
                 "run the same command again to do the rest")


def _print_summary(summary: dict[str, Any], as_json: bool) -> None:
    if as_json:
        from hybridsched.io.jsonio import dumps_strict

        ui.echo(dumps_strict(summary))
        return
    statuses = ", ".join(f"{n} {status}" for status, n in summary["statuses"].items())
    where = (f"{summary['mode']} ({summary['workers']} workers, started in "
             f"{summary['startup_s']:.1f} s)" if summary["mode"] != "serial" else "serial")
    ui.echo(f"campaign {summary['name']}: {summary['planned']} runs planned, "
            f"{summary['stored_before']} already stored, {summary['ran']} run"
            + (f" ({statuses})" if statuses else "")
            + f" in {summary['elapsed_s']:.1f} s on {where}")
    ui.echo(f"results: {summary['output']} (pandas.read_parquet reads it; "
            f"'hybridsched report {summary['output']} -o DIR' draws the report)")
    failed = summary["statuses"].get("failed", 0)
    if failed:
        ui.warn(f"{failed} runs failed: their error is in the 'error' column")


@app.command(epilog=EXIT_CODES, short_help="Write a Markdown + HTML report of a result store.")
def report(
    results: Annotated[Path, typer.Argument(metavar="RESULTS", show_default=False,
                                            help="Result store folder of a campaign.")],
    output: Annotated[Path, typer.Option("-o", "--output", show_default=False,
                                         help="Folder for report.md, report.html and the "
                                              "PNG plots (made if missing).")],
    gantt: Annotated[bool, typer.Option("--gantt", help="Add a Gantt chart of one schedule "
                                                        "per family (the campaign must record "
                                                        "'solution').")] = False,
) -> None:
    """Write report.md and report.html (plots embedded) and PNG plots of a result store.

    Per family: a summary per method (runs, solved, gaps, wins, run times),
    performance profiles on the objective and on run time, gap box plots,
    run time against instance size with the fitted exponent, makespan/cost
    points with their non-dominated set, and with --gantt a Gantt chart.
    """
    from hybridsched.experiments.report import write_report
    from hybridsched.experiments.runner import load_row_instance
    from hybridsched.experiments.store import load_results

    table = load_results(results)
    if Path(output).resolve() == Path(results).resolve():
        raise typer.BadParameter("write the report outside the result store",
                                 param_hint="'-o'")
    folder = check_output_folder(output, "-o")
    written = write_report(table, folder, title=f"Campaign report: {Path(results).name}",
                           gantt=gantt, load_instance_for=load_row_instance)
    ui.note(f"wrote {len(written)} files in {folder}: "
            + ", ".join(p.name for p in written[:4]) + (", ..." if len(written) > 4 else ""))
