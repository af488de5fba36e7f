"""The ``hybridsched`` command line: one entry point, one sub-command per task.

Every command reads the family from the instance file, so the same commands
serve every family; methods come from the registry. Bad input ends with a
one-line message on standard error and exit code 2; an infeasible instance
with exit code 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hybridsched.errors import InfeasibleInstanceError, InputError
from hybridsched.families import family_names, get_family
from hybridsched.registry import get_method, methods, run_method
from hybridsched.result import Status
from hybridsched.storage import load_instance, load_solution, save_instance, save_solution

app = typer.Typer(
    help="Multi-criteria scheduling of bag-of-tasks work on hybrid platforms.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
generate_app = typer.Typer(help="Generate a seeded instance of a family.", no_args_is_help=True)
app.add_typer(generate_app, name="generate")

out = Console()
err = Console(stderr=True, soft_wrap=True)

OutputOption = Annotated[Path, typer.Option("-o", "--output", help="File to write.")]
ObjectiveOption = Annotated[str | None, typer.Option(
    help="Objective for families with several (bot-sites: makespan or cost).")]


def _objective_options(objective: str | None) -> dict[str, str]:
    return {} if objective is None else {"objective": objective}


@generate_app.command("hybrid-deadline")
def generate_hybrid_deadline(
    output: OutputOption,
    tasks: Annotated[int, typer.Option(help="Number of tasks.")] = 30,
    alpha: Annotated[str, typer.Option(help="Deadline factor 1-4, or 'mixed'.")] = "mixed",
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    pms: Annotated[int | None, typer.Option(help="Number of local PMs (default: sized "
                                             "to cover part of the work).")] = None,
    local_share: Annotated[float, typer.Option(help="Share of the work the sized local "
                                                    "pool covers.")] = 0.5,
    name: Annotated[str | None, typer.Option(help="Instance name.")] = None,
) -> None:
    """Deadline-constrained BoT jobs on PMs + per-hour VMs (Wang et al. 2016 setup)."""
    from hybridsched.hybrid_deadline.generator import generate

    parsed: Any = alpha
    if alpha != "mixed":
        try:
            parsed = int(alpha)
        except ValueError:
            raise InputError(f"--alpha: expected 1, 2, 3, 4 or 'mixed', got {alpha!r}") from None
    instance = generate(tasks, parsed, seed, pms=pms, local_share=local_share, name=name)
    save_instance(output, get_family("hybrid-deadline"), instance)
    err.print(f"wrote {output}: {instance.n_tasks} tasks, {len(instance.pms)} PMs")


@generate_app.command("bot-sites")
def generate_bot_sites(
    output: OutputOption,
    sites: Annotated[int, typer.Option(help="Number of sites M.")] = 10,
    bots: Annotated[int, typer.Option(help="Number of bags of tasks K.")] = 10,
    tasks_per_bot: Annotated[str, typer.Option(help="Tasks per BoT, range A:B.")]
    = "10000:20000",
    procs_per_site: Annotated[str, typer.Option(help="Processors per site, range A:B.")]
    = "64:128",
    scenario: Annotated[str, typer.Option(help="HiHi, HiLo, LoHi or LoLo (Table 5).")]
    = "HiHi",
    consistent: Annotated[bool, typer.Option("--consistent/--inconsistent",
                                             help="Consistent or inconsistent ETC.")] = False,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    dependency: Annotated[float, typer.Option(help="Edge probability between BoT pairs "
                                                   "(acyclic DAG).")] = 0.1,
    private_share: Annotated[float, typer.Option(help="Share of free private sites.")] = 0.3,
    communication: Annotated[bool, typer.Option(help="Add data sizes and bandwidths "
                                                     "(Table 6).")] = False,
    storage: Annotated[bool, typer.Option(help="Add storage needs and limits.")] = False,
    hard_limits: Annotated[bool, typer.Option(help="Make bandwidth/storage limits "
                                                   "hard constraints.")] = False,
    tightness: Annotated[float, typer.Option(help="Site limits as a share of demand.")] = 0.5,
    preset: Annotated[str | None, typer.Option(help="A named instance, e.g. "
                                               "gmo-table2-inconsistent.")] = None,
    name: Annotated[str | None, typer.Option(help="Instance name.")] = None,
) -> None:
    """Bags of tasks on heterogeneous sites (Duan, Prodan and Li 2014 setup)."""
    from hybridsched.bot_sites import generator

    if preset is not None:
        instance = generator.preset(preset)
    else:
        instance = generator.generate(
            sites=sites, bots=bots,
            tasks_per_bot=generator.parse_range(tasks_per_bot, "--tasks-per-bot"),
            procs_per_site=generator.parse_range(procs_per_site, "--procs-per-site"),
            scenario=scenario, consistent=consistent, seed=seed, dependency=dependency,
            private_share=private_share, communication=communication, storage=storage,
            hard_limits=hard_limits, tightness=tightness, name=name,
        )
    save_instance(output, get_family("bot-sites"), instance)
    err.print(f"wrote {output}: {instance.n_bots} BoTs, {int(sum(instance.tasks))} tasks, "
              f"{instance.n_sites} sites")


@app.command("import-etc")
def import_etc(
    etc_file: Annotated[Path, typer.Argument(metavar="FILE", help="Braun ETC matrix file.")],
    output: OutputOption,
) -> None:
    """Build a bot-sites instance from a Braun et al. ETC matrix (one task per BoT)."""
    from hybridsched.io.etc import read_etc

    instance = read_etc(etc_file)
    save_instance(output, get_family("bot-sites"), instance)
    err.print(f"wrote {output}: {instance.n_bots} tasks x {instance.n_sites} machines")


@app.command()
def pareto(
    instance_file: Annotated[Path, typer.Argument(metavar="FILE", help="bot-sites instance.")],
    output: Annotated[Path | None, typer.Option("-o", "--output",
                                                help="Plot file (PNG, SVG, PDF).")] = None,
    time_limit: Annotated[float | None, typer.Option(help="Seconds per exact solve.")] = 60.0,
    max_points: Annotated[int, typer.Option(help="Most front points to compute.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Cost-makespan Pareto front (epsilon-constraint), with every heuristic's point."""
    from hybridsched.experiments.pareto import pareto_report, plot_pareto

    family, instance = load_instance(instance_file)
    if family.name != "bot-sites":
        raise InputError(f"{instance_file}: pareto supports bot-sites instances only")
    report = pareto_report(instance, time_limit=time_limit, max_points=max_points)
    if as_json:
        print(json.dumps(report.to_dict()))
    else:
        table = Table(title=f"Pareto front of {instance.name}"
                      + ("" if report.complete else " (partial: time limit)"))
        for column in ("point", "makespan", "cost", "proven"):
            table.add_column(column)
        for n, point in enumerate(report.front):
            table.add_row(str(n), _fmt(point.makespan), _fmt(point.cost), str(point.proven))
        for label, (makespan, cost) in sorted(report.heuristics.items()):
            table.add_row(label, _fmt(makespan), _fmt(cost), "heuristic")
        out.print(table)
    if output is not None:
        plot_pareto(report, output)
        err.print(f"wrote {output}")


@app.command("import-swf")
def import_swf(
    trace: Annotated[Path, typer.Argument(help="SWF trace (.swf or .swf.gz).")],
    output: OutputOption,
    limit: Annotated[int | None, typer.Option(help="Keep the first N usable records.")] = None,
    alpha: Annotated[float, typer.Option(help="Deadline = alpha x run time on 2 GHz.")] = 1,
    grouping: Annotated[str, typer.Option(help="task (one record = one task), job (one "
                                               "record = one job of its processor count) "
                                               "or window (jobs by submit-time window).")]
    = "task",
    window: Annotated[float, typer.Option(help="Window in seconds for --grouping "
                                               "window.")] = 3600.0,
    pms: Annotated[int | None, typer.Option(help="PMs of the 15-PM pool to keep.")] = None,
    name: Annotated[str | None, typer.Option(help="Instance name.")] = None,
) -> None:
    """Build a hybrid-deadline instance from a Parallel Workloads Archive trace."""
    from hybridsched.hybrid_deadline.trace import instance_from_trace
    from hybridsched.io.swf import read_swf

    imported = instance_from_trace(read_swf(trace), alpha=alpha, grouping=grouping,  # type: ignore[arg-type]
                                   window_s=window, limit=limit, pms=pms, name=name)
    save_instance(output, get_family("hybrid-deadline"), imported.instance)
    err.print(f"wrote {output}: {imported.instance.n_tasks} tasks from "
              f"{imported.used_records} records; skipped {imported.skipped_records} records "
              "without a usable run time")


@app.command()
def solve(
    instance_file: Annotated[Path, typer.Argument(metavar="FILE", help="Instance file.")],
    method: Annotated[str, typer.Option(help="Method name (see 'hybridsched methods').")],
    time_limit: Annotated[float | None, typer.Option(help="Seconds for exact methods.")] = None,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    output: Annotated[Path | None, typer.Option("-o", "--output",
                                                help="Write the solution here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    objective: ObjectiveOption = None,
) -> None:
    """Solve one instance with one method."""
    family, instance = load_instance(instance_file)
    get_method(family.name, method)
    result = run_method(family.name, method, instance, seed=seed, time_limit=time_limit,
                        **_objective_options(objective))
    if output is not None and result.solution is not None:
        save_solution(output, family, instance, result.solution, method=result.method,
                      status=result.status.value, objective=result.objective)
    if as_json:
        print(json.dumps(result.summary(), default=float))
    else:
        table = Table(title=f"{instance_file} - {method}", show_header=False)
        for key, value in result.summary().items():
            if key == "metrics":
                for mkey, mval in value.items():
                    table.add_row(f"  {mkey}", _fmt(mval))
            elif value not in (None, ""):
                table.add_row(key, _fmt(value))
        out.print(table)
    if result.status is Status.INFEASIBLE:
        if not as_json:
            err.print(result.message)
        raise typer.Exit(1)
    if not result.status.has_solution:
        raise typer.Exit(1)


@app.command()
def validate(
    instance_file: Annotated[Path, typer.Argument(metavar="INSTANCE")],
    solution_file: Annotated[Path, typer.Argument(metavar="SOLUTION")],
) -> None:
    """Check a solution against its instance; exit 0 when valid, 1 otherwise."""
    family, instance = load_instance(instance_file)
    solution = load_solution(solution_file, family, instance)
    violations = family.check(instance, solution)
    if violations:
        for line in violations:
            out.print(f"- {line}", markup=False)
        err.print(f"{solution_file}: INVALID ({len(violations)} violations)")
        raise typer.Exit(1)
    evaluation = family.evaluate(instance, solution)
    out.print(f"{solution_file}: valid; {family.objective_name} = {evaluation.objective:g}")


@app.command()
def compare(
    files: Annotated[list[Path], typer.Argument(metavar="FILE...", help="Instance files.")],
    methods_: Annotated[str | None, typer.Option("--methods", help="Comma-separated "
                                                 "methods (default: all).")] = None,
    time_limit: Annotated[float | None, typer.Option(help="Seconds per exact solve.")] = 60.0,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON records.")] = False,
    objective: ObjectiveOption = None,
) -> None:
    """Compare methods: objective, gap to the optimum (or best bound), status, run time."""
    from hybridsched.experiments.compare import compare as run_compare

    names = [m.strip() for m in methods_.split(",") if m.strip()] if methods_ else None
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True) as progress:
        bar = progress.add_task("loading", total=None)

        def start(total: int) -> None:
            progress.update(bar, total=total, description="solving")

        def step(instance: str, method: str) -> None:
            progress.update(bar, advance=1, description=f"{Path(instance).stem} {method}")

        table = run_compare(files, names, time_limit=time_limit, seed=seed, on_start=start,
                            on_step=step, objective=objective)
    if as_csv:
        print(table.to_csv(index=False), end="")
    elif as_json:
        print(table.to_json(orient="records"))
    else:
        rich_table = Table()
        shown = ["instance", "method", "objective", "gap", "reference_kind", "status",
                 "runtime_s"]
        headers = {"reference_kind": "gap to", "runtime_s": "time (s)"}
        for column in shown:
            rich_table.add_column(headers.get(column, column), justify="left" if column in
                                  ("instance", "method", "status", "reference_kind")
                                  else "right")
        for row in table.to_dict("records"):
            rich_table.add_row(*[_fmt(row[c], gap=c == "gap", digits=3 if c == "runtime_s"
                                      else None) for c in shown])
        out.print(rich_table)


@app.command("methods")
def list_methods(
    family: Annotated[str | None, typer.Argument(help="Family (default: all).")] = None,
) -> None:
    """List the registered methods of each family."""
    for name in [family] if family else family_names():
        for method in methods(name).values():
            kind = "exact" if method.exact else "heuristic"
            out.print(f"{name:16} {method.name:14} {kind:9} {method.description}")


@app.command()
def schema(
    family: Annotated[str, typer.Argument(help="Family name.")],
    solution: Annotated[bool, typer.Option("--solution", help="Schema of solution "
                                           "files instead of instance files.")] = False,
) -> None:
    """Print the JSON Schema of a family's instance (or solution) files."""
    import importlib

    get_family(family)
    module = importlib.import_module(f"hybridsched.{family.replace('-', '_')}.schema")
    model = module.SolutionDoc if solution else module.InstanceDoc
    print(json.dumps(model.model_json_schema(), indent=1))


@app.command()
def gantt(
    instance_file: Annotated[Path, typer.Argument(metavar="INSTANCE")],
    solution_file: Annotated[Path, typer.Argument(metavar="SOLUTION")],
    output: OutputOption,
) -> None:
    """Draw a Gantt chart of a hybrid-deadline solution (PNG, SVG or PDF)."""
    from hybridsched.experiments.plots import gantt_chart

    family, instance = load_instance(instance_file)
    if family.name != "hybrid-deadline":
        raise InputError(f"{instance_file}: gantt supports hybrid-deadline only")
    solution = load_solution(solution_file, family, instance)
    figure = gantt_chart(instance, solution)
    figure.savefig(output, dpi=120, bbox_inches="tight")
    err.print(f"wrote {output}")


def _fmt(value: Any, gap: bool = False, digits: int | None = None) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    if gap and isinstance(value, float):
        return "inf" if value == float("inf") else f"{100 * value:.2f}%"
    if digits is not None and isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def run(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` and return the exit code.

    Exit codes: 0 success; 1 infeasible instance, invalid solution or no
    solution found; 2 bad input (one line on standard error, no traceback).
    """
    try:
        # Standalone mode: the parser reports its own usage errors (exit 2) and ends
        # with SystemExit; our own errors propagate here instead.
        app(args=argv, standalone_mode=True)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except InputError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        return 2
    except InfeasibleInstanceError as exc:
        err.print(f"infeasible: {exc}", markup=False, highlight=False, soft_wrap=True)
        return 1
    except RuntimeError as exc:  # a solver failure: report it, do not crash
        err.print(f"solver error: {exc}", markup=False, highlight=False, soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        err.print("aborted")
        return 130
    return 0


def main() -> None:
    """Console-script entry point."""
    sys.exit(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
