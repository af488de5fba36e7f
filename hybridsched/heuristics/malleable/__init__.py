"""The ``malleable`` family's paper algorithms and baselines.

The family is online: :mod:`.simulation` runs a policy on the shared SimPy
layer (:mod:`hybridsched.sim`) and returns the realised schedule.
"""
