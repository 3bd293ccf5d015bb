"""The order of a function's implicit (shared) inputs and of its update outputs.

It is PyTensor's: the outputs are walked first, each left to right, a shared
variable becoming an input when first reached; then the update expressions, the
given ones first, a target that no output reads joining after them. Code that
re-seeds a compiled function's generators in the order it finds them (PyMC's
seeded initial points and draws) gets the same streams only with this order.
"""

from __future__ import annotations

import numpy as np

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import Mode

NO_REWRITES = Mode(linker="py", optimizer=None)


def _shared(name: str, value: float) -> opgraph.compile.sharedvalue.SharedVariable:
    return opgraph.shared(np.float64(value), name=name)


def test_outputs_first_then_update_targets_in_given_order():
    a, b, c = _shared("a", 1.0), _shared("b", 2.0), _shared("c", 3.0)
    x = pt.dscalar("x")
    for updates in ({b: b + 1, a: a + 2}, {a: a + 2, b: b + 1}):
        f = opgraph.function([x], x * c + a, updates=updates, mode=NO_REWRITES)
        assert [v.name for v in f.maker.fgraph.inputs] == ["x", "c", "a", "b"]
        # update outputs follow the inputs they update: a, then b
        targets = sorted(f.maker.fgraph.update_mapping.items())
        assert [f.maker.fgraph.inputs[i].name for _, i in targets] == ["a", "b"]


def test_update_outputs_write_the_right_variables():
    a, b, c = _shared("a", 1.0), _shared("b", 2.0), _shared("c", 3.0)
    x = pt.dscalar("x")
    f = opgraph.function([x], x * c + a, updates={b: b + 10 * a, c: c * 2, a: a + x})
    assert f(1.0) == 4.0
    assert (a.get_value(), b.get_value(), c.get_value()) == (2.0, 12.0, 6.0)
    assert f(1.0) == 8.0
    assert (a.get_value(), b.get_value(), c.get_value()) == (3.0, 32.0, 12.0)


def test_generators_found_in_the_order_of_the_graph_not_of_the_updates():
    r0 = opgraph.shared(np.random.default_rng(0), name="r0")
    r1 = opgraph.shared(np.random.default_rng(1), name="r1")
    first = pt.random.normal(0, 1, rng=r1)
    nxt0, second = pt.random.normal(first, 1, rng=r0).owner.outputs
    nxt1 = first.owner.outputs[0]
    out = pt.stack([first, second])
    f = opgraph.function([], out, updates={r0: nxt0, r1: nxt1}, mode=NO_REWRITES)
    names = [v.name for v in f.maker.fgraph.inputs]
    # stack(first, second): first's generator r1 is reached before r0
    assert names == ["r1", "r0"]
    targets = sorted(f.maker.fgraph.update_mapping.items())
    assert [f.maker.fgraph.inputs[i].name for _, i in targets] == ["r1", "r0"]
