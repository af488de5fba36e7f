"""An example hybridsched plug-in package, laid out like hybridsched itself.

* ``random-site``, a method for the built-in ``bot-sites`` family: the
  algorithm in :mod:`hybridsched_example.heuristics.bot_sites.random_site`,
  its registration in :mod:`hybridsched_example.bot_sites.methods`.
* ``toy-makespan``, a whole new family (tasks on identical machines,
  minimise the makespan), with the same folders as the built-in ones:
  ``toy_makespan/`` (instance, solution, schema, files, checker, bounds,
  generator, family; methods and adapters register it),
  ``heuristics/toy_makespan/`` (LPT) and ``models/toy_makespan/`` (an exact
  enumeration).

Both are found through the entry points of ``pyproject.toml``; nothing in
hybridsched names this package. Copy the family's three folders, rename
them, and you have the skeleton of a new family.
"""
