"""The flag a user typed for the Python parameter a library error names.

The library raises :class:`~hybridsched.errors.ParameterError` naming its
parameter (``seed``, ``n_tasks``), because that is what a Python caller
wrote; on the command line the user typed a flag (``--seed``, ``--tasks``),
so the command's one-line message names the flag instead.
"""

from __future__ import annotations

from typing import Any

from hybridsched.errors import ParameterError

#: Python parameters whose command-line option has another name.
ALIASES = {"rng": "seed", "n_tasks": "tasks", "method_names": "methods", "window_s": "window"}


def flag_for(parameter: str, command: Any) -> str | None:
    """The flag of ``command`` (a click command) that gives ``parameter``; ``None``: none does.

    Examples
    --------
    >>> import click
    >>> command = click.Command("x", params=[click.Option(["--seed"], type=int)])
    >>> flag_for("rng", command), flag_for("seed", command), flag_for("other", command)
    ('--seed', '--seed', None)
    """
    options = [p for p in getattr(command, "params", []) if hasattr(p, "opts")]
    for name in dict.fromkeys((parameter, ALIASES.get(parameter, parameter))):
        flag = "--" + name.replace("_", "-")
        for option in options:
            if flag in (*option.opts, *option.secondary_opts):
                return flag
        for option in options:
            if option.name == name:
                longest = max(option.opts, key=len)
                return longest if longest.startswith("-") else None
    return None


def message_for_command_line(error: ParameterError, command: Any) -> str:
    """``error``'s one line, naming the flag of ``command`` that gave its parameter.

    The parameter's own name stays when no flag of ``command`` gives it (the
    value came from a file or a spec, not from a flag).
    """
    flag = flag_for(error.parameter, command)
    return str(error) if flag is None else f"{flag}: {error.reason}"
