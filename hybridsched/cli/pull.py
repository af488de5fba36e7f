"""Commands of the ``pull`` family: ``generate pull``, ``simulate pull`` and ``import-fta``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, app, generate_app, simulate_app
from hybridsched.cli.options import RequiredOutput, Seed, Serial, check_run_mode, finite
from hybridsched.cli.simulating import (
    InstanceArgument,
    InstanceName,
    JsonFlag,
    SaveInstance,
    ScheduleOutput,
    generate_to,
    generator_options_given,
    save_instance_file,
    show,
    simulate,
    with_metrics_help,
)
from hybridsched.errors import InputError
from hybridsched.io.inputs import check_readable
from hybridsched.io.limits import MAX_PULL_UNITS as MAX_UNITS
from hybridsched.io.outputs import check_output_path
from hybridsched.pull.measures import MEASURES


class Behaviour(StrEnum):
    """The paper's host behaviours (section 6.3.1)."""

    ALL = "all"
    INTIME = "intime"
    DELAY = "delay"
    NEVER = "never"


class Spread(StrEnum):
    """Readings of the paper's sigma (see :mod:`hybridsched.heuristics.pull.policies`)."""

    SIGNED = "signed-pairs"
    ABSOLUTE = "absolute-pairs"


class Replicas(StrEnum):
    """Readings of the replicas' lower priority (:mod:`hybridsched.heuristics.pull.simulation`)."""

    TIERED = "tiered"
    TWO_LEVEL = "two-level"
    POOLED = "pooled"


class NoiMax(StrEnum):
    """Readings of Algorithm 1's NOI_max (see :mod:`hybridsched.heuristics.pull.policies`)."""

    WORKLOAD = "workload"
    RANKED = "ranked"


class Order(StrEnum):
    """Readings of the paper's FCFS (see :mod:`hybridsched.heuristics.pull.policies`)."""

    RANDOM = "random"
    OLDEST = "oldest"


class Thresholds(StrEnum):
    """Units of q and p (see :mod:`hybridsched.heuristics.pull.promethee_thresholds`)."""

    SIGMA = "sigma"
    ABSOLUTE = "absolute"


class Preference(StrEnum):
    """The paper's preference functions."""

    LINEAR = "linear"
    LEVEL = "level"
    GAUSSIAN = "gaussian"


def _threshold(text: str | None) -> str | None:
    """Check ``--q``/``--p`` (one number, or one per criterion) while the line is parsed."""
    from hybridsched.heuristics.pull.promethee_thresholds import parse_threshold

    try:
        parse_threshold(text, "x")
    except InputError as exc:
        raise typer.BadParameter(str(exc).removeprefix("option --x: ")) from None
    return text


def _dcis(text: str) -> str:
    """Check a DCI list while the command line is parsed (before any file is read)."""
    from hybridsched.pull.schema import parse_dcis

    try:
        parse_dcis(text)
    except InputError as exc:
        raise typer.BadParameter(str(exc).removeprefix("dci: ")) from None
    return text


Units = Annotated[int, typer.Option(min=0, max=MAX_UNITS, help="Number of work units "
                                    "(the paper's WL: 2000).")]
Dci = Annotated[str, typer.Option(callback=_dcis,
                                  help="Comma-separated DCIs among idg, cloud, beg.")]
Capacity = Annotated[float, typer.Option(callback=finite(gt=0), help="Aggregate CPU of each "
                                         "DCI (instructions per second).")]
BehaviourOption = Annotated[Behaviour, typer.Option(help="Result behaviour: all (15% delayed, "
                                                    "5% never returned) or one alone.")]
GENERATOR_OPTIONS = ("units", "dci", "capacity", "behaviour")


def _generate(units: int, dci: str, seed: int, capacity: float, behaviour: Behaviour,
              name: str | None = None) -> Any:
    from hybridsched.pull.generator import generate
    from hybridsched.pull.schema import parse_dcis

    return generate(units, parse_dcis(dci), seed, capacity=capacity, behaviour=behaviour.value,
                    name=name)


@generate_app.command("pull", epilog=EXIT_CODES)
def generate_pull(
    output: RequiredOutput,
    units: Units = 2000,
    dci: Dci = "idg,cloud,beg",
    seed: Seed = 0,
    capacity: Capacity = 10_000.0,
    behaviour: BehaviourOption = Behaviour.ALL,
    name: InstanceName = None,
) -> None:
    """Work units, hosts of IDG, cloud and BEG with availability windows (Moca et al. 2016)."""
    instance = generate_to(output, "pull",
                           lambda: _generate(units, dci, seed, capacity, behaviour, name))
    ui.note(f"wrote {output}: {instance.n_units} work units, {instance.n_hosts} hosts")


@simulate_app.command("pull", epilog=EXIT_CODES)
@with_metrics_help(MEASURES)
def simulate_pull(
    ctx: typer.Context,
    instance_file: InstanceArgument = None,
    method: Annotated[str, typer.Option(help="promethee or fcfs (see 'hybridsched methods "
                                             "pull').")] = "promethee",
    units: Units = 2000,
    dci: Dci = "idg,cloud,beg",
    capacity: Capacity = 10_000.0,
    behaviour: BehaviourOption = Behaviour.ALL,
    preference: Annotated[Preference, typer.Option(help="promethee: preference function.")]
    = Preference.LINEAR,
    weights: Annotated[str, typer.Option(help="promethee: weights of ECT, price, EEI "
                                              "(sum 1).")] = "0.6,0.1,0.3",
    targets: Annotated[str, typer.Option(help="promethee: min or max for ECT, price, EEI.")]
    = "max,max,max",
    q: Annotated[str | None, typer.Option(callback=_threshold, metavar="Q", help="promethee: "
                 "indifference threshold, one value or one per criterion (ECT,price,EEI), in "
                 "the unit --thresholds names (sigma default: 0 linear, 0.5 level; "
                 "absolute: 0).")] = None,
    p: Annotated[str | None, typer.Option(callback=_threshold, metavar="P", help="promethee: "
                 "preference threshold (gaussian: s), one value or one per criterion "
                 "(sigma default 1; required with --thresholds absolute).")] = None,
    thresholds: Annotated[Thresholds, typer.Option(help="promethee: unit of --q and --p: "
                          "sigma (the paper's 'standard deviation of the differences d for "
                          "all pairs of tasks') or absolute (each criterion's own units: "
                          "ECT seconds, price money, EEI).")] = Thresholds.SIGMA,
    window: Annotated[float, typer.Option(callback=finite(gt=0, le=1), help="promethee: "
                      "fraction of the queue ranked (the paper's mu).")] = 1.0,
    spread: Annotated[Spread, typer.Option(help="promethee: what sigma is the standard "
                      "deviation of: signed-pairs (the paper's 'differences d for all pairs', "
                      "read literally) or absolute-pairs (|d| over unordered pairs).")]
    = Spread.SIGNED,
    noi_max: Annotated[NoiMax, typer.Option(help="promethee: EEI's NOI_max (Algorithm 1): "
                       "the workload's largest unit, or the largest task ranked now.")]
    = NoiMax.WORKLOAD,
    order: Annotated[Order, typer.Option(help="fcfs: random (the paper's 'randomly selects "
                     "a task') or oldest (the task created first).")] = Order.RANDOM,
    replicas: Annotated[Replicas, typer.Option(help="Replicas' lower priority: tiered (fewest "
                        "tasks in flight first), two-level (units with none in flight "
                        "first, then every waiting unit alike) or pooled (no priority).")]
    = Replicas.TIERED,
    seed: Seed = 0,
    as_json: JsonFlag = False,
    output: ScheduleOutput = None,
    save_instance: SaveInstance = None,
) -> None:
    """Simulate hosts pulling tasks, with the Promethee scheduler or FCFS.

    The default strategy is the paper's SOFT winner s4,26 (every target max,
    weights 0.6, 0.1, 0.3). The schedule file passes 'hybridsched validate
    INSTANCE SCHEDULE'.
    """
    from hybridsched.registry import check_options, get_method

    get_method("pull", method)  # an unknown method is bad input, before anything runs
    check_readable([instance_file] if instance_file is not None else [])
    from hybridsched.heuristics.pull.policies import FCFS_OPTIONS, OPTIONS

    given_promethee = generator_options_given(ctx, OPTIONS)
    given_fcfs = generator_options_given(ctx, FCFS_OPTIONS)
    # Both built-in methods simulate replicas; a plugin method gets --replicas only if given.
    options: dict[str, Any] = {}
    if method in ("promethee", "fcfs") or generator_options_given(ctx, ("replicas",)):
        options["replicas"] = replicas.value
    if method == "promethee":
        options |= {"preference": preference.value, "weights": weights, "targets": targets,
                    "q": _number_or_list(q), "p": _number_or_list(p), "window": window,
                    "spread": spread.value, "noi_max": noi_max.value,
                    "thresholds": thresholds.value}
    elif given_promethee:
        raise InputError(f"option --{given_promethee[0].replace('_', '-')}: only the "
                         "promethee method takes it")
    if method == "fcfs":
        options["order"] = order.value
    elif given_fcfs:
        raise InputError(f"option --{given_fcfs[0]}: only the fcfs method takes it")
    check_options("pull", method, options)
    instance, result = simulate(
        "pull", method, instance_file=instance_file,
        given=generator_options_given(ctx, GENERATOR_OPTIONS),
        make_instance=lambda: _generate(units, dci, seed, capacity, behaviour),
        output=output, save_instance=save_instance, seed=seed, **options)
    from hybridsched.pull import lower_bound

    bound = lower_bound(instance)
    show(f"{instance.name} - {method}", instance, result, as_json,
         extra={"lower_bound": bound}, rows=[("makespan lower bound", bound)])


def _number_or_list(text: str | None) -> float | str | None:
    """``--q``/``--p`` as the method takes it: a float for one value, the list as typed."""
    return float(text) if text is not None and "," not in text else text


@app.command("import-fta", epilog=EXIT_CODES,
             short_help="Build a pull instance from Failure Trace Archive availability traces.")
def import_fta(
    traces: Annotated[list[Path], typer.Argument(
        metavar="TRACE...", show_default=False,
        help="FTA event traces (tab- or space-separated, optionally .gz), one per DCI.")],
    output: RequiredOutput,
    dci: Annotated[str, typer.Option(callback=_dcis, help="The DCI of each trace, in order "
                                          "(comma-separated; idg, cloud, beg).")] = "idg",
    units: Units = 2000,
    seed: Seed = 0,
    capacity: Annotated[float | None, typer.Option(callback=finite(gt=0), help="Pick random "
                        "hosts of each trace until this aggregate CPU (default: every host).")]
    = None,
    offset: Annotated[float, typer.Option(callback=finite(ge=0), help="Start the traces this "
                      "many seconds after their start (each trace's times are rebased: its "
                      "first availability event is time 0).")] = 0.0,
    behaviour: BehaviourOption = Behaviour.ALL,
    node_column: Annotated[int, typer.Option(min=0, help="Column of the node id (0-based).")]
    = 2,
    type_column: Annotated[int, typer.Option(min=0, help="Column of the event type.")] = 5,
    start_column: Annotated[int, typer.Option(min=0, help="Column of the start time.")] = 6,
    end_column: Annotated[int, typer.Option(min=0, help="Column of the end time.")] = 7,
    available_type: Annotated[str, typer.Option(help="Event type meaning available.")] = "1",
    name: InstanceName = None,
) -> None:
    """Hosts and availability windows from FTA traces, with the paper's workload WL.

    Each host gets a CPU, price and error probability drawn for its DCI
    (Tables 3 and 4); the instance runs with 'hybridsched simulate pull FILE'.
    """
    from hybridsched.pull.schema import parse_dcis
    from hybridsched.pull.traces import instance_from_traces

    dcis = parse_dcis(dci)
    if len(dcis) != len(traces):
        raise InputError(f"option --dci: {len(traces)} trace(s) but {len(dcis)} DCI(s) "
                         f"({dci!r}); give one DCI per trace")
    target = check_output_path(output, "-o", inputs=traces, allow_stdout=True)
    instance = instance_from_traces(
        list(zip(traces, dcis, strict=True)), units=units, seed=seed, capacity=capacity,
        offset=offset, behaviour=behaviour.value, name=name, node_column=node_column,
        type_column=type_column, start_column=start_column, end_column=end_column,
        available_type=available_type)
    save_instance_file(target, "pull", instance)
    ui.note(f"wrote {output}: {instance.n_units} work units, {instance.n_hosts} hosts")


@app.command("soft", epilog=EXIT_CODES,
             short_help="Run the SOFT strategy study (a campaign) and select strategies.")
def soft(
    spec: Annotated[Path, typer.Argument(metavar="SPEC", show_default=False,
                                         help="SOFT study spec (TOML; see examples/soft).")],
    output: Annotated[Path, typer.Option("-o", "--output", show_default=False,
                                         help="Results folder: the campaign's result store "
                                              "(runs already in it are skipped) and the "
                                              "tables.")],
    serial: Serial = False,
    workers: Annotated[int | None, typer.Option(min=1, max=4096, help="Worker processes of "
                                                "the local Dask cluster (default: one per "
                                                "core).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the selections as JSON.")]
    = False,
) -> None:
    """Satisfaction-oriented filtering (SOFT, Moca et al. 2016, Algorithm 2).

    Runs every strategy (Table 7 target families x Table 8 weight vectors) on
    the study's workloads on a local Dask cluster, then keeps the strategies
    that satisfy the users (Filter1: Theta of the Table 9 profiles, Win_abs
    and Win_freq) and the resource owners (Filter2: utilisation efficiency
    per DCI). Prints Tables 10, 11 and 13 and writes them, with Theta, to
    the results folder.
    """
    from hybridsched.cli.run_progress import RunProgress
    from hybridsched.experiments.soft_spec import load_soft_spec
    from hybridsched.experiments.soft_study import NothingToSelectError, run_soft
    from hybridsched.io.jsonio import dumps_strict

    check_run_mode(serial, workers)
    loaded = load_soft_spec(spec)
    try:
        with RunProgress(loaded.study.name) as display:
            # The campaign and the folder are checked before the folder is made or written.
            report = run_soft(loaded, output, mode="serial" if serial else "local",
                              workers=workers, progress=display.update, source=spec)
    except NothingToSelectError as exc:  # every run failed: the runs stay in the store
        ui.error(str(exc))
        raise typer.Exit(1) from None
    if as_json:
        from hybridsched.provenance import provenance

        ui.echo(dumps_strict({**report.to_dict(), "produced_by": provenance()}))
        return
    for title, table in report.tables():
        ui.print_frame(title, table)
    ui.note(report.summary())
