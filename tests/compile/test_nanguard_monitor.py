"""NanGuardMode and MonitorMode in the core alone (they run Python thunks)."""

from __future__ import annotations

import numpy as np
import pytest
from debug_toys import Add, Log

from opgraph.compile.debug.monitormode import MonitorMode
from opgraph.compile.debug.nanguardmode import NanGuardMode, contains_inf, contains_nan
from opgraph.compile.function import function
from opgraph.compile.mode import get_mode
from opgraph.graph.utils import add_tag_trace
from opgraph.tensor.type import TensorType

dvec = TensorType("float64", (None,))


def test_contains_helpers() -> None:
    assert contains_nan(np.array([1.0, np.nan])) and not contains_nan(np.array([1, 2]))
    assert contains_inf(np.float64(np.inf)) and not contains_inf("text")


def test_nanguard_passes_clean_values_through() -> None:
    x, y = dvec("x"), dvec("y")
    f = function([x, y], Add()(x, y), mode=NanGuardMode(optimizer=None))
    np.testing.assert_array_equal(f([1.0, 2.0], [3.0, 4.0]), [4.0, 6.0])


@pytest.mark.parametrize(("value", "word"), [(np.nan, "NaN"), (np.inf, "Inf"), (1e20, "big")])
def test_nanguard_stops_at_the_first_bad_input(value, word) -> None:
    x, y = dvec("x"), dvec("y")
    f = function([x, y], Add()(x, y), mode=NanGuardMode(optimizer=None))
    with pytest.raises(AssertionError, match=word) as info:
        f([value, 1.0], [3.0, 4.0])
    assert "input 0" in str(info.value) and "Add" in str(info.value)


def test_nanguard_names_the_node_producing_nan_and_its_line() -> None:
    x = dvec("x")
    logged = add_tag_trace(Log()(x))  # records this line as where the value was built
    out = Add()(logged, x)  # log(0) * 0 = nan, produced by Log
    f = function([x], out, mode=NanGuardMode(optimizer=None))
    with pytest.raises(AssertionError, match="NaN produced by output 0 of node 0, Log") as info:
        f([0.0, 1.0])
    assert "test_nanguard_monitor.py" in str(info.value)  # the user line that built it


def test_nanguard_switches_and_actions() -> None:
    x = dvec("x")
    quiet = NanGuardMode(nan_is_error=False, inf_is_error=False, big_is_error=False,
                         optimizer=None)
    assert np.isnan(function([x], Log()(x), mode=quiet)([0.0])[0])
    warn = NanGuardMode(optimizer=None, action="warn")
    with pytest.warns(RuntimeWarning, match="NaN"):
        function([x], Log()(x), mode=warn)([0.0])
    with pytest.raises(ValueError, match="action"):
        NanGuardMode(action="explode")
    assert isinstance(get_mode("NanGuardMode"), NanGuardMode)


def test_monitor_mode_calls_hooks_in_order_with_cells() -> None:
    x = dvec("x")
    seen = []

    def pre(fgraph, i, node, fn):
        seen.append(("pre", i, type(node.op).__name__, fn.outputs[0][0]))

    def post(fgraph, i, node, fn):
        seen.append(("post", i, type(node.op).__name__, fn.outputs[0][0].tolist()))

    f = function([x], Add()(Log()(x), x), mode=MonitorMode(pre, post, optimizer=None))
    f([1.0])
    assert seen == [("pre", 0, "Log", None), ("post", 0, "Log", [0.0]),
                    ("pre", 1, "Add", None), ("post", 1, "Add", [1.0])]


def test_monitor_mode_detects_nan_like_the_documented_example() -> None:
    found = []

    def detect_nan(fgraph, i, node, fn):
        if any(np.isnan(cell[0]).any() for cell in fn.outputs):
            found.append(node)

    x = dvec("x")
    f = function([x], Log()(x), mode=MonitorMode(post_func=detect_nan, optimizer=None))
    f([0.0])
    assert len(found) == 1 and isinstance(found[0].op, Log)
    with pytest.raises(TypeError, match="post_func"):
        MonitorMode(post_func=3)


def test_the_mode_by_name_has_a_finite_repr():
    """NanGuardMode's linker holds the mode's checks, which hold the mode: the repr shows
    the cycle as ``...`` instead of recursing without end."""
    text = repr(get_mode("NanGuardMode"))
    assert "CallbackLinker" in text and "linker=..." in text
