"""One way of writing generated C: a line writer that keeps the indentation.

Code generators append statements with :meth:`CWriter.line`, open braces
with ``with w.block("if (x)"):``, and paste C written elsewhere (an Op's
``c_code``) with :meth:`CWriter.code`, which re-indents it to the current
depth, so the module a graph compiles to reads like hand-written C.
"""

from __future__ import annotations

import contextlib
import textwrap
from collections.abc import Iterator

__all__ = ["CWriter"]


class CWriter:
    """Lines of C at an indentation depth (four spaces per level)."""

    def __init__(self, indent: str = "    ") -> None:
        self._lines: list[str] = []
        self._depth = 0
        self._indent = indent

    def line(self, *statements: str) -> CWriter:
        """Each statement on its own line at the current depth (an empty one: a blank line)."""
        for text in statements:
            self._lines.append(self._indent * self._depth + text if text else "")
        return self

    def code(self, text: str) -> CWriter:
        """A block of C written elsewhere, dedented and re-indented to the current depth."""
        body = textwrap.dedent(text.expandtabs(4)).strip("\n")
        for raw in body.splitlines():
            self.line(raw.rstrip())
        return self

    def label(self, name: str) -> CWriter:
        """A goto label, one level out (as C is usually written)."""
        self._lines.append(self._indent * max(self._depth - 1, 0) + f"{name}:")
        return self

    @contextlib.contextmanager
    def block(self, head: str = "", tail: str = "") -> Iterator[CWriter]:
        """``head {`` ... ``}tail`` with the body one level deeper."""
        self.line(f"{head} {{" if head else "{")
        self._depth += 1
        try:
            yield self
        finally:
            self._depth -= 1
            self.line("}" + tail)

    def text(self) -> str:
        """The C written so far, ending with a newline."""
        return "\n".join(self._lines) + "\n"
