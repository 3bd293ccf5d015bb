"""``opgraph.tensor.linalg.decomposition``."""
