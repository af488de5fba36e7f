"""Experiments: method comparisons, campaigns, plots."""
