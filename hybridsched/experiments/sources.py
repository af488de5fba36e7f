"""Where a campaign run's instance comes from: a file, a generator call or an importer.

A Dask worker receives an :class:`InstanceSource` (a few strings and numbers)
and loads the instance itself, so large instances are never pickled. A
source holds its generator's or importer's options validated and canonical
(:mod:`~hybridsched.experiments.source_options`), so that two spellings of
the same instance have the same :meth:`InstanceSource.identity`; a file's
identity is its content's SHA-256 (:mod:`~hybridsched.experiments.file_cache`).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from hybridsched.catalogue import get_family
from hybridsched.errors import InputError
from hybridsched.experiments.file_cache import sha256_file, swf_trace
from hybridsched.experiments.source_options import (
    GENERATOR_FAMILIES,
    IMPORTERS,
    MAX_INT,
    BotSitesOptions,
    FtaOptions,
    GangOptions,
    HybridDeadlineOptions,
    MalleableOptions,
    OptionError,
    PullOptions,
    SwfOptions,
    canonical_options,
    generator_model,
    option_text,
    parse_generator,
    parse_importer,
    platform_file,
)
from hybridsched.family import Family

# --------------------------------------------------------------------------- instance names


def _hybrid_deadline_name(o: HybridDeadlineOptions, seed: int | None) -> str:
    extras = "".join([f"-pms{o.pms}" if o.pms is not None else "",
                      f"-ls{o.local_share:g}" if o.local_share != 0.5 else ""])
    return f"hd-t{o.tasks}-a{o.alpha}{extras}-s{seed}"


#: Short tags of the bot-sites options outside the base name, shown when not the default.
_BOT_TAGS = {"tasks_per_bot": "tpb", "procs_per_site": "pps", "dependency": "dep",
             "private_share": "priv", "communication": "comm", "storage": "stor",
             "hard_limits": "hard", "tightness": "tight"}


def _bot_sites_name(o: BotSitesOptions, seed: int | None) -> str:
    defaults = BotSitesOptions()
    extras = ""
    for option, tag in _BOT_TAGS.items():
        value = getattr(o, option)
        if value == getattr(defaults, option):
            continue
        if isinstance(value, bool):
            extras += f"-{tag}"
        else:
            extras += f"-{tag}{value:g}" if isinstance(value, float) else f"-{tag}{value}"
    kind = "c" if o.consistent else "i"
    return f"bs-{o.scenario}-{kind}-{o.sites}s-{o.bots}b{extras}-s{seed}"


def _generate_malleable(o: MalleableOptions, seed: int) -> Any:
    from hybridsched.malleable.generator import generate

    name = f"malleable-{o.mix}-{o.jobs}" + (f"-f{o.serial_fraction:g}" if o.serial_fraction
                                            else "")
    if o.tree is None:
        return generate(o.jobs, o.mix, seed, serial_fraction=o.serial_fraction,
                        name=f"{name}-s{seed}")
    platform = platform_file(o.tree)
    return generate(o.jobs, o.mix, seed, resources=platform.resources, tree=platform.tree,
                    serial_fraction=o.serial_fraction, name=f"{name}-{platform.name}-s{seed}")


def _swf_name(path: str, o: SwfOptions) -> str:
    stem = Path(path).name.removesuffix(".gz").removesuffix(".swf")
    extras = "".join([f"-{o.grouping}" if o.grouping != "task" else "",
                      f"-w{o.window_s:g}" if o.grouping == "window" else "",
                      f"-k{o.skip}" if o.skip else "",
                      f"-l{o.limit}" if o.limit is not None else "",
                      f"-d{o.days:g}" if o.days is not None else "",
                      f"-pms{o.pms}" if o.pms is not None else ""])
    return f"{stem}-a{o.alpha:g}{extras}"


# --------------------------------------------------------------------------- the source


@dataclass(frozen=True)
class InstanceSource:
    """A small, picklable description of one instance; workers load it themselves.

    Attributes
    ----------
    kind:
        ``"file"`` (a hybridsched JSON instance), ``"generator"`` or ``"import"``.
    family:
        Family of the instance.
    path:
        Absolute path of the file (kinds ``"file"`` and ``"import"``).
    importer:
        ``"etc"`` or ``"swf"`` (kind ``"import"``).
    options:
        Generator or importer options as given, validated and canonical,
        sorted by name.
    seed:
        Generator seed (kind ``"generator"``; ``None`` for a preset).
    """

    kind: Literal["file", "generator", "import"]
    family: str
    path: str | None = None
    importer: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    seed: int | None = None

    def load(self) -> tuple[Family, Any]:
        """The family and the frozen instance (:class:`InputError` naming the file/option)."""
        if self.kind == "file":
            from hybridsched.storage import load_instance

            family, instance = load_instance(self._path())
            if family.name != self.family:
                raise InputError(f"{self.path}: field family: {family.name!r}, expected "
                                 f"{self.family!r} (the file changed?)")
            return family, instance
        try:
            if self.kind == "generator":
                return get_family(self.family), self._generate()
            if self.kind == "import":
                return get_family(self.family), self._import()
        except OptionError as exc:
            what = (f"generator {self.family}" if self.kind == "generator"
                    else f"{self.path} ({self.importer})")
            raise InputError(f"{what}: option {exc}") from None
        raise InputError(f"unknown instance source kind {self.kind!r}")

    def identity(self) -> str:
        """Canonical JSON of what determines the instance's content (never its path)."""
        if self.kind == "generator":
            parsed = parse_generator(self.family, dict(self.options))
            what: dict[str, Any] = {"options": parsed.model_dump(), "seed": self.seed}
            if isinstance(parsed, MalleableOptions) and parsed.tree is not None:
                # The platform's content, not where it lies, makes the instance.
                what["options"]["tree"] = f"sha256:{sha256_file(parsed.tree)}"
        else:
            options = (parse_importer(self.importer, dict(self.options)).model_dump()
                       if self.kind == "import" and self.importer is not None else {})
            what = {"sha256": sha256_file(self._path()), "importer": self.importer,
                    "options": options}
        what |= {"kind": self.kind, "family": self.family}
        return json.dumps(what, sort_keys=True, separators=(",", ":"), allow_nan=False)

    def label(self) -> str:
        """Short human text: a file name, ``"u_c_hihi.0 (etc)"``, or the generator call."""
        if self.kind == "generator":
            order = list(generator_model(self.family).model_fields)
            given = sorted(self.options, key=lambda item: order.index(item[0]))
            words = [f"{key}={option_text(value)}" for key, value in given]
            seed = [] if self.seed is None else [f"seed={self.seed}"]
            return " ".join([self.family, *words, *seed])
        name = Path(self.path or "?").name
        if self.kind == "import":
            words = [f"{key}={option_text(value)}" for key, value in self.options]
            return f"{name} ({' '.join([str(self.importer), *words])})"
        return name

    def _path(self) -> str:
        if self.path is None:
            raise InputError(f"{self.kind} source of family {self.family!r} without a path")
        return self.path

    def _generate(self) -> Any:
        parsed = parse_generator(self.family, dict(self.options))
        if isinstance(parsed, BotSitesOptions):
            from hybridsched.bot_sites import generator

            if parsed.preset is not None:
                return generator.preset(parsed.preset)
            kwargs = parsed.model_dump(exclude={"preset"})
            for option in ("tasks_per_bot", "procs_per_site"):
                kwargs[option] = generator.parse_range(kwargs[option], option)
            return generator.generate(**kwargs, seed=self._seed(),
                                      name=_bot_sites_name(parsed, self.seed))
        if isinstance(parsed, MalleableOptions):
            return _generate_malleable(parsed, self._seed())
        if isinstance(parsed, GangOptions):
            from hybridsched.gang.generator import generate as generate_gang

            return generate_gang(parsed.jobs, parsed.rate, parsed.scenario, self._seed(),
                                 vms=parsed.vms, instructions=parsed.instructions,
                                 arrivals=parsed.arrivals, integers=parsed.integers)
        if isinstance(parsed, PullOptions):
            from hybridsched.pull.generator import generate as generate_pull
            from hybridsched.pull.schema import parse_dcis

            return generate_pull(parsed.units, parse_dcis(parsed.dci), self._seed(),
                                 capacity=parsed.capacity,
                                 behaviour=parsed.behaviour)
        from hybridsched.hybrid_deadline.generator import generate

        assert isinstance(parsed, HybridDeadlineOptions)
        return generate(parsed.tasks, parsed.alpha, self._seed(), pms=parsed.pms,
                        local_share=parsed.local_share,
                        name=_hybrid_deadline_name(parsed, self.seed))

    def _seed(self) -> int:
        if self.seed is None:
            raise InputError(f"generator {self.family}: a seed is needed")
        return self.seed

    def _import(self) -> Any:
        parsed = parse_importer(str(self.importer), dict(self.options))
        if isinstance(parsed, SwfOptions):
            from hybridsched.hybrid_deadline.trace import instance_from_trace

            trace = swf_trace(self._path())
            return instance_from_trace(trace, alpha=parsed.alpha, grouping=parsed.grouping,
                                       window_s=parsed.window_s, limit=parsed.limit,
                                       pms=parsed.pms, skip=parsed.skip, days=parsed.days,
                                       name=_swf_name(self._path(), parsed)).instance
        if isinstance(parsed, FtaOptions):
            from hybridsched.pull.traces import instance_from_traces

            stem = Path(self._path()).name.removesuffix(".gz")
            return instance_from_traces(
                [(self._path(), parsed.dci)], units=parsed.units, seed=parsed.seed,
                capacity=parsed.capacity, offset=parsed.offset, behaviour=parsed.behaviour,
                name=f"{stem}-{parsed.dci}-{parsed.units}-s{parsed.seed}-o{parsed.offset:g}")
        from hybridsched.io.etc import read_etc

        return read_etc(self._path())



def generator_source(family: str, options: Mapping[str, Any], seed: int | None
                     ) -> InstanceSource:
    """A validated generator source (a preset ignores ``seed``: it becomes ``None``)."""
    parsed = parse_generator(family, options)
    if isinstance(parsed, BotSitesOptions) and parsed.preset is not None:
        seed = None
    elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_INT:
        raise OptionError("seed", f"must be an integer in [0, 2**63 - 1], got {seed!r}")
    return InstanceSource("generator", GENERATOR_FAMILIES[family],
                          options=canonical_options(parsed), seed=seed)


def import_source(importer: str, path: str | Path, options: Mapping[str, Any] | None = None
                  ) -> InstanceSource:
    """A validated importer source for ``path`` (which must be a file; it is not read)."""
    parsed = parse_importer(importer, options or {})
    absolute = _absolute(path)
    if not os.path.isfile(absolute):
        raise InputError(f"{path}: no such file")
    return InstanceSource("import", IMPORTERS[importer], path=absolute, importer=importer,
                          options=canonical_options(parsed))


def file_source(path: str | Path) -> InstanceSource:
    """The source of a hybridsched JSON instance file, validated by loading it once."""
    from hybridsched.storage import load_instance

    family, _ = load_instance(path)
    return InstanceSource("file", family.name, path=_absolute(path))


def _absolute(path: str | Path) -> str:
    return os.path.abspath(os.path.expanduser(os.fspath(path)))


@functools.lru_cache(maxsize=8)
def load_cached(source: InstanceSource) -> tuple[Family, Any]:
    """:meth:`InstanceSource.load`, remembered for the last few sources of this process.

    A worker usually runs several methods on one instance in a row; instances
    are frozen, so sharing them is safe.
    """
    return source.load()
