"""Exact formulations: ``build(instance) -> model``, ``solve(model)``, ``extract(...)``."""
