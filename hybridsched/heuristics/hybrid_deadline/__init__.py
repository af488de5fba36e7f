"""The ``hybrid-deadline`` family's paper algorithms and baselines."""
