"""The Python scan loop's rings of last rows (opgraph.scan.rings) and scan_checkpoints.

A state read only at its end (``keep_last``) keeps ``max(keep, taps)`` rows: one row for
a gradient accumulator, written after the body has run; a ring already in order is
returned without a copy.  Values are checked against NumPy and against plain scan.
"""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import Mode, get_mode
from opgraph.scan import scan, scan_checkpoints
from opgraph.scan.op import Scan
from opgraph.scan.rings import detach_aliases, release_each_step, ring_result, ring_rows

RNG = np.random.default_rng(3)


def test_ring_rows():
    assert ring_rows(1, 10, 0) == 11  # every row
    assert ring_rows(1, 10, 1) == 1  # the last value only: one row
    assert ring_rows(3, 10, 1) == 3  # as many rows as taps
    assert ring_rows(1, 10, 4) == 4
    assert ring_rows(2, 1, 5) == 3  # never more than k + n


def test_ring_result_orders_the_last_rows_and_copies_only_when_needed():
    buf = np.arange(4 * 2, dtype=float).reshape(4, 2)
    whole = ring_result(buf, 1, 3, 4, 3)  # not a ring: the first k + done rows
    assert np.shares_memory(whole, buf) and whole.shape == (4, 2)
    # a ring of 3 rows after 1 + 5 rows were written: rows 3, 4, 5 live at 0, 1, 2
    in_order = ring_result(buf[:3], 1, 5, 3, 10)
    assert np.shares_memory(in_order, buf)
    np.testing.assert_array_equal(in_order, buf[:3])
    # after 1 + 4 rows: rows 2, 3, 4 live at 2, 0, 1
    rotated = ring_result(buf[:3], 1, 4, 3, 10)
    assert not np.shares_memory(rotated, buf)
    np.testing.assert_array_equal(rotated, buf[[2, 0, 1]])
    one = ring_result(buf[:1], 1, 7, 1, 7)
    assert np.shares_memory(one, buf) and one.shape == (1, 2)


def test_detach_aliases_copies_only_views_of_the_rings():
    ring = np.zeros((1, 3))
    other = np.ones(3)
    out = detach_aliases([ring[0], other, 5], [ring])
    assert not np.shares_memory(out[0], ring) and out[1] is other and out[2] == 5


@pytest.mark.parametrize("linker", ["py", "vm"])
def test_a_state_returned_as_another_state_with_one_row_rings(linker):
    # b_t = a_{t-1}: the body returns the state it read, whose ring has one row
    a0 = pt.vector("a0")
    a, b = scan(lambda ap, bp: [ap * 2 + 1, ap], outputs_info=[a0, pt.zeros_like(a0)],
                n_steps=5, return_updates=False)
    mode = Mode(linker=linker, optimizer=get_mode("FAST_RUN").optimizer)
    f = opgraph.function([a0], [a[-1], b[-1], a[-2]], mode=mode)
    scans = [n.op for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]
    assert scans and any(op.keep_last for op in scans)
    av = np.array([1.0, 2.0])
    seq = [av]
    for _ in range(5):
        seq.append(seq[-1] * 2 + 1)
    got = f(av)
    np.testing.assert_array_equal(got[0], seq[5])
    np.testing.assert_array_equal(got[1], seq[4])
    np.testing.assert_array_equal(got[2], seq[4])


def test_scan_checkpoints_gradient_of_an_rnn_matches_plain_scan():
    x, w, u, h0 = pt.matrix("x"), pt.matrix("W"), pt.matrix("U"), pt.vector("h0")

    def step(xt, h, w, u):
        return pt.tanh(w @ h + u @ xt)

    plain = scan(step, sequences=[x], outputs_info=[h0], non_sequences=[w, u],
                 return_updates=False)
    ck = scan_checkpoints(step, sequences=[x], outputs_info=[h0], non_sequences=[w, u],
                          save_every_N=4, return_updates=False)
    outs = [*opgraph.grad((plain[-1] ** 2).sum(), [w, u]),
            *opgraph.grad((ck[-1] ** 2).sum(), [w, u])]
    f = opgraph.function([x, w, u, h0], outs)
    n = 6
    vals = [RNG.normal(size=(10, n)), RNG.normal(size=(n, n)) / n, RNG.normal(size=(n, n)) / n,
            RNG.normal(size=n)]
    gw, gu, cw, cu = f(*vals)
    np.testing.assert_allclose(cw, gw, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cu, gu, rtol=1e-12, atol=1e-14)


def test_release_each_step_only_for_large_one_row_rings():
    class Fn:
        def free(self):
            pass

    assert release_each_step(Fn(), [np.zeros((1, 400, 400))])
    assert not release_each_step(Fn(), [np.zeros((1, 10))])
    assert not release_each_step(Fn(), [])
    assert not release_each_step(object(), [np.zeros((1, 400, 400))])


@pytest.mark.parametrize("linker", ["py", "vm"])
def test_a_large_accumulator_with_the_body_released_each_step(linker):
    # acc_t = 0.9 acc_{t-1} + outer(x_t, x_t) / 2: a 1.28 MB state read only at the end
    x = pt.matrix("x")
    acc0 = pt.matrix("acc0")
    acc = scan(lambda xt, a: a * 0.9 + pt.outer(xt, xt) * 0.5, sequences=[x],
               outputs_info=[acc0], return_updates=False)
    mode = Mode(linker=linker, optimizer=get_mode("FAST_RUN").optimizer)
    f = opgraph.function([x, acc0], acc[-1], mode=mode)
    scans = [n.op for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]
    assert [op.keep_last for op in scans] == [(1,)]
    xv, a0 = RNG.normal(size=(4, 400)), RNG.normal(size=(400, 400))
    for xs in (xv, xv * 2):
        want = a0.copy()
        for row in xs:
            want = want * 0.9 + np.outer(row, row) * 0.5
        np.testing.assert_allclose(f(xs, a0), want, rtol=1e-12, atol=1e-12)
