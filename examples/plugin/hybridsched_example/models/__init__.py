"""The package's exact methods, one folder per family (as hybridsched's)."""
