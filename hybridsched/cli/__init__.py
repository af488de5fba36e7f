"""The ``hybridsched`` command line: one entry point, one sub-command per task.

Every command reads the family from the instance file, so the same commands
serve every family; methods come from the registry. The promise: bad input
never shows a traceback.

Exit codes
----------
0
    Success.
1
    Infeasible instance (the offending items are named), invalid solution,
    no solution found, or a solver failure.
2
    Bad input or an output that cannot be written: one line on standard
    error naming the file, line, field or option (usage errors included).
3
    Internal error: a bug, reported in one line; ``HYBRIDSCHED_DEBUG=1``
    re-raises it with its traceback.
130
    Interrupted (Ctrl-C).

Modules: :mod:`~hybridsched.cli.app` (the typer application and global
options), :mod:`~hybridsched.cli.inputs` (import-swf),
:mod:`~hybridsched.cli.hybrid_deadline` (generate hybrid-deadline),
:mod:`~hybridsched.cli.bot_sites` (generate bot-sites, import-etc),
:mod:`~hybridsched.cli.solving` (solve, validate, compare, pareto),
:mod:`~hybridsched.cli.campaigns` (campaign, report),
:mod:`~hybridsched.cli.bounding` (bound),
:mod:`~hybridsched.cli.malleable` (generate malleable, simulate malleable, tree),
:mod:`~hybridsched.cli.gang` (generate gang, simulate gang),
:mod:`~hybridsched.cli.pull` (generate pull, simulate pull, import-fta, soft),
:mod:`~hybridsched.cli.simulating` (what every simulate command shares),
:mod:`~hybridsched.cli.views` (gantt, methods, schema), :mod:`~hybridsched.cli.ui`
(what goes to standard output and error) and :mod:`~hybridsched.cli.options`.
Heavy libraries (pyomo, matplotlib, pandas) are imported inside the commands
that need them, so ``--help`` and ``methods`` start fast.

The process belongs to the program while :func:`run` runs: what libraries
write to standard output never reaches it (:mod:`hybridsched.stdio`; with
``--verbose`` it goes to standard error), and Ctrl-C ends any command with
exit code 130 and one line, whatever a solver does with the signal
(:mod:`hybridsched.interrupt`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import warnings
from collections.abc import Callable
from typing import Any

from hybridsched import memory
from hybridsched.cli import (  # noqa: F401  (they register commands)
    benchmarking,
    bot_sites,
    bounding,
    campaigns,
    certifying,
    gang,
    hybrid_deadline,
    inputs,
    malleable,
    pull,
    solving,
    ui,
    views,
)
from hybridsched.cli.app import app
from hybridsched.cli.clickcompat import Abort, ClickException, NoArgsIsHelpError, UsageError
from hybridsched.cli.flags import message_for_command_line
from hybridsched.cli.ui import SETTINGS, Settings, error
from hybridsched.errors import ClusterError, InfeasibleInstanceError, InputError, ParameterError
from hybridsched.interrupt import handling_sigint, requested
from hybridsched.stdio import owned_stdout, quarantined

__all__ = ["app", "main", "run"]

#: Exit code when standard output is closed by its reader (as typer does for that case).
BROKEN_PIPE = 1

#: The global ``--quiet`` option, accepted anywhere on the command line.
QUIET_FLAGS = ("--quiet", "-q")

#: The global ``--verbose`` option (libraries' standard output to standard error).
VERBOSE_FLAGS = ("--verbose",)

#: The global ``--memory-limit GIB`` option (:mod:`hybridsched.memory`), accepted anywhere.
MEMORY_FLAG = "--memory-limit"

#: Exit code of an interrupted command (128 + SIGINT, as shells report it).
INTERRUPTED = 130

#: Set to 1 to re-raise unexpected exceptions with their traceback.
DEBUG_VARIABLE = "HYBRIDSCHED_DEBUG"


#: click 8.5 words an unknown option "No such option '--x'." where 8.4 wrote "No such option:
#: --x"; one wording whatever click is installed.
_NO_SUCH_OPTION = re.compile(r"^No such option '(?P<name>[^']+)'\.")


def _usage_error(exc: UsageError) -> int:
    message = exc.format_message().replace("Value error, ", "")
    message = _NO_SUCH_OPTION.sub(r"No such option: \g<name>", message)
    if exc.ctx is not None:
        message += f" (see '{exc.ctx.command_path} --help')"
    error(message)
    return exc.exit_code


def _global_flags(argv: list[str]) -> list[str]:
    """Take ``--quiet``/``-q`` and ``--verbose`` from anywhere before ``--`` (global options)."""
    end = argv.index("--") if "--" in argv else len(argv)
    head, tail = argv[:end], argv[end:]
    SETTINGS.quiet = SETTINGS.quiet or any(a in QUIET_FLAGS for a in head)
    SETTINGS.verbose = SETTINGS.verbose or any(a in VERBOSE_FLAGS for a in head)
    return _memory_limit([a for a in head if a not in QUIET_FLAGS + VERBOSE_FLAGS]) + tail


def _memory_limit(head: list[str]) -> list[str]:
    """Take ``--memory-limit GIB`` (or ``=GIB``) from ``head`` into the environment.

    The budget travels in :data:`hybridsched.memory.ENV`, so campaign workers
    and subprocesses inherit it. A bad value raises :class:`InputError`.
    """
    kept, index = [], 0
    while index < len(head):
        arg = head[index]
        if arg == MEMORY_FLAG or arg.startswith(MEMORY_FLAG + "="):
            if "=" in arg:
                text = arg.split("=", 1)[1]
            elif index + 1 < len(head):
                index += 1
                text = head[index]
            else:
                raise InputError(f"{MEMORY_FLAG}: expected a number of GiB")
            os.environ[memory.ENV] = str(memory.parse_gib(text, MEMORY_FLAG))
        else:
            kept.append(arg)
        index += 1
    if os.environ.get(memory.ENV):  # a bad budget is bad input, said before anything runs
        memory.parse_gib(os.environ[memory.ENV])
    return kept


def _quarantine_bodies(command: Any) -> Any:
    """Run every command's body with ``sys.stdout`` on the libraries' sink.

    Parsing and help texts keep the program's standard output; the bodies,
    where solvers and workers run, do not (:func:`hybridsched.stdio.quarantined`).
    A library error naming a Python parameter is reported with the command's
    flag for it (:mod:`hybridsched.cli.flags`): the user typed ``--seed``.
    """
    for sub in getattr(command, "commands", {}).values():
        _quarantine_bodies(sub)
    body: Callable[..., Any] | None = command.callback
    if body is not None and not hasattr(command, "commands"):

        @functools.wraps(body)
        def quarantined_body(*args: Any, **kwargs: Any) -> Any:
            try:
                with quarantined():
                    return body(*args, **kwargs)
            except ParameterError as exc:
                raise InputError(message_for_command_line(exc, command)) from None

        command.callback = quarantined_body
    return command


def run(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` and return the exit code (see the module docstring)."""
    SETTINGS.__dict__.update(vars(Settings()))
    budget_before = os.environ.get(memory.ENV)
    try:
        argv = _global_flags(list(sys.argv[1:] if argv is None else argv))
    except InputError as exc:
        error(str(exc))
        return 2
    try:
        return _run(argv)
    finally:  # an in-process caller (tests, notebooks) keeps its own budget
        if budget_before is None:
            os.environ.pop(memory.ENV, None)
        else:
            os.environ[memory.ENV] = budget_before


def _run(argv: list[str]) -> int:
    with owned_stdout("stderr" if SETTINGS.verbose else "discard"), handling_sigint(), \
            warnings.catch_warnings(), _child_warnings(SETTINGS.verbose):
        if not SETTINGS.verbose:
            # Libraries' warnings (a busy port, a deprecation) are their business: the
            # command's messages are its own lines; --verbose shows them.
            warnings.simplefilter("ignore")
        try:
            code = _dispatch(argv)
        except KeyboardInterrupt:  # arrived while another exception was being reported
            code = INTERRUPTED
        if requested() or code == INTERRUPTED:
            # Whatever a solver or a library turned Ctrl-C into (a status, an exit), the
            # command was interrupted: one line, exit code 130.
            ui.report_interrupt()
            code = INTERRUPTED
    return code


@contextlib.contextmanager
def _child_warnings(verbose: bool) -> Any:
    """Child Python processes started meanwhile ignore warnings too, unless ``verbose``.

    Dask's workers and multiprocessing's resource tracker are processes of
    their own that write to our standard error: after a Ctrl-C, the tracker's
    "leaked semaphore objects" warning followed the command's one line.
    """
    saved = os.environ.get("PYTHONWARNINGS")
    if not verbose:
        os.environ["PYTHONWARNINGS"] = "ignore"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("PYTHONWARNINGS", None)
        else:
            os.environ["PYTHONWARNINGS"] = saved


def _dispatch(argv: list[str]) -> int:
    """Run the typer application; map every way it can end to an exit code."""
    import typer.main

    try:
        command = _quarantine_bodies(typer.main.get_command(app))
        code = command.main(args=argv, prog_name="hybridsched", standalone_mode=False)
    except BaseException as exc:
        if requested():
            # Whatever Ctrl-C became on its way out (a solver's error, a failed
            # selection, an exit), it is reported as the interrupt, in one line.
            return INTERRUPTED
        return _exit_code(exc)
    return code if isinstance(code, int) else 0


def _exit_code(exc: BaseException) -> int:
    """Report how a command ended (one line at most) and return its exit code."""
    if isinstance(exc, NoArgsIsHelpError):  # "hybridsched" alone: print the help
        message = exc.format_message()  # the help text itself
        if message.strip():
            ui.echo(message)
        return 0
    if isinstance(exc, UsageError):
        return _usage_error(exc)
    if isinstance(exc, ClickException):
        error(exc.format_message())
        return exc.exit_code
    if isinstance(exc, Abort | KeyboardInterrupt):  # Abort: click's word for Ctrl-C
        return INTERRUPTED
    if isinstance(exc, InputError):
        error(str(exc))
        return 2
    if isinstance(exc, InfeasibleInstanceError):
        error(f"infeasible: {exc}")
        return 1
    if isinstance(exc, BrokenPipeError):
        return BROKEN_PIPE  # the reader of our output went away (e.g. '| head'): stop quietly
    if isinstance(exc, SystemExit):  # typer.Exit, or a library's sys.exit
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    if isinstance(exc, MemoryError):
        error("out of memory: the command needs more than this process may use (exact and "
              "bound models fall back before building when they exceed --memory-limit; the "
              "libraries themselves need a few hundred MiB of address space)")
        return 1
    if isinstance(exc, ClusterError):
        error(str(exc))
        return 1
    if isinstance(exc, RuntimeError) and not isinstance(exc, RecursionError
                                                        | NotImplementedError):
        error(f"solver error: {exc}")  # e.g. HiGHS stopped without a solution
        return 1
    if isinstance(exc, Exception):
        return _internal(exc)
    raise exc  # GeneratorExit and the like: not ours to turn into an exit code


def _internal(exc: BaseException) -> int:
    if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
        raise exc
    error(f"internal error: {exc.__class__.__name__}: {exc} (please report it; "
          f"{DEBUG_VARIABLE}=1 shows the traceback)")
    return 3


def main() -> None:
    """Console-script entry point."""
    try:
        code = run(sys.argv[1:])
    except KeyboardInterrupt:  # in the instants before or after the handler is installed
        ui.report_interrupt()
        code = INTERRUPTED
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away ('| head'); Python flushes standard output again at exit,
        # so point it where a write cannot fail.
        code = BROKEN_PIPE
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if code == INTERRUPTED:
        # Everything was closed on the way out (files are atomic, the store flushed, the
        # cluster shut down); after Ctrl-C, the interpreter's own teardown (a full garbage
        # collection of what a cluster left: seconds) is not worth waiting for.
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
