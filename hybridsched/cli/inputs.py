"""``import-swf``: instances of two families (hybrid-deadline, gang) from an SWF trace."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, app
from hybridsched.cli.clickcompat import ParameterSource
from hybridsched.cli.options import (
    Grouping,
    RequiredOutput,
    finite,
)
from hybridsched.cli.simulating import InstanceName, save_instance_file
from hybridsched.io.inputs import check_readable
from hybridsched.io.outputs import check_output_path


class SwfFamily(StrEnum):
    """Families ``import-swf`` can build."""

    HYBRID_DEADLINE = "hybrid-deadline"
    GANG = "gang"


#: ``import-swf`` options of one family only.
_HD_OPTIONS = ("alpha", "grouping", "window", "pms", "skip", "days")
_GANG_OPTIONS = ("vms", "deadline_factor", "time_unit")

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
