"""Every Op family of the translation table against the Python linker, on ragged chunks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from dask_helpers import assert_same, chunked_array, compile_both
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opgraph_dask.translate import DaskFallbackWarning

import opgraph.tensor as pt

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
dims = st.integers(1, 7)


def _compile(inputs, outputs):
    ref, fd = compile_both(inputs, outputs)
    fd.trust_input = True  # dask arrays go in as they are, keeping their chunks
    return ref, fd


def _no_fallback(fd, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DaskFallbackWarning)
        return fd(*args)


x = pt.matrix("x")
y = pt.matrix("y")
FAMILIES = {
    "elemwise": ([x, y], [pt.exp(x) * 2 + pt.sin(y) / (1 + y**2), pt.maximum(x, y) > 0.1]),
    "broadcast": ([x, y], [x + y[0][None, :] * x.sum(axis=0, keepdims=True),
                           x.sum(axis=1)[:, None] - y]),
    "reductions": ([x, y], [x.sum(), x.sum(axis=0), pt.prod(y, axis=1), x.max(axis=0), y.min(),
                            (x > 0).all(axis=1), (y > 0).any(), x.mean(axis=1),
                            pt.logsumexp(x, axis=0)]),
    "shape": ([x, y], [x.T * 2, x.reshape((-1,)), x.dimshuffle(1, "x", 0) + 1,
                       pt.concatenate([x, y], axis=1), pt.alloc(x[0], 3, x.shape[1])]),
    "indexing": ([x, y], [x[1:, ::2], y[::-1], x[0], x[[0, -1, 0]], y[pt.argmax(x[:, 0])]]),
    "arg_and_scans": ([x, y], [pt.argmax(x, axis=0), pt.argmin(y, axis=1), pt.argmax(x),
                               pt.cumsum(x, axis=0), pt.cumprod(y * 0.5, axis=1),
                               pt.cumsum(x)]),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
@SETTINGS
@given(data=st.data(), n=dims, m=dims)
def test_family_matches_python_linker(family, data, n, m):
    ref, fd = _compiled(family)
    (a, da_), (b, db) = data.draw(chunked_array((n, m))), data.draw(chunked_array((n, m)))
    assert_same(ref(a, b), _no_fallback(fd, da_, db))


_CACHE: dict = {}


def _compiled(family):
    if family not in _CACHE:
        _CACHE[family] = _compile(*FAMILIES[family])
    return _CACHE[family]


@SETTINGS
@given(data=st.data(), n=dims, k=dims, m=dims)
def test_products_match_python_linker(data, n, k, m):
    if "products" not in _CACHE:
        a3 = pt.tensor3("a3")
        _CACHE["products"] = _compile([x, y, a3], [pt.dot(x, y), x @ y, pt.dot(x, y[:, 0]),
                                                    a3 @ y, pt.tensordot(x, a3, axes=[[1], [2]])])
    ref, fd = _CACHE["products"]
    a, da_ = data.draw(chunked_array((n, k)))
    b, db = data.draw(chunked_array((k, m)))
    c, dc = data.draw(chunked_array((2, m, k)))
    assert_same(ref(a, b, c), _no_fallback(fd, da_, db, dc))


def test_elemwise_chain_is_one_layer():
    v = pt.vector("v")
    out = v
    for k in range(20):
        out = pt.sin(out) + k if k % 2 else pt.exp(-out * 0.5)
    from opgraph_dask import dask_options

    fd = compile_both([v], out)[1]
    with dask_options(lazy=True, chunks=3):
        lazy = fd(np.linspace(0, 1, 10))
    # one layer wraps the input, one blockwise task per chunk computes all 20 ops
    assert len(lazy.dask.layers) == 2
    assert lazy.npartitions == 4


def test_incompatible_chunkings_are_rechunked():
    ref, fd = _compile([x, y], [x * y + 1, pt.dot(x, y.T)])
    import dask.array as da

    a, b = np.arange(30.0).reshape(6, 5), np.ones((6, 5))
    got = _no_fallback(fd, da.from_array(a, chunks=(2, 3)), da.from_array(b, chunks=(4, 1)))
    assert_same(ref(a, b), got)


def test_constant_only_nodes_run_with_numpy():
    ref, fd = compile_both([x], [x + pt.arange(3)[None, :].astype("float64")])
    a = np.ones((4, 3))
    assert_same(ref(a), _no_fallback(fd, a))


def test_runtime_broadcast_is_refused_as_in_python():
    ref, fd = _compile([x, y], [x + y])
    import dask.array as da

    a, b = np.ones((3, 2)), np.ones((1, 2))
    with pytest.raises(ValueError, match="runtime broadcasting") as expected:
        ref(a, b)
    with pytest.raises(ValueError, match="runtime broadcasting"):
        fd(da.from_array(a, chunks=1), da.from_array(b))
    assert expected.value


def test_view_outputs_are_copied_chunk_by_chunk_and_never_alias():
    # an output that is a view of an input gets a DeepCopyOp node (PyTensor's graph):
    # it runs per chunk, and the result shares no memory with the NumPy input
    a = pt.matrix("a")
    ref, fd = compile_both([a], [a[1:], a.T, a])
    value = np.arange(20.0).reshape(4, 5)
    got = _no_fallback(fd, value)
    for g, w in zip(got, ref(value)):
        np.testing.assert_array_equal(g, w)
        assert not np.shares_memory(g, value)


def test_two_copies_of_one_view_are_two_arrays():
    # dask merges equal tasks: each DeepCopyOp's copy must stay its own array
    a = pt.matrix("a")
    _ref, fd = compile_both([a], [a[1:], a[1:], a])
    value = np.arange(12.0).reshape(3, 4)
    first, second, third = _no_fallback(fd, value)
    np.testing.assert_array_equal(first, second)
    assert not np.shares_memory(first, second)
    assert not np.shares_memory(third, value)
