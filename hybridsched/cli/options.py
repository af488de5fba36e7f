"""Option types and checks shared by the commands.

Everything here runs while the command line is parsed, before any file is
read or any method runs: a bad value ends with a usage error (exit code 2)
naming the option. Numbers must be finite (``nan`` and ``inf`` parse as
floats, so they are checked here) and sizes are capped by the limits of
:mod:`hybridsched.io.documents`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from hybridsched.io.limits import MAX_PROCESSORS, MAX_SITE_BOT_PAIRS, MAX_TASKS


def finite(*, gt: float | None = None, ge: float | None = None, lt: float | None = None,
           le: float | None = None) -> Callable[[float | None], float | None]:
    """A typer callback accepting finite floats within the given bounds (``None`` passes).

    Example
    -------
    >>> check = finite(ge=0)
    >>> check(2.5)
    2.5
    """
    bounds = [f"{sign} {limit:g}" for sign, limit in ((">", gt), (">=", ge), ("<", lt), ("<=", le))
              if limit is not None]
    wanted = " ".join(["a finite number", " and ".join(bounds)]).strip()

    def check(value: float | None) -> float | None:
        if value is None:
            return None
        if (not math.isfinite(value) or (gt is not None and not value > gt)
                or (ge is not None and not value >= ge) or (lt is not None and not value < lt)
                or (le is not None and not value <= le)):
            raise typer.BadParameter(f"must be {wanted}, got {value:g}")
        return value

    return check


class Grouping(enum.StrEnum):
    """How ``import-swf`` turns SWF records into tasks and jobs."""

    TASK = "task"
    JOB = "job"
    WINDOW = "window"


class Scenario(enum.StrEnum):
    """Heterogeneity scenarios of the bot-sites paper (Table 5)."""

    HIHI = "HiHi"
    HILO = "HiLo"
    LOHI = "LoHi"
    LOLO = "LoLo"


class Alpha(enum.StrEnum):
    """Deadline factors of the hybrid-deadline paper."""

    ONE = "1"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    MIXED = "mixed"


def method_list(text: str | None) -> list[str] | None:
    """Parse ``--methods a,b`` (``None``: every method); an empty list is an error.

    Blanks around names are ignored and a name given twice runs once.
    """
    if text is None:
        return None
    names = list(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    if not names:
        raise typer.BadParameter("no method given (a comma-separated list, e.g. cdf,ffd; "
                                 "leave the option out for every method)",
                                 param_hint="'--methods'")
    return names


def check_bot_sizes(sites: int, bots: int, tasks_hi: int, procs_hi: int) -> None:
    """Refuse bot-sites generator options whose instance would exceed the size limits."""
    if sites * bots > MAX_SITE_BOT_PAIRS:
        raise typer.BadParameter(f"{sites} sites x {bots} BoTs exceeds {MAX_SITE_BOT_PAIRS} "
                                 "(site, BoT) pairs", param_hint="'--sites'/'--bots'")
    if bots * tasks_hi > MAX_TASKS:
        raise typer.BadParameter(f"{bots} BoTs of up to {tasks_hi} tasks may exceed "
                                 f"{MAX_TASKS} tasks", param_hint="'--tasks-per-bot'")
    if sites * procs_hi > MAX_PROCESSORS:
        raise typer.BadParameter(f"{sites} sites of up to {procs_hi} processors may exceed "
                                 f"{MAX_PROCESSORS} processors",
                                 param_hint="'--procs-per-site'")


#: Largest seed accepted: a seed is recorded in the files a command writes, and the
#: strict JSON reader refuses integers of more than 30 digits (2^63 - 1 has 19).
MAX_SEED = 2**63 - 1

# Options used by several commands.
Seed = Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Random seed (>= 0).")]
Objective = Annotated[str | None, typer.Option(
    help="Objective to optimise, for families with several: makespan or cost (bot-sites); "
         "penalised_a, penalised_b, cost, total_time or total_delay (malleable). Families "
         "with one objective refuse it.")]
RequiredOutput = Annotated[str, typer.Option(
    "-o", "--output", help="File to write (written atomically; its folder must exist).")]
ExactTimeLimit = Annotated[float | None, typer.Option(
    callback=finite(ge=0), help="Seconds for each exact solve, model building included; "
    "0: return the warm start with its bound, without building a model.")]
Backend = Annotated[str | None, typer.Option(
    show_default=False, help="Exact backend: highs (MILP, the default) or cpsat (OR-Tools "
    "CP-SAT, the optional extra hybridsched[cpsat]); exact methods only.")]
Instance = Annotated[Path, typer.Argument(metavar="INSTANCE", help="Instance file (JSON).",
                                          show_default=False)]
SolutionFile = Annotated[Path, typer.Argument(metavar="SOLUTION", show_default=False,
                                              help="Solution file (JSON), e.g. from "
                                                   "'solve -o'.")]


Workers = Annotated[int | None, typer.Option(
    min=1, max=4096, help="Worker processes of a local Dask cluster (default: one per core "
                          "for campaigns; compare runs in process unless N > 1).")]

Scheduler = Annotated[str | None, typer.Option(
    help="Address of an existing Dask scheduler (tcp://HOST:8786) to run on; its workers "
         "must have hybridsched (the same version) and see the instance files.")]

Serial = Annotated[bool, typer.Option("--serial", help="Run in this process, one run after "
                                                       "the other (debugging).")]

MethodOptions = Annotated[list[str] | None, typer.Option(
    "--option", metavar="KEY=VALUE", show_default=False,
    help="A method option, e.g. a paper's reading (repeatable; 'hybridsched methods "
         "FAMILY --options' lists them): --option fit=append.")]


def check_run_mode(serial: bool, workers: int | None, scheduler: str | None = None) -> None:
    """Refuse run-mode options that contradict each other (--serial with a cluster's)."""
    if serial and (scheduler is not None or workers):
        drop = "--workers/--scheduler" if scheduler is not None else "--workers"
        raise typer.BadParameter(f"--serial runs in this process: drop {drop}",
                                 param_hint="'--serial'")
