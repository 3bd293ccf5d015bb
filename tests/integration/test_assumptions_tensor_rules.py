"""Matrix facts through DimShuffle, SpecifyShape, Reshape, JoinDims/SplitDims and Alloc
(PyTensor's rules of the same names)."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.assumptions as A
import opgraph.tensor as pt
from opgraph.assumptions.alloc import alloc_diag_at_offset_zero, eye_identity_rule
from opgraph.assumptions.core import FactState
from opgraph.assumptions.dimshuffle import left_expand_dims_propagates_matrix_property
from opgraph.graph.fg import FunctionGraph
from opgraph.tensor.reshape import join_dims, split_dims


def _state(var, key):
    fg = FunctionGraph(outputs=[var], clone=False)
    A.check_assumption(fg, var, key)
    return fg.assumption_feature.get(var, key)


@pytest.fixture
def lower():
    return A.assume(pt.tensor3("x", shape=(4, 3, 3)), lower_triangular=True)


def test_dimshuffle_keeps_facts_of_batch_moves_only(lower):
    assert _state(lower[None], A.LOWER_TRIANGULAR) is FactState.TRUE
    assert left_expand_dims_propagates_matrix_property(lower[None].owner.op)
    assert _state(lower.dimshuffle(0, 2, 1), A.LOWER_TRIANGULAR) is FactState.UNKNOWN
    assert _state(lower.dimshuffle("x", 0, 1, 2), A.LOWER_TRIANGULAR) is FactState.TRUE


def test_specify_shape_reshape_and_dims_ops(lower):
    assert _state(pt.specify_shape(lower, (4, 3, 3)), A.LOWER_TRIANGULAR) is FactState.TRUE
    assert _state(lower.reshape((2, 2, 3, 3)), A.LOWER_TRIANGULAR) is FactState.TRUE
    assert _state(lower.reshape((4, 9, 1)), A.LOWER_TRIANGULAR) is FactState.UNKNOWN
    batched = pt.specify_shape(lower.reshape((2, 2, 3, 3)), (2, 2, 3, 3))
    assert _state(join_dims(batched, 0, 2), A.LOWER_TRIANGULAR) is FactState.TRUE
    assert _state(join_dims(batched, 1, 2), A.LOWER_TRIANGULAR) is FactState.UNKNOWN
    assert _state(split_dims(lower, (2, 2), axis=0), A.LOWER_TRIANGULAR) is FactState.TRUE
    assert _state(split_dims(lower, (3, 1), axis=1), A.LOWER_TRIANGULAR) is FactState.UNKNOWN


def test_alloc_facts():
    zeros = pt.alloc(0.0, 3, 3)
    filled = pt.alloc(2.0, 3, 3)
    assert _state(zeros, A.DIAGONAL) is FactState.TRUE
    assert _state(filled, A.DIAGONAL) is FactState.FALSE
    assert _state(filled, A.SYMMETRIC) is FactState.TRUE
    assert _state(pt.alloc(2.0, 3, 4), A.SYMMETRIC) is FactState.UNKNOWN
    sym = A.assume(pt.matrix("s", shape=(3, 3)), symmetric=True)
    assert _state(pt.alloc(sym, 5, 3, 3), A.SYMMETRIC) is FactState.TRUE


def test_rule_bodies_for_eye_and_alloc_diag():
    eye = pt.eye(3, 3, 0)
    assert eye_identity_rule(A.DIAGONAL, eye.owner.op, None, None, eye.owner, []) == [
        FactState.TRUE]
    off = pt.eye(3, 3, 1)
    assert eye_identity_rule(A.DIAGONAL, off.owner.op, None, None, off.owner, []) == [
        FactState.FALSE]

    class _Op:
        offset = 0

    assert alloc_diag_at_offset_zero(A.DIAGONAL, _Op(), None, None, None, []) == [
        FactState.TRUE]
    np.testing.assert_array_equal(eye.eval(), np.eye(3))


def test_indexing_batch_axes_keeps_facts(lower):
    assert _state(lower[0], A.LOWER_TRIANGULAR) is FactState.TRUE
    assert _state(lower[1:], A.LOWER_TRIANGULAR) is FactState.TRUE
    assert _state(lower[:, 1:], A.LOWER_TRIANGULAR) is FactState.UNKNOWN
    assert _state(lower[:, :, 0], A.LOWER_TRIANGULAR) is FactState.UNKNOWN
    other = A.assume(pt.matrix("o", shape=(3, 3)), lower_triangular=True)
    assert _state(pt.set_subtensor(lower[0], other), A.LOWER_TRIANGULAR) is FactState.TRUE
    assert _state(pt.inc_subtensor(lower[0], other), A.LOWER_TRIANGULAR) is FactState.TRUE
    plain = pt.matrix("p", shape=(3, 3))
    assert _state(pt.set_subtensor(lower[0], plain), A.LOWER_TRIANGULAR) is FactState.UNKNOWN
    orth = A.assume(pt.tensor3("q", shape=(2, 3, 3)), orthogonal=True)
    o2 = A.assume(pt.matrix("r", shape=(3, 3)), orthogonal=True)
    assert _state(pt.inc_subtensor(orth[0], o2), A.ORTHOGONAL) is FactState.UNKNOWN
    assert _state(pt.set_subtensor(orth[0], o2), A.ORTHOGONAL) is FactState.TRUE
