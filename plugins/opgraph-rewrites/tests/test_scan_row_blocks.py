"""scan_share_row_block_products: ``W[a:b] @ v`` read from ``W @ v`` in a loop body.

The rewritten graphs are compared with the same graphs compiled without the
rewrite and without any rewrite (values and gradients), and the loop's body is
checked to have lost the block's product.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from opgraph_rewrites.scan import row_block_products

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.scan.op import Scan
from opgraph.scan.utils import ScanArgs
from opgraph.tensor.products import Dot, MatMul

RNG = np.random.default_rng(11)
N = 4
FAST = Mode(linker="vm", optimizer=get_mode("FAST_RUN").optimizer)
WITHOUT = FAST.excluding("scan_share_row_block_products")


def gru_like(x, w, h0, block_vector="h"):
    """Gates from ``W @ h``, a candidate from ``W[2N:] @ h`` (or ``@ -h``, not shared)."""
    def step(xp, h, w_):
        pre = pt.dot(w_, h) + xp
        z, r = pt.sigmoid(pre[:N]), pt.sigmoid(pre[N:2 * N])
        v = h if block_vector == "h" else -h
        cand = pt.tanh(xp[2 * N:] + r * pt.dot(w_[2 * N:], v))
        return (1 - z) * h + z * cand
    return opgraph.scan(step, sequences=[x], outputs_info=[h0], non_sequences=[w],
                        return_updates=False)


def body_products(fn) -> int:
    """Matrix products in the bodies of ``fn``'s loops."""
    total = 0
    for node in fn.maker.fgraph.apply_nodes:
        if isinstance(node.op, Scan):
            args = ScanArgs.from_node(node)
            total += sum(isinstance(n.op, Dot | MatMul)
                         for n in opgraph.graph.basic.io_toposort(args.inner_inputs,
                                                                  args.inner_outputs))
    return total


def compile3(inputs, outputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [function(inputs, outputs, mode=m)
                for m in (FAST, WITHOUT, Mode(linker="vm", optimizer=None))]


@pytest.mark.parametrize("sliced_outside", [False, True])
def test_block_product_is_read_from_the_whole_product(sliced_outside):
    x, w, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    if sliced_outside:  # the block as a non-sequence of its own, as push-out leaves it
        def step(xp, h, w_, wc):
            pre = pt.dot(w_, h) + xp
            return pt.tanh(xp[2 * N:] + pt.sigmoid(pre[N:2 * N]) * pt.dot(wc, h)) + pre[:N]
        hs = opgraph.scan(step, sequences=[x], outputs_info=[h0], non_sequences=[w, w[2 * N:]],
                          return_updates=False)
    else:
        hs = gru_like(x, w, h0)
    loss = (hs ** 2).sum()
    outs = [hs, *opgraph.grad(loss, [w, x, h0])]
    fast, without, ref = compile3([x, w, h0], outs)
    assert body_products(fast) < body_products(without)
    vals = (RNG.normal(size=(7, 3 * N)), RNG.normal(size=(3 * N, N)) / 2, RNG.normal(size=N))
    want = ref(*vals)
    for f in (fast, without):
        for g, r in zip(f(*vals), want):
            np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-12)


def test_a_block_times_another_vector_is_left_alone():
    x, w, h0 = pt.matrix("x"), pt.matrix("W"), pt.vector("h0")
    hs = gru_like(x, w, h0, block_vector="minus h")
    node = hs.owner
    while not isinstance(node.op, Scan):
        node = node.inputs[0].owner
    assert not row_block_products(ScanArgs.from_node(node))
    fast, without, ref = compile3([x, w, h0], [hs])
    assert body_products(fast) == body_products(without)
    vals = (RNG.normal(size=(5, 3 * N)), RNG.normal(size=(3 * N, N)) / 2, RNG.normal(size=N))
    np.testing.assert_allclose(fast(*vals)[0], ref(*vals)[0], rtol=1e-12, atol=1e-12)
