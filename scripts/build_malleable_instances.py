"""Regenerate the bundled malleable batches and record their proven offline optima.

Usage: ``python scripts/build_malleable_instances.py [--out instances/malleable]``.
Each batch is drawn by the seeded generator (small jobs) on
:func:`~hybridsched.malleable.generator.batch_platform`, a platform
small enough for the exact method to reach small gaps yet busy enough that
the optima are not trivially 0. The exact method solves it, within
``--time-limit`` seconds per objective, for ``penalised_a`` and
``penalised_b`` (``cost`` alone is 0 on any platform with a free dedicated
cluster); a proven optimum is stored under ``reference`` as
``optimal_<objective>``, otherwise the best schedule's value and the bound as
``upper_bound_<objective>`` and ``lower_bound_<objective>``.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from pathlib import Path

from hybridsched import get_family, run_method, save_instance
from hybridsched.malleable.generator import batch_platform, generate
from hybridsched.result import Status

#: (file stem, jobs, seed).
BUNDLE = [("batch-04", 4, 1), ("batch-05", 5, 2), ("batch-06", 6, 3), ("batch-08", 8, 4),
          ("batch-10", 10, 5)]

OBJECTIVES = ("penalised_a", "penalised_b")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="instances/malleable")
    parser.add_argument("--time-limit", type=float, default=600.0)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    family = get_family("malleable")
    for stem, jobs, seed in BUNDLE:
        instance = generate(jobs, "small", seed, resources=batch_platform(), name=stem)
        reference: dict = {"tier": "small"}  # the library's tier (scripts/build_library.py)
        for objective in OBJECTIVES:
            result = run_method("malleable", "exact", instance, objective=objective,
                                time_limit=args.time_limit)
            if result.status is Status.OPTIMAL:
                reference[f"optimal_{objective}"] = round(float(result.objective), 6)
            else:
                reference[f"upper_bound_{objective}"] = round(float(result.objective), 6)
                # Rounded down, so that the recorded bound stays a bound.
                reference[f"lower_bound_{objective}"] = math.floor(result.bound * 1e6) / 1e6
            print(f"{stem}: {objective} {result.status.value} {result.objective:g}, bound "
                  f"{result.bound:g} ({result.runtime_s:.1f} s)", flush=True)
        save_instance(out / f"{stem}.json", family, replace(instance, reference=reference))


if __name__ == "__main__":
    main()
