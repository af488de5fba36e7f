"""Commands that run campaigns and report on them: ``campaign``, ``report``, ``effects``."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, app
from hybridsched.cli.options import Scheduler, Serial, Workers, check_run_mode, finite
from hybridsched.errors import InputError
from hybridsched.io.inputs import check_readable
from hybridsched.io.outputs import (
    atomic_write_text,
    check_output_folder,
    check_output_path,
    real_path,
)


@app.command(epilog=EXIT_CODES, short_help="Run a campaign spec (TOML) into a result store.")
def campaign(
    spec: Annotated[Path, typer.Argument(metavar="SPEC", show_default=False,
                                         help="Campaign spec (TOML; see examples/campaigns).")],
    output: Annotated[Path, typer.Option("-o", "--output", show_default=False,
                                         help="Result store folder (made if missing; runs "
                                              "already in it are skipped).")],
    serial: Serial = False,
    workers: Workers = None,
    scheduler: Scheduler = None,
    csv: Annotated[Path | None, typer.Option("--csv", help="Also write the whole result "
                                                           "table as a flat CSV file.")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
) -> None:
    """Run every run of SPEC that the result store does not hold yet.

    By default in this process while the runs left are too short to gain from
    workers, then on a local Dask cluster with one single-threaded worker
    process per core (the summary says which, and the speed-up over serial);
    --workers N forces the cluster, --scheduler runs on an existing Dask
    cluster, --serial in this process. Failed runs become rows with their error; an interrupted
    campaign keeps every finished run: run the same command again to resume.
    """
    check_run_mode(serial, workers, scheduler)
    if scheduler is not None and workers:
        raise typer.BadParameter("the workers of --scheduler are started by hand: drop "
                                 "--workers", param_hint="'--workers'")
    if scheduler is not None:
        _check_address(scheduler)
    check_readable([spec])  # before the campaign engine (pandas, pyarrow) is imported
    from hybridsched.cli.run_progress import RunProgress
    from hybridsched.experiments.campaign import run_campaign, version_changes
    from hybridsched.experiments.spec import load_spec
    from hybridsched.experiments.store_read import check_resume

    loaded = load_spec(spec)  # before the output folder is made: a bad spec leaves nothing
    csv_target = None
    if csv is not None:
        _refuse_overlap(csv, "--csv", output, "a file in it breaks 'pandas.read_parquet'",
                        file=True)
        csv_target = check_output_path(csv, "--csv", inputs=[spec, *_spec_files(loaded)])
    _check_store_folder(output)
    _refuse_in_store(output, "-o", itself=False)
    if csv is not None:
        _refuse_in_store(csv, "--csv", itself=True)
    stored = check_resume(output, loaded.name, warn=ui.warn)  # before the folder is made
    for line in version_changes(stored):
        ui.warn(f"{output}: resuming a campaign whose stored runs were made with other "
                f"versions: {line}")
    folder = check_output_folder(output, "-o")
    planned: dict[str, Any] = {}
    with RunProgress(loaded.name) as display:
        try:
            mode = "serial" if serial else "local" if workers else "auto"
            summary = run_campaign(loaded, folder, mode=mode,
                                   workers=workers, scheduler=scheduler,
                                   progress=display.update,
                                   on_planned=lambda s: planned.update(summary=s))
        except KeyboardInterrupt:
            display.__exit__(None, None, None)
            _interrupted(planned.get("summary"), folder)
            raise typer.Exit(130) from None
    if csv_target is not None:
        from hybridsched.experiments.store_read import load_results

        atomic_write_text(csv_target, load_results(folder).to_csv(index=False))
    _print_summary(summary.to_dict(), as_json)


#: A Dask scheduler address: [PROTOCOL://]HOST:PORT (IPv6 hosts in brackets).
_ADDRESS = re.compile(r"(?:(?:tcp|tls|ucx|ws|wss)://)?(\[[0-9A-Fa-f:.]+\]|[\w.-]+):(\d{1,5})")


#: Seconds to wait for a TCP scheduler to answer before the store is made.
CONNECT_TIMEOUT_S = 10.0


def _check_address(address: str) -> None:
    """Refuse a --scheduler that is not an address, or where nothing listens.

    Checked before the result store is made, so that a typo leaves no folder;
    only plain TCP is tried (other protocols are left to Dask).
    """
    found = _ADDRESS.fullmatch(address.strip())
    if address.startswith("inproc://"):
        return
    if not (found and 1 <= int(found.group(2)) <= 65535):
        raise typer.BadParameter(f"{address!r} is not a Dask scheduler address (expected "
                                 "tcp://HOST:PORT, as 'dask scheduler' prints)",
                                 param_hint="'--scheduler'")
    if "://" in address and not address.startswith("tcp://"):
        return
    import socket

    host, port = found.group(1).strip("[]"), int(found.group(2))
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(f"--scheduler {address}: no Dask scheduler answers there ({reason}); "
                         "start one with 'dask scheduler', or drop --scheduler") from None


def _spec_files(loaded: Any) -> list[str]:
    """Every file the campaign reads: instance files, traces, plugins (not to overwrite)."""
    files = [source.path for source in loaded.sources if source.path]
    return files + list(loaded.plugins)


def _relation(inner: Path, outer: Path) -> str | None:
    """Where real path ``inner`` lies against real folder ``outer``: is/inside/holds/None."""
    a, b = inner, outer
    if a == b:
        return "is"
    if a.is_relative_to(b):
        return "inside"
    if b.is_relative_to(a):
        return "holds"
    return None


def _refuse_overlap(path: Path, option: str, store: Path, why: str, *, file: bool = False
                    ) -> None:
    """Refuse an output ``path`` that is, lies inside or holds the result store ``store``.

    A ``file`` cannot hold a folder: only being it or lying inside it count.
    """
    relation = _relation(real_path(path, f"{option} {path}"), real_path(store, str(store)))
    if relation is not None and not (file and relation == "holds"):
        words = {"is": "is", "inside": "is inside", "holds": "holds"}[relation]
        raise InputError(f"{option} {path}: {words} the result store {store} ({why}); "
                         "give a path outside it")


def _check_store_folder(output: Path) -> None:
    """``-o`` must be a folder (or not exist yet) before the store is read or made."""
    if output.exists() and not output.is_dir():
        raise InputError(f"-o {output}: is a file, not a folder")


def _refuse_in_store(path: Path, option: str, *, itself: bool) -> None:
    """Refuse ``path`` inside a result store (or being one, unless ``itself`` may be).

    pyarrow reads a store's subfolders too, so a store or report in a store breaks it.
    """
    from hybridsched.experiments.store_layout import is_store

    resolved = real_path(path, f"{option} {path}")
    for folder in [resolved] * itself + list(resolved.parents):
        if is_store(folder):
            words = "is" if folder == resolved else "is inside"
            raise InputError(f"{option} {path}: {words} the result store {folder} (files "
                             "written there break it); give a path outside it")


def _interrupted(summary: Any, folder: Path) -> None:
    if summary is None:
        ui.report_interrupt("interrupted before any run started")
    else:
        ui.report_interrupt(f"interrupted: {summary.ran} runs of this session are stored in "
                            f"{folder}; run the same command again to do the rest")


def _print_summary(summary: dict[str, Any], as_json: bool) -> None:
    if as_json:
        from hybridsched.io.jsonio import dumps_strict

        ui.echo(dumps_strict(summary))
        return
    from hybridsched.io.display import seconds

    statuses = ", ".join(f"{n} {status}" for status, n in summary["statuses"].items())
    where = (f"{summary['mode']} ({summary['workers']} workers, started in "
             f"{seconds(summary['startup_s'], unit=True)})" if summary["mode"] != "serial"
             else "serial")
    if summary["speedup"] is not None and summary["mode"] != "serial":
        where += f", {summary['speedup']:.2f}x the runs' serial time"
    if summary["mode_note"]:
        where += f"; {summary['mode_note']}"
    ui.echo(f"campaign {summary['name']}: {summary['planned']} runs planned, "
            f"{summary['stored_before']} already stored, {summary['ran']} run"
            + (f" ({statuses})" if statuses else "")
            + f" in {seconds(summary['elapsed_s'], unit=True)} on {where}")
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

    Per family: a summary per method (runs, solved, gaps, wins: problems where
    a method's value is the best, a tie a win for each tied method; run times),
    performance profiles on the objective and on run time, gap box plots,
    run time against instance size with the fitted exponent, makespan/cost
    points with their non-dominated set, and with --gantt a Gantt chart.
    """
    from hybridsched.experiments.store_layout import check_store_folder

    check_store_folder(results)  # before the readers (pandas, pyarrow) are imported
    from hybridsched.experiments.report import write_report
    from hybridsched.experiments.runner import load_row_instance
    from hybridsched.experiments.store_read import load_results

    _refuse_overlap(output, "-o", results, "reports and results must not share folders")
    _check_store_folder(output)
    _refuse_in_store(output, "-o", itself=True)  # another store
    table = load_results(results, warn=ui.warn)
    folder = check_output_folder(output, "-o")  # made only once the store reads well
    written = write_report(table, folder, title=f"Campaign report: {Path(results).name}",
                           gantt=gantt, load_instance_for=load_row_instance)
    ui.note(f"wrote {len(written)} files in {folder}: "
            + ", ".join(p.name for p in written[:4]) + (", ..." if len(written) > 4 else ""))


class ClaimKind(StrEnum):
    """What a paper's figure claims (:data:`hybridsched.experiments.verdicts.KINDS`)."""

    DIFFERENCE = "difference"
    LEVEL = "level"
    DIRECTION = "direction"


@app.command(epilog=EXIT_CODES,
             short_help="Paired comparison with a baseline: 95% intervals and wins.")
def effects(
    results: Annotated[Path, typer.Argument(metavar="RESULTS", show_default=False,
                                            help="Result store folder of a campaign.")],
    baseline: Annotated[str, typer.Option("--baseline", show_default=False,
                                          help="The method label (the store's 'method' "
                                               "column) or name every other method is "
                                               "compared with.")],
    measure: Annotated[str, typer.Option("--measure", help="Compared column: objective, gap "
                                                           "or a metric_* column.")]
    = "objective",
    larger_is_better: Annotated[bool, typer.Option(
        "--larger-is-better", help="A larger value wins (fairness, completed work); by "
                                   "default a smaller one does.")] = False,
    absolute: Annotated[bool, typer.Option(
        "--absolute", help="Differences in the measure's unit (default: percent of the "
                           "baseline's value on the same instance).")] = False,
    by_setting: Annotated[bool, typer.Option(
        "--by-setting", help="One block per instance setting (the instance source without "
                             "its seed, e.g. per arrival rate).")] = False,
    plot: Annotated[Path | None, typer.Option(
        "--plot", show_default=False, help="Also draw the effects with their intervals "
                                           "(a forest plot) into this PNG, SVG or PDF.")]
    = None,
    paper_figure: Annotated[float | None, typer.Option(
        "--paper-figure", callback=finite(), show_default=False,
        help="The paper's figure for every compared method, signed as method - baseline in "
             "the table's unit (e.g. -32.73 for '32.73% fewer'): adds each row's verdict.")]
    = None,
    claim_kind: Annotated[ClaimKind | None, typer.Option(
        "--claim-kind", show_default=False,
        help="What --paper-figure claims: difference (an effect of that size and sign, the "
             "default), level (a value, e.g. 0 for 'similar') or direction (only its "
             "sign).")] = None,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON records (strict JSON).")]
    = False,
) -> None:
    """Compare every method with a baseline on the same instances (paired runs).

    For each method: the number of pairs (runs of both on one instance and
    replication), the mean difference (method minus baseline, in percent of
    the baseline by default) with its 95% Student-t interval, and the
    instances the method wins, loses and ties. An interval that excludes 0
    is a difference the seeds support; one run is never evidence.

    With --paper-figure, each row's verdict places its interval against the
    paper's figure (reproduced, direction only, inconclusive, not reproduced,
    contradicted; hybridsched.experiments.verdicts holds the rule).
    """
    if as_csv and as_json:
        raise typer.BadParameter("give --csv or --json, not both", param_hint="'--json'")
    kind = _claim(paper_figure, claim_kind)
    from hybridsched.experiments.store_layout import check_store_folder

    check_store_folder(results)  # before the readers (pandas, pyarrow) are imported
    from hybridsched.experiments.paired import paired_effects
    from hybridsched.experiments.store_read import load_results
    from hybridsched.io.jsonio import dumps_strict

    target = None if plot is None else check_output_path(plot, "--plot", kind="plot")
    runs = load_results(results, warn=ui.warn)
    table = paired_effects(runs, baseline, measure=measure,
                           larger_is_better=larger_is_better, relative=not absolute,
                           by_setting=by_setting)
    if paper_figure is not None:
        from hybridsched.experiments.verdicts import with_verdicts

        table = with_verdicts(table, paper_figure, kind=kind)
    named = measure_name(runs, measure)
    if target is not None:
        from hybridsched.cli.solving import save_figure
        from hybridsched.plots.effects import plot_effects

        paper = (None if paper_figure is None
                 else dict.fromkeys(table["method"], paper_figure))
        save_figure(plot_effects(table, title=Path(results).name, measure=named, paper=paper),
                    target)
    if as_csv:
        ui.echo(table.to_csv(index=False), end="")
    elif as_json:
        ui.echo(dumps_strict(table.to_dict("records")))
    else:
        _print_effects(table, larger_is_better, named)


def _claim(figure: float | None, kind: ClaimKind | None) -> str:
    """The kind of claim ``--paper-figure`` makes, once the pair of options is checked."""
    from hybridsched.experiments.verdicts import check_claim  # the standard library only

    if figure is None:
        if kind is not None:
            raise typer.BadParameter("needs --paper-figure (the figure it qualifies)",
                                     param_hint="'--claim-kind'")
        return ClaimKind.DIFFERENCE.value
    chosen = (kind or ClaimKind.DIFFERENCE).value
    try:
        check_claim(figure, chosen)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--paper-figure'") from None
    return chosen


def measure_name(runs: Any, measure: str) -> str:
    """What ``measure`` (a column of the results) is, in words with its unit.

    ``objective``: the objective(s) of the runs (``"rent cost ($)"``);
    ``metric_<key>``: the family's measure of ``key``; ``gap``: the gap to
    the reference. A name the families do not know stays as it is.
    """
    from hybridsched.experiments.tables import objective_labels
    from hybridsched.io.display import measure_label

    if measure == "objective":
        return "; ".join(objective_labels(runs)) or measure
    if measure == "gap":
        return "gap to the reference (fraction)"
    families = runs["family"].dropna().unique() if "family" in runs else []
    key = measure.removeprefix("metric_")
    label = measure_label(families[0], key) if len(families) == 1 else None
    return f"{key}: {label}" if label and label != key else measure


#: Under the effects table: what its columns are.
EFFECTS_LEGEND = (
    "pairs = instances (and replications) both the method and the baseline ran; mean = the "
    "mean difference, method - baseline; 95% CI = its Student-t interval (an interval "
    "without 0 is a difference the seeds support)",
    "wins, losses, ties = pairs where the method is better than, worse than, or equal to "
    "(within a relative 1e-9) the baseline; a tie is neither a win nor a loss",
)


def _print_effects(table: Any, larger_is_better: bool, measure: str) -> None:
    if table.empty:
        ui.warn("no method shares an instance with the baseline")
        return
    first = table.iloc[0]
    unit = first["unit"]
    from rich.text import Text  # labels hold brackets that rich would read as markup

    view = ui.new_table(Text(f"{measure}: method - {first['baseline']}"
                        + (" (% of the baseline)" if unit == "%" else "")
                        + (", larger is better" if larger_is_better else ", smaller is better")))
    settings = table["setting"].nunique() > 1
    verdicts = "verdict" in table
    columns = ((["setting"] if settings else []) + ["method", "pairs", "mean", "95% CI",
                                                    "wins", "losses", "ties"]
               + (["verdict"] if verdicts else []))
    for column in columns:
        # Labels carry the options that tell readings apart: fold them, never cut them.
        view.add_column(column, justify="left" if column in ("setting", "method") else "right",
                        overflow="fold", no_wrap=column not in ("setting", "method"))
    for row in table.itertuples(index=False):
        interval = (f"[{row.ci_low:+.2f}, {row.ci_high:+.2f}]"
                    if row.pairs > 1 else "")
        cells = ([Text(row.setting)] if settings else []) + [
            Text(row.method), str(row.pairs), f"{row.mean:+.2f}", interval, str(row.wins),
            str(row.losses), str(row.ties)] + ([row.verdict] if verdicts else [])
        view.add_row(*cells)
    ui.print_table(view)
    if verdicts:
        from hybridsched.experiments.verdicts import legend

        ui.print_legend([*EFFECTS_LEGEND, legend(first["claim_kind"], first["paper_figure"])])
    else:
        ui.print_legend(EFFECTS_LEGEND)
