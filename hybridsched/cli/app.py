"""The typer application: global options and the order commands are listed in."""

from __future__ import annotations

from typing import Annotated

import typer
from typer.core import TyperGroup

from hybridsched.cli.clickcompat import Context
from hybridsched.cli.instances import instances_app
from hybridsched.cli.ui import SETTINGS

#: Commands in the order ``--help`` lists them: take, make or import an instance,
#: solve it, check, compare, plot, then reference listings.
COMMAND_ORDER = ("instances", "generate", "import-swf", "import-etc", "import-fta", "simulate",
                 "solve", "validate", "compare", "certify", "bound", "bench", "campaign", "soft",
                 "report", "effects", "pareto", "gantt", "tree", "methods", "schema")

EXIT_CODES = (
    "Exit codes: 0 success; "
    "1 infeasible instance (the offending items are named), invalid solution, or no "
    "solution found; "
    "2 bad input or an output that cannot be written (one line on standard error naming "
    "the file, line, field or option); "
    "3 internal error (a bug: please report it; HYBRIDSCHED_DEBUG=1 shows the traceback); "
    "130 interrupted."
)


class OrderedGroup(TyperGroup):
    """A command group that lists its commands in :data:`COMMAND_ORDER`."""

    def list_commands(self, ctx: Context) -> list[str]:
        """Known commands first, in workflow order, then any others."""
        names = super().list_commands(ctx)
        rank = {name: n for n, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda name: (rank.get(name, len(rank)), name))


app = typer.Typer(
    cls=OrderedGroup,
    help="Multi-criteria scheduling of bag-of-tasks work on hybrid platforms.",
    epilog=EXIT_CODES,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)
generate_app = typer.Typer(help="Generate a seeded instance of a family.", no_args_is_help=True,
                           epilog=EXIT_CODES, rich_markup_mode=None)
app.add_typer(generate_app, name="generate")
simulate_app = typer.Typer(help="Simulate an online family's scheduler on an instance (a file "
                                "or generator options).", no_args_is_help=True,
                           epilog=EXIT_CODES, rich_markup_mode=None)
app.add_typer(simulate_app, name="simulate")
app.add_typer(instances_app, name="instances")


def _show_version(value: bool) -> None:
    if value:
        from hybridsched.version import __version__

        print(f"hybridsched {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress displays and no notes on standard error "
                              "(warnings and errors still appear); may be given anywhere "
                              "on the line.")] = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", help="Show on standard error what libraries print on standard "
                          "output (HiGHS's banner, for one) and their Python warnings; "
                          "without it, these are discarded. Standard output only ever "
                          "carries the command's own output. May be given anywhere on the "
                          "line.")] = False,
    memory_limit: Annotated[float | None, typer.Option(
        "--memory-limit", metavar="GIB",
        help="Memory budget in GiB for exact and bound models: a model estimated larger "
             "is not built (the method falls back to its warm start and a cheaper bound, "
             "saying so in one line). Default: HYBRIDSCHED_MEMORY_GB, else 8 GiB or half "
             "the machine's memory, whichever is smaller; capped by 'ulimit -v'. May be "
             "given anywhere on the line.")] = None,
    version: Annotated[bool, typer.Option(
        "--version", callback=_show_version, is_eager=True,
        help="Print the version and exit.")] = False,
) -> None:
    """Multi-criteria scheduling of bag-of-tasks work on hybrid platforms.

    Every command reads the family from the instance file; methods come from
    the registry ('hybridsched methods').
    """
    SETTINGS.quiet = SETTINGS.quiet or quiet
    SETTINGS.verbose = SETTINGS.verbose or verbose
