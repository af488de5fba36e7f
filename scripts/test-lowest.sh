#!/usr/bin/env bash
# Lower-bound check, not part of .ci/run: the test suite against the lowest release of every
# direct dependency that pyproject.toml allows (see scripts/test-latest.sh), so that a lower
# bound we never tested is found by us, not by a user whose resolver picks it (issue 34's
# check: typer 0.12, highspy 1.7 and pyomo 6.7 gave a traceback on every command).
#
# Usage: bash scripts/test-lowest.sh [pytest arguments...]   e.g. ... tests/cli -x
exec env RESOLUTION=lowest bash "$(dirname "$0")/test-latest.sh" "$@"
