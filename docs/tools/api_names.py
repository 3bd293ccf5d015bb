"""Write docs/api/names.md: every public name of opgraph's main modules, from the code.

Run ``python docs/tools/api_names.py`` after adding or removing a public name;
``tests/integration/test_api_names_page.py`` fails when the page is stale.
The page is generated with every plugin installed, so names that plugins
provide (``pt.erf`` from opgraph-special) appear with their provider.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

MODULES = (
    "opgraph",
    "opgraph.tensor",
    "opgraph.gradient",
    "opgraph.graph",
    "opgraph.compile",
    "opgraph.printing",
)
PAGE = Path(__file__).resolve().parents[1] / "api" / "names.md"


def public_names(module_name: str) -> list[str]:
    """The module's public names: ``__all__`` if it has one, else ``dir()`` minus privates."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return sorted(set(names))


def _kind(obj: Any) -> str:
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


def _summary(obj: Any) -> str:
    doc = _own_doc(obj)
    if not doc and getattr(obj, "scalar_op", None) is not None:
        doc = f"elementwise {obj.scalar_op} (broadcasting, fuses with its neighbours)"
    elif not doc and callable(obj) and hasattr(obj, "dtype") and hasattr(obj, "shape"):
        doc = f"makes a symbolic {obj} variable: call it with an optional name"
    line = doc.strip().splitlines()[0] if doc.strip() else ""
    return line.replace("|", "\\|")


def _origin(obj: Any) -> str:
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
            out.append(f"| `{name}` | {_kind(obj)} | {_origin(obj)} | {_summary(obj)} |")
        out.append("")
    return "\n".join(out)


def main() -> int:
    """Rewrite the page; ``--check`` only reports whether it is up to date."""
    text = render()
    if "--check" in sys.argv:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        return 0 if current == text else 1
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
