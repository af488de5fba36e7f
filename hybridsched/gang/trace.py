"""Gang instances from SWF workload traces (a real workload for the gang family).

Each usable record becomes one job:

- parallelism: the processors it was allocated (else requested);
- instructions per task: its run time in time units (``time_unit_s`` seconds,
  default one minute) times the reference speed 1, i.e. its run time on a
  VM of processing ability 1;
- arrival: its submit time, in time units from the first record read;
- deadline (*our rule*; traces have none): ``deadline_factor`` times its run
  time (default 2);
- memory and bandwidth demands 1 on VMs of capacity 1 (traces give none).

The platform is ``vms`` identical VMs of speed 1 (default 128, the NASA
iPSC/860's nodes). Records without a run time (``<= 0``) or without a
processor count are skipped and counted; ``limit`` stops reading after that
many usable records. A job wider than the platform is kept: the simulation
reports it as unfinished, with its reason.

Whatever this module builds, the instance loader accepts: every job is
checked against the gang file format's limits (processors, times up to
:data:`~hybridsched.gang.schema.MAX_TIME` time units, instructions) before
the instance is built, and a record that breaks one is an error naming its
line, the value and the option that scales it (``--time-unit``,
``--deadline-factor``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from hybridsched.errors import InputError
from hybridsched.gang.instance import Instance
from hybridsched.io.limits import check_pairs
from hybridsched.io.swf import SWFRecord, SWFTrace


@dataclass(frozen=True)
class GangTraceImport:
    """The instance and how many records were used and skipped (by reason)."""

    instance: Instance
    used_records: int
    skipped: dict[str, int] = field(default_factory=dict)


def instance_from_trace(trace: SWFTrace, *, vms: int = 128, time_unit_s: float = 60.0,
                        deadline_factor: float = 2.0, limit: int | None = None,
                        name: str | None = None) -> GangTraceImport:
    """Turn a trace into a gang instance (see the module docstring)."""
    if vms < 1:
        raise InputError(f"vms: must be at least 1, got {vms}")
    skipped: Counter[str] = Counter()
    rows: list[tuple[float, int, float]] = []
    used: list[SWFRecord] = []
    for record in trace.records:
        if limit is not None and len(rows) >= limit:
            break
        if not record.run_time > 0:
            skipped["no usable run time"] += 1
            continue
        procs = record.allocated_processors if record.allocated_processors > 0 \
            else record.requested_processors
        if procs <= 0:
            skipped["no processor count"] += 1
            continue
        rows.append((record.submit_time, procs, record.run_time))
        used.append(record)
    if not rows:
        raise InputError(f"{trace.path}: no usable record (a run time and a processor count)")
    submit, procs, run = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    n = len(rows)
    check_pairs(n, vms, "VMs", trace.path)
    with np.errstate(over="ignore", under="ignore"):  # checked below, naming the line
        runtime = run / time_unit_s
        arrival = (submit - submit.min()) / time_unit_s
        deadline = deadline_factor * runtime
    _check_jobs(trace.path, used, arrival, procs, runtime, deadline, time_unit_s,
                deadline_factor)
    return GangTraceImport(
        Instance(
            name=name or f"{trace.path.rsplit('/', 1)[-1].removesuffix('.gz')}-gang",
            job_ids=tuple(f"r{k}" for k in range(n)),
            arrival=arrival, parallelism=procs.astype(np.int64),
            instructions=runtime, memory=np.ones(n), bandwidth=np.ones(n), disk=np.zeros(n),
            deadline=deadline,
            vm_ids=tuple(f"node{k}" for k in range(vms)), speed=np.ones(vms),
            vm_memory=np.ones(vms), vm_bandwidth=np.ones(vms), vm_disk=np.full(vms, np.inf),
            provenance={"trace": trace.path, "vms": vms, "time_unit_s": time_unit_s,
                        "deadline_factor": deadline_factor, "limit": limit}),
        n, dict(skipped))


def _check_jobs(path: str, records: list[SWFRecord], arrival: np.ndarray, procs: np.ndarray,
                runtime: np.ndarray, deadline: np.ndarray, time_unit_s: float,
                deadline_factor: float) -> None:
    """Check every job against the gang format's own model; errors name the record's line."""
    from pydantic import TypeAdapter, ValidationError

    from hybridsched.gang.schema import JobDoc

    jobs = [{"id": f"r{k}", "arrival": float(arrival[k]), "parallelism": int(procs[k]),
             "instructions": float(runtime[k]), "memory": 1.0, "bandwidth": 1.0,
             "deadline": float(deadline[k])} for k in range(len(records))]
    try:
        TypeAdapter(list[JobDoc]).validate_python(jobs)
    except ValidationError as exc:
        error = exc.errors()[0]
        k, field = error["loc"][0], str(error["loc"][-1])
        record = records[int(k)]
        what = {
            "arrival": f"submit time {record.submit_time:g} s is {arrival[k]:g} time units "
                       f"after the first record's (--time-unit {time_unit_s:g} s)",
            "parallelism": f"{procs[k]:.15g} processors",
            "instructions": f"run time {record.run_time:g} s is {runtime[k]:g} time units "
                            f"(--time-unit {time_unit_s:g} s)",
            "deadline": f"the deadline, --deadline-factor {deadline_factor:g} x the run time, "
                        f"is {deadline[k]:g} time units",
        }.get(field, f"field {field}")
        message = " ".join(str(error["msg"]).split()).removeprefix("Value error, ")
        raise InputError(f"{path}:{record.line}: {what}: {message}") from None
