"""Which PyTensor names a library imports, and whether each resolves in opgraph.

PyMC (and any other PyTensor client) reaches PyTensor through ``import
pytensor.x`` and ``from pytensor.x import name``.  This tool reads an installed
package's sources with :mod:`ast` (it imports nothing of the package), collects
every such module and name, and resolves each against ``opgraph`` (the word
``pytensor`` replaced by ``opgraph``: what the ``opgraph-pytensor``
compatibility distribution does at import time).

    python tools/pytensor_names.py pymc            # summary + the missing names
    python tools/pytensor_names.py pymc --json     # every name with its status

Exit status 1 when a name does not resolve.  Names under ``--pending`` prefixes
(work tracked elsewhere) are reported separately and do not fail the check.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SOURCE = "pytensor"
TARGET = "opgraph"


@dataclass(frozen=True)
class ImportedName:
    """``module`` (a PyTensor path) and ``name`` (None: the module itself is imported)."""

    module: str
    name: str | None

    def sort_key(self) -> tuple[str, str]:
        return (self.module, self.name or "")

    def label(self) -> str:
        return self.module if self.name is None else f"{self.module}:{self.name}"


def _is_source(module: str) -> bool:
    return module == SOURCE or module.startswith(SOURCE + ".")


def imported_names(tree: ast.AST) -> Iterator[ImportedName]:
    """Every PyTensor module and name one parsed file imports (at any depth)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_source(alias.name):
                    yield ImportedName(alias.name, None)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if _is_source(node.module):
                for alias in node.names:
                    if alias.name != "*":
                        yield ImportedName(node.module, alias.name)


def package_names(package: str) -> dict[ImportedName, list[str]]:
    """The names ``package``'s source files import, each with the files importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"package {package!r} is not installed (or is not a package)")
    root = Path(next(iter(spec.submodule_search_locations)))
    found: dict[ImportedName, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        rel = path.relative_to(root.parent).as_posix()
        for item in imported_names(tree):
            found.setdefault(item, []).append(rel)
    return found


def target_module(module: str) -> str:
    """The opgraph path serving a PyTensor module path."""
    return TARGET + module[len(SOURCE) :]


def resolve(item: ImportedName) -> str | None:
    """None when ``item`` resolves in opgraph, else why not (the exception's message)."""
    module_name = target_module(item.module)
    try:
        module = importlib.import_module(module_name)
        if item.name is None or hasattr(module, item.name):
            return None
        importlib.import_module(f"{module_name}.{item.name}")
        return None
    except Exception as exc:  # the report says what failed, whatever it was
        return f"{type(exc).__name__}: {exc}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", help="an installed package that imports pytensor (pymc)")
    parser.add_argument("--json", action="store_true", help="every name with its status")
    parser.add_argument("--pending", action="append", default=[],
                        help="a PyTensor path prefix whose missing names are tracked elsewhere")
    args = parser.parse_args(argv)
    names = package_names(args.package)
    status = {item: resolve(item) for item in sorted(names, key=ImportedName.sort_key)}
    missing = {i: why for i, why in status.items() if why is not None}
    pending = {i: why for i, why in missing.items()
               if any(i.label().startswith(p) for p in args.pending)}
    failing = {i: why for i, why in missing.items() if i not in pending}
    if args.json:
        rows = [{"name": i.label(), "error": why, "files": names[i]} for i, why in status.items()]
        print(json.dumps(rows, indent=1))
    else:
        for item, why in failing.items():
            print(f"MISSING {item.label()}  ({names[item][0]}): {why}")
        for item, why in pending.items():
            print(f"PENDING {item.label()}  ({names[item][0]}): {why}")
        print(f"{len(status) - len(missing)} of {len(status)} names resolve"
              f" ({len(pending)} pending, {len(failing)} missing)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
