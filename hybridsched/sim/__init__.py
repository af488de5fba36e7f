"""The discrete-event layer shared by the online families (SimPy).

:mod:`hybridsched.sim.core` holds what the malleable, gang and pull
simulations share: the SimPy environment, arrival processes, resources that
join and leave, and the event log. Policies are plain objects the
simulations call at decision points; they never drive the clock.
"""

from hybridsched.sim.core import EventLog, Simulation

__all__ = ["EventLog", "Simulation"]
