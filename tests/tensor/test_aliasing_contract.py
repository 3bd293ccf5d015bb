"""The memory contract of every tensor Op's ``perform``, checked on real values.

Rewrites (inplace Elemwise), the DestroyHandler and ``function``'s output
copies all trust ``view_map`` / ``destroy_map``.  An op whose result shares
memory with an input it does not declare (Reshape once returned an undeclared
NumPy view; FAST_RUN then wrote ``Mul[inplace]`` into the caller's array) or
that overwrites an input outside ``destroy_map`` silently corrupts data.

For each op class we build representative nodes (several shapes, including
length-1 and zero-size dimensions), feed them inputs in several memory
layouts (C, Fortran, strided, negative strides), call ``perform`` directly and
assert:

- an output that may share memory with an input (``np.shares_memory`` or a
  common base array, which also catches zero-size views) is declared in
  ``view_map`` or ``destroy_map``;
- an input whose bytes changed is declared in ``destroy_map``.

Op classes are discovered by walking the modules that define them; a class
with no registered case fails ``test_every_op_class_has_a_case``, so a new op
cannot skip this audit.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.graph.op import Op
from opgraph.scalar.basic import ScalarOp
from opgraph.scalar.composite import Composite
from opgraph.scalar.type import get_scalar_type
from opgraph.tensor import fft as pt_fft
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.fourier import fft as fourier_fft
from opgraph.tensor.type import TensorType

from .aliasing_cases_arrays import ARRAY_CASES
from .aliasing_cases_more import MORE_CASES
from .helpers import evaluate, input_type_for

# Modules whose Op subclasses are audited (opgraph.tensor.* is walked automatically).
EXTRA_MODULES = (
    "opgraph.autodiff.ops",
    "opgraph.printing",
    "opgraph.printing_op",
    "opgraph.ifelse",
)

# Bases that are never instantiated themselves; their subclasses are audited.
# BlockwiseWithCoreShape is never built (it stands for a Numba-only PyTensor Op).
ABSTRACT = {"ReadOp", "UpdateOp", "_SoftmaxBase", "_GradientIdentity", "BlockwiseWithCoreShape"}

LAYOUTS = ("c", "fortran", "strided", "reversed")

Case = tuple[str, Apply, dict]  # (label, node, {free input variable: value})


# --------------------------------------------------------------------------- discovery


def _audited_modules() -> list[Any]:
    mods = []
    for info in pkgutil.iter_modules(pt.__path__):
        mods.append(importlib.import_module(f"opgraph.tensor.{info.name}"))
    mods += [importlib.import_module(name) for name in EXTRA_MODULES]
    return mods


def discovered_op_classes() -> dict[str, type]:
    """Every Op subclass defined in an audited module, by qualified name."""
    found: dict[str, type] = {}
    for mod in _audited_modules():
        for _name, cls in inspect.getmembers(mod, inspect.isclass):
            if issubclass(cls, Op) and cls.__module__ == mod.__name__:
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


# --------------------------------------------------------------------------- layouts


def relayout(value: Any, kind: str) -> Any:
    """An independent array equal to ``value`` with the memory layout ``kind``."""
    if not isinstance(value, np.ndarray):
        return value
    a = np.array(value, copy=True)
    if a.ndim == 0 or kind == "c":
        return a
    if kind == "fortran":
        return np.asfortranarray(a).copy(order="F")
    if kind == "strided":
        buf = np.zeros((*a.shape[:-1], 2 * a.shape[-1] + 1), dtype=a.dtype)
        view = buf[..., 1::2]
        view[...] = a
        return view
    if kind == "reversed":
        return np.ascontiguousarray(a[::-1])[::-1]
    raise ValueError(kind)


def _base(a: np.ndarray) -> Any:
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a


def may_alias(out: Any, inp: Any) -> bool:
    """True when ``out`` may live in ``inp``'s memory (zero-size views included)."""
    if not isinstance(out, np.ndarray) or not isinstance(inp, np.ndarray):
        return False
    return out is inp or np.shares_memory(out, inp) or _base(out) is _base(inp)


def run_perform(node: Apply, values: Sequence[Any]) -> list[Any]:
    cells: list[list[Any]] = [[None] for _ in node.outputs]
    node.op.perform(node, list(values), cells)
    return [c[0] for c in cells]


def run_thunk(node: Apply, values: Sequence[Any]) -> list[Any]:
    """Run the op's own ``make_thunk`` (what the Python linkers call) to completion."""
    storage = {v: [val] for v, val in zip(node.inputs, values)}
    storage.update({o: [None] for o in node.outputs})
    computed = {v: [True] for v in node.inputs}
    computed.update({o: [False] for o in node.outputs})
    thunk = node.op.make_thunk(node, storage, computed, [])
    pending = thunk()
    assert not pending, f"{node.op}: the thunk still needs inputs {pending}"
    return [storage[o][0] for o in node.outputs]


def has_own_thunk(op: Op) -> bool:
    return type(op).make_thunk is not Op.make_thunk


def check_contract(
    label: str, node: Apply, values: Sequence[Any], run: Callable = run_perform
) -> list[str]:
    """Run the node once (``perform`` by default); the contract violations (empty if fine)."""
    op = node.op
    view_map = getattr(op, "view_map", {}) or {}
    destroy_map = getattr(op, "destroy_map", {}) or {}
    declared = {(o, i) for m in (view_map, destroy_map) for o, ins in m.items() for i in ins}
    destroyed_ok = {i for ins in destroy_map.values() for i in ins}
    before = [
        (v.shape, v.dtype, v.tobytes()) if isinstance(v, np.ndarray) else None for v in values
    ]
    problems = [
        f"{label}: {op} declares output {o} / input {i}, but the node has "
        f"{len(node.outputs)} output(s) and {len(node.inputs)} input(s)"
        for o, i in sorted(declared)
        if not (0 <= o < len(node.outputs) and 0 <= i < len(node.inputs))
    ]
    with np.errstate(all="ignore"):
        results = run(node, values)
    for o, cell in enumerate(results):
        for i, v in enumerate(values):
            if may_alias(cell, v) and (o, i) not in declared:
                problems.append(
                    f"{label}: {op} output {o} shares memory with input {i} "
                    f"({node.inputs[i]}) but view_map={view_map}, destroy_map={destroy_map}"
                )
    for i, (v, snap) in enumerate(zip(values, before)):
        if snap is None or i in destroyed_ok:
            continue
        if (v.shape, v.dtype, v.tobytes()) != snap:
            problems.append(
                f"{label}: {op} modified input {i} ({node.inputs[i]}) but destroy_map="
                f"{destroy_map}"
            )
    return problems


def run_cases(cases: Iterator[Case], layouts: Sequence[str] = LAYOUTS) -> tuple[int, list]:
    """Check each case under each layout; (number of nodes checked, violations)."""
    problems: list[str] = []
    n = 0
    for label, node, givens in cases:
        base_values = evaluate(list(node.inputs), givens) if node.inputs else []
        for kind in layouts:
            values = [relayout(v, kind) for v in base_values]
            problems += check_contract(f"{label} [{kind}]", node, values)
            n += 1
            if has_own_thunk(node.op):
                values = [relayout(v, kind) for v in base_values]
                problems += check_contract(f"{label} [{kind}, thunk]", node, values, run_thunk)
    return n, problems


# --------------------------------------------------------------------------- case helpers

RNG = np.random.default_rng(20240607)


def arr(shape: Sequence[int], dtype: str = "float64", low: float = 0.1, high: float = 0.9) -> Any:
    if np.dtype(dtype).kind == "b":
        return RNG.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(1, 5, size=shape).astype(dtype)
    return RNG.uniform(low, high, size=shape).astype(dtype)


def var_for(value: Any, name: str) -> Variable:
    return input_type_for(value)(name)


def node_of(out: Variable | Sequence[Variable]) -> Apply:
    v = out[0] if isinstance(out, list | tuple) else out
    assert v.owner is not None, f"expected an Apply output, got {v}"
    return v.owner


def unary(build: Callable[[Variable], Any], shapes: Sequence[Sequence[int]], label: str,
          dtype: str = "float64") -> Iterator[Case]:
    for shape in shapes:
        xv = arr(shape, dtype)
        x = var_for(xv, "x")
        yield f"{label} {tuple(shape)}", node_of(build(x)), {x: xv}


MATRIX_SHAPES = [(3, 4), (1, 4), (3, 1), (0, 3), (1, 1)]
ANY_SHAPES = [(), (5,), (1,), (0,), (3, 4), (1, 4), (0, 3), (2, 1, 3)]


# --------------------------------------------------------------------------- Elemwise


def scalar_ops() -> list[ScalarOp]:
    """Module-level scalar op instances of the core and (if installed) opgraph-special."""
    import opgraph.scalar as ps

    mods = [ps.arith, ps.math, ps.logic, ps.structural, ps.basic, ps]
    try:
        mods.append(importlib.import_module("opgraph_special.scalar"))
    except ImportError:
        pass
    ops: list[ScalarOp] = []
    for mod in mods:
        for value in vars(mod).values():
            if isinstance(value, ScalarOp) and not isinstance(value, Composite):
                if not any(value is o for o in ops):
                    ops.append(value)
    return ops


def _elemwise_node(op: ScalarOp, shapes: Sequence[Sequence[int]], pattern: dict) -> Any:
    nin = op.nin if op.nin >= 0 else 2
    for dtype in ("float64", "int64", "bool"):
        vals = [arr(shapes[k % len(shapes)], dtype) for k in range(nin)]
        vars_ = [var_for(v, f"i{k}") for k, v in enumerate(vals)]
        try:
            node = Elemwise(op, pattern).make_node(*vars_)
        except (TypeError, ValueError, NotImplementedError):
            continue
        return node, dict(zip(vars_, vals))
    return None


ELEMWISE_SHAPES = [[(3, 4)], [(3, 4), (1, 4)], [(1, 4), (3, 4)], [(0, 3)], [()], [(2, 1, 3)]]


def composites() -> Iterator[tuple[str, Composite, str]]:
    import opgraph.scalar as ps

    a, b = get_scalar_type("float64")(), get_scalar_type("float64")()
    yield "a*b+exp(a)", Composite([a, b], [ps.add(ps.mul(a, b), ps.exp(a))]), "float64"
    yield "identity a", Composite([a, b], [a]), "float64"
    yield "(b, a+b)", Composite([a, b], [b, ps.add(a, b)]), "float64"
    yield "(a, a)", Composite([a, b], [a, a]), "float64"
    yield "cast(a, f64)", Composite([a, b], [ps.cast(a, "float64")]), "float64"
    yield "second(a, b)", Composite([a, b], [ps.second(a, b)]), "float64"


def elemwise_cases() -> Iterator[Case]:
    for op in scalar_ops():
        for shapes in ELEMWISE_SHAPES:
            for pattern in ({}, {0: 0}):
                built = _elemwise_node(op, shapes, pattern)
                if built is not None:
                    node, givens = built
                    yield f"Elemwise({op}, {pattern}) {shapes}", node, givens
    for label, comp, dtype in composites():
        for shapes in ([(3, 4), (3, 4)], [(3, 4), (1, 4)], [(1, 4), (3, 4)], [(0, 2), (0, 2)],
                       [(), ()]):
            for pattern in ({}, {0: 0}, {0: 1}):
                vals = [arr(s, dtype) for s in shapes]
                vars_ = [var_for(v, f"i{k}") for k, v in enumerate(vals)]
                try:
                    node = Elemwise(comp, pattern).make_node(*vars_)
                except (TypeError, ValueError):
                    continue
                yield f"Composite {label} {pattern} {shapes}", node, dict(zip(vars_, vals))


# --------------------------------------------------------------------------- other ops


def dimshuffle_cases() -> Iterator[Case]:
    yield from unary(lambda x: x.T, MATRIX_SHAPES, "transpose")
    yield from unary(lambda x: x.dimshuffle(0, "x", 1), MATRIX_SHAPES, "expand")
    yield from unary(lambda x: x.dimshuffle("x"), [()], "0-d expand")
    yield from unary(lambda x: pt.squeeze(pt.specify_shape(x, (1, None)), 0), [(1, 4), (1, 0)],
                     "squeeze")


def careduce_cases() -> Iterator[Case]:
    import opgraph.scalar as ps
    from opgraph.tensor.reduction import CAReduce, Min

    def min_node(x: Any, axis: Any = None) -> Any:  # pt.min builds -max(-x), as PyTensor
        axes = (axis,) if isinstance(axis, int) else axis
        return Min(axis=None if axes is None or len(axes) == x.ndim else axes)(x)

    fns = {"sum": pt.sum, "prod": pt.prod, "max": pt.max, "min": min_node,
           "all": pt.all, "any": pt.any}
    for name, fn in fns.items():
        for axis in (None, 0, 1, (), (0, 1)):
            shapes = [s for s in MATRIX_SHAPES if name in ("sum", "prod", "all", "any")
                      or axis == () or 0 not in s]
            yield from unary(lambda x, fn=fn, axis=axis: fn(x, axis=axis), shapes,
                             f"{name} axis={axis}")
        yield from unary(lambda x, fn=fn: fn(x), [()], f"{name} 0-d")
    a, b = get_scalar_type("float64")(), get_scalar_type("float64")()
    fused_add = Composite([a, b], [ps.add(a, b)])  # not a NumPy ufunc: the generic loop
    generic = [(ps.xor, "int64"), (ps.xor, "bool"), (ps.add, "int8"), (fused_add, "float64")]
    for sop, dtype in generic:
        for axis in ((0,), (1,), (), None):
            yield from unary(lambda x, sop=sop, axis=axis: CAReduce(sop, axis)(x),
                             [(3, 4), (1, 4), (3, 1)], f"CAReduce({sop}) axis={axis}", dtype)


def argmax_cases() -> Iterator[Case]:
    for fn in (pt.argmax, pt.argmin):
        for axis in (None, 0, 1, (0, 1)):
            yield from unary(lambda x, fn=fn, axis=axis: fn(x, axis=axis),
                             [(3, 4), (1, 4), (3, 1)], f"{fn.__name__} axis={axis}")
        yield from unary(lambda x, fn=fn: fn(x), [(), (5,)], f"{fn.__name__}")


def binary(build: Callable[[Variable, Variable], Any], pairs: Sequence, label: str,
           dtypes: tuple[str, str] = ("float64", "float64")) -> Iterator[Case]:
    for sx, sy in pairs:
        xv, yv = arr(sx, dtypes[0]), arr(sy, dtypes[1])
        x, y = var_for(xv, "x"), var_for(yv, "y")
        yield f"{label} {sx} {sy}", node_of(build(x, y)), {x: xv, y: yv}


def dot_cases() -> Iterator[Case]:
    pairs = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)), ((1, 1), (1, 1)),
             ((0, 3), (3, 2)), ((2, 0), (0, 3))]
    yield from binary(pt.dot, pairs, "dot")
    yield from binary(pt.dot, [((2, 3), (3, 4))], "dot int", ("int64", "int64"))


def matmul_cases() -> Iterator[Case]:
    pairs = [((2, 3), (3, 4)), ((5, 2, 3), (5, 3, 2)), ((1, 1), (1, 1)), ((0, 3), (3, 2)),
             ((3,), (3, 2))]
    yield from binary(pt.matmul, pairs, "matmul")


def blockwise_cases() -> Iterator[Case]:
    from opgraph.tensor.blockwise import Blockwise
    from opgraph.tensor.elemwise import DimShuffle
    from opgraph.tensor.products import Dot

    batched_dot = Blockwise(Dot(), "(m,k),(k,n)->(m,n)")
    pairs = [((2, 3, 4), (4, 2)), ((1, 2, 2), (3, 2, 2)), ((0, 2, 3), (3, 1))]
    yield from binary(batched_dot, pairs, "blockwise dot")
    # a core op whose perform returns a view of its input: the batch result must not alias
    transpose = Blockwise(DimShuffle(input_ndim=2, new_order=(1, 0)), "(m,n)->(n,m)")
    yield from unary(transpose, [(3, 2, 4), (1, 1, 1)], "blockwise transpose")


def shape_cases() -> Iterator[Case]:
    yield from unary(pt.shape, ANY_SHAPES, "shape")


def shape_i_cases() -> Iterator[Case]:
    from opgraph.tensor.shape import Shape_i

    yield from unary(lambda x: Shape_i(0)(x), [s for s in ANY_SHAPES if s], "shape_i")


def make_vector_cases() -> Iterator[Case]:
    from opgraph.tensor.shape import make_vector

    for n in (1, 3):
        vals = [np.asarray(k + 1, dtype="int64") for k in range(n)]
        vars_ = [var_for(v, f"s{k}") for k, v in enumerate(vals)]
        yield f"make_vector n={n}", node_of(make_vector(*vars_)), dict(zip(vars_, vals))
    fv = np.asarray(1.5)
    f = var_for(fv, "f")
    yield "make_vector float", node_of(make_vector(f, dtype="float64")), {f: fv}


def reshape_cases() -> Iterator[Case]:
    targets = {(3, 4): [(12,), (4, 3), (3, 4), (-1,), (2, 6)], (1, 4): [(4,), (4, 1), (1, 4)],
               (0, 3): [(0,), (3, 0), (0, 3)], (): [(1,), (1, 1)], (5,): [(5, 1), (5,)],
               (1, 1): [()]}
    for shape, outs in targets.items():
        for target in outs:
            yield from unary(lambda x, t=target: pt.reshape(x, t), [shape], f"reshape->{target}")
    # A symbolic shape vector (the shape is an input value, not a constant).
    xv, sv = arr((3, 4)), np.asarray([4, 3], dtype="int64")
    x, s = var_for(xv, "x"), pt.lvector("s")
    yield "reshape symbolic", node_of(pt.reshape(x, s, ndim=2)), {x: xv, s: sv}


def fft_cases() -> Iterator[Case]:
    yield from unary(lambda x: pt_fft.rfft(x), [(2, 8), (1, 3, 4), (0, 4)], "rfft")
    yield from unary(lambda x: pt_fft.irfft(x, norm="no_norm"), [(2, 5, 2), (1, 3, 3, 2)],
                     "irfft")
    yield from unary(lambda x: fourier_fft(x, 4, 0), [(3, 2), (5,)], "fourier")


def join_split_dims_cases() -> Iterator[Case]:
    for shape, start, n in [((3, 4), 0, 2), ((2, 3, 4), 1, 2), ((3,), 1, 0), ((0, 3), 0, 2)]:
        yield from unary(lambda x, s=start, k=n: pt.join_dims(x, s, k), [shape],
                         f"join_dims{shape}[{start}:{start + n}]")
    for shape, axis, parts in [((6,), 0, (2, 3)), ((1, 4), 0, ()), ((3, 4), 1, (2, 2))]:
        yield from unary(lambda x, a=axis, p=parts: pt.split_dims(x, p, a) if p
                         else pt.split_dims(x, np.zeros(0, dtype="int64"), a), [shape],
                         f"split_dims{shape}->{parts}")


def specify_shape_cases() -> Iterator[Case]:
    for shape in [(3, 4), (1, 4), (0, 3), (1, 1)]:
        xv = arr(shape)
        x = pt.dmatrix("x")
        yield f"specify_shape {shape}", node_of(pt.specify_shape(x, (shape[0], None))), {x: xv}


def alloc_cases() -> Iterator[Case]:
    for vshape, target in [((), (2, 3)), ((3,), (2, 3)), ((2, 3), (2, 3)), ((1, 3), (2, 3)),
                           ((3,), (0, 3)), ((4,), (4,))]:
        yield from unary(lambda v, t=target: pt.alloc(v, *t), [vshape], f"alloc->{target}")


def arange_cases() -> Iterator[Case]:
    for start, stop, step in [(0, 5, 1), (3, 3, 1), (5, 0, -2)]:
        vals = [np.asarray(v, dtype="int64") for v in (start, stop, step)]
        vars_ = [pt.lscalar(n) for n in ("a", "b", "c")]
        yield f"arange{start, stop, step}", node_of(pt.arange(*vars_)), dict(zip(vars_, vals))


def eye_cases() -> Iterator[Case]:
    for n, m, k in [(3, 3, 0), (2, 4, 1), (0, 0, 0)]:
        vals = [np.asarray(v, dtype="int64") for v in (n, m, k)]
        vars_ = [pt.lscalar(s) for s in ("n", "m", "k")]
        yield f"eye{n, m, k}", node_of(pt.eye(*vars_)), dict(zip(vars_, vals))


def einsum_cases() -> Iterator[Case]:
    for spec in ("ij->ji", "ij", "ii->i", "ij->", "i,i->i"):
        n_in = len(spec.split("->")[0].split(","))
        if n_in == 1:
            yield from unary(lambda x, s=spec: pt.einsum(s, x), [(3, 3), (1, 1)], spec)
        else:
            yield from binary(lambda x, y, s=spec: pt.einsum(s, x, y), [((4,), (4,))], spec)


def join_cases() -> Iterator[Case]:
    from opgraph.tensor.join import Join

    for sx, sy, axis in [((2, 3), (4, 3), 0), ((2, 3), (2, 1), 1), ((0, 3), (2, 3), 0),
                         ((0, 3), (0, 3), 0)]:
        yield from binary(lambda x, y, a=axis: pt.join(a, x, y), [(sx, sy)], f"join axis={axis}")
    yield from unary(lambda x: Join()(0, x), [(3, 4), (0, 2)], "join one tensor")


def split_cases() -> Iterator[Case]:
    for shape, sizes, axis in [((5,), [2, 3], 0), ((4, 3), [1, 3], 0), ((4, 3), [3], 1),
                               ((4, 3), [0, 4], 0), ((4, 3), [4], 0)]:
        yield from unary(lambda x, s=sizes, a=axis: pt.split(x, s, len(s), a), [shape],
                         f"split {sizes} axis={axis}")


def subtensor_cases() -> Iterator[Case]:
    for idx in [np.s_[1:], np.s_[0], np.s_[::-1], np.s_[:, 1], np.s_[0, 0], np.s_[1:2, ::2],
                np.s_[0:0], np.s_[-1]]:
        yield from unary(lambda x, i=idx: x[i], [(3, 4)], f"x[{idx}]")
    yield from unary(lambda x: x[1:], [(0, 3), (1, 4)], "x[1:]")
    iv, xv = np.asarray(1, dtype="int64"), arr((3, 4))
    i, x = pt.lscalar("i"), var_for(xv, "x")
    yield "x[i] symbolic", node_of(x[i]), {x: xv, i: iv}


def _update_cases(build_index: Callable, label: str, shapes_y: Sequence) -> Iterator[Case]:
    from opgraph.tensor.subtensor import inc_subtensor, set_subtensor

    for fn in (set_subtensor, inc_subtensor):
        for inplace in (False, True):
            for sx, sy in shapes_y:
                xv, yv = arr(sx), arr(sy)
                x, y = var_for(xv, "x"), var_for(yv, "y")
                out = fn(build_index(x), y, inplace=inplace)
                yield f"{fn.__name__}({label}) inplace={inplace} {sx} {sy}", node_of(out), {
                    x: xv, y: yv}


def inc_subtensor_cases() -> Iterator[Case]:
    yield from _update_cases(lambda x: x[1:], "x[1:]", [((3, 4), (2, 4)), ((3, 4), ()),
                                                        ((1, 4), (0, 4))])
    yield from _update_cases(lambda x: x[0], "x[0]", [((3, 4), (4,)), ((3, 4), (1,))])


def advanced_subtensor1_cases() -> Iterator[Case]:
    for sx, idx in [((4, 3), [0, 2, 2]), ((4,), [3]), ((4, 3), []), ((1, 3), [0, 0])]:
        xv, iv = arr(sx), np.asarray(idx, dtype="int64")
        x, i = var_for(xv, "x"), pt.lvector("i")
        yield f"x[{idx}] {sx}", node_of(x[i]), {x: xv, i: iv}


def advanced_inc_subtensor1_cases() -> Iterator[Case]:
    iv = np.asarray([0, 2, 2], dtype="int64")
    for fn in (pt.set_subtensor, pt.inc_subtensor):
        for inplace in (False, True):
            for sy in [(3, 3), (3,), ()]:
                xv, yv = arr((4, 3)), arr(sy)
                x, y, i = var_for(xv, "x"), var_for(yv, "y"), pt.lvector("i")
                out = fn(x[i], y, inplace=inplace)
                yield f"{fn.__name__}(x[i]) inplace={inplace} y{sy}", node_of(out), {
                    x: xv, y: yv, i: iv}


def advanced_subtensor_cases() -> Iterator[Case]:
    iv = np.asarray([2, 0], dtype="int64")
    bv = np.asarray([True, False, True])
    for label, build, givens_extra in [
        ("x[i, 1:]", lambda x, i, b: x[i, 1:], "i"),
        ("x[1:, i]", lambda x, i, b: x[1:, i], "i"),
        ("x[b]", lambda x, i, b: x[b], "b"),
        ("x[i, i]", lambda x, i, b: x[i, i], "i"),
    ]:
        xv = arr((3, 4))
        x, i, b = var_for(xv, "x"), pt.lvector("i"), pt.vector("b", dtype="bool")
        givens = {x: xv, i: iv} if givens_extra == "i" else {x: xv, b: bv}
        yield label, node_of(build(x, i, b)), givens


def advanced_inc_subtensor_cases() -> Iterator[Case]:
    iv = np.asarray([2, 0, 2], dtype="int64")
    for fn in (pt.set_subtensor, pt.inc_subtensor):
        for inplace in (False, True):
            for sy in [(3, 3), ()]:
                xv, yv = arr((3, 4)), arr(sy)
                x, y, i = var_for(xv, "x"), var_for(yv, "y"), pt.lvector("i")
                out = fn(x[i, 1:], y, inplace=inplace)
                yield f"{fn.__name__}(x[i, 1:]) inplace={inplace}", node_of(out), {
                    x: xv, y: yv, i: iv}


def softmax_cases() -> Iterator[Case]:
    for axis in (None, 0, -1):
        shapes = [(3, 4), (1, 1)] + ([(0, 3)] if axis == -1 else [])
        yield from unary(lambda x, a=axis: pt.softmax(x, axis=a), shapes, f"softmax axis={axis}")


def log_softmax_cases() -> Iterator[Case]:
    for axis in (None, 0, -1):
        shapes = [(3, 4), (1, 1)] + ([(0, 3)] if axis == -1 else [])
        yield from unary(lambda x, a=axis: pt.log_softmax(x, axis=a), shapes,
                         f"log_softmax axis={axis}")


def ifelse_cases() -> Iterator[Case]:
    from opgraph.tensor.ifelse import IfElse

    for as_view in (False, True):
        for cond in (True, False):
            for shape in [(3, 4), (0, 2), ()]:
                av, bv = arr(shape), arr(shape)
                a, b, c = var_for(av, "a"), var_for(bv, "b"), pt.scalar("c", dtype="bool")
                node = IfElse(1, as_view=as_view).make_node(c, a, b)
                yield f"ifelse as_view={as_view} cond={cond} {shape}", node, {
                    a: av, b: bv, c: np.asarray(cond)}
        av, bv, cv, dv = arr((2,)), arr((2,)), arr(()), arr(())
        a, b, c2, d = var_for(av, "a"), var_for(bv, "b"), var_for(cv, "c2"), var_for(dv, "d")
        c = pt.scalar("c", dtype="int64")
        node = IfElse(2, as_view=as_view).make_node(c, a, c2, b, d)
        yield f"ifelse n_outs=2 as_view={as_view}", node, {
            a: av, b: bv, c2: cv, d: dv, c: np.asarray(1)}


def tensor_from_scalar_cases() -> Iterator[Case]:
    from opgraph.tensor.basic import tensor_from_scalar

    for dtype in ("float64", "int32", "bool"):
        s = get_scalar_type(dtype)()
        yield f"tensor_from_scalar {dtype}", node_of(tensor_from_scalar(s)), {
            s: np.asarray(1).astype(dtype)[()]}


def scalar_from_tensor_cases() -> Iterator[Case]:
    from opgraph.tensor.basic import scalar_from_tensor

    yield from unary(scalar_from_tensor, [()], "scalar_from_tensor")
    yield from unary(scalar_from_tensor, [()], "scalar_from_tensor int", "int64")


def slice_length_cases() -> Iterator[Case]:
    from opgraph.tensor.indexing import SliceLength, SliceSpec

    n, a = pt.lscalar("n"), pt.lscalar("a")
    node = SliceLength(SliceSpec(True, False, False)).make_node(n, a)
    yield "slice_length", node, {n: np.asarray(5), a: np.asarray(2)}


def gradient_identity_cases(cls: type) -> Callable[[], Iterator[Case]]:
    def cases() -> Iterator[Case]:
        for shape in [(3, 4), (0, 2), ()]:
            xv = arr(shape)
            x = var_for(xv, "x")
            if cls.__name__ == "GradClip":
                op = cls(-1.0, 1.0)
            else:
                op = cls()
            extra = [pt.constant(2.0)] if cls.__name__ == "GradScale" else []
            yield f"{cls.__name__} {shape}", op.make_node(x, *extra), {x: xv}
    return cases


def print_cases() -> Iterator[Case]:
    from opgraph.printing import Print

    op = Print("audit", global_fn=lambda op, x: None)
    yield from unary(lambda x: op(x), [(3, 4), ()], "Print")


def make_slice_cases() -> Iterator[Case]:
    from opgraph.tensor.type_other import make_slice

    i, j = pt.lscalar("i"), pt.lscalar("j")
    yield "make_slice(i, j)", make_slice(i, j, None).owner, {i: np.array(1), j: np.array(5)}


# --------------------------------------------------------------------------- registry


def _grad_ops() -> dict[str, Callable[[], Iterator[Case]]]:
    from opgraph.autodiff import ops

    names = ["ZeroGrad", "ConsiderConstant", "DisconnectedGrad", "UndefinedGrad", "GradClip",
             "GradScale"]
    return {f"opgraph.autodiff.ops.{n}": gradient_identity_cases(getattr(ops, n)) for n in names}


CASES: dict[str, Callable[[], Iterator[Case]]] = {
    "opgraph.tensor.elemwise.Elemwise": elemwise_cases,
    "opgraph.tensor.elemwise.DimShuffle": dimshuffle_cases,
    "opgraph.tensor.reduction.CAReduce": careduce_cases,
    "opgraph.tensor.reduction.Sum": careduce_cases,
    "opgraph.tensor.reduction.Prod": careduce_cases,
    "opgraph.tensor.reduction.Max": careduce_cases,
    "opgraph.tensor.reduction.Min": careduce_cases,
    "opgraph.tensor.reduction.All": careduce_cases,
    "opgraph.tensor.reduction.Any": careduce_cases,
    "opgraph.tensor.reduction.Argmax": argmax_cases,
    "opgraph.tensor.reduction.Argmin": argmax_cases,
    "opgraph.tensor.products.Dot": dot_cases,
    "opgraph.tensor.products.MatMul": matmul_cases,
    "opgraph.tensor.blockwise.Blockwise": blockwise_cases,
    "opgraph.tensor.shape.Shape": shape_cases,
    "opgraph.tensor.shape.Shape_i": shape_i_cases,
    "opgraph.tensor.shape.MakeVector": make_vector_cases,
    "opgraph.tensor.shape.Reshape": reshape_cases,
    "opgraph.tensor.reshape.JoinDims": join_split_dims_cases,
    "opgraph.tensor.fft.RFFTOp": fft_cases,
    "opgraph.tensor.fft.IRFFTOp": fft_cases,
    "opgraph.tensor.fourier.Fourier": fft_cases,
    "opgraph.tensor.reshape.SplitDims": join_split_dims_cases,
    "opgraph.tensor.shape.SpecifyShape": specify_shape_cases,
    "opgraph.tensor.creation.Alloc": alloc_cases,
    "opgraph.tensor.creation.ARange": arange_cases,
    "opgraph.tensor.creation.Eye": eye_cases,
    "opgraph.tensor.join.Join": join_cases,
    "opgraph.tensor.einsum.Einsum": einsum_cases,
    "opgraph.tensor.join.Split": split_cases,
    "opgraph.tensor.subtensor.Subtensor": subtensor_cases,
    "opgraph.tensor.subtensor.IncSubtensor": inc_subtensor_cases,
    "opgraph.tensor.subtensor.AdvancedSubtensor1": advanced_subtensor1_cases,
    "opgraph.tensor.subtensor.AdvancedIncSubtensor1": advanced_inc_subtensor1_cases,
    "opgraph.tensor.advanced.AdvancedSubtensor": advanced_subtensor_cases,
    "opgraph.tensor.advanced.AdvancedIncSubtensor": advanced_inc_subtensor_cases,
    "opgraph.tensor.special.Softmax": softmax_cases,
    "opgraph.tensor.special.LogSoftmax": log_softmax_cases,
    "opgraph.tensor.ifelse.IfElse": ifelse_cases,
    "opgraph.tensor.basic.TensorFromScalar": tensor_from_scalar_cases,
    "opgraph.tensor.basic.ScalarFromTensor": scalar_from_tensor_cases,
    "opgraph.tensor.indexing.SliceLength": slice_length_cases,
    "opgraph.printing_op.Print": print_cases,
    "opgraph.tensor.type_other.MakeSlice": make_slice_cases,
    **_grad_ops(),
    **ARRAY_CASES,
    **MORE_CASES,
}


def test_every_op_class_has_a_case() -> None:
    """A new Op class in an audited module must be added to CASES (or ABSTRACT)."""
    missing = sorted(
        name for name, cls in discovered_op_classes().items()
        if name not in CASES and cls.__name__ not in ABSTRACT
    )
    assert not missing, (
        f"Op classes without an aliasing-contract case: {missing}. Add a case builder to "
        "CASES in tests/tensor/test_aliasing_contract.py (or list an abstract base in ABSTRACT)."
    )
    stale = sorted(set(CASES) - set(discovered_op_classes()))
    assert not stale, f"CASES names classes that no longer exist: {stale}"


@pytest.mark.parametrize("qualname", sorted(CASES))
def test_perform_respects_view_and_destroy_maps(qualname: str) -> None:
    cls = discovered_op_classes()[qualname]
    cases = list(CASES[qualname]())
    own = [c for c in cases if type(c[1].op) is cls]
    assert own, f"no case builds a node whose op is exactly {qualname}"
    n, problems = run_cases(iter(own))
    assert n > 0
    assert not problems, f"{len(problems)} violation(s):\n" + "\n".join(problems[:25])


# --------------------------------------------------------------------------- self-checks


class _UndeclaredView(Op):
    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = inputs[0].reshape(inputs[0].shape)


class _SecretWriter(_UndeclaredView):
    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        inputs[0][...] = 0
        output_storage[0][0] = np.zeros_like(inputs[0])


@pytest.mark.parametrize("shape", [(3, 4), (0, 3)])
def test_checker_catches_undeclared_view_and_write(shape: tuple) -> None:
    """The audit itself is not vacuous: both kinds of violation are reported."""
    x = TensorType("float64", (None, None))("x")
    value = arr(shape)
    problems = check_contract("view", _UndeclaredView().make_node(x), [value])
    assert problems and "shares memory" in problems[0]
    if value.size:
        problems = check_contract("write", _SecretWriter().make_node(x), [value])
        assert any("modified input 0" in p for p in problems)


def test_declared_destroyer_passes_and_constants_are_inputs_too() -> None:
    """Inplace ops pass when declared; constant inputs are audited with their data."""
    import opgraph.scalar as ps

    x = pt.dmatrix("x")
    out = Elemwise(ps.mul, {0: 0})(x, pt.constant(np.full((1, 1), 2.0)))
    assert isinstance(out.owner.inputs[1], Constant)
    n, problems = run_cases(iter([("mul inplace", out.owner, {x: arr((3, 4))})]))
    assert n == len(LAYOUTS) and not problems
