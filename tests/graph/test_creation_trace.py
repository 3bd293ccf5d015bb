"""Every node built by user code records where (``tag.trace``), cheaply; rewrites'
replacements inherit the trace of what they replace."""

from __future__ import annotations

import sys

from toys import add, neg, var

from opgraph.config import config
from opgraph.graph.fg import FunctionGraph


def test_op_call_records_the_users_line():
    x = var("x")
    line = sys._getframe().f_lineno + 1
    y = neg(x)
    (frames,) = y.tag.trace
    filename, lineno, name, _source = frames[-1]
    assert (filename, lineno, name) == (__file__, line, "test_op_call_records_the_users_line")
    assert len(frames) <= config.traceback__limit


def test_traceback_limit_zero_records_nothing():
    old = config.traceback__limit
    config.traceback__limit = 0
    try:
        y = neg(var("x"))
    finally:
        config.traceback__limit = old
    assert y._tag is None or getattr(y.tag, "trace", None) is None


def test_replacement_inherits_the_trace_of_the_replaced_variable():
    x = var("x")
    y = neg(x)
    out = add(y, x)
    fg = FunctionGraph([x], [out], clone=False)
    new = neg(x)
    new.tag.trace = None
    fg.replace(y, new)
    assert new.tag.trace == y.tag.trace
