"""Build and certify the benchmark library: ``instances/<family>/`` in tiers.

    python scripts/build_library.py                      # every family, tiers tiny, medium, large
    python scripts/build_library.py --families gang --tiers tiny,medium
    python scripts/build_library.py --certify-only       # re-certify every file on disk
    python scripts/build_library.py --index              # rewrite instances/README.md only
    python scripts/build_library.py --real --families bot-sites   # certify the real-data sets
    python scripts/build_library.py --tiers large --mode cluster --scheduler tcp://host:8786

Generated tiers (``tiny``: each family's ``tiny_instance(seed)``, brute-force
checkable; ``medium``/``large``: the family generators at the sizes below)
are written with ``reference.tier``; the ``small`` tier is the bundled
instances the older ``build_*_instances.py`` scripts make (pull's is
generated here: ``small_instance(seed)``, at the size its offline models
still prove). The tiny tier is certified file by file (an infeasible draw is
replaced). The other tiers run as one campaign per tier
(:mod:`hybridsched.experiments.library_build`): ``exact`` on HiGHS and on
CP-SAT and the family's ``bound``, each with the tier's time limit; the
store in ``--build-dir`` keeps every finished run, so a build that stops
(Ctrl-C: exit 130) resumes where it was, and ``--mode cluster --scheduler``
spreads the runs over a Dask cluster. Each file's reference block then
records the optimum, or the best known schedule and the best bound proven
by a checked proof, with which backend proved what, in which version. A
defect (the two backends contradicting each other, or a bound proof that
fails) is never recorded and makes the script exit 1. With ``--real``, the
real-data sets (``real-*.json`` recipes: the data stays in the shared folder)
are built in the build folder and their references written back into the
recipes. Last, ``instances/README.md`` lists every file with its figures.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from importlib import import_module
from pathlib import Path
from typing import Any

from hybridsched.catalogue import get_family
from hybridsched.experiments.certify import DEFECT
from hybridsched.experiments.certify_files import certify_file, load_checked
from hybridsched.experiments.library import (
    TIERS,
    TINY_GENERATORS,
    instance_files,
    tier_of,
    tiny_instance,
)
from hybridsched.experiments.library_build import (
    Entry,
    record_store,
    stripped_copy,
    tier_campaign,
)
from hybridsched.experiments.real_sets import (
    load_real_set,
    materialise,
    real_set_files,
    record_reference,
)
from hybridsched.io.jsonio import read_json
from hybridsched.stdio import owned_stdout
from hybridsched.storage import save_instance

ROOT = Path(__file__).resolve().parents[1]

#: Seconds per backend per instance when certifying, by tier (issue 32's budgets).
TIME_LIMITS = {"tiny": 20.0, "small": 60.0, "medium": 120.0, "large": 300.0, "real": 600.0}

#: How many tiny instances per family (seeds 0..n-1 of ``tiny_instance``).
TINY = 6


def _generated(module: str, call: Callable[[Any], Any]) -> Callable[[], Any]:
    return lambda: call(import_module(module))


#: family -> tier -> [(file stem, maker)], for the generated medium and large tiers.
GENERATED: dict[str, dict[str, list[tuple[str, Callable[[], Any]]]]] = {
    "hybrid-deadline": {
        "medium": [(f"medium-100-s{s}", _generated(
            "hybridsched.hybrid_deadline.generator",
            lambda g, s=s: g.generate(100, "mixed", s, name=f"medium-100-s{s}")))
            for s in range(7)],
        "large": [(f"large-400-s{s}", _generated(
            "hybridsched.hybrid_deadline.generator",
            lambda g, s=s: g.generate(400, "mixed", s, name=f"large-400-s{s}")))
            for s in range(2)],
    },
    "gang": {
        "medium": [(f"medium-80-s{s}", _generated(
            "hybridsched.gang.generator",
            lambda g, s=s: g.generate(80, scenario="table2", seed=s, name=f"medium-80-s{s}")))
            for s in range(4)],
        "large": [(f"large-200-s{s}", _generated(
            "hybridsched.gang.generator",
            lambda g, s=s: g.generate(200, scenario="table2", seed=s, name=f"large-200-s{s}")))
            for s in range(2)],
    },
    "bot-sites": {
        "medium": [(f"medium-hard-4s-6b-s{s}", _generated(
            "hybridsched.bot_sites.generator",
            lambda g, s=s: g.generate(sites=4, bots=6, tasks_per_bot=(20, 60),
                                      procs_per_site=(2, 6), seed=s, communication=True,
                                      storage=True, hard_limits=True,
                                      name=f"medium-hard-4s-6b-s{s}")))
            for s in range(5)],
        "large": [(f"large-10s-10b-s{s}", _generated(
            "hybridsched.bot_sites.generator",
            lambda g, s=s: g.generate(sites=10, bots=10, seed=s, name=f"large-10s-10b-s{s}")))
            for s in range(2)],
    },
    "malleable": {
        "medium": [(f"medium-batch-8-s{s}", _generated(
            "hybridsched.malleable.generator",
            lambda g, s=s: g.generate(8, "small", s, resources=g.batch_platform(),
                                      name=f"medium-batch-8-s{s}")))
            for s in (20, 21, 22)],
    },
    "pull": {
        "small": [(f"small-s{s}", _generated(
            "hybridsched.pull.generator", lambda g, s=s: g.small_instance(s)))
            for s in range(5)],
        # 60 units on 19 hosts (capacity 1,000 per DCI): the 30-60 unit tier of issue 32.
        "medium": [(f"medium-60-s{s}", _generated(
            "hybridsched.pull.generator",
            lambda g, s=s: g.generate(60, seed=s, capacity=1000.0, name=f"medium-60-s{s}")))
            for s in range(3)],
        "large": [(f"large-500-s{s}", _generated(
            "hybridsched.pull.generator",
            lambda g, s=s: g.generate(500, seed=s, name=f"large-500-s{s}")))
            for s in range(2)],
    },
}



def build(family: str, tier: str, folder: Path) -> list[Path]:
    """Write the generated files of ``family`` in ``tier``; return their paths."""
    makers = GENERATED[family].get(tier, [])
    return [write(family, tier, tier_folder(folder, tier) / f"{stem}.json", make())
            for stem, make in makers]


def tier_folder(folder: Path, tier: str) -> Path:
    """Where a tier's files go: the family's folder for small, a subfolder otherwise."""
    place = folder if tier == "small" else folder / tier
    place.mkdir(parents=True, exist_ok=True)
    return place


def write(family: str, tier: str, path: Path, instance: Any) -> Path:
    """Save ``instance`` at ``path`` named after the file, with only its tier recorded."""
    save_instance(path, get_family(family),
                  replace(instance, name=path.stem, reference={"tier": tier}))
    return path


def build_tiny(family: str, folder: Path, limit: float | None) -> None:
    """The first :data:`TINY` seeds of ``tiny_instance`` that are feasible, certified.

    An infeasible draw (certified so by both backends) is a fine test but no
    benchmark: nothing to rank methods on.
    """
    kept, seed = 0, 0
    while kept < TINY:
        path = write(family, "tiny", tier_folder(folder, "tiny") / f"tiny-{kept:02d}.json",
                     tiny_instance(family, seed))
        seed += 1
        if certify_all([path], limit=limit, keep_infeasible=False):
            kept += 1


def certify_all(paths: list[Path], *, limit: float | None = None,
                keep_infeasible: bool = True) -> bool:
    """Certify every file with its tier's time limit, recording the result; stop at a defect.

    Without ``keep_infeasible``, a file certified infeasible is removed and
    the result is False.
    """
    for path in paths:
        tier = tier_of(path) or "small"
        seconds = limit if limit is not None else TIME_LIMITS[tier]
        cert = certify_file(path, load_checked(path), time_limit=seconds,
                            save_dir=ROOT / "certify-defects", record=True)
        kept = "" if cert.recorded is not False else " (not recorded: an earlier proof stands)"
        print(f"{path.name}: {cert.verdict} best {cert.best_known} "
              f"bound {cert.best_bound} ({', '.join(cert.proven_by()) or 'no proof'}){kept}",
              flush=True)
        if cert.verdict == DEFECT:
            raise SystemExit(f"{path}: DEFECT: {cert.reason}")
        if cert.infeasible and not keep_infeasible:
            path.unlink()
            return False
    return True


def real_entries(folder: Path, build_dir: Path) -> list[Entry]:
    """The instances of the family's real-data recipes, built in ``build_dir``.

    The campaign runs on ``sources/``; results are recorded in ``records/`` and
    copied from there into the recipe (the data itself is never committed).
    """
    entries = []
    for recipe in real_set_files(folder):
        place = build_dir / "real" / folder.name / recipe.stem
        records = place / "records"
        for path in materialise(recipe, records):
            source = stripped_copy(path, place / "sources")

            def back(target: Path, recipe: Path = recipe) -> None:
                record_reference(recipe, target.stem, read_json(target).get("reference") or {})

            entries.append(Entry(source, path, "real", back))
    return entries


def library_entries(paths: list[Path], build_dir: Path) -> list[Entry]:
    """Entries for library files: the campaign's copies live in ``build_dir/sources``."""
    return [Entry(stripped_copy(path, build_dir / "sources" / path.parent.parent.name
                                / (tier_of(path) or "small")), path, tier_of(path) or "small")
            for path in paths]


def run_tiers(entries: list[Entry], args: argparse.Namespace) -> int:
    """One campaign per tier through the engine, then what the runs prove recorded.

    Ctrl-C stops the campaign; what finished is recorded all the same and the
    exit code is 130.
    """
    from hybridsched.experiments.campaign import run_campaign
    from hybridsched.experiments.store_read import load_results

    build_dir = Path(args.build_dir)
    code = 0
    for tier in sorted({e.tier for e in entries}, key=lambda t: RANK.get(t, 9)):
        chosen = [e for e in entries if e.tier == tier]
        limit = args.time_limit if args.time_limit is not None else TIME_LIMITS[tier]
        backends = () if args.bounds_only else ("highs", "cpsat")
        campaign = tier_campaign(chosen, tier=tier, time_limit=limit, backends=backends,
                                 with_bound=not args.no_bound)
        store = build_dir / (f"store-{tier}" + ("-bounds" if args.bounds_only else ""))
        print(f"tier {tier}: {len(chosen)} instances, {limit:g} s per run, store {store}",
              flush=True)
        interrupted = False
        try:
            run_campaign(campaign, store, mode=args.mode, scheduler=args.scheduler)
        except KeyboardInterrupt:
            interrupted = True
        if (store / "runs").exists() or any(store.glob("*")):
            for outcome in record_store(chosen, load_results(store), time_limit=limit):
                print(f"{outcome.target.name}: {outcome.verdict} best {outcome.best_known} "
                      f"bound {outcome.best_bound} ({outcome.bound_method or 'no bound run'})"
                      + (f" DEFECT: {outcome.reason}" if outcome.verdict == DEFECT else ""),
                      flush=True)
                if outcome.verdict == DEFECT:
                    code = 1
        if interrupted:
            return 130
    return code


#: Index order of the tiers.
RANK = {tier: n for n, tier in enumerate((*TIERS, "real"))}


def write_index(root: Path) -> None:
    """``instances/README.md``: every file of the library with its tier and references."""
    lines = ["# The benchmark library", "",
             "Written by `python scripts/build_library.py --index`. Tiers: tiny (brute-force "
             "checkable), small (certified in seconds), medium (certified in minutes, or best "
             "known with bounds), large (best known with bounds). A verdict `certified` means "
             "HiGHS and CP-SAT both proved the same optimum; `proven`, one of them did and the "
             "other did not contradict it; `open`, the best schedule and the best bound of "
             "either; `bounded`, no exact run recorded, the best schedule and the best bound "
             "of the family's `bound` method. The best bound is the optimum where one is "
             "proven, else a lower bound recorded with its proof (the column says which "
             "bound; `certify` recomputes the proof in exact arithmetic); a solver's "
             "unverified bound is kept in the file as `solver_lower_bound` and not shown. "
             "Rebuild: `python scripts/build_library.py`; re-certify: `--certify-only`; "
             "bounds only: `--bounds-only`.", ""]
    for family_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        lines += [f"## {family_dir.name}", "",
                  "| file | tier | objective | verdict | best known | best bound | gap | "
                  "bound's proof | proven by | time (s) highs / cpsat |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        rows = []
        recipes = real_set_files(family_dir)
        entries = [(str(p.relative_to(family_dir)), read_json(p).get("reference") or {})
                   for p in instance_files(family_dir)]
        entries += [(f"real/{recipe.name}: {item.name}", {**item.reference, "tier": "real"})
                    for recipe in recipes
                    for item in load_real_set(recipe).instances]
        for name, reference in entries:
            tier = reference.get("tier", "")
            for metric, cert in (reference.get("certificates") or {}).items():
                times = " / ".join(_seconds(cert["backends"].get(b, {}).get("runtime_s"))
                                   for b in ("highs", "cpsat"))
                best, bound, proof = _known(reference, metric, cert)
                rows.append((RANK.get(tier, 9), name,
                             f"| {name} | {tier} | {metric} | {cert['verdict']} | "
                             f"{_value(best)} | {_value(bound)} | {_gap(best, bound)} | "
                             f"{proof} | {', '.join(cert['proven_by']) or '-'} | {times} |"))
            if not reference.get("certificates"):
                best, bound, proof = _known(reference, "", {})
                verdict = "bounded" if bound is not None else "not certified"
                rows.append((RANK.get(tier, 9), name,
                             f"| {name} | {tier} | | {verdict} | {_value(best)} | "
                             f"{_value(bound)} | {_gap(best, bound)} | "
                             f"{proof if bound is not None else ''} | | |"))
        lines += [row for _, _, row in sorted(rows)] + [""]
    (root / "README.md").write_text("\n".join(lines))


def _known(reference: dict[str, Any], metric: str, cert: dict[str, Any]
           ) -> tuple[Any, Any, str]:
    """Best known, best bound and what proves the bound, as the reference block records them.

    The bound is the optimum when one is proven (by the backends named), else
    the ``lower_bound`` a checked proof shows (``bound_proof``); a solver's
    unverified bound is not a reference.
    """
    optimum = reference.get(f"optimal_{metric}")
    if optimum is not None:
        return optimum, optimum, "optimum proven"
    proof = reference.get("bound_proof") or {}
    best = reference.get("upper_bound", cert.get("best_known"))
    bound = reference.get("lower_bound")
    return best, bound, proof.get("method", "-") if bound is not None else "no proof yet"


def _gap(best: Any, bound: Any) -> str:
    if best is None or bound is None:
        return ""
    if best == bound:
        return "0%"
    return "no bound (best 0)" if bound <= 0 else f"{100 * (best - bound) / abs(best):.2f}%"


def _value(value: Any) -> str:
    return "" if value is None else f"{value:.6g}"


def _seconds(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default=",".join(TINY_GENERATORS))
    parser.add_argument("--tiers", default="tiny,medium,large")
    parser.add_argument("--certify-only", action="store_true",
                        help="re-certify the files on disk of the chosen families and tiers")
    parser.add_argument("--index", action="store_true", help="only rewrite instances/README.md")
    parser.add_argument("--real", action="store_true",
                        help="certify the real-data sets (needs the shared data)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds per backend per file (default: by tier)")
    parser.add_argument("--root", default=str(ROOT / "instances"))
    parser.add_argument("--build-dir", default=str(ROOT / "build" / "library"),
                        help="the campaigns' stores and instance copies (kept between "
                             "sittings: a rerun only runs what is missing)")
    parser.add_argument("--mode", default="auto",
                        help="where runs execute: auto, serial, pool or cluster (campaign)")
    parser.add_argument("--scheduler", default=None,
                        help="a Dask scheduler's address, with --mode cluster")
    parser.add_argument("--no-bound", action="store_true",
                        help="only the two exact backends, not the families' bound method")
    parser.add_argument("--bounds-only", action="store_true",
                        help="only the families' bound method (its proof and schedule), "
                             "not the exact backends")
    args = parser.parse_args()
    # The solver libraries' banners (HiGHS's) are not this script's output.
    with owned_stdout("discard"):
        return run(args)


def run(args: argparse.Namespace) -> int:
    """Build, certify and index as ``args`` say."""
    root = Path(args.root)
    build_dir = Path(args.build_dir)
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    code = 0
    if args.real:
        entries = [e for family in families
                   for e in real_entries(root / family, build_dir)]
        code = run_tiers(entries, args)
    elif not args.index:
        tiers = [t.strip() for t in args.tiers.split(",") if t.strip()]
        paths: list[Path] = []
        for family in families:
            folder = root / family
            folder.mkdir(parents=True, exist_ok=True)
            if not args.certify_only:
                if "tiny" in tiers:
                    for old in tier_folder(folder, "tiny").glob("tiny-*.json"):
                        old.unlink()
                    build_tiny(family, folder, args.time_limit)
                for tier in tiers:
                    if tier != "tiny":
                        build(family, tier, folder)
            paths += [p for p in instance_files(folder)
                      if (tier_of(p) or "small") in tiers and tier_of(p) != "tiny"]
            if args.certify_only and "tiny" in tiers:
                certify_all([p for p in instance_files(folder) if tier_of(p) == "tiny"],
                            limit=args.time_limit)
        code = run_tiers(library_entries(paths, build_dir), args)
    write_index(root)
    return code


if __name__ == "__main__":
    sys.exit(main())
