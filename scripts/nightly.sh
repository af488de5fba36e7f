#!/usr/bin/env bash
# Nightly wider run (not part of .ci/run): every test, the slow ones included, with the
# "nightly" hypothesis profile: randomized draws, 10x each property test's examples
# (HYPOTHESIS_NIGHTLY_FACTOR), and the example database in .hypothesis/ so that a
# failure found one night is replayed first the next. A failing draw is a finding: fix
# the code and keep the draw as an @example (the "ci" profile never draws it again).
#
# Usage: scripts/nightly.sh [pytest arguments...]   e.g. scripts/nightly.sh tests/core -x
set -euo pipefail
cd "$(dirname "$0")/.."
export HYPOTHESIS_PROFILE=nightly
exec python -m pytest -m "slow or not slow" "$@"
