"""The layer contract of the opgraph repository, checked statically (the ``lint`` nox session).

Why our own checker rather than import-linter: import-linter follows imports
inside functions as ordinary edges and cannot tell a hidden (function-level)
import from a top-level one, nor check module size or the dependency
declarations of the plugin distributions.  This file reads the sources with
:mod:`ast` only (it imports nothing of the project), so it runs in a bare
interpreter.

``python tools/layers.py report`` prints the counts (function-level imports
of the project's own modules, imports below the first definition, module
``__getattr__``, ``try/except ImportError`` around the project's own modules,
dispatch on class-name strings, import cycles).  ``python tools/layers.py
check`` fails (exit 1) on:

* an import of a higher layer from a lower one, at module top;
* any ``opgraph_*`` import from the core;
* a hidden import (function-level, below the first definition, or guarded by
  ``except ImportError``) of the project's own modules, beyond the documented
  exceptions and the recorded debt in ``tools/layers_debt.txt`` (a ratchet:
  a module above its recorded count fails, and so does one below it, until
  the count there is lowered);
* dispatch on class-name strings (``type(op).__name__ == "Subtensor"``);
* a plugin or contrib package importing another package's internal modules
  (only the top-level package, and only when declared as a dependency);
* a module longer than :data:`MAX_LINES` (allowlist: :data:`SIZE_ALLOWLIST`).
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from layers_metrics import (  # the sibling file, found through sys.path
    MAX_C_STRING_LINES,
    MAX_FUNCTION_LINES,
    SOFT_FUNCTION_LINES,
    SOFT_MODULE_LINES,
    CString,
    FunctionSize,
    c_strings,
    function_sizes,
)

ROOT = Path(__file__).resolve().parent.parent
CORE = "opgraph"

# Layer order, low to high.  A module belongs to the layer of its longest matching prefix.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # faces.py is an import finder: it imports nothing of the project at module top.
    ("base", ("opgraph.config", "opgraph.configparser", "opgraph.configdefaults",
              "opgraph.factcache",
              "opgraph.utils", "opgraph.npy_2_compat", "opgraph.faces", "opgraph._version",
              "opgraph.public_api")),
    ("graph", ("opgraph.graph",)),
    ("link, plugins", ("opgraph.link", "opgraph.plugins")),
    ("autodiff", ("opgraph.autodiff", "opgraph.gradient")),
    ("scalar", ("opgraph.scalar",)),
    ("tensor", ("opgraph.tensor", "opgraph.raise_op", "opgraph.ifelse")),
    ("compile", ("opgraph.compile",)),
    # Scan compiles its inner graph once, so it sits above compile.
    ("scan", ("opgraph.scan",)),
    ("printing, cli", ("opgraph.printing", "opgraph.printing_dot", "opgraph.printing_op",
                       "opgraph.printing_rich", "opgraph.printing_util", "opgraph.cli",
                       "opgraph")),
)

MAX_LINES = 800
SIZE_ALLOWLIST: set[str] = set()  # empty: every module is under MAX_LINES

# Hidden imports that are part of the design, each with its reason: (module, target prefix).
DOCUMENTED_IMPORTS = {
    # Variable.eval compiles (compile layer) from the graph layer: the one method on a
    # graph node that runs the graph (docs/architecture.md, "Layers").
    ("opgraph.graph.basic", "opgraph.compile.function"): "Variable.eval compiles its graph",
    # Variable.dprint / FunctionGraph.dprint print with the top layer's debugprint.
    ("opgraph.graph.basic", "opgraph.printing"): "Variable.dprint prints its graph",
    ("opgraph.graph.fg", "opgraph.printing"): "FunctionGraph.dprint prints its graph",
    # the node classes and the frozen graph live in their own modules since the split
    ("opgraph.graph.nodes", "opgraph.compile.function"): "Variable.eval compiles its graph",
    ("opgraph.graph.nodes", "opgraph.printing"): "Variable.dprint prints its graph",
    ("opgraph.graph.frozen", "opgraph.printing"): "FrozenFunctionGraph.dprint prints",
    # rewrite_graph(include=...) queries the rewrite database, found through the typed
    # plugin seam (a hook), not an import of the plugin
    ("opgraph.graph.rewriting.utils", "opgraph.plugins.registry"): "rewrite database seam",
    # verify_grad compiles the graph it checks, for the same reason as Variable.eval.
    ("opgraph.autodiff.evaluate", "opgraph.compile.function"): "verify_grad compiles",
    # The plugin manager (pluggy, importlib.metadata, the entry-point scan: about 80 ms)
    # loads on the first hook call, so ``import opgraph.tensor`` and ``import
    # opgraph.compile`` stay light; the modules below ask it only when they run a hook.
    ("opgraph.autodiff.hooks", "opgraph.plugins.manager"): "lazy plugin manager",
    ("opgraph.autodiff.evaluate", "opgraph.plugins.manager"): "lazy plugin manager",
    ("opgraph.compile.function.types", "opgraph.plugins.manager"): "lazy plugin manager",
}

# Module __getattr__ hooks that are part of the design.
DOCUMENTED_GETATTR = {
    # ``import opgraph`` stays light: the top-level names load on first access.
    "opgraph": "lazy top-level names",
    # Names a plugin provides on a core module (pt.erf from opgraph-special): the core
    # cannot import the plugin, so the name resolves through faces.py on first access.
    "opgraph.tensor": "plugin-provided names through faces.py",
    "opgraph.scalar": "plugin-provided names through faces.py (Psi, TriGamma, ...)",
    "opgraph.tensor.math": "plugin-provided names through faces.py (pt.math.erf)",
    "opgraph.scalar.math": "plugin-provided names through faces.py (scalar.math.gammaln)",
    "opgraph.tensor.basic": "plugin-provided names through faces.py (diag, tril from linalg)",
    "opgraph.tensor.special": "plugin-provided names through faces.py (betaln, xlogy)",
    "opgraph.link.basic": "plugin-provided names through faces.py (PerformLinker)",
    # A package's names load on first access, so importing one submodule (or ``import
    # opgraph``) does not import every sibling: pluggy, NumPy and the compile machinery
    # stay out of ``import opgraph.graph`` / ``opgraph.plugins``.  Within the package only.
    "opgraph.compile": "lazy package exports (import time)",
    # PyTensor's FAST_RUN / FAST_COMPILE are Mode objects: built from the plugins' mode
    # records on first access (building them at import would load every plugin).
    "opgraph.compile.mode": "predefined Mode objects built on first access",
    "opgraph.graph": "lazy package exports (import time)",
    "opgraph.plugins": "lazy package exports (import time)",
    # PyTensor paths of names defined in a module built on this one (same package):
    # PyTensor keeps them in this module, opgraph above it, so this module cannot import
    # them; the alias resolves on first access.  Nothing in opgraph uses these paths.
    "opgraph.tensor.elemwise": "PyTensor path alias: CAReduce (tensor/reduction.py)",
    "opgraph.tensor.subtensor": "PyTensor path aliases: take, flip... (subtensor_more.py)",
    "opgraph.scalar.basic": "PyTensor path aliases: every scalar op (scalar/*.py)",
    "opgraph.graph.rewriting.utils": "PyTensor path alias: is_same_graph_with_merge "
                                     "(rewriting/merge.py, which imports the rewriting base)",
    "opgraph.graph.rewriting.basic": "PyTensor path aliases: in2out, out2in... (walking.py)",
    # the optional kanren extra (opgraph[kanren]): loads kanren only when used
    "opgraph.graph.rewriting.unify": "optional extra: ConstrainedVar... (logic.py, kanren)",
}

# Imports of another package's internals still allowed: none (the C template record,
# CExpr, is a core record since issue 14, so contrib names no opgraph_c module).
PACKAGE_DEBT: set[tuple[str, str]] = set()

# The core naming a plugin: none (the rewrite database is found through a hook).
CORE_PLUGIN_DEBT: set[tuple[str, str]] = set()

DEBT_FILE = ROOT / "tools" / "layers_debt.txt"


def layer_of(module: str) -> int:
    """Index in :data:`LAYERS` of ``module`` (longest prefix wins)."""
    best, best_len = len(LAYERS) - 1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


@dataclass
class Import:
    target: str  # absolute module name (or module.attr when the attr may be a submodule)
    line: int
    kind: str  # "top", "type-checking", "function", "bottom", "guarded"


@dataclass
class ModuleInfo:
    name: str
    path: Path
    lines: int
    imports: list[Import] = field(default_factory=list)
    getattr_hook: bool = False
    dynamic_imports: list[int] = field(default_factory=list)
    lazy_targets: list[str] = field(default_factory=list)  # module strings in a ``_LAZY`` table
    name_dispatch: list[int] = field(default_factory=list)
    functions: list[FunctionSize] = field(default_factory=list)
    c_strings: list[CString] = field(default_factory=list)


def module_name(path: Path, src_root: Path) -> str:
    parts = list(path.relative_to(src_root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(node: ast.ImportFrom, current: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = current.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return False
    names = {n.id for n in ast.walk(handler.type) if isinstance(n, ast.Name)}
    return bool(names & {"ImportError", "ModuleNotFoundError"})


def _is_name_attr(node: ast.expr) -> bool:
    """``type(x).__name__`` or ``x.__class__.__name__``."""
    if not (isinstance(node, ast.Attribute) and node.attr in {"__name__", "__qualname__"}):
        return False
    inner = node.value
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "type":
        return True
    return isinstance(inner, ast.Attribute) and inner.attr == "__class__"


def _is_str_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_is_str_literal(e) for e in node.elts)
    return False


def _is_name_table(node: ast.expr) -> bool:
    """A collection of string literals, bare or through ``frozenset(...)``/``set(...)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
        return node.func.id in {"frozenset", "set", "tuple"} and _is_str_literal(node.args[0])
    return isinstance(node, ast.Tuple | ast.List | ast.Set) and _is_str_literal(node)


class _Collector(ast.NodeVisitor):
    def __init__(self, info: ModuleInfo, is_package: bool) -> None:
        self.info = info
        self.is_package = is_package
        self.depth = 0  # function nesting
        self.seen_def = False  # a def/class at module level came before
        self.kind_stack: list[str] = []
        self.class_depth = 0
        self.name_tables: set[str] = set()  # module-level names bound to string collections

    def _kind(self) -> str:
        if self.depth:
            return "function"
        if self.kind_stack:
            return self.kind_stack[-1]
        return "bottom" if self.seen_def else "top"

    def _add(self, target: str, line: int) -> None:
        self.info.imports.append(Import(target, line, self._kind()))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = _resolve(node, self.info.name, self.is_package)
        if not node.names or node.names[0].name == "*":
            self._add(base, node.lineno)
        for alias in node.names:
            if alias.name != "*":
                self._add(f"{base}.{alias.name}" if base else alias.name, node.lineno)

    def _function(self, node: ast.AST) -> None:
        if self.depth == 0 and not self.kind_stack and not self.class_depth:
            if getattr(node, "name", None) == "__getattr__":
                self.info.getattr_hook = True
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        if self.depth == 0 and not self.kind_stack and not self.class_depth:
            self.seen_def = True

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        # Imports in a class body run at import time like module-level ones.
        self.class_depth += 1
        self.generic_visit(node)
        self.class_depth -= 1
        if self.depth == 0 and not self.kind_stack:
            self.seen_def = True

    def visit_If(self, node: ast.If) -> None:
        if self.depth == 0 and _is_type_checking(node.test):
            self.kind_stack.append("type-checking")
            for child in node.body:
                self.visit(child)
            self.kind_stack.pop()
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Try(self, node: ast.Try) -> None:
        if any(_catches_import_error(h) for h in node.handlers):
            self.kind_stack.append("guarded")
            for child in node.body:
                self.visit(child)
            self.kind_stack.pop()
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                self.visit(child)
        else:
            self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_Assign(self, node: ast.Assign) -> None:
        if self.depth == 0 and not self.class_depth and _is_name_table(node.value):
            # ``_NAMES = frozenset({"Subtensor", ...})``: compared with a class name later
            self.name_tables.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if self.depth == 0 and not self.class_depth:
            names = {
                n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)
            }
            if "__getattr__" in names:  # ``__getattr__, __dir__ = lazy_exports(...)``
                self.info.getattr_hook = True
            if "_LAZY" in names:
                self.info.lazy_targets += [
                    c.value for c in ast.walk(node.value)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                    and is_own(c.value)
                ]
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if self.depth == 0 and not self.class_depth and isinstance(node.target, ast.Name):
            if node.target.id == "_LAZY" and node.value is not None:
                self.info.lazy_targets += [
                    c.value for c in ast.walk(node.value)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                    and is_own(c.value)
                ]
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
            isinstance(func, ast.Name) and func.id in {"import_module", "__import__"}
        ):
            self.info.dynamic_imports.append(node.lineno)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        names = any(
            _is_str_literal(o) or (isinstance(o, ast.Name) and o.id in self.name_tables)
            for o in operands
        )
        if any(_is_name_attr(o) for o in operands) and names:
            self.info.name_dispatch.append(node.lineno)
        self.generic_visit(node)


def scan_tree(src_root: Path, package: str) -> dict[str, ModuleInfo]:
    """Every module under ``src_root/package`` with its imports."""
    modules: dict[str, ModuleInfo] = {}
    for path in sorted((src_root / package).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = module_name(path, src_root)
        info = ModuleInfo(name, path, text.count("\n") + (not text.endswith("\n")))
        tree = ast.parse(text, str(path))
        _Collector(info, path.name == "__init__.py").visit(tree)
        info.functions = function_sizes(tree)
        info.c_strings = c_strings(tree)
        modules[name] = info
    return modules


def target_module(target: str, modules: dict[str, ModuleInfo]) -> str | None:
    """The project module an import target names (``pkg.mod.attr`` -> ``pkg.mod``)."""
    while target:
        if target in modules:
            return target
        target = target.rpartition(".")[0]
    return None


def is_own(target: str) -> bool:
    """A module of the project: the core (``opgraph``) or a plugin (``opgraph_*``)."""
    top = target.split(".")[0]
    return top == CORE or top.startswith(CORE + "_")


def is_core(target: str) -> bool:
    return target == CORE or target.startswith(CORE + ".")


# ---------------------------------------------------------------- counts


def _entry_point_import(module: str, target: str) -> bool:
    """A plugin's entry-point module (``<package>.plugin``) importing its own package.

    The one kind of hidden import allowed in plugins: opgraph loads every entry
    point when it first runs a hook, so ``plugin.py`` stays cheap and imports the
    package's code inside the hook that needs it (docs/architecture.md).
    """
    package, _, rest = module.partition(".")
    return (
        package.startswith(CORE + "_") and rest == "plugin"
        and (target == package or target.startswith(package + "."))
    )


def hidden_imports(info: ModuleInfo, documented: bool = False) -> list[Import]:
    """Imports of the project's own modules that are not at module top.

    ``documented`` keeps the documented exceptions (:data:`DOCUMENTED_IMPORTS`) too.
    """
    found = [
        i for i in info.imports
        if is_own(i.target) and i.kind in {"function", "bottom", "guarded"}
        and (documented or not _documented(info.name, i.target))
    ]
    # One per import statement (``from a import b, c`` is one import).
    return list({i.line: i for i in reversed(found)}.values())[::-1]


def _documented(module: str, target: str) -> bool:
    if _entry_point_import(module, target):
        return True
    return any(
        module == mod and (target == prefix or target.startswith(prefix + "."))
        for mod, prefix in DOCUMENTED_IMPORTS
    )


def import_graph(
    modules: dict[str, ModuleInfo], with_functions: bool = False, documented: bool = True
) -> dict[str, set[str]]:
    """Module -> modules it imports at import time (top, bottom, guarded).

    ``with_functions`` adds the imports inside functions: the dependencies the
    code really has, which the hidden imports only postpone; ``documented=False``
    leaves out the documented exceptions among them.
    """
    graph: dict[str, set[str]] = {name: set() for name in modules}
    skip = {"type-checking"} if with_functions else {"function", "type-checking"}
    for name, info in modules.items():
        for imp in info.imports:
            if imp.kind in skip or (not documented and _documented(name, imp.target)):
                continue
            target = target_module(imp.target, modules)
            if target and target != name:
                graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))
    return result


def _package_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else parts[0]


def _cross(component: list[str]) -> bool:
    return len({_package_of(m) for m in component}) > 1


def report(modules: dict[str, ModuleInfo]) -> dict[str, object]:
    hidden = {n: hidden_imports(i, documented=True) for n, i in modules.items()}
    comps = cycles(import_graph(modules))
    cross = [c for c in comps if len({_package_of(m) for m in c}) > 1]
    real = cycles(import_graph(modules, with_functions=True))
    return {
        "modules": len(modules),
        "function-level imports": sum(
            1 for imps in hidden.values() for i in imps if i.kind == "function"
        ),
        "imports below the first definition": sum(
            1 for imps in hidden.values() for i in imps if i.kind == "bottom"
        ),
        "try/except ImportError around own modules": sum(
            1 for imps in hidden.values() for i in imps if i.kind == "guarded"
        ),
        "module __getattr__": sum(1 for i in modules.values() if i.getattr_hook),
        "importlib.import_module calls": sum(len(i.dynamic_imports) for i in modules.values()),
        "class-name string dispatch": sum(len(i.name_dispatch) for i in modules.values()),
        "import cycles (SCCs)": len(comps),
        "modules in cycles": sum(len(c) for c in comps),
        "modules in cross-package cycles": sum(len(c) for c in cross),
        "modules in cycles, counting function-level": sum(len(c) for c in real),
        "  of them in cross-package cycles": sum(len(c) for c in real if _cross(c)),
        "  same, without the documented exceptions": sum(
            len(c) for c in cycles(import_graph(modules, True, documented=False)) if _cross(c)
        ),
        "upward imports at module top": len(upward_imports_in(modules, ROOT)),
    }


# ---------------------------------------------------------------- contract


def _lazy_within_package(info: ModuleInfo) -> bool:
    """A ``_LAZY`` table of the module's own package's submodules (loaded on first use).

    Packages (``opgraph.compile``, ``opgraph.graph``...) defer their submodules so
    that importing one submodule stays light; that is no upward dependency.
    """
    if not info.lazy_targets:
        return False
    package = info.name if info.path.name == "__init__.py" else info.name.rpartition(".")[0]
    return all(t == package or t.startswith(package + ".") for t in info.lazy_targets)


def read_debt(path: Path = DEBT_FILE) -> dict[str, int]:
    """Recorded debt: ``module count`` (hidden imports) or ``module __getattr__`` per line.

    A module ``__getattr__`` entry is stored under ``"module:__getattr__"``.
    """
    debt: dict[str, int] = {}
    if not path.is_file():
        return debt
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            module, count = line.split()
            if count == "__getattr__":
                debt[f"{module}:__getattr__"] = 1
            else:
                debt[module] = int(count)
    return debt


def check_core(
    modules: dict[str, ModuleInfo], debt: dict[str, int], root: Path = ROOT
) -> list[str]:
    """Every violation of the layer contract in the core's modules."""
    problems: list[str] = []

    def where(info: ModuleInfo, line: int) -> str:
        path = info.path.relative_to(root) if info.path.is_relative_to(root) else info.path
        return f"{path}:{line}"

    for name, info in sorted(modules.items()):
        for imp in info.imports:
            if (
                imp.target.split(".")[0].startswith("opgraph_")
                and (name, imp.target) not in CORE_PLUGIN_DEBT
            ):
                problems.append(f"{where(info, imp.line)}: the core imports plugin {imp.target}")
        hidden = hidden_imports(info)
        allowed = debt.get(name, 0)
        if len(hidden) < allowed:
            problems.append(
                f"{where(info, 1)}: {name} has {len(hidden)} hidden imports, fewer than the "
                f"{allowed} recorded in tools/layers_debt.txt: lower the count there"
            )
        if len(hidden) > allowed:
            lines = ", ".join(str(i.line) for i in hidden)
            problems.append(
                f"{where(info, hidden[0].line)}: {name} has {len(hidden)} hidden imports of "
                f"opgraph modules (function-level, below a definition or guarded; lines {lines}), "
                f"{allowed} allowed: import at module top, from this layer or below"
            )
        if not info.getattr_hook and f"{name}:__getattr__" in debt:
            problems.append(
                f"{where(info, 1)}: {name} no longer defines a module __getattr__: remove "
                "its line from tools/layers_debt.txt"
            )
        if (
            info.getattr_hook
            and name not in DOCUMENTED_GETATTR
            and f"{name}:__getattr__" not in debt
            and not _lazy_within_package(info)
        ):
            problems.append(f"{where(info, 1)}: {name} defines a module __getattr__")
        elif info.getattr_hook and info.lazy_targets and not _lazy_within_package(info):
            # even a documented hook loads only its own package's modules lazily
            problems.append(
                f"{where(info, 1)}: {name} defines a module __getattr__ whose _LAZY table "
                "names modules outside its package"
            )
        for line in info.name_dispatch:
            problems.append(
                f"{where(info, line)}: dispatch on a class-name string; use isinstance or a table"
            )
        rel = info.path.relative_to(root).as_posix() if info.path.is_relative_to(root) else ""
        if info.lines > MAX_LINES and rel not in SIZE_ALLOWLIST:
            problems.append(f"{where(info, 1)}: {info.lines} lines, over the cap of {MAX_LINES}")
    problems += upward_imports_in(modules, root)
    return problems


def upward_imports_in(modules: dict[str, ModuleInfo], root: Path) -> list[str]:
    out = []
    for name, info in sorted(modules.items()):
        own = layer_of(name)
        for imp in info.imports:
            if imp.kind in {"type-checking", "function"} or not is_own(imp.target):
                continue
            target = target_module(imp.target, modules)
            if target is None:
                continue
            # Importing a.b.c runs a/__init__ and a/b/__init__ first: they count too
            # (the root package ``opgraph`` excepted: it is loaded before anything else).
            parts = target.split(".")
            chain = [".".join(parts[:n]) for n in range(2, len(parts) + 1)]
            for dep in chain:
                if dep in modules and layer_of(dep) > own and not name.startswith(dep + "."):
                    path = info.path.relative_to(root) if info.path.is_relative_to(root) else (
                        info.path
                    )
                    via = "" if dep == target else f" (package of {target})"
                    out.append(
                        f"{path}:{imp.line}: {name} (layer {LAYERS[own][0]!r}) imports "
                        f"{dep}{via} (layer {LAYERS[layer_of(dep)][0]!r}): upward import"
                    )
                    break
    return out


def _normalize(name: str) -> str:
    return name.replace("_", "-").replace(".", "-").lower()


def _req_name(requirement: str) -> str:
    out = ""
    for ch in requirement.strip():
        if ch.isalnum() or ch in "-_.":
            out += ch
        else:
            break
    return _normalize(out)


def check_packages(root: Path = ROOT) -> list[str]:
    """Plugins and contrib packages: other packages only by their top-level name, if declared."""
    problems = []
    dirs = sorted(p.parent for parent in ("plugins", "contrib")
                  for p in (root / parent).glob("*/pyproject.toml"))
    import_names = {}
    for d in dirs:
        for pkg in (d / "src").glob("*/__init__.py"):
            import_names[pkg.parent.name] = d
    for d in dirs:
        data = tomllib.loads((d / "pyproject.toml").read_text(encoding="utf-8"))
        declared = {_req_name(r) for r in data.get("project", {}).get("dependencies", [])}
        for src in (d / "src").glob("*"):
            if not (src / "__init__.py").is_file():
                continue
            own = src.name
            for name, info in scan_tree(d / "src", own).items():
                for imp in info.imports:
                    top = imp.target.split(".")[0]
                    if top == own or top not in import_names or (name, imp.target) in PACKAGE_DEBT:
                        continue
                    rel = info.path.relative_to(root)
                    if imp.kind != "type-checking" and _normalize(top) not in declared:
                        problems.append(
                            f"{rel}:{imp.line}: {name} imports {top}, which "
                            f"{d.name}/pyproject.toml does not declare as a dependency"
                        )
                    parts = imp.target.split(".")
                    internal = len(parts) > 2 or (
                        (len(parts) == 2 and (import_names[top] / "src" / top / parts[1]).exists())
                        or (len(parts) == 2
                        and (import_names[top] / "src" / top / f"{parts[1]}.py").exists())
                    )
                    if internal:
                        problems.append(
                            f"{rel}:{imp.line}: {name} imports {imp.target}, an internal module "
                            f"of {top}: use names {top} exports at its top level"
                        )
    return problems


# ---------------------------------------------------------------- every package

PUBLIC_API_FILE = Path("core") / "opgraph" / "public_api.py"
FUNCTIONS_DEBT_FILE = ROOT / "tools" / "functions_debt.txt"


@dataclass
class Package:
    """One distribution of the tree: the core, a plugin or a contrib package."""

    label: str  # "core", "opgraph-c", "contrib/opgraph-special" ...
    directory: Path
    import_name: str
    modules: dict[str, ModuleInfo]

    @property
    def is_core(self) -> bool:
        return self.import_name == CORE


def all_packages(root: Path = ROOT) -> list[Package]:
    """The core, then every plugin and contrib package (directories with a pyproject.toml)."""
    out = [Package("core", root / "core", CORE, scan_tree(root / "core", CORE))]
    for parent in ("plugins", "contrib"):
        for toml in sorted((root / parent).glob("*/pyproject.toml")):
            for init in sorted((toml.parent / "src").glob("*/__init__.py")):
                label = toml.parent.name if parent == "plugins" else f"contrib/{toml.parent.name}"
                name = init.parent.name
                out.append(Package(label, toml.parent, name, scan_tree(toml.parent / "src", name)))
    return out


def public_modules(root: Path = ROOT) -> frozenset[str]:
    """``PUBLIC_MODULES`` of ``core/opgraph/public_api.py``, read without importing it."""
    path = root / PUBLIC_API_FILE
    if not path.is_file():
        return frozenset()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = (
            node.targets if isinstance(node, ast.Assign)
            else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "PUBLIC_MODULES" for t in targets):
            return frozenset(ast.literal_eval(node.value))  # type: ignore[arg-type]
    raise ValueError(f"{path}: no PUBLIC_MODULES tuple")


def _private(target: str) -> bool:
    return any(p.startswith("_") and not p.startswith("__") for p in target.split("."))


def core_imports(
    info: ModuleInfo, core: dict[str, ModuleInfo], public: frozenset[str]
) -> tuple[list[Import], list[Import]]:
    """A plugin module's imports of private core names, and of non-public core modules."""
    private, internal = [], []
    for imp in info.imports:
        if not is_core(imp.target):
            continue
        module = target_module(imp.target, core)
        if _private(imp.target):
            private.append(imp)
        elif module is not None and module not in public:
            internal.append(imp)
    return private, internal


def read_functions_debt(path: Path = FUNCTIONS_DEBT_FILE) -> dict[str, int]:
    """``module:qualname lines`` per line: the functions over the hard cap, as recorded."""
    debt: dict[str, int] = {}
    if path.is_file():
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = raw.split("#", 1)[0].strip()
            if line:
                key, count = line.split()
                debt[key] = int(count)
    return debt


def _where(info: ModuleInfo, line: int, root: Path) -> str:
    path = info.path.relative_to(root) if info.path.is_relative_to(root) else info.path
    return f"{path}:{line}"


def check_sizes(
    modules: dict[str, ModuleInfo], fdebt: dict[str, int], root: Path = ROOT
) -> list[str]:
    """Functions over the hard cap (beyond the recorded debt) and C held in long strings."""
    problems = []
    seen = set()
    for name, info in sorted(modules.items()):
        for fn in info.functions:
            key = f"{name}:{fn.qualname}"
            seen.add(key)
            allowed = fdebt.get(key)
            if allowed is not None and fn.lines <= MAX_FUNCTION_LINES:
                problems.append(
                    f"{_where(info, fn.line, root)}: {fn.qualname} is {fn.lines} lines now, "
                    f"under the cap: remove its line from tools/functions_debt.txt"
                )
            elif fn.lines > (allowed or MAX_FUNCTION_LINES):
                limit = f"its recorded {allowed}" if allowed else f"the cap of {MAX_FUNCTION_LINES}"
                problems.append(
                    f"{_where(info, fn.line, root)}: function {fn.qualname} is {fn.lines} "
                    f"lines, over {limit}: split it"
                )
        for cstr in info.c_strings:
            if cstr.lines >= MAX_C_STRING_LINES:
                problems.append(
                    f"{_where(info, cstr.line, root)}: {cstr.lines} lines of C in a Python "
                    "string: move fixed C to a .c/.h package data file "
                    "(opgraph.link.c.template.c_source)"
                )
    module_names = set(modules)
    for key in sorted(fdebt):
        if key not in seen and key.split(":")[0] in module_names:
            problems.append(f"tools/functions_debt.txt: {key} no longer exists: remove its line")
    return problems


def size_warnings(modules: dict[str, ModuleInfo], root: Path = ROOT) -> list[str]:
    """Modules and functions over the soft limits (printed by ``check``, not failures)."""
    out = []
    for _, info in sorted(modules.items()):
        if info.lines > SOFT_MODULE_LINES:
            out.append(f"{_where(info, 1, root)}: {info.lines} lines (aim < {SOFT_MODULE_LINES})")
        out += [
            f"{_where(info, fn.line, root)}: {fn.qualname} is {fn.lines} lines "
            f"(aim < {SOFT_FUNCTION_LINES})"
            for fn in info.functions if fn.lines > SOFT_FUNCTION_LINES
        ]
    return out


def check_plugin(
    package: Package, core: dict[str, ModuleInfo], public: frozenset[str],
    debt: dict[str, int], root: Path = ROOT,
) -> list[str]:
    """The core's rules applied to a plugin or contrib package, plus the public API rule."""
    problems: list[str] = []
    for name, info in sorted(package.modules.items()):
        private, internal = core_imports(info, core, public)
        problems += [
            f"{_where(info, i.line, root)}: {name} imports {i.target}, a private core name: "
            "use (or add) a public name in a module of opgraph.public_api.PUBLIC_MODULES"
            for i in private
        ]
        problems += [
            f"{_where(info, i.line, root)}: {name} imports {i.target}; "
            f"{target_module(i.target, core)} is not a public core module "
            "(opgraph.public_api.PUBLIC_MODULES)"
            for i in internal
        ]
        hidden = hidden_imports(info)
        allowed = debt.get(name, 0)
        if len(hidden) != allowed:
            lines = ", ".join(str(i.line) for i in hidden)
            problems.append(
                f"{_where(info, hidden[0].line if hidden else 1, root)}: {name} has "
                f"{len(hidden)} hidden imports of opgraph modules (lines {lines or '-'}), "
                f"{allowed} recorded in tools/layers_debt.txt: "
                + ("import at module top" if len(hidden) > allowed else "lower the count there")
            )
        problems += [
            f"{_where(info, line, root)}: dispatch on a class-name string; "
            "use isinstance or a table"
            for line in info.name_dispatch
        ]
        if info.lines > MAX_LINES:
            problems.append(
                f"{_where(info, 1, root)}: {info.lines} lines, over the cap of {MAX_LINES}"
            )
    for comp in cycles(import_graph(package.modules)):
        problems.append(f"{package.label}: import cycle at module top: {' <-> '.join(comp)}")
    return problems


def check_all(root: Path = ROOT) -> list[str]:
    """Every problem of every package (what ``layers.py check`` prints)."""
    packages = all_packages(root)
    core = packages[0].modules
    public = public_modules(root)
    debt = read_debt(root / "tools" / "layers_debt.txt")
    fdebt = read_functions_debt(root / "tools" / "functions_debt.txt")
    problems = check_core(core, debt, root)
    for package in packages:
        if not package.is_core:
            problems += check_plugin(package, core, public, debt, root)
        problems += check_sizes(package.modules, fdebt, root)
    problems += check_packages(root)
    return list(dict.fromkeys(problems))


def package_report(root: Path = ROOT) -> list[tuple[str, dict[str, int]]]:
    """Per package: the counts the issue-32 contract is measured by."""
    packages = all_packages(root)
    core = packages[0].modules
    public = public_modules(root)
    rows = []
    for package in packages:
        mods = package.modules.values()
        private = internal = 0
        internal_modules: set[str] = set()
        if not package.is_core:
            for info in mods:
                p, i = core_imports(info, core, public)
                private += len(p)
                internal += len(i)
                internal_modules |= {target_module(x.target, core) or x.target for x in i}
        hidden = [h for info in mods for h in hidden_imports(info, documented=True)]
        rows.append((package.label, {
            "modules": len(package.modules),
            "function-level imports": sum(1 for h in hidden if h.kind == "function"),
            "other hidden imports": sum(1 for h in hidden if h.kind != "function"),
            "private core names imported": private,
            "non-public core modules imported": len(internal_modules),
            "cycles (SCCs at module top)": len(cycles(import_graph(package.modules))),
            "class-name dispatch": sum(len(i.name_dispatch) for i in mods),
            f"modules > {SOFT_MODULE_LINES} lines": sum(
                1 for i in mods if i.lines > SOFT_MODULE_LINES
            ),
            f"functions > {SOFT_FUNCTION_LINES} lines": sum(
                1 for i in mods for f in i.functions if f.lines > SOFT_FUNCTION_LINES
            ),
            f"functions > {MAX_FUNCTION_LINES} lines": sum(
                1 for i in mods for f in i.functions if f.lines > MAX_FUNCTION_LINES
            ),
            "lines of C in Python strings": sum(c.lines for i in mods for c in i.c_strings),
        }))
    return rows


def print_package_report(root: Path = ROOT) -> None:
    rows = package_report(root)
    keys = list(rows[0][1])
    width = max(len(label) for label, _ in rows) + 2
    print(f"{'per package':{width}}" + "".join(f"{i + 1:>5}" for i in range(len(keys))))
    for label, row in rows:
        print(f"{label:{width}}" + "".join(f"{row[k]:>5}" for k in keys))
    totals = {k: sum(r[k] for _, r in rows) for k in keys}
    print(f"{'total':{width}}" + "".join(f"{totals[k]:>5}" for k in keys))
    for i, k in enumerate(keys):
        print(f"  {i + 1:>2} {k}")


def core_modules(root: Path = ROOT) -> dict[str, ModuleInfo]:
    return scan_tree(root / "core", CORE)


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["report", "check", "cycles", "hidden", "debt"])
    args = parser.parse_args(list(argv) if argv is not None else None)
    modules = core_modules()
    if args.command == "report":
        print("core")
        for key, value in report(modules).items():
            print(f"  {key:45} {value}")
        print_package_report()
        return 0
    if args.command == "cycles":
        for comp in cycles(import_graph(modules, with_functions=True)):
            print(len(comp), " ".join(comp))
        return 0
    if args.command == "hidden":
        for info in modules.values():
            for imp in hidden_imports(info, documented=True):
                print(f"{info.path.relative_to(ROOT)}:{imp.line}: {imp.kind} {imp.target}")
        return 0
    if args.command == "debt":
        # Print the current hidden-import counts in the debt file's format.
        for name, info in sorted(modules.items()):
            count = len(hidden_imports(info))
            if count:
                print(f"{name} {count}")
            if info.getattr_hook and name not in DOCUMENTED_GETATTR:
                print(f"{name} __getattr__")
        return 0
    for warning in [w for p in all_packages() for w in size_warnings(p.modules)]:
        print(f"warning: {warning}", file=sys.stderr)
    problems = check_all()
    for problem in problems:
        print(problem)
    print(f"{len(problems)} layer-contract problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
