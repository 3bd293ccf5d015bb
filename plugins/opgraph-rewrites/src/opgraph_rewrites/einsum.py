"""What PyTensor code imports from ``pytensor.tensor.rewriting.einsum``: the rewrite
that inlines an ``Einsum`` whose contraction path is known (the Op lives in the
core, ``opgraph.tensor.einsum``; the standard database runs it in specialize)."""

from __future__ import annotations

from opgraph.tensor.einsum import inline_optimized_einsum

__all__ = ["inline_optimized_einsum"]
