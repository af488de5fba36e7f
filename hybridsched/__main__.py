"""``python -m hybridsched``: the command line (see :mod:`hybridsched.cli`)."""

from hybridsched.cli import main

if __name__ == "__main__":
    main()
