"""PyTensor's names for the mode machinery, over opgraph's tables.

PyTensor code reaches modes through ``compile.mode``: the ``OPT_*`` queries,
the ``predefined_*`` dicts and their ``register_*`` functions, the backend
Mode objects (``C``, ``JAX``, ``NUMBA``, ...), ``AddFeatureOptimizer``.
They live here, apart from the resolver, as names for what the resolver
already has: ``predefined_optimizers`` *is* :data:`~opgraph.compile.query.STANDARD_QUERIES`,
``predefined_linkers`` :data:`~opgraph.compile.linkers.NAMED_LINKERS`,
``predefined_modes`` :data:`~opgraph.compile.resolver.REGISTERED_MODES`.
"""

from __future__ import annotations

from typing import Any

from opgraph.compile.linkers import NAMED_LINKERS
from opgraph.compile.moderecord import Mode
from opgraph.compile.query import STANDARD_QUERIES, RewriteQuery
from opgraph.compile.resolver import REGISTERED_MODES, get_mode
from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.link.basic import Linker

__all__ = [
    "CVM",
    "EXTRA_BEFORE_POSITION",
    "JAX",
    "JAX_EXCLUDE",
    "MLX",
    "NUMBA",
    "OPT_FAST_COMPILE",
    "OPT_FAST_RUN",
    "OPT_FAST_RUN_STABLE",
    "OPT_MERGE",
    "OPT_MINIMUM",
    "OPT_NONE",
    "OPT_O2",
    "OPT_O3",
    "OPT_STABILIZE",
    "OPT_UNSAFE",
    "PYTORCH",
    "VM",
    "AddDestroyHandler",
    "AddFeatureOptimizer",
    "C",
    "PrintCurrentFunctionGraph",
    "fast_run_linkers_to_mode",
    "predefined_linkers",
    "predefined_mode",
    "predefined_modes",
    "predefined_optimizers",
    "register_linker",
    "register_mode",
    "register_optimizer",
]

# -- the optimizer names ------------------------------------------------------------------
predefined_optimizers = STANDARD_QUERIES
"""Optimizer names ``Mode(optimizer=...)`` accepts (the resolver's table, under PyTensor's name)."""
predefined_linkers = NAMED_LINKERS
"""Linker objects registered by name with :func:`register_linker`."""
predefined_modes = REGISTERED_MODES
"""Mode objects registered by name with :func:`register_mode`."""

OPT_NONE = RewriteQuery()
"""No rewrites."""
OPT_MERGE = STANDARD_QUERIES["merge"]
"""Only the merge of equal nodes."""
OPT_MINIMUM = STANDARD_QUERIES["minimum_compile"]
"""minimum_compile: the merges plus what every graph needs to run (xtensor lowering)."""
OPT_FAST_RUN = STANDARD_QUERIES["fast_run"]
"""The rewrite query of FAST_RUN: every rewrite tagged ``fast_run``."""
OPT_FAST_RUN_STABLE = STANDARD_QUERIES["fast_run_stable"]
"""FAST_RUN's rewrites that are tagged ``stable``."""
OPT_FAST_COMPILE = STANDARD_QUERIES["fast_compile"]
"""The rewrite query of FAST_COMPILE: the rewrites tagged ``fast_compile``."""
OPT_STABILIZE = STANDARD_QUERIES["stabilize"]
"""FAST_RUN without the specialize phase: the numerically stabilising rewrites."""
OPT_UNSAFE = STANDARD_QUERIES["unsafe"]
"""The rewrites tagged ``unsafe`` (they may drop checks)."""
OPT_O2 = STANDARD_QUERIES["o2"]
"""FAST_COMPILE plus elementwise fusion (PyTensor's ``O2``)."""
OPT_O3 = STANDARD_QUERIES["o3"]
"""FAST_RUN without in-place rewrites (PyTensor's ``O3``)."""

EXTRA_BEFORE_POSITION = 50.0
"""PyTensor ``Mode.register`` positions below this run before the database rewrites."""


def register_optimizer(name: str, opt: Any) -> None:
    """Make ``Mode(optimizer=name)`` use ``opt`` (a query or a GraphRewriter)."""
    if name in predefined_optimizers:
        raise ValueError(f"optimizer name {name!r} is already registered")
    predefined_optimizers.register(name, opt, stacklevel=2)


def register_linker(name: str, linker: Linker) -> None:
    """Make ``Mode(linker=name)`` use ``linker``."""
    if name in predefined_linkers:
        raise ValueError(f"linker name {name!r} is already registered")
    if not isinstance(linker, Linker):
        raise TypeError(f"register_linker({name!r}): expected a Linker, got {linker!r}")
    predefined_linkers.register(name, linker, stacklevel=2)


def register_mode(name: str, mode: Mode) -> None:
    """Make ``get_mode(name)`` (and ``function(..., mode=name)``) return ``mode``."""
    if name in predefined_modes:
        raise ValueError(f"mode name {name!r} is already registered")
    if not isinstance(mode, Mode):
        raise TypeError(f"register_mode({name!r}): expected a Mode, got {mode!r}")
    predefined_modes.register(name, mode, stacklevel=2)


# -- rewriters a Mode can register ---------------------------------------------------------
class AddFeatureOptimizer:
    """A graph rewriter whose only job is to attach a Feature to the graph.

    ``Mode.register((AddFeatureOptimizer(feature), position))`` attaches
    ``feature`` (e.g. ``NoOutputFromInplace``) before the rewrites that
    follow ``position`` run.
    """

    def __init__(self, feature: Any) -> None:
        self.feature = feature

    def add_requirements(self, fgraph: Any) -> None:
        fgraph.attach_feature(self.feature)

    def apply(self, fgraph: Any) -> None:
        """Nothing to do: the Feature was attached by ``add_requirements``."""

    def rewrite(self, fgraph: Any, *args: Any, **kwargs: Any) -> None:
        self.add_requirements(fgraph)
        self.apply(fgraph)

    def __repr__(self) -> str:
        return f"AddFeatureOptimizer({self.feature!r})"


class AddDestroyHandler(AddFeatureOptimizer):
    """Attach a DestroyHandler (``function`` does this itself whenever rewrites run)."""

    def __init__(self) -> None:
        super().__init__(None)

    def add_requirements(self, fgraph: Any) -> None:
        if not any(isinstance(f, DestroyHandler) for f in getattr(fgraph, "_features", ())):
            fgraph.attach_feature(DestroyHandler())


class PrintCurrentFunctionGraph(AddFeatureOptimizer):
    """A debugging rewriter: prints ``header`` and the graph where it is registered."""

    def __init__(self, header: str) -> None:
        super().__init__(None)
        self.header = header

    def add_requirements(self, fgraph: Any) -> None:
        """Needs nothing of the graph."""

    def apply(self, fgraph: Any) -> None:
        print("PrintCurrentFunctionGraph:", self.header)
        fgraph.dprint()

    def __repr__(self) -> str:
        return f"PrintCurrentFunctionGraph({self.header!r})"


# -- PyTensor's backend Mode objects --------------------------------------------------------
JAX_EXCLUDE: tuple[str, ...] = ("cxx_only", "BlasOpt", "blas", "fusion", "inplace",
                                "scan_save_mem_prealloc")
"""Rewrite tags the JAX mode leaves out (XLA fuses and updates buffers itself)."""

JAX = Mode(linker="jax", optimizer=RewriteQuery(include=("fast_run", "jax"), exclude=JAX_EXCLUDE),
           name="JAX")
"""PyTensor's ``compile.mode.JAX``: linker ``"jax"`` from the opgraph-jax plugin, resolved
on first use (without the plugin, using it raises ``BackendNotInstalledError``)."""
NUMBA = Mode(linker="numba", optimizer=RewriteQuery(include=("fast_run", "numba")), name="NUMBA")
"""PyTensor's ``compile.mode.NUMBA``: linker ``"numba"``, which no opgraph plugin has yet
(using it raises ``BackendNotInstalledError``; ``get_mode("NUMBA")`` may be served)."""
PYTORCH = Mode(linker="pytorch", optimizer=OPT_FAST_RUN, name="PYTORCH")
"""PyTensor's ``compile.mode.PYTORCH``: linker ``"pytorch"`` (no opgraph plugin yet)."""
MLX = Mode(linker="mlx", optimizer=RewriteQuery(include=("fast_run", "mlx")), name="MLX")
"""PyTensor's ``compile.mode.MLX``: linker ``"mlx"`` (no opgraph plugin yet)."""

C = Mode(linker="c", optimizer=OPT_FAST_RUN, name="C")
"""PyTensor's ``compile.mode.C``: the C linker (opgraph-c) with FAST_RUN's rewrites."""
CVM = Mode(linker="cvm", optimizer=OPT_FAST_RUN, name="CVM")
"""PyTensor's ``compile.mode.CVM``: the VM over C thunks with FAST_RUN's rewrites."""
VM = Mode(linker="vm", optimizer=OPT_FAST_RUN, name="VM")
"""PyTensor's ``compile.mode.VM``: the Python VM with FAST_RUN's rewrites (a Mode; PyTensor's
is a one-element tuple by accident)."""

fast_run_linkers_to_mode: dict[str, Mode] = {"cvm": CVM, "vm": VM, "numba": NUMBA}
"""PyTensor's table of FAST_RUN's possible linkers to the Mode of each."""


# -- FAST_RUN / FAST_COMPILE as objects ------------------------------------------------------
_OBJECTS: dict[str, Mode] = {}
_DOCS = {
    "FAST_RUN": "The FAST_RUN Mode: every standard rewrite, the C linker if usable.",
    "FAST_COMPILE": "The FAST_COMPILE Mode: few rewrites and the Python VM, quick to compile.",
}


def predefined_mode(name: str) -> Mode:
    """PyTensor's ``compile.mode.FAST_RUN`` / ``FAST_COMPILE`` objects, built on first use.

    The object is ``get_mode(name)`` of the plugins in use when first read, then kept.
    """
    mode = _OBJECTS.get(name)
    if mode is None:
        mode = _OBJECTS[name] = get_mode(name)
        mode.__doc__ = _DOCS[name]
    return mode
