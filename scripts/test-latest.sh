#!/usr/bin/env bash
# Drift check, not part of .ci/run: the test suite against the newest release of every
# dependency, in a fresh virtual environment, so that a release that changes our results
# is found by us before users find it. Prints the versions it tested; when the suite
# passes and you want them, install them here and run 'python scripts/lock.py'.
# With RESOLUTION=lowest (what scripts/test-lowest.sh sets) it installs instead the lowest
# release of every direct dependency that pyproject.toml allows, chosen by uv's resolver
# (--resolution lowest-direct; uv comes from PyPI into the throw-away environment).
#
# Usage: bash scripts/test-latest.sh [pytest arguments...]   e.g. ... -m "slow or not slow"
set -euo pipefail
cd "$(dirname "$0")/.."
where="$(mktemp -d)"
trap 'rm -rf "$where"' EXIT
python -m venv "$where/venv"
python="$where/venv/bin/python"
"$python" -m pip install --quiet --upgrade pip
if [ "${RESOLUTION:-latest}" = lowest ]; then
    "$python" -m pip install --quiet uv
    "$where/venv/bin/uv" pip install --quiet --python "$python" --resolution lowest-direct \
        -e ".[dev]"
else
    # No constraints file: whatever is newest today, within pyproject.toml's bounds.
    "$python" -m pip install --quiet --upgrade --upgrade-strategy eager -e ".[dev]"
fi
echo "testing with:"
"$python" -m pip list --format=freeze --exclude-editable | sed 's/^/  /'
"$python" -m pytest "$@"
