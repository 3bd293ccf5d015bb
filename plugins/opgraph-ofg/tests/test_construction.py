"""Building and calling OpFromGraph: inputs, shared variables, errors, equality, printing."""

from __future__ import annotations

import io

import numpy as np
import pytest
from conftest import compile_vm
from opgraph_ofg import OpFromGraph

import opgraph.tensor as pt
from opgraph.compile import function, shared
from opgraph.graph.basic import Apply, equal_computations
from opgraph.graph.utils import MissingInputError
from opgraph.printing import dprint


def test_import_paths_agree():
    from opgraph.compile.builders import OpFromGraph as FromBuilders

    assert FromBuilders is OpFromGraph


def test_several_outputs_and_unused_input():
    x, y, unused = pt.vectors("x", "y", "unused")
    op = OpFromGraph([x, y, unused], [x + y, x * y])
    a, b = op(x, y, unused)
    fn = compile_vm([x, y, unused], [a, b])
    xv, yv = np.array([1.0, 2.0]), np.array([3.0, 5.0])
    ra, rb = fn(xv, yv, np.zeros(4))
    np.testing.assert_allclose(ra, xv + yv)
    np.testing.assert_allclose(rb, xv * yv)


def test_output_that_is_an_input():
    x, y = pt.scalars("xy")
    op = OpFromGraph([x, y], [x, x + y])
    a, b = op(x, y)
    fn = compile_vm([x, y], [a, b])
    np.testing.assert_allclose(fn(1.0, 2.0), [1.0, 3.0])


def test_shared_variable_is_an_implicit_input_and_changes_are_seen():
    x = pt.vector("x")
    s = shared(np.array([1.0, 2.0]), name="s")
    op = OpFromGraph([x], [x * s])
    assert op.shared_inputs == [s]
    node = op.make_node(x)
    assert node.inputs[-1] is s
    fn = compile_vm([x], op(x))
    np.testing.assert_allclose(fn(np.array([3.0, 3.0])), [3.0, 6.0])
    s.set_value(np.array([10.0, 20.0]))
    np.testing.assert_allclose(fn(np.array([3.0, 3.0])), [30.0, 60.0])


def test_arity_and_type_errors_are_clear():
    x, y = pt.scalars("xy")
    op = OpFromGraph([x, y], [x + y], name="adder")
    with pytest.raises(ValueError, match=r"adder\{inline=False\}: Expected at least 2 input"):
        op(x)
    with pytest.raises(ValueError, match=r"Expected 2 input\(s\) \(x, y\)"):
        op.make_node(x)
    with pytest.raises(TypeError, match=r"input 1 .*must have type"):
        op(x, pt.matrix("m"))


def test_updates_and_givens_are_refused():
    x = pt.scalar("x")
    s = shared(np.float64(1.0))
    with pytest.raises(NotImplementedError, match="updates are not supported"):
        OpFromGraph([x], [x + s], updates={s: s + 1})
    with pytest.raises(NotImplementedError, match="givens are not supported"):
        OpFromGraph([x], [x + 1], givens={x: pt.constant(2.0)})


def test_unknown_keyword_is_refused():
    x = pt.scalar("x")
    with pytest.raises(TypeError, match="unexpected keyword"):
        OpFromGraph([x], [x], colour="red")


def test_strict_refuses_implicit_shared_but_accepts_explicit():
    x = pt.scalar("x")
    s = shared(np.float64(2.0), name="s")
    with pytest.raises(ValueError, match=r"shared variables \[s\], but strict=True"):
        OpFromGraph([x], [x * s], strict=True)
    op = OpFromGraph([x, s], [x * s], strict=True)
    assert op.shared_inputs == []
    fn = compile_vm([x], op(x, s))
    np.testing.assert_allclose(fn(3.0), 6.0)


def test_missing_input_is_named():
    x, y = pt.scalars("xy")
    with pytest.raises(MissingInputError, match="depend on y"):
        OpFromGraph([x], [x + y])


def test_bad_inputs():
    x = pt.scalar("x")
    with pytest.raises(ValueError, match="provided more than once as inputs"):
        OpFromGraph([x, x], [x])
    with pytest.raises(TypeError, match="inputs\\[0\\] must be a symbolic Variable"):
        OpFromGraph([1.0], [x])
    with pytest.raises(TypeError, match="inputs must be a list"):
        OpFromGraph((x,), [x])
    with pytest.raises(TypeError, match="outputs must be a list"):
        OpFromGraph([x], (x,))


def test_repeated_input_is_allowed_when_unused_inputs_are_ignored():
    x, y = pt.scalars("xy")
    op = OpFromGraph([x, x, y], [x * y], on_unused_input="ignore")
    fn = compile_vm([x, y], op(x, y + 1, y))
    np.testing.assert_allclose(fn(2.0, 3.0), 6.0)  # the first x is the one used


def test_constant_can_be_an_explicit_input():
    x = pt.dscalar("x")
    c = pt.constant(1.0, dtype="float64", name="c")
    op = OpFromGraph([x, c], [x + c])
    fn = compile_vm([x], [op(x, c), op(x, x)])
    got = fn(5.0)
    np.testing.assert_allclose(got[0], 6.0)
    np.testing.assert_allclose(got[1], 10.0)


def test_shared_inputs_can_be_replaced_at_make_node():
    x = pt.dscalar("x")
    s = shared(np.float64(1.0), name="s")
    op = OpFromGraph([x], [x + s], on_unused_input="ignore")
    other = shared(np.float64(10.0), name="other")
    node = op.make_node(x, other)
    assert node.op.shared_inputs == [other]
    assert node.op.kwargs == {"on_unused_input": "ignore"}
    fn = compile_vm([x], node.outputs[0])
    np.testing.assert_allclose(fn(1.0), 11.0)
    other.set_value(np.float64(20.0))
    np.testing.assert_allclose(fn(1.0), 21.0)
    # a plain variable in place of the shared one becomes an explicit input
    y = pt.dscalar("y")
    node = op.make_node(x, y)
    assert node.op.shared_inputs == []
    assert node.op.n_explicit_inputs == 2
    np.testing.assert_allclose(compile_vm([x, y], node.outputs[0])(1.0, 4.0), 5.0)
    # the Op's own shared variables give the Op itself
    assert op.make_node(x, s).op is op


def test_fgraph_and_clone():
    x = pt.dscalar("x")
    op = OpFromGraph([x], [2 * x])
    fg = op.fgraph
    assert fg is op.fgraph
    assert list(fg.inputs) == op.inner_inputs and list(fg.outputs) == op.inner_outputs
    twin = op.clone()
    assert twin.fgraph is not fg
    assert twin.fgraph.outputs[0] is not fg.outputs[0]
    assert twin == op


def test_fgraph_clone_keeps_inner_inputs():
    # PyMC's CustomDist support point clones op.fgraph, rewrites the clone and then
    # replaces op.inner_inputs in it by the node's inputs (PyTensor's nominal inputs)
    x, y = pt.dscalar("x"), pt.dscalar("y")
    op = OpFromGraph([x, y], [pt.exp(x) * y])
    twin = op.fgraph.clone()
    assert list(twin.inputs) == op.inner_inputs
    assert twin.outputs[0] is not op.inner_outputs[0]
    a, b = pt.dscalar("a"), pt.dscalar("b")
    twin.replace_all(list(zip(op.inner_inputs, [a, b + 1])), import_missing=True)
    np.testing.assert_allclose(compile_vm([a, b], twin.outputs[0])(0.5, 2.0), np.exp(0.5) * 3)
    # the Op's own graph is untouched
    np.testing.assert_allclose(compile_vm(op.inner_inputs, op.inner_outputs[0])(0.5, 2.0),
                               np.exp(0.5) * 2)


def test_str_shows_inline_flag():
    x = pt.dscalar("x")
    assert str(OpFromGraph([x], [x + 1])) == "OpFromGraph{inline=False}"
    assert str(OpFromGraph([x], [x + 1], inline=True, name="f")) == "f{inline=True}"


def test_deprecated_override_names_warn():
    x = pt.dscalar("x")
    with pytest.warns(FutureWarning, match="lop_overrides is deprecated"):
        OpFromGraph([x], [x + 1], lop_overrides=lambda i, o, g: [g[0]])
    with pytest.warns(FutureWarning, match="rop_overrides is deprecated"):
        OpFromGraph([x], [x + 1], rop_overrides=lambda i, o, t: [t[0]])


def test_nested_three_deep_numeric():
    x, y = pt.vectors("xy")
    s = shared(np.array([0.5, 0.25]), name="s")
    inner = OpFromGraph([x, y], [x * y + s], name="inner")
    middle = OpFromGraph([x, y], [inner(x, y) + pt.exp(x)], name="middle")
    outer = OpFromGraph([x, y], [middle(x, y) * middle(y, x)], name="outer")
    fn = compile_vm([x, y], outer(x, y))
    xv, yv = np.array([0.1, 0.2]), np.array([0.3, 0.4])
    m1 = xv * yv + s.get_value() + np.exp(xv)
    m2 = yv * xv + s.get_value() + np.exp(yv)
    np.testing.assert_allclose(fn(xv, yv), m1 * m2)
    assert outer.shared_inputs == [s]


def test_compiled_once_and_shared_by_equal_ops():
    x, y = pt.scalars("xy")
    op1 = OpFromGraph([x, y], [x * y + 1])
    a, b = pt.scalars("ab")
    op2 = OpFromGraph([a, b], [a * b + 1])
    assert op1 == op2 and hash(op1) == hash(op2)
    assert op1.fn is op2.fn
    assert op1.fn is op1.fn


def test_kwargs_forwarded_to_function():
    x = pt.scalar("x")
    op = OpFromGraph([x], [x + 1], mode="FAST_COMPILE")
    assert op.fn.maker.mode.name == "FAST_COMPILE"
    fn = compile_vm([x], op(x))
    np.testing.assert_allclose(fn(1.0), 2.0)


def _op(c, **kw):
    x, y = pt.scalars("xy")
    return OpFromGraph([x, y], [x * y + c], **kw)


def test_equality_of_settings_constants_and_overrides():
    assert _op(1.0) == _op(1.0)
    assert hash(_op(1.0)) == hash(_op(1.0))
    assert _op(1.0) != _op(2.0)
    assert _op(1.0) != _op(1.0, inline=True)
    assert _op(1.0) != _op(1.0, name="named")

    def dx(i, o, g):
        return i[1] * 3

    def dx_other(i, o, g):
        return i[1] * 4

    assert _op(1.0, pullback=[dx, None]) == _op(1.0, pullback=[dx, None])
    assert _op(1.0, pullback=[dx, None]) != _op(1.0, pullback=[dx_other, None])
    assert _op(1.0, pullback=[dx, None]) != _op(1.0)
    s1, s2 = shared(np.float64(1.0)), shared(np.float64(1.0))
    x = pt.scalar("x")
    assert OpFromGraph([x], [x + s1]) == OpFromGraph([x], [x + s1])
    assert OpFromGraph([x], [x + s1]) != OpFromGraph([x], [x + s2])


def test_connection_pattern_given_and_computed():
    x, y = pt.scalars("xy")
    op = OpFromGraph([x, y], [x * 2, x + y])
    node = op.make_node(x, y)
    assert op.connection_pattern(node) == [[True, True], [False, True]]
    given = OpFromGraph([x, y], [x * 2, x + y], connection_pattern=[[True, False], [True, True]])
    assert given.connection_pattern(given.make_node(x, y)) == [[True, False], [True, True]]
    with pytest.raises(ValueError, match="connection_pattern"):
        OpFromGraph([x, y], [x], connection_pattern=[[True]])


def test_destroy_map_validated_and_needs_mutable_input():
    x = pt.vector("x")
    with pytest.raises(ValueError, match="destroy_map"):
        OpFromGraph([x], [x * 2], destroy_map={0: [3]})
    op = OpFromGraph([x], [x * 2], destroy_map={0: [0]})
    assert op.destroy_map == {0: [0]}
    assert op.fn.maker.inputs[0].mutable
    from opgraph.compile import In

    fn = function([In(x, mutable=True)], op(x) + 1, mode="FAST_COMPILE", accept_inplace=True)
    np.testing.assert_allclose(fn(np.array([1.0, 2.0])), [3.0, 5.0])


def test_infer_shape_through_inner_graph():
    x = pt.matrix("x")
    y = pt.vector("y")
    op = OpFromGraph([x, y], [pt.dot(x, y), (x * 2).T])
    node = op.make_node(x, y)
    from opgraph.tensor.shape import shape_i

    shapes = op.infer_shape(None, node, [(shape_i(x, 0), shape_i(x, 1)), (shape_i(y, 0),)])
    assert len(shapes) == 2 and len(shapes[0]) == 1 and len(shapes[1]) == 2
    dims = [shapes[0][0], shapes[1][0], shapes[1][1]]
    dims = [d if not isinstance(d, int) else pt.constant(d) for d in dims]
    from opgraph.graph.basic import ancestors

    assert not any(v.owner is not None and isinstance(v.owner.op, OpFromGraph)
                   for v in ancestors(dims))
    fn = compile_vm([x, y], dims, on_unused_input="ignore")
    got = fn(np.ones((3, 4)), np.ones(4))
    assert [int(v) for v in got] == [3, 4, 3]


def test_dprint_shows_name_and_inner_graph():
    x, y = pt.scalars("xy")
    op = OpFromGraph([x, y], [x * y], name="my_block")
    buf = io.StringIO()
    dprint(op(x, y) + 1, file=buf)
    text = buf.getvalue()
    assert "my_block" in text
    assert "Inner graphs:" in text
    assert "Mul" in text


def test_clone_is_equal_with_fresh_inner_graph():
    x, y = pt.scalars("xy")
    op = OpFromGraph([x, y], [x * y])
    c = op.clone()
    assert c == op
    # fresh nodes on the same inner inputs (so equal_computations holds without them)
    assert c.inner_outputs[0] is not op.inner_outputs[0]
    assert c.inner_inputs == op.inner_inputs
    assert equal_computations(c.fgraph.outputs, op.fgraph.outputs)


def test_node_is_apply_with_outputs_of_inner_types():
    x = pt.matrix("x")
    op = OpFromGraph([x], [x.sum(), x * 2])
    node = op.make_node(x)
    assert isinstance(node, Apply)
    assert [o.type for o in node.outputs] == [o.type for o in op.inner_outputs]
