"""The ``toy-makespan`` family: tasks on identical machines, minimise the makespan.

Laid out like hybridsched's own families, floor by floor: the domain
(:mod:`.model`, :mod:`.files`, :mod:`.checker`, :mod:`.family`), the
algorithms (:mod:`.solvers`) and the registration (:mod:`.methods`, the
package's entry point).
"""
