"""WrapLinker/WrapLinkerMany and opgraph.link.utils, with a linker built here (core only)."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.graph.basic import Variable
from opgraph.graph.fg import FunctionGraph
from opgraph.ifelse import ifelse
from opgraph.link.basic import Linker, LinkerResult, WrapLinker, WrapLinkerMany
from opgraph.link.utils import (
    add_clear_storage,
    fgraph_to_python,
    gc_helper,
    get_destroy_dependencies,
    get_name_for_object,
    map_storage,
    raise_with_op,
    streamline,
    unique_name_generator,
)
from opgraph.link.vm import VM, Loop, Stack
from opgraph.link.vms import make_stack_result
from opgraph.tensor.elemwise import Elemwise


class NodeLinker(Linker):
    """One ``perform`` thunk per node, run in topological order."""

    name = "node-test"

    def make_thunk(self, input_storage=None, output_storage=None, storage_map=None):
        fgraph, order, ins, outs, smap = self.schedule(input_storage, output_storage,
                                                       storage_map)
        compute = {v: [True] for v in smap}
        thunks = [n.op.make_thunk(n, smap, compute, []) for n in order]
        fn = streamline(fgraph, thunks, order, output_storage=outs)
        return LinkerResult(fn, ins, outs, thunks, order)


def _graph() -> tuple[FunctionGraph, Variable, Variable]:
    x, y = pt.dvector("x"), pt.dvector("y")
    return FunctionGraph([x, y], [pt.exp(x) * y + x], clone=False), x, y


def test_wrap_linker_sees_every_node_and_runs_what_the_wrapper_runs() -> None:
    fg, _x, _y = _graph()
    seen: list[str] = []

    def run_it(fgraph: Any, i: int, node: Any, *thunks: Any) -> None:
        assert len(thunks) == 2
        seen.append(type(node.op).__name__)
        for th in thunks:
            th()

    fn, ins, outs = WrapLinker([NodeLinker(), NodeLinker()], run_it).accept(fg).make_thunk()
    xv, yv = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    ins[0].data, ins[1].data = xv, yv
    fn()
    assert len(seen) == len(fg.toposort())
    np.testing.assert_allclose(outs[0].data, np.exp(xv) * yv + xv)

    skipped = WrapLinker([NodeLinker()], lambda *a: None).accept(fg).make_thunk()
    skipped.input_storage[0][0], skipped.input_storage[1][0] = xv, yv
    skipped.fn()
    assert skipped.output_storage[0][0] is None


def test_wrap_linker_many_calls_each_wrapper_and_errors_name_the_node() -> None:
    fg, _x, _y = _graph()
    calls: list[int] = []
    lk = WrapLinkerMany([NodeLinker()], [lambda f, i, n, t: calls.append(i),
                                         lambda f, i, n, t: t()])
    res = lk.accept(fg).make_thunk()
    res.input_storage[0][0] = np.zeros(2)
    res.input_storage[1][0] = np.ones(3)  # shape mismatch: raised by a node
    with pytest.raises(ValueError) as info:
        res.fn()
    assert any("Apply node that caused the error" in n for n in info.value.__notes__)
    with pytest.raises(ValueError, match="at least one linker"):
        WrapLinker([], print)


def test_storage_gc_and_streamline_helpers() -> None:
    fg, x, _y = _graph()
    order = fg.toposort()
    ins, outs, smap = map_storage(fg, order)
    computed, last_user = gc_helper(order)
    assert fg.outputs[0] in computed and last_user[x] in order
    compute = {v: [True] for v in smap}
    thunks = [n.op.make_thunk(n, smap, compute, []) for n in order]
    old = [[smap[v] for v, last in last_user.items()
            if last is n and v.owner is not None and v not in fg.outputs] for n in order]
    assert sum(map(len, old)) == 2  # exp(x) dies after the Mul, the product after the Add
    fn = streamline(fg, thunks, order, post_thunk_old_storage=old, output_storage=outs)
    ins[0][0], ins[1][0] = np.array([1.0]), np.array([2.0])
    fn()
    np.testing.assert_allclose(outs[0][0], np.exp(1.0) * 2 + 1)
    assert all(c[0] is None for cells in old for c in cells)
    add_clear_storage(fn, computed, smap)
    fn.clear_storage()
    assert outs[0][0] is None
    with pytest.raises(ValueError, match="thunks for"):
        streamline(fg, thunks[:1], order, output_storage=outs)
    assert dict(get_destroy_dependencies(fg)) == {}


def test_raise_with_op_pytensor_form_adds_the_node_note() -> None:
    fg, _x, _y = _graph()
    node = fg.toposort()[0]
    with pytest.raises(KeyError) as info:
        try:
            raise KeyError("boom")
        except KeyError:
            raise_with_op(fg, node)
    assert any("Apply node that caused the error" in n for n in info.value.__notes__)


def test_fgraph_to_python_source_and_names() -> None:
    x = pt.dvector("x")
    c = pt.constant(np.array([1.0, 2.0]))
    out = pt.exp(x) + c
    fg = FunctionGraph([x], [out], clone=False)

    def convert(op: Any, **kwargs: Any) -> Any:
        assert isinstance(op, Elemwise)
        return {"Exp": np.exp, "Add": np.add}[type(op.scalar_op).__name__]

    fn = fgraph_to_python(fg, convert)
    want = np.exp([0.0, 1.0]) + np.array([1.0, 2.0])
    np.testing.assert_allclose(fn(np.array([0.0, 1.0]))[0], want)
    src = inspect.getsource(fn)
    assert src.startswith("def fgraph_to_python(x):") and "# " in src
    smap = {c: [np.array([10.0, 10.0])]}
    fn2 = fgraph_to_python(fg, convert, storage_map=smap, squeeze_output=True)
    np.testing.assert_allclose(fn2(np.zeros(2)), [11.0, 11.0])


def test_unique_names() -> None:
    names = unique_name_generator(["blah"], suffix_sep="_")
    a, b, c = pt.dvector("blah"), pt.dvector("blah_1"), pt.dvector("def")
    assert [names(a), names(b), names(a)] == ["blah_1", "blah_1_1", "blah_1"]
    assert names(c) == "tensor_variable"
    assert names(c, force_unique=True) == "tensor_variable_1" == names(c)
    assert get_name_for_object(object()) == "object"


def _prepared(fg: FunctionGraph) -> tuple:
    nodes = fg.toposort()
    ins, outs, smap = map_storage(fg, nodes)
    compute = {v: [v.owner is None] for v in smap}
    thunks = [n.op.make_thunk(n, smap, compute, []) for n in nodes]
    return nodes, thunks, ins, outs, smap, compute


@pytest.mark.parametrize("kind", ["loop", "stack"])
def test_loop_and_stack_run_thunks_and_apply_updates(kind: str) -> None:
    a = pt.dscalar("a")
    fg = FunctionGraph([a], [a, pt.exp(a) + 1], clone=False)
    nodes, thunks, ins, outs, smap, compute = _prepared(fg)
    upd = {a: fg.outputs[1]}
    if kind == "loop":
        vm = Loop(fg, nodes, thunks, [], smap, ins, outs, upd)
    else:
        vm = Stack(fg, nodes, thunks, [], smap, ins, outs, upd, compute, False)
    smap[a][0] = np.array(0.0)
    assert [float(v) for v in vm()] == [0.0, 2.0]
    assert float(smap[a][0]) == 2.0
    with pytest.raises(ValueError, match="same length"):
        Loop(fg, nodes, thunks, [], smap, ins, outs, {}, [])
    with pytest.raises(ValueError, match="`nodes` and `thunks`"):
        VM(fg, nodes, [], [])


def test_stack_skips_the_untaken_ifelse_branch() -> None:
    c, x = pt.bscalar("c"), pt.dscalar("x")
    ran: list[str] = []
    fg = FunctionGraph([c, x], [ifelse(c, pt.exp(x), pt.log(x))], clone=False)
    nodes, thunks, ins, outs, smap, compute = _prepared(fg)

    def cb(node: Any, **kwargs: Any) -> None:
        ran.append(type(getattr(node.op, "scalar_op", node.op)).__name__)

    vm = Stack(fg, nodes, thunks, [], smap, ins, outs, {}, compute, False, callback=cb)
    smap[c][0], smap[x][0] = np.array(1, dtype="int8"), np.array(2.0)
    assert float(vm()[0]) == pytest.approx(np.exp(2.0))
    assert "Exp" in ran and "Log" not in ran
    with pytest.raises(IndexError):
        vm(output_subset=[3])


def test_make_stack_result_calls_the_callback_per_thunk_run() -> None:
    c, x = pt.bscalar("c"), pt.dscalar("x")
    fg = FunctionGraph([c, x], [ifelse(c, pt.exp(x), pt.log(x)) + 1], clone=False)
    seen: list[str] = []
    res = make_stack_result(fg, [], None, None, None, True,
                            callback=lambda node, **kw: seen.append(type(node.op).__name__))
    res.input_storage[0][0], res.input_storage[1][0] = np.array(0, dtype="int8"), 2.0
    res.fn()
    assert float(res.output_storage[0][0]) == pytest.approx(np.log(2.0) + 1)
    assert seen.count("IfElse") == 2 and len(res.order) == len(res.thunks)
