"""SIMD declarations of libm functions, so element loops call glibc's libmvec.

glibc declares its vector variants only under ``-ffast-math``; opgraph never
uses that flag (it changes NaN/inf handling), so the declarations are made
here for the functions whose every x86-64 variant (SSE, AVX, AVX2, AVX-512)
libmvec exports.  libmvec's results are within 4 ulp and handle NaN, inf and
overflow like the scalar functions.
"""

from __future__ import annotations

import ctypes
import functools

from opgraph_c.compiler import has_libmvec

__all__ = ["simd_declarations", "vector_functions"]

_UNARY = (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
)
_BINARY = ("pow", "atan2")
_WIDTHS = {"double": ("b2", "c4", "d4", "e8"), "float": ("b4", "c8", "d8", "e16")}


@functools.cache
def vector_functions() -> tuple[tuple[str, str, int], ...]:
    """(C function name, C type, arity) of the functions with all vector variants."""
    import platform

    if not has_libmvec() or platform.machine() not in ("x86_64", "AMD64"):
        return ()
    try:
        lib = ctypes.CDLL("libmvec.so.1")
    except OSError:
        return ()
    found = []
    for names, arity in ((_UNARY, 1), (_BINARY, 2)):
        for base in names:
            for ctype, widths in _WIDTHS.items():
                fname = base + ("f" if ctype == "float" else "")
                args = "v" * arity
                if all(hasattr(lib, f"_ZGV{w[0]}N{w[1:]}{args}_{fname}") for w in widths):
                    found.append((fname, ctype, arity))
    return tuple(found)


def simd_declarations() -> str:
    lines = []
    for fname, ctype, arity in vector_functions():
        params = ", ".join([ctype] * arity)
        lines.append("#pragma omp declare simd notinbranch")
        lines.append(f"extern {ctype} {fname}({params});")
    return "\n".join(lines) + "\n"
