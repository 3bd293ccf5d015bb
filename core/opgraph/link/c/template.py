"""Fixed C shipped as package data, with ``@NAME@`` placeholders: the one mechanism.

Every package that generates C (the core's faces, opgraph-c, opgraph-linalg,
opgraph-special, any new plugin) keeps its fixed C in ``.c``/``.h`` files next
to its modules, declared as package data in its pyproject.toml, and reads them
with :func:`c_source`.  The parts that vary (a BLAS's integer type and symbol
names, a module's name) are written ``@NAME@`` in the file and given as
keyword arguments; :func:`fill` refuses a placeholder left without a value and
a value that fills nothing, so a typo fails where it is made, not in the C
compiler.  The files are real C to an editor, and compiler errors point into
them.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = ["PLACEHOLDER", "c_source", "fill", "read_c_file"]

PLACEHOLDER = re.compile(r"@([A-Z][A-Z0-9_]*)@")
"""``@NAME@``: upper-case letters, digits and underscores between two ``@``."""


@cache
def read_c_file(package: str, name: str) -> str:
    """The text of the package data file ``name`` (a path under ``package``'s directory)."""
    if not isinstance(package, str) or not isinstance(name, str):
        raise TypeError(
            f"read_c_file(package, name) takes two str, got {type(package).__name__} "
            f"and {type(name).__name__}"
        )
    path = resources.files(package).joinpath(*name.split("/"))
    if not path.is_file():
        raise FileNotFoundError(
            f"no C file {name!r} in package {package!r} (is it declared as package data?)"
        )
    return path.read_text(encoding="utf-8")


def fill(text: str, where: str = "C template", **values: str) -> str:
    """``text`` with each ``@NAME@`` replaced by ``values[NAME]``.

    Raises ValueError naming ``where`` when a placeholder has no value or a value
    fills no placeholder, and TypeError when a value is not a str.
    """
    for key, value in values.items():
        if not isinstance(value, str):
            raise TypeError(f"{where}: the value of @{key}@ must be a str, got "
                            f"{type(value).__name__} {value!r}")
    used = set(PLACEHOLDER.findall(text))
    missing = sorted(used - set(values))
    if missing:
        raise ValueError(f"{where}: no value for placeholder(s) "
                         + ", ".join(f"@{m}@" for m in missing))
    unused = sorted(set(values) - used)
    if unused:
        raise ValueError(f"{where}: no placeholder for value(s) " + ", ".join(unused))
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text) if used else text


def c_source(package: str, name: str, **values: str) -> str:
    """The C file ``name`` of ``package`` with its placeholders filled from ``values``.

    ``c_source("opgraph_linalg", "c/lapack.h")``; with placeholders:
    ``c_source("opgraph_c.codegen", "runtime/blas.h", BLASINT="int", ...)``.
    """
    return fill(read_c_file(package, name), f"{package}/{name}", **values)
