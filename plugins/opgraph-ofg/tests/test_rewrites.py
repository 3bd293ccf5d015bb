"""The OpFromGraph rewrites, run directly with the core engine (no rewrite database needed)."""

from __future__ import annotations

import numpy as np
from conftest import compile_vm
from opgraph_ofg import OpFromGraph
from opgraph_ofg.rewrites import (
    OpFromGraphInplace,
    inline_ofg_expansion,
    register_rewrites,
    remove_unused_ofg_io,
)

import opgraph.tensor as pt
from opgraph.compile import shared
from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting import MergeOptimizer, in2out

XV = np.array([0.5, -1.5, 2.0])
YV = np.array([1.0, 3.0, -0.25])


def _ofg_nodes(fg):
    return [n for n in fg.toposort() if isinstance(n.op, OpFromGraph)]


def _run(fg, inputs_values):
    return compile_vm(list(fg.inputs), list(fg.outputs))(*inputs_values)


def test_merge_of_equal_opfromgraphs_leaves_one_node():
    x, y = pt.vectors("x", "y")
    a, b = pt.vectors("a", "b")
    op1 = OpFromGraph([a, b], [a * b + 1])
    c, d = pt.vectors("c", "d")
    op2 = OpFromGraph([c, d], [c * d + 1])
    fg = FunctionGraph([x, y], [op1(x, y) + op2(x, y)], clone=True)
    assert len(_ofg_nodes(fg)) == 2
    MergeOptimizer().rewrite(fg)
    assert len(_ofg_nodes(fg)) == 1
    np.testing.assert_allclose(_run(fg, [XV, YV])[0], 2 * (XV * YV + 1))


def test_inline_and_not_give_identical_results():
    x, y = pt.vectors("x", "y")
    s = shared(np.array([1.0, 2.0, 3.0]), name="s")

    def build(inline):
        a, b = pt.vectors("a", "b")
        op = OpFromGraph([a, b], [pt.tanh(a * b) + s, a - b], inline=inline)
        p, q = op(x, y)
        return FunctionGraph([x, y, s], [p * q], clone=False)

    plain, inl = build(False), build(True)
    in2out(inline_ofg_expansion).rewrite(inl)
    assert _ofg_nodes(plain) and not _ofg_nodes(inl)
    in2out(inline_ofg_expansion).rewrite(plain)
    assert _ofg_nodes(plain)  # inline=False is left alone
    got_plain = compile_vm([x, y], list(plain.outputs))(XV, YV)[0]
    got_inl = compile_vm([x, y], list(inl.outputs))(XV, YV)[0]
    np.testing.assert_allclose(got_plain, got_inl)
    np.testing.assert_allclose(got_plain, (np.tanh(XV * YV) + s.get_value()) * (XV - YV))


def test_nested_inline_three_deep_expands_completely():
    x = pt.vector("x")
    a = pt.vector("a")
    inner = OpFromGraph([a], [pt.exp(a)], inline=True)
    middle = OpFromGraph([a], [inner(a) * 2], inline=True)
    outer = OpFromGraph([a], [middle(a) + middle(a * 3)], inline=True)
    fg = FunctionGraph([x], [outer(x)], clone=True)
    in2out(inline_ofg_expansion).rewrite(fg)
    assert not _ofg_nodes(fg)
    np.testing.assert_allclose(_run(fg, [XV])[0], 2 * np.exp(XV) + 2 * np.exp(3 * XV))


def test_inline_inside_non_inline_and_back():
    x = pt.vector("x")
    a = pt.vector("a")
    inl = OpFromGraph([a], [a * a], inline=True)
    boxed = OpFromGraph([a], [inl(a) + 1], inline=False)
    top = OpFromGraph([a], [boxed(a) * 3], inline=True)
    fg = FunctionGraph([x], [top(x)], clone=True)
    in2out(inline_ofg_expansion).rewrite(fg)
    nodes = _ofg_nodes(fg)
    assert [n.op for n in nodes] == [boxed]
    np.testing.assert_allclose(_run(fg, [XV])[0], 3 * (XV * XV + 1))


def test_remove_unused_outputs_and_inputs():
    x, y, z = pt.vectors("x", "y", "z")
    a, b, c = pt.vectors("a", "b", "c")
    s = shared(np.array([10.0, 20.0, 30.0]), name="s")
    op = OpFromGraph([a, b, c], [a * b + s, c * 2, a - b])
    p, _q, r = op(x, y, z)
    fg = FunctionGraph([x, y, z, s], [p + r], clone=False)
    before = compile_vm([x, y, z], list(fg.outputs))(XV, YV, XV)[0]
    (node,) = _ofg_nodes(fg)
    assert (len(node.inputs), len(node.outputs)) == (4, 3)
    in2out(remove_unused_ofg_io).rewrite(fg)
    (node,) = _ofg_nodes(fg)
    assert (len(node.inputs), len(node.outputs)) == (3, 2)  # x, y, s -> p, r
    after = compile_vm([x, y, z], list(fg.outputs))(XV, YV, XV)[0]
    np.testing.assert_allclose(after, before)
    np.testing.assert_allclose(after, XV * YV + s.get_value() + XV - YV)


def test_remove_unused_skips_ops_with_overrides():
    x, y = pt.vectors("x", "y")
    a, b = pt.vectors("a", "b")
    op = OpFromGraph([a, b], [a * 2, b * 2], pullback=lambda i, o, g: [g[0], g[1]])
    p, _ = op(x, y)
    fg = FunctionGraph([x, y], [p], clone=True)
    in2out(remove_unused_ofg_io).rewrite(fg)
    (node,) = _ofg_nodes(fg)
    assert len(node.outputs) == 2


def test_inplace_on_inputs_where_the_destroy_handler_allows():
    x = pt.vector("x")
    a = pt.vector("a")
    op = OpFromGraph([a], [pt.sin(a) * 2 + a])
    fg = FunctionGraph([x], [op(op(op(x)))], clone=True)
    fg.attach_feature(DestroyHandler(protect_inputs=True))
    OpFromGraphInplace().rewrite(fg)
    nodes = _ofg_nodes(fg)
    assert [bool(n.op.destroy_map) for n in nodes] == [False, True, True]  # x is protected
    assert nodes[1].op.fn.maker.inputs[0].mutable
    f = lambda v: np.sin(v) * 2 + v
    from opgraph.compile import Mode, function

    fn = function(list(fg.inputs), list(fg.outputs), mode=Mode(linker="vm", optimizer=None),
                  accept_inplace=True)
    xv = XV.copy()
    np.testing.assert_allclose(fn(xv)[0], f(f(f(XV))))
    np.testing.assert_array_equal(xv, XV)  # the caller's array is untouched


def test_inplace_refused_when_value_still_needed():
    x = pt.vector("x")
    a = pt.vector("a")
    op = OpFromGraph([a], [a * 2])
    h = op(x)
    fg = FunctionGraph([x], [op(h) + h], clone=True)
    fg.attach_feature(DestroyHandler(protect_inputs=True))
    OpFromGraphInplace().rewrite(fg)
    # h is read by the Add after (or before) the second op: at most an ordering, never wrong
    from opgraph.compile import Mode, function

    fn = function(list(fg.inputs), list(fg.outputs), mode=Mode(linker="vm", optimizer=None),
                  accept_inplace=True)
    np.testing.assert_allclose(fn(XV)[0], 4 * XV + 2 * XV)


def test_register_rewrites_uses_tags_and_phases():
    registered = []

    class FakeDB:
        def register(self, name, rewriter, *tags, phase=None, after=()):
            registered.append((name, set(tags), phase, after))

    register_rewrites(FakeDB())
    names = {r[0]: r for r in registered}
    assert {"fast_compile", "fast_run", "inline"} <= names["inline_ofg_expansion"][1]
    assert names["inline_ofg_expansion"][2] == "inline"
    assert "fast_run" in names["ofg_remove_unused_io"][1]
    assert names["ofg_remove_unused_io"][2] == "post_specialize"
    assert "inplace" in names["ofg_inplace"][1]
    assert names["ofg_inplace"][2] == "inplace"
    assert names["ofg_inplace"][3] == ("inplace_elemwise",)  # its order in the phase


def test_plugin_module_is_cheap():
    import subprocess
    import sys

    code = ("import sys, opgraph_ofg.plugin; "
            "print(any(m.startswith('opgraph_ofg.op') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
