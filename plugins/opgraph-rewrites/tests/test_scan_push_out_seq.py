"""scan_push_out_seq_products: ``matrix @ x_t`` over a sequence becomes one product.

Each rewritten loop is compared with the same graph without the rewrite and
without any rewrite (values and gradients); the loops are checked to have lost
the sequence products and kept the recurrent ones.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from opgraph_rewrites.scan import scan_push_out_non_seq, scan_push_out_seq_products

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.graph.basic import io_toposort
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out
from opgraph.scan import scan
from opgraph.scan.op import Scan
from opgraph.tensor.products import Dot, MatMul

RNG = np.random.default_rng(33)
FAST = Mode(linker="vm", optimizer=get_mode("FAST_RUN").optimizer)
WITHOUT = FAST.excluding("scan_push_out_seq_products")


def products_in_loops(fg: FunctionGraph) -> int:
    n = 0
    for node in fg.apply_nodes:
        if isinstance(node.op, Scan):
            body = io_toposort(node.op.inner_inputs, node.op.inner_outputs)
            n += sum(isinstance(b.op, Dot | MatMul) for b in body)
    return n


def rnn(form: str):
    x, w, u, h0 = pt.matrix("x"), pt.matrix("W"), pt.matrix("U"), pt.vector("h0")

    def step(xt, h, w, u):
        proj = u @ xt if form == "left" else xt @ u.T
        return pt.tanh(w @ h + proj)

    hs = scan(step, sequences=[x], outputs_info=[h0], non_sequences=[w, u],
              return_updates=False)
    return [x, w, u, h0], hs


@pytest.mark.parametrize("form", ["left", "right"])
def test_input_projection_leaves_the_loop(form: str) -> None:
    inputs, hs = rnn(form)
    fg = FunctionGraph(inputs, [hs], clone=True)
    before = products_in_loops(fg)
    in2out(scan_push_out_non_seq).rewrite(fg)  # as in the pipeline: ``U.T`` is invariant
    in2out(scan_push_out_seq_products).rewrite(fg)
    assert products_in_loops(fg) == before - 1  # W @ h stays: it reads the state
    loss = (pt.sin(hs) * hs).sum()
    outs = [hs, *opgraph.grad(loss, inputs)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fns = [function(inputs, outs, mode=m) for m in (FAST, WITHOUT, Mode(optimizer=None))]
    args = (RNG.normal(size=(6, 3)), RNG.normal(size=(4, 4)), RNG.normal(size=(4, 3)),
            RNG.normal(size=4))
    got, *refs = (f(*args) for f in fns)
    for ref in refs:
        for a, b in zip(got, ref):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_products_with_a_state_or_in_while_loops_stay() -> None:
    x, h0, w = pt.matrix("x"), pt.vector("h0"), pt.matrix("W")
    hs = scan(lambda xt, h, w: w @ (h + xt), sequences=[x], outputs_info=[h0],
              non_sequences=[w], return_updates=False)
    fg = FunctionGraph([x, h0, w], [hs], clone=True)
    assert in2out(scan_push_out_seq_products).rewrite(fg) is not None
    assert products_in_loops(fg) == 1
    hs = scan(lambda xt, h, w: (h + w @ xt, opgraph.scan.until(h.sum() > 1e9)),
              sequences=[x], outputs_info=[h0], non_sequences=[w], return_updates=False)
    fg = FunctionGraph([x, h0, w], [hs], clone=True)
    in2out(scan_push_out_seq_products).rewrite(fg)
    assert products_in_loops(fg) == 1
