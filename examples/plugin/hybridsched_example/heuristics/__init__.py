"""The package's heuristics, one folder per family (as hybridsched's)."""
