"""PyTensor module paths whose code lives in a plugin (``opgraph.graph.rewriting.db``, ...).

PyTensor code imports ``pytensor.graph.rewriting.db`` or
``pytensor.tensor.linalg.decomposition.cholesky``.  In opgraph the code behind
such a path belongs to a plugin (the rewrite database, OpFromGraph, linear
algebra), and the core never imports a plugin.  The plugin declares the path
through the ``opgraph_public_modules`` hook; this module's import finder then
makes ``opgraph.<path>`` (and every submodule below it) *the same module
objects* as the plugin's, so a class has one identity under both names.

:data:`FACES` lists the paths the core knows are served by a plugin, with the
distribution that serves them: an import under one of them is routed here
before the file system is searched (the plugin's package is the only source),
and when no installed plugin serves it, the ``ImportError`` names the
distribution to install.  Plugins may declare other paths too; those are
found when no file of the core holds them.

The plugin manager is imported when a face is first imported, by module name
(``importlib``), not at the top of this module: ``import opgraph`` installs
the finder and must stay light (no pluggy, no entry point scan).  That lazy
import is the one documented exception to the import-at-top rule here.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = ["FACES", "NAME_FACES", "FaceFinder", "MissingPluginName", "install", "provided_name"]

FACES: dict[str, str] = {
    "opgraph.graph.rewriting.db": "opgraph-rewrites",
    "opgraph.compile.builders": "opgraph-ofg",
    "opgraph.tensor.linalg": "opgraph-linalg",
    "opgraph.tensor.slinalg": "opgraph-linalg",
    "opgraph.tensor.nlinalg": "opgraph-linalg",
    "opgraph.sparse": "opgraph-sparse",
    "opgraph.xtensor": "opgraph-xtensor",
    "opgraph.link.jax": "opgraph-jax",
}
"""Module paths served by a plugin, and the distribution that serves each."""

_MANAGER_MODULE = "opgraph.plugins.manager"


def _prefix_of(fullname: str, prefixes: Any) -> str | None:
    """The served path ``fullname`` is, or lies below, if any."""
    name = fullname
    while True:
        if name in prefixes:
            return name
        name, dot, _ = name.rpartition(".")
        if not dot:
            return None


# The finder and loader classes are duck-typed, not subclasses of importlib.abc's:
# importing importlib.abc pulls in importlib.resources and pathlib (~50 ms at start-up).


class _AliasLoader:
    """Loads a face by importing the plugin's module and returning that object."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the plugin's module was executed under its own name."""


class FaceFinder:
    """Routes imports of plugin-served ``opgraph.*`` paths to the plugin's modules.

    One instance sits at the front of ``sys.meta_path`` and answers only for
    paths under :data:`FACES` or already resolved ones (a string check for any
    other import); a second sits at the end and asks the plugins about
    ``opgraph.*`` paths nothing else found.
    """

    def __init__(self, *, ask_plugins: bool) -> None:
        self.ask_plugins = ask_plugins

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("opgraph."):
            return None
        prefix = _prefix_of(fullname, _SERVED) or _prefix_of(fullname, FACES)
        if prefix is None and not self.ask_plugins:
            return None
        served = _served_paths()
        if prefix is None:
            prefix = _prefix_of(fullname, served)
            if prefix is None:
                return None
        if prefix not in served:
            raise ModuleNotFoundError(_missing_message(fullname, prefix), name=fullname)
        target_name = served[prefix] + fullname[len(prefix) :]
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target_name))


_SERVED: dict[str, str] = {}
"""Paths resolved so far: face path -> the plugin module serving it."""


def _served_paths() -> dict[str, str]:
    manager = importlib.import_module(_MANAGER_MODULE)
    for path, record in manager.public_module_records().items():
        if not record.names:
            _SERVED.setdefault(path, record.target)
    return _SERVED


def _missing_message(fullname: str, prefix: str) -> str:
    manager = importlib.import_module(_MANAGER_MODULE)
    dist = FACES.get(prefix, "")
    hint = manager.provider_hint(prefix, dist=dist) if dist else None
    return f"No module named {fullname!r}: {hint or 'no installed opgraph plugin serves it'}"


NAME_FACES: dict[str, dict[str, str]] = {
    "opgraph.tensor": dict.fromkeys(
        (
            "betainc",
            "betaincinv",
            "betaln",
            "chi2sf",
            "digamma",
            "erf",
            "erfc",
            "erfcinv",
            "erfcx",
            "erfinv",
            "gamma",
            "gammainc",
            "gammaincc",
            "gammainccinv",
            "gammaincinv",
            "gammal",
            "gammaln",
            "gammau",
            "hyp2f1",
            "i0",
            "i1",
            "iv",
            "ive",
            "j0",
            "j1",
            "jv",
            "kn",
            "kv",
            "kve",
            "log_ndtr",
            "owens_t",
            "polygamma",
            "psi",
            "tri_gamma",
            "xlog1py",
            "xlogy",
        ),
        "opgraph-special",
    ),
    "opgraph.scalar": dict.fromkeys(
        ("Erf", "Erfc", "Erfcx", "PolyGamma", "Psi", "TriGamma"), "opgraph-special"
    ),
}
"""Names of core modules that a plugin provides (PyTensor's ``pt.erf``...), per module."""


class MissingPluginName:
    """What ``pt.erf`` is when no installed plugin provides it: using it says which one to install.

    A placeholder rather than an ``AttributeError``, so ``from opgraph.tensor import
    erf`` succeeds and the error, when the function is called, names the distribution.
    """

    def __init__(self, module: str, name: str, distribution: str) -> None:
        self.module, self.name, self.distribution = module, name, distribution

    def message(self) -> str:
        """Why this name is unavailable here, and what to install."""
        manager = importlib.import_module(_MANAGER_MODULE)
        hint = manager.provider_hint(f"{self.module}.{self.name}", dist=self.distribution)
        return f"{self.module}.{self.name}: {hint}"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ImportError(self.message(), name=self.module)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise ImportError(self.message(), name=self.module)

    def __repr__(self) -> str:
        return f"<{self.module}.{self.name}: provided by {self.distribution}, not available>"


def provided_name(module: str, name: str) -> Any:
    """The plugin-provided attribute ``name`` of the core module ``module``.

    Resolves through the ``opgraph_public_modules`` records that carry names;
    a name the core expects from a plugin that is not in use gives a
    :class:`MissingPluginName`; any other name raises ``AttributeError``.
    """
    manager = importlib.import_module(_MANAGER_MODULE)
    record = manager.public_module_records().get(f"{module}.{name}")
    if record is not None:
        target = importlib.import_module(record.target)
        # a record for the whole submodule (``pt.linalg``) is the module itself
        return getattr(target, name) if record.names else target
    dist = NAME_FACES.get(module, {}).get(name)
    if dist is not None:
        return MissingPluginName(module, name, dist)
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


def install() -> None:
    """Put the finders on ``sys.meta_path`` once (front: known faces; end: any)."""
    if any(isinstance(f, FaceFinder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, FaceFinder(ask_plugins=False))
    sys.meta_path.append(FaceFinder(ask_plugins=True))
