"""``MLXLinker``: placeholder for PyTensor's MLX linker (deliberately not in opgraph)."""

from opgraph.link.backends import UnavailableBackendLinker

__all__ = ["MLXLinker"]


class MLXLinker(UnavailableBackendLinker):
    """PyTensor's MLX linker; constructing it says which plugin is missing."""

    backend = "MLX"
    plugin = "opgraph-mlx"
