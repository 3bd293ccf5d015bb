"""The ``lower_xtensor`` rewrites: every xtensor Op becomes the tensor graph it states.

Registered in the standard database (``optdb``) at PyTensor's position 0.1,
right after the first merge and before canonicalize, with the tags
``fast_run``, ``fast_compile`` and ``minimum_compile``, so every mode lowers
before any tensor rewrite looks at the graph.  What is left of the names is
a TensorFromXTensor on each input and an XTensorFromTensor on each output:
views that every backend runs.  The rewrites themselves live in
``lower_xtensor_db`` (:mod:`.utils`), one per Op under PyTensor's names
(:mod:`.shape`, :mod:`.math`, :mod:`.reduction`, :mod:`.indexing`,
:mod:`.vectorization`) and the cast cancellations of :mod:`.basic`.
"""

from __future__ import annotations

from opgraph_xtensor.xtensor.rewriting import (  # noqa: F401  (each registers its rewrites)
    indexing,
    math,
    reduction,
    shape,
    vectorization,
)
from opgraph_xtensor.xtensor.rewriting.basic import LOWERING_REWRITES, lower_xtensor_rewriter
from opgraph_xtensor.xtensor.rewriting.utils import lower_xtensor_db, register_lower_xtensor

__all__ = ["LOWERING_REWRITES", "lower_xtensor_db", "lower_xtensor_rewriter",
           "register_lower_xtensor"]
