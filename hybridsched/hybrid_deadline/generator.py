"""Seeded generator of hybrid-deadline instances in the paper's setup.

Setup of Wang et al. (2016), Section 4.1: run times are those of 1 GHz cores;
the deadline of a task is ``alpha`` times its run time on a 2 GHz core, with
``alpha`` in {1, 2, 3, 4}; the public cloud offers EC2 c3.large.

Choices of ours where the paper is silent:

* Synthetic work (GHz-hours) is log-normal with median 1.5 and shape 0.9,
  clipped to [0.1, 12], so tasks are comparable with the one-hour billing
  unit and packing matters.
* Tasks are grouped into jobs of 1 to 4 tasks; a job's deadline is ``alpha``
  times the run time of its longest task on a 2 GHz core, so each task is
  feasible alone on such a core. ``alpha="mixed"`` draws ``alpha`` per job.
* Local pool: by default PMs are taken from the 15-PM mix, smallest first
  (seeded order among equals), while their capacity over the median deadline
  stays below ``local_share`` of the total work (at least one PM). The pool
  then covers only part of the work, so optimal solutions rent VMs. ``pms``
  overrides the count (the first ``pms`` PMs of that order).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from hybridsched.errors import InputError, ParameterError
from hybridsched.hybrid_deadline.default_platform import C3_LARGE, default_pms
from hybridsched.hybrid_deadline.instance import PM, Instance, VMType
from hybridsched.io.documents import MAX_TASKS
from hybridsched.seeding import RNGLike, resolve_seed

Alpha = int | Literal["mixed"]
ALPHAS = (1, 2, 3, 4)


def deadline_for(work: np.ndarray | float, alpha: float) -> np.ndarray | float:
    """The paper's deadline: ``alpha`` times the run time on a 2 GHz core."""
    return alpha * np.asarray(work) / 2.0


def longest_in_job(work: np.ndarray, job_of: np.ndarray) -> np.ndarray:
    """Per task, the work of the longest task of its job (``job_of``: job index per task)."""
    longest = np.zeros(int(job_of.max()) + 1 if len(job_of) else 0)
    np.maximum.at(longest, job_of, work)
    return longest[job_of]


def sized_local_pool(work: np.ndarray, deadline: np.ndarray, rng: np.random.Generator,
                     local_share: float, pms: int | None) -> tuple[PM, ...]:
    """PMs of the default mix, smallest first, covering about ``local_share`` of the work."""
    pool = list(default_pms())
    order = sorted(range(len(pool)), key=lambda k: (pool[k].cores * pool[k].capacity,
                                                    rng.random()))
    ranked = [pool[k] for k in order]
    if pms is not None:
        if not 0 <= pms <= len(ranked):
            raise ParameterError("pms", f"must be between 0 and {len(ranked)}, got {pms}")
        return tuple(ranked[:pms])
    horizon = float(np.median(deadline)) if len(deadline) else 0.0
    target = local_share * float(work.sum())
    chosen = [ranked[0]]
    capacity = ranked[0].cores * ranked[0].capacity * horizon
    for pm in ranked[1:]:
        extra = pm.cores * pm.capacity * horizon
        if capacity + extra > target:
            break
        chosen.append(pm)
        capacity += extra
    return tuple(chosen)


def job_sizes(rng: np.random.Generator, n_tasks: int) -> np.ndarray:
    """Jobs of 1-4 tasks (uniform) until ``n_tasks`` are drawn, the last one cut to fit.

    The same draws, in the same order, as one ``integers(1, 5)`` call per job
    (instances of earlier versions stay the same), in linear time: the sizes
    are drawn ahead on a copy of the generator's state, then exactly as many
    from the generator itself.
    """
    if n_tasks == 0:
        return np.zeros(0, dtype=np.int64)
    state = rng.bit_generator.state
    ahead = np.cumsum(rng.integers(1, 5, size=n_tasks))  # every job has a task at least
    jobs = int(np.searchsorted(ahead, n_tasks)) + 1
    rng.bit_generator.state = state
    sizes = rng.integers(1, 5, size=jobs)
    sizes[-1] -= int(sizes.sum()) - n_tasks
    return sizes


def generate(
    n_tasks: int,
    alpha: Alpha = "mixed",
    seed: int | None = None,
    *,
    rng: RNGLike = None,
    pms: int | None = None,
    local_share: float = 0.5,
    name: str | None = None,
) -> Instance:
    """Generate a seeded instance.

    Parameters
    ----------
    n_tasks : int
        Number of tasks (0 to :data:`~hybridsched.io.documents.MAX_TASKS`).
    alpha : {1, 2, 3, 4, "mixed"}
        Deadline factor, or ``"mixed"`` (drawn per job).
    seed : int, optional
        The older name of ``rng`` (an integer seed), kept for existing code;
        give one or the other.
    rng : int, numpy.random.Generator or None
        Seed of every random draw (see :mod:`hybridsched.seeding`): an
        integer (>= 0) gives the same instance as ``seed`` did; ``None``,
        seed 0; a generator is consumed by one draw, the seed that is then
        used, recorded in the instance's name and provenance.
    pms : int, optional
        Number of local PMs (default: sized by ``local_share``).
    local_share : float
        Target share of the work the local pool can cover by the median deadline.
    name : str, optional
        Instance name (default from the parameters).

    Returns
    -------
    Instance
        The instance; ``provenance["seed"]`` regenerates it.

    Raises
    ------
    ParameterError
        A bad value, naming its parameter (``n_tasks``, ``rng``, ...).
    TypeError
        Both ``rng`` and ``seed`` given.

    Examples
    --------
    >>> import numpy as np
    >>> inst = generate(20, 2, rng=7)
    >>> inst.n_tasks, inst.provenance["seed"]
    (20, 7)
    >>> generate(20, 2, seed=7).work.tolist() == inst.work.tolist()
    True
    >>> drawn = generate(20, rng=np.random.default_rng(1)).provenance["seed"]
    >>> generate(20, rng=drawn).name == f"gen-20t-amixed-s{drawn}"
    True
    """
    if not 0 <= n_tasks <= MAX_TASKS:
        raise ParameterError("n_tasks", f"must be between 0 and {MAX_TASKS}, got {n_tasks}")
    if alpha != "mixed" and alpha not in ALPHAS:
        raise ParameterError("alpha", f"must be one of 1, 2, 3, 4 or 'mixed', got {alpha!r}")
    if not 0 < local_share <= 1:
        raise ParameterError("local_share", f"must be in (0, 1], got {local_share}")
    seed = resolve_seed(rng, seed)
    rng = np.random.default_rng(seed)
    work = np.clip(rng.lognormal(np.log(1.5), 0.9, n_tasks), 0.1, 12.0).round(4)
    sizes = job_sizes(rng, n_tasks)
    alphas = (rng.choice(ALPHAS, len(sizes)) if alpha == "mixed"
              else np.full(len(sizes), alpha))
    job_of = np.repeat(np.arange(len(sizes)), sizes)
    deadline = np.asarray(deadline_for(longest_in_job(work, job_of), alphas[job_of]), float)
    local = sized_local_pool(work, deadline, rng, local_share, pms)
    return Instance(
        name=name or f"gen-{n_tasks}t-a{alpha}-s{seed}",
        task_ids=tuple(f"t{i}" for i in range(n_tasks)),
        task_job=tuple(f"j{j}" for j in job_of),
        work=work,
        deadline=deadline,
        pms=local,
        vm_types=(C3_LARGE,),
        provenance={
            "generator": "hybridsched.hybrid_deadline.generator.generate",
            "n_tasks": n_tasks,
            "alpha": alpha,
            "seed": seed,
            "pms": pms,
            "local_share": local_share,
        },
    )


#: Capacities, prices and core counts :func:`tiny_instance` draws from.
_TINY_CAPACITIES = (1.0, 1.5, 2.0, 2.7)
_TINY_PRICES = (0.1, 0.105, 0.2)


def tiny_instance(seed: int) -> Instance:
    """A random tiny instance (1-6 tasks), deterministic in ``seed``, for cross-checks.

    Both exact backends solve it to optimality in milliseconds (a brute force
    too). About a third of the seeds (``seed % 3 == 2``) are awkward, in turn:

    * works near simple fractions of an hour, nudged by 5e-10 or 2e-9 h
      (inside and outside the checker's 1e-9 h tolerance);
    * loads that exactly fill a PM core by a deadline, or a VM's whole hour;
    * ties: equal works and deadlines, and two VM types with the same price
      per GHz-hour;
    * a tight ``max_vms`` (0 or 1), which may make the instance infeasible.
    """
    if isinstance(seed, bool) or not hasattr(seed, "__index__") or seed < 0:
        raise InputError(f"seed: must be a non-negative integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    pms = tuple(PM(f"pm{k}", int(rng.integers(1, 3)), float(rng.choice(_TINY_CAPACITIES)))
                for k in range(int(rng.integers(0, 3))))
    types = tuple(VMType(f"vm{k}", int(rng.integers(1, 3)), float(rng.choice(_TINY_CAPACITIES)),
                         float(rng.choice(_TINY_PRICES)))
                  for k in range(int(rng.integers(1, 3))))
    work = np.round(np.clip(rng.lognormal(np.log(0.8), 0.7, n), 0.05, 3.0), 2)
    deadline = np.round(work / 2.0 * rng.choice(ALPHAS, n), 4)
    max_vms: int | None = None
    kind = (seed // 3) % 4 if seed % 3 == 2 else None
    if kind == 0:  # near the tolerance
        work = (rng.choice([0.25, 0.5, 0.75, 1.0], n)
                + rng.choice([0.0, 5e-10, -5e-10, 2e-9, -2e-9], n))
        deadline = rng.choice([0.5, 1.0, 1.5, 2.0], n).astype(float)
        pms = (PM("pm0", 1, 1.0),) + pms[:1]
    elif kind == 1:  # exact fits: a pair fills a 2 GHz core by its deadline, or a VM's hour
        pms = (PM("pm0", 1, 2.0),)
        types = (VMType("vm0", 1, 2.0, 0.105),)
        work = np.round(rng.choice([0.4, 0.6, 1.0, 1.4, 1.6], n), 2)
        deadline = np.full(n, 1.0)
    elif kind == 2:  # ties
        work = np.full(n, float(rng.choice([0.5, 0.9, 1.35])))
        deadline = np.full(n, float(rng.choice([0.5, 1.0, 2.0])))
        types = (VMType("vm0", 1, 1.0, 0.1), VMType("vm1", 2, 1.0, 0.2))
    elif kind == 3:  # tight VM limit
        max_vms = int(rng.integers(0, 2))
    return Instance(
        name=f"tiny-{seed}",
        task_ids=tuple(f"t{i}" for i in range(n)),
        task_job=tuple(f"j{i}" for i in range(n)),
        work=np.asarray(work, dtype=float),
        deadline=np.maximum(np.asarray(deadline, dtype=float), 0.01),
        pms=pms,
        vm_types=types,
        max_vms=max_vms,
        provenance={"generator": "hybridsched.hybrid_deadline.generator.tiny_instance",
                    "seed": seed},
    )


def chain_instance(n: int, excess: str = "0") -> Instance:
    """``n`` equal tasks that together fill one PM core exactly to the tolerance, plus ``excess``.

    One PM with one 1 GHz core, a 1-core 1 GHz VM type at $1/h, deadlines of
    1 h; each task's work is the decimal ``(1 h + TIME_TOL + excess) / n``
    rounded up to 12 places (``excess``: a decimal text, e.g. ``"1e-12"`` or
    ``"-1e-12"``; 12 places keep the data exact for the CP-SAT model). The
    optimum is $0 when the works add up to at most ``1 + TIME_TOL`` GHz-hours
    exactly (all on the PM core), else $1 (one task on one VM-hour); it is
    recorded in the instance's reference block. These are the adversarial
    instances of the certify benchmark: a checker whose tolerance added up
    along the core would accept a $0 schedule above that line.
    """
    from fractions import Fraction

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"n: must be a positive integer, got {n!r}")
    total = Fraction(1) + Fraction(1, 10**9) + Fraction(excess)
    work = -(-total * 10**12 // n) / Fraction(10**12)  # ceiling to 12 places
    optimum = 0.0 if n * work <= Fraction(1) + Fraction(1, 10**9) else 1.0
    return Instance(name=f"chain-{n}-{excess}", task_ids=tuple(f"t{i}" for i in range(n)),
                    task_job=tuple(f"t{i}" for i in range(n)),
                    work=np.full(n, float(work)), deadline=np.full(n, 1.0),
                    pms=(PM("pm0", 1, 1.0),), vm_types=(VMType("vm", 1, 1.0, 1.0),),
                    reference={"optimal_cost": optimum})
