"""Every tensor op through function() on both Python linkers, against NumPy.

One table row per op: how to build it from symbolic inputs, the NumPy
reference, and the input values.  Rewrites are off so each op itself runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.compile.sharedvalue import shared

RNG = np.random.default_rng(42)
A = RNG.uniform(0.2, 0.9, size=(3, 4))
B = RNG.uniform(0.2, 0.9, size=(3, 4))
V = RNG.uniform(0.2, 0.9, size=4)
M = RNG.uniform(-1, 1, size=(4, 2))
I = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64)
J = np.array([[3, 1, 2], [2, 7, 5]], dtype=np.int64)
BOOL = np.array([True, False, True, True])

# (id, builder(*symbolic) -> output, numpy reference(*values), values)
Case = tuple[str, Callable[..., Any], Callable[..., Any], tuple[Any, ...]]


def _unary(name: str, ref: Callable[[Any], Any], value: Any = A) -> Case:
    return (name, getattr(pt, name), ref, (value,))


def _binary(name: str, ref: Callable[[Any, Any], Any], a: Any = A, b: Any = B) -> Case:
    return (name, getattr(pt, name), ref, (a, b))


CASES: list[Case] = [
    _unary("neg", np.negative),
    _unary("abs", np.abs, A - 0.5),
    _unary("exp", np.exp),
    _unary("exp2", np.exp2),
    _unary("expm1", np.expm1),
    _unary("log", np.log),
    _unary("log2", np.log2),
    _unary("log10", np.log10),
    _unary("log1p", np.log1p),
    _unary("sqrt", np.sqrt),
    _unary("sqr", np.square),
    _unary("sin", np.sin),
    _unary("cos", np.cos),
    _unary("tan", np.tan),
    _unary("arcsin", np.arcsin),
    _unary("arccos", np.arccos),
    _unary("arctan", np.arctan),
    _unary("sinh", np.sinh),
    _unary("cosh", np.cosh),
    _unary("tanh", np.tanh),
    _unary("arcsinh", np.arcsinh),
    _unary("arccosh", np.arccosh, A + 1),
    _unary("arctanh", np.arctanh),
    _unary("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    _unary("softplus", lambda x: np.log1p(np.exp(x))),
    _unary("sign", np.sign, A - 0.5),
    _unary("floor", np.floor, 3 * A),
    _unary("ceil", np.ceil, 3 * A),
    _unary("trunc", np.trunc, 3 * A - 1),
    _unary("round_half_to_even", np.round, 4 * A),
    _unary("reciprocal", np.reciprocal),
    _unary("isnan", np.isnan, np.array([1.0, np.nan])),
    _unary("isinf", np.isinf, np.array([1.0, np.inf])),
    _unary("invert", np.invert, BOOL),
    _binary("add", np.add),
    _binary("sub", np.subtract),
    _binary("mul", np.multiply),
    _binary("true_div", np.true_divide),
    _binary("int_div", np.floor_divide, I, J),
    _binary("mod", np.mod, I, J),
    _binary("pow", np.power),
    _binary("maximum", np.maximum),
    _binary("minimum", np.minimum),
    _binary("arctan2", np.arctan2),
    _binary("lt", np.less),
    _binary("le", np.less_equal),
    _binary("gt", np.greater),
    _binary("ge", np.greater_equal),
    _binary("eq", np.equal, I, J),
    _binary("neq", np.not_equal, I, J),
    _binary("bitwise_and", np.bitwise_and, I, J),
    _binary("bitwise_or", np.bitwise_or, I, J),
    _binary("bitwise_xor", np.bitwise_xor, I, J),
    ("add broadcast row", lambda a, v: a + v, lambda a, v: a + v, (A, V)),
    ("clip", lambda a: pt.clip(a, 0.3, 0.6), lambda a: np.clip(a, 0.3, 0.6), (A,)),
    ("switch", lambda a, b: pt.switch(a > b, a, b), lambda a, b: np.where(a > b, a, b), (A, B)),
    ("cast", lambda i: pt.cast(i, "float32"), lambda i: i.astype("float32"), (I,)),
    ("sum all", pt.sum, np.sum, (A,)),
    ("sum axis0", lambda a: pt.sum(a, axis=0), lambda a: a.sum(axis=0), (A,)),
    ("sum keepdims", lambda a: pt.sum(a, axis=1, keepdims=True),
     lambda a: a.sum(axis=1, keepdims=True), (A,)),
    ("prod", lambda a: pt.prod(a, axis=1), lambda a: a.prod(axis=1), (A,)),
    ("max", lambda a: pt.max(a, axis=0), lambda a: a.max(axis=0), (A,)),
    ("min", lambda a: pt.min(a), np.min, (A,)),
    ("mean", lambda a: pt.mean(a, axis=1), lambda a: a.mean(axis=1), (A,)),
    ("var", lambda a: pt.var(a, axis=0), lambda a: a.var(axis=0), (A,)),
    ("std", lambda a: pt.std(a), np.std, (A,)),
    ("argmax", lambda a: pt.argmax(a, axis=1), lambda a: a.argmax(axis=1), (A,)),
    ("argmin", lambda a: pt.argmin(a, axis=0), lambda a: a.argmin(axis=0), (A,)),
    ("all", lambda b: pt.all(b), np.all, (BOOL,)),
    ("any", lambda b: pt.any(b), np.any, (BOOL,)),
    ("dot", pt.dot, np.dot, (A, M)),
    ("dot vec", pt.dot, np.dot, (A, V)),
    ("matmul", pt.matmul, np.matmul, (A, M)),
    ("outer", pt.outer, np.outer, (V, V)),
    ("transpose", lambda a: a.T, lambda a: a.T, (A,)),
    ("dimshuffle", lambda v: v.dimshuffle("x", 0), lambda v: v[None, :], (V,)),
    ("reshape", lambda a: pt.reshape(a, (4, 3)), lambda a: a.reshape(4, 3), (A,)),
    ("flatten", pt.flatten, lambda a: a.reshape(-1), (A,)),
    ("shape", pt.shape, lambda a: np.array(a.shape), (A,)),
    ("specify_shape", lambda a: pt.specify_shape(a, (3, 4)), lambda a: a, (A,)),
    ("squeeze", lambda v: pt.squeeze(v.dimshuffle("x", 0)), lambda v: v, (V,)),
    ("subtensor", lambda a: a[1:, ::2], lambda a: a[1:, ::2], (A,)),
    ("subtensor int", lambda a: a[2, 1], lambda a: a[2, 1], (A,)),
    ("advanced subtensor1", lambda a: a[[2, 0, 2]], lambda a: a[[2, 0, 2]], (A,)),
    ("set_subtensor", lambda a: pt.set_subtensor(a[0], 5.0),
     lambda a: np.concatenate([np.full((1, 4), 5.0), a[1:]]), (A,)),
    ("inc_subtensor", lambda a: pt.inc_subtensor(a[:, 1], 1.0),
     lambda a: a + np.array([0.0, 1.0, 0.0, 0.0]), (A,)),
    ("concatenate", lambda a, b: pt.concatenate([a, b], axis=1),
     lambda a, b: np.concatenate([a, b], axis=1), (A, B)),
    ("stack", lambda a, b: pt.stack([a, b]), lambda a, b: np.stack([a, b]), (A, B)),
    ("alloc", lambda v: pt.alloc(v, 3, 4), lambda v: np.broadcast_to(v, (3, 4)), (V,)),
    ("zeros_like", pt.zeros_like, np.zeros_like, (A,)),
    ("ones_like", pt.ones_like, np.ones_like, (A,)),
    ("arange", lambda: pt.arange(2, 11, 3), lambda: np.arange(2, 11, 3), ()),
    ("eye", lambda: pt.eye(3), lambda: np.eye(3), ()),
    ("softmax", lambda a: pt.softmax(a, axis=-1),
     lambda a: np.exp(a) / np.exp(a).sum(-1, keepdims=True), (A,)),
    ("log_softmax", lambda a: pt.log_softmax(a, axis=-1),
     lambda a: a - np.log(np.exp(a).sum(-1, keepdims=True)), (A,)),
    ("logsumexp", lambda a: pt.logsumexp(a, axis=1),
     lambda a: np.log(np.exp(a).sum(1)), (A,)),
    ("where", lambda a, b: pt.where(a > 0.5, a, b), lambda a, b: np.where(a > 0.5, a, b), (A, B)),
]


def _symbolic(value: Any) -> Any:
    value = np.asarray(value)
    return pt.tensor(dtype=str(value.dtype), shape=(None,) * value.ndim)


@pytest.mark.parametrize("linker", ["vm", "py"])
@pytest.mark.parametrize(("name", "build", "ref", "values"), CASES, ids=[c[0] for c in CASES])
def test_op_matches_numpy(name: str, build: Callable[..., Any], ref: Callable[..., Any],
                          values: tuple[Any, ...], linker: str) -> None:
    symbols = [_symbolic(v) for v in values]
    out = build(*symbols)
    f = function(symbols, out, mode=Mode(linker=linker, optimizer=None))
    got = f(*values)
    expected = np.asarray(ref(*values))
    assert isinstance(got, np.ndarray)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-12)


def test_ifelse_evaluates_only_one_branch() -> None:
    calls: dict[str, int] = {"then": 0, "else": 0}
    c = pt.bscalar("c")
    x = pt.dvector("x")
    then = pt.exp(x)
    other = pt.log(x)
    f = function([c, x], pt.ifelse(c, then, other), mode=Mode(linker="vm", optimizer=None))
    nodes = {n.op.scalar_op.__class__.__name__.lower(): n
             for n in f.maker.fgraph.apply_nodes if hasattr(n.op, "scalar_op")}
    for label, key in (("then", "exp"), ("else", "log")):
        node = nodes[key]
        original = node.op.perform

        def counted(n: Any, i: Any, o: Any, label: str = label, original: Any = original) -> None:
            calls[label] += 1
            original(n, i, o)

        object.__setattr__(node.op, "perform", counted)
    try:
        f = function([c, x], pt.ifelse(c, then, other), mode=Mode(linker="vm", optimizer=None))
        np.testing.assert_allclose(f(1, V), np.exp(V))
        assert calls == {"then": 1, "else": 0}
        np.testing.assert_allclose(f(0, V), np.log(V))
        assert calls == {"then": 1, "else": 1}
    finally:
        for node in nodes.values():
            object.__delattr__(node.op, "perform")


def test_shared_tensor_in_expressions_and_updates() -> None:
    w = shared(np.ones(3), "w")
    x = pt.dvector("x")
    step = function([x], (w * x).sum(), updates={w: w - 0.5 * x},
                    mode=Mode(linker="vm", optimizer=None))
    assert step(np.array([1.0, 2.0, 3.0])) == 6.0
    np.testing.assert_allclose(w.get_value(), [0.5, 0.0, -0.5])
