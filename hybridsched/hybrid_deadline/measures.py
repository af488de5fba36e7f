"""What each number of a ``hybrid-deadline`` schedule means: names and units for readers.

Units are those of the instance files (hours, GHz-hours of work, US dollars
per VM-hour); the keys are the metrics of :func:`hybridsched.hybrid_deadline.checker.evaluate`.
Light on purpose (no numpy): ``--help`` texts read it.
"""

from __future__ import annotations

from hybridsched.family import Measure

MEASURES = {
    "cost": Measure("rent cost", "$"),
    "makespan": Measure("makespan", "h"),
    "mean_finish": Measure("mean finish time of the tasks", "h"),
    "mean_machine_makespan": Measure("mean latest finish per machine used", "h"),
    "local_load": Measure("work run on PMs", "GHz-h"),
    "local_load_share": Measure("share of the work run on PMs"),
    "pm_utilisation": Measure("PM utilisation, busy over available core-hours"),
    "vm_utilisation": Measure("VM utilisation, busy over billed core-hours"),
    "utilisation": Measure("utilisation of PMs and VMs"),
    "pm_energy_wh": Measure("energy of the used PMs", "Wh"),
    "rented_vms": Measure("rented VMs", "count"),
    "billed_vm_hours": Measure("billed VM hours", "h"),
    "used_pms": Measure("used PMs", "count"),
}
