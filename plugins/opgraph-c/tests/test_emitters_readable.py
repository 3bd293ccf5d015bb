"""The structural emitters (shape_ops, more_ops, gather, scan) write C through CWriter: one
statement per line, bodies indented by their braces; their support C is package data."""

from __future__ import annotations

import pytest
from opgraph_c.codegen import more_ops, runtime_c, scalar_table, shape_ops
from opgraph_c.codegen.nodec import EmitContext
from opgraph_c.codegen.registry import c_for_node
from opgraph_c.codegen.scan_c import emit_scan

import opgraph
import opgraph.tensor as pt
from opgraph.graph.traversal import applys_between
from opgraph.plugins import CExpr
from opgraph.scan.op import Scan
from opgraph.tensor.elemwise import DimShuffle
from opgraph.tensor.special import log_softmax, softmax
from opgraph.tensor.subtensor import (
    advanced_inc_subtensor1,
    advanced_set_subtensor1,
    advanced_subtensor1,
)


def _nodes() -> list:
    x = pt.dmatrix("x")
    i = pt.lscalar("i")
    v = pt.dvector("v")
    return [
        x.dimshuffle(1, "x", 0).owner,
        x.shape.owner,
        pt.alloc(v, 3, i).owner,
        x.reshape((i, -1)).owner,
        x[1:i:2, 3].owner,
        pt.inc_subtensor(x[1:i, 3], v).owner,
        pt.set_subtensor(x[i], v).owner,
        softmax(x, axis=1).owner,
        log_softmax(x, axis=None).owner,
        pt.argmax(pt.tensor3(), axis=(0, 2)).owner,
        pt.argmin(x, axis=None).owner,
        pt.concatenate([x, x], axis=i).owner,
        pt.arange(i, 10, 2).owner,
        pt.eye(i, 4, 1).owner,
        advanced_subtensor1(v, pt.lvector("j")).owner,
        advanced_inc_subtensor1(v, v, pt.lvector("j")).owner,
        advanced_set_subtensor1(v, v, pt.lvector("j")).owner,
    ]


def _emit(node):
    table = {**shape_ops.table(), **more_ops.table()}
    # DimShuffle's emitter is looked up apart from the table (it is a view)
    emitter = shape_ops.emit_dimshuffle if isinstance(node.op, DimShuffle) else next(
        fn for cls, fn in table.items() if isinstance(node.op, cls)
    )
    return emitter(node, EmitContext(openmp=True))


def _scan_node():
    x, w, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    h = opgraph.scan(lambda xt, h, w: pt.tanh(pt.dot(w, h) + xt), sequences=x,
                     outputs_info=h0, non_sequences=w, return_updates=False)
    return next(n for n in applys_between([x, w, h0], [h]) if isinstance(n.op, Scan))


@pytest.mark.parametrize("index", range(len(_nodes())))
def test_generated_c_is_indented_by_its_braces(index):
    node = _nodes()[index]
    _check_indented(node, _emit(node))


def test_scan_loop_c_is_indented_by_its_braces():
    node = _scan_node()
    ctx = EmitContext(openmp=False, emit_node=c_for_node)
    ctx.node_index = 0
    _check_indented(node, emit_scan(node, ctx))


def _check_indented(node, code):
    assert code is not None, node
    depth = 0
    for line in code.body.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("}"):
            depth -= 1
        expected = 0 if stripped.endswith(":") and " " not in stripped else 4 * depth
        indent = len(line) - len(line.lstrip(" "))
        assert indent == expected, f"{node.op}: {line!r} at indent {indent}, expected {expected}"
        # one statement per line (a for-header's two ``;`` and the (void) list excepted)
        if not stripped.startswith(("for ", "(void)")):
            assert stripped.count("goto fail;") <= 1 and stripped.count("; ") <= 1, line
        depth += stripped.count("{") - stripped.count("}") + (1 if stripped.startswith("}") else 0)
    assert depth == 0, f"{node.op}: unbalanced braces"


def test_support_c_is_read_from_package_data():
    assert shape_ops.VIEW_SUPPORT == runtime_c.runtime_file("views.h")
    assert shape_ops.INDEX_SUPPORT == runtime_c.runtime_file("index.h")
    assert scalar_table.SUPPORT_CODE == runtime_c.runtime_file("scalar_ops.h")
    assert "static PyArrayObject *og_view(" in shape_ops.VIEW_SUPPORT
    assert "og_floordiv_i64" in scalar_table.SUPPORT_CODE


def test_the_scalar_template_record_is_the_cores():
    assert scalar_table.CExpr is CExpr
