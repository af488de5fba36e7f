"""Commands of the ``bot-sites`` family: ``generate bot-sites`` and ``import-etc``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, app, generate_app
from hybridsched.cli.clickcompat import ParameterSource
from hybridsched.cli.options import RequiredOutput, Scenario, Seed, check_bot_sizes, finite
from hybridsched.cli.simulating import InstanceName, save_instance_file
from hybridsched.io.inputs import check_readable
from hybridsched.io.limits import MAX_PROCESSORS, MAX_TASKS, MAX_TIGHTNESS
from hybridsched.io.outputs import check_output_path

#: Options of ``generate bot-sites`` that a ``--preset`` replaces.
_PRESET_REPLACES = ("sites", "bots", "tasks_per_bot", "procs_per_site", "scenario",
                    "consistent", "seed", "dependency", "private_share", "communication",
                    "storage", "hard_limits", "tightness", "name")


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
