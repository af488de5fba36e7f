"""``random-site``, a heuristic for the built-in ``bot-sites`` family.

A method is a callable taking the instance and the keywords ``seed`` and
``time_limit`` (plus its own options, with defaults) and returning a solution
of the family. :func:`check_options` refuses a bad option before anything runs
(one line, exit 2). Registered by :mod:`hybridsched_example.bot_sites.methods`.
"""

from __future__ import annotations

from typing import Any

from hybridsched.errors import InputError, MethodFailedError

#: Processors drawn per task when the ``tries`` option is not given.
DEFAULT_TRIES = 2


def check_options(options: dict[str, Any]) -> None:
    """Refuse a bad ``tries`` before anything runs (one line, as every option error)."""
    tries = options.get("tries", DEFAULT_TRIES)
    if isinstance(tries, bool) or not isinstance(tries, int) or tries < 1:
        raise InputError(f"option --tries: must be an integer >= 1, got {tries!r}")


def random_site(instance: Any, *, seed: int | None = None, time_limit: float | None = None,
                tries: int = DEFAULT_TRIES) -> Any:
    """Place the tasks BoT by BoT (DAG order), each on the best of ``tries`` random processors.

    ``tries=1`` is a purely random placement; larger values approach the
    greedy minimum completion time. The same ``seed`` gives the same schedule.
    Fast enough to ignore ``time_limit``.

    Raises
    ------
    MethodFailedError
        When the instance has hard bandwidth or storage limits and the
        schedule breaks one (the method does not look at them).
    """
    import random

    # Imported when the method runs, so that listing methods stays fast (numpy).
    from hybridsched.bot_sites.checker import check
    from hybridsched.bot_sites.solution import from_task_assignments

    rng = random.Random(seed)
    site_of = instance.proc_site.tolist()
    processors = range(instance.n_procs)
    free = [0.0] * instance.n_procs           # when each processor is next free
    finish = [0.0] * instance.n_bots          # when each BoT's last task ends
    bots: list[int] = []
    procs: list[int] = []
    starts: list[float] = []
    for k in instance.topological_order():
        release = max((finish[a] for a in instance.predecessors[k]), default=0.0)
        duration = instance.p[k].tolist()     # time of one task on each site
        for _ in range(int(instance.tasks[k])):
            drawn = rng.sample(processors, min(tries, instance.n_procs))
            proc = min(drawn, key=lambda j: max(free[j], release) + duration[site_of[j]])
            start = max(free[proc], release)
            free[proc] = start + duration[site_of[proc]]
            finish[k] = max(finish[k], free[proc])
            bots.append(k)
            procs.append(proc)
            starts.append(start)
    solution = from_task_assignments(instance, bots, procs, starts, notes={"tries": tries})
    if instance.hard_limits:
        problems = check(instance, solution)
        if problems:
            raise MethodFailedError(f"random-site ignores hard limits: {problems[0]}")
    return solution
