"""Registration of ``random-site`` in the built-in ``bot-sites`` family (an entry point).

Imported by hybridsched the first time the ``bot-sites`` family is asked for.
``declare_method`` takes ``"module:attribute"`` strings, so listing methods
imports nothing of the algorithm; the registry imports it when it runs, and
checks every schedule it returns with the family's checker.
"""

from __future__ import annotations

from hybridsched.registry import declare_method

declare_method("bot-sites", "random-site",
               "hybridsched_example.heuristics.bot_sites.random_site:random_site",
               check_options="hybridsched_example.heuristics.bot_sites.random_site:check_options",
               description="Each task on the earliest-finishing of `tries` random processors "
                           "(seeded)")
