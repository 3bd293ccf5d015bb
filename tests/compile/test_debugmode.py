"""DebugMode in the core alone: destroy/view map checks, value checks, rewrite checks."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from debug_toys import (
    Add,
    AddHalf,
    AddInto,
    AddIntoDeclared,
    Log,
    ReturnSecond,
    ReturnSecondDeclared,
    SliceOfSecond,
    TwoOverlapping,
)

from opgraph.compile.debug.debugmode import (
    BadDestroyMap,
    BadOptimization,
    BadViewMap,
    DebugMode,
    InvalidValueError,
    StochasticOrder,
)
from opgraph.compile.function import function
from opgraph.compile.io import In
from opgraph.compile.mode import get_mode
from opgraph.graph.rewriting.basic import GraphRewriter
from opgraph.tensor.type import TensorType

dvec = TensorType("float64", (None,))


def debug(**kwargs) -> DebugMode:
    """DebugMode without rewrites and without C (the core has neither)."""
    kwargs.setdefault("optimizer", None)
    kwargs.setdefault("check_c_code", False)
    return DebugMode(**kwargs)


def test_names_resolve_to_debugmode() -> None:
    assert isinstance(get_mode("DebugMode"), DebugMode)
    assert isinstance(get_mode("DEBUG_MODE"), DebugMode)


def test_correct_graph_runs_and_matches_numpy() -> None:
    x, y = dvec("x"), dvec("y")
    f = function([x, y], [Add()(x, y), x], mode=debug())
    out, same = f([1.0, 2.0], [3.0, 4.0])
    np.testing.assert_array_equal(out, [4.0, 6.0])
    np.testing.assert_array_equal(same, [1.0, 2.0])


def test_undeclared_destroy_is_reported_with_the_node() -> None:
    x, y = dvec("x"), dvec("y")
    f = function([x, y], AddInto()(x, y), mode=debug())
    with pytest.raises(BadDestroyMap) as info:
        f([1.0, 2.0], [3.0, 4.0])
    assert info.value.idx == 0 and isinstance(info.value.node.op, AddInto)
    assert "destroy_map" in str(info.value) and "AddInto" in str(info.value)


def test_declared_destroy_is_accepted() -> None:
    x, y = dvec("x"), dvec("y")
    f = function([In(x, mutable=True), y], AddIntoDeclared()(x, y), mode=debug(),
                 accept_inplace=True)
    np.testing.assert_array_equal(f([1.0, 2.0], [3.0, 4.0]), [4.0, 6.0])


@pytest.mark.parametrize("op", [ReturnSecond(), SliceOfSecond()])
def test_undeclared_view_is_reported(op) -> None:
    x, y = dvec("x"), dvec("y")
    f = function([x, y], op(x, y), mode=debug())
    with pytest.raises(BadViewMap) as info:
        f([1.0, 2.0], [3.0, 4.0, 5.0])
    assert info.value.in_alias_idx == 1


def test_declared_view_is_accepted() -> None:
    x, y = dvec("x"), dvec("y")
    f = function([x, y], ReturnSecondDeclared()(x, y), mode=debug())
    np.testing.assert_array_equal(f([1.0], [3.0, 4.0]), [3.0, 4.0])


def test_aliased_outputs_used_later_are_reported() -> None:
    x = dvec("x")
    a, b = TwoOverlapping()(x)
    f = function([x], Add()(a, b), mode=debug())
    with pytest.raises(BadViewMap) as info:
        f([1.0, 2.0, 3.0])
    assert info.value.out_alias_idx == 1


def test_aliased_outputs_that_are_graph_outputs_are_fine() -> None:
    x = dvec("x")
    a, b = TwoOverlapping()(x)
    r0, r1 = function([x], [a, b], mode=debug())([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(r0, [1.0, 2.0])
    np.testing.assert_array_equal(r1, [2.0, 3.0])


def test_nonfinite_values_are_invalid_when_checked() -> None:
    x = dvec("x")
    f = function([x], Log()(x), mode=debug())
    with pytest.raises(InvalidValueError, match="NaN"):
        f([0.0, 1.0])
    g = function([x], Log()(x), mode=debug(check_isfinite=False))
    assert np.isnan(g([0.0, 1.0])[0])


class _ReplaceAdd(GraphRewriter):
    """Replaces every Add by AddHalf; with ``every_other`` only on every other run."""

    def __init__(self, every_other: bool = False) -> None:
        self.every_other = every_other
        self.calls = 0

    def apply(self, fgraph) -> None:
        self.calls += 1
        if self.every_other and self.calls % 2 == 0:
            return
        for node in list(fgraph.toposort()):
            if isinstance(node.op, Add):
                fgraph.replace(node.outputs[0], AddHalf()(*node.inputs), reason="add_half")


def test_wrong_rewrite_is_reported_at_run_time_naming_it() -> None:
    x, y = dvec("x"), dvec("y")
    f = function([x, y], Add()(x, y), mode=debug(optimizer=_ReplaceAdd(), stability_patience=1))
    with pytest.raises(BadOptimization) as info:
        f([1.0, 2.0], [3.0, 4.0])
    assert str(info.value.reason) == "add_half"
    np.testing.assert_array_equal(info.value.old_r_val, [4.0, 6.0])
    np.testing.assert_array_equal(info.value.new_r_val, [4.5, 6.5])


def test_nondeterministic_rewrite_is_stochastic_order() -> None:
    x, y = dvec("x"), dvec("y")
    with pytest.raises(StochasticOrder):
        function([x, y], Add()(x, y),
                 mode=debug(optimizer=_ReplaceAdd(every_other=True), stability_patience=3))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="stability_patience"):
        DebugMode(stability_patience=0)
    with pytest.raises(ValueError, match="cannot both be False"):
        DebugMode(check_c_code=False, check_py_code=False)
    with pytest.raises(ValueError, match="check_preallocated_output"):
        DebugMode(check_preallocated_output=["sideways"])


def test_debugmode_pickles_and_deep_copies() -> None:
    mode = debug(stability_patience=2)
    for clone in (copy.deepcopy(mode), pickle.loads(pickle.dumps(mode))):
        assert isinstance(clone, DebugMode) and clone.stability_patience == 2
        x, y = dvec("x"), dvec("y")
        f = function([x, y], AddInto()(x, y), mode=clone)
        with pytest.raises(BadDestroyMap):
            f([1.0], [2.0])
