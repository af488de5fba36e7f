#!/usr/bin/env bash
# Lower-bound check, not part of .ci/run: the test suite against the lowest release of every
# direct dependency that pyproject.toml allows, in a fresh virtual environment, so that a
# lower bound we have never tested is found by us, not by a user whose resolver picks it
# (issue 34's check: typer 0.12, highspy 1.7 and pyomo 6.7 gave a traceback on every command).
# uv's resolver does the choosing (--resolution lowest-direct); it comes from PyPI into the
# throw-away environment. Prints the versions it tested.
#
# Usage: bash scripts/test-lowest.sh [pytest arguments...]   e.g. ... tests/cli -x
set -euo pipefail
cd "$(dirname "$0")/.."
where="$(mktemp -d)"
trap 'rm -rf "$where"' EXIT
python -m venv "$where/venv"
python="$where/venv/bin/python"
"$python" -m pip install --quiet uv
"$where/venv/bin/uv" pip install --quiet --python "$python" --resolution lowest-direct -e ".[dev]"
echo "testing with:"
"$python" -m pip list --format=freeze --exclude-editable | sed 's/^/  /'
"$python" -m pytest "$@"
