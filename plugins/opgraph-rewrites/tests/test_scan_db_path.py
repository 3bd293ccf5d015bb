"""``opgraph.scan.rewriting.db`` holds PyTensor's two Scan databases, usable as queries."""

from __future__ import annotations

import numpy as np
from opgraph.graph.rewriting.db import RewriteDatabaseQuery
from opgraph.scan.rewriting import db

import opgraph
import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph
from opgraph.scan.op import Scan


def test_scan_eqopt1_pushes_an_invariant_out_of_the_loop() -> None:
    a, x0 = pt.dvector("a"), pt.dvector("x0")
    xs = opgraph.scan(lambda x, a: x + pt.exp(a), outputs_info=[x0], non_sequences=[a],
                      n_steps=3, return_updates=False)
    fg = FunctionGraph([a, x0], [xs], clone=True)
    db.scan_eqopt1.query(RewriteDatabaseQuery(include=["fast_run"])).rewrite(fg)
    assert any(isinstance(n.op, Scan) for n in fg.apply_nodes)
    # exp(a) is now computed once, outside the loop
    assert any(getattr(getattr(n.op, "scalar_op", None), "name", "") == "exp"
               for n in fg.apply_nodes)
    f = opgraph.function(fg.inputs, fg.outputs[0], mode="FAST_COMPILE")
    got = f(np.zeros(2), np.ones(2))
    np.testing.assert_allclose(got, [[2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    assert db.scan_eqopt2 is not db.scan_eqopt1
