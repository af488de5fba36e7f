"""Regenerate the bundled malleable batches and record their proven offline optima.

Usage: ``python scripts/build_malleable_instances.py [--out instances/malleable]``.
Each batch is drawn by the seeded generator (small jobs) on
:func:`~hybridsched.malleable.generator.batch_platform`, a platform small
enough for the offline model to prove optima in seconds yet busy enough that
the optima are not trivially 0. The exact model solves it, without a time
limit, for ``penalised_a`` and ``penalised_b`` (``cost`` alone is 0 on any
platform with a free dedicated cluster); the proven optima are stored under
``reference``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from hybridsched import get_family, run_method, save_instance
from hybridsched.malleable.generator import batch_platform, generate
from hybridsched.result import Status

#: (file stem, jobs, seed).
BUNDLE = [("batch-04", 4, 1), ("batch-05", 5, 2), ("batch-06", 6, 3), ("batch-08", 8, 4),
          ("batch-10", 10, 5)]

KEYS = {"penalised_a": "optimal_penalised_a", "penalised_b": "optimal_penalised_b"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="instances/malleable")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    family = get_family("malleable")
    for stem, jobs, seed in BUNDLE:
        instance = generate(jobs, "small", seed, resources=batch_platform(), name=stem)
        reference = {}
        for objective, key in KEYS.items():
            result = run_method("malleable", "exact", instance, objective=objective)
            if result.status is not Status.OPTIMAL:
                raise SystemExit(f"{stem}: {objective} not proven optimal ({result.message})")
            reference[key] = round(float(result.objective), 6)
            print(f"{stem}: {objective} = {result.objective:g} ({result.runtime_s:.1f} s)")
        save_instance(out / f"{stem}.json", family, replace(instance, reference=reference))


if __name__ == "__main__":
    main()
