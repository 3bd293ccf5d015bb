"""What a long C compile is doing, shown on stderr while it runs.

A first compile of a large model (an empty cache, gcc -O3 over thousands of
lines) takes seconds to tens of seconds.  When one takes longer than
``config.compile__progress_delay`` seconds (2) and stderr is a terminal, a
line shows the C modules done of those known so far, how many came from the
cache and which module is being built, redrawn until the compile ends; then a
summary line stays.  Nothing is written when stderr is not a terminal (logs,
pipes, CI) or ``config.compile__progress`` is False.

The linkers mark what happens with two context managers:
``compiling(n_modules)`` around a linker's whole compile (nested compiles, the
inner graphs of a scan or OpFromGraph, add their modules to the outermost
one) and ``module(description)`` around each module's cache lookup, with
``building()`` called when the cache misses and the compiler runs.  The
display uses rich when it is installed (``pip install opgraph[rich]``), else
a plain text line.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TextIO

import attrs

from opgraph.config import config

__all__ = ["CompileStatus", "building", "compiling", "module", "render_text"]

#: Seconds between redraws once the progress is shown.
REFRESH_S = 0.25


@attrs.define
class CompileStatus:
    """The counters of one outermost compile (read by the display thread)."""

    total: int = 0
    done: int = 0
    cache_hits: int = 0
    builds: int = 0
    current: str = ""
    compiling_now: bool = False
    failed: bool = False
    started: float = attrs.field(factory=time.perf_counter)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


def render_text(status: CompileStatus, final: bool = False) -> str:
    """One line: ``opgraph-c: C modules 3/7, 2 from cache | compiling <what> | 4.1 s``."""
    plural = "" if status.done == 1 else "s"
    if final and status.failed:
        return (f"opgraph-c: compile failed after {status.elapsed():.1f} s "
                f"({status.done} C module{plural} ready, {status.cache_hits} from cache)")
    if final:
        return (f"opgraph-c: {status.done} C module{plural} ready "
                f"({status.builds} compiled, {status.cache_hits} from cache) "
                f"in {status.elapsed():.1f} s")
    return (f"opgraph-c: C modules {status.done}/{status.total}, {status.cache_hits} from "
            f"cache | {_doing(status)} | {status.elapsed():.1f} s")


def _doing(status: CompileStatus) -> str:
    return (("compiling " if status.compiling_now else "preparing ") + status.current).strip()


class _Display(Protocol):
    def update(self, status: CompileStatus) -> None: ...
    def close(self, status: CompileStatus) -> None: ...


class _PlainDisplay:
    """A line redrawn in place with a carriage return."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.width = 0

    def _write(self, text: str, end: str) -> None:
        pad = max(self.width - len(text), 0)
        self.stream.write("\r" + text + " " * pad + end)
        self.stream.flush()
        self.width = len(text)

    def update(self, status: CompileStatus) -> None:
        self._write(render_text(status), "")

    def close(self, status: CompileStatus) -> None:
        self._write(render_text(status, final=True), "\n")


class _RichDisplay:
    """rich's progress bar: spinner, bar, done/total, elapsed time, what is being built."""

    def __init__(self, stream: TextIO, rich_progress: Any, rich_console: Any) -> None:
        columns = (rich_progress.SpinnerColumn(), rich_progress.TextColumn("opgraph-c C modules"),
                   rich_progress.BarColumn(), rich_progress.MofNCompleteColumn(),
                   rich_progress.TextColumn("{task.fields[hits]} from cache"),
                   rich_progress.TimeElapsedColumn(),
                   rich_progress.TextColumn("{task.fields[doing]}"))
        console = rich_console.Console(file=stream, force_terminal=True)
        self.progress = rich_progress.Progress(*columns, console=console, auto_refresh=False,
                                               transient=True)
        self.task = self.progress.add_task("compile", total=1, hits=0, doing="")
        self.progress.start()

    def update(self, status: CompileStatus) -> None:
        self.progress.update(self.task, total=max(status.total, 1), completed=status.done,
                             hits=status.cache_hits, doing=_doing(status)[:60])
        self.progress.refresh()

    def close(self, status: CompileStatus) -> None:
        self.progress.update(self.task, total=max(status.total, 1), completed=status.done,
                             hits=status.cache_hits, doing="")
        self.progress.stop()
        self.progress.console.print(render_text(status, final=True), highlight=False)


def _make_display(stream: TextIO, use_rich: bool) -> _Display:
    if use_rich:
        try:  # optional dependency, imported only when a progress line is due
            import rich.console
            import rich.progress
        except ImportError:
            pass
        else:
            return _RichDisplay(stream, rich.progress, rich.console)
    return _PlainDisplay(stream)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class _Watcher:
    """The thread that waits out the delay, then redraws until the compile ends."""

    def __init__(self, status: CompileStatus, stream: TextIO, delay: float,
                 use_rich: bool) -> None:
        self.status, self.stream, self.delay, self.use_rich = status, stream, delay, use_rich
        self.finished = threading.Event()
        self.display: _Display | None = None
        self.thread = threading.Thread(target=self._run, name="opgraph-c-progress", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        if self.finished.wait(self.delay):
            return  # done before the delay: nothing shown
        try:
            self.display = _make_display(self.stream, self.use_rich)
            self.display.update(self.status)
            while not self.finished.wait(REFRESH_S):
                self.display.update(self.status)
        except (OSError, ValueError):  # the terminal went away: stop showing
            self.display = None

    def stop(self) -> None:
        """End the display with the summary line: always after a compile longer than the
        delay (also when the thread had no time to draw yet), never after a shorter one."""
        self.finished.set()
        self.thread.join()
        if self.display is None and self.status.elapsed() >= self.delay:
            try:
                self.display = _make_display(self.stream, self.use_rich)
            except (OSError, ValueError):
                return
        if self.display is not None:
            try:
                self.display.close(self.status)
            except (OSError, ValueError):
                pass


_LOCAL = threading.local()


def current() -> CompileStatus | None:
    """The status of the compile running in this thread (None outside one)."""
    return getattr(_LOCAL, "status", None)


@contextmanager
def compiling(n_modules: int, *, stream: TextIO | None = None,
              use_rich: bool = True) -> Iterator[CompileStatus]:
    """Count ``n_modules`` more modules for this thread's compile; the outermost call
    shows the progress (on ``stream``, default stderr) once the delay has passed."""
    outer = current()
    if outer is not None:
        outer.total += n_modules
        yield outer
        return
    status = CompileStatus(total=n_modules)
    stream = sys.stderr if stream is None else stream
    watcher = None
    if config.compile__progress and _is_terminal(stream):
        watcher = _Watcher(status, stream, config.compile__progress_delay, use_rich)
    _LOCAL.status = status
    try:
        yield status
    except BaseException:
        status.failed = True
        raise
    finally:
        _LOCAL.status = None
        if watcher is not None:
            watcher.stop()


@contextmanager
def module(description: str) -> Iterator[None]:
    """One module's lookup (and build, if :func:`building` is called inside)."""
    status = current()
    if status is None:
        yield
        return
    outer = (status.current, status.compiling_now)
    status.current, status.compiling_now = description, False
    before = status.builds
    try:
        yield
    finally:
        status.current, status.compiling_now = outer
    status.done += 1
    if status.builds == before:
        status.cache_hits += 1


def building() -> None:
    """The cache missed: the compiler runs for the current module."""
    status = current()
    if status is not None:
        status.builds += 1
        status.compiling_now = True
