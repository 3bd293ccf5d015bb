"""``var_descriptor``, ``hex_digest`` and ``position_independent_str`` (PyTensor's printing)."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.printing as p
import opgraph.tensor as pt


def test_var_descriptor_is_position_independent_and_marks_repeats():
    def build():
        x = pt.vector("x")
        e = pt.exp(x)
        return e + e

    one, two = build(), build()
    assert p.var_descriptor(one) == p.var_descriptor(two)
    text = p.var_descriptor(one)
    assert text.startswith("A=") and "<B>" in text and "0x" not in text
    y = pt.vector("y")
    assert p.var_descriptor(pt.exp(y)) != p.var_descriptor(pt.exp(pt.vector("x")))


def test_hex_digest_sees_layout_and_contents():
    a = np.arange(6.0).reshape(2, 3)
    assert p.hex_digest(a) == p.hex_digest(a.copy())
    assert p.hex_digest(a) != p.hex_digest(a.reshape(3, 2))
    assert p.hex_digest(a) != p.hex_digest(a + 1)
    with pytest.raises(TypeError, match="NumPy array"):
        p.hex_digest([1, 2])


def test_position_independent_str_and_tags():
    assert p.position_independent_str(pt.vector("x")).startswith("opgraph_var{type=")
    with pytest.raises(NotImplementedError):
        p.position_independent_str(3)
    assert [p.char_from_number(n) for n in (0, 25, 26)] == ["A", "Z", "BA"]
