"""``opgraph.utils``' PyTensor helpers: subprocesses, the lazy dispatcher, the warning filter."""

from __future__ import annotations

import functools
import logging
import sys

import numpy as np
import pytest

import opgraph.utils as u


def test_subprocess_helpers_run_and_report():
    out, _err, code = u.output_subprocess_Popen([sys.executable, "-c", "print('hi')"])
    assert (out.strip(), code) == (b"hi", 0)
    assert u.call_subprocess_Popen([sys.executable, "-c", "raise SystemExit(3)"]) == 3
    with pytest.raises(TypeError, match="stdout"):
        u.call_subprocess_Popen(["true"], stdout=None)
    with pytest.raises(TypeError, match="stdout"):
        u.output_subprocess_Popen(["true"], stderr=None)


def test_lazy_dispatcher_registers_the_fallback_handler():
    @functools.singledispatch
    def describe(x):
        return "default"

    assert u.add_lazy_dispatcher(describe) is describe
    assert u.add_lazy_dispatcher(describe) is describe  # a second call changes nothing

    class Late:
        pass

    describe.register_lazy(lambda obj: (lambda o: "late") if isinstance(obj, Late) else None)
    assert describe(1) == "default"
    assert describe(Late()) == "late" and Late in describe.registry


def test_warning_filter_passes_each_rewrite_warning_once():
    filt = u.NoDuplicateOptWarningFilter()
    rec = logging.LogRecord("x", logging.WARNING, "", 0, "Optimization Warning: boom", (), None)
    other = logging.LogRecord("x", logging.WARNING, "", 0, "unrelated", (), None)
    assert filt.filter(rec) and not filt.filter(rec)
    assert filt.filter(other) and filt.filter(other)


def test_numpy_constants_and_apply_across_args():
    assert u.NPY_RAVEL_AXIS == np.iinfo(np.int32).min
    assert isinstance(u.NDARRAY_C_VERSION, int) and u.NDARRAY_C_VERSION > 0
    shout = u.apply_across_args(lambda s="a": s.upper())
    assert shout("x", "y") == ["X", "Y"] and shout("x") == "X" and shout(2) == ["A", "A"]
