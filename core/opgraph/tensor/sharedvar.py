"""PyTensor's ``pytensor.tensor.sharedvar`` path: shared tensor variables.

The implementation lives with ``shared()`` in :mod:`opgraph.compile.sharedtensor`;
this module is the public face at PyTensor's path (faces sit above the layers,
see docs/architecture.md), and nothing inside opgraph imports it.
"""

from __future__ import annotations

from opgraph.compile.sharedtensor import (
    TensorSharedVariable,
    scalar_constructor,
    tensor_constructor,
)
from opgraph.compile.sharedvalue import SharedVariable

__all__ = ["SharedVariable", "TensorSharedVariable", "scalar_constructor", "tensor_constructor"]
