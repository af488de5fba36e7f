"""What every ``simulate FAMILY`` command shares: inputs, outputs, the run and its display.

A simulate command takes an instance file *or* generator options (not
both), checks its outputs before anything runs (``-o`` for the realised
schedule, ``--save-instance`` for what it simulated), runs one registered
method and prints its metrics (a table, or one JSON object).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.cli.clickcompat import ParameterSource
from hybridsched.errors import InputError
from hybridsched.io.outputs import check_output_path, real_path
from hybridsched.result import Result

#: The options every ``generate FAMILY`` / ``simulate FAMILY`` command shares.
InstanceArgument = Annotated[Path | None, typer.Argument(
    metavar="[INSTANCE]", help="Instance file; without it, the generator options make one.")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
ScheduleOutput = Annotated[str | None, typer.Option(
    "-o", "--output", help="Write the realised schedule (with its event log) here.")]
SaveInstance = Annotated[str | None, typer.Option(
    "--save-instance", help="Write the simulated instance here.")]


def metrics_help(measures: Mapping[str, Any]) -> str:
    """What the metrics a simulate command prints mean: ``key = name (unit)``, one sentence.

    From the family's measures (:class:`~hybridsched.family.Measure`), their
    one owner; ``<x>`` stands for the rest of a key (a DCI, a resource type).
    """
    entries = [f"{key.removesuffix('*') + '<x>' if key.endswith('*') else key} = "
               f"{measure.label.replace('{}', '<x>')}" for key, measure in measures.items()]
    return ("Printed metrics (the keys of --json): " + "; ".join(entries)
            + "; runtime_s = wall-clock time of the simulation (s).")


def with_metrics_help(measures: Mapping[str, Any]) -> Callable[[Any], Any]:
    """Add :func:`metrics_help` to a command's help (typer reads the docstring)."""
    def add(func: Any) -> Any:
        func.__doc__ = f"{inspect.cleandoc(func.__doc__ or '')}\n\n{metrics_help(measures)}"
        return func
    return add


def _instance_name(value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise typer.BadParameter("an instance name cannot be empty")
    return value


InstanceName = Annotated[str | None, typer.Option(help="Instance name.",
                                                  callback=_instance_name)]


def generate_to(output: str, family_name: str, make_instance: Callable[[], Any],
                inputs: Sequence[Path] = ()) -> Any:
    """Check ``output``, make the instance and write it there (``-``: standard output)."""
    target = check_output_path(output, "-o", allow_stdout=True, inputs=list(inputs))
    instance = make_instance()
    save_instance_file(target, family_name, instance)
    return instance


def save_instance_file(path: Path, family_name: str, instance: Any) -> None:
    """Write ``instance`` of ``family_name`` to ``path`` (atomically; ``-``: standard output)."""
    from hybridsched.catalogue import get_family
    from hybridsched.storage import save_instance

    save_instance(path, get_family(family_name), instance)


def generator_options_given(ctx: typer.Context, names: Sequence[str]) -> list[str]:
    """Generator options typed on the command line (``--seed`` is not one: it also seeds)."""
    return [o for o in names if o != "seed"
            and ctx.get_parameter_source(o) is ParameterSource.COMMANDLINE]


def simulate(family_name: str, method: str, *, instance_file: Path | None,
             given: Sequence[str], make_instance: Callable[[], Any],
             output: str | None, save_instance: str | None, inputs: Sequence[Path] = (),
             **options: Any) -> tuple[Any, Result]:
    """Load or generate the instance, write it if asked, run ``method``, write the schedule.

    Returns the instance and the checked :class:`~hybridsched.result.Result`.
    """
    from hybridsched.catalogue import get_family
    from hybridsched.io.inputs import check_readable
    from hybridsched.registry import run_method
    from hybridsched.storage import load_instance

    if instance_file is not None and given:
        raise InputError(f"option --{given[0].replace('_', '-')}: give an instance file or "
                         "generator options, not both")
    inputs = [p for p in (instance_file, *inputs) if p is not None]
    targets = {option: check_output_path(path, option, inputs=inputs)
               for option, path in (("-o", output), ("--save-instance", save_instance))
               if path is not None}
    if len(targets) == 2 and (real_path(targets["-o"], f"-o {output}")
                              == real_path(targets["--save-instance"],
                                           f"--save-instance {save_instance}")):
        raise InputError("-o and --save-instance name the same file")
    check_readable(inputs)  # before the family's modules (numpy) are imported
    family = get_family(family_name)
    if instance_file is not None:
        found, instance = load_instance(instance_file)
        if found.name != family_name:
            raise InputError(f"{instance_file}: a {found.name} instance, not a {family_name} "
                             "one")
    else:
        instance = make_instance()
    if "--save-instance" in targets:
        save_instance_file(targets["--save-instance"], family_name, instance)
        ui.note(f"wrote {save_instance}")
    with ui.spinner(f"simulating {family.size(instance) if family.size else ''} jobs"):
        result = run_method(family_name, method, instance, **options)
    if "-o" in targets and result.solution is not None:  # no schedule: show() exits 1
        from hybridsched.storage import save_solution

        extra = {k: v for k, v in options.items() if k != "seed"}
        save_solution(targets["-o"], family, instance, result.solution, method=result.method,
                      status=result.status.value, objective=result.objective,
                      optimised=result.metrics.get("optimised"), **extra)
        ui.note(f"wrote {output}")
    return instance, result


def show(title: str, instance: Any, result: Result, as_json: bool,
         extra: dict[str, Any] | None = None, rows: Sequence[tuple[str, Any]] = ()) -> None:
    """Print the result's metrics as a table, or one JSON object with ``extra``.

    A run without a schedule (an infeasible instance, or a method that gave
    up) then ends the command with exit code 1 and one line naming why.
    """
    from hybridsched.io.jsonio import dumps_strict
    from hybridsched.provenance import provenance

    if as_json:
        ui.echo(dumps_strict({**result.summary(), "instance": instance.name, **(extra or {}),
                              "produced_by": provenance()}))
        _fail_without_schedule(result)
        return
    from hybridsched.catalogue import get_family
    from hybridsched.io.display import seconds

    family = get_family(result.family)
    shown = ui.metric_rows(family, result.metrics)
    shown.append(("runtime_s", seconds(result.runtime_s), family.measure("runtime_s").label))
    shown += [(key, ui.fmt(value) if not isinstance(value, str) else value, "")
              for key, value in rows]
    ui.print_key_values(title, shown)
    _fail_without_schedule(result)


def _fail_without_schedule(result: Result) -> None:
    if result.solution is None:
        message = result.message or f"{result.method} found no schedule"
        ui.error(message if message.startswith("infeasible") else f"no schedule: {message}")
        raise typer.Exit(1)
