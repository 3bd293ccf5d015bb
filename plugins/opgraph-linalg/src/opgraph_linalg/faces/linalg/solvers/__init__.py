"""``opgraph.tensor.linalg.solvers``."""
