"""Schur and QZ in their inputs' buffers: only where the input may be destroyed."""

from __future__ import annotations

import numpy as np
import opgraph_linalg as la
import pytest
import scipy.linalg
from opgraph_linalg.schur_decomp import QZ, Schur

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.io import In


def _ops(fn, cls):
    return [n.op for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, cls)]


def test_schur_overwrites_a_mutable_input(rng):
    a = pt.dmatrix("a")
    t, z = la.schur(a)
    fn = function([In(a, mutable=True)], [t, z], mode="FAST_RUN")
    [op] = _ops(fn, Schur)
    assert op.overwrite_a and op.destroy_map == {0: [0]}
    x = np.asfortranarray(rng.normal(size=(5, 5)))
    expected_t, expected_z = scipy.linalg.schur(x)
    got_t, got_z = fn(x)
    np.testing.assert_allclose(got_t, expected_t, atol=1e-10)
    np.testing.assert_allclose(got_z, expected_z, atol=1e-10)
    np.testing.assert_allclose(x, expected_t, atol=1e-10)  # the buffer now holds T


def test_schur_keeps_an_input_that_is_not_mutable_or_is_an_output(rng):
    a = pt.dmatrix("a")
    t, _ = la.schur(a)
    x = np.asfortranarray(rng.normal(size=(4, 4)))
    for ins, outs in (([a], [t]), ([In(a, mutable=True)], [t, a])):
        fn = function(ins, outs, mode="FAST_RUN")
        assert not any(op.destroy_map for op in _ops(fn, Schur))
        before = x.copy()
        results = fn(x)
        np.testing.assert_array_equal(x, before)
        np.testing.assert_allclose(results[0], scipy.linalg.schur(before)[0], atol=1e-10)


def test_schur_in_place_after_the_other_readers(rng):
    a = pt.dmatrix("a")
    t, _ = la.schur(a)
    fn = function([In(a, mutable=True)], [t, a.sum()], mode="FAST_RUN")
    x = np.asfortranarray(rng.normal(size=(4, 4)))
    before = x.copy()
    got_t, got_sum = fn(x)
    np.testing.assert_allclose(got_sum, before.sum())  # read before T overwrote it
    np.testing.assert_allclose(got_t, scipy.linalg.schur(before)[0], atol=1e-10)


@pytest.mark.parametrize("sort", ["lhp", "rhp", "iuc", "ouc"])
def test_qz_overwrites_both_mutable_inputs(rng, sort):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    outs = la.qz(a, b, sort=sort, return_eigenvalues=True)
    fn = function([In(a, mutable=True), In(b, mutable=True)], outs, mode="FAST_RUN")
    [op] = _ops(fn, QZ)
    assert op.destroy_map == {0: [0], 1: [1]}
    x, y = (np.asfortranarray(rng.normal(size=(4, 4))) for _ in range(2))
    expected = scipy.linalg.ordqz(x, y, sort=sort)
    got = fn(x, y)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, atol=1e-10)
    np.testing.assert_allclose(x, expected[0], atol=1e-10)
    np.testing.assert_allclose(y, expected[1], atol=1e-10)  # the ordered factors, not LAPACK's

