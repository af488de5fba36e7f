"""Commands of the ``hybrid-deadline`` family: ``generate hybrid-deadline``.

Its real data comes through ``import-swf`` (:mod:`hybridsched.cli.inputs`),
which the gang family shares.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, generate_app
from hybridsched.cli.options import Alpha, RequiredOutput, Seed, finite
from hybridsched.cli.simulating import InstanceName, save_instance_file
from hybridsched.io.limits import MAX_TASKS
from hybridsched.io.outputs import check_output_path


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
