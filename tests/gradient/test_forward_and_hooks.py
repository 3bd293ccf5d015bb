"""Forward mode (Rop/pushforward), legacy R_op, and the pullback/pushforward plugin hooks."""

from __future__ import annotations

import numpy as np
import pytest
from grad_toys import LegacyRNone, LegacyROp, Scale, TwoStreams, Undefined, ev

import opgraph.tensor as pt
from opgraph.gradient import (
    DisconnectedInputError,
    DisconnectedType,
    Lop,
    Rop,
    grad,
    pushforward,
)
from opgraph.plugins import hookimpl
from opgraph.plugins.manager import get_plugin_manager


def test_rop_matches_lop_on_multi_output_op():
    rng = np.random.default_rng(0)
    x, y = pt.dvector("x"), pt.dvector("y")
    a, b = TwoStreams()(Scale(2.0)(x), y)
    vx, vy, ua, ub = (pt.dvector(n) for n in ("vx", "vy", "ua", "ub"))
    ja, jb = Rop([a, b], [x, y], [vx, vy])
    lx, ly = Lop([a, b], [x, y], [ua, ub])
    vals = {x: rng.normal(size=3), y: rng.normal(size=3), vx: rng.normal(size=3),
            vy: rng.normal(size=3), ua: rng.normal(size=3), ub: rng.normal(size=3)}
    ja_, jb_, lx_, ly_ = ev([ja, jb, lx, ly], vals)
    left = ja_ @ vals[ua] + jb_ @ vals[ub]
    right = lx_ @ vals[vx] + ly_ @ vals[vy]
    assert left == pytest.approx(right)


def test_pushforward_alias_and_structure():
    x = pt.dscalar("x")
    y = Scale(3.0)(x)
    v = pt.dscalar("v")
    single = pushforward(y, x, v)
    listed = Rop([y], [x], [v])
    assert not isinstance(single, list) and isinstance(listed, list)
    assert float(ev(single, {x: 1.0, v: 2.0})) == 6.0


def test_rop_disconnected_outputs():
    x, w = pt.dscalar("x"), pt.dscalar("w")
    y = Scale(2.0)(w)
    with pytest.raises(DisconnectedInputError, match="does not depend"):
        Rop(y, x, pt.dscalar())
    z = Rop(y, x, pt.dscalar(), disconnected_outputs="ignore")
    assert float(ev(z, {w: 3.0})) == 0.0
    d = Rop(y, x, pt.dscalar(), disconnected_outputs="ignore", return_disconnected="disconnected")
    assert isinstance(d.type, DisconnectedType)
    assert Rop(y, x, pt.dscalar(), disconnected_outputs="ignore",
               return_disconnected="none") is None


def test_rop_through_connection_pattern():
    x, y = pt.dscalar("x"), pt.dscalar("y")
    _, sq = TwoStreams()(x, y)
    with pytest.raises(DisconnectedInputError):
        Rop(sq, x, pt.dscalar())


def test_rop_eval_point_checks():
    x = pt.dvector("x")
    with pytest.raises(ValueError, match="one eval_point per wrt"):
        Rop(Scale(2.0)(x), x, [pt.dvector(), pt.dvector()])
    with pytest.raises(ValueError, match="dimensions"):
        Rop(Scale(2.0)(x), x, pt.dmatrix())


def test_rop_without_pushforward_names_the_op():
    a, b = pt.dscalar("a"), pt.dscalar("b")
    with pytest.raises(NotImplementedError, match="Undefined"):
        Rop(Undefined()(a, b), a, pt.dscalar())


def test_rop_by_double_lop():
    x, y = pt.dscalar("x"), pt.dscalar("y")
    prod, _ = TwoStreams()(x, y)
    v = pt.dscalar("v")
    r = Rop(prod, x, v, use_op_rop_implementation=False)
    assert float(ev(r, {x: 2.0, y: 5.0, v: 3.0})) == pytest.approx(15.0)


def test_legacy_r_op_gets_none_for_inputs_not_differentiated():
    a, b = pt.dscalar("a"), pt.dscalar("b")
    op = LegacyROp()
    y = op(a, b)
    ta = pt.dscalar("ta")
    with pytest.warns(DeprecationWarning, match="R_op"):
        r = Rop(y, a, ta)
    assert op.points[1] is None
    assert float(ev(r, {a: 2.0, b: 5.0, ta: 3.0})) == pytest.approx(15.0)


def test_legacy_r_op_none_means_disconnected():
    x = pt.dscalar("x")
    with pytest.warns(DeprecationWarning), pytest.raises(DisconnectedInputError):
        Rop(LegacyRNone()(x), x, pt.dscalar())


class _OverrideScale:
    """A plugin giving Scale ops a pullback/pushforward of 100x (to see that it is used)."""

    def __init__(self) -> None:
        self.seen: list = []

    @hookimpl
    def opgraph_pullback(self, op, inputs, outputs, cotangents):  # type: ignore[no-untyped-def]
        self.seen.append(op)
        if isinstance(op, Scale):
            return [cotangents[0] * 100.0]
        return None

    @hookimpl
    def opgraph_pushforward(self, op, inputs, outputs, tangents):  # type: ignore[no-untyped-def]
        if isinstance(op, Scale):
            return [tangents[0] * 100.0]
        return None


@pytest.fixture
def override_plugin():
    pm = get_plugin_manager()
    plugin = _OverrideScale()
    pm.register(plugin, name="test-override-scale")
    try:
        yield plugin
    finally:
        pm.unregister(plugin)


def test_plugin_overrides_one_ops_pullback(override_plugin):
    x, y = pt.dscalar("x"), pt.dscalar("y")
    prod, _ = TwoStreams()(Scale(2.0)(x), y)
    gx, gy = grad(prod, [x, y])
    # Scale's gradient comes from the plugin, TwoStreams' from the Op (plugin declined)
    assert float(ev(gx, {x: 1.0, y: 3.0})) == pytest.approx(300.0)
    assert float(ev(gy, {x: 1.0, y: 3.0})) == pytest.approx(2.0)
    assert any(isinstance(op, TwoStreams) for op in override_plugin.seen)


def test_plugin_overrides_one_ops_pushforward(override_plugin):
    x = pt.dscalar("x")
    r = Rop(Scale(2.0)(x), x, pt.constant(1.0))
    assert float(ev(r, {})) == pytest.approx(100.0)


def test_without_plugin_the_op_is_used():
    x = pt.dscalar("x")
    g = grad(Scale(2.0)(x), x)
    assert float(ev(g, {x: 1.0})) == 2.0
