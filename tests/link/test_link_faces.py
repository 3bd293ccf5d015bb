"""The pure-Python faces of the link layer: Container, Generic, COp."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from opgraph.graph.basic import Apply
from opgraph.link.basic import Container
from opgraph.link.c.op import COp, ExternalCOp
from opgraph.link.c.type import Generic, generic
from opgraph.tensor.type import TensorType

dvec = TensorType("float64", (None,))


def test_container_from_variable_filters_values() -> None:
    v = dvec("v")
    c = Container(v, storage=[None])
    assert c.type == v.type and c.name == "v"
    c.value = [1, 2]
    assert isinstance(c.value, np.ndarray) and c.value.dtype == np.float64
    assert c.storage[0] is c.value
    with pytest.raises(TypeError):
        c.value = "not numbers"
    ro = Container(v.type, [np.zeros(1)], readonly=True)
    with pytest.raises(ValueError, match="read-only"):
        ro.value = [1.0]


def test_container_copies() -> None:
    c = Container(dvec, [np.zeros(2)], name="c")
    shared_copy, deep = c.copy(share=True), copy.deepcopy(c)
    assert shared_copy.storage is c.storage
    assert deep.storage is not c.storage and deep.value is not c.value
    with pytest.raises(TypeError, match="one-element list"):
        Container(dvec, [])
    with pytest.raises(TypeError, match="Variable or a Type"):
        Container(3, [None])


def test_generic_type_holds_any_object() -> None:
    g = generic()
    assert isinstance(g.type, Generic) and Generic() == generic
    obj = {"a": [1]}
    assert generic.filter(obj) is obj
    assert generic.values_eq(np.ones(2), np.ones(3)) is False
    with pytest.raises(TypeError, match="symbolic Variable"):
        generic.filter(g)


def test_cop_defaults_say_no_c() -> None:
    class Identity(COp):
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0]

    op = Identity()
    node = op(dvec("x")).owner
    with pytest.raises(NotImplementedError, match="no C implementation"):
        op.c_code(node, "n", ["x"], ["z"], {})
    assert op.c_code_cache_version() == () and op.c_headers() == []
    with pytest.raises(NotImplementedError, match="not supported"):
        ExternalCOp()
