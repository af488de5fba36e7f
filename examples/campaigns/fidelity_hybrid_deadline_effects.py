"""Per-alpha paired effects of the hybrid-deadline fidelity campaigns (issue 19, paper 002).

``hybridsched effects`` pools every instance of a store; the paper's claims are
per deadline factor alpha, so this splits the runs by the ``-a<alpha>`` of the
instance name and pairs within each alpha (same NASA window or seed)::

    python examples/campaigns/fidelity_hybrid_deadline_effects.py /tmp/fid-hd-nasa

It prints, per alpha: the rent of every CDF reading against FFD under each
FFD reading (the paper's Fig. 3: negative is "HA rents less"), and RA's effect
on the makespan readings (makespan, mean_finish, mean_machine_makespan) for
FFD and CDF separately (Fig. 5). Labels missing from the store are skipped.
"""

from __future__ import annotations

import re
import sys

import pandas as pd

from hybridsched.experiments.paired import paired_effects
from hybridsched.experiments.store_read import load_results

#: (baseline label, variant labels, measure) compared per alpha.
COMPARISONS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    *((ffd, ("cdf[fit=append,scan=all]", "cdf[fit=append,scan=current]",
             "cdf[fit=edf,scan=all]", "cdf[fit=edf,scan=current]", "cdf[scan=all]",
             "cdf[scan=current]", "cdf"), "objective")
      for ffd in ("ffd[fit=edf]", "ffd[fit=append]", "ffd")),
    *((base, variants, measure)
      for measure in ("metric_makespan", "metric_mean_finish", "metric_mean_machine_makespan")
      for base, variants in (
          ("ffd[fit=edf]", ("ffd+ra[fit=edf,ra_accept=task]",
                            "ffd+ra[fit=edf,ra_accept=machine]", "ffd+ra[fit=edf]",
                            "ffd+ra")),
          ("ffd[fit=append]", ("ffd+ra[fit=append,ra_accept=task]",
                               "ffd+ra[fit=append,ra_accept=machine]", "ffd+ra[fit=append]")),
          ("cdf[fit=append,scan=all]", ("cdf+ra[ra_accept=task]", "cdf+ra[ra_accept=machine]")),
          ("cdf[scan=all]", ("cdf+ra",)),
          ("cdf", ("cdf+ra",)),
      )),
)


def effects(store: str) -> pd.DataFrame:
    """One row per (alpha, comparison): pairs, mean % difference, 95% CI, wins/losses/ties."""
    runs = load_results(store)
    runs = runs.assign(alpha=[int(re.search(r"-a(\d+)", name).group(1))
                              for name in runs["instance"]])
    rows = []
    labels = set(runs["method"])
    for baseline, variants, measure in COMPARISONS:
        present = [v for v in variants if v in labels]
        if baseline not in labels or not present:
            continue
        for alpha, part in runs.groupby("alpha"):
            part = part[part["method"].isin([baseline, *present])]
            table = paired_effects(part, baseline, measure=measure)
            rows.append(table[table["method"].isin(present)].assign(alpha=alpha))
    columns = ["alpha", "measure", "method", "baseline", "pairs", "mean", "ci_low", "ci_high",
               "wins", "losses", "ties", "method_mean", "baseline_mean"]
    return pd.concat(rows, ignore_index=True)[columns] if rows else pd.DataFrame(columns=columns)


if __name__ == "__main__":
    with pd.option_context("display.width", 250, "display.max_rows", 1000,
                           "display.max_colwidth", 40, "display.precision", 2):
        print(effects(sys.argv[1]).round(2).to_string(index=False))
