"""Exact formulations: ``build(instance) -> model``, ``solve(model)``, ``extract(...)``.

:mod:`.solvers` holds the drivers every family shares (HiGHS, PuLP, CP-SAT);
each family's models live in its own folder (``models/gang/``, ...), named
``milp*.py`` (HiGHS) and ``cpsat*.py`` (CP-SAT).
"""
