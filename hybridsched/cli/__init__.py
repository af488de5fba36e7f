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
options), :mod:`~hybridsched.cli.inputs` (generate, import-swf, import-etc),
:mod:`~hybridsched.cli.solving` (solve, validate, compare, pareto),
:mod:`~hybridsched.cli.campaigns` (campaign, report),
:mod:`~hybridsched.cli.malleable` (generate malleable, simulate malleable, tree),
:mod:`~hybridsched.cli.gang` (generate gang, simulate gang),
:mod:`~hybridsched.cli.pull` (generate pull, simulate pull, import-fta, soft),
:mod:`~hybridsched.cli.simulating` (what every simulate command shares),
:mod:`~hybridsched.cli.views` (gantt, methods, schema), :mod:`~hybridsched.cli.ui`
(what goes to standard output and error) and :mod:`~hybridsched.cli.options`.
Heavy libraries (pyomo, matplotlib, pandas) are imported inside the commands
that need them, so ``--help`` and ``methods`` start fast.
"""

from __future__ import annotations

import contextlib
import os
import sys

from hybridsched.cli import (  # noqa: F401  (they register commands)
    campaigns,
    gang,
    inputs,
    malleable,
    pull,
    solving,
    views,
)
from hybridsched.cli.app import app
from hybridsched.cli.clickcompat import Abort, ClickException, NoArgsIsHelpError, UsageError
from hybridsched.cli.ui import SETTINGS, Settings, error
from hybridsched.errors import ClusterError, InfeasibleInstanceError, InputError

__all__ = ["app", "main", "run"]

#: Exit code when standard output is closed by its reader (as typer does for that case).
BROKEN_PIPE = 1

#: The global ``--quiet`` option, accepted anywhere on the command line.
QUIET_FLAGS = ("--quiet", "-q")

#: Set to 1 to re-raise unexpected exceptions with their traceback.
DEBUG_VARIABLE = "HYBRIDSCHED_DEBUG"


def _usage_error(exc: UsageError) -> int:
    message = exc.format_message().replace("Value error, ", "")
    if exc.ctx is not None:
        message += f" (see '{exc.ctx.command_path} --help')"
    error(message)
    return exc.exit_code


def _global_flags(argv: list[str]) -> list[str]:
    """Take ``--quiet``/``-q`` from anywhere before ``--`` (it is a global option)."""
    end = argv.index("--") if "--" in argv else len(argv)
    if any(a in QUIET_FLAGS for a in argv[:end]):
        SETTINGS.quiet = True
        argv = [a for a in argv[:end] if a not in QUIET_FLAGS] + argv[end:]
    return argv


def run(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` and return the exit code (see the module docstring)."""
    SETTINGS.__dict__.update(vars(Settings()))
    argv = _global_flags(list(sys.argv[1:] if argv is None else argv))
    try:
        code = app(args=argv, prog_name="hybridsched", standalone_mode=False)
    except NoArgsIsHelpError as exc:  # "hybridsched" alone: print the help
        message = exc.format_message()  # the help text itself
        if message.strip():
            print(message)
        return 0
    except UsageError as exc:
        return _usage_error(exc)
    except ClickException as exc:
        error(exc.format_message())
        return exc.exit_code
    except Abort:
        error("aborted")
        return 130
    except InputError as exc:
        error(str(exc))
        return 2
    except InfeasibleInstanceError as exc:
        error(f"infeasible: {exc}")
        return 1
    except KeyboardInterrupt:
        error("interrupted")
        return 130
    except BrokenPipeError:
        return BROKEN_PIPE  # the reader of our output went away (e.g. '| head'): stop quietly
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except MemoryError:
        error("out of memory: the instance is too large for this method")
        return 1
    except ClusterError as exc:
        error(str(exc))
        return 1
    except RuntimeError as exc:
        if isinstance(exc, RecursionError | NotImplementedError):
            return _internal(exc)
        error(f"solver error: {exc}")  # e.g. HiGHS stopped without a solution
        return 1
    except Exception as exc:
        return _internal(exc)
    return code if isinstance(code, int) else 0


def _internal(exc: BaseException) -> int:
    if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
        raise exc
    error(f"internal error: {exc.__class__.__name__}: {exc} (please report it; "
          f"{DEBUG_VARIABLE}=1 shows the traceback)")
    return 3


def main() -> None:
    """Console-script entry point."""
    code = run(sys.argv[1:])
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away ('| head'); Python flushes standard output again at exit,
        # so point it where a write cannot fail.
        code = BROKEN_PIPE
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(code)
