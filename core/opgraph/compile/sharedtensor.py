"""TensorSharedVariable and its constructors: the code lives in tensor/sharedvar.py.

Kept so that every import path that worked keeps working.
"""

from __future__ import annotations

from opgraph.tensor.sharedvar import TensorSharedVariable, scalar_constructor, tensor_constructor

__all__ = ["TensorSharedVariable", "scalar_constructor", "tensor_constructor"]
