"""The C compiler driver: which compiler, which flags, and running it.

The compiler is, in order: the ``cxx`` config flag, the ``CC`` environment
variable, then ``cc``, ``gcc`` and ``clang`` on ``PATH``.  Flags never
include finite-math assumptions (``-ffast-math``, ``-ffinite-math-only``...),
so NaN, inf and overflow behave as in NumPy, nor floating-point contraction
(``-ffp-contract=off``: no fused multiply-add, each product rounded as NumPy
rounds it) unless ``config.fast_math`` is set; ``-fwrapv`` makes signed integer
overflow wrap the way NumPy's does.  The compiler's output of every failed
build is kept in a log file whose path is part of the error message.
"""

from __future__ import annotations

import ctypes.util
import functools
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Sequence

import attrs

from opgraph.config import config
from opgraph.link.basic import BackendCompileError
from opgraph.utils import cached_machine_fact, uname_key
from opgraph_c.cache import abi_tag
from opgraph_c.cache_files import quarantine

__all__ = [
    "CompileError",
    "Compiler",
    "CompilerNotFound",
    "build_flags",
    "compile_shared",
    "find_compiler",
    "include_dirs",
    "precompiled_header",
    "probe",
]

#: Flags that change floating-point results; refused in user flags.
UNSAFE_FLAGS = ("-ffast-math", "-ffinite-math-only", "-Ofast", "-funsafe-math-optimizations")


class CompilerNotFound(BackendCompileError):
    """No working C compiler; the message says what was tried."""


class CompileError(BackendCompileError):
    """The compiler failed (or its module would not load); ``log_path`` keeps its
    full output and the source.  A BackendCompileError, so FAST_RUN falls back."""


@attrs.frozen
class Compiler:
    """A compiler command (``argv`` may hold a wrapper such as ccache) and its identity."""

    argv: tuple[str, ...]
    path: str
    identity: str  # version text plus the executable's size/mtime: part of cache keys

    def __str__(self) -> str:
        return " ".join(self.argv)


def _candidates(cxx: str | None) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for text in (cxx, config.cxx, os.environ.get("CC", "")):
        if text and text.strip():
            found.append(tuple(shlex.split(text)))
            return found  # an explicit choice is never silently replaced
    return [("cc",), ("gcc",), ("clang",)]


@functools.lru_cache(maxsize=16)
def _identify(argv: tuple[str, ...]) -> Compiler | str:
    path = shutil.which(argv[0])
    if path is None:
        return f"{argv[0]!r} not found on PATH"
    st = os.stat(path)
    real = os.path.realpath(path)
    try:
        # `cc --version` costs a subprocess in every new process: kept on disk, keyed by
        # the executable's path, size and time (a changed compiler is asked again)
        version_text = cached_machine_fact(
            config.base_compiledir, f"cc-version|{argv}|{real}|{st.st_size}|{st.st_mtime_ns}",
            lambda: _version_text(argv))
    except OSError as exc:
        return f"{path} cannot be run: {exc}"
    except subprocess.TimeoutExpired:
        return f"{path} --version timed out"
    return Compiler(argv, path, f"{real}|{st.st_size}|{int(st.st_mtime)}|{version_text}")


def _version_text(argv: tuple[str, ...]) -> str:
    proc = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=30,
                          check=False)
    version = (proc.stdout or proc.stderr).strip().splitlines()
    return version[0] if version else f"exit status {proc.returncode}"


def find_compiler(cxx: str | None = None) -> Compiler:
    """The compiler to use (see module docstring); raises :class:`CompilerNotFound`."""
    reasons = []
    for argv in _candidates(cxx):
        result = _identify(argv)
        if isinstance(result, Compiler):
            return result
        reasons.append(result)
    raise CompilerNotFound(
        "no C compiler found (" + "; ".join(reasons) + "); install gcc or clang, or set CC "
        "or OPGRAPH_FLAGS=cxx=/path/to/cc"
    )


def include_dirs() -> list[str]:
    """Python's and NumPy's header directories."""
    import numpy

    paths = sysconfig.get_paths()
    dirs = [paths["include"], paths.get("platinclude", paths["include"]), numpy.get_include()]
    return list(dict.fromkeys(dirs))


@functools.cache
def has_libmvec() -> bool:
    """glibc's vector math library (SIMD exp, tanh, log...) is available to link
    (``find_library`` runs ldconfig: kept on disk, keyed by the linker cache's time)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        stamp = os.stat("/etc/ld.so.cache").st_mtime_ns
    except OSError:
        stamp = 0
    found = cached_machine_fact(config.base_compiledir, f"libmvec|{uname_key()}|{stamp}",
                                lambda: ctypes.util.find_library("mvec") or "")
    return bool(found)


#: Flags that let the compiler contract ``a*b + c`` into a fused multiply-add (one
#: rounding instead of two: ``a*d - b*c`` of a singular matrix stops being 0); refused
#: in user flags unless ``config.fast_math`` allows it.
CONTRACTING_FLAGS = ("-ffp-contract=fast", "-ffp-contract=on")


def _check_user_flags(flags: Sequence[str], fast_math: bool = False) -> None:
    for flag in flags:
        if flag in UNSAFE_FLAGS:
            raise ValueError(
                f"C flag {flag!r} assumes finite math and would change NaN/inf results; "
                f"opgraph refuses it (given in gcc__cxxflags or c_compile_args)"
            )
        if flag in CONTRACTING_FLAGS and not fast_math:
            raise ValueError(
                f"C flag {flag!r} fuses multiply-adds and changes NumPy's rounding; "
                f"opgraph refuses it unless config.fast_math is True (given in "
                f"gcc__cxxflags or c_compile_args)"
            )


def build_flags(*, openmp: bool, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """Compile and link flags for one extension module (sources excluded)."""

    user = tuple(shlex.split(config.gcc__cxxflags)) + tuple(extra)
    _check_user_flags(user, config.fast_math)
    flags = ["-shared", "-fPIC", "-O3", "-fwrapv", "-fno-math-errno", "-fvisibility=hidden"]
    # the flags are part of every cache key: modules with and without FMA never mix
    flags.append("-ffp-contract=fast" if config.fast_math else "-ffp-contract=off")
    flags.append("-fno-strict-aliasing")
    if platform.machine() in ("x86_64", "AMD64", "aarch64", "arm64"):
        x86 = platform.machine() in ("x86_64", "AMD64")
        flags.append("-march=native" if x86 else "-mcpu=native")
        if x86:  # full-width vectors where the CPU has them (libmvec's AVX-512 tanh: 1.6x)
            flags.append("-mprefer-vector-width=512")
    flags.append("-fopenmp" if openmp else "-fopenmp-simd")
    flags += [f"-I{d}" for d in include_dirs()]
    flags += list(user)
    return tuple(flags)


def link_flags(libraries: Sequence[str] = (), lib_dirs: Sequence[str] = ()) -> tuple[str, ...]:
    """Libraries to link: the requested ones, libm and (if present) libmvec."""
    out = []
    for d in lib_dirs:
        out += [f"-L{d}", f"-Wl,-rpath,{d}"]
    for lib in libraries:
        out.append(lib if lib.startswith("-") else f"-l{lib}")
    if has_libmvec():
        out.append("-lmvec")
    out.append("-lm")
    return tuple(out)


@functools.cache
def machine_identity() -> str:
    """What ``-march=native`` depends on: modules built here may not run elsewhere."""
    text = platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(("model name", "flags")):
                    text += "|" + line.strip()
                if line.startswith("flags"):
                    break
    except OSError:
        pass
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def compile_shared(
    compiler: Compiler,
    source: str,
    out_path: str,
    flags: Sequence[str],
    libs: Sequence[str],
    log_path: str,
) -> None:
    """Compile ``source`` into the shared library ``out_path`` (written in place).

    On failure the command, the compiler's output and the source go to
    ``log_path`` and :class:`CompileError` carries the first lines of the
    compiler's message and that path.
    """
    work = os.path.dirname(out_path) or "."
    # ``out_path``'s directory is private to this build; a fixed source name keeps
    # the binary identical across builds of the same source (its name is recorded)
    c_path = os.path.join(work, os.path.splitext(os.path.basename(out_path))[0] + ".c")
    try:
        with open(c_path, "w", encoding="utf-8") as fh:
            fh.write(source)
        cmd = [*compiler.argv, *flags, c_path, "-o", out_path, *libs]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=600)
            output, status = (proc.stdout + proc.stderr).strip(), proc.returncode
        except (OSError, subprocess.TimeoutExpired) as exc:
            output, status = f"{type(exc).__name__}: {exc}", -1
        if status != 0 or not os.path.exists(out_path):
            write_log(log_path, cmd, output, source)
            lines = output.splitlines()
            head = "\n".join(lines[:20]) if lines else "(the compiler printed nothing)"
            raise CompileError(
                f"C compilation failed with {compiler} (exit status {status}):\n{head}\n"
                f"full compiler output and source: {log_path}",
                log_path,
            )
    finally:
        try:
            os.unlink(c_path)
        except OSError:
            pass


def precompiled_header(compiler: Compiler, flags: Sequence[str], text: str,
                       root: str) -> str | None:
    """Path of a header holding ``text`` with its GCC precompiled form next to it, or None.

    Every generated module starts with the same Python/NumPy includes; parsing
    them is a fixed cost of each cold compile, which ``-include <this header>``
    skips.  Built once per (compiler, flags, Python/NumPy ABI, text) under
    ``root``, written under temporary names and renamed, like cache entries.  A
    stale or unreadable ``.gch`` is harmless: GCC then reads the header itself.
    Only for GCC (clang's precompiled headers work differently).
    """
    if "clang" in compiler.identity.lower():
        return None
    pch_flags = [f for f in flags if f != "-shared"]
    key = hashlib.sha256("\0".join((compiler.identity, *pch_flags, abi_tag(), text)).encode())
    folder = os.path.join(root, "pch", key.hexdigest()[:24])
    header = os.path.join(folder, "og_prelude.h")
    if os.path.exists(header + ".gch"):
        return header
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp_h = tempfile.mkstemp(suffix=".h", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp_h, header)
        fd, tmp_g = tempfile.mkstemp(suffix=".gch", dir=folder)
        os.close(fd)
        cmd = [*compiler.argv, *pch_flags, "-x", "c-header", header, "-o", tmp_g]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300)
        if proc.returncode != 0:
            os.unlink(tmp_g)
            return None
        os.replace(tmp_g, header + ".gch")
    except (OSError, subprocess.TimeoutExpired):
        return None
    return header


def discard_precompiled_header(header: str, root: str) -> None:
    """Quarantine the folder of a precompiled header that made a compile fail
    (it is rebuilt by the next :func:`precompiled_header` call)."""
    folder = os.path.dirname(header)
    if os.path.isdir(folder):
        quarantine(root, [folder], "a compile failed with this precompiled header and "
                   "succeeded without it")


def write_log(log_path: str, cmd: Sequence[str], output: str, source: str) -> None:
    try:
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        with open(log_path, "w", encoding="utf-8") as fh:
            fh.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n\n")
            fh.write(output + "\n\n----- source -----\n" + source)
    except OSError:
        pass


_PROBE_SOURCE = """
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <math.h>
int opgraph_probe(double x) { return (int)exp(x); }
"""


def logs_dir() -> str:
    """Where compiler logs go: ``<compiledir>/logs`` (a temp dir if not writable)."""

    path = os.path.join(config.compiledir, "logs")
    try:
        os.makedirs(path, exist_ok=True)
        return path
    except OSError:
        return tempfile.gettempdir()


@functools.lru_cache(maxsize=8)
def _probe_cached(cxx: str, compiledir: str, extra: str) -> str | None:
    try:
        compiler = find_compiler(cxx or None)
    except CompilerNotFound as exc:
        return str(exc)
    flags = build_flags(openmp=False)
    stamp = hashlib.sha256("|".join((compiler.identity, *flags)).encode()).hexdigest()[:20]
    ok_file = os.path.join(compiledir, f"probe-{stamp}.ok")
    if os.path.exists(ok_file):
        return None
    log = os.path.join(logs_dir(), f"probe-{stamp}.log")
    with tempfile.TemporaryDirectory(prefix="opgraph-probe-") as tmp:
        try:
            compile_shared(compiler, _PROBE_SOURCE, os.path.join(tmp, "p.so"), flags, (), log)
        except CompileError as exc:
            return f"the C compiler {compiler} does not work: {exc}"
    try:
        os.makedirs(compiledir, exist_ok=True)
        with open(ok_file, "w") as fh:
            fh.write(compiler.identity + "\n")
    except OSError:
        pass
    return None


def probe() -> str | None:
    """``None`` when C extension modules can be built here, else the reason.

    Compiles a tiny module including Python's and NumPy's headers, once per
    compiler and flag set (remembered on disk in the cache directory).
    """

    return _probe_cached(config.cxx, config.compiledir, config.gcc__cxxflags)
