"""The ``bot-sites`` family's exact models and bounds.

Naming, the same in every family: ``milp*.py`` build and solve on HiGHS,
``cpsat*.py`` on OR-Tools CP-SAT; modules without either prefix serve both.
"""
