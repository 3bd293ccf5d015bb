"""The ``lower_xtensor`` rewrites: every xtensor Op becomes the tensor graph it states.

Registered in the standard database (``optdb``) at PyTensor's position 0.1,
right after the first merge and before canonicalize, with the tags
``fast_run``, ``fast_compile`` and ``minimum_compile``, so every mode lowers
before any tensor rewrite looks at the graph.  What is left of the names is
a TensorFromXTensor on each input and an XTensorFromTensor on each output:
views that every backend runs.
"""

from __future__ import annotations

from opgraph_xtensor.xtensor.rewriting.basic import LOWERING_REWRITES, lower_xtensor_rewriter

__all__ = ["LOWERING_REWRITES", "lower_xtensor_rewriter"]
