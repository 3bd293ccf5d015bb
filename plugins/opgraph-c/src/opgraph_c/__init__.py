"""opgraph's C backend: generated C extension modules and their disk cache.

Importing this package is cheap; the compiler driver, the code generators
and the linkers live in submodules imported on first use.
"""

__all__: list[str] = []
