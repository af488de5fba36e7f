"""The ``toy-makespan`` family: tasks on identical machines, minimise the makespan.

Its domain, floor by floor like hybridsched's own families: :mod:`.instance`,
:mod:`.solution`, :mod:`.schema` (pydantic documents), :mod:`.files`,
:mod:`.checker`, :mod:`.bounds`, :mod:`.generator`, :mod:`.family`; then the
registration (:mod:`.methods`, the entry point, and :mod:`.adapters`). Its
algorithms live in ``heuristics/toy_makespan/`` and ``models/toy_makespan/``.
"""
