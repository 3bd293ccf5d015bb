"""PyTensor's ``misc`` helpers: OrderedSet, frozendict, StripPickler."""

from __future__ import annotations

import io
import pickle

import pytest

import opgraph.tensor as pt
from opgraph.misc.frozendict import frozendict
from opgraph.misc.ordered_set import OrderedSet
from opgraph.misc.pkl_utils import StripPickler


def test_ordered_set_keeps_insertion_order():
    s = OrderedSet([3, 1, 3, 2])
    assert list(s) == [3, 1, 2] and 1 in s and len(s) == 3
    s.add(0)
    s.discard(1)
    s.discard(99)
    assert list(s) == [3, 2, 0]
    assert list(s.union([5, 3])) == [3, 2, 0, 5] and list(s) == [3, 2, 0]
    s.difference_update([3])
    assert list(s) == [2, 0] and list(s.copy()) == [2, 0]
    with pytest.raises(KeyError):
        s.remove(42)


def test_frozendict_is_read_only_and_hashable():
    d = frozendict(a=1, b=2)
    assert d["a"] == 1 and dict(d) == {"a": 1, "b": 2} and "b" in d
    assert hash(d) == hash(frozendict(b=2, a=1)) and d == {"a": 1, "b": 2}
    assert d.copy(b=3)["b"] == 3 and d["b"] == 2
    with pytest.raises(TypeError):
        d["c"] = 3  # type: ignore[index]


def test_strip_pickler_drops_traces():
    x = pt.vector("x")
    y = pt.exp(x)
    y.tag.trace = [("file.py", 1, "f", "y = exp(x)")]
    y.tag.keep = "yes"
    buf = io.BytesIO()
    StripPickler(buf, protocol=-1).dump(y)
    back = pickle.loads(buf.getvalue())
    assert not hasattr(back.tag, "trace") and back.tag.keep == "yes"
    assert back.owner.op == y.owner.op
