"""A user's Type as a function input: filter is called with keywords, as PyTensor calls it."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph import function
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.graph.type import Type


class _Label(Type):
    """A string value; filter takes ``**kwargs`` only, as many PyTensor users write it."""

    def filter(self, x, **kwargs):
        if isinstance(x, str):
            return x
        raise TypeError(f"a label must be a str, got {type(x).__name__}")


class _Sign(Op):
    __props__ = ()

    def make_node(self, x, label):
        return Apply(self, [x, label], [x.type()])

    def perform(self, node, inputs, output_storage):
        x, label = inputs
        output_storage[0][0] = np.asarray(x if label == "+" else -x)


def test_a_type_whose_filter_takes_only_keywords():
    x = pt.dscalar("x")
    label = Variable(_Label(), None, None, name="label")
    fn = function([x, label], _Sign()(x, label))
    assert fn(2.0, "+") == 2.0
    assert fn(2.0, "-") == -2.0
    with pytest.raises(TypeError, match="a label must be a str"):
        fn(2.0, 3)
