"""op.py contract with toy Ops."""

from __future__ import annotations

import warnings

import attrs
import pytest
from toys import Elemwise2, Unary, add, neg, tfloat, var

from opgraph.graph.basic import Apply
from opgraph.graph.op import Op
from opgraph.graph.utils import add_tag_trace


def test_op_equality_attrs_and_props_styles():
    assert Elemwise2("add") == Elemwise2("add") and hash(Elemwise2("add")) == hash(add)
    assert Elemwise2("add") != Elemwise2("mul")
    assert Unary("neg") == Unary("neg") and hash(Unary("neg")) == hash(neg)
    assert Unary("neg") != Unary("dbl")

    class Plain(Op):
        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0]

    assert Plain() != Plain()

    class NoPerform(Op):
        pass

    with pytest.raises(TypeError, match="defines no perform"):
        NoPerform()
    assert attrs.has(Elemwise2)


def test_op_call_names_and_perform_thunks():
    x, y = var("x"), var("y")
    out = add(x, y, name="s")
    assert out.name == "s"
    node = out.owner
    storage = {x: [2.0], y: [3.0], out: [None]}
    compute = {x: [True], y: [True], out: [False]}
    thunk = add.make_thunk(node, storage, compute, [])
    thunk()
    assert storage[out][0] == 5.0 and compute[out][0] is True
    py = add.make_py_thunk(node, storage, None, [])
    storage[x][0] = 10.0
    py()
    assert storage[out][0] == 13.0
    assert add.do_constant_folding(None, node) is True
    assert add.inplace_on_inputs([0]) is add
    assert add.connection_pattern(node) == [[True], [True]]


def test_gradient_dispatch_and_deprecations():
    x, y = var("x"), var("y")
    out = add(x, y)
    g = var("g")
    assert add.pullback([x, y], [out], [g]) == [g, g]
    with pytest.warns(DeprecationWarning, match="L_op is deprecated"):
        assert add.L_op([x, y], [out], [g]) == [g, g]

    class Legacy(Op):
        __props__ = ()

        def make_node(self, a):
            return Apply(self, [a], [tfloat()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0]

        def grad(self, inputs, output_grads):
            return [neg(output_grads[0])]

        def R_op(self, inputs, eval_points):
            return [eval_points[0]]

    legacy = Legacy()
    with pytest.warns(DeprecationWarning, match="grad"):
        (gx,) = legacy.pullback([x], [legacy(x)], [g])
    assert gx.owner.op == neg
    with pytest.warns(DeprecationWarning, match="R_op"):
        assert legacy.pushforward([x], [legacy(x)], [g]) == [g]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NotImplementedError):
            neg.pullback([x], [neg(x)], [g])


def test_add_tag_trace_records_user_frame():
    x = var("x")
    add_tag_trace(x)
    frames = x.tag.trace[0]
    assert any("test_op.py" in f[0] for f in frames)


def test_library_frames_are_decided_by_package_location(tmp_path, monkeypatch):
    """A user's file under a directory named ``opgraph/`` (a clone) is the user's frame."""
    import sys as _sys

    from opgraph.graph import utils as graph_utils

    user_dir = tmp_path / "opgraph" / "my project"
    user_dir.mkdir(parents=True)
    script = user_dir / "model_code.py"
    script.write_text(
        "from opgraph.graph.utils import simple_extract_stack\n"
        "def build():\n"
        "    return simple_extract_stack()\n"
    )
    monkeypatch.syspath_prepend(str(user_dir))
    module = __import__("model_code")
    try:
        frames = module.build()
    finally:
        _sys.modules.pop("model_code", None)
    assert any(f[0] == str(script) for f in frames)
    assert not graph_utils.is_library_frame(str(script))
    assert graph_utils.is_library_frame(graph_utils.__file__)
