"""Exact methods of ``toy-makespan``."""
