"""``instances``: the benchmark library that comes with the package, listed, located, copied.

A wheel carries the library and the examples (``hybridsched/bundled/``); a
checkout has them at its top. ``list`` shows each instance with its tier and
best-known value, ``path`` prints one file's path (for another command's
argument: ``hybridsched compare "$(hybridsched instances path
hybrid-deadline/small-01)"``), ``copy`` puts them in a folder to edit, keeping
the layout so that the example campaign specs find the library beside them.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path
from typing import Annotated, Any

import typer

from hybridsched.cli import ui
from hybridsched.errors import InputError

INSTANCES_EXIT = (
    "Exit codes: 0 success; 2 bad input: an unknown family, tier or file name, or a folder "
    "that cannot be written (one line, with a suggestion)."
)

instances_app = typer.Typer(
    help="The benchmark library that comes with hybridsched: list it, print a file's path, "
         "copy it (and the examples) into a folder.",
    no_args_is_help=True, epilog=INSTANCES_EXIT, rich_markup_mode=None)

#: What a copy leaves out of a working checkout's folders.
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.egg-info", "build", "dist")

Family = Annotated[str | None, typer.Argument(
    help="Only this family's folder (default: every family).", show_default=False)]


@instances_app.command("list", epilog=INSTANCES_EXIT)
def list_instances(
    family: Family = None,
    tier: Annotated[str | None, typer.Option(
        "--tier", help="Only this tier: tiny, small, medium or large.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """List the library's instances: name, tier, objective, best-known value, verdict.

    The best known value is the proven optimum where the verdict is certified
    or proven, else the best schedule found (open, bounded); the library's
    README.md explains the verdicts and holds the bounds.
    """
    from hybridsched.experiments.library import TIERS, instance_files, library_root
    from hybridsched.io.jsonio import dumps_strict, read_json

    if tier is not None and tier not in TIERS:
        raise InputError(f"--tier: must be one of {', '.join(TIERS)}, got {tier!r}")
    root = library_root()
    rows = []
    for folder in _family_folders(root, family):
        for path in instance_files(folder):
            reference = read_json(path).get("reference") or {}
            if tier is None or reference.get("tier") == tier:
                rows.append(_row(root, folder.name, path, reference))
    rows.sort(key=lambda r: (r["family"], _rank(r["tier"]), r["name"]))
    if as_json:
        ui.echo(dumps_strict({"library": str(root), "instances": rows}))
        return
    cells = [("name", "tier", "objective", "best known", "verdict")]
    cells += [(r["name"], r["tier"] or "-", r["objective"] or "-", ui.fmt(r["best_known"]),
               r["verdict"]) for r in rows]
    widths = [max(len(row[c]) for row in cells) for c in range(4)]
    for row in cells:
        ui.echo("  ".join(f"{cell:{w}}" for cell, w in zip(row[:4], widths, strict=True))
                + f"  {row[4]}")
    ui.note(f"{len(rows)} instances in {root}")


@instances_app.command("path", epilog=INSTANCES_EXIT)
def path_of(
    name: Annotated[str, typer.Argument(
        help="A library file as 'instances list' names it (hybrid-deadline/small-01), or "
             "an example (examples/campaigns/hybrid-deadline-gaps.toml).",
        show_default=False)],
) -> None:
    """Print the absolute path of one library file or example."""
    from hybridsched.experiments.library import examples_root, library_root

    text = name.removeprefix("./")
    if text.startswith("examples/"):
        root, relative, kind = examples_root(), text.removeprefix("examples/"), "example"
    else:
        root, relative, kind = library_root(), text.removeprefix("instances/"), "library file"
    base = root.resolve()
    for candidate in (relative, f"{relative}.json"):
        found = (base / candidate).resolve()
        if found.is_file() and found.is_relative_to(base):
            ui.echo(str(found))
            return
    if kind == "example":
        known = [f"examples/{p.relative_to(base)}" for p in _files(base)]
        where = f"the examples are in {base}"
    else:
        known = [str(p.relative_to(base).with_suffix("")) for p in _files(base)
                 if p.suffix == ".json" and p.name != "README.md"]
        where = "'hybridsched instances list' lists them"
    close = difflib.get_close_matches(text.removesuffix(".json").removeprefix("instances/"),
                                      known, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise InputError(f"no {kind} {name!r} ({hint}{where})")


@instances_app.command("copy", epilog=INSTANCES_EXIT)
def copy(
    dest: Annotated[Path, typer.Argument(
        metavar="DEST", help="Folder to copy into (made if missing); the library goes to "
                             "DEST/instances, the examples to DEST/examples.",
        show_default=False)],
    family: Family = None,
    examples: Annotated[bool, typer.Option(
        "--examples", help="Also copy the examples (campaign specs, SOFT studies, agent "
                           "trees, the example plug-in).")] = False,
) -> None:
    """Copy the library (or one family of it) into a folder, to edit or extend.

    Nothing is overwritten: if any file to copy is already there, nothing is
    copied. The layout is kept, so the example campaigns' relative paths to
    the library still hold in DEST.
    """
    from hybridsched.experiments.library import examples_root, library_root
    from hybridsched.io.outputs import check_output_folder

    root = library_root()
    folders = _family_folders(root, family)
    pairs = ([(root, dest / "instances")] if family is None
             else [(folder, dest / "instances" / folder.name) for folder in folders])
    if examples:
        pairs.append((examples_root(), dest / "examples"))
    for source, target in pairs:
        for path in _files(source):
            existing = target / path.relative_to(source)
            if existing.exists():
                raise InputError(f"{existing}: already exists; nothing copied (copy into a "
                                 f"new or empty folder)")
    check_output_folder(dest, "DEST")
    for source, target in pairs:
        shutil.copytree(source, target, ignore=LEFT_OUT, dirs_exist_ok=True)
        ui.note(f"copied {len(_files(source))} files to {target}")


def _family_folders(root: Path, family: str | None) -> list[Path]:
    """The library's family folders, or the one of ``family`` (a one-line error if none)."""
    folders = sorted(p for p in root.iterdir() if p.is_dir())
    if family is None:
        return folders
    names = [p.name for p in folders]
    if family not in names:
        close = difflib.get_close_matches(family, names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InputError(f"no family {family!r} in the library ({hint}families: "
                         f"{', '.join(names)})")
    return [root / family]


def _files(folder: Path) -> list[Path]:
    """The files under ``folder`` a copy takes (caches and build outputs left out)."""
    skipped = {"__pycache__", "build", "dist"}
    return [p for p in folder.rglob("*") if p.is_file() and p.suffix not in (".pyc", ".pyo")
            and not any(part in skipped or part.endswith(".egg-info")
                        for part in p.relative_to(folder).parts)]


def _rank(tier: str | None) -> int:
    from hybridsched.experiments.library import TIERS

    return TIERS.index(tier) if tier in TIERS else len(TIERS)


def _row(root: Path, family: str, path: Path, reference: dict[str, Any]) -> dict[str, Any]:
    """One listed instance: its name, tier and what its reference block knows."""
    objective, best, verdict = _known(reference)
    return {"name": str(path.relative_to(root).with_suffix("")), "family": family,
            "tier": reference.get("tier"), "objective": objective, "best_known": best,
            "verdict": verdict, "path": str(path.resolve())}


def _known(reference: dict[str, Any]) -> tuple[str | None, float | None, str]:
    """Objective, best-known value and verdict, as the reference block records them.

    The first certified objective counts (the family's main one); a file
    without a certificate names its objective in its keys (``optimal_cost``,
    ``upper_bound_penalised_a``) or leaves it to the family (``upper_bound``).
    """
    certificates = reference.get("certificates") or {}
    if certificates:
        metric, certificate = next(iter(certificates.items()))
        best = reference.get(f"optimal_{metric}",
                             reference.get("upper_bound", certificate.get("best_known")))
        return metric, best, certificate.get("verdict", "-")
    for key, value in reference.items():
        if key.startswith("optimal_"):
            return key.removeprefix("optimal_"), value, "optimal"
    for key, value in reference.items():
        if key.startswith("upper_bound"):
            metric = key.removeprefix("upper_bound").removeprefix("_") or None
            bounded = any(k.startswith("lower_bound") for k in reference)
            return metric, value, "bounded" if bounded else "best known"
    return None, None, "-"
