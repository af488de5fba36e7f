"""Real-data sets of the benchmark library: recipes committed, data never.

The real instances (Braun et al.'s ETC matrices, windows of the NASA iPSC
trace) come from the shared data folder (:mod:`hybridsched.io.shared_data`),
which is never committed. The library holds, per family, a *recipe* file
``instances/<family>/real/<set>.json`` naming for each instance where its
data is and how it is imported, with the instance's ``reference`` block
(best known from the literature, and our certificates). ``materialise``
builds the instances from the data with their references, for ``bench
--tier real`` and for the library script; without the data it says so in
one line.

A recipe::

    {"format": "hybridsched-real-set", "version": 1, "family": "bot-sites",
     "description": "...",
     "instances": [{"name": "u_c_hihi.0", "kind": "braun", "file": "u_c_hihi.0",
                    "reference": {...}}, ...]}

Kinds: ``braun`` (a file of the Braun folder, :func:`hybridsched.io.etc.read_etc`),
``swf`` (a window of the NASA trace: ``skip``, ``limit``, and for
hybrid-deadline ``alpha``; gang takes the importer's defaults).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hybridsched.catalogue import get_family
from hybridsched.errors import InputError
from hybridsched.io.jsonio import parse_model, read_json, write_json
from hybridsched.io.shared_data import BRAUN_FOLDER, NASA_TRACE, shared_data_path
from hybridsched.storage import save_instance

FORMAT = "hybridsched-real-set"


class RealInstance(BaseModel):
    """One instance of a real-data set: where its data is, how to import it, its references."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    kind: Literal["braun", "swf"]
    file: str | None = None
    skip: int = Field(0, ge=0)
    limit: int | None = Field(None, ge=1)
    alpha: float = Field(1.0, gt=0)
    reference: dict[str, Any] = Field(default_factory=dict)


class RealSet(BaseModel):
    """A recipe file of the library."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["hybridsched-real-set"] = FORMAT
    version: Literal[1] = 1
    family: str
    description: str = ""
    instances: list[RealInstance]


def real_set_files(folder: Path) -> list[Path]:
    """The recipe files in a family's library folder."""
    return sorted(p for p in (folder / "real").glob("*.json")
                  if isinstance(doc := read_json(p), dict) and doc.get("format") == FORMAT)


def load_real_set(path: Path) -> RealSet:
    """Read and validate a recipe file (one-line error naming the field)."""
    return parse_model(RealSet, read_json(path), str(path))


def build_instance(item: RealInstance, family: str) -> Any:
    """The instance of ``item`` from the shared data, with its recorded reference and tier."""
    if item.kind == "braun":
        from hybridsched.io.etc import read_etc

        path = _data(f"{BRAUN_FOLDER}/{item.file or item.name}")
        instance = read_etc(path)
    else:
        from hybridsched.io.swf import read_swf

        trace = read_swf(_data(NASA_TRACE), usable=lambda r: r.run_time > 0
                         and (r.processors > 0 or family != "gang"),
                         limit=None if item.limit is None else item.skip + item.limit)
        if family == "gang":
            from hybridsched.gang.trace import instance_from_trace as gang_from_trace

            instance = gang_from_trace(trace, limit=item.limit, name=item.name).instance
        else:
            from hybridsched.hybrid_deadline.trace import instance_from_trace

            instance = instance_from_trace(trace, alpha=item.alpha, limit=item.limit,
                                           skip=item.skip, name=item.name).instance
    reference = {**(getattr(instance, "reference", None) or {}), **item.reference,
                 "tier": "real"}
    return replace(instance, name=item.name, reference=reference)


def materialise(recipe: Path, folder: Path) -> list[Path]:
    """Write the instances of ``recipe`` into ``folder`` (made if missing); their paths."""
    real_set = load_real_set(recipe)
    family = get_family(real_set.family)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for item in real_set.instances:
        path = folder / f"{item.name}.json"
        save_instance(path, family, build_instance(item, real_set.family))
        written.append(path)
    return written


def record_reference(recipe: Path, name: str, reference: dict[str, Any]) -> None:
    """Replace the reference block of instance ``name`` in ``recipe`` (atomically)."""
    real_set = load_real_set(recipe)
    items = [item.model_copy(update={"reference": {k: v for k, v in reference.items()
                                                   if k != "tier"}})
             if item.name == name else item for item in real_set.instances]
    write_json(recipe, real_set.model_copy(update={"instances": items}).model_dump(
        exclude_defaults=False))


def _data(relative: str) -> Path:
    path = shared_data_path(relative)
    if path is None or not path.exists():
        raise InputError(f"{relative}: the real data set needs the shared data (set "
                         "HYBRIDSCHED_DATA to the folder holding it); it is never bundled")
    return path
