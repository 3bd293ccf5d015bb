"""Size metrics of a Python module read with :mod:`ast`: function lengths and C held in strings.

Part of the layer contract (``tools/layers.py``), kept apart because it needs
nothing of the import analysis.  Like ``layers.py`` it imports nothing of the
project, so it runs in a bare interpreter.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

#: Soft limits: ``layers.py check`` prints a warning above them, ``report`` counts them.
SOFT_MODULE_LINES = 600
SOFT_FUNCTION_LINES = 80
#: Hard cap on a function's length (def line to last line, nested functions included):
#: above it ``check`` fails unless the function is in ``tools/functions_debt.txt`` (and
#: no longer than recorded there).  120 is where a function stops fitting on two
#: screens; the functions above it when the cap came in (issue 32) are the debt list.
MAX_FUNCTION_LINES = 120
#: A string literal holding at least this many lines of C fails ``check``: fixed C
#: lives in ``.c``/``.h`` package data, filled by ``opgraph.link.c.template``.
MAX_C_STRING_LINES = 20

_C_WORDS = re.compile(
    r"\b(static|int|double|float|void|npy_intp|PyObject|PyArrayObject|return|if|for)\b"
    r"|#include|#define"
)


@dataclass(frozen=True)
class FunctionSize:
    qualname: str  # ``Class.method``, ``outer.<locals>.inner``
    line: int
    lines: int


@dataclass(frozen=True)
class CString:
    line: int
    lines: int


def function_sizes(tree: ast.Module) -> list[FunctionSize]:
    """Every function and method of the module with its length in lines."""
    out: list[FunctionSize] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                end = child.end_lineno or child.lineno
                out.append(FunctionSize(name, child.lineno, end - child.lineno + 1))
                walk(child, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return out


def _docstring_ids(tree: ast.Module) -> set[int]:
    """Bare string expressions (docstrings, attribute docstrings): prose, not C."""
    return {
        id(node.value) for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def c_line_count(text: str) -> int:
    """Lines of ``text`` when it reads as C (else 0).

    C: at least four non-blank lines, at least 30% of them ending in ``;``,
    ``{`` or ``}`` (macro continuations ignored), and a C word (``static``,
    ``npy_intp``, ``#include``...), and no JavaScript ``function(``.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) < 4:
        return 0
    ends = sum(1 for line in lines if line.rstrip("\\ ").endswith((";", "{", "}")))
    if ends / len(lines) < 0.3 or not _C_WORDS.search(text) or re.search(r"function\s*\(", text):
        return 0
    return len(text.splitlines())


def c_strings(tree: ast.Module) -> list[CString]:
    """String literals (f-strings whole) of the module that hold C."""
    skip = _docstring_ids(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip.update(id(value) for value in node.values)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                v.value if isinstance(v, ast.Constant) else "X" for v in node.values
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in skip:
                continue
            text = node.value
        else:
            continue
        count = c_line_count(text)
        if count:
            found.append(CString(node.lineno, count))
    return sorted(found, key=lambda c: c.line)
