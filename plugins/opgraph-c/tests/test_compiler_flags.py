"""Floating-point flags of the C compiler: no contraction into fused multiply-adds
unless ``config.fast_math``, and the choice is part of every module's cache key."""

from __future__ import annotations

import numpy as np
import pytest
from opgraph_c import compiler
from opgraph_c.cache import default_cache

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.config import config


def test_default_flags_forbid_contraction():
    flags = compiler.build_flags(openmp=False)
    assert "-ffp-contract=off" in flags
    assert "-ffp-contract=fast" not in flags


def test_fast_math_allows_contraction():
    with config.change_flags(fast_math=True):
        flags = compiler.build_flags(openmp=False)
    assert "-ffp-contract=fast" in flags
    assert "-ffp-contract=off" not in flags


@pytest.mark.parametrize("flag", ["-ffp-contract=fast", "-ffp-contract=on"])
def test_user_contraction_flag_needs_fast_math(flag):
    with config.change_flags(gcc__cxxflags=flag):
        with pytest.raises(ValueError, match=r"fast_math.*gcc__cxxflags"):
            compiler.build_flags(openmp=False)
        with config.change_flags(fast_math=True):
            assert flag in compiler.build_flags(openmp=False)


def test_unsafe_flag_is_refused_even_with_fast_math():
    with config.change_flags(gcc__cxxflags="-ffast-math", fast_math=True):
        with pytest.raises(ValueError, match="-ffast-math"):
            compiler.build_flags(openmp=False)


def test_modules_built_with_and_without_fast_math_never_mix():
    """The same graph compiled under both settings builds two modules, and each later
    compile finds its own one again."""
    cache = default_cache()
    x, y = pt.dvector("x"), pt.dvector("y")
    out = (x * y - y * x) * 0.75  # a graph no other test compiles

    def build() -> object:
        return function([x, y], out, mode=Mode(linker="c"))

    builds = cache.stats["builds"]
    plain = build()
    with config.change_flags(fast_math=True):
        fast = build()
    assert cache.stats["builds"] == builds + 2
    cache.forget_loaded()  # the next two come from disk: each must find its own key
    again = build()
    with config.change_flags(fast_math=True):
        fast_again = build()
    assert cache.stats["builds"] == builds + 2
    a, b = np.linspace(-1, 1, 7), np.linspace(2, 3, 7)
    want = (a * b - b * a) * 0.75
    for f in (plain, again):
        np.testing.assert_array_equal(f(a, b), want)  # no contraction: exact
    for f in (fast, fast_again):
        np.testing.assert_allclose(f(a, b), want, atol=1e-15)


TINY32 = np.array([1e-40, -3e-39, 2.0], dtype="float32")  # two subnormals and a normal
TINY64 = np.array([1e-310, -4e-320, 2.0])


@pytest.mark.parametrize("values", [TINY32, TINY64], ids=["float32", "float64"])
def test_fast_math_flushes_subnormals_during_the_call_only(values):
    """IEEE by default (subnormal operands and results kept); under ``fast_math`` a C
    module's call flushes them to zero, as XLA does on CPU, and the thread's
    floating-point mode is restored afterwards (NumPy after the call is IEEE again)."""
    x = pt.vector("x", dtype=values.dtype)
    half = np.asarray(0.5, dtype=values.dtype)
    ieee = function([x], x * half, mode=Mode(linker="c", optimizer=None))
    with config.change_flags(fast_math=True):
        flushed = function([x], x * half, mode=Mode(linker="c", optimizer=None))
    np.testing.assert_array_equal(ieee(values), values * half)
    assert ieee(values)[0] != 0
    np.testing.assert_array_equal(flushed(values), [0.0, -0.0, 1.0])
    assert (values * half)[0] != 0  # the flush ended with the call
    np.testing.assert_array_equal(ieee(values), values * half)


def test_the_floating_point_mode_is_restored_when_the_call_raises():
    x = pt.dvector("x")
    with config.change_flags(fast_math=True):
        fn = function([x], pt.log(x[5]), mode=Mode(linker="c", optimizer=None))
    with pytest.raises(IndexError):
        fn(TINY64)
    assert (TINY64 * 0.5)[0] != 0
