"""local_useless_elemwise_comparison's bitwise and max/min cases: exact, so the
rewritten function gives the unrewritten one's values on every input."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rw import compile_pair, op_counts
from opgraph.tensor.rewriting import math as m

import opgraph.tensor as pt
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.walking import in2out

BOOLS = [np.array(v) for v in (False, True)]
INTS = [np.int8(v) for v in (-128, -1, 0, 1, 5, 127)]

CASES = {  # (dtype, build, what the rewritten graph is: "x", a constant or None)
    "bool_and_true": ("bool", lambda x: pt.bitwise_and(x, np.array(True)), "x"),
    "true_and_bool": ("bool", lambda x: pt.bitwise_and(np.array(True), x), "x"),
    "bool_or_true": ("bool", lambda x: pt.bitwise_or(x, np.array(True)), True),
    "bool_or_false": ("bool", lambda x: pt.bitwise_or(x, np.array(False)), "x"),
    "int_or_zero": ("int8", lambda x: pt.bitwise_or(np.int8(0), x), "x"),
    "int_and_zero": ("int8", lambda x: pt.bitwise_and(x, np.int8(0)), 0),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bitwise_with_constant(case):
    dtype, build, result = case
    x = pt.scalar("x", dtype=dtype)
    out = build(x)
    fg = FunctionGraph([x], [out], clone=True)
    in2out(m.local_useless_elemwise_comparison).rewrite(fg)
    new = fg.outputs[0]
    if result == "x":
        assert new is fg.inputs[0]
    else:
        assert new.owner is None and new.data == result
    fast, ref = compile_pair([x], out)
    for v in BOOLS if dtype == "bool" else INTS:
        assert fast(v) == ref(v) and np.asarray(fast(v)).dtype == np.asarray(ref(v)).dtype


def test_int_and_one_is_kept():
    x = pt.scalar("x", dtype="int8")
    fast, ref = compile_pair([x], pt.bitwise_and(x, np.int8(1)))
    assert op_counts(fast)["BitwiseAnd"] + op_counts(fast)["AND"] == 1
    assert fast(np.int8(6)) == ref(np.int8(6)) == 0


@pytest.mark.parametrize("build, expect_shape", [
    (lambda x: pt.maximum(x.shape[0], 0), True), (lambda x: pt.maximum(-2, x.shape[0]), True),
    (lambda x: pt.minimum(x.shape[0], 0), False), (lambda x: pt.minimum(0, x.shape[0]), False),
    (lambda x: pt.maximum(x.shape[0], 3), None)])
def test_max_min_of_shape_and_nonpositive_constant(build, expect_shape):
    x = pt.dvector("x")
    out = build(x)
    fg = FunctionGraph([x], [out], clone=True)
    in2out(m.local_useless_elemwise_comparison).rewrite(fg)
    new = fg.outputs[0]
    if expect_shape is None:
        assert "Maximum" in str(new.owner.op)
    elif expect_shape:
        assert "Maximum" not in str(new.owner.op)
    else:
        assert new.owner is None or "Minimum" not in str(new.owner.op)
    fast, ref = compile_pair([x], out)
    for n in (0, 1, 7):
        assert fast(np.ones(n)) == ref(np.ones(n))
