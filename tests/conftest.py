"""Shared fixtures: where the real data lives, and the bundled instances.

Also the hypothesis profiles, chosen by the ``HYPOTHESIS_PROFILE`` environment
variable (default ``ci``):

``ci``       derandomized (every run draws the same examples: a failure is the
             code's, and it fails every time), no example database, no deadline
             and no ``too_slow`` health check (a loaded machine fails no test);
             failures print a ``@reproduce_failure`` blob.
``nightly``  randomized, with the local example database (a failure found one
             night is replayed first the next), and :data:`NIGHTLY_FACTOR` times
             each test's ``max_examples`` (``HYPOTHESIS_NIGHTLY_FACTOR``, default
             10): ``scripts/nightly.sh``.

A property test that fails on some draw is a finding: fix the code and keep
the draw as an ``@example``. Per-test ``@settings`` set only ``max_examples``,
``deadline=None`` and ``suppress_health_check``; everything else comes from
the profile (they are decorated after this module has loaded it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from hybridsched.io.shared_data import NASA_TRACE, shared_data_path

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"

#: Health checks that measure time: under load they fail tests that are correct.
TIMED_HEALTH_CHECKS = [HealthCheck.too_slow]
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
NIGHTLY_FACTOR = int(os.environ.get("HYPOTHESIS_NIGHTLY_FACTOR", "10"))

settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          print_blob=True, suppress_health_check=TIMED_HEALTH_CHECKS)
settings.register_profile("nightly", derandomize=False, deadline=None, print_blob=True,
                          max_examples=100 * NIGHTLY_FACTOR,
                          suppress_health_check=TIMED_HEALTH_CHECKS)
if PROFILE not in ("ci", "nightly"):
    raise pytest.UsageError(f"HYPOTHESIS_PROFILE={PROFILE!r}: expected ci or nightly")
settings.load_profile(PROFILE)


def pytest_report_header(config: pytest.Config) -> str:
    """Say which profile ran (a nightly failure is then read as one)."""
    factor = f", {NIGHTLY_FACTOR}x examples" if PROFILE == "nightly" else ""
    return f"hypothesis profile: {PROFILE}{factor} (HYPOTHESIS_PROFILE)"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under ``nightly``, multiply each property test's own ``max_examples``.

    A ``@settings(max_examples=...)`` on a test overrides the profile's, so the
    nightly profile alone would not widen those tests; their budgets are
    scaled here instead (each wrapped function once, however parametrized).
    """
    if PROFILE != "nightly" or NIGHTLY_FACTOR == 1:
        return
    seen: set[int] = set()
    for item in items:
        test = getattr(item, "obj", None)
        if not getattr(test, "is_hypothesis_test", False) or id(test) in seen:
            continue
        seen.add(id(test))
        # Hypothesis reads this attribute when the test runs; it is where @settings lands.
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is None or own.max_examples == settings.get_profile(PROFILE).max_examples:
            continue  # no budget of its own: the profile's is already the nightly one
        test._hypothesis_internal_use_settings = settings(
            own, max_examples=own.max_examples * NIGHTLY_FACTOR)


@pytest.fixture(scope="session")
def nasa_trace_path() -> Path:
    """The NASA iPSC/860 SWF trace, or skip with the reason."""
    path = shared_data_path(NASA_TRACE)
    if path is None:
        pytest.skip("NASA iPSC trace not found: set HYBRIDSCHED_DATA to a folder holding "
                    "traces/NASA-iPSC-1993-3.1-cln.swf.gz (or keep ../shared/data)")
    return path


@pytest.fixture
def cli(capsys):
    """Run the command line on arguments; return ``(exit code, stdout, stderr)``."""
    from hybridsched.cli import run

    def call(*argv):
        code = run([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return call
