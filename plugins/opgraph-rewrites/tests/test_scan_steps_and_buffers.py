"""scan_reduce_nsteps and scan_save_mem on PyTensor's buffer layout: the loop runs only
the steps read, keeps only the rows read, and computes what the unrewritten graph does."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import get_default_mode
from opgraph.graph.basic import Constant
from opgraph.scan import scan
from opgraph.scan.op import Scan

MODE = get_default_mode()
PLAIN = "FAST_COMPILE"  # no scan rewrites: the reference


def _scan_node(f):
    [node] = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, Scan)]
    return node


def _value_of(inputs, var):
    return function(inputs, var, accept_inplace=True, on_unused_input="ignore")


def test_reduce_nsteps_runs_only_the_steps_read():
    u, idx, jdx = pt.vector("u"), pt.iscalar("idx"), pt.iscalar("jdx")
    a, b, c, d, e = scan(lambda t: (t + 1.0, t * 2.0, t - 3.0, t * t, t / 2.0), u,
                         return_updates=False)
    outs = [a[:2], b[4], c[idx], d[-jdx]]
    f = function([u, idx, jdx], outs, mode=MODE)
    steps = _value_of([u, idx, jdx], _scan_node(f).inputs[0])
    v = np.random.default_rng(0).uniform(-5, 5, 20)
    # max(2, 5, idx + 1, 20 - jdx + 1)
    assert [int(steps(v, i, j)) for i, j in [(3, 15), (3, 3), (16, 15), (-5, 15), (19, 15)]] \
        == [6, 18, 17, 16, 20]
    ref = function([u, idx, jdx], outs, mode=PLAIN)
    for i, j in [(3, 15), (-5, 2), (0, 20)]:
        for got, want in zip(f(v, i, j), ref(v, i, j)):
            np.testing.assert_allclose(got, want)
    # a symbolic slice bound keeps every step (PyTensor's choice)
    g = function([u, idx, jdx], [*outs, e[:idx]], mode=MODE)
    assert int(_value_of([u, idx, jdx], _scan_node(g).inputs[0])(v, 3, 15)) == 20
    np.testing.assert_allclose(g(v, 3, 15)[-1], v[:3] / 2.0)


@pytest.mark.parametrize("i, j", [(20, 3), (-21, 3), (3, 21)])
def test_reduce_nsteps_keeps_index_errors(i, j):
    u, idx, jdx = pt.vector("u"), pt.iscalar("idx"), pt.iscalar("jdx")
    a, b = scan(lambda t: (t + 1.0, t * 2.0), u, return_updates=False)
    f = function([u, idx, jdx], [a[idx], b[-jdx]], mode=MODE)
    with pytest.raises(IndexError):
        f(np.arange(20.0), i, j)


def test_reduce_nsteps_constant_length_and_state_buffer():
    x0 = pt.scalar("x0")
    xs = scan(lambda p: p * 2.0, outputs_info=[x0], n_steps=10, return_updates=False)
    f = function([x0], [xs[-3], xs[:4]], mode=MODE)
    node = _scan_node(f)
    assert isinstance(node.inputs[0], Constant) and int(node.inputs[0].data) == 8
    assert int(_value_of([x0], node.inputs[1].shape[0])(1.0)) == 9  # n_steps + 1 rows
    last, head = f(1.0)
    np.testing.assert_allclose(last, 2.0 ** 8)
    np.testing.assert_allclose(head, 2.0 ** np.arange(1, 5))


def test_reduce_nsteps_leaves_loops_whose_end_is_read():
    x0 = pt.scalar("x0")
    xs, ys = scan(lambda p, q: (p + 1, q - 1), outputs_info=[x0, x0], n_steps=10,
                  return_updates=False)
    f = function([x0], [xs[:5], ys[-1]], mode=MODE)
    assert int(_scan_node(f).inputs[0].data) == 10
    head, last = f(0.0)
    np.testing.assert_allclose(head, np.arange(1, 6))
    np.testing.assert_allclose(last, -10)


@pytest.mark.parametrize("n", [100, 3, 0])
def test_save_mem_keeps_the_last_rows_read_as_a_slice(n):
    """``ys[-50:]`` needs all the steps (a recurrence) but only 50 rows; a loop of fewer
    steps than that still returns only its steps, not the initial rows."""
    x0, steps = pt.vector("x0"), pt.iscalar("n")
    ys = scan(lambda a, b: a + b, outputs_info=[{"initial": x0, "taps": [-2, -1]}],
              n_steps=steps, return_updates=False)
    raw = ys.owner.inputs[0]
    outs = [ys[-50:], raw[-3:]]
    f = function([x0, steps], outs, mode=MODE)
    node = _scan_node(f)
    assert node.op.keep_last == (50,)
    assert int(_value_of([x0, steps], node.inputs[1].shape[0])(np.ones(2), n)) == min(n + 2, 50)
    ref = function([x0, steps], outs, mode=PLAIN)
    for got, want in zip(f(np.array([1.0, 1.0]), n), ref(np.array([1.0, 1.0]), n)):
        np.testing.assert_allclose(got, want)


def test_save_mem_with_grad_and_c_loop_values():
    """The shrunk buffers and fewer steps keep values and gradients (against NumPy)."""
    w, x0 = pt.scalar("w"), pt.vector("x0")
    xs = scan(lambda p, w: pt.tanh(p * w), outputs_info=[x0], non_sequences=[w], n_steps=6,
              return_updates=False)
    cost = xs[-1].sum() + xs[2].sum()
    f = function([w, x0], [cost, opgraph.grad(cost, w)], mode=MODE)
    vals = [np.array([0.3, -0.2])]
    for _ in range(6):
        vals.append(np.tanh(vals[-1] * 0.7))
    got, g = f(0.7, vals[0])
    np.testing.assert_allclose(got, vals[6].sum() + vals[3].sum())
    eps = 1e-6
    num = (f(0.7 + eps, vals[0])[0] - f(0.7 - eps, vals[0])[0]) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-6)


def test_sit_sot_to_untraced_when_only_the_last_value_is_read():
    """Opt-in: a state read as ``ys[-1]`` (or not at all) becomes an untraced state; the
    one whose whole history is read keeps its buffer; values as without rewrites."""
    mode = MODE.excluding("scan_save_mem").including("scan_save_mem_no_prealloc",
                                                     "scan_sit_sot_to_untraced")
    x0, y0, r0 = pt.vector("x0"), pt.vector("y0"), pt.vector("r0")

    def step(x, y, r):
        new_r = 1.0 - x
        return x + 0.5 * new_r + 0.3 * r, y * 0.5 + 1, x * 2, new_r

    xs, ys, ws, _rs = scan(step, outputs_info=[x0, y0, None, r0], n_steps=7,
                           return_updates=False)
    outs = [xs, ys[-1], ws[-1]]
    f = function([x0, y0, r0], outs, mode=mode)
    info = _scan_node(f).op.info
    assert (info.n_sit_sot, info.n_nit_sot, info.n_untraced_sit_sot) == (1, 1, 2)
    assert _scan_node(function([x0, y0, r0], outs, mode=MODE)).op.info.n_untraced_sit_sot == 0
    v = [np.array([0.2, -1.0]), np.array([3.0, 0.5]), np.array([0.1, 0.4])]
    for got, want in zip(f(*v), function([x0, y0, r0], outs, mode=PLAIN)(*v)):
        np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(f(*v)[1], 2 + (v[1] - 2) * 0.5 ** 7)


def test_inplace_writes_the_history_into_the_state_buffer():
    """scan_make_inplace: the Scan destroys its state buffers (never a graph input or a
    constant); the Python loop writes the history there; values as without it."""
    x0, u = pt.vector("x0"), pt.vector("u")
    xs = scan(lambda t, p, q: (p * 2.0 + t, q - t), sequences=[u], outputs_info=[x0, x0],
              return_updates=False)[0]
    node = xs.owner.inputs[0].owner
    inputs = list(node.inputs)
    inputs[3] = pt.constant(np.zeros((4, 2)))  # the second state's buffer: a constant
    raw_x, raw_y = node.op(*inputs, return_list=True)
    xs, ys_const = raw_x[1:], raw_y[1:]
    for mode in (MODE, MODE.clone(linker="py")):
        f = function([x0, u], [xs, ys_const], mode=mode)
        node = _scan_node(f)
        assert node.op.destroy_map == {0: [2]}  # not the constant buffer of ys
        assert "inplace=all" in str(node.op)
        v, x = np.array([1.0, -1.0, 0.5]), np.array([0.3, 2.0])
        got_x, got_y = f(x, v)
        want = [x]
        for t in v:
            want.append(want[-1] * 2.0 + t)
        np.testing.assert_allclose(got_x, want[1:])
        np.testing.assert_allclose(got_y, -np.cumsum(v)[:, None] * np.ones(2))
        np.testing.assert_allclose(f(x, v)[0], want[1:])  # a second call: a fresh buffer
    g = function([x0, u], xs, mode=MODE.excluding("scan_make_inplace"))
    assert not _scan_node(g).op.destroy_map


def test_inplace_never_destroys_a_graph_input():
    buf, u = pt.matrix("buf"), pt.vector("u")
    xs = scan(lambda t, p: p + t, sequences=[u], outputs_info=[pt.zeros(())],
              return_updates=False)
    node = xs.owner.inputs[0].owner
    out = node.op(node.inputs[0], node.inputs[1], buf[:, 0])
    f = function([buf, u], out, mode=MODE)
    assert not _scan_node(f).op.destroy_map
    b = np.zeros((4, 1))
    np.testing.assert_allclose(f(b, np.array([1.0, 2.0, 3.0])), [0, 1, 3, 6])
    np.testing.assert_array_equal(b, 0)


def test_a_scan_with_a_destroy_map_writes_into_its_buffer():
    x0 = pt.vector("x0")
    xs = scan(lambda p: p * 2.0, outputs_info=[x0], n_steps=3, return_updates=False)
    node = xs.owner.inputs[0].owner
    op = node.op.clone()
    op.destroy_map = {0: [1]}
    buf, out = np.zeros((4, 2)), [[None]]
    buf[0] = 1.0
    op.perform(op.make_node(*node.inputs), [np.int64(3), buf], out)
    np.testing.assert_array_equal(buf, [[1, 1], [2, 2], [4, 4], [8, 8]])
    assert np.shares_memory(out[0][0], buf)
    short, out = np.ones((2, 2)), [[None]]  # too short for the history: a buffer of its own
    op.perform(op.make_node(*node.inputs), [np.int64(3), short], out)
    np.testing.assert_array_equal(out[0][0][-1], [8, 8])
    assert not np.shares_memory(out[0][0], short)
