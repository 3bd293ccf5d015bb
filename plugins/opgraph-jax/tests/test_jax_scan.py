"""Scans under JAX beyond the basic layouts: hand-built mit-mot loops, while-scans with them."""

from __future__ import annotations

import numpy as np
import pytest
from jax_helpers import compare_with_py

import opgraph
import opgraph.tensor as pt
from opgraph import function
from opgraph.scan.op import Scan, ScanInfo


def _mit_mot_scan(as_while: bool = False) -> tuple[Scan, list]:
    """``b[i+1] += 2 * b[i] + s[i]`` on a buffer read at rows i, i+1 and written at i+1."""
    s_t, b0, b1 = pt.dscalar("s_t"), pt.dvector("b0"), pt.dvector("b1")
    new = b1 + 2 * b0 + s_t
    outs = [new, (new.sum() > 20)] if as_while else [new]
    info = ScanInfo(n_seqs=1, mit_mot_in_slices=((0, 1),), mit_mot_out_slices=((1,),),
                    as_while=as_while)
    return Scan([s_t, b0, b1], outs, info), [s_t, b0, b1]


def _expected(buf: np.ndarray, seq: np.ndarray, n: int, stop_above: float | None) -> np.ndarray:
    out = buf.copy()
    for i in range(n):
        out[i + 1] = out[i + 1] + 2 * out[i] + seq[i]
        if stop_above is not None and out[i + 1].sum() > stop_above:
            break
    return out


@pytest.mark.parametrize("as_while", [False, True])
def test_hand_built_mit_mot_matches_python_loop(as_while: bool) -> None:
    op, _ = _mit_mot_scan(as_while)
    seq, buf = pt.dvector("seq"), pt.dmatrix("buf")
    out = op(pt.constant(4, dtype="int64"), seq, buf)
    sv = np.array([1.0, -1.0, 0.5, 2.0])
    bv = np.arange(10.0).reshape(5, 2)
    (got,) = compare_with_py([seq, buf], [out], [sv, bv])
    np.testing.assert_allclose(got, _expected(bv, sv, 4, 20.0 if as_while else None))
    np.testing.assert_allclose(bv, np.arange(10.0).reshape(5, 2))  # the input is not written


def test_mit_mot_buffer_too_short_names_the_rows() -> None:
    op, _ = _mit_mot_scan()
    seq, buf = pt.dvector("seq"), pt.dmatrix("buf")
    f = function([seq, buf], op(pt.constant(4, dtype="int64"), seq, buf), mode="JAX")
    with pytest.raises(ValueError, match="mit-mot buffer needs 5 rows"):
        f(np.ones(4), np.ones((4, 2)))


def test_gradient_of_scan_with_deep_taps() -> None:
    # the gradient of a scan through a tap-3 recurrence (PyTensor builds it with mit-mot)
    rho = pt.dscalar("rho")
    x0, y0 = pt.dvector("x0", shape=(2,)), pt.dvector("y0", shape=(3,))
    outs = opgraph.scan(lambda x, y3, y1, r: ((x + y1) * r, y3 * (1 - r) + y1 * r),
                        outputs_info=[x0, {"initial": y0, "taps": [-3, -1]}],
                        non_sequences=[rho], n_steps=10, return_updates=False)
    total = outs[0].sum() + outs[1].sum()
    grads = opgraph.grad(total, [x0, y0, rho])
    compare_with_py([x0, y0, rho], [total, *grads],
                    [np.arange(2.0), np.full(3, 0.5), np.array(0.95)], rtol=1e-9)
