"""The ``bot-sites`` family's paper algorithms and baselines."""
