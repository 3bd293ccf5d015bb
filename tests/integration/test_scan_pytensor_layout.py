"""The Scan layout that code written for PyTensor pattern-matches (PyMC's scan logprob).

``scan`` builds each recurrent output's outer input as PyTensor does, the
initial rows written into an ``AllocEmpty`` buffer; clones of ``op.fgraph`` keep
the inner inputs (PyTensor's are nominal); ``ScanArgs`` edited without the
sit-sot taps rebuilds a valid Scan.  Values and gradients stay those of the loop.
"""

from __future__ import annotations

import numpy as np

import opgraph
import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.graph.basic import Constant, graph_inputs
from opgraph.scan import scan
from opgraph.scan.args import ScanArgs
from opgraph.tensor.basic import AllocEmpty
from opgraph.tensor.subtensor import IncSubtensor


def _state_inputs(out):
    node = out.owner.inputs[0].owner  # scan returns buffer[k:]
    sl = node.op.outer_slices()["states"]
    return node, node.inputs[sl]


def test_tap_inputs_are_initial_rows_written_into_an_empty_buffer():
    x0, m0 = pt.vector("x0"), pt.matrix("m0")
    ys, zs = scan(lambda a, b, p: [a + b, p * 2],
                  outputs_info=[{"initial": m0, "taps": [-2, -1]}, x0], n_steps=4,
                  return_updates=False)
    _node, states = _state_inputs(ys)
    for buf, init, rows in zip(states, [m0, x0], [2, 1]):
        op = buf.owner.op
        assert isinstance(op, IncSubtensor) and op.set_instead_of_inc
        [entry] = op.idx_list  # PyTensor 3's x[:stop]: slice(None, <stop input>, None)
        assert isinstance(entry, slice) and entry.start is None and entry.step is None
        empty, value, stop = buf.owner.inputs
        assert isinstance(empty.owner.op, AllocEmpty) and int(stop.data) == rows
        assert init in graph_inputs([value])
    m, x = np.arange(6.0).reshape(3, 2), np.array([1.0, -2.0, 0.5])
    f = function([m0, x0], [ys, zs, *opgraph.grad(ys.sum() + zs.sum(), [m0, x0])])
    got_y, got_z, gm, gx = f(m, x)
    full = [m[0], m[1]]
    for _ in range(4):
        full.append(full[-2] + full[-1])
    np.testing.assert_allclose(got_y, full[2:])
    np.testing.assert_allclose(got_z, [x * 2 ** (k + 1) for k in range(4)])
    np.testing.assert_allclose(gm, [[7, 7], [11, 11], [0, 0]])  # z2..z5 = (1,1,2,3)z0 + ...
    np.testing.assert_allclose(gx, np.full(3, 2 + 4 + 8 + 16.0))


def _compiled_state_buffer(f):
    [node] = [n for n in f.maker.fgraph.apply_nodes if type(n.op).__name__ == "Scan"]
    return node.inputs[node.op.outer_slices()["states"]][0]


def test_state_buffer_holds_the_history_and_shrinks_to_the_rows_read():
    """As in PyTensor: the outer input has ``n_steps + k`` rows (the initial rows written
    in place into an empty buffer, no copy of the history); reading only ``ys[-1]``,
    scan_save_mem shrinks it to the ring the loop keeps (the last row and one tap)."""
    x0, n = pt.vector("x0"), pt.iscalar("n")
    ys = scan(lambda p: p * 2, outputs_info=[x0], n_steps=n, return_updates=False)
    for out, rows in ((ys, [4, 6]), (ys[-1], [2, 2])):
        f = function([x0, n], out, mode="FAST_RUN")
        buf = _compiled_state_buffer(f)
        assert isinstance(buf.owner.op, IncSubtensor) and buf.owner.op.destroy_map
        assert isinstance(buf.owner.inputs[0].owner.op, AllocEmpty)
        length = function([x0, n], buf.shape[0], accept_inplace=True, on_unused_input="ignore")
        assert [int(length(np.ones(2), k)) for k in (3, 5)] == rows
    f = function([x0, n], [ys, ys[-1]], mode="FAST_RUN")
    got, last = f(np.ones(2), 3)
    np.testing.assert_allclose(got, [[2, 2], [4, 4], [8, 8]])
    np.testing.assert_allclose(function([x0, n], ys[-1])(np.ones(2), 3), [8, 8])
    np.testing.assert_allclose(last, [8, 8])


def test_clones_of_the_inner_fgraph_keep_the_inner_inputs():
    x0, c = pt.vector("x0"), pt.vector("c")
    ys = scan(lambda p, c: p * c, outputs_info=[x0], non_sequences=[c], n_steps=3,
              return_updates=False)
    op = ys.owner.inputs[0].owner.op
    clone = op.fgraph.clone()
    assert clone.inputs == op.inner_inputs
    assert clone.outputs[0] is not op.inner_outputs[0]


def test_scan_args_edited_without_sit_sot_taps_rebuild():
    """Code written for PyTensor drops a sit-sot from the lists only (its taps are derived)."""
    x0, c = pt.vector("x0"), pt.vector("c")
    ys, _zs = scan(lambda p, q, c: [p * c, q + c], outputs_info=[x0, x0], non_sequences=[c],
                   n_steps=3, return_updates=False)
    node = ys.owner.inputs[0].owner
    args = ScanArgs.from_node(node)
    for field in ("inner_in_sit_sot", "outer_in_sit_sot", "inner_out_sit_sot",
                  "outer_out_sit_sot"):
        getattr(args, field).pop(0)
    new = args.make_node()
    assert new.op.info.sit_sot_in_slices == ((-1,),)
    free = [v for v in graph_inputs(new.op.inner_outputs)
            if not isinstance(v, Constant) and v not in new.op.inner_inputs]
    assert free == []
    f = function([x0, c], new.outputs[0])
    np.testing.assert_allclose(f(np.zeros(2), np.ones(2)), [[0, 0], [1, 1], [2, 2], [3, 3]])
