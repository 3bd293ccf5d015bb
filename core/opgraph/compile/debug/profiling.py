"""``opgraph.compile.debug.profiling`` (PyTensor's location): :class:`ProfileStats`."""

from opgraph.compile.profiling import ProfileStats

__all__ = ["ProfileStats"]
