"""The click that typer runs on.

typer >= 0.2x ships its own copy of click (``typer._click``); older versions
use the ``click`` package. Parsing errors must be caught from the copy typer
actually raises them from, so every module takes them from here.
"""

from __future__ import annotations

from typer import Abort

try:  # typer with a vendored click
    from typer._click.core import Context, ParameterSource
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
except ImportError:  # pragma: no cover (typer that uses the click package)
    from click.core import Context, ParameterSource
    from click.exceptions import ClickException, NoArgsIsHelpError, UsageError

__all__ = ["Abort", "ClickException", "Context", "NoArgsIsHelpError", "ParameterSource",
           "UsageError"]
