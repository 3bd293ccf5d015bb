"""The single list of what an opgraph plugin can do.

Every hook is prefixed ``opgraph_``.  A plugin is a module (or object) with
functions of the same names decorated with ``@hookimpl``; it may accept any
subset of a hook's arguments.  Plugins are found through the entry point
group ``opgraph.plugins``; see ``docs/plugins.md``.  Every argument and
result is a record (:mod:`opgraph.plugins.records`), a Protocol
(:mod:`opgraph.plugins.protocols`) or a graph object of the core.

The core calls hooks through :func:`opgraph.plugins.call_hook_safely`, which
isolates each implementation: one that raises is reported (warning, and in
``opgraph plugins``) and skipped, and the others' results are still used.
During ``function()`` hooks use the compiling Mode's plugin manager
(:func:`opgraph.plugins.loading.use_plugin_manager`).

Each hook's example is a doctest, run by ``tests/plugins/test_hookspec_examples.py``;
``make_plugin_manager`` builds a private manager holding only the example's plugin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from opgraph.graph.basic import Variable
    from opgraph.graph.features import Feature
    from opgraph.graph.fg import FunctionGraph
    from opgraph.graph.op import Op
    from opgraph.plugins.protocols import CompileModeProtocol, RewriteDatabaseProtocol
    from opgraph.plugins.records import (
        CommandRecord,
        LinkerRecord,
        ModeRecord,
        OpImpl,
        PublicModule,
        RewriteDatabaseRecord,
    )

PROJECT_NAME = "opgraph"
"""The pluggy project name: hook names start with ``opgraph_``."""
ENTRY_POINT_GROUP = "opgraph.plugins"
"""The entry point group a plugin distribution declares its plugin module in."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
"""Marks the hook specifications in this module."""
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
"""Marks a plugin's hook implementations: ``@hookimpl def opgraph_linkers(): ...``."""


@hookspec
def opgraph_linkers() -> list[LinkerRecord]:
    """Declare linkers by name (collect-all: every plugin's lists are joined).

    Called once per plugin manager when a linker name is first resolved.
    Return a list of :class:`~opgraph.plugins.records.LinkerRecord`; the
    ``target`` is an import string so the linker's module is imported only
    when the linker is used.  Two plugins declaring the same name is an error.

    Example::

        >>> from opgraph.plugins import LinkerRecord, hookimpl, linker_records
        >>> from opgraph.plugins import make_plugin_manager
        >>> class MyPlugin:
        ...     @hookimpl
        ...     def opgraph_linkers(self):
        ...         return [LinkerRecord("mine", "my_backend.linker:MyLinker")]
        >>> pm = make_plugin_manager(plugins=[("my-plugin", MyPlugin())])
        >>> linker_records(pm)["mine"].target
        'my_backend.linker:MyLinker'
    """


@hookspec
def opgraph_modes() -> list[ModeRecord]:
    """Declare named modes (collect-all: every plugin's lists are joined).

    Called once per plugin manager when a mode name is first resolved.
    Return a list of :class:`~opgraph.plugins.records.ModeRecord`: a linker
    preference list (the first usable linker wins) and the rewrite query tags.
    Two plugins declaring the same mode name is an error.

    Example::

        >>> from opgraph.plugins import ModeRecord, hookimpl, make_plugin_manager, mode_records
        >>> class MyPlugin:
        ...     @hookimpl
        ...     def opgraph_modes(self):
        ...         return [ModeRecord("QUICK", linkers=("vm", "py"), include=("fast_compile",))]
        >>> pm = make_plugin_manager(plugins=[("my-plugin", MyPlugin())])
        >>> mode_records(pm)["QUICK"].linkers
        ('vm', 'py')
    """


@hookspec
def opgraph_rewrite_database() -> list[RewriteDatabaseRecord]:
    """Provide the rewrite database modes query (collect-all; one plugin per name).

    Called once per plugin manager when a mode first needs its rewrites.
    Return :class:`~opgraph.plugins.records.RewriteDatabaseRecord` s; modes
    use the one named ``"optdb"`` (opgraph-rewrites provides it).  The core
    never imports a rewrite plugin by name: without such a record, modes
    compile without rewrites.

    Example::

        >>> from opgraph.plugins import RewriteDatabaseRecord, hookimpl, make_plugin_manager
        >>> from opgraph.plugins.registry import rewrite_database_record
        >>> class MyPlugin:
        ...     @hookimpl
        ...     def opgraph_rewrite_database(self):
        ...         return [RewriteDatabaseRecord("optdb", database=lambda pm: {"db": pm},
        ...                                       rewriter="my_rewrites.query:rewriter_for")]
        >>> pm = make_plugin_manager(plugins=[("my-plugin", MyPlugin())])
        >>> rewrite_database_record(pm).get_database(pm)["db"] is pm
        True
    """


@hookspec
def opgraph_register_rewrites(db: RewriteDatabaseProtocol) -> None:
    """Add rewrites to the rewrite database ``db`` (collect-all, return ignored).

    Called once per plugin manager, when the database is first built.
    Register entries with tags and a named phase (``docs/rewrites.md``) so
    modes can select them by query and they run at the right step; ``db`` is
    a :class:`~opgraph.plugins.protocols.RewriteDatabaseProtocol`.  A name
    already registered is an error naming both registrations.

    Example (``db`` would be the database; here a stand-in that records calls)::

        >>> from opgraph.plugins import call_hook_safely, hookimpl, make_plugin_manager
        >>> class MyPlugin:
        ...     @hookimpl
        ...     def opgraph_register_rewrites(self, db):
        ...         db.register("my_fold", "<a GraphRewriter>", "fast_run",
        ...                     phase="post_specialize")
        >>> class Recorder:
        ...     def register(self, name, rewriter, *tags, **options):
        ...         print(name, tags, options)
        >>> pm = make_plugin_manager(plugins=[("my-plugin", MyPlugin())])
        >>> _ = call_hook_safely(pm, "opgraph_register_rewrites", db=Recorder())
        my_fold ('fast_run',) {'phase': 'post_specialize'}
    """


@hookspec
def opgraph_compile_features(
    fgraph: FunctionGraph, mode: CompileModeProtocol
) -> list[Feature]:
    """Return Features to attach to a graph being compiled (collect-all).

    Called by ``function()`` for every FunctionGraph it compiles, after the
    graph is built and before rewrites run, with the compiling mode's plugin
    manager.  Return a list of Feature instances (or an empty list); the
    lists of all plugins are joined.

    Example::

        >>> from opgraph.graph.features import Feature
        >>> from opgraph.graph.fg import FunctionGraph
        >>> from opgraph.plugins import call_hook_safely, hookimpl, make_plugin_manager
        >>> class Audit(Feature):
        ...     pass
        >>> class MyPlugin:
        ...     @hookimpl
        ...     def opgraph_compile_features(self, fgraph, mode):
        ...         return [Audit()] if mode.name == "DEBUG" else []
        >>> class DebugMode:
        ...     name, plugin_manager = "DEBUG", None
        >>> pm = make_plugin_manager(plugins=[("my-plugin", MyPlugin())])
        >>> found = call_hook_safely(pm, "opgraph_compile_features",
        ...                          fgraph=FunctionGraph([], []), mode=DebugMode())
        >>> [type(f).__name__ for features in found for f in features]
        ['Audit']
    """


@hookspec(firstresult=True)
def opgraph_pullback(
    op: Op, inputs: Sequence[Variable], outputs: Sequence[Variable],
    cotangents: Sequence[Variable],
) -> list[Variable] | None:
    """Supply an Op's pullback (reverse-mode gradient) without editing the Op.

    Called by the gradient driver for each Apply node before it asks
    ``op.pullback``.  firstresult: the first implementation returning a list
    (one symbolic gradient per input) wins; return ``None`` to decline.

    Example::

        >>> from opgraph.plugins import call_hook_safely, hookimpl, make_plugin_manager
        >>> class MyPlugin:
        ...     @hookimpl
        ...     def opgraph_pullback(self, op, inputs, outputs, cotangents):
        ...         if op == "my_double":
        ...             return [cotangents[0] * 2]
        ...         return None
        >>> pm = make_plugin_manager(plugins=[("my-plugin", MyPlugin())])
        >>> call_hook_safely(pm, "opgraph_pullback", op="my_double", inputs=[1.0],
        ...                  outputs=[2.0], cotangents=[3.0])
        [6.0]
        >>> call_hook_safely(pm, "opgraph_pullback", op="other", inputs=[1.0],
        ...                  outputs=[2.0], cotangents=[3.0]) is None
        True
    """


@hookspec(firstresult=True)
def opgraph_pushforward(
    op: Op, inputs: Sequence[Variable], outputs: Sequence[Variable],
    tangents: Sequence[Variable],
) -> list[Variable] | None:
    """Supply an Op's pushforward (forward-mode derivative) without editing the Op.

    Called by the forward-mode driver for each Apply node before it asks
    ``op.pushforward``.  firstresult: the first implementation returning a
    list (one tangent per output) wins; return ``None`` to decline.

    Example::

        >>> from opgraph.plugins import call_hook_safely, hookimpl, make_plugin_manager
        >>> class MyPlugin:
        ...     @hookimpl
        ...     def opgraph_pushforward(self, op, inputs, outputs, tangents):
        ...         return [tangents[0] * 2] if op == "my_double" else None
        >>> pm = make_plugin_manager(plugins=[("my-plugin", MyPlugin())])
        >>> call_hook_safely(pm, "opgraph_pushforward", op="my_double", inputs=[1.0],
        ...                  outputs=[2.0], tangents=[0.5])
        [1.0]
    """


@hookspec(firstresult=True)
def opgraph_op_impl(op: Op, backend: str) -> OpImpl | None:
    """Give a backend an implementation of an Op it does not own.

    Called by a linker (``backend`` is its backend name, e.g. ``"c"``) for
    an Op that has no implementation of its own for that backend, with the
    compiling mode's plugin manager.  Return an
    :class:`~opgraph.plugins.records.OpImpl` for that backend (what ``impl``
    holds is the backend's contract: C code provider, a dask translator...)
    or ``None``.  Backends ask through :func:`opgraph.plugins.find_op_impl`,
    which rejects (and reports) anything else.

    Example::

        >>> from opgraph.plugins import OpImpl, find_op_impl, hookimpl, make_plugin_manager
        >>> class MyPlugin:
        ...     @hookimpl
        ...     def opgraph_op_impl(self, op, backend):
        ...         if backend == "c" and op == "my_op":
        ...             return OpImpl("c", "<object with c_code>")
        ...         return None
        >>> pm = make_plugin_manager(plugins=[("my-plugin", MyPlugin())])
        >>> find_op_impl("my_op", "c", pm)
        '<object with c_code>'
        >>> find_op_impl("my_op", "dask", pm) is None
        True
    """


@hookspec
def opgraph_public_modules() -> list[PublicModule]:
    """Serve public module paths under ``opgraph`` from a plugin (collect-all).

    Called once per plugin manager, the first time a module path that no
    file of the core holds is imported.  Return a list of
    :class:`~opgraph.plugins.records.PublicModule`: importing ``module`` (or a
    submodule of it) then gives the plugin's ``target`` module (or the same
    submodule of it).  Two plugins serving one path is an error.

    Example::

        >>> from opgraph.plugins import PublicModule, hookimpl, make_plugin_manager
        >>> from opgraph.plugins import public_module_records
        >>> class MyPlugin:
        ...     @hookimpl
        ...     def opgraph_public_modules(self):
        ...         return [PublicModule("opgraph.tensor.my_area", "my_plugin.area")]
        >>> pm = make_plugin_manager(plugins=[("my-plugin", MyPlugin())])
        >>> public_module_records(pm)["opgraph.tensor.my_area"].target
        'my_plugin.area'
    """


@hookspec
def opgraph_cli_commands() -> list[CommandRecord]:
    """Add ``opgraph <name>`` subcommands (collect-all).

    Called when the ``opgraph`` command line is parsed.  Return a list of
    :class:`~opgraph.plugins.records.CommandRecord`; ``setup`` is imported to
    build the parser, ``run`` only when the subcommand runs.  A name that is
    already taken (by the core or another plugin) is reported and skipped.

    Example::

        >>> from opgraph.plugins import CommandRecord, hookimpl, make_plugin_manager
        >>> from opgraph.plugins.registry import command_records
        >>> class MyPlugin:
        ...     @hookimpl
        ...     def opgraph_cli_commands(self):
        ...         return [CommandRecord("hello", "say hello",
        ...                               "my_plugin.cli:setup", "my_plugin.cli:run")]
        >>> pm = make_plugin_manager(plugins=[("my-plugin", MyPlugin())])
        >>> command_records(pm)["hello"].run
        'my_plugin.cli:run'
    """


HOOK_NAMES: tuple[str, ...] = (
    "opgraph_linkers",
    "opgraph_modes",
    "opgraph_rewrite_database",
    "opgraph_register_rewrites",
    "opgraph_compile_features",
    "opgraph_pullback",
    "opgraph_pushforward",
    "opgraph_op_impl",
    "opgraph_public_modules",
    "opgraph_cli_commands",
)
"""Every hook a plugin may implement, in the order ``opgraph plugins`` shows them."""
