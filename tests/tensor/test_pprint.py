"""pprint of tensor graphs reads as the Python that builds them (opgraph/tensor/printers.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.printing import PPrinter, pprint, register_pprint_extension
from opgraph.tensor.printers import register_tensor_printers

from .helpers import evaluate

x = pt.dmatrix("x")
y = pt.dmatrix("y")
v = pt.dvector("v")
idx = pt.lvector("idx")
c = pt.bscalar("c")
i = pt.imatrix("i")
s34 = pt.tensor(name="s", dtype="float64", shape=(3, 4))

EXPECTED = [
    # broadcasting DimShuffles of constants and reductions are invisible
    (lambda: x * 2.0 + pt.exp(y).sum(), "x * 2.0 + sum(exp(y))"),
    (lambda: pt.dot(x, y)[1:] ** 2, "(x @ y)[1:] ** 2.0"),  # 2 is cast to the float dtype
    (lambda: x - x.sum(axis=0), "x - sum(x, axis=0)"),
    # reductions
    (lambda: x.sum(axis=1), "sum(x, axis=1)"),
    (lambda: x.max(axis=(0, 1)), "max(x)"),
    (lambda: pt.prod(pt.tensor3("t"), axis=(0, 2)), "prod(t, axis=(0, 2))"),
    (lambda: x.sum(axis=1, keepdims=True), "sum(x, axis=1, keepdims=True)"),
    (lambda: x / x.sum(axis=1, keepdims=True), "x / sum(x, axis=1, keepdims=True)"),
    (lambda: pt.sum(i, axis=0, dtype="float64"), "sum(i, axis=0, dtype='float64')"),
    (lambda: pt.argmax(x, axis=1), "argmax(x, axis=1)"),
    (lambda: x.mean(axis=1), "mean(x, axis=1)"),
    (lambda: i.mean(), "mean(i)"),
    (lambda: s34.mean(axis=0, keepdims=True), "mean(s, axis=0, keepdims=True)"),
    (lambda: x.sum(axis=1) / 4.0, "sum(x, axis=1) / 4.0"),  # hand-written: stays a division
    # DimShuffles that change meaning stay
    (lambda: x.T, "x.T"),
    (lambda: (x + y).T, "(x + y).T"),
    (lambda: v.dimshuffle(0, "x") + v, "v.dimshuffle(0, 'x') + v"),
    (lambda: pt.stack([v, v]), "join(0, v.dimshuffle('x', 0), v.dimshuffle('x', 0))"),
    # indexing
    (lambda: x[1:, 2], "x[1:, 2]"),
    (lambda: x[::2, :-1], "x[::2, :-1]"),
    (lambda: x[idx], "x[idx]"),
    (lambda: x[idx, 1:], "x[idx, 1:]"),
    (lambda: pt.set_subtensor(x[1:], 0.0), "set_subtensor(x[1:], 0.0)"),
    (lambda: pt.inc_subtensor(x[idx], y[0]), "inc_subtensor(x[idx], y[0])"),
    # products and precedence
    (lambda: pt.dot(x, y) + x, "x @ y + x"),
    (lambda: x * pt.dot(x, y), "x * (x @ y)"),
    (lambda: pt.dot(x * y, y), "x * y @ y"),
    (lambda: pt.dot(x, pt.dot(x, y)), "x @ (x @ y)"),
    (lambda: pt.dot(pt.dot(x, y), x), "x @ y @ x"),
    (lambda: pt.dot(x, 3.0 * y), "x @ (3.0 * y)"),
    (lambda: pt.dot(x, y) * x, "(x @ y) * x"),
    (lambda: -pt.dot(x, y), "-(x @ y)"),
    # shapes and creation
    (lambda: x.reshape((6,)), "reshape(x, (6,))"),
    (lambda: x.reshape((x.shape[0], -1)), "reshape(x, (shape(x)[0], -1))"),
    (lambda: x.shape, "shape(x)"),
    (lambda: pt.shape_i(x, 1), "shape(x)[1]"),
    (lambda: pt.alloc(0.0, x.shape[0], 3), "alloc(0.0, shape(x)[0], 3)"),
    (lambda: pt.join(1, x, y), "join(1, x, y)"),
    (lambda: pt.specify_shape(x, (None, 3)), "specify_shape(x, (None, 3))"),
    (lambda: pt.split(v, [2, 3], 2)[1], "split(v, (2, 3), 2, axis=0)[1]"),
    # casts, special functions, ifelse
    (lambda: pt.cast(x, "float32"), "cast(x, 'float32')"),
    (lambda: pt.special.softmax(x), "softmax(x)"),
    (lambda: pt.special.log_softmax(x, axis=0), "log_softmax(x, axis=0)"),
    (lambda: pt.ifelse(c, x, y), "ifelse(c, x, y)"),
    (lambda: pt.ifelse(c, [x, v], [y, v])[1], "ifelse(c, (x, v), (y, v))[1]"),
    # constants by value, long axes shortened, negatives parenthesised where Python needs it
    (lambda: pt.constant([1.0, 2.5]) + x, "[1.0, 2.5] + x"),
    (lambda: pt.constant(np.arange(100.0)) + v, "[0.0, 1.0, 2.0, ..., 97.0, 98.0, 99.0] + v"),
    (lambda: pt.constant(np.arange(6).reshape(2, 3)) * i, "[[0, 1, 2], [3, 4, 5]] * i"),
    (lambda: (-2.0) ** x, "(-2.0) ** x"),
    (lambda: x - -1.0, "x - -1.0"),
]


@pytest.mark.parametrize(("build", "expected"), EXPECTED, ids=[e for _, e in EXPECTED])
def test_pprint_reads_as_python(build, expected):
    assert pprint(build()) == expected


def test_float32_constant_prints_its_own_digits():
    f = pt.fvector("f")
    assert pprint(f * np.float32(0.1)) == "f * 0.1"


def test_pprint_of_several_outputs_and_a_function_graph():
    from opgraph.graph.fg import FunctionGraph

    out = x.T.sum(axis=0)
    assert pprint(out, x[0]) == "sum(x.T, axis=0)\nx[0]"
    fg = FunctionGraph([x], [out], clone=False)
    assert pprint(fg) == "sum(x.T, axis=0)"


def test_fresh_pprinter_gets_tensor_printers_on_request():
    plain = PPrinter()
    assert "DimShuffle" in plain(x.T)
    register_tensor_printers(plain)
    assert plain(x.T) == "x.T"


def test_extension_registered_after_first_use_applies_now():
    pprint(x)  # the global table exists
    table = pprint._get()
    calls = []

    def extend(printer):
        calls.append(printer)

    try:
        with table.by_class.saved(), table.conditions.saved():
            register_pprint_extension(extend)
            register_pprint_extension(extend)  # once only
            assert calls == [table]
    finally:
        from opgraph import printing

        printing._PPRINT_EXTENSIONS.remove(extend)


def test_register_extension_rejects_non_callable():
    with pytest.raises(TypeError, match="register_pprint_extension: expected a function"):
        register_pprint_extension("not a function")


# ----------------------------------------------------------------------------- hypothesis

_LEAVES = {"x": x, "y": y}
_BINARY = [
    (lambda a, b: a + b, lambda a, b: a + b),
    (lambda a, b: a - b, lambda a, b: a - b),
    (lambda a, b: a * b, lambda a, b: a * b),
    (lambda a, b: a / b, lambda a, b: a / b),
    (pt.dot, np.dot),
]
_UNARY = [
    (lambda a: -a, lambda a: -a),
    (lambda a: a.T, lambda a: a.T),
    (lambda a: a**2.0, lambda a: a**2.0),
    (lambda a: 3.0 * a, lambda a: 3.0 * a),
    (lambda a: a**-1.0 - -2.0, lambda a: a**-1.0 + 2.0),
    (lambda a: a - a.sum(axis=1, keepdims=True), lambda a: a - a.sum(axis=1, keepdims=True)),
    (lambda a: a[::-1] + a.mean(axis=0), lambda a: a[::-1] + a.mean(axis=0)),
    (pt.exp, np.exp),
]


def _trees(depth: int) -> st.SearchStrategy:
    leaf = st.sampled_from(sorted(_LEAVES))
    if depth == 0:
        return leaf
    sub = _trees(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.integers(0, len(_UNARY) - 1), sub),
        st.tuples(st.integers(0, len(_BINARY) - 1), sub, sub),
    )


def _build(tree: object) -> object:
    if isinstance(tree, str):
        return _LEAVES[tree]
    k, *args = tree
    table = _UNARY if len(args) == 1 else _BINARY
    return table[k][0](*(_build(a) for a in args))


@settings(max_examples=40, deadline=None)
@given(_trees(4))
def test_printed_text_evaluates_to_the_graph_value(tree):
    """The text is Python with the graph's meaning: precedence and hidden ops lose nothing."""
    rng = np.random.default_rng(0)
    values = {"x": rng.uniform(0.5, 1.5, (3, 3)), "y": rng.uniform(0.5, 1.5, (3, 3))}
    out = _build(tree)
    text = pprint(out)
    namespace = {**values, "exp": np.exp, "sum": np.sum, "mean": np.mean}
    with np.errstate(all="ignore"):  # random trees may hit 0 ** -k: inf on both sides
        got = eval(text, {"__builtins__": {}}, namespace)  # the text of our own printer
        want = evaluate(out, {x: values["x"], y: values["y"]})
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=text)
