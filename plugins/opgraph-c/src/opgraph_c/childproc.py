"""Run work that may crash the interpreter (generated C) in a child process.

The child reads one JSON request per line on stdin and writes one JSON answer
per line on stdout.  If it dies (a segfault in generated code, an abort) or
stops answering, :meth:`ChildProcess.ask` returns a :class:`Crash` describing
it (exit code or signal, the tail of its stderr) instead of the answer, and
the next request starts a fresh child.  The crash-safety tests and the
differential fuzzer use it so that a crash is a reported failure, not a dead
test run.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

__all__ = ["ChildProcess", "Crash"]


@attrs.frozen
class Crash:
    """What happened to a child that did not answer."""

    hung: bool
    returncode: int | None
    stderr: str

    def describe(self) -> str:
        if self.hung:
            return f"the child hung (killed after the timeout); stderr:\n{self.stderr}"
        code = self.returncode
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"the child died with {name}; stderr:\n{self.stderr}"
        return f"the child exited with code {code}; stderr:\n{self.stderr}"


class ChildProcess:
    """One line-JSON child process (``argv``), restarted after it dies."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None = None,
                 timeout: float = 300.0, cwd: str | None = None) -> None:
        self.argv = list(argv)
        self.env = dict(os.environ if env is None else env)
        self.timeout = timeout
        self.cwd = cwd
        self.proc: subprocess.Popen | None = None
        self.stderr = tempfile.TemporaryFile()

    def _start(self) -> subprocess.Popen:
        self.stderr.seek(0)
        self.stderr.truncate()
        return subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=self.stderr, env=self.env, cwd=self.cwd, text=True,
                                bufsize=1)

    def ask(self, request: Any, timeout: float | None = None) -> Any:
        """The child's answer to ``request``, or a :class:`Crash`."""
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # it died before reading: reported below
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        ready = sel.select(self.timeout if timeout is None else timeout)
        sel.close()
        line = self.proc.stdout.readline() if ready else ""
        if line:
            return json.loads(line)
        if ready:
            self.proc.wait(timeout=30)
        else:
            self.proc.kill()
            self.proc.wait()
        self.stderr.seek(0)
        tail = self.stderr.read().decode(errors="replace")[-3000:]
        crash = Crash(hung=not ready, returncode=self.proc.returncode, stderr=tail)
        self.proc = None
        return crash

    def close(self) -> None:
        """Stop the child (closing its stdin ends its loop)."""
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        self.stderr.close()
