"""Flags that change results: each is checked through the behaviour it controls."""

from __future__ import annotations

import io
import sys
import warnings

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, RewriteQuery, get_mode
from opgraph.compile.prepare import UnusedInputError
from opgraph.config import change_flags, config


def test_on_unused_input_default_comes_from_config() -> None:
    x, y = pt.dvector("x"), pt.dvector("y")
    assert config.on_unused_input == "raise"
    with pytest.raises(UnusedInputError, match="y"):
        function([x, y], x * 2)


def test_on_unused_input_flag_and_argument() -> None:
    x, y = pt.dvector("x"), pt.dvector("y")
    with change_flags(on_unused_input="ignore"):
        fn = function([x, y], x * 2, mode="FAST_COMPILE")
        with pytest.raises(UnusedInputError):
            function([x, y], x * 2, on_unused_input="raise")
    np.testing.assert_allclose(fn([1.0, 2.0], [0.0, 0.0]), [2.0, 4.0])
    with change_flags(on_unused_input="warn"), pytest.warns(UserWarning, match="y"):
        function([x, y], x * 2, mode="FAST_COMPILE")


def test_allow_gc_false_reaches_linkers_chosen_by_name() -> None:
    assert Mode(linker="vm").linker.allow_gc is True
    with change_flags(allow_gc=False):
        assert Mode(linker="vm").linker.allow_gc is False
        x = pt.dvector("x")
        fn = function([x], pt.exp(x) + 1, mode=Mode(linker="vm"))
        np.testing.assert_allclose(fn([0.0]), [2.0])


@pytest.mark.parametrize(
    ("level", "include"),
    [
        ("o4", ("fast_run",)),
        ("fast_run", ("fast_run",)),
        ("o1", ("fast_compile",)),
        ("fast_compile", ("fast_compile",)),
        ("merge", ("merge",)),
        ("unsafe", ("unsafe",)),  # PyTensor's OPT_UNSAFE: the unsafe rewrites alone
    ],
)
def test_optimizer_flag_sets_the_default_rewrites(level: str, include: tuple[str, ...]) -> None:
    with change_flags(optimizer=level):
        assert Mode(linker="py").optimizer == RewriteQuery(include=include)
    assert Mode(linker="py", optimizer="fast_compile").optimizer == RewriteQuery(
        include=("fast_compile",)
    )


def test_optimizer_none_means_no_rewrites() -> None:
    with change_flags(optimizer="None"):
        assert Mode(linker="py").optimizer is None


def test_mode_flag_accepts_a_mode_instance() -> None:
    mode = Mode(linker="py", optimizer=None)
    with change_flags(mode=mode):
        assert get_mode(None) is mode
    with pytest.raises(ValueError, match="Expected one of"):
        config.mode = "FASTEST"


def test_profile_flag_turns_profiling_on() -> None:
    x = pt.dvector("x")
    with change_flags(profile=True):
        fn = function([x], x + 1, mode="FAST_COMPILE")
    assert fn.profile is not None
    assert function([x], x + 1, mode="FAST_COMPILE").profile is None


def test_warn_float64_ignore_warn_raise() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pt.dvector("a")  # ignore (the default): nothing
    with change_flags(warn_float64="warn"):
        with pytest.warns(UserWarning, match="float64") as record:
            pt.dvector("b")
        assert record[0].filename == __file__  # points at the user's line
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            pt.fvector("c")  # float32: nothing
    with change_flags(warn_float64="raise"), pytest.raises(TypeError, match="float64"):
        pt.dmatrix("d")
    f = pt.fvector("f")
    with change_flags(warn_float64="raise"), pytest.raises(TypeError, match="float64"):
        pt.cast(f, "float64")  # an op's output counts too
    with change_flags(warn_float64="raise", floatX="float32"):
        assert pt.matrix("e").dtype == "float32"


def test_optimizer_verbose_prints_replacements_except_ignored(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import opgraph.scalar as ps
    from opgraph.graph.fg import FunctionGraph

    x, y, z = ps.float64("x"), ps.float64("y"), ps.float64("z")
    fg = FunctionGraph([x, y, z], [x + y], clone=False)
    fg.replace(y, z, reason="y->z")
    assert capsys.readouterr().out == ""
    with change_flags(optimizer_verbose=True):
        fg.replace(z, y, reason="z->y")
        assert "z->y" in capsys.readouterr().out
        with change_flags(optimizer_verbose_ignore="y->z,other"):
            fg.replace(y, z, reason="y->z")
            fg.replace(z, y, reason="z->y")
    out = capsys.readouterr().out
    assert "y->z" not in out and "z->y" in out
    fg.replace(y, z, reason="quiet", verbose=False)
    assert capsys.readouterr().out == ""


def test_on_opt_error_pdb_breaks_then_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    from opgraph.graph.rewriting.basic import on_rewrite_error

    calls: list[int] = []
    monkeypatch.setattr(sys, "breakpointhook", lambda *a, **k: calls.append(1))
    with change_flags(on_opt_error="pdb"):
        on_rewrite_error(ValueError("boom"), "a_rewriter")
    assert calls == [1]


def test_profile_optimizer_adds_a_rewriter_section() -> None:
    from opgraph.compile.profiling import ProfileStats
    from opgraph.graph.rewriting.basic import RewriterStats

    prof = ProfileStats("f")
    assert "Rewriter Profile" not in prof.summary(file=io.StringIO())
    prof.record_rewrites(None)  # no rewriter installed
    assert "(no rewrite ran)" in prof.summary(file=io.StringIO())
    stats = RewriterStats()
    stats.time["merge"] += 0.5
    stats.calls["merge"] += 3
    stats.applied["merge"] += 2
    prof.record_rewrites(stats)
    prof.record_rewrites(stats)
    text = prof.summary(file=io.StringIO())
    row = next(line for line in text.splitlines() if line.endswith("merge"))
    assert row.split()[:3] == ["1.000000", "6", "4"]


def test_profile_optimizer_flag_reaches_compiled_functions() -> None:
    x = pt.dvector("x")
    with change_flags(profile_optimizer=True):
        fn = function([x], x + 1, mode="FAST_COMPILE", profile=True)
    assert fn.profile.rewriter_profile is not None
    assert function([x], x + 1, mode="FAST_COMPILE", profile=True).profile.rewriter_profile is None


def test_cycle_detection_is_the_destroy_handlers_default_algo() -> None:
    from opgraph.graph.destroyhandler import DestroyHandler

    assert DestroyHandler().algo == "regular"
    with change_flags(cycle_detection="fast"):
        assert DestroyHandler().algo == "fast"
        assert DestroyHandler(algo="regular").algo == "regular"
