"""The import finder that makes ``pytensor`` and ``pytensor.*`` the modules of ``opgraph``.

Why a meta-path finder and not a ``pytensor`` package of re-exports: a copy
of a module (``from opgraph.tensor import *`` under another name) would give
every class two identities, and PyTensor clients test ``isinstance`` against
classes reached through many paths.  The finder answers for ``pytensor`` and
every dotted name below it by importing the ``opgraph`` module of the same
path and returning that very object, so ``sys.modules["pytensor.tensor"] is
sys.modules["opgraph.tensor"]``.

It sits at the front of ``sys.meta_path``, ahead of the path finder, so an
installed PyTensor wheel is never imported while it is active.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from collections.abc import MutableMapping, Sequence
from types import ModuleType

ALIAS = "pytensor"
TARGET = "opgraph"
PYTENSOR_VERSION = "3.0.7"
"""The PyTensor release whose API this layer serves (PyMC 6.0.x pairs with PyTensor 3.0.x)."""
ENV_VAR = "OPGRAPH_AS_PYTENSOR"
"""``OPGRAPH_AS_PYTENSOR=0`` (or false/no/off) in the environment: the finder is not installed."""
_OFF = frozenset({"0", "false", "no", "off"})

LOGGER_NAME = "opgraph.pytensor"
"""The logger the one-line notice goes to (INFO) when ``import pytensor`` is first served."""


def enabled_by_environment(environ: dict[str, str] | None = None) -> bool:
    """Whether ``OPGRAPH_AS_PYTENSOR`` (default on) asks for the alias."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "1")
    return value.strip().lower() not in _OFF


def target_name(fullname: str) -> str:
    """``pytensor.x.y`` -> ``opgraph.x.y``."""
    return TARGET + fullname[len(ALIAS) :]


# The finder and loader classes are duck-typed, not subclasses of importlib.abc's:
# importing importlib.abc pulls in importlib.resources and pathlib (~50 ms at start-up).


class _ExistingModule:
    """Returns an already imported opgraph module; the import system must not rebind it.

    ``module_from_spec`` overwrites ``__spec__`` with the alias spec, so
    ``exec_module`` puts the module's own spec back: ``opgraph.x.__spec__.name``
    stays ``"opgraph.x"`` (``importlib.reload``, pickling by reference and
    ``python -m`` read it).
    """

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.own_spec = getattr(module, "__spec__", None)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        if self.own_spec is not None:
            module.__spec__ = self.own_spec


class PyTensorAlias:
    """Answers imports of ``pytensor`` and ``pytensor.*`` with opgraph's module objects."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        name = target_name(fullname)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise  # something the opgraph module itself imports is missing
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: opgraph has no module {name!r}"
                " (the opgraph-pytensor compatibility layer serves pytensor from opgraph;"
                f" {ENV_VAR}=0 turns it off)",
                name=fullname,
            ) from None
        if fullname == ALIAS:
            _announce(module)
        if hasattr(module, "__path__"):
            alias_shadowed_submodules(fullname, module)
        return importlib.machinery.ModuleSpec(fullname, _ExistingModule(module))


def alias_shadowed_submodules(alias: str, package: ModuleType) -> None:
    """Register ``alias.child`` for each loaded submodule whose name the package rebinds.

    ``pytensor.tensor.shape`` is the function ``shape``, as in PyTensor (its
    package binds the function over the submodule's name).  A first import of
    the alias ``pytensor.tensor.shape`` would make the import system set the
    submodule as that attribute of the package, replacing the function
    (PyMC then calls ``pt.shape(x)`` and gets ``'module' object is not
    callable``).  Registered here, the alias is found in ``sys.modules`` and
    nothing is rebound.
    """
    # The package's namespace, not sys.modules, is walked: it is the smaller of the two
    # and this runs for every aliased package while PyMC imports (~1400 modules).
    prefix = package.__name__ + "."
    modules = sys.modules
    for child, bound in list(vars(package).items()):
        sub = modules.get(prefix + child)
        if sub is not None and bound is not None and bound is not sub:
            modules.setdefault(f"{alias}.{child}", sub)


def _announce(module: ModuleType) -> None:
    """Log, once per process, that pytensor is opgraph (and which wheel it shadows).

    ``logging`` and the distribution look-up (``importlib.metadata``, tens of ms)
    are paid only when the notice is shown: the ``.pth`` line and ``import
    pymc`` stay light otherwise.
    """
    import logging  # standard library, deferred: see the docstring

    log = logging.getLogger(LOGGER_NAME)
    if not log.isEnabledFor(logging.INFO):
        return
    shadowed = shadowed_pytensor()
    where = f"; the PyTensor {shadowed} distribution installed here is not used" if shadowed else ""
    log.info(
        "pytensor is served by opgraph %s (%s), PyTensor %s API%s",
        getattr(module, "__version__", "?"),
        getattr(module, "__file__", "?"),
        PYTENSOR_VERSION,
        where,
    )


def shadowed_pytensor() -> str | None:
    """The version of a PyTensor distribution installed beside this layer, if any."""
    import importlib.metadata  # standard library, deferred (~20 ms at interpreter start-up)

    try:
        return importlib.metadata.version("pytensor")
    except importlib.metadata.PackageNotFoundError:
        return None


def installed_finder() -> PyTensorAlias | None:
    """The finder on ``sys.meta_path``, if installed."""
    return next((f for f in sys.meta_path if isinstance(f, PyTensorAlias)), None)


def install() -> PyTensorAlias:
    """Put the finder at the front of ``sys.meta_path`` (idempotent); returns it."""
    finder = installed_finder()
    if finder is None:
        finder = PyTensorAlias()
        sys.meta_path.insert(0, finder)
    return finder


PYTENSOR_FLAGS_ENV = "PYTENSOR_FLAGS"
PYTENSOR_RC_ENV = "PYTENSORRC"
PYTENSOR_DEFAULT_RC = "~/.pytensorrc"


def _prepend(environ: MutableMapping[str, str], name: str, first: str,
             default: str, sep: str) -> None:
    own = environ.get(name, default)
    if own == first or own.startswith(first + sep):  # already adopted (a child process)
        return
    environ[name] = f"{first}{sep}{own}" if own else first


def adopt_pytensor_settings(environ: MutableMapping[str, str] | None = None) -> None:
    """Make PyTensor's settings apply to the opgraph that ``import pytensor`` returns.

    A PyMC user configures PyTensor (``PYTENSOR_FLAGS=floatX=float32``, a
    ``~/.pytensorrc``), not opgraph.  They become the lower-priority part of
    ``OPGRAPH_FLAGS`` and ``OPGRAPHRC`` (opgraph's own settings still win), in
    this process and the processes it starts (PyMC's parallel chains).
    """
    env = os.environ if environ is None else environ
    flags = env.get(PYTENSOR_FLAGS_ENV, "").strip()
    if flags:
        _prepend(env, "OPGRAPH_FLAGS", flags, "", ",")
    rc = env.get(PYTENSOR_RC_ENV)
    if rc is None and os.path.exists(os.path.expanduser(PYTENSOR_DEFAULT_RC)):
        rc = PYTENSOR_DEFAULT_RC
    if rc:
        _prepend(env, "OPGRAPHRC", rc, "~/.opgraphrc", os.pathsep)


def install_from_environment() -> PyTensorAlias | None:
    """What the ``.pth`` line runs: install unless ``OPGRAPH_AS_PYTENSOR=0``.

    Installed, PyTensor's settings are adopted too (``adopt_pytensor_settings``).
    """
    if not enabled_by_environment():
        return None
    adopt_pytensor_settings()
    return install()


def uninstall() -> None:
    """Remove the finder and forget the ``pytensor`` aliases already imported (for tests).

    Modules are only unbound from their ``pytensor`` names; opgraph's entries stay.
    """
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, PyTensorAlias)]
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        module = sys.modules[name]
        if getattr(module, "__name__", "").startswith(TARGET):
            del sys.modules[name]
