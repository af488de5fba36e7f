"""Commands of the ``gang`` family: ``generate gang`` and ``simulate gang``."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, generate_app, simulate_app
from hybridsched.cli.options import RequiredOutput, Seed, finite
from hybridsched.cli.simulating import (
    InstanceArgument,
    InstanceName,
    JsonFlag,
    SaveInstance,
    ScheduleOutput,
    generate_to,
    generator_options_given,
    show,
    simulate,
)

#: Most jobs ``generate gang`` and ``simulate gang`` accept.
MAX_JOBS = 10**6


class GangScenario(StrEnum):
    """The paper's two settings (Tables 1 and 2)."""

    TABLE1 = "table1"
    TABLE2 = "table2"


Jobs = Annotated[int, typer.Option(min=0, max=MAX_JOBS, help="Number of jobs.")]
Rate = Annotated[float | None, typer.Option(
    callback=finite(gt=0), help="Arrival rate, jobs per time unit (default: 10 for table1, "
                                "40 for table2).")]
ScenarioOption = Annotated[GangScenario, typer.Option(
    help="table1: Table 1's ranges on 120 VMs; table2: 120 nodes of 24 or 48 SP.")]
Vms = Annotated[int, typer.Option(min=1, max=100_000, help="Number of VMs.")]
GENERATOR_OPTIONS = ("jobs", "rate", "scenario", "vms")


def _generate(jobs: int, rate: float | None, scenario: GangScenario, seed: int, vms: int,
              name: str | None = None) -> Any:
    from hybridsched.gang.generator import generate

    return generate(jobs, rate, scenario.value, seed, vms=vms, name=name)


@generate_app.command("gang", epilog=EXIT_CODES)
def generate_gang(
    output: RequiredOutput,
    jobs: Jobs = 1000,
    rate: Rate = None,
    scenario: ScenarioOption = GangScenario.TABLE1,
    seed: Seed = 0,
    vms: Vms = 120,
    name: InstanceName = None,
) -> None:
    """Parallel (gang) jobs with memory and bandwidth demands (Wang et al. 2018)."""
    instance = generate_to(output, "gang", lambda: _generate(jobs, rate, scenario, seed, vms,
                                                             name))
    ui.note(f"wrote {output}: {instance.n_jobs} jobs, {instance.n_vms} VMs")


@simulate_app.command("gang", epilog=EXIT_CODES)
def simulate_gang(
    ctx: typer.Context,
    instance_file: InstanceArgument = None,
    method: Annotated[str, typer.Option(help="Method name (see 'hybridsched methods gang').")]
    = "fifo",
    jobs: Jobs = 1000,
    rate: Rate = None,
    scenario: ScenarioOption = GangScenario.TABLE1,
    seed: Seed = 0,
    vms: Vms = 120,
    as_json: JsonFlag = False,
    output: ScheduleOutput = None,
    save_instance: SaveInstance = None,
) -> None:
    """Simulate parallel jobs online with one policy (late jobs are dropped).

    A job that cannot end by its deadline is dropped and counted as
    unfinished. The schedule file passes 'hybridsched validate INSTANCE SCHEDULE'.
    """
    from hybridsched.registry import get_method

    get_method("gang", method)  # an unknown method is bad input, before anything runs
    instance, result = simulate(
        "gang", method, instance_file=instance_file,
        given=generator_options_given(ctx, GENERATOR_OPTIONS),
        make_instance=lambda: _generate(jobs, rate, scenario, seed, vms),
        output=output, save_instance=save_instance, seed=seed)
    show(f"{instance.name} - {method}", instance, result, as_json)
