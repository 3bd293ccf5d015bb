"""The distribution's version, below every layer so configuration can name it."""

__version__ = "0.1.0"
"""The version of the opgraph distribution."""
