"""Figures: one module per kind of figure over the shared look of :mod:`.style`.

:mod:`.gantt` (Gantt charts: dispatch by family, hybrid-deadline and
bot-sites; :mod:`.gantt_gang`, :mod:`.gantt_malleable`, :mod:`.gantt_pull`
for the online families), :mod:`.tree` (an agent tree), :mod:`.profiles`
(performance profiles, gap boxes, run time scaling of a campaign's table),
:mod:`.pareto` (an exact Pareto front, a campaign's objective space) and
:mod:`.effects` (forest plot of paired effects).

The floor sits below :mod:`hybridsched.experiments`: a figure of a campaign
takes its table as a pandas ``DataFrame`` and never imports the campaign
code. Every function draws into a given matplotlib ``Axes`` or makes its own
:class:`~matplotlib.figure.Figure` (not registered with pyplot, so report code
and worker threads leave nothing open) and returns the figure; none calls
``plt.show()``. Exceptions kept for existing callers:
:func:`.gantt.gantt_chart` makes a pyplot figure (notebooks display it
inline) and :func:`.pareto.plot_pareto` returns its ``Axes``. matplotlib is
imported on first use only.
"""
