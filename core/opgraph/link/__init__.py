"""Linker and thunk contracts: how a backend turns a FunctionGraph into a callable.

The core holds no execution policy: the Python linkers live in the
``opgraph-numpy`` plugin, the C linker in ``opgraph-c``.
"""

from opgraph.link import vm  # PyTensor code reaches it as ``pytensor.link.vm.VMLinker``
from opgraph.link.basic import (
    BackendCompileError,
    Linker,
    LinkerResult,
    StorageCell,
    alias_ancestors,
    compute_free_lists,
    map_storage,
    raise_with_op,
)

__all__ = [
    "BackendCompileError",
    "Linker",
    "LinkerResult",
    "StorageCell",
    "alias_ancestors",
    "compute_free_lists",
    "map_storage",
    "raise_with_op",
    "vm",
]
