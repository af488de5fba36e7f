"""Family ``pull`` (in progress): pull-based scheduling on desktop grid, cloud and best-effort grid.

After Moca, Litan, Silaghi and Fedak (2016). So far: the domain model
(:mod:`.instance`), seeded hosts and availability (:mod:`.generator`) and
the makespan lower bound (:mod:`.bounds`); the simulation, the checker and
the family's registration come with issue 10.
"""
