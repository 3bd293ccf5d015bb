"""Implementation of :mod:`opgraph.gradient` (import from there: it is the public module)."""
