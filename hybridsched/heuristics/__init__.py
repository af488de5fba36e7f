"""Heuristics and baselines: plain functions ``instance -> solution``."""
