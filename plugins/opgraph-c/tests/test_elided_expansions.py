"""A C Elemwise reads an expanded 0-d value (``s.dimshuffle('x')``) from the 0-d value
itself, and the DimShuffle runs no more when every reader is such a node: the values
equal the Python linker's over several calls, the DimShuffle still runs when something
else reads it (a Join, a graph output, ``allow_gc=False``) and an in-place input is
never rewired."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode

PY_RUN = Mode(linker="py", optimizer="fast_run")
NO_REWRITES = Mode(linker="c", optimizer=None)


def _pair(inputs, outputs, mode=NO_REWRITES):
    return function(inputs, outputs, mode=mode), function(inputs, outputs, mode=PY_RUN)


def _called(fn):
    """The node numbers the C module calls."""
    src = fn.linker.module_source
    return src.count("int og_rc = og_node_")


def _same(fc, fp, *values):
    for _ in range(3):  # buffers kept between calls
        with np.errstate(all="ignore"):
            got, want = fc(*values), fp(*values)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-14, atol=0, equal_nan=True)


@pytest.mark.parametrize("s", [0.5, -3.0, 0.0, np.inf, np.nan, 1e300])
def test_elemwise_reads_the_scalar_the_dimshuffle_expands(s):
    x, v = pt.dscalar("x"), pt.dvector("v")
    e = pt.exp(x).dimshuffle("x")
    outs = [v * e + e, (v > e) * 1.0]
    fc, fp = _pair([x, v], outs)
    assert "DimShuffle" in {type(n.op).__name__ for n in fc.maker.fgraph.apply_nodes}
    assert _called(fc) < len(fc.maker.fgraph.apply_nodes)  # the DimShuffle is not called
    _same(fc, fp, np.float64(s), np.array([1.0, -2.0, np.inf, 0.0]))
    _same(fc, fp, np.float64(s), np.zeros(0))


def test_an_expansion_read_by_a_join_or_returned_still_runs():
    x, v = pt.dscalar("x"), pt.dvector("v")
    e = pt.exp(x).dimshuffle("x")
    for outs in ([v * e, pt.join(0, e, v)], [v * e, e]):
        fc, fp = _pair([x, v], outs)
        assert _called(fc) == len(fc.maker.fgraph.apply_nodes)
        _same(fc, fp, np.float64(0.25), np.array([1.0, 2.0]))


def test_in_place_input_is_not_rewired():
    x, v = pt.dscalar("x"), pt.dvector("v", shape=(1,))
    e = pt.exp(x).dimshuffle("x")
    fc = function([x, v], [pt.add(e, v), e * 2.0], mode=Mode(linker="c", optimizer="fast_run"))
    fp = function([x, v], [pt.add(e, v), e * 2.0], mode=PY_RUN)
    _same(fc, fp, np.float64(1.5), np.array([2.0]))


def test_all_intermediates_kept_runs_every_node():
    x, v = pt.dscalar("x"), pt.dvector("v")
    e = pt.exp(x).dimshuffle("x")
    mode = Mode(linker="c", optimizer=None)
    fc = function([x, v], v * e, mode=mode)
    fc.vm.allow_gc = False
    fp = function([x, v], v * e, mode=PY_RUN)
    np.testing.assert_allclose(fc(np.float64(0.5), np.ones(3)), fp(np.float64(0.5), np.ones(3)))


@pytest.mark.parametrize("linker", ["cvm", "c"])
def test_per_node_modules_and_profiling_keep_values(linker):
    # the CVM builds one module per node: an expansion computed in another module is read
    # as it is; the profiling build runs every node
    x, v = pt.dscalar("x"), pt.dvector("v")
    e = pt.exp(x).dimshuffle("x")
    outs = [v * e + e, pt.sqrt(e) * v]
    fp = function([x, v], outs, mode=PY_RUN)
    for profile in (False, True):
        fc = function([x, v], outs, mode=Mode(linker=linker, optimizer=None), profile=profile)
        _same(fc, fp, np.float64(-1.25), np.array([3.0, -4.0, np.nan]))


def test_shape_error_names_the_clash_when_the_first_input_is_an_elided_scalar():
    # the first input reaches the C Elemwise 0-d (its DimShuffle{x} elided): the message
    # still names the two vectors that clash, not the scalar with a length of 0
    b, eps = pt.dscalar("b"), pt.dscalar("eps")
    x, y = pt.dvector("x"), pt.dvector("y")
    out = pt.exp(b + x * eps) - y
    fn = function([b, x, y, eps], out, mode=Mode(linker="c", optimizer="fast_run"))
    with pytest.raises(ValueError, match=r"Input dimension mismatch: "
                       r"\(x\.shape\[0\] = 3, y\.shape\[0\] = 60\)"):
        fn(1.0, np.ones(3), np.ones(60), 2.0)
    np.testing.assert_allclose(fn(1.0, np.ones(3), np.ones(3), 2.0), np.exp(3.0) - 1)
