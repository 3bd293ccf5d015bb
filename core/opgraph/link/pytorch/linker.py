"""``PytorchLinker``: placeholder for PyTensor's PyTorch linker (deliberately not in opgraph)."""

from opgraph.link.backends import UnavailableBackendLinker

__all__ = ["PytorchLinker"]


class PytorchLinker(UnavailableBackendLinker):
    """PyTensor's PyTorch linker; constructing it says which plugin is missing."""

    backend = "PyTorch"
    plugin = "opgraph-pytorch"
