"""Seeded generators of bot-sites instances in the paper's setup (Section 5.2).

ETC matrices follow the range-based method of Braun et al. (2001) used by the
paper: BoT ``k`` draws a task baseline ``tau_k ~ U[1, R_task]`` and each
site a factor ``U[1, R_site]``; ``etc[k, i] = tau_k * factor``. *Consistent*
matrices have every row sorted (site 0 fastest for every BoT, and, as the
paper defines it, faster sites are more expensive); *inconsistent* ones are
left unsorted with prices drawn independently. Heterogeneity ranges per
scenario are those of Table 5:

========  ============  ===============
scenario  task R_task   resource R_site
========  ============  ===============
HiHi      1000          100
HiLo      1000          10
LoHi      10            100
LoLo      10            10
========  ============  ===============

Tasks per BoT are ``U[10,000; 20,000]`` and processors per site
``U[64; 128]`` by default; each pair of BoTs ``k < l`` gets the edge
``k -> l`` with probability 0.1 (acyclic by construction): "The BoTs are
organized in workflows by having 10 percent dependence probability between
each pair of BoTs and excluding cycles" (Section 5.2). The workflows are
then the DAG's weakly connected components (the checker's fairness is taken
over them). Whether Fig. 7 had these edges at all is a workload reading
(``dependency=0`` gives independent BoTs, each its own workflow): with
edges a BoT behind predecessors cannot finish with the others, which caps
the fairness any schedule reaches.

Choices of ours where the paper is silent:

* Prices: a share ``private_share`` of the sites (30 %) are private (price
  0); the others cost ``U[0.027, 0.08]`` per time unit (the $/unit/hour range
  of Table 1). For consistent matrices, prices are sorted so that faster
  sites are dearer and private sites are the slowest.
* Communication (Table 6, whose text is garbled; we read its ranges as data
  heterogeneity [1; 1000] and storage heterogeneity [1; 100]): the data of
  one task is ``d_ki ~ U[1, 1000]``; its transfer bandwidth is chosen so that
  the transfer takes ``U[0.5, 1.5]`` times the computation, so about half of
  the (BoT, site) pairs are communication-bound (Eq. 2); the site input
  bandwidth is ``tightness * m_i * mean_k(d_ki / p_ki)``, but at least what
  any single task needs on that site (so every instance is feasible: running
  one task at a time always fits).
* Storage: ``sr_k ~ U[1, 100]`` per busy processor and a site limit of
  ``tightness * m_i * mean(sr)``, at least ``max(sr)``.
* Site limits are rounded *up* to 6 significant digits.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.errors import InputError, ParameterError
from hybridsched.io.limits import MAX_TIGHTNESS
from hybridsched.seeding import RNGLike, resolve_seed

Scenario = Literal["HiHi", "HiLo", "LoHi", "LoLo"]

#: (task heterogeneity R_task, resource heterogeneity R_site) of Table 5.
SCENARIOS: dict[str, tuple[float, float]] = {
    "HiHi": (1000.0, 100.0),
    "HiLo": (1000.0, 10.0),
    "LoHi": (10.0, 100.0),
    "LoLo": (10.0, 10.0),
}

#: Price range per time unit of public sites ($/unit/hour of Table 1).
PRICE_RANGE = (0.027, 0.08)


def _range(value: tuple[int, int], option: str) -> tuple[int, int]:
    """``value`` as ``(lo, hi)``; ``option``: the parameter's name or the flag that gave it."""
    lo, hi = int(value[0]), int(value[1])
    if lo < 1 or hi < lo:
        raise ParameterError(option, f"need 1 <= A <= B, got {lo}:{hi}")
    return lo, hi


def parse_range(text: str, option: str) -> tuple[int, int]:
    """Parse ``"A:B"`` (or a single ``"A"``) into an integer range."""
    parts = text.split(":")
    try:
        values = [int(x) for x in parts]
    except ValueError:
        raise InputError(f"{option}: expected A:B with integers, got {text!r}") from None
    if len(values) == 1:
        values = values * 2
    if len(values) != 2:
        raise InputError(f"{option}: expected A:B, got {text!r}")
    return _range((values[0], values[1]), option)


def _round_up(values: np.ndarray, digits: int = 6) -> np.ndarray:
    """Round up to ``digits`` significant digits: never below ``values``.

    Site limits are rounded for readable files; rounding *to nearest* (as
    before) could drop a limit below what one task needs on that site.
    """
    values = np.asarray(values, dtype=float)
    scale = 10.0 ** (digits - 1 - np.floor(np.log10(values)))
    up = np.ceil(values * scale) / scale
    return np.where(up >= values, up, np.nextafter(values, np.inf))


def etc_matrix(rng: np.random.Generator, bots: int, sites: int, scenario: str,
               consistent: bool) -> np.ndarray:
    """Range-based ETC matrix (Braun et al. 2001) for one of the four scenarios."""
    r_task, r_site = SCENARIOS[scenario]
    tau = rng.uniform(1.0, r_task, bots)
    etc = tau[:, None] * rng.uniform(1.0, r_site, (bots, sites))
    if consistent:
        etc = np.sort(etc, axis=1)
    return etc.round(6)


#: Uniform draws held at once while the DAG's edges are drawn (a block of rows).
_EDGE_BLOCK = 1 << 22


def dag_edges(rng: np.random.Generator, bots: int, dependency: float) -> np.ndarray:
    """Edges ``(a, b)``, ``a < b``, each pair of BoTs with probability ``dependency``.

    The same draws as one ``(bots, bots)`` matrix of uniforms read row by row
    (instances of earlier versions stay the same), held a block of rows at a
    time, so memory stays bounded; with ``dependency`` 0 the draws are
    skipped by advancing the generator past them, so independent BoTs cost
    linear time.
    """
    if dependency <= 0 and hasattr(rng.bit_generator, "advance"):
        rng.bit_generator.advance(bots * bots)  # one 64-bit output per uniform double
        return np.zeros((0, 2), dtype=np.int64)
    rows = max(1, _EDGE_BLOCK // max(bots, 1))
    found = []
    for first in range(0, bots, rows):
        block = rng.random((min(rows, bots - first), bots)) < dependency
        a, b = np.nonzero(block)
        a += first
        keep = b > a
        found.append(np.stack((a[keep], b[keep]), axis=1))
    return np.concatenate(found) if found else np.zeros((0, 2), dtype=np.int64)


def generate(*, sites: int = 10, bots: int = 10, tasks_per_bot: tuple[int, int] = (10000, 20000),
             procs_per_site: tuple[int, int] = (64, 128), scenario: str = "HiHi",
             consistent: bool = False, seed: int | None = None, rng: RNGLike = None,
             dependency: float = 0.1, private_share: float = 0.3, communication: bool = False,
             storage: bool = False, hard_limits: bool = False, tightness: float = 0.5,
             name: str | None = None) -> Instance:
    """Generate a seeded instance in the paper's setup (see the module docstring).

    Parameters
    ----------
    sites, bots:
        Number of sites M and BoTs K (>= 1).
    tasks_per_bot, procs_per_site:
        Inclusive integer ranges of the uniform draws.
    scenario:
        ``HiHi``, ``HiLo``, ``LoHi`` or ``LoLo`` (Table 5).
    consistent:
        Consistent (rows sorted, faster = dearer) or inconsistent matrix.
    seed:
        The older name of ``rng`` (an integer seed), kept for existing code;
        give one or the other.
    rng:
        Seed of every draw (see :mod:`hybridsched.seeding`): an integer (>= 0)
        gives the same instance as ``seed`` did; ``None``, seed 0; a
        ``numpy.random.Generator`` is consumed by one draw, the seed that is
        then used, recorded in the instance's name and provenance.
    dependency:
        Probability of an edge between each pair of BoTs (0 for independent).
    private_share:
        Share of free (private) sites.
    communication, storage:
        Add Table 6's data/bandwidth and storage data.
    hard_limits:
        Make bandwidth/storage limits hard constraints.
    tightness:
        Scale of the site limits (smaller is tighter).
    name:
        Instance name (default from the parameters).

    Returns
    -------
    Instance
        The instance; ``provenance["seed"]`` regenerates it.

    Raises
    ------
    ParameterError
        A bad value, naming its parameter (``sites``, ``rng``, ...).
    TypeError
        Both ``rng`` and ``seed`` given.

    Examples
    --------
    >>> inst = generate(sites=3, bots=4, tasks_per_bot=(5, 20), rng=2)
    >>> inst.n_sites, inst.n_bots, inst.provenance["seed"]
    (3, 4, 2)
    """
    for count, what in ((sites, "sites"), (bots, "bots")):
        if count < 1:
            raise ParameterError(what, f"must be >= 1, got {sites} sites and {bots} BoTs")
    if scenario not in SCENARIOS:
        raise ParameterError("scenario", f"must be one of {', '.join(SCENARIOS)}, "
                                         f"got {scenario!r}")
    if not 0 <= dependency <= 1:
        raise ParameterError("dependency", f"must be in [0, 1], got {dependency}")
    if not 0 <= private_share <= 1:
        raise ParameterError("private_share", f"must be in [0, 1], got {private_share}")
    if not 0 < tightness <= MAX_TIGHTNESS:
        raise ParameterError("tightness", f"must be > 0 and <= {MAX_TIGHTNESS:g}, "
                                          f"got {tightness}")
    t_lo, t_hi = _range(tasks_per_bot, "tasks_per_bot")
    p_lo, p_hi = _range(procs_per_site, "procs_per_site")
    seed = resolve_seed(rng, seed)
    rng = np.random.default_rng(seed)
    etc = etc_matrix(rng, bots, sites, scenario, consistent)
    tasks = rng.integers(t_lo, t_hi + 1, bots)
    procs = rng.integers(p_lo, p_hi + 1, sites)
    n_private = int(round(private_share * sites))
    prices = np.concatenate((np.zeros(n_private),
                             rng.uniform(*PRICE_RANGE, sites - n_private))).round(6)
    # Consistent: site 0 is the fastest, so the dearest.
    prices = np.sort(prices)[::-1] if consistent else rng.permutation(prices)
    edges = dag_edges(rng, bots, dependency)
    data = bandwidth = site_bw = sr = sl = None
    if communication:
        data = rng.uniform(1.0, 1000.0, (bots, sites)).round(6)
        bandwidth = (data / (etc * rng.uniform(0.5, 1.5, (bots, sites)))).round(9)
        bandwidth = np.maximum(bandwidth, 1e-9)
        effective = np.maximum(etc, data / bandwidth)
        rate = data / effective
        site_bw = _round_up(np.maximum(tightness * procs * np.mean(rate, axis=0),
                                       rate.max(axis=0) * (1 + 1e-6)))
    if storage:
        sr = rng.uniform(1.0, 100.0, bots).round(6)
        sl = _round_up(np.maximum(tightness * procs * np.mean(sr), sr.max() * (1 + 1e-6)))
    kind = "c" if consistent else "i"
    return Instance(
        name=name or f"gen-{scenario}-{kind}-{sites}s-{bots}b-s{seed}",
        bot_ids=tuple(f"b{k}" for k in range(bots)),
        site_ids=tuple(f"s{i}" for i in range(sites)),
        tasks=tasks,
        procs=procs,
        price=prices,
        compute=etc,
        edges=edges,
        data=data,
        bandwidth=bandwidth,
        site_bandwidth=site_bw,
        storage=sr,
        storage_limit=sl,
        hard_limits=hard_limits,
        provenance={
            "generator": "hybridsched.bot_sites.generator.generate",
            "sites": sites, "bots": bots, "tasks_per_bot": [t_lo, t_hi],
            "procs_per_site": [p_lo, p_hi], "scenario": scenario, "consistent": consistent,
            "seed": seed, "dependency": dependency, "private_share": private_share,
            "communication": communication, "storage": storage, "hard_limits": hard_limits,
            "tightness": tightness,
        },
    )


def table2_inconsistent() -> Instance:
    """The paper's Table 2 example (inconsistent ETC), optimal makespan 23.

    Two sites with 3 and 2 processors, two BoTs of 5 tasks; BoT T1 takes 15
    on S1 and 10 on S2, BoT T2 takes 8 and 9. Prices are not given in the
    paper: both sites are free here.
    """
    return Instance(
        name="gmo-table2-inconsistent",
        bot_ids=("T1", "T2"),
        site_ids=("S1", "S2"),
        tasks=[5, 5],
        procs=[3, 2],
        price=[0.0, 0.0],
        compute=[[15.0, 10.0], [8.0, 9.0]],
        reference={"optimal_makespan": 23.0},
        provenance={"source": "Duan, Prodan and Li (2014), Table 2 (inconsistent)"},
    )


#: Named instances for ``generate bot-sites --preset NAME``.
PRESETS = {"gmo-table2-inconsistent": table2_inconsistent}


def preset(name: str) -> Instance:
    """The preset instance called ``name`` (one-line :class:`InputError` if unknown)."""
    if name not in PRESETS:
        raise ParameterError("preset", f"unknown preset {name!r} (known: {', '.join(PRESETS)})")
    return PRESETS[name]()


def tiny_instance(seed: int) -> Instance:
    """A random tiny instance (deterministic in ``seed``) for cross-checking exact backends.

    At most 6 tasks on at most 3 processors, so both exact backends finish in
    well under a second. About a third of the seeds (``seed % 3 == 2``) are
    awkward: integer times with many ties, times that differ by ``1e-6``
    (the last decimal place), a BoT whose tasks exactly fill the others'
    makespan, a denser DAG, and hard bandwidth/storage limits that one task
    alone exactly meets. Times have at most 6 decimals, so CP-SAT scales
    them exactly; hard limits with bandwidths make the effective times
    non-decimal (CP-SAT then proves bounds on a relaxation, HiGHS on its
    static limit rule, so either may stop at ``feasible``).
    """
    rng = np.random.default_rng([seed, 22])
    awkward = seed % 3 == 2
    K, M = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    tasks = rng.integers(1, 4, K)
    while tasks.sum() > 6:
        tasks[int(np.argmax(tasks))] -= 1
    procs = rng.integers(1, 3, M)
    while procs.sum() > 3:
        procs[int(np.argmax(procs))] -= 1
    if awkward or rng.random() < 0.4:
        etc = rng.integers(1, 5, (K, M)).astype(float)
        if awkward and K > 1:
            etc[1] = etc[0] + rng.choice([0.0, 1e-6, -1e-6]) * (etc[0] > 1)
    else:
        etc = rng.uniform(1, 10, (K, M)).round(rng.choice([1, 3, 6]))
    dependency = 0.6 if awkward else 0.3
    edges = [(a, b) for a in range(K) for b in range(a + 1, K) if rng.random() < dependency]
    price = rng.choice([0.0, 0.5, 1.0, 2.0], M)
    extra: dict = {}
    if awkward and rng.random() < 0.5:
        storage = rng.integers(1, 4, K).astype(float)
        limit = np.full(M, storage.max()) * rng.choice([1.0, 1.5, 2.0], M)
        extra = dict(storage=storage, storage_limit=limit, hard_limits=True)
        if rng.random() < 0.5:
            data = rng.integers(1, 5, (K, M)).astype(float)
            bandwidth = (data / etc).round(3)
            bandwidth = np.where(bandwidth > 0, bandwidth, 0.001)
            rate = data / np.maximum(etc, data / bandwidth)
            extra.update(data=data, bandwidth=bandwidth,
                         site_bandwidth=_round_up(rate.max(axis=0)) * rng.choice([1.0, 2.0], M))
    return Instance(
        name=f"tiny-{seed}",
        bot_ids=tuple(f"b{k}" for k in range(K)),
        site_ids=tuple(f"s{i}" for i in range(M)),
        tasks=tasks, procs=procs, price=price, compute=etc,
        edges=np.array(edges, dtype=int).reshape(-1, 2), **extra,
        provenance={"generator": "hybridsched.bot_sites.generator.tiny_instance",
                    "seed": seed},
    )


def chain_instance(n: int, etc: str = "1", *, dag: bool = False, procs: int = 1,
                   storage: bool = False) -> Instance:
    """``n`` tasks of time ``etc`` on one site whose optimum is known in closed form.

    The site has ``procs`` identical processors and a price of 1 per time
    unit. ``dag=False``: one BoT of ``n`` tasks; ``dag=True``: ``n`` BoTs of one
    task each, chained ``c0 -> c1 -> ... -> c{n-1}``. ``storage=True``: each
    busy processor holds 1 unit of storage and the site holds 1, a hard
    limit, so the tasks run one at a time whatever ``procs``. ``etc`` is a
    decimal text (at most 6 places keep the CP-SAT scaling exact).

    **Optimum.** With ``e`` the decimal ``etc``, the minimum makespan is
    ``n * e`` when the tasks must run one after the other (``procs == 1``,
    ``dag`` or ``storage``) and ``ceil(n / procs) * e`` otherwise (one BoT of
    identical tasks spread evenly); every schedule costs ``n * e``. These are
    the adversarial instances of the checker's tolerance tests (and of a
    certify benchmark): a checker whose per-start tolerance added up along
    the chain accepted schedules shorter than that by about ``n^2 / 2 * 1e-9``
    time units.
    """
    from fractions import Fraction

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"n: must be a positive integer, got {n!r}")
    if isinstance(procs, bool) or not isinstance(procs, int) or procs < 1:
        raise InputError(f"procs: must be a positive integer, got {procs!r}")
    time = float(Fraction(etc))
    if not time > 0:
        raise InputError(f"etc: must be > 0, got {etc!r}")
    bots = n if dag else 1
    extra: dict = {}
    if storage:
        extra = dict(storage=np.ones(bots), storage_limit=[1.0], hard_limits=True)
    serial = procs == 1 or dag or storage
    optimum = Fraction(etc) * (n if serial else -(-n // procs))
    return Instance(
        name=f"chain-{n}-{etc}" + ("-dag" if dag else "") + (f"-{procs}p" if procs > 1 else "")
        + ("-storage" if storage else ""),
        bot_ids=tuple(f"c{k}" for k in range(bots)),
        site_ids=("s",),
        tasks=np.full(bots, 1 if dag else n),
        procs=[procs],
        price=[1.0],
        compute=np.full((bots, 1), time),
        edges=np.array([(k, k + 1) for k in range(bots - 1)], dtype=int).reshape(-1, 2),
        reference={"optimal_makespan": float(optimum)},
        provenance={"generator": "hybridsched.bot_sites.generator.chain_instance", "n": n,
                    "etc": etc, "dag": dag, "procs": procs, "storage": storage,
                    "optimal_makespan": str(optimum)},
        **extra,
    )
