"""The examples of the seed documentation pages (PyTensor's), ported by changing the
import name, that do not need OpFromGraph.  They run with every plugin installed,
in the default mode and in FAST_COMPILE."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.graph.basic import Apply
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.op import Op
from opgraph.tensor.elemwise import DimShuffle


@pytest.fixture(params=[None, "FAST_COMPILE"], ids=["default", "FAST_COMPILE"])
def mode(request: pytest.FixtureRequest) -> str | None:
    return request.param


@pytest.fixture(autouse=True)
def _quiet_fallback() -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*falling back to linker.*")
        yield


def test_graph_structures_matrix_add(mode: str | None) -> None:
    x = pt.dmatrix("x")
    y = pt.dmatrix("y")
    z = x + y
    assert x.owner is None and y.owner is None
    assert isinstance(z.owner, Apply)
    f = opgraph.function([x, y], z, mode=mode)
    a, b = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    np.testing.assert_array_equal(f(a, b), a + b)


def test_traversing_the_graph(mode: str | None) -> None:
    x = pt.dmatrix("x")
    y = x * 2.0
    assert type(y.owner) is Apply
    assert len(y.owner.inputs) == 2
    assert y.owner.inputs[0] is x
    shuffle = y.owner.inputs[1]
    assert isinstance(shuffle.owner.op, DimShuffle)
    assert shuffle.owner.inputs[0].data == 2.0
    f = opgraph.function([x], y, mode=mode)
    np.testing.assert_array_equal(f(np.eye(2)), 2 * np.eye(2))


def test_irow_type() -> None:
    from opgraph.tensor import irow

    v = irow()
    assert v.type.dtype == "int32"
    assert v.type.shape == (1, None)


def test_negation_of_ivector(mode: str | None) -> None:
    x = pt.ivector()
    y = -x
    assert y.type == x.type
    assert y.owner.inputs == [x]
    f = opgraph.function([x], y, mode=mode)
    np.testing.assert_array_equal(f(np.array([1, -2, 3], dtype="int32")), [-1, 2, -3])


def test_rewrites_example(mode: str | None) -> None:
    a = pt.vector("a")
    b = a + a**10
    f = opgraph.function([a], b, mode=mode)
    np.testing.assert_allclose(f([0, 1, 2]), [0.0, 2.0, 1026.0])


def test_function_graph_replace_then_compile(mode: str | None) -> None:
    x = pt.dvector("x")
    fg = FunctionGraph([x], [x + x], clone=False)
    fg.replace(fg.outputs[0], 2 * x)
    f = opgraph.function([x], fg.outputs[0], mode=mode)
    np.testing.assert_array_equal(f([1.0, 2.0]), [2.0, 4.0])


class DoubleOp(Op):
    """The Op page's contract: make_node builds the Apply, perform computes."""

    __props__ = ()

    def make_node(self, x: object) -> Apply:
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: list, output_storage: list) -> None:
        (x,) = inputs
        output_storage[0][0] = x * 2


def test_custom_op_compiles_and_evaluates(mode: str | None) -> None:
    x = pt.dmatrix("x")
    f = opgraph.function([x], DoubleOp()(x), mode=mode)
    value = np.random.default_rng(0).random((3, 2))
    np.testing.assert_allclose(f(value), value * 2)
    np.testing.assert_allclose(DoubleOp()(x).eval({x: value}), value * 2)


def test_shared_and_updates_tutorial(mode: str | None) -> None:
    state = opgraph.shared(0)
    inc = pt.iscalar("inc")
    accumulator = opgraph.function([inc], state, updates=[(state, state + inc)], mode=mode)
    assert accumulator(1) == 0
    assert state.get_value() == 1
    accumulator(300)
    assert state.get_value() == 301
    state.set_value(-1)
    accumulator(3)
    assert state.get_value() == 2
