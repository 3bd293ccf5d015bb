"""The fixed C every generated module shares, read from ``runtime/*.c``/``*.h`` package data.

The C lives in real C files (an editor and a compiler's error line numbers
point into them) shipped with the package (``[tool.setuptools.package-data]``
in pyproject.toml).  The profiling parts of ``state.c`` sit in
``#ifdef OG_PROFILE`` / ``#else`` / ``#endif`` sections, which
:func:`runtime_source` resolves, so a normal module's text holds no timing
code at all; a profiling module also defines ``OG_PROFILE``
(:func:`profile_define`) and appends :data:`PROFILE_SUPPORT`, so its text,
and cache entry, differ from a normal one.
"""

from __future__ import annotations

from importlib import resources

__all__ = [
    "FP_ENV",
    "INDEX_SUPPORT",
    "MODULE_TAIL",
    "POOL",
    "POOL_MAX_BYTES",
    "POOL_MIN_ELEMS",
    "POOL_SLOTS",
    "PRELUDE",
    "PROFILE_SUPPORT",
    "RUNTIME",
    "RUNTIME_FILES",
    "RUN_PY",
    "SCALAR_SUPPORT",
    "VIEW_SUPPORT",
    "profile_define",
    "runtime_file",
    "runtime_source",
    "select_profile",
]

#: Arrays of at least this many elements are allocated through the buffer pool.
POOL_MIN_ELEMS = 1 << 14
#: At most this many freed buffers, and this many bytes, wait in the pool for reuse.
POOL_SLOTS = 8
POOL_MAX_BYTES = 1 << 29

RUNTIME_FILES = (
    "prelude.h", "pool.c", "state.c", "profile.c", "run_py.c", "module_tail.c",
    "scalar_ops.h", "views.h", "index.h", "elemwise_support.h", "release.c", "scan.h",
    "blas_support.h", "blas_fallback.c", "gather_loops.h", "index_error.h", "aligned.h",
    "inc_view.h", "fpenv.c", "random.h",
)
"""The files of ``opgraph_c/codegen/runtime/``: the module frame in the order a module
includes it, then the support code the emitters ask for (``NodeC.support``)."""


def runtime_file(name: str) -> str:
    """The text of ``runtime/<name>`` (one of :data:`RUNTIME_FILES`)."""
    if name not in RUNTIME_FILES:
        raise ValueError(f"unknown runtime C file {name!r}; known: {', '.join(RUNTIME_FILES)}")
    return resources.files(__package__).joinpath("runtime", name).read_text(encoding="utf-8")


PRELUDE = runtime_file("prelude.h")
"""Python, NumPy and C library headers (first in every module)."""

POOL = runtime_file("pool.c")
"""The buffer pool: a NumPy memory handler reused for large arrays."""

RUNTIME = runtime_file("state.c")
"""Module state, input checks, buffer reuse rules and ``bind()``."""

PROFILE_SUPPORT = runtime_file("profile.c")
"""Only in modules built for profiling: the clock and the per-node accumulators."""

RUN_PY = runtime_file("run_py.c")
"""The loop running a table of Python-thunk nodes (profiling sections: :func:`select_profile`)."""

FP_ENV = runtime_file("fpenv.c")
"""``og_run``: the generated ``og_run_graph`` called in the floating-point mode of
``config.fast_math`` (subnormals flushed while the module runs, ``OG_FLUSH_SUBNORMALS``)."""

MODULE_TAIL = runtime_file("module_tail.c")
"""Method table and ``PyInit_MODNAME`` (``MODNAME`` is replaced by the module's name)."""


SCALAR_SUPPORT = runtime_file("scalar_ops.h")
"""Helpers the scalar C expressions use (OG_MAX, floor division, sigmoid...)."""

VIEW_SUPPORT = runtime_file("views.h")
"""``og_view`` (an array header on another array's memory) and ``OG_SET_OUT``."""

INDEX_SUPPORT = runtime_file("index.h")
"""``og_as_index``: a Python integer object as an index."""


def profile_define(profile: bool) -> str:
    """The line that switches the runtime's profiling parts on (or nothing)."""
    return "#define OG_PROFILE 1\n" if profile else ""


def select_profile(text: str, profile: bool) -> str:
    """``text`` with each ``#ifdef OG_PROFILE`` section resolved (no nesting).

    Keeps the ``#ifdef`` branch when ``profile``, else the ``#else`` branch (if
    any); the directive lines themselves are dropped.
    """
    out: list[str] = []
    state = None  # None outside a section, else "if" / "else"
    for line in text.splitlines(keepends=True):
        directive = line.strip()
        if directive == "#ifdef OG_PROFILE":
            if state is not None:
                raise ValueError("nested #ifdef OG_PROFILE in the runtime C")
            state = "if"
        elif directive == "#else" and state is not None:
            state = "else"
        elif directive == "#endif" and state is not None:
            state = None
        elif state is None or (state == "if") == profile:
            out.append(line)
    if state is not None:
        raise ValueError("#ifdef OG_PROFILE without #endif in the runtime C")
    return "".join(out)


def runtime_source(profile: bool) -> str:
    """``state.c`` for a normal module, or with the profiling state (``profile``)."""
    return select_profile(RUNTIME, profile)
