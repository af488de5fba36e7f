"""What each number of a ``gang`` schedule means: names and units for readers.

Times are the paper's time units (a task of ``instructions`` takes that long
on a VM of speed 1); the keys are the metrics of
:func:`hybridsched.gang.checker.evaluate` (UFJ, AWT, AVE, SIN in the paper).
Light on purpose (no numpy): ``simulate gang --help`` reads it.
"""

from __future__ import annotations

from hybridsched.family import Measure

MEASURES = {
    "unfinished": Measure("unfinished jobs", "count"),
    "finished": Measure("finished jobs", "count"),
    "awt": Measure("average waiting time of the finished jobs", "time units"),
    "ave": Measure("average arrival-to-end time of the finished jobs", "time units"),
    "sin": Measure("instructions of the finished jobs, parallelism x instructions",
                   "instructions"),
    "utilisation": Measure("VM utilisation, busy over available VM time"),
}
