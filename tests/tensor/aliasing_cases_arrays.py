"""Aliasing-contract cases for the array helpers (extra_ops, sort, indexing along an axis).

Each builder yields ``(label, node, {input: value})`` like the cases in
``test_aliasing_contract.py``, which merges :data:`ARRAY_CASES` into its table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import opgraph.tensor as pt
from opgraph.graph.basic import Apply
from opgraph.tensor import extra_ops as xo
from opgraph.tensor.arrays import Nonzero
from opgraph.tensor.indexing_along import AddAlongAxis, TakeAlongAxis
from opgraph.tensor.sort import ArgSortOp, SortOp

from .helpers import input_type_for

RNG = np.random.default_rng(3)
Case = tuple[str, Apply, dict]


def _m(shape: tuple[int, ...], dtype: str = "float64") -> tuple[Any, Any]:
    value = RNG.uniform(0.1, 0.9, size=shape).astype(dtype) if dtype.startswith("float") else (
        RNG.integers(0, 3, size=shape).astype(dtype)
    )
    return input_type_for(value)("x"), value


def _unary(build: Callable[[Any], Any], label: str, shapes: list[tuple[int, ...]],
           dtype: str = "float64") -> Iterator[Case]:
    for shape in shapes:
        x, value = _m(shape, dtype)
        out = build(x)
        out = out[0] if isinstance(out, list | tuple) else out
        yield f"{label} {shape}", out.owner, {x: value}


SHAPES = [(3, 4), (1, 4), (0, 3)]


def cum_cases() -> Iterator[Case]:
    for mode in ("add", "mul"):
        for axis in (None, 0, 1):
            yield from _unary(lambda x, a=axis, m=mode: xo.CumOp(a, m)(x), f"cum{mode}", SHAPES)


def repeat_cases() -> Iterator[Case]:
    # one count is a broadcast (no Repeat node): per-element counts build the Op
    yield from _unary(lambda x: xo.Repeat(axis=1)(x, 2), "repeat", SHAPES)
    yield from _unary(lambda x: xo.Repeat(axis=0)(x, 1), "repeat once", SHAPES)


def searchsorted_cases() -> Iterator[Case]:
    a, av = _m((5,))
    v, vv = _m((2, 3))
    yield "searchsorted", xo.searchsorted(a, v).owner, {a: np.sort(av), v: vv}


def unique_cases() -> Iterator[Case]:
    yield from _unary(lambda x: xo.unique(x, True, True, True), "unique", SHAPES, "int64")
    yield from _unary(lambda x: xo.unique(x), "unique 1-d", [(4,)], "int64")


def ravel_cases() -> Iterator[Case]:
    i, iv = _m((4,), "int64")
    j, jv = _m((4,), "int64")
    yield "ravel", xo.ravel_multi_index([i, j], np.array([3, 3])).owner, {i: iv, j: jv}


def unravel_cases() -> Iterator[Case]:
    i, iv = _m((4,), "int64")
    yield "unravel", xo.unravel_index(i, np.array([3, 3]))[0].owner, {i: iv}


def fill_diagonal_cases() -> Iterator[Case]:
    yield from _unary(lambda x: xo.fill_diagonal(x, 2.0), "fill_diagonal", SHAPES)


def fill_diagonal_offset_cases() -> Iterator[Case]:
    yield from _unary(lambda x: xo.fill_diagonal_offset(x, 2.0, 1), "fill_offset", SHAPES)


def bartlett_cases() -> Iterator[Case]:
    n = pt.lscalar("n")
    yield "bartlett", xo.bartlett(n).owner, {n: np.asarray(5)}


def contiguous_cases() -> Iterator[Case]:
    yield from _unary(xo.cpu_contiguous, "cpu_contiguous", SHAPES)


def nonzero_cases() -> Iterator[Case]:
    yield from _unary(lambda x: xo.Nonzero1()(x), "flatnonzero", [(5,), (0,)], "int64")


def nonnegative_cases() -> Iterator[Case]:
    yield from _unary(lambda x: xo.bincount(x, assert_nonneg=True).owner.inputs[2],
                      "nonneg", [(5,)], "int64")


def sort_cases() -> Iterator[Case]:
    for axis in (0, 1):
        yield from _unary(lambda x, a=axis: SortOp()(x, pt.constant(np.int64(a))), "sort",
                          SHAPES)


def argsort_cases() -> Iterator[Case]:
    for axis in (0, 1):
        yield from _unary(lambda x, a=axis: ArgSortOp()(x, pt.constant(np.int64(a))),
                          "argsort", SHAPES)


def take_along_cases() -> Iterator[Case]:
    x, xv = _m((3, 4))
    i, iv = _m((3, 2), "int64")
    yield "take_along", TakeAlongAxis()(x, i, 1).owner, {x: xv, i: iv}


def add_along_cases() -> Iterator[Case]:
    x, xv = _m((3, 4))
    i, iv = _m((3, 2), "int64")
    v, vv = _m((3, 2))
    yield "add_along", AddAlongAxis()(x, i, v, 1).owner, {x: xv, i: iv, v: vv}


def nonzero_nd_cases() -> Iterator[Case]:
    yield from _unary(lambda x: Nonzero()(x), "nonzero", [(3, 4), (0, 2)], "int64")


ARRAY_CASES: dict[str, Callable[[], Iterator[Case]]] = {
    "opgraph.tensor.extra_ops.CumOp": cum_cases,
    "opgraph.tensor.extra_ops.Repeat": repeat_cases,
    "opgraph.tensor.extra_ops.SearchsortedOp": searchsorted_cases,
    "opgraph.tensor.extra_ops.Unique": unique_cases,
    "opgraph.tensor.extra_ops.RavelMultiIndex": ravel_cases,
    "opgraph.tensor.extra_ops.UnravelIndex": unravel_cases,
    "opgraph.tensor.extra_ops.FillDiagonal": fill_diagonal_cases,
    "opgraph.tensor.extra_ops.FillDiagonalOffset": fill_diagonal_offset_cases,
    "opgraph.tensor.extra_ops.Bartlett": bartlett_cases,
    "opgraph.tensor.extra_ops.CpuContiguous": contiguous_cases,
    "opgraph.tensor.extra_ops.Nonzero1": nonzero_cases,
    "opgraph.tensor.extra_ops._NonNegative": nonnegative_cases,
    "opgraph.tensor.sort.SortOp": sort_cases,
    "opgraph.tensor.sort.ArgSortOp": argsort_cases,
    "opgraph.tensor.indexing_along.TakeAlongAxis": take_along_cases,
    "opgraph.tensor.indexing_along.AddAlongAxis": add_along_cases,
    "opgraph.tensor.arrays.Nonzero": nonzero_nd_cases,
}
