"""GMO's reading options: where Duan, Prodan and Li (2014) leave the algorithm open.

Readings that the text leaves open are options of
:func:`hybridsched.heuristics.bot_sites.gmo.gmo` (and of the registered method),
checked by :func:`check_options` before any work; each default is the most
literal reading. Line numbers are those of the paper's Algorithm 1. The
game the first four act on is in :mod:`hybridsched.heuristics.bot_sites.gmo_game`, the
placement in :mod:`hybridsched.heuristics.bot_sites.gmo_placement`, the games' sequence
(``regame``) in :mod:`hybridsched.heuristics.bot_sites.gmo`.

* ``utility`` -- what "best gain" (line 31) and the gain of line 15
  measure. Line 15 stops when
  ``sum_k (f_k(Delta^{S(l-1)}) - f_k(Delta^{S(l)})) + sum_k (c_k(...) - c_k(...)) <= epsilon``:
  the gain is the aggregated makespan's (Eq. 15) plus the aggregated cost's
  (Eq. 6), unnormalised. ``"sum"`` (default) uses that sum for both the
  choice between candidates and the stop (``objective`` breaks ties);
  ``"objective"`` uses the selected objective alone (``sum_k f_k`` for
  ``objective="makespan"``, ``sum_k c_k`` for ``"cost"``, the other one
  breaking ties).
* ``threshold`` -- line 15's ``<= epsilon``: ``"absolute"`` (default, as
  written; the paper gives no value of epsilon, ours is ``1e-5``) or
  ``"relative"`` (gain at most ``epsilon`` times the current value, so it
  does not depend on units; with ``1e-5``, 100-250 stages in a first game
  at the paper's sizes against 310-632 in its Table 3). Either way at most
  ``max_stages`` stages ("we use for GMO a maximum number of 1,000
  iterations", Section 4.6).
* ``keep`` -- which stage a game returns: ``"last"`` (default: Algorithm
  1 ensures ``Delta^{S(l)}``, the distribution of the stage that met line
  15) or ``"best"`` (the best stage by the gain's key).
* ``moves`` -- the order in which players move. The paper calls the game
  *sequential*, "players select a strategy following a certain predefined
  order and observe the moves of the players who preceded them" (Section
  4.2), but writes a stage as ``Theta^{S(l)} = Theta(Delta^{S(l-1)})``,
  ``Delta^{S(l)} = Delta(Theta^{S(l)})`` (Eq. 20-21): every player against
  the last stage's distribution. ``"simultaneous"`` (default) is Eq.
  20-21; ``"sequential"`` lets players move in index order within a stage,
  each computing Eq. 9 from the distribution in which the players before it
  have already moved, and replacing its own row by Eq. 14 (``f`` of the
  stage is Eq. 5 under the allocation the last player moved against).
* ``placement`` -- what the rounded ``theta`` means on concrete
  processors. ``theta_ki`` "is the number of processors allocated to BoT
  T_k on site s_i" (Section 4.1), and "GMO yields an execution plan in
  which tasks belonging to the same BoT are grouped in contiguous slots on
  the same sites" (Section 5.1): ``"dedicated"`` (default) gives BoT ``k``
  ``theta_ki`` processors of site ``i`` (contiguous chunks, ``delta_ki``
  tasks spread evenly, extras on the processors free first). ``"shared"``
  (the previous default) deals a site's tasks round-robin to its
  processors, BoTs in increasing ``f_k`` (the game's execution time), each
  processor running its share of one BoT, then of the next. With hard
  bandwidth/storage limits processors are always dedicated, so the peak use
  never exceeds ``sum_k theta_ki * use_k``, which the game kept within the
  limits.
* ``regame`` -- when phase 3 starts a new game. Line 16 says "wait for a
  BoT to complete", and Phase 3 "the earliest completed BoTs are
  eliminated. To utilize the released resources, we repeat the first two
  phases": ``"completion"`` (default) plays a game's plan until its earliest
  BoT completes at time ``T``. ``"idle"`` starts a new game when resources
  are actually released: the first time a processor runs out of planned
  work, or when a BoT with DAG successors completes (faster at 10^3 BoTs:
  tens instead of hundreds of games). At ``T`` every BoT keeps the tasks
  that start before ``T`` and returns the others; BoTs that have no task
  left leave the game, and BoTs whose predecessors have all completed join
  with release time the predecessors' last finish. The schedule is
  computed offline, so a new game's tasks start as soon as their processor
  is free and their BoT released (idle gaps before ``T`` are used). With
  hard limits a new game starts only when every processor is free, so the
  allocations of two games never overlap in time. On the paper's Table 2
  the literal readings give 24 (T2's last round starts at 16, before T1
  completes at 20, so nothing is left to re-allocate); ``regame="idle"``
  or ``placement="shared"`` give the paper's 23.
"""

from __future__ import annotations

from hybridsched.errors import InputError
from hybridsched.readings import check_choice, check_number

#: Values of GMO's reading options (see the module docstring); the first is the default.
UTILITIES = ("sum", "objective")
THRESHOLDS = ("absolute", "relative")
KEEPS = ("last", "best")
MOVES = ("simultaneous", "sequential")
PLACEMENTS = ("dedicated", "shared")
REGAMES = ("completion", "idle")


def check_options(options: dict) -> None:
    """Refuse bad values of GMO's options with a one-line :class:`InputError`.

    The registry and the campaign call it before any work; :func:`gmo` calls
    it too, so a direct call is checked the same way.
    """
    objective = options.get("objective", "makespan")
    if objective not in ("makespan", "cost"):
        raise InputError(f"--objective: must be one of 'makespan', 'cost', got {objective!r}")
    choices = {"utility": UTILITIES, "threshold": THRESHOLDS, "keep": KEEPS, "moves": MOVES,
               "placement": PLACEMENTS, "regame": REGAMES}
    for name, allowed in choices.items():
        if name in options:
            check_choice(name, options[name], allowed)
    if "epsilon" in options:
        check_number("epsilon", options["epsilon"], low=0.0)
    if "max_stages" in options:
        ms = options["max_stages"]
        if isinstance(ms, bool) or not isinstance(ms, int) or not 1 <= ms <= 10**6:
            raise InputError(f"option --max-stages: must be an integer in [1, 1000000], "
                             f"got {ms!r}")
