"""PyTensor's ``pytensor.link.mlx`` path: opgraph has no MLX backend.

``MLXLinker`` exists so that imports and ``isinstance`` checks work; creating
one raises :class:`~opgraph.link.backends.BackendUnavailableError` naming
the missing opgraph-mlx plugin.
"""

from opgraph.link.mlx.linker import MLXLinker

__all__ = ["MLXLinker"]
