"""PyTensor's ``pytensor.link.utils``: helpers that linkers and backends share.

Storage mapping, running a list of thunks (``streamline``), freeing values
(``gc_helper``, ``add_clear_storage``), error notes (``raise_with_op``) and
turning a FunctionGraph into Python source with one call per node
(``fgraph_to_python``, the base of source-generating backends).
"""

from __future__ import annotations

import keyword
import linecache
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from itertools import count
from typing import Any

from opgraph.graph.basic import Apply, Constant, Variable
from opgraph.link.basic import map_storage
from opgraph.link.basic import raise_with_op as _note_node

__all__ = [
    "add_clear_storage",
    "compile_function_src",
    "fgraph_to_python",
    "gc_helper",
    "get_destroy_dependencies",
    "get_name_for_object",
    "map_storage",
    "raise_with_op",
    "register_thunk_trace_excepthook",
    "streamline",
    "unique_name_generator",
]


def raise_with_op(*args: Any, **kwargs: Any) -> Any:
    """Re-raise the exception being handled with a note naming the node that raised it.

    PyTensor's form ``raise_with_op(fgraph, node, thunk=None, exc_info=None,
    storage_map=None)`` raises; opgraph's ``raise_with_op(exc, node, storage_map)``
    returns the annotated exception for ``raise``.
    """
    if args and isinstance(args[0], BaseException):
        return _note_node(*args, **kwargs)
    names = ("fgraph", "node", "thunk", "exc_info", "storage_map")
    opts = dict(zip(names, args)) | kwargs
    node = opts.get("node")
    if not isinstance(node, Apply):
        raise TypeError(f"raise_with_op: node must be an Apply node, got {type(node).__name__}")
    exc_info = opts.get("exc_info") or sys.exc_info()
    exc = exc_info[1]
    if exc is None:
        raise ValueError("raise_with_op: no exception is being handled")
    storage_map = opts.get("storage_map")
    thunk = opts.get("thunk")
    if storage_map is None and thunk is not None:
        storage_map = getattr(thunk, "storage_map", None)
    raise _note_node(exc, node, storage_map).with_traceback(exc_info[2])


def gc_helper(node_list: Sequence[Apply]) -> tuple[set[Variable], dict[Variable, Apply]]:
    """``(computed, last_user)``: the variables the nodes compute, and each variable's
    last reader in ``node_list`` (after it runs, the value may be freed)."""
    last_user: dict[Variable, Apply] = {}
    computed: set[Variable] = set()
    for node in node_list:
        for var in node.inputs:
            last_user[var] = node
        computed.update(node.outputs)
    return computed, last_user


def add_clear_storage(f: Any, computed: Any, storage_map: dict) -> None:
    """Give ``f`` a ``clear_storage()`` that empties the cells of ``computed`` variables."""

    def clear_storage() -> None:
        for var in computed:
            storage_map[var][0] = None

    f.clear_storage = clear_storage


def streamline(
    fgraph: Any,
    thunks: Sequence[Callable[[], Any]],
    order: Sequence[Apply],
    *,
    post_thunk_old_storage: list | None = None,
    no_recycling: list | None = None,
    nice_errors: bool = True,
    output_storage: list,
) -> Callable[[], None]:
    """One callable running ``thunks`` in order.

    ``no_recycling`` cells are emptied first; ``post_thunk_old_storage[i]``
    lists the cells freed after thunk ``i``; with ``nice_errors`` an error
    gets a note naming its node.
    """
    if len(thunks) != len(order):
        raise ValueError(f"streamline: {len(thunks)} thunks for {len(order)} nodes")
    no_recycling = list(no_recycling or ())
    if post_thunk_old_storage is not None and len(post_thunk_old_storage) != len(thunks):
        raise ValueError("streamline: post_thunk_old_storage needs one list per thunk")
    pairs = list(zip(thunks, order))

    def streamline_f() -> None:
        for cell in no_recycling:
            cell[0] = None
        for i, (thunk, node) in enumerate(pairs):
            try:
                thunk()
            except Exception:
                if not nice_errors:
                    raise
                raise_with_op(fgraph, node, thunk)
            if post_thunk_old_storage is not None:
                for cell in post_thunk_old_storage[i]:
                    cell[0] = None

    streamline_f.thunks = list(thunks)  # type: ignore[attr-defined]
    streamline_f.nodes = list(order)  # type: ignore[attr-defined]
    return streamline_f


def get_destroy_dependencies(fgraph: Any) -> dict[Apply, list[Variable]]:
    """For each node, the variables that must be computed before it (destroy orderings)."""
    deps: dict[Apply, list[Variable]] = defaultdict(list)
    for node, prereqs in fgraph.orderings().items():
        for prereq in prereqs:
            deps[node].extend(prereq.outputs)
    return deps


def register_thunk_trace_excepthook(handler: Any = sys.stdout) -> None:
    """Kept for PyTensor code: node notes are already on the exceptions themselves."""


def get_name_for_object(x: Any) -> str:
    """A Python identifier for ``x``: its name when that is one, else its class in snake case."""
    name = getattr(x, "name", None)
    if name is None and callable(x) and not isinstance(x, Variable | type):
        name = getattr(x, "__name__", None)
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", type(x).__name__).lower()
        if not name.isidentifier() or keyword.iskeyword(name):
            name = f"obj_{name}" if name.isidentifier() else "obj"
    return name


def unique_name_generator(
    external_names: list[str] | None = None, suffix_sep: str = ""
) -> Callable[..., str]:
    """A function giving each object a distinct identifier (stable per object).

    Names in ``external_names`` count as taken; a clash gets a numeric suffix
    (``blah`` -> ``blah_1``); ``force_unique=True`` gives an object a fresh name.
    """
    taken: Counter = Counter(external_names or [])
    names: dict[int, tuple[Any, str]] = {}

    def unique_name(x: Any, force_unique: bool = False) -> str:
        known = names.get(id(x))
        if known is not None and known[0] is x and not force_unique:
            return known[1]
        base = get_name_for_object(x)
        n = taken[base]
        local = base
        if n:
            local = f"{base}{suffix_sep}{n}"
            while taken[local]:
                n += 1
                local = f"{base}{suffix_sep}{n}"
        taken[base] = n + 1
        if local != base:
            taken[local] += 1
        names[id(x)] = (x, local)
        return local

    return unique_name


_SRC_COUNTER = count()


def compile_function_src(
    src: str, function_name: str, global_env: dict | None = None,
    local_env: dict | None = None,
) -> Callable:
    """Compile ``src`` and return its function ``function_name``.

    The source is registered with ``linecache`` so ``inspect.getsource`` and
    tracebacks show it.
    """
    filename = f"<opgraph generated {function_name} {next(_SRC_COUNTER)}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(keepends=True), filename)
    code = compile(src, filename, "exec")
    env = {} if global_env is None else global_env
    local = {} if local_env is None else local_env
    exec(code, env, local)
    fn = local[function_name]
    fn.__source__ = src  # type: ignore[attr-defined]
    return fn


def _comment(node: Apply) -> list[str]:
    return [f"    # {line}" for line in str(node).splitlines()]


def fgraph_to_python(
    fgraph: Any,
    op_conversion_fn: Callable,
    *,
    type_conversion_fn: Callable = lambda x, **kwargs: x,
    order: Sequence[Apply] | None = None,
    storage_map: dict | None = None,
    fgraph_name: str = "fgraph_to_python",
    global_env: dict | None = None,
    local_env: dict | None = None,
    get_name_for_object: Callable[[Any], str] = get_name_for_object,
    squeeze_output: bool = False,
    unique_name: Callable | None = None,
    **kwargs: Any,
) -> Callable:
    """A Python function computing ``fgraph``: one call per node, in ``order``.

    ``op_conversion_fn(op, node=..., storage_map=..., **kwargs)`` gives the
    callable for each node; constants (and inputs with a value in
    ``storage_map``) become globals passed through ``type_conversion_fn``.
    """
    order = list(fgraph.toposort()) if order is None else list(order)
    if unique_name is None:
        unique_name = unique_name_generator([fgraph_name], suffix_sep="_")
    env: dict = {} if global_env is None else global_env
    body: list[str] = []

    def fixed_value(var: Variable) -> tuple[bool, Any]:
        if storage_map is not None and var in storage_map and storage_map[var][0] is not None:
            return True, storage_map[var][0]
        if isinstance(var, Constant):
            return True, var.data
        return False, None

    def name_of(var: Variable) -> str:
        name = unique_name(var)
        if var not in fgraph.inputs:
            fixed, value = fixed_value(var)
            if fixed and name not in env:
                env[name] = type_conversion_fn(value, variable=var, storage=[value], **kwargs)
        return name

    for node in order:
        fn = op_conversion_fn(node.op, node=node, storage_map=storage_map, **kwargs)
        fn_name = unique_name(fn)
        env[fn_name] = fn
        ins = ", ".join(name_of(v) for v in node.inputs)
        outs = [unique_name(v) for v in node.outputs]
        body.extend(_comment(node))
        target = outs[0] if len(outs) == 1 else ", ".join(outs)
        body.append(f"    {target} = {fn_name}({ins})")
    args = [unique_name(v) for v in fgraph.inputs]
    results = [name_of(v) for v in fgraph.outputs]
    if squeeze_output and len(results) == 1:
        ret = results[0]
    else:
        ret = "(" + ", ".join(results) + ("," if len(results) == 1 else "") + ")"
    src = "\n".join([f"def {fgraph_name}({', '.join(args)}):", *body, f"    return {ret}", ""])
    return compile_function_src(src, fgraph_name, env, local_env)
