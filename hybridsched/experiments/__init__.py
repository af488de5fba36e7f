"""Experiments: method comparisons, campaigns on Dask, result stores, reports, paired effects."""
