"""An example hybridsched plug-in package (documentation by example).

* :mod:`hybridsched_example.bot_sites_methods` adds the method ``random-site``
  to the built-in ``bot-sites`` family.
* :mod:`hybridsched_example.toy` is a whole new family, ``toy-makespan``
  (tasks on identical machines, minimise the makespan), laid out like the
  built-in ones: domain (``model``, ``files``, ``checker``, ``family``),
  algorithms (``solvers``), registration (``methods``, the entry point).

Both are found through the entry points of ``pyproject.toml``; nothing in
hybridsched names this package.
"""
