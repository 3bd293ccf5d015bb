"""Small printing helpers of PyTensor's ``printing`` module: pattern printers, short summaries.

Kept apart from :mod:`opgraph.printing` (debugprint and pprint) to keep
each module to one job; ``opgraph.printing`` re-exports these names.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from opgraph.graph.basic import Variable

__all__ = [
    "VALID_ASSOC",
    "ConstantPrinter",
    "LeafPrinter",
    "PatternPrinter",
    "Printer",
    "char_from_number",
    "constant_printer",
    "greek",
    "leaf_printer",
    "min_informative_str",
    "set_precedence",
    "tag_names",
]

VALID_ASSOC = frozenset({"left", "right", "either"})
"""The associativities an operator printer accepts."""

_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi "
          "rho sigma tau upsilon phi chi psi omega")
greek: dict[str, str] = {name: "\\" + name for name in _GREEK.split()}
"""Variable names the leaf printer writes as LaTeX letters (``alpha`` -> ``\\alpha``)."""


class Printer(abc.ABC):
    """What pprint calls for a variable: ``process(var, pstate) -> str``."""

    @abc.abstractmethod
    def process(self, var: Variable, pstate: Any) -> str:
        """The text of ``var`` in the context ``pstate``."""


class LeafPrinter(Printer):
    """A graph input: its name (a Greek letter's name as LaTeX), else its ``str``."""

    def process(self, var: Variable, pstate: Any) -> str:
        if var not in pstate.memo:
            pstate.memo[var] = greek.get(var.name, str(var)) if var.name else str(var)
        return pstate.memo[var]


class ConstantPrinter(Printer):
    """A constant: the ``str`` of its data."""

    def process(self, var: Variable, pstate: Any) -> str:
        if var not in pstate.memo:
            pstate.memo[var] = str(var.data)
        return pstate.memo[var]


leaf_printer = LeafPrinter()
"""The printer of graph inputs: their names."""
constant_printer = ConstantPrinter()
"""The printer of constants: their values."""


@contextlib.contextmanager
def set_precedence(pstate: Any, precedence: float = -1000) -> Iterator[None]:
    """Within the block, ``pstate.precedence`` is ``precedence`` (restored after)."""
    before = pstate.precedence
    pstate.precedence = precedence
    try:
        yield
    finally:
        pstate.precedence = before

_ARG_PRECEDENCE = 1000.0  # an input with no precedence given: parenthesised unless atomic


class PatternPrinter:
    """Print an op with a ``%``-pattern per output: ``PatternPrinter(("|%(0)s - %(1)s|", -1000))``.

    Each pattern is a string, or a tuple of the string and the precedence
    each input is printed with (``%(i)s`` is input ``i``); an input without
    one gets 1000, so anything but a leaf gets parentheses.
    """

    def __init__(self, *patterns: str | tuple[Any, ...]) -> None:
        if not patterns:
            raise TypeError("PatternPrinter needs at least one pattern")
        self.patterns: list[tuple[str, tuple[float, ...]]] = []
        for pattern in patterns:
            if isinstance(pattern, str):
                self.patterns.append((pattern, ()))
            elif isinstance(pattern, tuple) and pattern and isinstance(pattern[0], str):
                self.patterns.append((pattern[0], tuple(float(p) for p in pattern[1:])))
            else:
                raise TypeError(
                    f"PatternPrinter: each pattern must be a str or a (str, precedence, ...) "
                    f"tuple, got {pattern!r}"
                )

    def process(self, output: Variable, pstate: Any) -> str:
        node = output.owner
        if node is None:
            raise TypeError(f"PatternPrinter: {output} has no owner to print")
        index = node.outputs.index(output)
        if index >= len(self.patterns):
            raise ValueError(
                f"PatternPrinter: {node.op} output {index} has no pattern "
                f"({len(self.patterns)} given)"
            )
        pattern, precedences = self.patterns[index]
        precedences += (_ARG_PRECEDENCE,) * (len(node.inputs) - len(precedences))
        texts = {
            str(i): pstate.pprinter.process(x, pstate.clone(precedence=p))
            for i, (x, p) in enumerate(zip(node.inputs, precedences, strict=False))
        }
        return pattern % texts


def tag_names() -> Iterator[str]:
    """``"A"``, ``"B"``, ..., ``"Z"``, ``"BA"``, ...: the ids debugprint gives out."""
    n = 0
    while True:
        digits = []
        k = n
        while True:
            digits.append(chr(ord("A") + k % 26))
            k //= 26
            if k == 0:
                break
        yield "".join(reversed(digits))
        n += 1


def min_informative_str(
    obj: Variable,
    indent_level: int = 0,
    _prev_obs: dict | None = None,
    _tag_generator: Iterator[str] | None = None,
) -> str:
    """A short tree of ``obj``: one line per variable, ``"<tag>. <name or op>"``.

    Shorter than debugprint: a named variable stops the descent (its name is
    what a reader recognises), and a variable seen before prints its tag only.
    """
    seen: dict = {} if _prev_obs is None else _prev_obs
    tags = tag_names() if _tag_generator is None else _tag_generator
    lines: list[str] = []
    _informative_lines(obj, indent_level, seen, tags, lines.append)
    return "\n".join(lines)


def _informative_lines(obj: Variable, level: int, seen: dict, tags: Iterator[str],
                       emit: Callable[[str], None]) -> None:
    stack: list[tuple[Variable, int]] = [(obj, level)]
    while stack:
        var, depth = stack.pop()
        pad = " " * depth
        if var in seen:
            emit(f"{pad}{seen[var]}")
            continue
        tag = next(tags)
        seen[var] = tag
        if var.name is not None:
            emit(f"{pad}{tag}. {var.name}")
            continue
        if var.owner is None:
            emit(f"{pad}{tag}. {var}")
            continue
        emit(f"{pad}{tag}. {var.owner.op}")
        for inp in reversed(var.owner.inputs):
            stack.append((inp, depth + 1))


def char_from_number(number: int) -> str:
    """0 -> 'A', 25 -> 'Z', 26 -> 'BA' (base 26 with letters as digits, like PyTensor)."""
    base = 26
    digits = []
    while True:
        number, rem = divmod(number, base)
        digits.append(chr(ord("A") + rem))
        if number == 0:
            break
    return "".join(reversed(digits))
