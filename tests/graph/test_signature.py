"""structure_signature: equal computations hash alike, different ones do not."""

from __future__ import annotations

import opgraph.tensor as pt
from opgraph.graph.signature import structure_signature


def _graph():
    x, y = pt.dvector("x"), pt.dvector("y")
    return [x, y], [pt.exp(x) * y + 2.0]


def test_equal_computations_have_equal_signatures() -> None:
    (ins1, outs1), (ins2, outs2) = _graph(), _graph()
    assert ins1[0] is not ins2[0]
    assert structure_signature(ins1, outs1) == structure_signature(ins2, outs2)
    assert hash(structure_signature(ins1, outs1)) == hash(structure_signature(ins2, outs2))


def test_different_computations_differ() -> None:
    ins, outs = _graph()
    x, y = ins
    assert structure_signature(ins, outs) != structure_signature(ins, [pt.exp(x) * y + 3.0])
    assert structure_signature(ins, outs) != structure_signature([y, x], outs)
