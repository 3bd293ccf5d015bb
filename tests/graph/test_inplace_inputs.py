"""InplaceOnInputs: offers a node all its candidate inputs, then one more at a time."""

from __future__ import annotations

from typing import Any

from toys import neg, tfloat, var

from opgraph.graph.basic import Apply
from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.graph.features import ReplaceValidate
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.op import Op
from opgraph.graph.rewriting.inplace_inputs import InplaceOnInputs


class Add2(Op):
    """``x + y``, written into the inputs listed in ``destroyed`` when asked."""

    __props__ = ("destroyed",)

    def __init__(self, destroyed: tuple[int, ...] = ()) -> None:
        self.destroyed = tuple(destroyed)
        self.destroy_map = {0: [self.destroyed[0]]} if self.destroyed else {}

    def make_node(self, x: Any, y: Any) -> Apply:
        return Apply(self, [x, y], [tfloat()])

    def perform(self, node: Apply, inputs: Any, output_storage: Any) -> None:
        output_storage[0][0] = inputs[0] + inputs[1]

    def inplace_on_inputs(self, allowed_inplace_inputs: list[int]) -> Op:
        return Add2(tuple(allowed_inplace_inputs[:1])) if allowed_inplace_inputs else self


class Pass(InplaceOnInputs):
    name = "test_inplace_on_inputs"

    def wants(self, node: Apply) -> bool:
        return isinstance(node.op, Add2) and not node.op.destroy_map

    def candidates(self, fgraph: Any, node: Apply) -> list[int]:
        return [0, 1]


def _graph(outputs_of):
    x, y = var("x"), var("y")
    a, b = neg(x), neg(y)
    out = Add2()(a, b)
    fg = FunctionGraph([x, y], outputs_of(a, b, out), clone=False)
    fg.attach_feature(DestroyHandler())
    fg.attach_feature(ReplaceValidate())
    return fg


def _add_node(fg):
    return next(n for n in fg.apply_nodes if isinstance(n.op, Add2))


def test_a_free_intermediate_is_overwritten():
    fg = _graph(lambda a, b, out: [out])
    stats = Pass().apply(fg)
    assert _add_node(fg).op.destroy_map == {0: [0]}
    assert stats.applied["test_inplace_on_inputs"] == 1


def test_an_input_still_read_is_refused_and_the_next_one_is_taken():
    # a is an output too, so overwriting it is refused; b alone is then offered
    fg = _graph(lambda a, b, out: [out, a])
    Pass().apply(fg)
    assert _add_node(fg).op.destroy_map == {0: [1]}


def test_nothing_free_leaves_the_node_alone():
    fg = _graph(lambda a, b, out: [out, a, b])
    Pass().apply(fg)
    assert _add_node(fg).op.destroy_map == {}
