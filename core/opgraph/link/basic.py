"""The Linker contract and the storage helpers every backend shares.

A *storage cell* is a one-element list ``[value]``: the unit through which
thunks, linkers and :class:`~opgraph.compile.function.Function` pass values
without copying.  A linker is configured once (``Linker(...)``), bound to a
graph with :meth:`Linker.accept` (which returns a new bound linker, so one
Mode can compile many graphs), then :meth:`Linker.make_thunk` returns a
zero-argument callable that reads the input cells and fills the output cells.

What a backend must honour (tested in the plugins' suites):

* ``no_recycling``: cells of these variables are emptied before each run, so
  an Op never writes into an array a previous call returned.
* ``destroy_map`` / ``view_map``: the order of ``fgraph.toposort()`` already
  places readers before destroyers (DestroyHandler orderings); a backend must
  not reorder across them.
* errors from a node carry a note naming the node (:func:`raise_with_op`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from reprlib import recursive_repr
from typing import TYPE_CHECKING, Any

from opgraph import faces as _faces
from opgraph.graph.basic import Constant

if TYPE_CHECKING:
    from opgraph.graph.basic import Apply, Variable
    from opgraph.graph.fg import FunctionGraph

__all__ = [
    "BackendCompileError",
    "CellHandle",
    "Container",
    "JITLinker",
    "Linker",
    "LinkerResult",
    "StorageCell",
    "WrapLinker",
    "WrapLinkerMany",
    "alias_ancestors",
    "compute_free_lists",
    "map_storage",
    "raise_with_op",
]

StorageCell = list
"""``[value]``: a mutable box shared by the producer and the consumers of a value."""


class Container:
    """A typed storage cell: ``storage`` is the ``[value]`` list linkers read.

    ``Container(r, storage)`` takes a Variable (its type and name are used)
    or a Type.  Setting ``value`` filters it through the type first, so the
    cell never holds a value the compiled code cannot take.
    """

    __slots__ = ("allow_downcast", "name", "readonly", "storage", "strict", "type")

    def __init__(
        self,
        r: Any,
        storage: list,
        name: str | None = None,
        strict: bool = False,
        allow_downcast: bool | None = None,
        readonly: bool = False,
    ) -> None:
        var_type = getattr(r, "type", None)
        if var_type is not None and hasattr(r, "owner"):  # a Variable
            if name is None:
                name = r.name
            r = var_type
        if not hasattr(r, "filter"):
            raise TypeError(f"Container: expected a Variable or a Type, got {type(r).__name__}")
        if not isinstance(storage, list) or len(storage) != 1:
            raise TypeError(
                f"Container: storage must be a one-element list [value], got {storage!r:.60}"
            )
        self.type = r
        self.storage = storage
        self.name = name
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.readonly = readonly

    @property
    def value(self) -> Any:
        return self.storage[0]

    @value.setter
    def value(self, new: Any) -> None:
        if self.readonly:
            raise ValueError(f"cannot set the value of read-only container {self.name!r}")
        self.storage[0] = None if new is None else self.filter(new)

    # PyTensor spells the accessors as methods too.
    def get(self) -> Any:
        return self.storage[0]

    def set(self, new: Any) -> None:
        self.value = new

    def filter(self, value: Any) -> Any:
        """``value`` converted to this container's type (the cell is not touched)."""
        return self.type.filter(value, strict=self.strict, allow_downcast=self.allow_downcast)

    def copy(self, share: bool = False) -> Container:
        """A container with the same settings; a deep copy of the value unless ``share``."""
        storage = self.storage if share else [copy.deepcopy(self.storage[0])]
        return Container(
            self.type, storage, self.name, self.strict, self.allow_downcast, self.readonly
        )

    def __deepcopy__(self, memo: dict) -> Container:
        return Container(self.type, [copy.deepcopy(self.storage[0], memo)], self.name,
                         self.strict, self.allow_downcast, self.readonly)

    def __repr__(self) -> str:
        return f"<{self.name or 'container'}: {self.storage[0]!r}>"

    __str__ = __repr__


class BackendCompileError(RuntimeError):
    """A linker could not build code for this particular graph (e.g. a C compile error).

    Raised from :meth:`Linker.make_thunk`.  ``function()`` then links with the
    mode's next preferred linker, warning once with the reason and
    ``log_path`` (a file keeping the backend's full output); a mode naming a
    single linker has no next preference, so the error propagates.
    """

    def __init__(self, message: str, log_path: str | None = None) -> None:
        super().__init__(message)
        self.log_path = log_path


class CellHandle:
    """PyTensor's view of a storage cell as a container: ``.storage`` and ``.data``."""

    __slots__ = ("storage",)

    def __init__(self, storage: StorageCell) -> None:
        self.storage = storage

    @property
    def data(self) -> Any:
        return self.storage[0]

    @data.setter
    def data(self, value: Any) -> None:
        self.storage[0] = value

    value = data

    def __repr__(self) -> str:
        return f"<cell: {self.storage[0]!r}>"


class LinkerResult:
    """What :meth:`Linker.make_thunk` returns.

    Read it by attribute.  Unpacked, it is PyTensor's triple
    ``fn, inputs, outputs`` (the cells seen as :class:`CellHandle` containers),
    so PyTensor code that unpacks ``make_thunk()`` keeps working.
    """

    __slots__ = ("fn", "input_storage", "order", "output_storage", "thunks")

    def __init__(
        self,
        fn: Callable[[], Any],
        input_storage: list[StorageCell],
        output_storage: list[StorageCell],
        thunks: list[Callable[[], Any]],
        order: list[Apply],
    ) -> None:
        self.fn = fn
        """Runs the whole graph: reads ``input_storage``, fills ``output_storage``."""
        self.input_storage = input_storage
        """One cell per ``fgraph.inputs`` entry, in order."""
        self.output_storage = output_storage
        """One cell per ``fgraph.outputs`` entry, in order."""
        self.thunks = thunks
        """The per-node thunks, aligned with ``order`` (empty if the backend fuses them)."""
        self.order = order
        """The nodes in execution order."""

    def __iter__(self) -> Iterator[Any]:
        yield self.fn
        yield [CellHandle(c) for c in self.input_storage]
        yield [CellHandle(c) for c in self.output_storage]


class Linker:
    """Base class of linkers.  Subclasses set ``name`` and implement ``make_thunk``.

    Constructor keywords are the linker's options (``allow_gc`` is common to
    all).  ``accept`` returns a copy bound to one graph so that a linker held
    by a Mode is never mutated by compiling.
    """

    name: str = ""
    #: Array types this linker takes as inputs as they are (e.g. dask arrays for the
    #: dask linker): a value of one of them whose dtype and ndim match the input's
    #: type skips ``Type.filter`` (which would convert it to a NumPy array).
    native_input_types: tuple[type, ...] = ()

    def __init__(self, *, allow_gc: bool = True, **options: Any) -> None:
        self.allow_gc = allow_gc
        self.options = options
        self.fgraph: FunctionGraph | None = None
        self.no_recycling: list[Variable] = []
        self.profile: Any = None

    def accept(
        self,
        fgraph: FunctionGraph,
        no_recycling: Iterable[Variable] | None = None,
        profile: Any = None,
    ) -> Linker:
        """A copy of this linker bound to ``fgraph``."""
        new = self.clone()
        new.fgraph = fgraph
        new.no_recycling = list(no_recycling or ())
        new.profile = profile
        return new

    def clone(self, **overrides: Any) -> Linker:
        """An unbound linker with the same options (some overridden)."""
        kwargs = {"allow_gc": self.allow_gc, **self.options, **overrides}
        return type(self)(**kwargs)

    def make_thunk(
        self,
        input_storage: Sequence[StorageCell] | None = None,
        output_storage: Sequence[StorageCell] | None = None,
        storage_map: dict[Variable, StorageCell] | None = None,
    ) -> LinkerResult:
        """Build the runnable graph; given cells are used instead of fresh ones."""
        raise NotImplementedError(f"{type(self).__name__} must implement make_thunk")

    def _require_fgraph(self) -> FunctionGraph:
        if self.fgraph is None:
            raise ValueError(
                f"{type(self).__name__}.make_thunk called before accept(fgraph): "
                "bind the linker to a graph first"
            )
        return self.fgraph

    def schedule(
        self,
        input_storage: Sequence[StorageCell] | None,
        output_storage: Sequence[StorageCell] | None,
        storage_map: dict[Variable, StorageCell] | None,
    ) -> tuple[FunctionGraph, list[Apply], list[StorageCell], list[StorageCell],
               dict[Variable, StorageCell]]:
        """The bound graph, its node order and storage cells: where every make_thunk starts."""
        fgraph = self._require_fgraph()
        order = list(fgraph.toposort())
        input_storage, output_storage, storage_map = map_storage(
            fgraph, order, input_storage, output_storage, storage_map
        )
        return fgraph, order, input_storage, output_storage, storage_map

    @recursive_repr()  # an option may hold the mode that holds this linker (NanGuardMode)
    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        gc = "" if self.allow_gc else "allow_gc=False"
        inner = ", ".join(x for x in (gc, opts) if x)
        return f"{type(self).__name__}({inner})"


class JITLinker(Linker):
    """Base of linkers that hand the whole graph to a just-in-time compiler.

    PyTensor's JAX and Numba linkers derive from it and code tests
    ``isinstance(linker, JITLinker)``; opgraph ships no such backend, so none of
    opgraph's own linkers is one.
    """


def map_storage(
    fgraph: FunctionGraph,
    order: Sequence[Apply],
    input_storage: Sequence[StorageCell] | None = None,
    output_storage: Sequence[StorageCell] | None = None,
    storage_map: dict[Variable, StorageCell] | None = None,
) -> tuple[list[StorageCell], list[StorageCell], dict[Variable, StorageCell]]:
    """Give every variable of the graph a cell, reusing the ones supplied.

    Constants' cells hold their data; everything else starts empty.
    """
    storage_map = {} if storage_map is None else storage_map
    inputs = fgraph.inputs
    if input_storage is None:
        input_storage = [storage_map.get(v) or [None] for v in inputs]
    elif len(input_storage) != len(inputs):
        raise ValueError(
            f"map_storage: {len(input_storage)} input cells given for {len(inputs)} inputs"
        )
    for var, cell in zip(inputs, input_storage):
        storage_map[var] = cell
    for node in order:
        for var in node.inputs:
            if var not in storage_map:
                data = getattr(var, "data", None) if _is_constant(var) else None
                storage_map[var] = [data]
        for var in node.outputs:
            storage_map.setdefault(var, [None])
    outputs = fgraph.outputs
    if output_storage is not None:
        if len(output_storage) != len(outputs):
            raise ValueError(
                f"map_storage: {len(output_storage)} output cells given for {len(outputs)} outputs"
            )
        for var, cell in zip(outputs, output_storage):
            if var in storage_map and storage_map[var] is not cell and var.owner is None:
                # an input or constant returned as is: keep its own cell
                continue
            storage_map[var] = cell
    for var in outputs:
        if var not in storage_map:
            storage_map[var] = [getattr(var, "data", None) if _is_constant(var) else None]
    return list(input_storage), [storage_map[v] for v in outputs], storage_map


def _is_constant(var: Any) -> bool:
    return isinstance(var, Constant)


def alias_ancestors(variables: Iterable[Variable]) -> set[Variable]:
    """``variables`` plus every variable whose buffer they may share.

    Follows ``view_map`` and ``destroy_map`` upward: the output of a view or
    an in-place Op lives in its input's memory, so recycling the input's cell
    could overwrite the output.
    """
    seen: set[Variable] = set()
    stack = list(variables)
    while stack:
        var = stack.pop()
        if var in seen:
            continue
        seen.add(var)
        owner = var.owner
        if owner is None:
            continue
        op = owner.op
        for mapping in (getattr(op, "view_map", None), getattr(op, "destroy_map", None)):
            if mapping:
                for i in mapping.get(var.index, ()):
                    stack.append(owner.inputs[i])
    return seen


def compute_free_lists(
    order: Sequence[Apply], keep: Iterable[Variable]
) -> list[list[Variable]]:
    """For each node, the variables whose value is dead once it has run.

    A variable is dead after its last reader; values in ``keep`` (graph
    inputs, outputs, constants) are never freed.  A variable nothing reads is
    freed right after the node that made it.
    """
    keep_set = set(keep)
    last_use: dict[Variable, int] = {}
    for i, node in enumerate(order):
        for var in node.outputs:
            last_use[var] = i
        for var in node.inputs:
            last_use[var] = i
    free: list[list[Variable]] = [[] for _ in order]
    for var, i in last_use.items():
        if var in keep_set or _is_constant(var) or var.owner is None:
            continue
        free[i].append(var)
    return free


def node_description(node: Apply, storage_map: dict[Variable, StorageCell] | None = None) -> str:
    """A few lines describing ``node`` and its input values, for error notes."""
    lines = [f"Apply node that caused the error: {node.op}({', '.join(map(str, node.inputs))})"]
    lines.append("Inputs types: [" + ", ".join(str(v.type) for v in node.inputs) + "]")
    if storage_map is not None:
        shapes, values = [], []
        for v in node.inputs:
            cell = storage_map.get(v)
            val = None if cell is None else cell[0]
            shapes.append(str(getattr(val, "shape", "no shape")))
            text = repr(val)
            values.append(text if len(text) <= 60 else text[:57] + "...")
        lines.append("Inputs shapes: [" + ", ".join(shapes) + "]")
        lines.append("Inputs values: [" + ", ".join(values) + "]")
    where = _built_at(node)
    if where:
        filename, lineno, func, line = where
        lines.append(f"Created at {filename}:{lineno} in {func}: {line}")
    return "\n".join(lines)


def _built_at(node: Apply) -> tuple | None:
    """(file, line, function, source) of the user's line that built ``node``, if recorded."""
    trace = getattr(getattr(node.outputs[0], "_tag", None), "trace", None) if node.outputs else None
    if trace:
        frames = trace[-1] if isinstance(trace[0], list) else trace
        if frames:
            return tuple(frames[-1])
    return None


def _expression(var: Variable, depth: int) -> str:
    """A short label of ``var`` in the user's terms: its name, or the Op applied to them."""
    if var.name:
        return var.name
    if isinstance(var, Constant):
        text = str(getattr(var, "data", var))
        return text if len(text) <= 20 else str(var)
    if var.owner is None or depth <= 0:
        return str(var)
    args = ", ".join(_expression(v, depth - 1) for v in var.owner.inputs)
    return f"{var.owner.op}({args})"


_INPUT_REF = re.compile(r"\binput\[(\d+)\]")


def _name_user_variables(exc: BaseException, node: Apply) -> None:
    """Say in the message itself which of the user's variables the node read, and where it
    was built: a fused ``Composite`` or ``Gemv`` node's ``input[0]`` means nothing to them."""
    if type(exc).__str__ is not BaseException.__str__ or len(exc.args) != 1 or not isinstance(
            exc.args[0], str) or "(the node reads " in exc.args[0]:
        return
    labels = [_expression(v, 3) for v in node.inputs]

    def name(m: re.Match) -> str:
        k = int(m.group(1))
        return labels[k] if k < len(labels) else m.group(0)

    message = _INPUT_REF.sub(name, exc.args[0])
    where = _built_at(node)
    at = f", built at {where[0]}:{where[1]}" if where else ""
    exc.args = (f"{message} (the node reads {', '.join(labels)}{at})",)


def raise_with_op(
    exc: BaseException, node: Apply, storage_map: dict[Variable, StorageCell] | None = None
) -> BaseException:
    """Attach a note naming ``node`` to ``exc`` (once) and return it for ``raise``.

    The exception keeps its type, so callers can still catch ValueError etc.
    """
    notes = getattr(exc, "__notes__", ())
    if not any(n.startswith("Apply node that caused the error") for n in notes):
        try:
            _name_user_variables(exc, node)
        except Exception:  # never hide the real error
            pass
        try:
            exc.add_note(node_description(node, storage_map))
        except Exception:  # a broken repr must not hide the real error
            exc.add_note(f"Apply node that caused the error: {type(node.op).__name__}")
    return exc


class WrapLinker(Linker):
    """Runs one graph through several linkers in lockstep, calling ``wrapper`` per node.

    ``wrapper(fgraph, i, node, *thunks)`` receives the node's thunk from each
    linker (in the order of ``linkers``) and decides whether and how to run
    them: comparing backends node by node, tracing, profiling.  The first
    linker's input cells are the inputs; their values are copied to the others
    before each run.
    """

    def __init__(self, linkers: Sequence[Linker], wrapper: Callable[..., Any]) -> None:
        super().__init__()
        if not linkers:
            raise ValueError("WrapLinker: give at least one linker")
        self.linkers = list(linkers)
        self.wrapper = wrapper

    def clone(self, **overrides: Any) -> WrapLinker:
        return type(self)([lk.clone() for lk in self.linkers], self.wrapper)

    def accept(self, fgraph: FunctionGraph, no_recycling: Iterable[Variable] | None = None,
               profile: Any = None) -> WrapLinker:
        new = type(self)([lk.accept(fgraph, no_recycling, profile) for lk in self.linkers],
                         self.wrapper)
        new.fgraph = fgraph
        new.no_recycling = list(no_recycling or ())
        new.profile = profile
        return new

    def pre(self, linker: WrapLinker, inputs: list, order: list, thunk_groups: list) -> None:
        """Called before each run with the input values (override to inspect them)."""

    def make_thunk(
        self,
        input_storage: Sequence[StorageCell] | None = None,
        output_storage: Sequence[StorageCell] | None = None,
        storage_map: dict[Variable, StorageCell] | None = None,
    ) -> LinkerResult:
        fgraph = self._require_fgraph()
        results = [self.linkers[0].make_thunk(input_storage, output_storage, storage_map)]
        results += [lk.make_thunk() for lk in self.linkers[1:]]
        order = results[0].order
        for res in results[1:]:
            if list(res.order) != list(order):
                raise ValueError("WrapLinker: all linkers must run the nodes in the same order")
        for lk, res in zip(self.linkers, results):
            if len(res.thunks) != len(order):
                raise ValueError(f"WrapLinker: {type(lk).__name__} gives no per-node thunks")
        thunk_groups = list(zip(*(res.thunks for res in results)))
        first_inputs = results[0].input_storage
        others = [res.input_storage for res in results[1:]]
        recycled = set(self.no_recycling)
        reset = [res_map[v] for res in results for res_map in [_storage_of(res, fgraph)]
                 for node in order for v in node.outputs if v in recycled and v in res_map]
        wrapper = self.wrapper

        def run() -> None:
            for cells in others:
                for src, dst in zip(first_inputs, cells):
                    dst[0] = copy.copy(src[0])
            for cell in reset:
                cell[0] = None
            self.pre(self, [c[0] for c in first_inputs], order, thunk_groups)
            for i, (thunks, node) in enumerate(zip(thunk_groups, order)):
                try:
                    wrapper(fgraph, i, node, *thunks)
                except Exception as exc:
                    raise raise_with_op(exc, node) from None

        run.thunk_groups = thunk_groups  # type: ignore[attr-defined]
        return LinkerResult(run, list(first_inputs), list(results[0].output_storage), [],
                            list(order))


def _storage_of(result: LinkerResult, fgraph: FunctionGraph) -> dict[Variable, StorageCell]:
    """The output cells of ``result`` by variable (what a WrapLinker resets)."""
    return dict(zip(fgraph.outputs, result.output_storage))


def WrapLinkerMany(linkers: Sequence[Linker], wrappers: Sequence[Callable[..., Any]]) -> WrapLinker:
    """A WrapLinker whose wrapper calls each of ``wrappers`` in turn."""
    wrappers = list(wrappers)

    def wrapper(*args: Any) -> None:
        for f in wrappers:
            f(*args)

    return WrapLinker(linkers, wrapper)


def __getattr__(name: str) -> Any:
    """Names a plugin serves here (PyTensor's ``PerformLinker``, from opgraph-numpy)."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _faces.provided_name(__name__, name)


#: what ``make_thunk`` returns: the thunk, the input and the output containers
ThunkAndContainersType = tuple[Callable[[], None], list[Any], list[Any]]
