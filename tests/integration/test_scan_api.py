"""opgraph.scan: values against Python loops, in every mode; taps, updates, until, views."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.scan import Scan, ScanInfo, foldl, foldr, map, reduce, scan, until

# return_updates left unset keeps PyTensor 3.0's (outputs, updates) form; its warning
# is checked in test_return_updates_signature.
pytestmark = pytest.mark.filterwarnings("ignore:Scan return signature:DeprecationWarning")

MODES = ["FAST_COMPILE", "FAST_RUN", "C"]


def _mode(name: str) -> str:
    if name == "C":
        pytest.importorskip("opgraph_c")
    return name


@pytest.mark.parametrize("mode", MODES)
def test_sit_sot_matches_python_loop(mode):
    x = pt.vector("x")
    h0 = pt.scalar("h0")
    w = pt.scalar("w")
    out, updates = scan(lambda xt, h, w: pt.tanh(h * w + xt), sequences=[x],
                        outputs_info=[h0], non_sequences=[w])
    assert updates == {}
    f = function([x, h0, w], out, mode=_mode(mode))
    xv = np.linspace(-1, 1, 7)
    h, expected = 0.3, []
    for xt in xv:
        h = np.tanh(h * 0.8 + xt)
        expected.append(h)
    np.testing.assert_allclose(f(xv, 0.3, 0.8), expected)


@pytest.mark.parametrize("mode", MODES)
def test_mit_sot_and_sequence_taps(mode):
    # fibonacci-like recurrence with taps -2, -1 and a sequence read at t-1 and t+1
    x = pt.vector("x")
    init = pt.vector("init")
    out, _ = scan(lambda xm1, xp1, a, b: a + b + xm1 * xp1,
                  sequences=[dict(input=x, taps=[-1, 1])],
                  outputs_info=[dict(initial=init, taps=[-2, -1])])
    f = function([x, init], out, mode=_mode(mode))
    xv = np.arange(6.0)
    got = f(xv, np.array([1.0, 2.0]))
    buf = [1.0, 2.0]
    for t in range(1, 5):
        buf.append(buf[-2] + buf[-1] + xv[t - 1] * xv[t + 1])
    np.testing.assert_allclose(got, buf[2:])


def test_nit_sot_map_multiple_outputs_and_n_steps():
    x = pt.matrix("x")
    (s, p), _ = scan(lambda r: [r.sum(), r * 2], sequences=x)
    f = function([x], [s, p])
    xv = np.arange(12.0).reshape(4, 3)
    a, b = f(xv)
    np.testing.assert_allclose(a, xv.sum(1))
    np.testing.assert_allclose(b, xv * 2)
    k = pt.iscalar("k")
    y, _ = scan(lambda h: h * 2, outputs_info=pt.ones(2), n_steps=k)
    np.testing.assert_allclose(function([k], y)(3), [[2, 2], [4, 4], [8, 8]])
    np.testing.assert_allclose(function([k], y)(0).shape, (0, 2))


def test_go_backwards_and_return_list():
    x = pt.vector("x")
    out = scan(lambda xt, acc: acc + xt, sequences=x, outputs_info=pt.zeros(()),
               go_backwards=True, return_list=True, return_updates=False)
    assert isinstance(out, list) and len(out) == 1
    np.testing.assert_allclose(function([x], out[0])(np.array([1.0, 2, 3])), [3, 5, 6])


def test_shared_variable_updates():
    counter = opgraph.shared(np.int64(0), name="counter")
    x = pt.vector("x")
    out, updates = scan(lambda xt: (xt * 2, {counter: counter + 1}), sequences=x)
    assert list(updates) == [counter]
    f = function([x], out, updates=updates)
    np.testing.assert_allclose(f(np.arange(3.0)), [0, 2, 4])
    assert counter.get_value() == 3
    f(np.arange(5.0))
    assert counter.get_value() == 8


def test_until_stops_early():
    def step(h):
        new = h * 2
        return new, until(new > 50)

    h0 = pt.scalar("h0")
    out, _ = scan(step, outputs_info=h0, n_steps=100)
    np.testing.assert_allclose(function([h0], out)(1.0), [2, 4, 8, 16, 32, 64])


def test_views():
    x = pt.vector("x")
    m, _ = map(lambda v: v**2, x)
    r, _ = reduce(lambda v, acc: acc + v, x, pt.zeros(()))
    left, _ = foldl(lambda v, acc: acc * 10 + v, x, pt.zeros(()))
    right, _ = foldr(lambda v, acc: acc * 10 + v, x, pt.zeros(()))
    f = function([x], [m, r, left, right])
    got = f(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(got[0], [1, 4, 9])
    assert got[1] == 6 and got[2] == 123 and got[3] == 321


def test_free_variables_become_non_sequences():
    w = pt.scalar("w")
    x = pt.vector("x")
    out = scan(lambda xt: xt * w, sequences=x, return_updates=False)
    assert isinstance(out.owner.op, Scan) and out.owner.op.info.n_non_seqs == 1
    np.testing.assert_allclose(function([x, w], out)(np.arange(3.0), 2.0), [0, 2, 4])
    out = scan(lambda xt, w: xt * w * 2, sequences=x, non_sequences=w * 1.5,
               return_updates=False)
    np.testing.assert_allclose(function([x, w], out)(np.arange(3.0), 2.0), [0, 6, 12])
    s = opgraph.shared(np.array(3.0), name="s")
    out = scan(lambda xt: xt * s, sequences=x, return_updates=False)
    np.testing.assert_allclose(function([x], out)(np.arange(3.0)), [0, 3, 6])
    # an update may only read what the loop is given
    with pytest.raises(opgraph.graph.utils.MissingInputError, match="update of a shared"):
        scan(lambda: (pt.zeros(()), {opgraph.shared(0.0): w}), n_steps=3)
    # strict=True refuses a shared variable not passed in; another free variable (w) is
    # an implicit non-sequence, as in PyTensor (PyMC's LKJCholeskyCov relies on it)
    with pytest.raises(opgraph.graph.utils.MissingInputError, match="strict=True"):
        scan(lambda xt: xt * s, sequences=x, strict=True)
    out = scan(lambda xt: xt * w, sequences=x, strict=True, return_updates=False)
    np.testing.assert_allclose(function([x, w], out)(np.arange(3.0), 2.0), [0, 2, 4])


def test_sequence_taps_align_with_the_current_step():
    x = pt.vector("x")
    prev = scan(lambda v: v, sequences=dict(input=x, taps=[-1]), return_updates=False)
    ahead = scan(lambda v: v, sequences=dict(input=x, taps=[2]), return_updates=False)
    xv = np.arange(5.0)
    np.testing.assert_allclose(function([x], prev)(xv), xv[:-1])
    np.testing.assert_allclose(function([x], ahead)(xv), xv[2:])


def test_initial_rows_are_not_connected_to_what_scan_returns():
    x0, z0 = pt.vector("x0"), pt.vector("z0")
    x, z = scan(lambda a, c: [a**2, a + 1], outputs_info=[x0, z0], n_steps=4,
                return_updates=False)
    opgraph.grad((x + z).sum(), x0)
    with pytest.raises(ValueError):
        opgraph.grad((x + z).sum(), z0)


def test_equal_scans_compare_equal_and_merge():
    x = pt.vector("x")
    a, _ = scan(lambda v: v + 1, sequences=x)
    b, _ = scan(lambda v: v + 1, sequences=x)
    c, _ = scan(lambda v: v + 2, sequences=x)
    assert a.owner.op == b.owner.op and hash(a.owner.op) == hash(b.owner.op)
    assert a.owner.op != c.owner.op
    assert isinstance(a.owner.op.info, ScanInfo)
    assert a.owner.op.info.n_nit_sot == 1


def test_dprint_shows_inner_graph():
    x = pt.vector("x")
    out, _ = scan(lambda v: pt.exp(v), sequences=x, name="myloop")
    text = opgraph.printing.debugprint(out, file="str")
    assert "myloop" in text and "Exp" in text


def test_bad_inputs_name_the_argument():
    x = pt.vector("x")
    with pytest.raises(ValueError, match="returned 2 output"):
        scan(lambda v, h: [h + v, h], sequences=x, outputs_info=[pt.zeros(())])
    with pytest.raises(TypeError, match="outputs must be symbolic"):
        scan(lambda v: "nope", sequences=x)
    with pytest.raises(TypeError, match="outputs_info\\[0\\]"):
        scan(lambda v, h: pt.stack([h, h]), sequences=x, outputs_info=[pt.zeros(())])
    with pytest.raises(ValueError, match="taps must all be negative"):
        scan(lambda v, h: h, sequences=x, outputs_info=[dict(initial=x, taps=[1])])
    with pytest.raises(ValueError, match="initial value"):
        scan(lambda v, h: h, sequences=x, outputs_info=[dict(initial=pt.zeros(()),
                                                             taps=[-2])])
    with pytest.raises(ValueError, match="needs 3 rows; it has 2"):
        scan(lambda a, b: a + b, outputs_info=[dict(initial=pt.zeros(2), taps=[-3, -1])],
             n_steps=4)
    with pytest.raises(TypeError, match="n_steps must be a scalar integer"):
        scan(lambda h: h, outputs_info=pt.zeros(()), n_steps=pt.vector("n"))
    with pytest.raises(TypeError, match="n_steps must be a scalar integer"):
        scan(lambda h: h, outputs_info=pt.zeros(()), n_steps=pt.scalar("n"))
    with pytest.raises(TypeError, match="until: condition must be a boolean scalar"):
        until(pt.vector("c"))
    with pytest.raises(TypeError, match="until: condition must be a boolean scalar"):
        until(pt.matrix("c"))
    with pytest.raises(ValueError, match="n_steps must be given"):
        scan(lambda h: h, outputs_info=pt.zeros(()))


def test_sequence_shorter_than_n_steps_is_a_clear_runtime_error():
    x = pt.vector("x")
    k = pt.iscalar("k")
    out, _ = scan(lambda v: v, sequences=x, n_steps=k)
    with pytest.raises(ValueError, match="fewer than n_steps"):
        function([x, k], out)(np.arange(2.0), 5)


def test_opgraph_scan_is_callable_like_pytensor_scan():
    import opgraph.scan.views as views

    x = pt.vector("x")
    out, _ = opgraph.scan(lambda v: v + 1, sequences=x)
    np.testing.assert_allclose(function([x], out)(np.arange(3.0)), [1, 2, 3])
    assert views.map is map


def test_return_updates_signature():
    x = opgraph.shared(np.array(0.0), name="x")
    with pytest.warns(DeprecationWarning, match="Scan return signature will change"):
        traced, updates = scan(lambda: {x: x + 1}, outputs_info=[], n_steps=3)
    assert traced is None and list(updates) == [x]
    out = scan(lambda v: v + 1, outputs_info=[x], n_steps=3, return_updates=False)
    np.testing.assert_allclose(function([], out)(), [1, 2, 3])
    with pytest.raises(ValueError, match="return_updates=False but Scan produced updates"):
        scan(lambda: {x: x + 1}, outputs_info=[], n_steps=3, return_updates=False)


def test_updates_as_pairs_and_strict_shared():
    a = opgraph.shared(np.array(1.0), name="a")
    b = opgraph.shared(np.array(2.0), name="b")
    out, updates = scan(lambda: (a + b, [(a, a + 1), (b, b * 2)]), n_steps=2)
    f = function([], out, updates=updates)
    np.testing.assert_allclose(f(), [3, 6])
    assert a.get_value() == 3 and b.get_value() == 8
    with pytest.raises(opgraph.graph.utils.MissingInputError, match="strict=True"):
        scan(lambda h: h * a, outputs_info=pt.zeros(()), n_steps=2, strict=True)
    # a shared variable passed in non_sequences is given: strict accepts it
    h = scan(lambda h, a: h + a, outputs_info=pt.zeros(()), non_sequences=a, n_steps=2,
             strict=True, return_updates=False)
    np.testing.assert_allclose(function([], h)(), [3.0, 6.0])


def test_strict_loop_reading_a_generator_passed_in_non_sequences():
    # the generator is read, not updated, by the loop: every step draws the same index
    rng = opgraph.shared(np.random.default_rng(4))
    data = pt.arange(16.0)

    def step(s, data, rng):
        return (data[pt.random.integers(16, rng=rng)] + s) ** 2

    seq = pt.vector("seq")
    xs = scan(step, sequences=[seq], non_sequences=[data, rng], strict=True,
              return_updates=False)
    f = function([seq], [xs, opgraph.grad(xs[0], seq)])
    out, g = f(np.array([0.5, 1.0, 2.0]))
    idx = np.random.default_rng(4).integers(16)
    np.testing.assert_allclose(out, (idx + np.array([0.5, 1.0, 2.0])) ** 2)
    np.testing.assert_allclose(g, [2 * (idx + 0.5), 0.0, 0.0])


def test_filter_view():
    from opgraph.scan.views import filter as scan_filter

    v = pt.vector("v")
    evens = scan_filter(lambda e: pt.eq(e % 2, 0), v)
    vals = np.arange(10.0)
    np.testing.assert_allclose(function([v], evens)(vals), vals[vals % 2 == 0])


def test_clone_and_pickle():
    import pickle

    x = pt.vector("x")
    out = scan(lambda v: v**2, sequences=x, return_updates=False)
    op = out.owner.op
    other = op.clone()
    assert other is not op and other.fgraph is not op.fgraph
    assert other.fgraph.outputs != op.fgraph.outputs
    assert other == op
    function([x], out)(np.arange(3.0))  # compiles the body, which pickling leaves out
    copy = pickle.loads(pickle.dumps(out.owner.op))
    assert copy == op
    y = pt.vector("y")
    np.testing.assert_allclose(function([y], copy(pt.cast(y.shape[0], "int64"), y,
                                                  pt.cast(y.shape[0], "int64")))(
        np.arange(3.0)), [0, 1, 4])


def test_input_output_mappings():
    w = opgraph.shared(np.array(1.0), name="w")
    seq, init, h0, ns = pt.vector("seq"), pt.vector("init"), pt.scalar("h0"), pt.scalar("ns")

    def step(s, a, b, h, ns):
        total = s + a + b + h + ns + w
        return [total, total, total], {w: w + 1}

    _outs, updates = scan(step, sequences=seq, non_sequences=ns,
                         outputs_info=[dict(initial=init, taps=[-3, -1]), h0, None])
    op = updates[w].owner.op
    maps = op.get_oinp_iinp_iout_oout_mappings()
    # outer inputs: n_steps, seq, init, h0, w, nit length, ns
    assert maps["inner_inp_from_outer_inp"] == {0: [], 1: [0], 2: [1, 2], 3: [3], 4: [4],
                                                5: [], 6: [5]}
    assert maps["outer_out_from_outer_inp"] == {0: -1, 1: -1, 2: 0, 3: 1, 4: 3, 5: 2, 6: -1}
    assert maps["outer_inp_from_inner_inp"] == {0: 1, 1: 2, 2: 2, 3: 3, 4: 4, 5: 6}
    assert maps["inner_inp_from_inner_out"] == {0: [1, 2], 1: [3], 2: [], 3: [4]}
    assert op.outer_seqs(updates[w].owner.inputs) == [updates[w].owner.inputs[1]]


def test_zero_steps():
    c = opgraph.shared(np.array(5.0), name="c")
    k = pt.iscalar("k")
    out, updates = scan(lambda: (c * 2, {c: c + 1}), n_steps=k)
    f = function([k], out, updates=updates)
    assert f(0).shape == (0,) and c.get_value() == 5.0
    np.testing.assert_allclose(f(2), [10, 12])
    assert c.get_value() == 7.0


@pytest.mark.parametrize("mode", MODES)
def test_hand_built_mit_mot(mode):
    # a buffer read at steps i, i+1 and written at i+1: b[i+1] += 2 * b[i] + s[i]
    s_t, b0, b1 = pt.scalar("s_t"), pt.vector("b0"), pt.vector("b1")
    info = ScanInfo(n_seqs=1, mit_mot_in_slices=((0, 1),), mit_mot_out_slices=((1,),))
    op = Scan([s_t, b0, b1], [b1 + 2 * b0 + s_t], info, mode=_mode(mode))
    n, seq, buf = pt.lscalar("n"), pt.vector("seq"), pt.matrix("buf")
    out = op(n, seq, buf)
    f = function([n, seq, buf], out, mode=_mode(mode))
    bv = np.arange(8.0).reshape(4, 2)
    sv = np.array([1.0, -1.0, 0.5])
    expected = bv.copy()
    for i in range(3):
        expected[i + 1] = expected[i + 1] + 2 * expected[i] + sv[i]
    np.testing.assert_allclose(f(3, sv, bv), expected)
    np.testing.assert_allclose(bv, np.arange(8.0).reshape(4, 2))  # input untouched
    with pytest.raises(ValueError, match="mit-mot buffer 0 needs 4 rows"):
        f(3, sv, bv[:3])
    with pytest.raises(NotImplementedError, match="mit-mot"):
        opgraph.grad(out.sum(), seq)


def test_non_tensor_state_keeps_only_its_final_value():
    # a state whose type is not a tensor (here a scalar-type variable; random
    # generators are the common case) is carried without history
    import opgraph.scalar as ps

    s0 = ps.float64("s0")
    k = pt.iscalar("k")
    final, xs = scan(lambda s, x: [s + 1.5, x * 2], outputs_info=[s0, pt.ones(())], n_steps=k,
                     return_updates=False)
    assert final.type == s0.type and xs.type.ndim == 1
    assert xs.owner.inputs[0].owner.op.info.n_untraced_sit_sot == 1
    f = function([s0, k], [final, xs])
    got_final, got_xs = f(1.0, 3)
    assert got_final == 5.5
    np.testing.assert_allclose(got_xs, [2, 4, 8])
    assert f(1.0, 0)[0] == 1.0
    with pytest.raises(TypeError, match="output 0 of the step function"):
        scan(lambda s: s > 1, outputs_info=[s0], n_steps=k)
    with pytest.raises(ValueError, match="only be fed back with tap -1"):
        scan(lambda a, b: a, outputs_info=[dict(initial=s0, taps=[-2, -1])], n_steps=k)


@pytest.mark.parametrize("taps", [range(-1, 0), (-1,)])
def test_single_tap_given_as_range_or_tuple_reads_a_row_of_the_initial_value(taps):
    """Only the list [-1] (or no taps) feeds the state itself back, as in PyTensor; a
    range or tuple is one tap of an initial value with a leading axis (PyMC's AR(1))."""
    init = pt.dvector("init")
    rho = pt.dscalar("rho")
    out = opgraph.scan(lambda prev, r: r * prev, outputs_info=[{"initial": init, "taps": taps}],
                       non_sequences=[rho], n_steps=3, return_updates=False)
    assert out.type.ndim == 1
    got = opgraph.function([init, rho], out)(np.array([5.0, 2.0]), 0.5)
    np.testing.assert_allclose(got, [2.5, 1.25, 0.625])  # the first row is the tap -1 value
    # the list [-1] keeps the state's own shape
    whole = opgraph.scan(lambda prev: 2 * prev, outputs_info=[{"initial": init, "taps": [-1]}],
                         n_steps=2, return_updates=False)
    np.testing.assert_allclose(opgraph.function([init], whole)(np.array([1.0, 3.0])),
                               [[2.0, 6.0], [4.0, 12.0]])


def test_until_float_condition_stops_where_nonzero() -> None:
    """As in PyTensor, ``until`` takes any scalar: the loop stops after the step where it
    is nonzero (a float countdown here), on every backend."""
    a = pt.scalar("a")
    ys = scan(lambda v: (v - 1.0, until(v - 1.0)), outputs_info=[a], n_steps=10,
              return_updates=False)
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = function([a], ys, mode=mode)
        np.testing.assert_allclose(f(1.0), [0.0, -1.0])  # 0 continues, -1 stops
        np.testing.assert_allclose(f(0.0), [-1.0])
