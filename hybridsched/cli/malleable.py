"""Commands of the ``malleable`` family: ``generate``, ``simulate`` and ``tree``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.app import EXIT_CODES, app, generate_app, simulate_app
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
from hybridsched.io.inputs import check_readable
from hybridsched.io.outputs import check_output_path
from hybridsched.malleable.measures import MEASURES

#: Most jobs ``generate malleable`` and ``simulate malleable`` accept.
MAX_JOBS = 10**6
#: Most per-resource utilisation rows in the table (all of them are in ``--json``).
MAX_UTILISATION_ROWS = 12


class Mix(StrEnum):
    """Job sets of the paper's evaluation."""

    SMALL = "small"
    BIG = "big"
    MIXED = "mixed"


class OnlineScheduler(StrEnum):
    """Global schedulers of the malleable family."""

    TREE = "tree"
    FLAT = "flat"
    ROUND_ROBIN = "round-robin"


class Policy(StrEnum):
    """Choice among bad candidates: A saves money, B saves time."""

    A = "A"
    B = "B"


Jobs = Annotated[int, typer.Option(min=0, max=MAX_JOBS, help="Number of jobs.")]
MixOption = Annotated[Mix, typer.Option(help="small (60-120 processor-minutes), big "
                                             "(1,000-2,000) or mixed (as many of each).")]
TreeConfig = Annotated[Path | None, typer.Option(
    "--tree", help="Platform and agent tree: a TOML config, GraphML or JSON file (default: "
                   "a dedicated cluster, two allocated clusters and a cloud).")]
SerialFraction = Annotated[float, typer.Option(
    callback=finite(ge=0, lt=1), help="Amdahl serial fractions are drawn in [0, F] "
                                      "(0: linear speed-up).")]
GENERATOR_OPTIONS = ("jobs", "mix", "seed", "tree", "serial_fraction")


def _generate(jobs: int, mix: Mix, seed: int, tree: Path | None, serial_fraction: float,
              name: str | None = None) -> Any:
    from hybridsched.malleable.generator import generate

    if tree is None:
        return generate(jobs, mix.value, seed, serial_fraction=serial_fraction, name=name)
    from hybridsched.malleable.tree_config import load_platform

    platform = load_platform(tree)
    return generate(jobs, mix.value, seed, resources=platform.resources, tree=platform.tree,
                    serial_fraction=serial_fraction,
                    name=name or f"malleable-{mix.value}-{jobs}-{platform.name}-s{seed}")


@generate_app.command("malleable", epilog=EXIT_CODES)
def generate_malleable(
    output: RequiredOutput,
    jobs: Jobs = 100,
    mix: MixOption = Mix.MIXED,
    seed: Seed = 0,
    tree: TreeConfig = None,
    serial_fraction: SerialFraction = 0.0,
    name: InstanceName = None,
) -> None:
    """Malleable jobs with priority, deadline and budget (Caron & Dias de Assuncao 2016)."""
    instance = generate_to(output, "malleable",
                           lambda: _generate(jobs, mix, seed, tree, serial_fraction, name),
                           inputs=[tree] if tree is not None else [])
    ui.note(f"wrote {output}: {instance.n_jobs} jobs, {instance.n_resources} resources")


@simulate_app.command("malleable", epilog=EXIT_CODES)
@with_metrics_help(MEASURES)
def simulate_malleable(
    ctx: typer.Context,
    instance_file: InstanceArgument = None,
    scheduler: Annotated[OnlineScheduler, typer.Option(
        help="Agent tree (the instance's, or one agent per resource type), flat broadcast, "
             "or round robin.")] = OnlineScheduler.TREE,
    policy: Annotated[Policy, typer.Option(help="A: money saving, B: time saving.")]
    = Policy.A,
    jobs: Jobs = 100,
    mix: MixOption = Mix.MIXED,
    seed: Seed = 0,
    tree: TreeConfig = None,
    serial_fraction: SerialFraction = 0.0,
    as_json: JsonFlag = False,
    output: ScheduleOutput = None,
    save_instance: SaveInstance = None,
) -> None:
    """Simulate the malleable jobs online: DCA/ACA/CCA and the agent tree (Algorithm 4).

    The seed draws the generated workload and round robin's choices. The
    schedule file passes 'hybridsched validate INSTANCE SCHEDULE'.
    """
    check_readable([instance_file] if instance_file is not None else [])
    from hybridsched.malleable.checker import utilisation

    instance, result = simulate(
        "malleable", scheduler.value, instance_file=instance_file,
        given=generator_options_given(ctx, GENERATOR_OPTIONS),
        make_instance=lambda: _generate(jobs, mix, seed, tree, serial_fraction),
        output=output, save_instance=save_instance, inputs=[tree] if tree else [],
        seed=seed, policy=policy.value)
    per_resource = utilisation(instance, result.solution)
    rows = [(f"utilisation of {rid}", share)
            for rid, share in list(per_resource.items())[:MAX_UTILISATION_ROWS]]
    if len(per_resource) > MAX_UTILISATION_ROWS:
        rows.append((f"(+{len(per_resource) - MAX_UTILISATION_ROWS} resources)",
                     "see --json"))
    show(f"{instance.name} - {scheduler.value}, policy {policy.value}", instance, result,
         as_json, {"policy": policy.value, "utilisation": per_resource}, rows)


@app.command("tree", epilog=EXIT_CODES)
def draw_tree(
    config: Annotated[Path, typer.Argument(metavar="CONFIG", help="Tree config (TOML), "
                                           "GraphML or JSON file, or a malleable instance.",
                                           show_default=False)],
    output: Annotated[str | None, typer.Option(
        "-o", "--output", help="Plot file; its extension gives the format (png, svg, pdf).")]
    = None,
) -> None:
    """Validate an agent tree, print its size and messages per decision, and draw it."""
    check_readable([config])
    from hybridsched.heuristics.malleable.agent_tree import compile_tree
    from hybridsched.malleable.tree import to_digraph
    from hybridsched.malleable.tree_config import load_platform

    target = (None if output is None else
              check_output_path(output, "-o", kind="plot", inputs=[config]))
    platform = load_platform(config)
    compiled = compile_tree(to_digraph(platform.tree, platform.resources))
    agents = len({p for p, _ in platform.tree.edges})
    ui.echo(f"{config}: {agents} agents, {len(platform.resources)} local schedulers, depth "
            f"{compiled.depth}, {compiled.messages_per_decision} messages per decision, "
            f"critical path {compiled.critical_path}")
    if target is not None:
        from hybridsched.cli.solving import save_figure
        from hybridsched.plots.tree import plot_tree

        figure = plot_tree(platform.tree, platform.resources, platform.name)
        save_figure(figure, target)
        ui.note(f"wrote {output}")
