"""Regenerate the bundled hybrid-deadline instances and record their proven optima.

Usage: ``python scripts/build_instances.py [--out instances/hybrid-deadline]``.
Each instance is written by the seeded generator, solved by ``exact`` without
a time limit, and its optimal rent cost stored under ``reference``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import highspy

from hybridsched import get_family, run_method, save_instance
from hybridsched.hybrid_deadline.generator import generate
from hybridsched.result import Status

#: (file stem, tasks, seed) of the bundled instances: 10-40 tasks, mixed alpha.
BUNDLE = [
    ("small-01", 20, 3),
    ("small-02", 10, 1),
    ("small-03", 12, 2),
    ("small-04", 15, 4),
    ("small-05", 18, 5),
    ("small-06", 22, 6),
    ("small-07", 25, 7),
    ("small-08", 28, 8),
    ("small-09", 30, 9),
    ("small-10", 33, 10),
    ("small-11", 36, 11),
    ("small-12", 40, 12),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="instances/hybrid-deadline")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    family = get_family("hybrid-deadline")
    version = highspy.Highs().version()
    for stem, tasks, seed in BUNDLE:
        instance = generate(tasks, "mixed", seed, name=stem)
        result = run_method("hybrid-deadline", "exact", instance)
        assert result.status is Status.OPTIMAL, (stem, result.status)
        instance = replace(instance, reference={
            "tier": "small",  # the benchmark library's tier (scripts/build_library.py)
            "optimal_cost": round(result.objective, 9),
            "proven_by": f"hybridsched exact (HiGHS {version})",
        })
        save_instance(out / f"{stem}.json", family, instance)
        print(f"{stem}: {tasks} tasks, {len(instance.pms)} PMs, optimum ${result.objective:.3f} "
              f"({result.runtime_s:.2f} s)")


if __name__ == "__main__":
    main()
