"""The progress of long C compiles: shown on a terminal after the delay, never elsewhere.

A fake terminal (a StringIO whose ``isatty`` is True) stands in for stderr; the delay
is set to 0 (or 60) through ``config.compile__progress_delay`` so what is shown does
not depend on how fast the machine is.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Iterator

import numpy as np
import pytest
from opgraph_c import linker, progress
from opgraph_c.cache import ModuleCache

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.config import config


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def delay() -> Iterator[None]:
    with config.change_flags(compile__progress_delay=0.0, compile__progress=True):
        yield


def _wait_for(stream: io.StringIO, text: str, timeout: float = 10.0) -> str:
    end = time.monotonic() + timeout
    while text not in stream.getvalue():
        assert time.monotonic() < end, f"{text!r} never shown; got {stream.getvalue()!r}"
        time.sleep(0.01)
    return stream.getvalue()


@pytest.mark.usefixtures("delay")
def test_plain_line_shows_done_total_hits_and_what_is_built() -> None:
    term = FakeTerminal()
    with progress.compiling(2, stream=term, use_rich=False):
        with progress.module("3 nodes: Elemwise"):
            progress.building()
            _wait_for(term, "C modules 0/2, 0 from cache | compiling 3 nodes: Elemwise")
        with progress.compiling(1):  # a nested compile (an inner graph) adds its modules
            with progress.module("1 nodes: Dot"):
                pass  # no build: a cache hit
        _wait_for(term, "C modules 2/3, 1 from cache")
        with progress.module("2 nodes: Exp"):
            progress.building()
    out = term.getvalue()
    assert out.endswith("\n") and out.count("\n") == 1  # one line redrawn, then the summary
    summary = out.rsplit("\r", 1)[1]
    assert re.match(r"opgraph-c: 3 C modules ready \(2 compiled, 1 from cache\) in "
                    r"\d+\.\d s\s*\n", summary), summary


@pytest.mark.usefixtures("delay")
def test_rich_bar_when_rich_is_installed() -> None:
    pytest.importorskip("rich")
    term = FakeTerminal()
    with progress.compiling(4, stream=term, use_rich=True):
        with progress.module("a"):
            progress.building()
        _wait_for(term, "1/4")
    assert "opgraph-c: 1 C module ready (1 compiled, 0 from cache)" in term.getvalue()


def test_nothing_when_the_compile_is_shorter_than_the_delay() -> None:
    term = FakeTerminal()
    with config.change_flags(compile__progress_delay=60.0):
        with progress.compiling(1, stream=term, use_rich=False):
            with progress.module("a"):
                progress.building()
    assert term.getvalue() == ""


@pytest.mark.usefixtures("delay")
def test_nothing_when_stderr_is_not_a_terminal() -> None:
    log = io.StringIO()
    with progress.compiling(1, stream=log, use_rich=False):
        with progress.module("a"):
            progress.building()
        time.sleep(0.1)
    assert log.getvalue() == ""


def test_nothing_when_the_flag_says_so() -> None:
    term = FakeTerminal()
    with config.change_flags(compile__progress=False, compile__progress_delay=0.0):
        with progress.compiling(1, stream=term, use_rich=False):
            with progress.module("a"):
                progress.building()
            time.sleep(0.1)
    assert term.getvalue() == ""


@pytest.mark.usefixtures("delay")
def test_a_failed_compile_says_so() -> None:
    term = FakeTerminal()
    with pytest.raises(RuntimeError, match="gcc broke"):
        with progress.compiling(2, stream=term, use_rich=False):
            with progress.module("a"):
                progress.building()
                raise RuntimeError("gcc broke")
    assert "opgraph-c: compile failed after" in term.getvalue()
    assert "(0 C modules ready, 0 from cache)" in term.getvalue()


@pytest.mark.usefixtures("delay")
@pytest.mark.parametrize("mode", ["C", "CVM"])
def test_the_linkers_report_builds_and_cache_hits(
    mode: str, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ModuleCache(str(tmp_path), 64)  # empty: the first compile builds
    monkeypatch.setattr(linker, "default_cache", lambda: cache)
    term = FakeTerminal()
    monkeypatch.setattr("sys.stderr", term)
    x, y = pt.dvectors("x", "y")
    with config.change_flags(compile__progress=True):
        fn = function([x, y], [pt.exp(x) * y, pt.dot(x, y)], mode=mode)
        first = term.getvalue()
        function([x, y], [pt.exp(x) * y, pt.dot(x, y)], mode=mode)  # from the cache now
    xv, yv = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    got = fn(xv, yv)
    np.testing.assert_allclose(got[0], np.exp(xv) * yv)
    np.testing.assert_allclose(got[1], xv @ yv)
    # "c": one module for the graph; "cvm": one per node
    modules = 1 if mode == "C" else len(fn.maker.fgraph.toposort())
    word = "module" if modules == 1 else "modules"
    built = cache.stats["builds"]
    assert built >= 1 and cache.stats["disk_hits"] == 0
    assert f"{modules} C {word} ready ({built} compiled, {modules - built} from cache)" in first
    second = term.getvalue()[len(first):]
    assert f"{modules} C {word} ready (0 compiled, {modules} from cache)" in second, second
