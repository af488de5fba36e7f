"""Regenerate the bundled gang instances and record their proven offline optima.

Usage: ``python scripts/build_gang_instances.py [--out instances/gang]``. Each
instance is the Table 2 scenario on 8 VMs at 3 jobs per time unit, solved by
``exact`` without a time limit; the fewest unfinished jobs is stored under
``reference.optimal_unfinished``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from hybridsched import get_family, run_method, save_instance
from hybridsched.gang.generator import generate
from hybridsched.result import Status

#: (file stem, jobs, seed).
BUNDLE = [("small-10", 10, 1), ("small-12", 12, 2), ("small-15", 15, 0), ("small-20", 20, 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="instances/gang")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for stem, jobs, seed in BUNDLE:
        instance = generate(jobs, 3.0, "table2", seed, vms=8, name=stem)
        result = run_method("gang", "exact", instance)
        if result.status is not Status.OPTIMAL:
            raise SystemExit(f"{stem}: not proven optimal ({result.message})")
        print(f"{stem}: {result.objective:g} unfinished ({result.runtime_s:.1f} s)")
        save_instance(out / f"{stem}.json", get_family("gang"),
                      replace(instance, reference={"tier": "small",
                                                  "optimal_unfinished": int(result.objective)}))


if __name__ == "__main__":
    main()
