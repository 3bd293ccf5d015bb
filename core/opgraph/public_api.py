"""The core modules a plugin or contrib package may import: opgraph's public API.

The rule (checked by ``tools/layers.py`` in the ``lint`` session, stated in
docs/architecture.md, "The public API"): a package under ``plugins/`` or
``contrib/`` imports the core only from a module named in
:data:`PUBLIC_MODULES`, and only names without a leading underscore.  Every
other core module is internal, the way ``jax/_src`` is behind ``jax.*``: it
may be split, merged or renamed without notice.  A name a plugin needs from
an internal module is re-exported under a public name in a listed module
(``AllocEmpty`` from ``opgraph.tensor.basic``, the plugin machinery from
``opgraph.plugins``).

A module is listed when it is the documented home of names that plugins build
on: the graph and its rewriting tools, the op classes and types, the plugin
seam.  A package entry (``opgraph.tensor``) does not make its submodules
public.  Adding a module here is a decision about the API: add it to the
table in docs/architecture.md too (``tests/test_public_api.py`` compares).
"""

from __future__ import annotations

__all__ = ["PUBLIC_MODULES", "is_public_module"]

PUBLIC_MODULES: tuple[str, ...] = (
    # the top level and its configuration
    "opgraph",
    "opgraph.basic",
    "opgraph.config",
    "opgraph.gradient",
    "opgraph.printing",
    "opgraph.ifelse",
    "opgraph.raise_op",
    "opgraph.utils",
    # the plugin seam: hook markers, records, the manager's functions, phases
    "opgraph.plugins",
    # graphs, ops, types and rewriting
    "opgraph.graph.basic",
    "opgraph.graph.destroyhandler",
    "opgraph.graph.features",
    "opgraph.graph.fg",
    "opgraph.graph.function_table",
    "opgraph.graph.table",
    "opgraph.graph.null_type",
    "opgraph.graph.op",
    "opgraph.graph.replace",
    "opgraph.graph.signature",
    "opgraph.graph.traversal",
    "opgraph.graph.type",
    "opgraph.graph.utils",
    "opgraph.graph.rewriting.basic",
    "opgraph.graph.rewriting.inplace_inputs",
    "opgraph.graph.rewriting.merge",
    "opgraph.graph.rewriting.pattern",
    "opgraph.graph.rewriting.walking",
    # gradients, linking, compiling
    "opgraph.autodiff.arith",
    "opgraph.autodiff.undefined",
    "opgraph.autodiff.vectorize",
    "opgraph.link.basic",
    "opgraph.link.c.template",
    "opgraph.link.sharedvalue",
    "opgraph.link.vm",
    "opgraph.compile.database",
    "opgraph.compile.function",
    "opgraph.compile.io",
    "opgraph.compile.mode",
    "opgraph.compile.ops",
    "opgraph.compile.sharedvalue",
    # structural matrix facts
    "opgraph.assumptions",
    # scalar ops
    "opgraph.scalar",
    "opgraph.scalar.arith",
    "opgraph.scalar.basic",
    "opgraph.scalar.complex",
    "opgraph.scalar.composite",
    "opgraph.scalar.gradhelpers",
    "opgraph.scalar.logic",
    "opgraph.scalar.loop",
    "opgraph.scalar.math",
    "opgraph.scalar.structural",
    "opgraph.scalar.type",
    # tensor ops and types
    "opgraph.tensor",
    "opgraph.tensor.advanced",
    "opgraph.tensor.basic",
    "opgraph.tensor.blas",
    "opgraph.tensor.blas_c",
    "opgraph.tensor.batching_index",
    "opgraph.tensor.blockwise",
    "opgraph.tensor.constant_value",
    "opgraph.tensor.contractions",
    "opgraph.tensor.creation",
    "opgraph.tensor.einsum",
    "opgraph.tensor.elemwise",
    "opgraph.tensor.exceptions",
    "opgraph.tensor.extra_ops",
    "opgraph.tensor.ifelse",
    "opgraph.tensor.indexing",
    "opgraph.tensor.join",
    "opgraph.tensor.math",
    "opgraph.tensor.math_docs",
    "opgraph.tensor.pad",
    "opgraph.tensor.products",
    "opgraph.tensor.random.basic",
    "opgraph.tensor.random.op",
    "opgraph.tensor.random.type",
    "opgraph.tensor.reduction",
    "opgraph.tensor.reshape",
    "opgraph.tensor.shape",
    "opgraph.tensor.signal",
    "opgraph.tensor.signal.conv",
    "opgraph.tensor.sort",
    "opgraph.tensor.special",
    "opgraph.tensor.subtensor",
    "opgraph.tensor.type",
    "opgraph.tensor.type_other",
    "opgraph.tensor.ufuncs",
    "opgraph.tensor.variable",
    # scan
    "opgraph.scan.op",
    "opgraph.scan.utils",
)
"""Every core module a plugin may import, by package, low layer to high."""


def is_public_module(name: str) -> bool:
    """Whether a plugin may import the core module ``name`` (a listed module exactly)."""
    return name in PUBLIC_MODULES
