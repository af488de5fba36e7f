"""What every exact model shares: the solver drivers.

:mod:`.highs` solves Pyomo models with HiGHS (through highspy), :mod:`.pulp_highs`
PuLP models with HiGHS, :mod:`.cpsat` OR-Tools CP-SAT models; :mod:`.highs_stop`
stops HiGHS at a wall-clock deadline and at Ctrl-C. Each family's models
(``models/<family>/``) build on these and import no other family's.
"""
