"""Heuristics of ``toy-makespan``."""
