"""Records plugins return from the collect-all hooks.

They are small frozen values holding names and import strings, so that a
plugin's entry module stays cheap: heavy code (a C compiler driver, kernels)
is imported only when :meth:`LinkerRecord.load` is first called.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import attrs

__all__ = [
    "CExpr",
    "CommandRecord",
    "LinkerRecord",
    "ModeRecord",
    "OpImpl",
    "PublicModule",
    "RewriteDatabaseRecord",
    "TargetLoadError",
    "load_target",
]

Target = str | Callable[..., Any]


class TargetLoadError(ImportError):
    """An import string ``"pkg.mod:Attr"`` could not be resolved."""


_TARGET_CACHE: dict[str, Any] = {}


def load_target(target: Target) -> Any:
    """Resolve ``"pkg.mod:Attr"`` (dots allowed after the colon); callables pass through.

    Results are cached, so each module is imported once.  Raises
    :class:`TargetLoadError` naming the string and the reason.
    """
    if not isinstance(target, str):
        if callable(target):
            return target
        raise TypeError(f"expected an import string 'pkg.mod:Attr' or a callable, got {target!r}")
    if target in _TARGET_CACHE:
        return _TARGET_CACHE[target]
    module_name, sep, attr_path = target.partition(":")
    if not sep or not module_name or not attr_path:
        raise TargetLoadError(f"bad import string {target!r}: expected 'pkg.mod:Attr'")
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise TargetLoadError(
            f"cannot import module {module_name!r} for {target!r}: {type(exc).__name__}: {exc}"
        ) from exc
    for part in attr_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise TargetLoadError(
                f"cannot resolve {target!r}: {module_name!r} has no attribute path {attr_path!r}"
            ) from None
    _TARGET_CACHE[target] = obj
    return obj


def _check_target(_inst: Any, attr: attrs.Attribute, value: Any) -> None:
    if value is None and attr.name == "probe":
        return
    if callable(value):
        return
    if not isinstance(value, str) or value.count(":") != 1 or value.startswith(":"):
        raise TypeError(
            f"{attr.name} must be an import string 'pkg.mod:Attr' or a callable, got {value!r}"
        )


def _check_name(_inst: Any, attr: attrs.Attribute, value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{attr.name} must be a non-empty string, got {value!r}")


def _to_names(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(value)


def _check_names(_inst: Any, attr: attrs.Attribute, value: tuple[Any, ...]) -> None:
    for item in value:
        if not isinstance(item, str) or not item:
            raise TypeError(f"{attr.name} must hold non-empty strings, got {item!r}")


@attrs.frozen
class LinkerRecord:
    """A linker a plugin provides.

    ``target`` produces the Linker class or factory (called with no
    arguments, or the keyword arguments the mode gives).  ``probe``, if set,
    is a zero-argument callable returning ``None`` when the linker can run
    here or a short reason why not (e.g. "no C compiler found"); modes skip
    to their next preferred linker when it gives a reason.  ``backend`` is the
    name this linker passes to the ``opgraph_op_impl`` hook, if it uses it.
    """

    name: str = attrs.field(validator=_check_name)
    target: Target = attrs.field(validator=_check_target)
    description: str = ""
    probe: Target | None = attrs.field(default=None, validator=_check_target)
    backend: str | None = None

    def load(self) -> Any:
        """Import and return the linker class or factory."""
        return load_target(self.target)

    def unavailable_reason(self) -> str | None:
        """Run the probe: ``None`` if usable, else the reason (probe errors count)."""
        if self.probe is None:
            return None
        try:
            reason = load_target(self.probe)()
        except Exception as exc:
            return f"probe for linker {self.name!r} failed: {type(exc).__name__}: {exc}"
        return None if reason is None else str(reason)


@attrs.frozen
class ModeRecord:
    """A named mode: a linker preference list plus the rewrite query.

    The first linker of ``linkers`` that is registered and whose probe
    passes is used.  ``include``/``exclude``/``require`` are rewrite
    database tags.
    """

    name: str = attrs.field(validator=_check_name)
    linkers: tuple[str, ...] = attrs.field(converter=_to_names, validator=_check_names)
    include: tuple[str, ...] = attrs.field(default=(), converter=_to_names, validator=_check_names)
    exclude: tuple[str, ...] = attrs.field(default=(), converter=_to_names, validator=_check_names)
    description: str = ""
    require: tuple[str, ...] = attrs.field(default=(), converter=_to_names, validator=_check_names)


def _check_module_path(_inst: Any, attr: attrs.Attribute, value: Any) -> None:
    parts = value.split(".") if isinstance(value, str) else []
    if not parts or not all(p.isidentifier() for p in parts):
        raise TypeError(f"{attr.name} must be a dotted module path, got {value!r}")


def _to_identifiers(value: Any) -> tuple[str, ...]:
    names = _to_names(value)
    for name in names:
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"names must be Python identifiers, got {name!r}")
    return names


@attrs.frozen
class PublicModule:
    """A module path under ``opgraph`` that a plugin's module serves, or names in one.

    PyTensor code imports ``pytensor.graph.rewriting.db`` or
    ``pytensor.tensor.linalg.decomposition.cholesky``; when the code behind
    such a path lives in a plugin, the plugin returns
    ``PublicModule("opgraph.tensor.linalg", "my_linalg")`` and the core
    makes ``opgraph.tensor.linalg`` (and every submodule below it) the
    plugin's module objects, so classes keep one identity under both names.

    With ``names``, the plugin serves only those attributes of a core module:
    ``PublicModule("opgraph.tensor", "my_special.tensor", names=("erf",))``
    makes ``pt.erf`` the plugin's ``erf``.
    """

    module: str = attrs.field(validator=_check_module_path)
    target: str = attrs.field(validator=_check_module_path)
    description: str = ""
    names: tuple[str, ...] = attrs.field(default=(), converter=_to_identifiers)

    def keys(self) -> tuple[str, ...]:
        """What this record claims: the module path, or ``module.name`` per name."""
        if not self.names:
            return (self.module,)
        return tuple(f"{self.module}.{name}" for name in self.names)


@attrs.frozen
class CommandRecord:
    """An ``opgraph <name>`` subcommand a plugin provides.

    ``setup`` (an import string or callable) adds the subcommand's arguments
    to an ``argparse`` parser: keep its module light, it is imported whenever
    the command line is parsed.  ``run`` takes the parsed arguments and returns
    the exit code; it is imported only when the subcommand runs.
    """

    name: str = attrs.field(validator=_check_name)
    help: str
    setup: Target = attrs.field(validator=_check_target)
    run: Target = attrs.field(validator=_check_target)


@attrs.frozen
class RewriteDatabaseRecord:
    """The rewrite database a plugin provides (the core names no plugin module).

    ``database`` (import string or callable) is ``f(pm) -> database``: the
    database of plugin manager ``pm``, satisfying
    :class:`~opgraph.plugins.protocols.RewriteDatabaseProtocol`, built once
    per manager (calling every plugin's ``opgraph_register_rewrites``).
    ``rewriter`` is ``f(include, exclude, require, pm) -> GraphRewriter``:
    one rewriter for a mode's query.  Both are imported on first use.
    """

    name: str = attrs.field(validator=_check_name)
    database: Target = attrs.field(validator=_check_target)
    rewriter: Target = attrs.field(validator=_check_target)
    description: str = ""

    def get_database(self, pm: Any) -> Any:
        """The database of ``pm`` (imports the provider on first use)."""
        return load_target(self.database)(pm)

    def get_rewriter(self, include: tuple[str, ...], exclude: tuple[str, ...],
                     require: tuple[str, ...], pm: Any) -> Any:
        """One GraphRewriter for the query, from ``pm``'s database."""
        return load_target(self.rewriter)(include=include, exclude=exclude, require=require,
                                          pm=pm)


def _check_backend(_inst: Any, attr: attrs.Attribute, value: Any) -> None:
    if not isinstance(value, str) or not value or not value.strip() == value:
        raise TypeError(f"OpImpl.backend must be a backend name such as 'c', got {value!r}")


def _check_impl(_inst: Any, _attr: attrs.Attribute, value: Any) -> None:
    if value is None:
        raise TypeError("OpImpl.impl must be the implementation object, got None")


@attrs.frozen
class OpImpl:
    """One backend's implementation of an Op, returned by ``opgraph_op_impl``.

    ``backend`` must be the backend that asked (``"c"``, ``"dask"``...);
    ``impl`` is what that backend documents (the C backend: an object with
    ``c_code`` or a ``CExpr``; dask: a callable ``f(node, values, ctx)``).
    """

    backend: str = attrs.field(validator=_check_backend)
    impl: Any = attrs.field(validator=_check_impl)
    description: str = ""


@attrs.frozen
class CExpr:
    """How a scalar op is written in C: the C backend's ``OpImpl.impl`` for a scalar op.

    Format strings over the operand names (``{0}``, ``{1}``...), by the kind of
    the output dtype (``bool``, ``int``, ``uint`` (else ``int``), ``float``),
    else ``default``.  ``{f}`` becomes ``f`` for float32 (``expf``) and nothing
    for float64; ``{T}`` is the C type of the output.  ``compute`` casts the
    operands first: to the output type (``"out"``), to the inputs' common type
    (``"common"``) or not at all (``"none"``); one mode, or one per operand.
    ``support`` is C placed once before the loops of a module using the op (equal
    texts once per module, so name helpers uniquely); ``headers``, ``libraries``
    and ``lib_dirs`` are what compiling it needs.  A core record, so an Op package
    supplies C for its scalar ops without importing the C plugin.

    >>> CExpr(float="exp{f}({0})").template("float")
    'exp{f}({0})'
    """

    default: str | None = None
    bool: str | None = None
    int: str | None = None
    uint: str | None = None
    float: str | None = None
    compute: str | tuple[str, ...] = "out"
    support: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()
    lib_dirs: tuple[str, ...] = ()

    def template(self, out_kind: str) -> str | None:
        """The format string for an output of kind ``out_kind`` (None: no C for it)."""
        specific = getattr(self, out_kind)
        if specific is None and out_kind == "uint":
            specific = self.int
        return specific if specific is not None else self.default
