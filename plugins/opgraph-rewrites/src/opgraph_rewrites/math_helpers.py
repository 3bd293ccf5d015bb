"""Graph-matching helpers PyTensor's ``tensor.rewriting.math`` exports.

Rewrites written against PyTensor call these to recognise ``x * y``, ``-x``,
``exp(x)``, scalar constants among inputs, and to fold constants the way the
algebraic canonizers do; they keep PyTensor's signatures and return shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from functools import partial, reduce
from typing import Any

import numpy as np

import opgraph.scalar as ps
from opgraph.graph.basic import Apply, Variable
from opgraph.scalar.type import upcast
from opgraph.tensor.constant_value import get_underlying_scalar_constant_value
from opgraph.tensor.exceptions import NotScalarConstantError
from opgraph.tensor.math import mul, sign
from opgraph_rewrites.utils import const_value, elemwise_of

__all__ = [
    "add_calculate",
    "check_for_x_over_absX",
    "get_clients_at_depth",
    "get_clients_at_depth1",
    "get_clients_at_depth2",
    "is_exp",
    "is_mul",
    "is_neg",
    "isclose",
    "mul_calculate",
    "partition_num_or_denom",
    "scalarconsts_rest",
]


def is_mul(var: Variable) -> list[Variable] | None:
    """The inputs of ``var = x * y * z * ...`` (one Mul, not flattened), else None."""
    node = elemwise_of(var, ps.Mul)
    return list(node.inputs) if node is not None else None


def is_neg(var: Variable) -> Variable | None:
    """``x`` when ``var`` is ``-x`` or a product with a constant factor -1, else None."""
    node = elemwise_of(var, ps.Neg)
    if node is not None:
        return node.inputs[0]
    factors = is_mul(var)
    if factors is None:
        return None
    for i, factor in enumerate(factors):
        value = const_value(factor)
        if value is not None and np.all(np.asarray(value) == -1):
            rest = factors[:i] + factors[i + 1:]
            if not rest:
                return None
            return rest[0] if len(rest) == 1 else mul(*rest)
    return None


def is_exp(var: Variable) -> tuple[bool, Variable] | None:
    """``(negated, x)`` when ``var`` is ``exp(x)`` or ``-exp(x)``, else None."""
    negated = False
    inner = is_neg(var)
    if inner is not None:
        negated, var = True, inner
    node = elemwise_of(var, ps.Exp)
    return (negated, node.inputs[0]) if node is not None else None


def scalarconsts_rest(
    inputs: Sequence[Variable], elemwise: bool = True, only_process_constants: bool = False,
) -> tuple[list[Any], list[Variable], list[Variable]]:
    """Split ``inputs`` into (constant values, the constant variables, the rest): an
    input counts as constant when every element is one known scalar."""
    values, consts, rest = [], [], []
    for var in inputs:
        try:
            value = get_underlying_scalar_constant_value(
                var, elemwise=elemwise, only_process_constants=only_process_constants)
        except NotScalarConstantError:
            rest.append(var)
            continue
        values.append(value)
        consts.append(var)
    return values, consts, rest


def get_clients_at_depth(
    fgraph: Any, node: Apply, depth: int,
) -> Generator[Apply, None, None]:
    """The Apply nodes reached from ``node``'s outputs by ``depth`` client steps
    (graph outputs are skipped)."""
    for out in node.outputs:
        for client, _ in fgraph.clients.get(out, ()):
            if not isinstance(client, Apply):
                continue
            if depth <= 1:
                yield client
            else:
                yield from get_clients_at_depth(fgraph, client, depth - 1)


def _at_depth(fgraph: Any, node: Apply, *, depth: int) -> Generator[Apply, None, None]:
    return get_clients_at_depth(fgraph, node, depth)


get_clients_at_depth1 = partial(_at_depth, depth=1)
get_clients_at_depth2 = partial(_at_depth, depth=2)


def isclose(x: Any, ref: Any, rtol: float = 0, atol: float = 0, num_ulps: int = 10) -> bool:
    """``x`` (a number or array) is within ``num_ulps`` units in the last place of
    ``ref`` (at ``x``'s precision), or within ``atol + rtol * |ref|``."""
    arr = np.asarray(x)
    if arr.dtype.kind in "fc":
        atol = atol + num_ulps * float(np.max(np.spacing(np.abs(np.asarray(ref, arr.dtype)))))
    return bool(np.allclose(arr, ref, rtol=rtol, atol=atol))


def partition_num_or_denom(
    r: Variable, f: Callable[[Variable], tuple[bool, Variable] | None],
) -> tuple[list[Variable], list[Variable], bool]:
    """Split the factors of ``r`` (its Mul inputs, or ``[r]``) into the arguments that
    ``f`` matched, the others, and whether an odd number of matches was negated."""
    factors = is_mul(r) or [r]
    matched, rest, negated = [], [], False
    for factor in factors:
        found = f(factor)
        if found is None:
            rest.append(factor)
            continue
        neg, arg = found
        negated ^= bool(neg)
        matched.append(arg)
    return matched, rest, negated


def _dtype(values: Sequence[Any], out_type: Any) -> str:
    dtypes = [np.asarray(v).dtype.name for v in values]
    if out_type is not None:
        dtypes.append(out_type.dtype)
    return upcast(*dtypes) if dtypes else "int8"


def add_calculate(num: Sequence[Any], denum: Sequence[Any], aslist: bool = False,
                  out_type: Any = None) -> Any:
    """``sum(num) - sum(denum)`` of constant values; as a list, ``[]`` when it is 0."""
    zero = np.asarray(0, dtype=_dtype([*num, *denum], out_type))
    value = reduce(np.add, num, zero) - reduce(np.add, denum, zero)
    value = np.asarray(value, dtype=zero.dtype)[()]
    if aslist:
        return [] if np.all(value == 0) else [value]
    return value


def mul_calculate(num: Sequence[Any], denum: Sequence[Any], aslist: bool = False,
                  out_type: Any = None) -> Any:
    """``prod(num) / prod(denum)`` of constant values; as a list, ``[]`` when it is 1."""
    dtype = _dtype([*num, *denum], out_type)
    one = np.asarray(1, dtype=dtype)
    value = reduce(np.multiply, num, one) / reduce(np.multiply, denum, one)
    if np.dtype(dtype).kind in "fc" or not (num or denum):
        value = np.asarray(value, dtype=dtype)[()]
    if aslist:
        return [] if np.all(value == 1) else [value]
    return value


def check_for_x_over_absX(numerators: list[Variable], denominators: list[Variable],
                          ) -> tuple[list[Variable], list[Variable]]:
    """``x / abs(x) -> sign(x)``: each denominator ``abs(x)`` whose ``x`` is a numerator
    is dropped with it and ``sign(x)`` joins the numerators. At ``x = 0`` that gives 0
    where ``x / abs(x)`` is nan, so opgraph's own canonizer does not call it."""
    for den in list(denominators):
        node = elemwise_of(den, ps.Abs)
        if node is None or node.inputs[0] not in numerators:
            continue
        x = node.inputs[0]
        denominators.remove(den)
        numerators.remove(x)
        numerators.append(sign(x))
    return numerators, denominators
