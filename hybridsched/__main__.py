"""``python -m hybridsched`` and the ``hybridsched`` console script (see :mod:`hybridsched.cli`).

The command line's imports take a few tenths of a second; Ctrl-C during them
ends the command like Ctrl-C at any other moment: exit code 130, one line.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Console-script entry point."""
    from hybridsched.stdio import open_standard_descriptors

    # Before any import can take descriptor 1 or 2 for a file of its own (cmd >&-).
    open_standard_descriptors()
    try:
        from hybridsched.cli import main as run_command_line
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        raise SystemExit(130) from None
    run_command_line()


if __name__ == "__main__":
    main()
