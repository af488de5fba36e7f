"""Heuristics and baselines, one folder per family: plain functions ``instance -> solution``.

The online families (malleable, gang, pull) keep their simulator beside their
policies (``heuristics/<family>/simulation.py``), on the shared SimPy layer
:mod:`hybridsched.sim`.
"""
