"""Conversion between bot-sites JSON documents and domain objects."""

from __future__ import annotations

from typing import Any

import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.bot_sites.schema import InstanceDoc, ReferenceDoc, SolutionDoc
from hybridsched.bot_sites.solution import Solution
from hybridsched.errors import InputError
from hybridsched.io.documents import compact_number, first_duplicate
from hybridsched.io.jsonio import parse_model


def _row(value: Any, site_ids: list[str], where: str) -> list[float]:
    """A per-site row given as a list (site order) or an object keyed by site id."""
    if isinstance(value, dict):
        unknown = [s for s in value if s not in site_ids]
        if unknown:
            raise InputError(f"{where}: unknown site {unknown[0]!r}")
        missing = [s for s in site_ids if s not in value]
        if missing:
            raise InputError(f"{where}: no value for site {missing[0]!r}")
        return [float(value[s]) for s in site_ids]
    if len(value) != len(site_ids):
        raise InputError(f"{where}: ragged row: {len(value)} values for {len(site_ids)} sites")
    return [float(v) for v in value]


def _optional_all(values: list[Any], what: str, source: str) -> bool:
    """True when every entry is given, False when none is; error when mixed."""
    given = [v is not None for v in values]
    if any(given) and not all(given):
        missing = given.index(False)
        raise InputError(f"{source}: field {what.format(missing)}: missing "
                         "(give it for all or for none)")
    return bool(given) and all(given)


def instance_from_dict(document: Any, source: str = "<instance>") -> Instance:
    """Validate an instance document and build the frozen :class:`Instance`.

    Raises
    ------
    InputError
        One line naming ``source`` and the field path: schema errors,
        duplicate ids, unknown sites or BoTs, ragged rows, cyclic DAGs.
    """
    import networkx as nx  # only when an instance is read (keeps start-up light)

    doc = parse_model(InstanceDoc, document, source)
    site_ids = [s.id for s in doc.sites]
    bot_ids = [b.id for b in doc.bots]
    for what, ids in (("sites", site_ids), ("bots", bot_ids)):
        dup = first_duplicate(ids)
        if dup is not None:
            raise InputError(f"{source}: field {what}: duplicate id {dup!r}")
    compute = [_row(b.etc, site_ids, f"{source}: field bots.{k}.etc")
               for k, b in enumerate(doc.bots)]
    data = bandwidth = None
    if _optional_all([b.data for b in doc.bots], "bots.{}.data", source):
        data = [_row(b.data, site_ids, f"{source}: field bots.{k}.data")
                for k, b in enumerate(doc.bots)]
    if _optional_all([b.bandwidth for b in doc.bots], "bots.{}.bandwidth", source):
        bandwidth = [_row(b.bandwidth, site_ids, f"{source}: field bots.{k}.bandwidth")
                     for k, b in enumerate(doc.bots)]
    if (data is None) != (bandwidth is None):
        raise InputError(f"{source}: field bots: 'data' and 'bandwidth' go together")
    storage = ([b.storage for b in doc.bots]
               if _optional_all([b.storage for b in doc.bots], "bots.{}.storage", source)
               else None)
    site_bw = ([s.bandwidth for s in doc.sites]
               if _optional_all([s.bandwidth for s in doc.sites], "sites.{}.bandwidth", source)
               else None)
    site_st = ([s.storage for s in doc.sites]
               if _optional_all([s.storage for s in doc.sites], "sites.{}.storage", source)
               else None)
    if site_bw is not None and data is None:
        raise InputError(f"{source}: field sites.0.bandwidth: site bandwidth needs per-BoT "
                         "'data' and 'bandwidth'")
    if site_st is not None and storage is None:
        raise InputError(f"{source}: field sites.0.storage: site storage needs per-BoT "
                         "'storage'")
    index = {b: k for k, b in enumerate(bot_ids)}
    edges: list[tuple[int, int]] = []
    for e, (a, b) in enumerate(doc.edges):
        for pos, name in ((0, a), (1, b)):
            if name not in index:
                raise InputError(f"{source}: field edges.{e}.{pos}: unknown BoT {name!r}")
        if (index[a], index[b]) not in edges:
            edges.append((index[a], index[b]))
    graph = nx.DiGraph(edges)
    graph.add_nodes_from(range(len(bot_ids)))
    if not nx.is_directed_acyclic_graph(graph):
        cycle = [bot_ids[u] for u, _ in nx.find_cycle(graph)]
        raise InputError(f"{source}: field edges: cyclic dependencies "
                         f"{' -> '.join(cycle + cycle[:1])}")
    return Instance(
        name=doc.name,
        bot_ids=tuple(bot_ids),
        site_ids=tuple(site_ids),
        tasks=np.array([b.tasks for b in doc.bots], dtype=np.int64),
        procs=np.array([s.procs for s in doc.sites], dtype=np.int64),
        price=np.array([s.price for s in doc.sites], dtype=float),
        compute=np.array(compute, dtype=float).reshape(len(bot_ids), len(site_ids)),
        edges=np.array(edges, dtype=np.int64).reshape(-1, 2),
        data=None if data is None else np.array(data),
        bandwidth=None if bandwidth is None else np.array(bandwidth),
        site_bandwidth=None if site_bw is None else np.array(site_bw),
        storage=None if storage is None else np.array(storage),
        storage_limit=None if site_st is None else np.array(site_st),
        hard_limits=doc.hard_limits,
        reference=doc.reference.model_dump(exclude_none=True) if doc.reference else None,
        provenance=dict(doc.provenance),
    )


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """Serialise an instance (rows as lists in site order)."""
    sites = []
    for i, sid in enumerate(instance.site_ids):
        site: dict[str, Any] = {"id": sid, "procs": int(instance.procs[i]),
                                "price": compact_number(instance.price[i])}
        if instance.site_bandwidth is not None:
            site["bandwidth"] = compact_number(instance.site_bandwidth[i])
        if instance.storage_limit is not None:
            site["storage"] = compact_number(instance.storage_limit[i])
        sites.append(site)
    bots = []
    for k, bid in enumerate(instance.bot_ids):
        bot: dict[str, Any] = {"id": bid, "tasks": int(instance.tasks[k]),
                               "etc": [compact_number(v) for v in instance.compute[k]]}
        if instance.data is not None and instance.bandwidth is not None:
            bot["data"] = [compact_number(v) for v in instance.data[k]]
            bot["bandwidth"] = [compact_number(v) for v in instance.bandwidth[k]]
        if instance.storage is not None:
            bot["storage"] = compact_number(instance.storage[k])
        bots.append(bot)
    doc = InstanceDoc(
        name=instance.name,
        sites=sites,
        bots=bots,
        edges=[(instance.bot_ids[a], instance.bot_ids[b]) for a, b in instance.edges],
        hard_limits=instance.hard_limits,
        reference=ReferenceDoc(**instance.reference) if instance.reference else None,
        provenance=instance.provenance,
    )
    return doc.model_dump(mode="json", exclude_none=True)


def solution_from_dict(document: Any, instance: Instance, source: str = "<solution>"
                       ) -> Solution:
    """Validate a solution document against ``instance``'s identifiers.

    Unknown BoT or site ids, and block counts larger than their BoT's number
    of tasks (which no schedule of this instance can have, and which could not
    be summed safely), raise :class:`InputError`; scheduling problems (missing
    tasks, processors that do not exist, overlaps, precedence) are left to the
    checker. The summary the file states (``makespan``, ``cost``) is kept on
    the solution for the checker to compare with the recomputed values;
    ``objective`` is not checked (it is the makespan or the cost depending on
    the objective the method optimised).
    """
    doc = parse_model(SolutionDoc, document, source)
    bot_index = {b: k for k, b in enumerate(instance.bot_ids)}
    site_index = {s: i for i, s in enumerate(instance.site_ids)}
    n = len(doc.blocks)
    arrays = {name: np.zeros(n, dtype=np.int64) for name in ("bot", "site", "proc", "count")}
    start = np.zeros(n)
    for b, block in enumerate(doc.blocks):
        if block.bot not in bot_index:
            raise InputError(f"{source}: field blocks.{b}.bot: unknown BoT {block.bot!r}")
        if block.site not in site_index:
            raise InputError(f"{source}: field blocks.{b}.site: unknown site {block.site!r}")
        k = bot_index[block.bot]
        if block.count > int(instance.tasks[k]):
            raise InputError(f"{source}: field blocks.{b}.count: {block.count} is more than the "
                             f"{int(instance.tasks[k])} tasks of BoT {block.bot!r}")
        arrays["bot"][b] = k
        arrays["site"][b] = site_index[block.site]
        arrays["proc"][b] = block.processor
        arrays["count"][b] = block.count
        start[b] = block.start
    return Solution(arrays["bot"], arrays["site"], arrays["proc"], arrays["count"], start,
                    reported_makespan=doc.makespan, reported_cost=doc.cost)


def solution_to_dict(solution: Solution, instance: Instance, **summary: Any) -> dict[str, Any]:
    """Serialise a solution; ``summary`` (method, status, ...) is stored alongside."""
    from hybridsched.bot_sites.checker import evaluate

    evaluation = evaluate(instance, solution)
    order = np.lexsort((solution.start, solution.proc, solution.site))
    return {
        "format": "hybridsched-solution",
        "version": 1,
        "family": "bot-sites",
        "instance": instance.name,
        **summary,
        "makespan": evaluation.objective,
        "cost": evaluation.metrics["cost"],
        "blocks": [
            {
                "bot": instance.bot_ids[int(solution.bot[b])],
                "site": instance.site_ids[int(solution.site[b])],
                "processor": int(solution.proc[b]),
                "count": int(solution.count[b]),
                "start": float(solution.start[b]),
            }
            for b in order
        ],
    }
