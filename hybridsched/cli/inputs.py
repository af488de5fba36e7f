"""Commands that make instances: ``generate``, ``import-swf``, ``import-etc``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, app, generate_app
from hybridsched.cli.clickcompat import ParameterSource
from hybridsched.cli.options import (
    Alpha,
    Grouping,
    RequiredOutput,
    Scenario,
    Seed,
    check_bot_sizes,
    finite,
)
from hybridsched.cli.simulating import InstanceName, save_instance_file
from hybridsched.io.inputs import check_readable
from hybridsched.io.limits import MAX_PROCESSORS, MAX_TASKS, MAX_TIGHTNESS
from hybridsched.io.outputs import check_output_path


class SwfFamily(StrEnum):
    """Families ``import-swf`` can build."""

    HYBRID_DEADLINE = "hybrid-deadline"
    GANG = "gang"


#: ``import-swf`` options of one family only.
_HD_OPTIONS = ("alpha", "grouping", "window", "pms", "skip", "days")
_GANG_OPTIONS = ("vms", "deadline_factor", "time_unit")

#: Options of ``generate bot-sites`` that a ``--preset`` replaces.
_PRESET_REPLACES = ("sites", "bots", "tasks_per_bot", "procs_per_site", "scenario",
                    "consistent", "seed", "dependency", "private_share", "communication",
                    "storage", "hard_limits", "tightness", "name")


@generate_app.command("hybrid-deadline", epilog=EXIT_CODES)
def generate_hybrid_deadline(
    output: RequiredOutput,
    tasks: Annotated[int, typer.Option(min=0, max=MAX_TASKS, help="Number of tasks.")] = 30,
    alpha: Annotated[Alpha, typer.Option(help="Deadline factor (deadline = alpha x run time "
                                              "on a 2 GHz core), or mixed: drawn per job.")]
    = Alpha.MIXED,
    seed: Seed = 0,
    pms: Annotated[int | None, typer.Option(min=0, help="Number of local PMs (default: sized "
                                                        "to cover part of the work).")] = None,
    local_share: Annotated[float, typer.Option(callback=finite(gt=0, le=1), help="Share of "
                                               "the work the sized local pool covers, in "
                                               "(0, 1].")] = 0.5,
    name: InstanceName = None,
) -> None:
    """Deadline-constrained BoT jobs on PMs + per-hour VMs (Wang et al. 2016 setup)."""
    from hybridsched.hybrid_deadline.generator import generate

    target = check_output_path(output, "-o", allow_stdout=True)
    parsed: Any = "mixed" if alpha is Alpha.MIXED else int(alpha.value)
    instance = generate(tasks, parsed, seed, pms=pms, local_share=local_share, name=name)
    save_instance_file(target, "hybrid-deadline", instance)
    ui.note(f"wrote {output}: {instance.n_tasks} tasks, {len(instance.pms)} PMs")


@generate_app.command("bot-sites", epilog=EXIT_CODES)
def generate_bot_sites(
    ctx: typer.Context,
    output: RequiredOutput,
    sites: Annotated[int, typer.Option(min=1, max=MAX_PROCESSORS,
                                       help="Number of sites M.")] = 10,
    bots: Annotated[int, typer.Option(min=1, max=MAX_TASKS,
                                      help="Number of bags of tasks K.")] = 10,
    tasks_per_bot: Annotated[str, typer.Option(help="Tasks per BoT: a range A:B (uniform "
                                                    "draw) or one number.")]
    = "10000:20000",
    procs_per_site: Annotated[str, typer.Option(help="Processors per site: a range A:B "
                                                     "(uniform draw) or one number.")]
    = "64:128",
    scenario: Annotated[Scenario, typer.Option(help="Task and resource heterogeneity "
                                                    "(Table 5).")] = Scenario.HIHI,
    consistent: Annotated[bool, typer.Option("--consistent/--inconsistent",
                                             help="Consistent or inconsistent ETC.")] = False,
    seed: Seed = 0,
    dependency: Annotated[float, typer.Option(callback=finite(ge=0, le=1),
                                              help="Edge probability between BoT pairs "
                                                   "(acyclic DAG), in [0, 1].")] = 0.1,
    private_share: Annotated[float, typer.Option(callback=finite(ge=0, le=1),
                                                 help="Share of free private sites, in "
                                                      "[0, 1].")] = 0.3,
    communication: Annotated[bool, typer.Option(help="Add data sizes and bandwidths "
                                                     "(Table 6).")] = False,
    storage: Annotated[bool, typer.Option(help="Add storage needs and limits.")] = False,
    hard_limits: Annotated[bool, typer.Option(help="Make bandwidth/storage limits "
                                                   "hard constraints.")] = False,
    tightness: Annotated[float, typer.Option(callback=finite(gt=0, le=MAX_TIGHTNESS),
                                             help="Site limits as a share of demand "
                                                  "(> 0, at most 1000).")] = 0.5,
    preset: Annotated[str | None, typer.Option(help="A named instance instead of a random "
                                               "one: gmo-table2-inconsistent (the paper's "
                                               "Table 2).")] = None,
    name: InstanceName = None,
) -> None:
    """Bags of tasks on heterogeneous sites (Duan, Prodan and Li 2014 setup)."""
    target = check_output_path(output, "-o", allow_stdout=True)
    if preset is not None:
        given = [p for p in _PRESET_REPLACES
                 if ctx.get_parameter_source(p) is ParameterSource.COMMANDLINE]
        if given:
            raise typer.BadParameter(f"a preset fixes every parameter; drop "
                                     f"--{given[0].replace('_', '-')}",
                                     param_hint="'--preset'")
    from hybridsched.bot_sites import generator

    if preset is not None:
        instance = generator.preset(preset)
    else:
        task_range = generator.parse_range(tasks_per_bot, "--tasks-per-bot")
        proc_range = generator.parse_range(procs_per_site, "--procs-per-site")
        check_bot_sizes(sites, bots, task_range[1], proc_range[1])
        instance = generator.generate(
            sites=sites, bots=bots, tasks_per_bot=task_range, procs_per_site=proc_range,
            scenario=scenario.value, consistent=consistent, seed=seed, dependency=dependency,
            private_share=private_share, communication=communication, storage=storage,
            hard_limits=hard_limits, tightness=tightness, name=name,
        )
    save_instance_file(target, "bot-sites", instance)
    ui.note(f"wrote {output}: {instance.n_bots} BoTs, {int(sum(instance.tasks))} tasks, "
            f"{instance.n_sites} sites")


@app.command("import-swf", epilog=EXIT_CODES,
             short_help="Build a hybrid-deadline or gang instance from an SWF trace.")
def import_swf(
    trace: Annotated[Path, typer.Argument(metavar="TRACE", show_default=False,
                                          help="SWF trace (.swf, or gzip-compressed .swf.gz) "
                                               "of the Parallel Workloads Archive.")],
    output: RequiredOutput,
    limit: Annotated[int | None, typer.Option(min=1, help="Keep the first N usable records "
                                                          "(read no further).")] = None,
    alpha: Annotated[float, typer.Option(callback=finite(gt=0), help="Deadline = alpha x "
                                         "run time on a 2 GHz core (> 0).")] = 1,
    grouping: Annotated[Grouping, typer.Option(help="task: one record = one task, its own "
                                               "job; job: one record = one job of as many "
                                               "tasks as processors; window: records "
                                               "submitted in the same --window form one "
                                               "job.")] = Grouping.TASK,
    window: Annotated[float, typer.Option(callback=finite(gt=0), help="Window in seconds "
                                          "for --grouping window (> 0).")] = 3600.0,
    pms: Annotated[int | None, typer.Option(min=0, help="PMs of the 15-PM pool to keep "
                                                        "(default: all 15).")] = None,
    skip: Annotated[int, typer.Option(min=0, help="Leave out the first N usable records "
                                                  "(with --limit: a window of the "
                                                  "trace).")] = 0,
    days: Annotated[float | None, typer.Option(callback=finite(gt=0), help="Keep the "
                                               "records submitted within this many days of "
                                               "the first (> 0).")] = None,
    name: InstanceName = None,
    family: Annotated[SwfFamily, typer.Option(help="The family of the instance.")]
    = SwfFamily.HYBRID_DEADLINE,
    vms: Annotated[int, typer.Option(min=1, max=100_000, help="gang: identical VMs of "
                                     "speed 1 (the iPSC/860 had 128 nodes).")] = 128,
    deadline_factor: Annotated[float, typer.Option(callback=finite(gt=0, le=1e6), help="gang: "
                               "deadline = factor x run time (at most 10^6).")] = 2.0,
    time_unit: Annotated[float, typer.Option(callback=finite(ge=1e-3, le=1e9), help="gang: "
                         "seconds per time unit (SWF times are whole seconds; at least "
                         "0.001).")] = 60.0,
    ctx: typer.Context = None,  # type: ignore[assignment]
) -> None:
    """Build an instance from a Parallel Workloads Archive trace.

    hybrid-deadline (default): one record per task (or job, or window);
    gang (--family gang): one record per parallel job, on --vms identical VMs.
    """
    check_readable([trace])
    from hybridsched.hybrid_deadline.trace import instance_from_trace
    from hybridsched.io.swf import read_swf

    wrong = [o for o in (_GANG_OPTIONS if family is SwfFamily.HYBRID_DEADLINE
                         else _HD_OPTIONS)
             if ctx is not None and ctx.get_parameter_source(o) is ParameterSource.COMMANDLINE]
    if wrong:
        raise typer.BadParameter(f"--{wrong[0].replace('_', '-')} is not an option of "
                                 f"--family {family.value}", param_hint="'--family'")
    target = check_output_path(output, "-o", inputs=[trace], allow_stdout=True)
    # With --limit, reading stops at the limit-th record the family can use.
    needs_procs = family is SwfFamily.GANG or grouping is Grouping.JOB
    with ui.spinner(f"reading {trace}") as update:
        records = read_swf(trace, progress=lambda n: update(f"reading {trace}: {n} records"),
                           usable=lambda r: r.run_time > 0 and (r.processors > 0
                                                                or not needs_procs),
                           limit=None if limit is None else skip + limit)
    if family is SwfFamily.GANG:
        from hybridsched.gang.trace import instance_from_trace as gang_from_trace

        found = gang_from_trace(records, vms=vms, time_unit_s=time_unit,
                                deadline_factor=deadline_factor, limit=limit, name=name)
        save_instance_file(target, "gang", found.instance)
        reasons = ", ".join(f"{n} with {why}" for why, n in found.skipped.items())
        ui.note(f"wrote {output}: {found.used_records} jobs on {vms} VMs"
                + (f"; skipped {reasons}" if reasons else ""))
        return
    imported = instance_from_trace(records, alpha=alpha, grouping=grouping.value,
                                   window_s=window, limit=limit, pms=pms, name=name,
                                   skip=skip, days=days)
    save_instance_file(target, "hybrid-deadline", imported.instance)
    reasons = ", ".join(f"{n} with {why}" for why, n in imported.skipped.items())
    ui.note(f"wrote {output}: {imported.instance.n_tasks} tasks from "
            f"{imported.used_records} records; skipped {imported.skipped_records} records"
            + (f" ({reasons})" if reasons else ""))


@app.command("import-etc", epilog=EXIT_CODES,
             short_help="Build a bot-sites instance from a Braun ETC matrix.")
def import_etc(
    etc_file: Annotated[Path, typer.Argument(metavar="FILE", show_default=False,
                                             help="Braun et al. ETC matrix file ('n m 0' "
                                                  "header, then n x m times).")],
    output: RequiredOutput,
) -> None:
    """Build a bot-sites instance from a Braun et al. ETC matrix (one task per BoT)."""
    check_readable([etc_file])
    from hybridsched.io.etc import read_etc

    target = check_output_path(output, "-o", inputs=[etc_file], allow_stdout=True)
    instance = read_etc(etc_file)
    save_instance_file(target, "bot-sites", instance)
    ui.note(f"wrote {output}: {instance.n_bots} tasks x {instance.n_sites} machines")
