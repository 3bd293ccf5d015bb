"""Write docs/api/names.md: every public name of opgraph's main modules, from the code.

Run ``python docs/tools/api_names.py`` after adding or removing a public name;
``tests/integration/test_api_names_page.py`` fails when the page is stale or
when a public name has no docstring (``--missing`` lists those).
The page is generated with every plugin installed, so names that plugins
provide (``pt.erf`` from opgraph-special) appear with their provider.

Where a docstring comes from: functions, classes and modules have their own;
an object that can hold one gets it set (the elementwise functions ``pt.exp``
... get theirs from a table, see ``opgraph.tensor.math_docs``); a plain value
(a string, tuple, dict, a Constant, a RewriteQuery) is documented by the
string literal right under its assignment, as mkdocstrings reads it::

    FAST_RUN = "FAST_RUN"
    '''The name of the default mode: every rewrite, the fastest linker.'''

The ``TensorType`` instances that ``opgraph.tensor`` makes in a loop
(``dvector``, ``fmatrix`` ...) cannot hold a docstring (frozen, slotted) and
are described by their type, which their repr names completely.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import itertools
import sys
import typing
from pathlib import Path
from typing import Any

MODULES = (
    "opgraph",
    "opgraph.tensor",
    "opgraph.gradient",
    "opgraph.graph",
    "opgraph.compile",
    "opgraph.printing",
    "opgraph.scalar",
    "opgraph.graph.rewriting",
    "opgraph.tensor.random",
    "opgraph.tensor.linalg",
    "opgraph.tensor.optimize",
    "opgraph.scan",
    "opgraph.sparse",
    "opgraph.plugins",
)
PAGE = Path(__file__).resolve().parents[1] / "api" / "names.md"


def public_names(module_name: str) -> list[str]:
    """The module's public names: ``__all__`` if it has one, else ``dir()`` minus privates."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return sorted(set(names))


def _is_type_alias(obj: Any) -> bool:
    """A typing alias (``TensorLike = Variable | Sequence[Variable] | ArrayLike``): its
    class and module differ between Python versions, so the page names it the same way."""
    return typing.get_origin(obj) is not None and not inspect.isclass(obj)


def _kind(obj: Any) -> str:
    if _is_type_alias(obj):
        return "type alias"
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if inspect.isroutine(obj):
        return "function"
    if callable(obj):
        return f"{type(obj).__name__} instance"
    return type(obj).__name__


def _own_doc(obj: Any) -> str:
    """The docstring of ``obj`` itself: an instance inheriting its class's has none."""
    if inspect.ismodule(obj) or inspect.isclass(obj) or inspect.isroutine(obj):
        return inspect.getdoc(obj) or ""
    doc = getattr(obj, "__doc__", None)
    return "" if not doc or doc == type(obj).__doc__ else inspect.cleandoc(doc)


@functools.cache
def _attribute_docs(module_name: str) -> dict[str, str]:
    """``{name: docstring}`` for the module's top-level ``name = ...`` followed by a string."""
    module = sys.modules.get(module_name)
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return {}
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    docs: dict[str, str] = {}
    body = tree.body
    for stmt, nxt in itertools.pairwise(body):
        if not (isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)):
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else (
            [stmt.target] if isinstance(stmt, ast.AnnAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name):
                docs[target.id] = inspect.cleandoc(nxt.value.value)
    return docs


def _is_type_instance(obj: Any) -> bool:
    """A Type instance (``pt.dvector``), or a tuple of them (``float_matrix_types``):
    frozen and slotted (a tuple cannot hold a docstring), its repr says what it is."""
    if isinstance(obj, tuple) and obj:
        return all(_is_type_instance(x) for x in obj)
    return callable(obj) and hasattr(obj, "dtype") and hasattr(obj, "shape") and \
        hasattr(obj, "filter")


def docstring(name: str, obj: Any) -> str:
    """The docstring of public ``name`` (bound to ``obj``): its own, else an attribute
    docstring in a loaded opgraph module that binds ``name`` to that very object."""
    doc = _own_doc(obj)
    if doc:
        return doc
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith("opgraph") or module is None:
            continue
        if vars(module).get(name, _MISSING) is obj:
            doc = _attribute_docs(module_name).get(name, "")
            if doc:
                return doc
    return ""


_MISSING = object()


def missing_docstrings() -> dict[str, list[str]]:
    """``{module: [names]}``: the public names that have no docstring at all."""
    missing: dict[str, list[str]] = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in public_names(module_name):
            obj = getattr(module, name)
            if not docstring(name, obj) and not _is_type_instance(obj):
                missing.setdefault(module_name, []).append(name)
    return missing


def _summary(name: str, obj: Any) -> str:
    doc = docstring(name, obj)
    if not doc and _is_type_instance(obj):
        doc = f"makes a symbolic {obj} variable: call it with an optional name"
    line = doc.strip().splitlines()[0] if doc.strip() else ""
    return line.replace("|", "\\|")


def _origin(obj: Any) -> str:
    if _is_type_alias(obj):
        return ""
    module = getattr(obj, "__module__", None) if not inspect.ismodule(obj) else obj.__name__
    return f"`{module}`" if isinstance(module, str) else ""


def render() -> str:
    """The whole page, as Markdown."""
    out = [
        "# Every public name",
        "",
        "Generated from the code by `docs/tools/api_names.py` (with every plugin installed);",
        "a test fails when this page and the code disagree. Each table lists a module's",
        "public names, what kind of object each is, where it is defined, and the first line",
        "of its docstring.",
        "",
    ]
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        names = public_names(module_name)
        out += [f"## `{module_name}` ({len(names)} names)", "",
                "| name | kind | defined in | summary |", "|---|---|---|---|"]
        for name in names:
            obj = getattr(module, name)
            out.append(f"| `{name}` | {_kind(obj)} | {_origin(obj)} | {_summary(name, obj)} |")
        out.append("")
    return "\n".join(out)


def main() -> int:
    """Rewrite the page; ``--check`` only reports whether it is up to date."""
    if "--missing" in sys.argv:
        for module_name, names in missing_docstrings().items():
            print(f"{module_name}: {', '.join(names)}")
        return 0
    text = render()
    if "--check" in sys.argv:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        return 0 if current == text else 1
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
