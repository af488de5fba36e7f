"""Registration of the ``toy-makespan`` family and its methods (the package's entry point).

``declare_family`` and ``declare_method`` take ``"module:attribute"`` strings:
hybridsched lists the family and its methods from here without importing
the algorithms, and imports them when a method runs.
"""

from __future__ import annotations

from hybridsched.catalogue import declare_family
from hybridsched.registry import declare_method

declare_family("toy-makespan", "hybridsched_example.toy_makespan.family:FAMILY",
               schema="hybridsched_example.toy_makespan.schema")
declare_method("toy-makespan", "lpt", "hybridsched_example.toy_makespan.adapters:lpt",
               description="Longest processing time first on the least-loaded machine")
declare_method("toy-makespan", "enumerate",
               "hybridsched_example.toy_makespan.adapters:enumerate_method",
               exact=True, description="Every placement tried (at most 12 tasks)")
