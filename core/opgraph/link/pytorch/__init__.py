"""PyTensor's ``pytensor.link.pytorch`` path: opgraph has no PyTorch backend.

``PytorchLinker`` exists so that imports and ``isinstance`` checks work; creating
one raises :class:`~opgraph.link.backends.BackendUnavailableError` naming
the missing opgraph-pytorch plugin.
"""

from opgraph.link.pytorch.linker import PytorchLinker

__all__ = ["PytorchLinker"]
