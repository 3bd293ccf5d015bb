"""PyTensor's ``pytensor.compile.sharedvalue`` path: shared variables and ``shared()``.

The code lives below the libraries (link/sharedvalue.py), so the tensor
library can build on it; this face, in the compile layer, also imports the
tensor library's constructors (tensor/sharedvar.py) so that ``shared(array)``
gives a TensorSharedVariable without an import of ``opgraph.tensor`` first.
"""

from __future__ import annotations

import opgraph.tensor.sharedvar  # noqa: F401  (registers the array and number constructors)
from opgraph.link.sharedvalue import (
    Constructor,
    Container,
    GenericType,
    SharedVariable,
    collect_new_shareds,
    generic_type,
    shared,
    shared_constructor,
    type_error_like,
)

__all__ = [
    "Constructor",
    "Container",
    "GenericType",
    "SharedVariable",
    "collect_new_shareds",
    "generic_type",
    "shared",
    "shared_constructor",
    "type_error_like",
]
