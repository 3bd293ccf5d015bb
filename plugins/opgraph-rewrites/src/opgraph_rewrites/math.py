"""What PyTensor code imports from ``pytensor.tensor.rewriting.math``.

- ``local_lift_transpose_through_dot``: ``dot(a, b).T -> dot(b.T, a.T)``;
- the multiplication canonizer under PyTensor's names (``local_mul_canonizer``,
  ``mul_canonizer``) and ``local_sum_prod_of_mul_or_div`` (the standard
  ``local_sum_of_mul``);
- ``local_reduce_chain``: ``max(max(x, 0), 0) -> max(x, (0, 1))``;
  ``local_reduce_join``: ``max(stack([a, b]), 0) -> maximum(a, b)``;
  exact for max/min/all/any, for sum/prod only with two terms or under
  ``config.fast_math`` (the grouping of the additions changes);
- opt-in (tag ``fast_math``, not in FAST_RUN): ``local_greedy_distributor``
  (``a/x + b/x -> (a+b)/x``) and the switch sinks
  (``switch(c, 0, x) * y -> switch(c, 0, x*y)``, which turns ``0 * inf`` into 0);
- ``local_useless_conj``: ``conj(x) -> x`` for a real ``x``;
- ``local_squeeze_of_dot_of_vectors``: the row/column-matrix form of a vector
  product (``pt.dot`` builds it as PyTensor 3 does) back to a Dot of vectors;
- ``local_reduce_broadcastable``: a reduction over axes of static length 1
  drops them (a reduction of one element is that element, cast);
- the product-tree helpers of :mod:`opgraph_rewrites.mul_tree`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.compile.database import optdb
from opgraph.config import config
from opgraph.graph.basic import Apply
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.rewriting.walking import in2out
from opgraph.scalar.arith import Add, Maximum, Minimum, Mul, TrueDiv
from opgraph.scalar.complex import Conj
from opgraph.scalar.logic import AND, EQ, GE, GT, LE, LT, NEQ, OR, XOR
from opgraph.scalar.structural import Cast, Switch
from opgraph.tensor.elemwise import DimShuffle, Elemwise
from opgraph.tensor.join import Join
from opgraph.tensor.math import add, mul, switch, true_div
from opgraph.tensor.products import Dot, dot
from opgraph.tensor.reduction import CAReduce, Prod, Sum
from opgraph.tensor.shape import Shape, Shape_i, static_int
from opgraph.tensor.subtensor import Subtensor
from opgraph.tensor.variable import constant
from opgraph_rewrites.basic_more import (
    local_mul_to_sqr,
    local_sum_prod_all_to_none,
    local_useless_reduce,
)
from opgraph_rewrites.canonicalize import AlgebraicCanonizer, _cannot_raise
from opgraph_rewrites.math_bessel import local_log_iv, local_log_kv
from opgraph_rewrites.math_dot_diag import (
    dot_diag_to_elemwise,
    local_block_diag_dot_to_dot_block_diag,
    local_sumsqr2dot,
)
from opgraph_rewrites.math_helpers import (
    add_calculate,
    check_for_x_over_absX,
    get_clients_at_depth1,
    get_clients_at_depth2,
    is_exp,
    is_mul,
    is_neg,
    isclose,
    mul_calculate,
    partition_num_or_denom,
    scalarconsts_rest,
)
from opgraph_rewrites.math_log_sign import local_log_div, local_sign_div
from opgraph_rewrites.math_logexp import (
    local_log_add_exp,
    local_logit_sigmoid,
    local_polygamma_to_digamma,
    local_polygamma_to_tri_gamma,
    local_sigmoid_logit,
    logdiffexp_to_log1mexpdiff,
)
from opgraph_rewrites.math_more import (
    local_div_exp_to_mul_exp,
    local_log_sqrt,
    local_mul_exp_to_exp_add,
    local_mul_pow_to_pow_add,
    local_pow_canonicalize,
    local_sqrt_sqr,
    local_sub_neg_to_add,
)
from opgraph_rewrites.math_named import (
    ERF_RULES,
    local_abs_lift,
    local_abs_merge,
    local_add_neg_to_sub,
    local_add_remove_zeros,
    local_div_by_one,
    local_div_to_reciprocal,
    local_mul_specialize,
    local_neg_div_neg,
    local_sum_of_neg_to_neg_of_sum,
)
from opgraph_rewrites.matmul import local_batched_matmul_to_core_matmul_with_reshape
from opgraph_rewrites.mul_tree import (
    compute_mul,
    is_1pexp,
    parse_mul_tree,
    perform_sigm_times_exp,
    simplify_mul,
)
from opgraph_rewrites.pow_squaring import local_pow_to_nested_squaring
from opgraph_rewrites.pytensor_names import (
    add_canonizer,
    local_1msigmoid,
    local_add_canonizer,
    local_exp_log,
    local_exp_log_nan_switch,
    local_expm1,
    local_log1p,
    local_log1p_plusminus_exp,
    local_log_sum_exp,
    local_opt_alloc,
    local_pow_specialize,
    local_reciprocal_1_plus_exp,
    local_sigm_times_exp,
    log1msigm_to_softplus,
    log1p_neg_sigmoid,
    logmexpm1_to_log1mexp,
    logsigm_to_softplus,
)
from opgraph_rewrites.sigmoid_div import local_exp_over_1_plus_exp
from opgraph_rewrites.specialize import local_sum_of_mul
from opgraph_rewrites.utils import const_value, is_elemwise, keep_type, single_client

__all__ = [
    "add_calculate",
    "add_canonizer",
    "check_for_x_over_absX",
    "compute_mul",
    "dot_diag_to_elemwise",
    "fast_math_rewriters",
    "get_clients_at_depth1",
    "get_clients_at_depth2",
    "is_1pexp",
    "is_exp",
    "is_mul",
    "is_neg",
    "isclose",
    "local_1msigmoid",
    "local_abs_lift",
    "local_abs_merge",
    "local_add_canonizer",
    "local_add_neg_to_sub",
    "local_add_remove_zeros",
    "local_batched_matmul_to_core_matmul_with_reshape",
    "local_block_diag_dot_to_dot_block_diag",
    "local_div_by_one",
    "local_div_exp_to_mul_exp",
    "local_div_switch_sink",
    "local_div_to_reciprocal",
    "local_dot_to_mul",
    "local_erf_minus_one",
    "local_erf_neg_minus_one",
    "local_exp_log",
    "local_exp_log_nan_switch",
    "local_exp_over_1_plus_exp",
    "local_expm1",
    "local_greedy_distributor",
    "local_lift_transpose_through_dot",
    "local_log1p",
    "local_log1p_plusminus_exp",
    "local_log_add_exp",
    "local_log_div",
    "local_log_iv",
    "local_log_kv",
    "local_log_sqrt",
    "local_log_sum_exp",
    "local_logit_sigmoid",
    "local_mul_canonizer",
    "local_mul_exp_to_exp_add",
    "local_mul_pow_to_pow_add",
    "local_mul_specialize",
    "local_mul_switch_sink",
    "local_mul_to_sqr",
    "local_neg_div_neg",
    "local_one_minus_erf",
    "local_one_minus_erfc",
    "local_one_plus_erf",
    "local_opt_alloc",
    "local_polygamma_to_digamma",
    "local_polygamma_to_tri_gamma",
    "local_pow_canonicalize",
    "local_pow_specialize",
    "local_pow_to_nested_squaring",
    "local_reciprocal_1_plus_exp",
    "local_reduce_broadcastable",
    "local_reduce_chain",
    "local_reduce_join",
    "local_sigm_times_exp",
    "local_sigmoid_logit",
    "local_sign_div",
    "local_sqrt_sqr",
    "local_squeeze_of_dot_of_vectors",
    "local_sub_neg_to_add",
    "local_sum_of_neg_to_neg_of_sum",
    "local_sum_prod_all_to_none",
    "local_sum_prod_of_mul_or_div",
    "local_sumsqr2dot",
    "local_useless_conj",
    "local_useless_elemwise_comparison",
    "local_useless_reduce",
    "log1msigm_to_softplus",
    "log1p_neg_sigmoid",
    "logdiffexp_to_log1mexpdiff",
    "logmexpm1_to_log1mexp",
    "logsigm_to_softplus",
    "math_rewriters",
    "mul_calculate",
    "mul_canonizer",
    "parse_mul_tree",
    "partition_num_or_denom",
    "perform_sigm_times_exp",
    "scalarconsts_rest",
    "simplify_mul",
]


def _fixed(node: Apply, new: Any) -> Any:
    out = keep_type(node.outputs[0], new)
    return [out] if out is not None else False


@node_rewriter([DimShuffle], name="local_lift_transpose_through_dot")
def local_lift_transpose_through_dot(fgraph: Any, node: Apply) -> Any:
    """dot(a, b).T -> dot(b.T, a.T) for matrices (exact: the same products and sums)."""
    if node.op.input_ndim != 2 or node.op.new_order != (1, 0):
        return False
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Dot):
        return False
    a, b = inner.inputs
    if a.type.ndim != 2 or b.type.ndim != 2:
        return False
    if fgraph is not None and len(fgraph.clients.get(node.inputs[0], [])) != 1:
        return False
    return _fixed(node, dot(b.T, a.T))


@node_rewriter([Dot], name="local_dot_to_mul")
def local_dot_to_mul(fgraph: Any, node: Apply) -> Any:
    """dot over an axis of static length 1 is a product: ``dot(a, b)`` of shapes (1,)
    and (1,), (n, 1) and (1,), or (1,) and (1, m) -> ``a[0] * b[0]``, ``a[:, 0] * b[0]``,
    ``a[0] * b[0, :]`` (one product per element, no sum). An outer product
    ((n, 1) by (1, m)) stays a dot (BLAS computes it well), unless ``n`` or ``m`` is 1:
    then it is a broadcast product ``a * b`` (the gradient of a vector product built as
    PyTensor 3 builds it, ``dot(v[None], w[:, None])``)."""
    a, b = node.inputs
    if a.type.shape[-1] != 1 or b.type.shape[0] != 1:
        return False
    if a.type.ndim + b.type.ndim > 3:
        if 1 not in (a.type.shape[0], b.type.shape[1]):
            return False
        return _fixed(node, mul(a, b))
    left = a[0] if a.type.ndim == 1 else a[:, 0]
    right = b[0]
    return _fixed(node, mul(left, right))


def _drop_unit_axis(x: Any, axis: int) -> Any:
    """``x`` (a matrix whose ``axis`` has static length 1) as a vector: the vector
    itself when ``x`` is one made a row or column, else a DimShuffle dropping the axis
    (the lift rewrites move it into what computed ``x``)."""
    owner = x.owner
    expand = ("x", 0) if axis == 0 else (0, "x")
    if owner is not None and isinstance(owner.op, DimShuffle) and owner.op.input_ndim == 1 \
            and tuple(owner.op.new_order) == expand:
        return owner.inputs[0]
    return x.dimshuffle(1 - axis)


@node_rewriter([DimShuffle], name="local_squeeze_of_dot_of_vectors")
def local_squeeze_of_dot_of_vectors(fgraph: Any, node: Apply) -> Any:
    """``dot(v[None], M)[0] -> dot(v, M)``, ``dot(M, v[:, None])[:, 0] -> dot(M, v)``
    (and both): the vector product ``pt.dot`` writes as PyTensor 3 does, as one Dot
    of vectors (the same products and sums, so exact)."""
    order = tuple(node.op.new_order)
    if "x" in order or list(order) != sorted(order) or len(order) == node.op.input_ndim:
        return False
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Dot):
        return False
    if fgraph is not None and not single_client(fgraph, node.inputs[0]):
        return False
    a, b = inner.inputs
    sides = (["a"] if a.type.ndim == 2 else []) + (["b"] if b.type.ndim == 2 else [])
    for axis in set(range(node.op.input_ndim)) - set(order):
        if sides[axis] == "a" and a.type.shape[0] == 1:
            a = _drop_unit_axis(a, 0)
        elif sides[axis] == "b" and b.type.shape[1] == 1:
            b = _drop_unit_axis(b, 1)
        else:
            return False
    return _fixed(node, inner.op(a, b))


local_mul_canonizer = AlgebraicCanonizer("mul")
mul_canonizer = in2out(local_mul_canonizer, name="mul_canonizer")
local_sum_prod_of_mul_or_div = local_sum_of_mul()


def _exact_reduction(op: CAReduce, n_terms: int | None = None) -> bool:
    """Regrouping this reduction's terms keeps the result bit for bit."""
    if not isinstance(op, Sum | Prod):
        return True  # max, min, all, any: order-free
    if config.fast_math:
        return True
    return n_terms is not None and n_terms <= 2


@node_rewriter([CAReduce], name="local_reduce_chain")
def local_reduce_chain(fgraph: Any, node: Apply) -> Any:
    """max(max(x, axis=1), axis=0) -> max(x, axis=(0, 1)) (same op, same dtypes)."""
    (inner,) = node.inputs
    prev = inner.owner
    if prev is None or not isinstance(prev.op, CAReduce) or type(prev.op) is not type(node.op):
        return False
    if prev.op.scalar_op != node.op.scalar_op or node.op.dtype != prev.op.dtype:
        return False
    if node.op.acc_dtype != prev.op.acc_dtype or not _exact_reduction(node.op):
        return False
    if fgraph is not None and not single_client(fgraph, inner):
        return False
    x = prev.inputs[0]
    first = prev.op.axis if prev.op.axis is not None else tuple(range(x.type.ndim))
    kept = [k for k in range(x.type.ndim) if k not in first]
    second = node.op.axis if node.op.axis is not None else tuple(range(len(kept)))
    axes = tuple(sorted((*first, *(kept[k] for k in second))))
    return _fixed(node, node.op._clone(axes)(x))


@node_rewriter([CAReduce], name="local_reduce_join")
def local_reduce_join(fgraph: Any, node: Apply) -> Any:
    """reduce(join(0, a[None], b[None]), axis=0) -> the elementwise op of a and b."""
    (joined,) = node.inputs
    jn = joined.owner
    if jn is None or not isinstance(jn.op, Join) or node.op.axis is None:
        return False
    axis, *parts = jn.inputs
    if static_int(axis) != 0 or node.op.axis != (0,) or len(parts) < 2:
        return False
    if not _exact_reduction(node.op, len(parts)):
        return False
    terms = []
    for p in parts:
        ds = p.owner
        if ds is None or not isinstance(ds.op, DimShuffle) or ds.op.new_order[0] != "x" or \
                ds.op.new_order[1:] != tuple(range(ds.op.input_ndim)):
            return False
        terms.append(ds.inputs[0])
    out = terms[0]
    op = Elemwise(node.op.scalar_op)
    for t in terms[1:]:  # a left fold: the order NumPy reduces an outer axis in
        out = op(out, t)
    return _fixed(node, out)


def _switch_with_zero(var: Any) -> tuple[Any, int] | None:
    """(switch node, index of the branch that is a constant 0) for switch(c, 0, x)."""
    node = var.owner
    if node is None or not isinstance(node.op, Elemwise) or not isinstance(
            node.op.scalar_op, Switch):
        return None
    for k in (1, 2):
        value = const_value(node.inputs[k])
        if value is not None and value == 0:
            return node, k
    return None


def _switch_sink(node: Apply, others: Any) -> Any:
    """op(switch(c, 0, x), *rest) -> switch(c, 0, op(x, *rest)) for the first such input."""
    for i, inp in enumerate(node.inputs):
        found = _switch_with_zero(inp)
        if found is None or (others == "numerator" and i != 0):
            continue
        sw, k = found
        rest = list(node.inputs)
        rest[i] = sw.inputs[3 - k]
        inner = node.op(*rest)
        zero = sw.inputs[k]
        new = switch(sw.inputs[0], zero, inner) if k == 1 else switch(sw.inputs[0], inner, zero)
        return _fixed(node, new)
    return False


@node_rewriter([Elemwise], name="local_mul_switch_sink")
def local_mul_switch_sink(fgraph: Any, node: Apply) -> Any:
    """switch(c, 0, x) * y -> switch(c, 0, x * y): the zero stays zero even where y is
    inf or nan (a liberty, as in PyTensor: it keeps gradients of switch finite)."""
    if not is_elemwise(node, Mul):
        return False
    return _switch_sink(node, "any")


@node_rewriter([Elemwise], name="local_div_switch_sink")
def local_div_switch_sink(fgraph: Any, node: Apply) -> Any:
    """switch(c, 0, x) / y -> switch(c, 0, x / y) (the same liberty as the mul sink)."""
    if not is_elemwise(node, TrueDiv):
        return False
    return _switch_sink(node, "numerator")


@node_rewriter([Elemwise], name="local_greedy_distributor")
def local_greedy_distributor(fgraph: Any, node: Apply) -> Any:
    """a/x + b/x -> (a + b)/x and a*c + b*c -> (a + b)*c (one shared factor at a time;
    rounds differently, so only by name or under the tag fast_math)."""
    if not is_elemwise(node, Add) or len(node.inputs) < 2:
        return False
    terms = [t.owner for t in node.inputs]
    if any(t is None or not isinstance(t.op, Elemwise) or len(t.inputs) != 2 for t in terms):
        return False
    if all(is_elemwise(t, TrueDiv) for t in terms):
        den = terms[0].inputs[1]
        if all(t.inputs[1] is den for t in terms):
            return _fixed(node, true_div(add(*[t.inputs[0] for t in terms]), den))
    if all(is_elemwise(t, Mul) for t in terms):
        for shared in terms[0].inputs:
            if all(shared in t.inputs for t in terms):
                rest = [t.inputs[1] if t.inputs[0] is shared else t.inputs[0] for t in terms]
                return _fixed(node, mul(add(*rest), shared))
    return False


def _nonnegative(var: Any, budget: int = 8) -> bool:
    """``var`` is known >= 0: a shape entry, a non-negative constant, or a sum of those."""
    value = const_value(var)
    if value is not None:
        return bool(np.all(np.asarray(value) >= 0))
    node = var.owner
    if node is None or budget <= 0:
        return False
    if isinstance(node.op, Shape_i):
        return True
    if isinstance(node.op, Subtensor) and node.inputs[0].owner is not None and isinstance(
            node.inputs[0].owner.op, Shape):
        return True
    if is_elemwise(node, Add) or is_elemwise(node, Cast):
        return all(_nonnegative(i, budget - 1) for i in node.inputs)
    return False


def _is_discrete(var: Any) -> bool:
    return var.type.dtype == "bool" or var.type.dtype[:3] in ("int", "uin")


def _known(out: Any, value: Any, refs: Any) -> Any:
    fixed = keep_type(out, value, refs=refs)  # broadcast like the inputs
    return [fixed] if fixed is not None else False


def _useless_and_or(sop: Any, a: Any, b: Any, out: Any) -> Any:
    """``x & 0 -> 0``, ``x | 0 -> x``; for booleans also ``x & True -> x``,
    ``x | True -> True`` (exact: bitwise ops on integers and booleans)."""
    for c_var, other in ((a, b), (b, a)):
        c = const_value(c_var)
        if c is None:
            continue
        if c == 0:
            new = other if isinstance(sop, OR) else constant(np.asarray(0, dtype=out.type.dtype))
        elif out.type.dtype == "bool":
            new = other if isinstance(sop, AND) else constant(np.asarray(True))
        else:
            continue
        return _known(out, new, [a, b])
    return False


def _useless_max_min(sop: Any, a: Any, b: Any, out: Any) -> Any:
    """``maximum(n, c) -> n`` and ``minimum(n, c) -> c`` for a shape entry (or another
    integer known >= 0) ``n`` and a scalar constant ``c <= 0``."""
    if not _is_discrete(out):
        return False
    for c_var, other in ((a, b), (b, a)):
        c = const_value(c_var)
        if c is not None and c_var.type.ndim == 0 and c <= 0 and _nonnegative(other):
            return _known(out, other if isinstance(sop, Maximum) else c_var, [a, b])
    return False


@node_rewriter([Elemwise], name="local_useless_elemwise_comparison")
def local_useless_elemwise_comparison(fgraph: Any, node: Apply) -> Any:
    """Comparisons whose answer is known: ``x < x`` and ``x > x`` are false (NaN too);
    ``x <= x``, ``x >= x``, ``x == x`` are true and ``x != x``, ``x ^ x`` false for
    integers and booleans (a NaN is not equal to itself); ``x & 0`` is 0, ``b | True`` is
    true; a shape entry ``< 0`` is false, ``>= 0`` true, ``== -1`` false."""
    sop = node.op.scalar_op
    if len(node.inputs) != 2:
        return False
    a, b = node.inputs
    out = node.outputs[0]
    answer = None
    if a is b and not (config.fast_math or _cannot_raise(a)):
        return False  # dropping ``a`` would hide its error (e.g. an integer power)
    if a is b:
        if isinstance(sop, LT | GT):
            answer = False
        elif isinstance(sop, LE | GE | EQ) and _is_discrete(a):
            answer = True
        elif isinstance(sop, NEQ | XOR) and _is_discrete(a):
            answer = 0
    elif isinstance(sop, AND | OR) and _is_discrete(out):
        return _useless_and_or(sop, a, b, out)
    elif isinstance(sop, Maximum | Minimum):
        return _useless_max_min(sop, a, b, out)
    else:
        zero = const_value(b)
        if zero is not None and _nonnegative(a):
            if isinstance(sop, LT) and zero <= 0:
                answer = False
            elif isinstance(sop, GE) and zero <= 0:
                answer = True
            elif isinstance(sop, EQ) and zero < 0:
                answer = False
    if answer is None:
        return False
    value = constant(np.asarray(answer, dtype=out.type.dtype))
    fixed = keep_type(out, value, refs=node.inputs)  # broadcast like the inputs
    return [fixed] if fixed is not None else False


local_one_minus_erf = ERF_RULES["local_one_minus_erf"]
local_one_plus_erf = ERF_RULES["local_one_plus_erf"]
local_erf_minus_one = ERF_RULES["local_erf_minus_one"]
local_one_minus_erfc = ERF_RULES["local_one_minus_erfc"]
local_erf_neg_minus_one = ERF_RULES["local_erf_neg_minus_one"]

_REGISTERED = {"local_grad_log_erfc_neg": ("stabilize", "special_grad_log_erfc"),
               "local_log_erfc": ("stabilize", "special_log_erfc")}
"""PyTensor names of rewrites another plugin registers (found in the database by name)."""


def __getattr__(name: str) -> Any:
    where = _REGISTERED.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    phase, entry = where
    if entry not in optdb[phase]:
        raise AttributeError(
            f"{name}: the rewrite {entry!r} is not registered (it comes with opgraph-special)")
    return optdb[phase][entry]


@node_rewriter([CAReduce], name="local_reduce_broadcastable")
def local_reduce_broadcastable(fgraph: Any, node: Apply) -> Any:
    """reduce(x, axes) -> reduce(x without its length-1 axes among ``axes``), or just
    that DimShuffle (cast to the reduction's dtype) when no other axis is reduced."""
    (x,) = node.inputs
    ndim = x.type.ndim
    axes = tuple(range(ndim)) if node.op.axis is None else node.op.axis
    ones = [a for a in axes if x.type.shape[a] == 1]
    if not ones:
        return None
    kept = [k for k in range(ndim) if k not in ones]
    squeezed = DimShuffle(input_ndim=ndim, new_order=tuple(kept))(x)
    rest = tuple(kept.index(a) for a in axes if a not in ones)
    new = node.op._clone(rest)(squeezed) if rest else squeezed
    return _fixed(node, new)


@node_rewriter([CAReduce], name="local_reduce_of_scalar")
def local_reduce_of_scalar(fgraph: Any, node: Apply) -> Any:
    """reduce(x) -> x for a 0-d ``x`` (nothing to reduce: PyMC sums scalar logp terms)."""
    (x,) = node.inputs
    if x.type.ndim != 0 or node.op.axis not in (None, ()):
        return None
    return _fixed(node, x)


@node_rewriter([Elemwise], name="local_useless_conj")
def local_useless_conj(fgraph: Any, node: Apply) -> Any:
    """conj(x) -> x when ``x`` is real (the conjugate of a real number is itself)."""
    if not isinstance(node.op.scalar_op, Conj):
        return None
    (x,) = node.inputs
    if x.type.dtype.startswith("complex"):
        return None
    return _fixed(node, x)


def math_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """(name, rewriter, extra tags) for the canonicalize phase ("fast_math" ones are
    registered without fast_run by :mod:`opgraph_rewrites.standard`)."""
    return [
        ("local_lift_transpose_through_dot", local_lift_transpose_through_dot, ()),
        ("local_reduce_chain", local_reduce_chain, ("fast_compile",)),
        ("local_reduce_broadcastable", local_reduce_broadcastable, ("fast_compile",)),
        ("local_reduce_of_scalar", local_reduce_of_scalar, ("fast_compile",)),
        ("local_useless_conj", local_useless_conj, ("fast_compile",)),
        ("local_reduce_join", local_reduce_join, ()),
        ("local_dot_to_mul", local_dot_to_mul, ()),
        ("local_squeeze_of_dot_of_vectors", local_squeeze_of_dot_of_vectors, ("fast_compile",)),
        ("local_useless_elemwise_comparison", local_useless_elemwise_comparison,
         ("fast_compile",)),
    ]


def fast_math_rewriters() -> list[tuple[str, Any, tuple[str, ...]]]:
    """Opt-in rules (by name or the tag ``fast_math``): they change values at edges."""
    return [
        ("local_greedy_distributor", local_greedy_distributor, ("fast_math",)),
        ("local_mul_switch_sink", local_mul_switch_sink, ("fast_math",)),
        ("local_div_switch_sink", local_div_switch_sink, ("fast_math",)),
    ]

