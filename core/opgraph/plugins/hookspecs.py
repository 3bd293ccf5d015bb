"""The single list of what an opgraph plugin can do.

Every hook is prefixed ``opgraph_``.  A plugin is a module (or object) with
functions of the same names decorated with ``@hookimpl``; it may accept any
subset of a hook's arguments.  Plugins are found through the entry point
group ``opgraph.plugins``; see ``docs/plugins.md``.

The core calls hooks through :func:`opgraph.plugins.call_hook_safely`, which
isolates each implementation: one that raises is reported (warning, and in
``opgraph plugins``) and skipped, and the others' results are still used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from opgraph.plugins.records import CommandRecord, LinkerRecord, ModeRecord, PublicModule

PROJECT_NAME = "opgraph"
ENTRY_POINT_GROUP = "opgraph.plugins"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def opgraph_linkers() -> list[LinkerRecord]:
    """Declare linkers by name (collect-all: every plugin's lists are joined).

    Called once per plugin manager when a linker name is first resolved.
    Return a list of :class:`~opgraph.plugins.records.LinkerRecord`; the
    ``target`` is an import string so the linker's module is imported only
    when the linker is used.  Two plugins declaring the same name is an error.

    Example::

        @hookimpl
        def opgraph_linkers():
            return [LinkerRecord("py", "opgraph_numpy.linker:PerformLinker")]
    """


@hookspec
def opgraph_modes() -> list[ModeRecord]:
    """Declare named modes (collect-all: every plugin's lists are joined).

    Called once per plugin manager when a mode name is first resolved.
    Return a list of :class:`~opgraph.plugins.records.ModeRecord`: a linker
    preference list (the first usable linker wins) and the rewrite query tags.
    Two plugins declaring the same mode name is an error.

    Example::

        @hookimpl
        def opgraph_modes():
            return [ModeRecord("FAST_COMPILE", linkers=("vm", "py"), include=("fast_compile",))]
    """


@hookspec
def opgraph_register_rewrites(db: Any) -> None:
    """Add rewrites to the rewrite database ``db`` (collect-all, return ignored).

    Called once, when the rewrite database is first built.  Register entries
    with tags and a named phase (``docs/rewrites.md``) so modes can select
    them by query and they run at the right step.

    Example::

        @hookimpl
        def opgraph_register_rewrites(db):
            db.register("my_fold", MyFoldRewrite(), "fast_run", phase="post_specialize")
    """


@hookspec
def opgraph_compile_features(fgraph: Any, mode: Any) -> list[Any]:
    """Return Features to attach to a graph being compiled (collect-all).

    Called by ``function()`` for every FunctionGraph it compiles, after the
    graph is built and before rewrites run.  Return a list of Feature
    instances (or an empty list); the lists of all plugins are joined.

    Example::

        @hookimpl
        def opgraph_compile_features(fgraph, mode):
            return [NanGuard()] if mode.name == "DEBUG" else []
    """


@hookspec(firstresult=True)
def opgraph_pullback(
    op: Any, inputs: Sequence[Any], outputs: Sequence[Any], cotangents: Sequence[Any]
) -> list[Any] | None:
    """Supply an Op's pullback (reverse-mode gradient) without editing the Op.

    Called by the gradient driver for each Apply node before it asks
    ``op.pullback``.  firstresult: the first implementation returning a list
    (one symbolic gradient per input) wins; return ``None`` to decline.

    Example::

        @hookimpl
        def opgraph_pullback(op, inputs, outputs, cotangents):
            if isinstance(op, MyOp):
                return [cotangents[0] * 2]
            return None
    """


@hookspec(firstresult=True)
def opgraph_pushforward(
    op: Any, inputs: Sequence[Any], outputs: Sequence[Any], tangents: Sequence[Any]
) -> list[Any] | None:
    """Supply an Op's pushforward (forward-mode derivative) without editing the Op.

    Called by the forward-mode driver for each Apply node before it asks
    ``op.pushforward``.  firstresult: the first implementation returning a
    list (one tangent per output) wins; return ``None`` to decline.

    Example::

        @hookimpl
        def opgraph_pushforward(op, inputs, outputs, tangents):
            if isinstance(op, MyOp):
                return [tangents[0] * 2]
            return None
    """


@hookspec(firstresult=True)
def opgraph_op_impl(op: Any, backend: str) -> object | None:
    """Give a backend an implementation of an Op it does not own.

    Called by a linker (``backend`` is its backend name, e.g. ``"c"``) for
    an Op that has no implementation of its own for that backend.
    firstresult: the first non-``None`` result wins; its meaning is set by
    the backend (C code provider, a jitted kernel...).

    Example::

        @hookimpl
        def opgraph_op_impl(op, backend):
            if backend == "c" and isinstance(op, MyOp):
                return MyOpCCode(op)
            return None
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

        @hookimpl
        def opgraph_public_modules():
            return [PublicModule("opgraph.graph.rewriting.db", "opgraph_rewrites.db")]
    """


@hookspec
def opgraph_cli_commands() -> list[CommandRecord]:
    """Add ``opgraph <name>`` subcommands (collect-all).

    Called when the ``opgraph`` command line is parsed.  Return a list of
    :class:`~opgraph.plugins.records.CommandRecord`; ``setup`` is imported to
    build the parser, ``run`` only when the subcommand is used.  A name that is
    already taken (by the core or another plugin) is reported and skipped.

    Example::

        @hookimpl
        def opgraph_cli_commands():
            return [CommandRecord("cache", "manage the C cache",
                                  "opgraph_c.cache_cli:setup", "opgraph_c.cache_cli:run")]
    """


HOOK_NAMES: tuple[str, ...] = (
    "opgraph_linkers",
    "opgraph_modes",
    "opgraph_register_rewrites",
    "opgraph_compile_features",
    "opgraph_pullback",
    "opgraph_pushforward",
    "opgraph_op_impl",
    "opgraph_public_modules",
    "opgraph_cli_commands",
)
