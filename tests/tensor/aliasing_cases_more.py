"""Aliasing-contract cases for the PyTensor-path Ops: tensor.basic helpers, BLAS, pad.

Merged into ``test_aliasing_contract.py``'s table like :data:`ARRAY_CASES`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.basic import Apply
from opgraph.tensor import basic_more as bm
from opgraph.tensor import blas, blas_c
from opgraph.tensor.pad import Pad, PadGrad, pad
from opgraph.tensor.reduction import ProdWithoutZeros

from .helpers import input_type_for

RNG = np.random.default_rng(5)
Case = tuple[str, Apply, dict]


def _v(shape: tuple[int, ...], name: str, dtype: str = "float64") -> tuple[Any, Any]:
    if dtype.startswith("float"):
        value = RNG.uniform(0.1, 0.9, size=shape).astype(dtype)
    else:
        value = RNG.integers(0, 3, size=shape).astype(dtype)
    return input_type_for(value)(name), value


def _node(out: Any, *pairs: tuple[Any, Any]) -> tuple[Apply, dict]:
    out = out[0] if isinstance(out, list | tuple) else out
    return out.owner, dict(pairs)


def alloc_empty_cases() -> Iterator[Case]:
    n, m = pt.lscalar("n"), pt.lscalar("m")
    for shape in [(2, 3), (0, 4)]:
        node = bm.AllocEmpty("float64")(n, m).owner
        yield f"alloc_empty {shape}", node, {n: np.int64(shape[0]), m: np.int64(shape[1])}


def choose_cases() -> Iterator[Case]:
    a, av = _v((4,), "a", "int64")
    c, cv = _v((3, 4), "c")
    yield "choose", *_node(bm.choose(a, c, mode="wrap"), (a, av), (c, cv))


def permute_cases() -> Iterator[Case]:
    x, xv = _v((3, 4), "x")
    perm = pt.lmatrix("p")
    pv = np.stack([RNG.permutation(4) for _ in range(3)])
    for inverse in (0, 1):
        yield f"permute inverse={inverse}", *_node(
            bm.permute_row_elements(x, perm, inverse), (x, xv), (perm, pv))


def _blas_cases(make: Callable[..., Any], shapes: list[tuple[int, ...]], label: str,
                scalars: tuple[int, ...]) -> Iterator[Case]:
    pairs, args = [], []
    for i, shape in enumerate(shapes):
        if i in scalars:
            args.append(np.float64(0.5 + i))
            continue
        v, value = _v(shape, f"i{i}")
        pairs.append((v, value))
        args.append(v)
    yield label, *_node(make(*args), *pairs)


def dot22_cases() -> Iterator[Case]:
    yield from _blas_cases(blas.dot22, [(2, 3), (3, 4)], "dot22", ())


def dot22scalar_cases() -> Iterator[Case]:
    yield from _blas_cases(blas.Dot22Scalar(), [(2, 3), (3, 4), ()], "dot22scalar", (2,))


def batched_dot_cases() -> Iterator[Case]:
    yield from _blas_cases(blas.BatchedDot(), [(2, 3, 4), (2, 4, 5)], "batched_dot", ())


def gemv_cases() -> Iterator[Case]:
    for op in (blas.Gemv(False), blas.Gemv(True)):
        yield from _blas_cases(op, [(3,), (), (3, 4), (4,), ()], f"gemv {op.inplace}", (1, 4))


def cgemv_cases() -> Iterator[Case]:
    yield from _blas_cases(blas_c.CGemv(False), [(3,), (), (3, 4), (4,), ()], "cgemv", (1, 4))


def gemm_cases() -> Iterator[Case]:
    for op in (blas.Gemm(False), blas.Gemm(True)):
        yield from _blas_cases(op, [(2, 4), (), (2, 3), (3, 4), ()], f"gemm {op.inplace}", (1, 4))


def ger_cases() -> Iterator[Case]:
    for op in (blas.Ger(False), blas.Ger(True)):
        yield from _blas_cases(op, [(3, 4), (), (3,), (4,)], f"ger {op.destructive}", (1,))


def cger_cases() -> Iterator[Case]:
    yield from _blas_cases(blas_c.CGer(False), [(3, 4), (), (3,), (4,)], "cger", (1,))


def pad_cases() -> Iterator[Case]:
    for mode in ("constant", "edge", "reflect", "mean"):
        for shape in [(3, 4), (1, 1)]:
            x, xv = _v(shape, "x")
            yield f"pad {mode} {shape}", *_node(pad(x, [(1, 0), (0, 2)], mode=mode), (x, xv))


def pad_grad_cases() -> Iterator[Case]:
    x, xv = _v((3, 4), "x")
    g, gv = _v((4, 6), "g")
    widths = np.array([[1, 0], [0, 2]])
    for mode in ("constant", "wrap"):
        node = PadGrad(Pad(mode))(g, x, widths, np.float64(0.0))[0].owner
        yield f"pad grad {mode}", node, {x: xv, g: gv}


def prod_without_zeros_cases() -> Iterator[Case]:
    for axis in (None, 0):
        x, xv = _v((3, 4), "x")
        yield f"prod_without_zeros axis={axis}", *_node(ProdWithoutZeros(axis=axis)(x), (x, xv))


MORE_CASES: dict[str, Callable[[], Iterator[Case]]] = {
    "opgraph.tensor.basic_more.AllocEmpty": alloc_empty_cases,
    "opgraph.tensor.basic_more.Choose": choose_cases,
    "opgraph.tensor.basic_more.PermuteRowElements": permute_cases,
    "opgraph.tensor.blas.Dot22": dot22_cases,
    "opgraph.tensor.blas.Dot22Scalar": dot22scalar_cases,
    "opgraph.tensor.blas_batched.BatchedDot": batched_dot_cases,
    "opgraph.tensor.blas.Gemv": gemv_cases,
    "opgraph.tensor.blas.Gemm": gemm_cases,
    "opgraph.tensor.blas.Ger": ger_cases,
    "opgraph.tensor.blas_c.CGemv": cgemv_cases,
    "opgraph.tensor.blas_c.CGer": cger_cases,
    "opgraph.tensor.pad.Pad": pad_cases,
    "opgraph.tensor.pad.PadGrad": pad_grad_cases,
    "opgraph.tensor.reduction.ProdWithoutZeros": prod_without_zeros_cases,
}
