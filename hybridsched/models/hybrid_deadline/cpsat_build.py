"""The hybrid-deadline problem as a CP-SAT model, written from the checker's rules.

A schedule puts every task on one core, of a PM (free) or of a rented VM
(billed per started hour from time 0, up to its last finish), runs it for
``work / capacity`` hours without overlapping the other tasks of that core,
and ends it by its deadline; the cost is the sum of the VMs' prices times
their billed hours. The model says exactly that, in the integer units of
:mod:`~hybridsched.models.hybrid_deadline.cpsat_scale` (time on a core in *work units*):

* **Cores.** Every PM core; and VM *slots* per type, each with its type's
  cores (a slot with no task is a VM not rented).
* **Tasks.** ``x[i, c]``: task ``i`` runs on core ``c`` (created only where
  it can end by its deadline alone); exactly one per task. An optional
  interval of size ``W_i`` on ``c``, present with ``x[i, c]``, ending by the
  deadline's limit on that core's capacity.
* **No overlap.** The intervals of each core (``add_no_overlap``).
* **Billing.** ``H[s]`` (integer): billed hours of slot ``s``; a task on
  ``s`` ends within ``H[s]`` hours plus the checker's tolerance. Redundant,
  for the LP relaxation: the work on each core of ``s`` fits in ``H[s]``.
* **Cuts for the LP** (implied by the rows above, so no schedule is lost):
  the work due by each deadline on a core fits by it; of a set of tasks no
  two of which can share a core of some capacity, each such core holds at
  most one (:mod:`~hybridsched.models.hybrid_deadline.cpsat_cliques`); a slot holding a
  task is billed at least the hours of that task's run.
* **VM limit.** ``used[s]`` is implied by any task on ``s``; at most
  ``max_vms`` used slots.
* **Cost.** ``sum price[type(s)] H[s]`` (scaled prices).

Reductions (none removes every optimum, so proofs hold for the real problem):

* **Slot counts.** Given a checked schedule of cost ``UB``, an optimal
  schedule rents at most ``floor(UB / price_t)`` billed VMs of type ``t``,
  plus VMs billed 0 hours, each holding at least one task whose run time on
  ``t`` fits in the tolerance; never more than the tasks that fit on ``t``,
  nor ``max_vms``. Hours are capped by ``UB / price_t`` and by the hours
  that cover every deadline.
* **Symmetry.** PM cores of one capacity are interchangeable, and so are the
  slots of a type and the cores of a slot. Tasks are ranked (largest work
  first); relabelling the cores of a group by the rank of their first task
  turns any schedule into one where a core holds a task only if the
  previous core of its group holds a better-ranked one (for the slots of a
  type: the first cores of consecutive slots; cores of a slot among
  themselves). ``prefix[k][j]``: core ``k`` holds one of the first ``j``
  ranked tasks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hybridsched.budget import TimeBudget
from hybridsched.hybrid_deadline.instance import Instance
from hybridsched.models.hybrid_deadline.cores import Core
from hybridsched.models.hybrid_deadline.cpsat_cliques import conflict_cliques
from hybridsched.models.hybrid_deadline.cpsat_scale import ScaledData, scale_data
from hybridsched.models.solvers.cpsat import require_ortools

#: Tasks (times cores) between two checks of the time budget while building.
_CHECK_EVERY = 500


@dataclass
class BnpCpsat:
    """A built CP-SAT model and what is needed to read a schedule back.

    Attributes
    ----------
    model:
        The ``CpModel``.
    data:
        The integer data (:class:`~hybridsched.models.hybrid_deadline.cpsat_scale.ScaledData`).
    cores, slot_types, slot_cores:
        Model cores; VM type and model cores of each slot.
    x:
        ``{(task, core): BoolVar}``, the allowed placements.
    starts:
        ``{(task, core): IntVar}`` start (work units of that core).
    hours:
        ``H[s]`` per slot.
    cost:
        The objective, ``sum price[type(s)] H[s]`` (scaled).
    cutoff:
        When set, the model admits only costs up to it (scaled): schedules
        strictly cheaper than the warm start, so that its infeasibility
        proves the warm start optimal.
    groups:
        Interchangeable cores, in the order the symmetry breaking uses.
    rank:
        Tasks in the symmetry breaking's order.
    infeasible:
        Tasks no core can finish by their deadline (a proof of infeasibility
        when the data is exact).
    """

    model: Any
    instance: Instance
    data: ScaledData
    cores: list[Core]
    slot_types: list[int]
    slot_cores: list[list[int]]
    x: dict[tuple[int, int], Any] = field(default_factory=dict)
    starts: dict[tuple[int, int], Any] = field(default_factory=dict)
    hours: list[Any] = field(default_factory=list)
    groups: list[list[int]] = field(default_factory=list)
    rank: list[int] = field(default_factory=list)
    infeasible: list[str] = field(default_factory=list)
    cost: Any = 0
    cutoff: int | None = None


def hours_cover(data: ScaledData, capacity: float, limit: int) -> int:
    """The fewest billed hours ``H`` with ``hour_units H + hour_slack >= limit``."""
    units = data.hour_units(capacity)
    return max(0, -(-(limit - data.hour_slack(capacity)) // units)) if units else 0


def slot_counts(instance: Instance, data: ScaledData, upper: int | None) -> list[int]:
    """Slots per VM type (module docstring: any optimum fits in them)."""
    counts = []
    for t, vm in enumerate(instance.vm_types):
        fits = [i for i in range(instance.n_tasks)
                if data.work[i] <= data.deadline_limit(vm.capacity, instance.deadline[i])]
        count = len(fits) if vm.cores > 0 else 0
        if upper is not None and data.price[t] > 0:
            free = sum(1 for i in fits if data.work[i] <= data.hour_slack(vm.capacity))
            count = min(count, upper // data.price[t] + free)
        if instance.max_vms is not None:
            count = min(count, instance.max_vms)
        counts.append(count)
    return counts


def build_model(instance: Instance, upper: int | None = None, *,
                budget: TimeBudget | None = None, symmetry: bool = True,
                energy: bool = True) -> BnpCpsat:
    """Build the CP-SAT model (module docstring).

    Parameters
    ----------
    instance:
        The instance.
    upper:
        Scaled cost of a checked schedule (sizes the slots and hours), or ``None``.
    budget:
        Checked while building.
    symmetry:
        Add the symmetry-breaking rows.
    """
    cp = require_ortools()
    budget = budget or TimeBudget(None)
    data = scale_data(instance)
    cores: list[Core] = [Core(False, k, n, pm.capacity)
                         for k, pm in enumerate(instance.pms) for n in range(pm.cores)]
    slot_types: list[int] = []
    slot_cores: list[list[int]] = []
    for t, count in enumerate(slot_counts(instance, data, upper)):
        vm = instance.vm_types[t]
        for _ in range(count):
            slot_cores.append(list(range(len(cores), len(cores) + vm.cores)))
            cores.extend(Core(True, len(slot_types), n, vm.capacity) for n in range(vm.cores))
            slot_types.append(t)
    model = cp.CpModel()
    built = BnpCpsat(model, instance, data, cores, slot_types, slot_cores)
    deadline = instance.deadline
    limits = {cap: [data.deadline_limit(cap, d) for d in deadline]
              for cap in {core.capacity for core in cores}}
    covers = {}
    for t in set(slot_types):
        vm = instance.vm_types[t]
        covers[t] = hours_cover(data, vm.capacity, max(limits[vm.capacity], default=0))
        if upper is not None and data.price[t] > 0:
            covers[t] = min(covers[t], upper // data.price[t])
    built.hours = [model.new_int_var(0, covers[t], f"H{s}") for s, t in enumerate(slot_types)]

    intervals: list[list[Any]] = [[] for _ in cores]
    on_task: list[list[Any]] = [[] for _ in range(instance.n_tasks)]
    for i in range(instance.n_tasks):
        size = data.work[i]
        for c, core in enumerate(cores):
            limit = limits[core.capacity][i]
            if size > limit:
                continue
            present = model.new_bool_var(f"x{i}_{c}")
            start = model.new_int_var(0, limit - size, f"s{i}_{c}")
            intervals[c].append(model.new_optional_fixed_size_interval_var(
                start, size, present, f"i{i}_{c}"))
            built.x[i, c], built.starts[i, c] = present, start
            on_task[i].append(present)
            if core.on_vm:
                model.add(start + size <= data.hour_units(core.capacity) * built.hours[core.owner]
                          + data.hour_slack(core.capacity)).only_enforce_if(present)
        if on_task[i]:
            model.add_exactly_one(on_task[i])
        else:
            built.infeasible.append(instance.task_ids[i])
        if (i + 1) * len(cores) % _CHECK_EVERY < len(cores):
            budget.check("building the CP-SAT model")
    order = sorted(range(instance.n_tasks), key=lambda i: (deadline[i], i))
    fitting = {cap: [i for i in range(instance.n_tasks) if data.work[i] <= limit[i]]
               for cap, limit in limits.items()}
    cliques = {cap: conflict_cliques(list(data.work), limit, fitting[cap])
               for cap, limit in limits.items()} if energy else {}
    for c, core in enumerate(cores):
        budget.check("building the CP-SAT model")  # a core's rows: up to its tasks squared
        if len(intervals[c]) > 1:
            model.add_no_overlap(intervals[c])
            if energy:
                _add_energy(built, c, order, limits[core.capacity], budget)
                for clique in cliques.get(core.capacity, ()):
                    present = [built.x[i, c] for i in clique if (i, c) in built.x]
                    if len(present) > 1:
                        model.add_at_most_one(present)
        if core.on_vm:
            load = sum(data.work[i] * built.x[i, c] for i in range(instance.n_tasks)
                       if (i, c) in built.x)
            if not isinstance(load, int):
                model.add(load <= data.hour_units(core.capacity) * built.hours[core.owner]
                          + data.hour_slack(core.capacity))
    if energy:
        _add_task_hours(built)
    if instance.max_vms is not None and slot_types:
        used = [model.new_bool_var(f"used{s}") for s in range(len(slot_types))]
        for (_i, c), present in built.x.items():
            if cores[c].on_vm:
                model.add_implication(present, used[cores[c].owner])
        model.add(sum(used) <= instance.max_vms)
    built.cost = sum(data.price[t] * built.hours[s] for s, t in enumerate(slot_types))
    model.minimize(built.cost)
    built.rank = sorted(range(instance.n_tasks), key=lambda i: (-data.work[i], i))
    built.groups = core_groups(built)
    if symmetry:
        budget.check("building the CP-SAT model")
        _break_symmetry(built)
    budget.check("building the CP-SAT model")
    return built


def _add_task_hours(built: BnpCpsat) -> None:
    """Redundant rows: a slot holding a task is billed at least the hours of its run alone.

    Implied by the billing constraint of the task's interval (it ends after
    ``W_i``); stated on the slot's placements together so that the LP, where
    that constraint is a weak big-M row, sees the whole hours a task needs.
    """
    data = built.data
    for s, owned in enumerate(built.slot_cores):
        capacity = built.cores[owned[0]].capacity
        for i in range(built.instance.n_tasks):
            present = [built.x[i, c] for c in owned if (i, c) in built.x]
            hours = hours_cover(data, capacity, data.work[i])
            if present and hours > 0:
                built.model.add(built.hours[s] >= hours * sum(present))


def _add_energy(built: BnpCpsat, c: int, order: list[int], limits: list[int],
                budget: TimeBudget) -> None:
    """Redundant rows: the work due by each deadline on core ``c`` fits by that deadline.

    Implied by the no-overlap (tasks on one core run one at a time from time
    0); stated linearly so that CP-SAT's LP relaxation sees the core's
    capacity. Only rows that can bind are added (their terms grow with the
    core's tasks, so ``budget`` is checked every :data:`_CHECK_EVERY` terms).
    """
    terms: list[tuple[int, Any]] = []
    total = written = 0
    for pos, i in enumerate(order):
        present = built.x.get((i, c))
        if present is not None:
            terms.append((built.data.work[i], present))
            total += built.data.work[i]
        last = pos + 1 == len(order) or (
            built.instance.deadline[order[pos + 1]] > built.instance.deadline[i])
        if last and terms and total > limits[i]:
            built.model.add(sum(w * v for w, v in terms) <= limits[i])
            written += len(terms)
            if written >= _CHECK_EVERY:
                written = 0
                budget.check("building the CP-SAT model")


def core_groups(built: BnpCpsat) -> list[list[int]]:
    """Chains of interchangeable cores.

    PM cores per capacity, the first cores of a type's slots, and the cores
    of each slot.
    """
    groups: dict[Any, list[int]] = {}
    for c, core in enumerate(built.cores):
        if not core.on_vm:
            groups.setdefault(("pm", core.capacity), []).append(c)
    for s, owned in enumerate(built.slot_cores):
        groups.setdefault(("slots", built.slot_types[s]), []).append(owned[0])
        if len(owned) > 1:
            groups[("slot", s)] = list(owned)
    return [g for g in groups.values() if len(g) > 1]


def _break_symmetry(built: BnpCpsat) -> None:
    """Core ``k`` of a group holds a task only if core ``k - 1`` holds a better-ranked one."""
    model = built.model
    prefixes: dict[int, list[Any]] = {}

    def prefix(c: int) -> list[Any]:
        """``prefix(c)[j]``: core ``c`` holds one of the first ``j`` ranked tasks."""
        if c in prefixes:
            return prefixes[c]
        chain: list[Any] = [0]
        for i in built.rank:
            present = built.x.get((i, c))
            if present is None:
                chain.append(chain[-1])
                continue
            if isinstance(chain[-1], int):
                chain.append(present)
                continue
            var = model.new_bool_var(f"p{c}_{len(chain)}")
            model.add_bool_or([chain[-1], present]).only_enforce_if(var)
            model.add_implication(chain[-1], var)
            model.add_implication(present, var)
            chain.append(var)
        prefixes[c] = chain
        return chain

    for group in built.groups:
        for before, core in zip(group, group[1:], strict=False):
            earlier = prefix(before)
            for j, i in enumerate(built.rank):
                present = built.x.get((i, core))
                if present is None:
                    continue
                if isinstance(earlier[j], int):
                    model.add(present == 0)
                else:
                    model.add_implication(present, earlier[j])
