"""PyTensor's Scan helpers at ``opgraph.scan.utils`` / ``.op`` / ``.basic`` do their jobs."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.graph.basic import equal_computations
from opgraph.scan.basic import get_updates_and_outputs
from opgraph.scan.op import Scan, ScanInfo, check_broadcast, copy_var_format
from opgraph.scan.utils import (
    InnerFunctionError,
    default_filter_scanargs,
    expand_empty,
    forced_replace,
    reconstruct_graph,
    safe_index,
    safe_new,
    until,
)


def test_safe_new_and_reconstruct_graph() -> None:
    x = pt.dvector("x")
    new = safe_new(x, "_copy")
    assert new is not x and new.type == x.type and new.name == "x_copy"
    assert safe_new(x, dtype="float32").type.dtype == "float32"
    c = pt.constant(np.ones(2))
    assert safe_new(c) is c
    with pytest.raises(TypeError, match="must be a Variable"):
        safe_new(np.ones(2))
    (x2,), (y2,) = reconstruct_graph([x], [pt.exp(x)], tag="_r")
    assert x2 is not x and x2.name == "x_r"
    assert equal_computations([y2], [pt.exp(x)], [x2], [x])


def test_expand_empty_keeps_rows_and_adds_room() -> None:
    x = pt.dmatrix("x")
    out = expand_empty(x, 3)
    got = opgraph.function([x], out)(np.arange(4.0).reshape(2, 2))
    assert got.shape == (5, 2)
    np.testing.assert_array_equal(got[:2], np.arange(4.0).reshape(2, 2))
    assert expand_empty(x, 0) is x


def test_forced_replace_matches_recomputations() -> None:
    x, y = pt.dvector("x"), pt.dvector("y")
    out = pt.exp(x) * (1 - pt.exp(x))  # two separate exp(x) nodes
    new = forced_replace(out, pt.exp(x), y)
    f = opgraph.function([x, y], new, on_unused_input="ignore")
    np.testing.assert_allclose(f(np.zeros(2), np.full(2, 3.0)), [-6.0, -6.0])
    assert forced_replace(None, x, y) is None
    assert forced_replace(out, pt.log(x), y) is out


def test_small_helpers() -> None:
    assert safe_index([3, 4, 5], 4) == 1 and safe_index([3], 9) is None
    assert default_filter_scanargs("outer_in_seqs") and not default_filter_scanargs("n_seqs")
    assert issubclass(InnerFunctionError, Exception)


def test_check_broadcast_and_copy_var_format() -> None:
    row = pt.tensor("r", shape=(1, None), dtype="float64")
    mat = pt.dmatrix("m")
    check_broadcast(mat, mat)
    with pytest.raises(TypeError, match="broadcast pattern"):
        check_broadcast(row, mat)
    v = pt.fvector("v")
    out = copy_var_format(v, pt.dvector("w"))
    assert out.type.dtype == "float64"


def test_get_updates_and_outputs_orders_the_parts() -> None:
    x = pt.dscalar("x")
    shared = opgraph.shared(0.0)
    cond, outs, upd = get_updates_and_outputs([x + 1, {shared: shared + 1}, until(x > 3)])
    assert outs[0].owner is not None and list(upd) == [shared]
    assert equal_computations([cond], [x > 3])
    assert get_updates_and_outputs(x) == (None, [x], {})
    assert get_updates_and_outputs({shared: x}) == (None, [], {shared: x})
    with pytest.raises(ValueError, match="may return only"):
        get_updates_and_outputs([x, 3.0])


def test_mitmots_preallocated_says_every_mit_mot_has_its_loop_buffer() -> None:
    info = ScanInfo(n_seqs=0, mit_mot_in_slices=((0, 1),), mit_mot_out_slices=((1,),),
                    mit_sot_in_slices=(), sit_sot_in_slices=(), n_nit_sot=0,
                    n_untraced_sit_sot=0, n_non_seqs=0, as_while=False)
    a0, a1 = pt.dvector("a0"), pt.dvector("a1")
    op = Scan([a0, a1], [a0 + a1], info)
    assert op.mitmots_preallocated == (True,)
    out = op(pt.constant(3), pt.dmatrix("buf"))
    buf = np.ones((4, 2))
    got = opgraph.function([out.owner.inputs[1]], out, mode="FAST_COMPILE")(buf)
    # row i + 1 = row i + row i + 1, for i = 0, 1, 2
    np.testing.assert_allclose(got, [[1, 1], [2, 2], [3, 3], [4, 4]])
