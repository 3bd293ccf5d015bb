"""rebuild_collect_shared: clones with replacements and collects shared variables."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.rebuild import rebuild_collect_shared
from opgraph.compile.sharedvalue import shared
from opgraph.graph.traversal import graph_inputs


def test_clone_replace_and_collect_shared() -> None:
    x, y = pt.dvector("x"), pt.dvector("y")
    s = shared(np.ones(2), name="s")
    s.default_update = s + 1
    out = x * s + y
    ins, new_out, (_memo, update_d, update_expr, shared_inputs) = rebuild_collect_shared(
        out, [x], replace={y: x * 2}
    )
    assert ins == [x] and new_out is not out
    assert shared_inputs == [s]
    assert list(update_d) == [s] and update_expr[0][0] is s
    assert y not in set(graph_inputs([new_out]))
    assert set(graph_inputs([new_out])) >= {x, s}
    # the replacement x * 2 stands where y stood: out = x * s + x * 2
    add_inputs = new_out.owner.inputs
    assert any(v.owner is not None and x in v.owner.inputs and s not in v.owner.inputs
               for v in add_inputs)


def test_copy_inputs_over_false_makes_fresh_inputs_and_no_default_updates() -> None:
    x = pt.dvector("x")
    s = shared(np.zeros(2), name="s")
    s.default_update = s * 2
    ins, outs, (_memo, update_d, _e, _sh) = rebuild_collect_shared(
        [x + s], [x], copy_inputs_over=False, no_default_updates=True
    )
    assert ins[0] is not x and ins[0].type == x.type and ins[0].name == "x"
    assert outs[0].owner.inputs[0] is ins[0]
    assert update_d == {}


def test_explicit_updates_and_errors() -> None:
    x = pt.dvector("x")
    s = shared(np.zeros(2), name="s")
    _i, _o, (_m, update_d, _expr, sh) = rebuild_collect_shared(x, [x], updates={s: s + x})
    assert s in update_d and sh == [s]
    with pytest.raises(TypeError, match="not shared"):
        rebuild_collect_shared(x, [x], updates={x: x})
    with pytest.raises(TypeError, match="outputs must be Variables"):
        rebuild_collect_shared([1.0], [x])
