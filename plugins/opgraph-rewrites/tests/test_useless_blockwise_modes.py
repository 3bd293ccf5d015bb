"""local_useless_unbatched_blockwise runs in FAST_COMPILE too (PyTensor's tags): an
unbatched Blockwise is compiled as its core Op, a batched one stays a Blockwise."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.tensor.blockwise import Blockwise

linalg = pytest.importorskip("opgraph_linalg")


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
def test_unbatched_blockwise_becomes_core_op(mode):
    core = pt.linalg.MatrixPinv(hermitian=False)
    op = Blockwise(core, signature="(m,n)->(n,m)")
    x = pt.dmatrix("x")
    fn = opgraph.function([x], op(x), mode=mode)
    assert isinstance(fn.maker.fgraph.outputs[0].owner.op, type(core))
    xb = pt.dtensor3("xb")
    fnb = opgraph.function([xb], op(xb), mode=mode)
    assert isinstance(fnb.maker.fgraph.outputs[0].owner.op.core_op, type(core))
    v = np.arange(6.0).reshape(2, 3) + np.eye(2, 3)
    np.testing.assert_allclose(fn(v), np.linalg.pinv(v), rtol=1e-12)
    np.testing.assert_allclose(fnb(v[None]), np.linalg.pinv(v)[None], rtol=1e-12)

