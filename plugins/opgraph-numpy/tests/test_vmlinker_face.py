"""``opgraph.link.vm.VMLinker`` (PyTensor's constructor) runs on this plugin's linkers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.ifelse import ifelse
from opgraph.link.vm import VMLinker
from opgraph.tensor.type import TensorType

dscal = TensorType("float64", ())


class NotImplementedOp(Op):
    __props__ = ()

    def make_node(self, x: Variable) -> Apply:
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        raise NotImplementedError("this branch must not run")


def test_lazy_vm_skips_the_untaken_branch_and_eager_runs_it() -> None:
    c, x, y = dscal("c"), dscal("x"), dscal("y")
    out = ifelse(c, NotImplementedOp()(x), y)
    lazy = function([c, x, y], out, mode=Mode(linker=VMLinker(lazy=None), optimizer=None))
    assert lazy(0.0, 1.0, 2.0) == 2.0
    with pytest.raises(NotImplementedError, match="must not run"):
        lazy(1.0, 1.0, 2.0)
    eager = function([c, x, y], out, mode=Mode(linker=VMLinker(lazy=False), optimizer=None))
    with pytest.raises(NotImplementedError, match="must not run"):
        eager(0.0, 1.0, 2.0)


def test_targets_and_options() -> None:
    assert VMLinker().target_name() == "vm"
    assert VMLinker(lazy=False).target_name() == "py"
    assert VMLinker(use_cloop=True).target_name() == "cvm"
    assert VMLinker(allow_gc=False).clone().allow_gc is False
    x = dscal("x")
    # a callback runs the graph on PyTensor's Stack VM, called after each node
    seen = []
    traced = function([x], x * 2.0, mode=Mode(linker=VMLinker(
        callback=lambda node, thunk, storage_map, compute_map: seen.append(node)),
        optimizer=None))
    assert np.asarray(traced(3.0)) == 6.0
    assert len(seen) == 1
    f = function([x], x, mode=Mode(linker=VMLinker(allow_gc=False), optimizer=None))
    assert np.asarray(f(3.0)) == 3.0


@pytest.mark.parametrize("linker", ["vm", "py"])
def test_fn_vm_allow_gc_toggles_freeing_of_intermediates(linker: str) -> None:
    x = TensorType("float64", (None,))("x")
    out = (x * 2.0 + 1.0) * 3.0
    f = function([x], out, mode=Mode(linker=linker, optimizer=None))
    inner = lambda: [cell for var, cell in f.vm.storage_map.items()
                     if var.owner is not None and var not in f.maker.fgraph.outputs]
    f([1.0])
    assert inner() and all(cell[0] is None for cell in inner())  # freed (allow_gc=True)
    f.vm.allow_gc = False
    np.testing.assert_array_equal(f([1.0]), [9.0])
    assert all(cell[0] is not None for cell in inner())  # kept
    f.free()
    assert all(cell[0] is None for cell in inner())
