"""``pt.vectorize``: turn a function written for core arrays into one over batches.

Like :func:`numpy.vectorize` with a gufunc ``signature``: the function is
called once, symbolically, on core-shaped stand-ins, and the graph it returns
is rebuilt with the inputs' leading batch axes (see
:func:`opgraph.tensor.blockwise.vectorize_core_graph`).  No Python loop runs
at compute time unless an Op has no vectorisation rule (then it becomes a
Blockwise).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opgraph.graph.basic import Variable
from opgraph.tensor.blockwise import parse_gufunc_signature, vectorize_core_graph
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["vectorize"]


class SignatureError(TypeError, ValueError):
    """Inputs or outputs that do not match the gufunc signature (PyTensor: ValueError)."""


def vectorize(func: Callable[..., Any], signature: str | None = None) -> Callable[..., Any]:
    """``func`` on core arrays -> a function over arrays with extra leading batch axes.

    ``signature`` ("(m,n),(n)->(m)") gives each input's core dimensions; without
    it every input is taken as a scalar core, so ``func`` applies elementwise.
    """
    parsed = parse_gufunc_signature(signature) if signature is not None else None

    def vectorized(*inputs: Any) -> Any:
        name = _fname(func)
        tensors = []
        for i, x in enumerate(inputs):
            try:
                if isinstance(x, Variable) and not isinstance(x.type, TensorType):
                    raise TypeError(f"{x} has type {x.type}")
                tensors.append(as_tensor_variable(x))
            except TypeError as exc:
                raise TypeError(f"vectorize({name}): input {i} must be TensorVariable "
                                f"(or convertible to one): {exc}") from None
        in_sig = parsed[0] if parsed is not None else [()] * len(tensors)
        if len(in_sig) != len(tensors):
            raise SignatureError(
                f"vectorize({name}): Number of inputs ({len(tensors)}) does not match the "
                f"signature {signature!r} ({len(in_sig)})"
            )
        core = []
        for i, (x, sig) in enumerate(zip(tensors, in_sig)):
            if x.type.ndim < len(sig):
                raise ValueError(
                    f"vectorize({name}): Input {x.name or i} has less dimensions "
                    f"({x.type.ndim}) than its core signature ({','.join(sig)}) needs"
                )
            core.append(TensorType(x.type.dtype, x.type.shape[x.type.ndim - len(sig):])())
        result = func(*core)
        if result is None:
            raise ValueError(f"vectorize({name}): the function returned no outputs (None)")
        single = isinstance(result, Variable)
        outs = [result] if single else list(result)
        if parsed is not None and len(parsed[1]) != len(outs):
            raise SignatureError(
                f"vectorize({name}): Number of outputs ({len(outs)}) does not match the "
                f"signature {signature!r} ({len(parsed[1])})"
            )
        batched = vectorize_core_graph(outs, dict(zip(core, tensors)))
        return batched[0] if single else batched

    return vectorized


def _fname(func: Any) -> str:
    return getattr(func, "__name__", repr(func))
