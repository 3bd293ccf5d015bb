"""PyTensor's remaining tensor names: concat_with_broadcast, extract_diag, transfer,
NoneSliceConst and the slice helpers at ``opgraph.tensor``."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.tensor.extra_ops import concat_with_broadcast


def test_concat_with_broadcast_matches_numpy():
    a = pt.matrix("a", shape=(2, 1))
    b = pt.matrix("b", shape=(3, 4))
    c = pt.matrix("c")
    av, bv, cv = np.arange(2.0).reshape(2, 1), np.ones((3, 4)), np.zeros((1, 4))
    out = opgraph.function([a, b, c], concat_with_broadcast([a, b, c], axis=0))(av, bv, cv)
    want = np.concatenate([np.broadcast_to(av, (2, 4)), bv, cv], axis=0)
    np.testing.assert_array_equal(out, want)
    out1 = opgraph.function([a, b], concat_with_broadcast([a.T, b.T], axis=-1))(av, bv)
    np.testing.assert_array_equal(out1, np.concatenate([np.broadcast_to(av.T, (4, 2)), bv.T],
                                                       axis=1))
    with pytest.raises(ValueError, match="empty"):
        concat_with_broadcast([])
    with pytest.raises(TypeError, match="same number of dimensions"):
        concat_with_broadcast([a, pt.vector("v")])


def test_extract_diag_warns_and_is_diagonal():
    x = pt.matrix("x")
    with pytest.warns(FutureWarning, match="diagonal"):
        d = pt.extract_diag(x)
    xv = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(opgraph.function([x], d)(xv), np.diag(xv))


def test_transfer_and_slice_names():
    out = pt.transfer([1.0, 2.0], "cpu")
    assert isinstance(out, pt.TensorConstant)
    with pytest.raises(ValueError, match="gpu"):
        pt.transfer(out, "gpu")
    assert pt.NoneSliceConst.data == slice(None)
    assert pt.NoneSliceConst.type == pt.slicetype
    assert pt.make_slice(1, None, None).type == pt.slicetype
    assert importlib.import_module("opgraph.tensor.pad").flip is pt.flip
    assert pt.basic.identity is pt.identity
