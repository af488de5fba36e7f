"""Size limits of every input, checked before anything is allocated.

A file or an option asking for 10^12 cores or tasks gets a one-line error
naming the limit instead of a ``MemoryError`` minutes later. The limits are
far above what the exact models or the heuristics can use: the largest
instance of the bot-sites paper has 10^3 BoTs x 10^4 tasks = 10^7 tasks.

This module imports nothing, so the command line can read the limits
without loading pydantic; :mod:`hybridsched.io.documents` re-exports them.
"""

#: Most tasks in one instance (algorithms keep per-task arrays).
MAX_TASKS = 10**7
#: Most cores of one machine (a hybrid-deadline PM or VM type).
MAX_CORES_PER_MACHINE = 10**4
#: Most processors of one bot-sites instance (all sites together, so also per site).
MAX_PROCESSORS = 10**6
#: Most (site, BoT) pairs of one bot-sites instance (entries of the ETC matrix).
MAX_SITE_BOT_PAIRS = 10**7
#: Largest ``tightness`` of the bot-sites generator (site limits as a share of the
#: demand; from 1 up a limit hardly binds): larger ones gave limits beyond what the
#: instance format accepts.
MAX_TIGHTNESS = 1e3
#: Deepest nesting of objects and arrays accepted in a JSON document.
MAX_JSON_DEPTH = 100
#: Largest input file read into memory (bytes).
MAX_INPUT_BYTES = 2**30
#: Most (job, resource) pairs of an online instance (malleable resources, gang VMs):
#: schedulers and checkers keep job-by-resource tables.
MAX_JOB_RESOURCE_PAIRS = 20_000_000


def check_pairs(jobs: int, resources: int, kind: str, where: str) -> None:
    """One-line ``InputError`` when ``jobs x resources`` exceeds :data:`MAX_JOB_RESOURCE_PAIRS`.

    ``kind`` names the resources in the message (``"VMs"``, ``"resources"``).
    """
    if jobs * resources > MAX_JOB_RESOURCE_PAIRS:
        from hybridsched.errors import InputError

        raise InputError(f"{where}: {jobs} jobs x {resources} {kind} exceeds "
                         f"{MAX_JOB_RESOURCE_PAIRS:,} (job, {kind.rstrip('s')}) pairs")


#: Latest minute of a malleable schedule (arrivals, deadlines and simulated ends);
#: online simulators keep per-minute arrays up to it.
MAX_MINUTES = 10**7

#: Most work units of a pull instance. Each decision ranks the queue, so a run
#: costs about units^2 log(units): 10^5 units already take hours.
MAX_PULL_UNITS = 10**5

#: Latest time of a pull instance or schedule (seconds, about 31.7 years), and so the
#: horizon of a pull run: a result due later is never awaited. Absolute time
#: tolerances of 1e-6 s stay above the rounding of times this large.
MAX_PULL_SECONDS = 10**9

#: Most tasks (replicas) one pull run schedules, and a pull schedule file may hold:
#: a run whose hosts keep failing (wrong or never-returned results) stops there.
MAX_PULL_TASKS = 10**6
