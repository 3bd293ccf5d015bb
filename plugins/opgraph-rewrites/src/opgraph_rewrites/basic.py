"""What PyTensor code imports from ``pytensor.tensor.rewriting.basic``.

The plugin serves ``opgraph.tensor.rewriting`` with this package, so
``from opgraph.tensor.rewriting.basic import constant_folding`` gives the
rewrite the standard database runs.
"""

from __future__ import annotations

from opgraph_rewrites.constant_folding import constant_folding

__all__ = ["constant_folding"]
