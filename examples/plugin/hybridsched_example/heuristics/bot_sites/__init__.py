"""Heuristics for the built-in ``bot-sites`` family."""
