"""Helpers shared by the benchmark modules: quick mode, the PyTensor peer, guarded subprocesses.

Why a subprocess runner: cold-cache numbers need a fresh interpreter and a fresh
compile directory on both sides, and some peer cases (PyTensor's OpFromGraph at
K=500: 393 s, 5.8 GB) must be capped by time and memory instead of hanging the run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: how long a peer case may run before it is reported as timed out (seconds)
PEER_TIMEOUT_S = float(os.environ.get("OPGRAPH_BENCH_PEER_TIMEOUT", "120"))
#: resident memory above which a guarded subprocess is killed (MB)
MEMORY_GUARD_MB = float(os.environ.get("OPGRAPH_BENCH_MEMORY_GUARD_MB", "3000"))


def quick() -> bool:
    """True in smoke-test mode (``run.py --quick`` or OPGRAPH_BENCH_QUICK=1): small sizes."""
    return os.environ.get("OPGRAPH_BENCH_QUICK", "") not in ("", "0")


def pick(full: Any, small: Any) -> Any:
    """``small`` in quick mode, ``full`` otherwise."""
    return small if quick() else full


def pytensor_version() -> str | None:
    """The peer's version, or None when PyTensor is not importable here."""
    try:
        import pytensor
    except Exception:
        return None
    return str(pytensor.__version__)


def peer_missing_note() -> str:
    return ("PyTensor is not importable in this environment: the peer columns are empty and "
            "the issue's PyTensor 3.0.7 reference figures are shown for context only")


def pytensor_c_mode() -> Any:
    """PyTensor's C-backed FAST_RUN ("CVM"); 3.x's plain FAST_RUN is Numba, not what the
    issues measured."""
    from pytensor.compile.mode import Mode

    return Mode(linker="cvm", optimizer="fast_run")


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def with_flag(env: dict[str, str], var: str, flag: str) -> dict[str, str]:
    """``env`` with ``flag`` appended to the comma-separated flags variable ``var``."""
    current = env.get(var, "")
    env = dict(env)
    env[var] = ",".join(f for f in (current, flag) if f)
    return env


def fresh_cache_env(tmp: str | Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """An environment whose opgraph and PyTensor compile caches live under ``tmp``."""
    env = dict(os.environ if env is None else env)
    tmp = Path(tmp)
    (tmp / "opgraph").mkdir(parents=True, exist_ok=True)
    (tmp / "pytensor").mkdir(parents=True, exist_ok=True)
    env = with_flag(env, "OPGRAPH_FLAGS", f"compiledir={tmp / 'opgraph'}")
    return with_flag(env, "PYTENSOR_FLAGS", f"compiledir={tmp / 'pytensor'}")


def run_json(argv: list[str], *, env: dict[str, str] | None = None,
             timeout: float | None = None, memory_mb: float | None = None) -> dict[str, Any]:
    """Run ``python argv...`` and return the last JSON object it printed on stdout.

    On a timeout, a memory-guard kill or a failure the result is
    ``{"error": "...", "wall_s": ..., "peak_rss_mb": ...}`` instead, so the caller
    reports it and the run goes on.
    """
    memory_mb = MEMORY_GUARD_MB if memory_mb is None else memory_mb
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *argv], stdout=out, stderr=err,
                                env=env, text=True)
        peak = 0.0
        killed = ""
        while proc.poll() is None:
            peak = max(peak, _rss_mb(proc.pid))
            elapsed = time.perf_counter() - start
            if timeout is not None and elapsed > timeout:
                killed = f"timed out after {timeout:.0f} s"
            elif peak > memory_mb:
                killed = f"killed by the memory guard at {memory_mb:.0f} MB after {elapsed:.0f} s"
            if killed:
                proc.kill()
                proc.wait()
                break
            time.sleep(0.05)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if killed:
        return {"error": killed, "wall_s": wall, "peak_rss_mb": peak}
    lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"error": f"exit {proc.returncode}: {_exception_line(stderr)}", "wall_s": wall,
                "peak_rss_mb": peak}
    result = json.loads(lines[-1])
    result.setdefault("wall_s", wall)
    result.setdefault("peak_rss_mb", peak)
    return result


def _exception_line(stderr: str) -> str:
    """The last 'SomeError: message' line of a traceback (else the last line)."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for ln in reversed(lines):
        head = ln.split(":", 1)[0]
        if head.isidentifier() and (head.endswith("Error") or head.endswith("Exception")):
            return ln[:160]
    return (lines or ["no output"])[-1][:160]


def ratio(ours: float | None, theirs: float | None) -> float | None:
    """ours / theirs when both are numbers (below 1: opgraph is faster)."""
    if isinstance(ours, int | float) and isinstance(theirs, int | float) and theirs > 0:
        return ours / theirs
    return None


def growth(times: dict[int, float], sizes: tuple[int, int]) -> float | None:
    """time(big) / time(small): the measured growth between two sizes."""
    small, big = sizes
    a, b = times.get(small), times.get(big)
    if isinstance(a, int | float) and isinstance(b, int | float) and a > 0:
        return b / a
    return None


def loglog_slope(points: dict[int, float]) -> float | None:
    """Least-squares exponent p of time ~ size**p over the measured points."""
    import math

    pts = [(math.log(n), math.log(t)) for n, t in sorted(points.items())
           if isinstance(t, int | float) and t > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / den if den else None


def apply_recursion_limit() -> None:
    """Raise the limit when the parent asked for it (OPGRAPH_BENCH_RECURSION_LIMIT)."""
    limit = os.environ.get("OPGRAPH_BENCH_RECURSION_LIMIT")
    if limit:
        sys.setrecursionlimit(int(limit))


#: the limit used when a peer case is re-run after a RecursionError
RAISED_RECURSION_LIMIT = 50_000


def call_with_raised_recursion_limit(fn: Callable[[], Any], limit: int = RAISED_RECURSION_LIMIT,
                                     stack_mb: int = 512) -> Any:
    """``fn()`` in a thread with a big C stack and a raised recursion limit.

    For peer cases that fail with RecursionError at the peer's own limit: the failure is
    reported, and this re-run still gives a time.  The big stack keeps deep recursion from
    overflowing the C stack.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(limit)
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc
        finally:
            sys.setrecursionlimit(old)

    old_size = threading.stack_size(stack_mb * 1024 * 1024)
    try:
        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(old_size)
    if "error" in box:
        raise box["error"]
    return box["value"]


def peak_rss_self_mb() -> float:
    """This process's peak RSS (VmHWM; unlike ru_maxrss it does not carry over exec)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def emit(result: dict[str, Any]) -> None:
    """Print a child's result as the one JSON line :func:`run_json` reads."""
    print(json.dumps(result), flush=True)


def alternating(fns: dict[str, Callable[..., Any]], args: Any, repeats: int,
                clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Best-of-``repeats`` seconds of each callable on ``args``, timed in turns.

    One warm-up call each, then A, B, C, A, B, C, ...: taking turns spreads the
    machine's load over every peer alike.
    """
    for fn in fns.values():
        fn(*args)
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = clock()
            fn(*args)
            best[name] = min(best[name], clock() - t0)
    return best
