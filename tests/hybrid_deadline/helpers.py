"""Small hand-made instances and a checked runner for the hybrid-deadline tests."""

from __future__ import annotations

import numpy as np

from hybridsched import run_method
from hybridsched.hybrid_deadline import PM, Instance, VMType, check
from hybridsched.result import Result

VM = VMType("vm2", 2, 1.0, 1.0)


def make_instance(work, deadline, pms=(), vm_types=(VM,), max_vms=None, name="hand"):
    work = np.asarray(work, dtype=float)
    return Instance(
        name=name,
        task_ids=tuple(f"t{i}" for i in range(len(work))),
        task_job=tuple(f"j{i}" for i in range(len(work))),
        work=work,
        deadline=np.broadcast_to(np.asarray(deadline, dtype=float), work.shape).copy(),
        pms=tuple(pms),
        vm_types=tuple(vm_types),
        max_vms=max_vms,
    )


def solve_checked(instance: Instance, method: str, **kwargs) -> Result:
    """Run ``method``; assert its schedule passes the independent checker."""
    result = run_method("hybrid-deadline", method, instance, **kwargs)
    if result.solution is not None:
        assert check(instance, result.solution) == []
    return result


__all__ = ["PM", "VM", "make_instance", "solve_checked"]
