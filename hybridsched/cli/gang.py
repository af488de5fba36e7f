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
    with_metrics_help,
)
from hybridsched.gang.measures import MEASURES

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


class InstructionsReading(StrEnum):
    """How the drawn instruction number counts (generator readings, issue 19)."""

    PER_TASK = "per-task"
    PER_JOB = "per-job"


class ArrivalsReading(StrEnum):
    """How the arrival rate is read."""

    POISSON = "poisson"
    EVEN = "even"
    BATCHES = "batches"


class IntegersReading(StrEnum):
    """Which of Table 1's ranges are drawn as integers."""

    STATED = "stated"
    ALL = "all"


Instructions = Annotated[InstructionsReading, typer.Option(
    help="per-task: every task draws its instructions (Section 4.2); per-job: the job's "
         "number is split over its tasks (Section 4.3's 'instruction number ... of the "
         "job').")]
Arrivals = Annotated[ArrivalsReading, typer.Option(
    help="poisson: exponential gaps of mean 1/rate; even: one job every 1/rate; batches: a "
         "Poisson(rate) batch at each whole time unit.")]
Integers = Annotated[IntegersReading, typer.Option(
    help="stated: only deadlines and parallelism are integers (as the text says); all: "
         "every range is drawn as integers.")]
GENERATOR_OPTIONS = ("jobs", "rate", "scenario", "vms", "instructions", "arrivals", "integers")


def _generate(jobs: int, rate: float | None, scenario: GangScenario, seed: int, vms: int,
              name: str | None = None, *,
              instructions: InstructionsReading = InstructionsReading.PER_TASK,
              arrivals: ArrivalsReading = ArrivalsReading.POISSON,
              integers: IntegersReading = IntegersReading.STATED) -> Any:
    from hybridsched.gang.generator import generate

    return generate(jobs, rate, scenario.value, seed, vms=vms, name=name,
                    instructions=instructions.value, arrivals=arrivals.value,
                    integers=integers.value)


@generate_app.command("gang", epilog=EXIT_CODES)
def generate_gang(
    output: RequiredOutput,
    jobs: Jobs = 1000,
    rate: Rate = None,
    scenario: ScenarioOption = GangScenario.TABLE1,
    seed: Seed = 0,
    vms: Vms = 120,
    name: InstanceName = None,
    instructions: Instructions = InstructionsReading.PER_TASK,
    arrivals: Arrivals = ArrivalsReading.POISSON,
    integers: Integers = IntegersReading.STATED,
) -> None:
    """Parallel (gang) jobs with memory and bandwidth demands (Wang et al. 2018)."""
    instance = generate_to(output, "gang", lambda: _generate(
        jobs, rate, scenario, seed, vms, name, instructions=instructions, arrivals=arrivals,
        integers=integers))
    ui.note(f"wrote {output}: {instance.n_jobs} jobs, {instance.n_vms} VMs")


@simulate_app.command("gang", epilog=EXIT_CODES)
@with_metrics_help(MEASURES)
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
    instructions: Instructions = InstructionsReading.PER_TASK,
    arrivals: Arrivals = ArrivalsReading.POISSON,
    integers: Integers = IntegersReading.STATED,
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
        make_instance=lambda: _generate(jobs, rate, scenario, seed, vms,
                                        instructions=instructions, arrivals=arrivals,
                                        integers=integers),
        output=output, save_instance=save_instance, seed=seed)
    show(f"{instance.name} - {method}", instance, result, as_json)
