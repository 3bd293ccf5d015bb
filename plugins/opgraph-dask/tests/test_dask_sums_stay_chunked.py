"""DASK runs FAST_RUN without the "blas" rewrites: its sums stay chunked tree reductions.

FAST_RUN turns a matrix's row/column sums into Gemv and a sum of squares into
a dot; dask has no chunked Gemv, so those would gather the whole array.
"""

from __future__ import annotations

import warnings

import numpy as np
from opgraph_dask.options import dask_options
from opgraph_dask.translate import DaskFallbackWarning

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.tensor.blas import Gemv
from opgraph.tensor.reduction import Sum


def test_row_sums_and_sums_of_squares_stay_chunked():
    m = pt.matrix("m")
    outs = [m.sum(axis=0), m.sum(axis=1), pt.sum(pt.sqr(m * 2.0))]
    fd = function([m], outs, mode="DASK")
    nodes = fd.maker.fgraph.apply_nodes
    assert not any(isinstance(n.op, Gemv) for n in nodes)
    assert sum(isinstance(n.op, Sum) for n in nodes) == 3
    a = np.arange(24.0).reshape(6, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DaskFallbackWarning)
        with dask_options(chunks=2):
            got = fd(a)
    for g, w in zip(got, [a.sum(axis=0), a.sum(axis=1), np.sum((2 * a) ** 2)], strict=True):
        np.testing.assert_allclose(g, w)
