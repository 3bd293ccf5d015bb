"""Graph nodes (Variable, Constant, Apply) and the iterative traversals over them.

Nodes hash and compare by identity (thousands of them live in dicts and sets),
carry no validators (construction is the hot path) and every traversal here
uses an explicit stack, so a chain of 100k nodes never meets the recursion limit.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from opgraph.graph.utils import Scratchpad, type_name

if TYPE_CHECKING:
    from opgraph.graph.op import Op
    from opgraph.graph.type import Type

__all__ = [
    "Apply",
    "Constant",
    "Node",
    "Variable",
    "ancestors",
    "applys_between",
    "as_variables",
    "clone",
    "clone_get_equiv",
    "clone_replace",
    "equal_computations",
    "general_toposort",
    "graph_inputs",
    "io_connection_pattern",
    "io_toposort",
    "is_in_ancestors",
    "orphans_between",
    "variable_depends_on",
    "vars_between",
    "walk",
]

_ids = itertools.count()


class Node:
    """Common base of Variable and Apply (PyTensor's ``Node``)."""

    __slots__ = ()
    _tag: Scratchpad | None  # a slot of each subclass

    @property
    def tag(self) -> Scratchpad:
        """Free-form annotations, created on first use (most nodes never need one).

        Subclasses hold it in their ``_tag`` slot.
        """
        tag = self._tag
        if tag is None:
            tag = self._tag = Scratchpad()
        return tag

    @tag.setter
    def tag(self, value: Scratchpad) -> None:
        self._tag = value

    def get_parents(self) -> list:
        raise NotImplementedError


@attrs.define(eq=False, repr=False, init=False)
class Variable(Node):
    """A symbolic value: the output of an Apply (``owner``) or a graph input."""

    type: Type
    owner: Apply | None
    index: int | None
    name: str | None
    _tag: Scratchpad | None
    _uid: int
    _fn_cache: dict | None

    def __init__(
        self,
        type: Type,
        owner: Apply | None = None,
        index: int | None = None,
        name: str | None = None,
    ) -> None:
        self.type = type
        self.owner = owner
        self.index = index
        self.name = name
        self._tag = None
        self._uid = next(_ids)
        self._fn_cache = None

    @property
    def auto_name(self) -> str:
        return f"auto_{self._uid}"

    def get_parents(self) -> list[Apply]:
        return [self.owner] if self.owner is not None else []

    def clone(self, **kwargs: Any) -> Variable:
        """A new ownerless Variable of the same type, name and tag."""
        cp = type(self).__new__(type(self))
        Variable.__init__(cp, self.type, None, None, kwargs.get("name", self.name))
        if self._tag is not None:
            cp._tag = self._tag.copy()
        return cp

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        owner = self.owner
        if owner is not None:
            if self.index == getattr(owner.op, "default_output", None) or len(owner.outputs) == 1:
                return f"{owner.op}.out"
            return f"{owner.op}.{self.index}"
        return f"<{self.type}>"

    def __repr__(self) -> str:
        return str(self)

    def eval(self, inputs_to_values: Mapping[Variable, Any] | None = None, **kwargs: Any) -> Any:
        """Compile (once per set of inputs) and evaluate this variable."""
        from opgraph.compile.function import function

        inputs_to_values = dict(inputs_to_values or {})
        for k in list(inputs_to_values):
            if isinstance(k, str):
                raise TypeError(
                    f"eval() keys must be Variables, got the string {k!r}; "
                    "pass the variable object itself"
                )
        keys = tuple(sorted(inputs_to_values, key=lambda v: v._uid))
        cache = self._fn_cache
        if cache is None:
            cache = self._fn_cache = {}
        fn_key = (keys, tuple(sorted(kwargs.items())))
        fn = cache.get(fn_key)
        if fn is None:
            fn = cache[fn_key] = function(list(keys), self, **kwargs)
        return fn(*[inputs_to_values[k] for k in keys])


def _signature_of(type_: Any, data: Any) -> Hashable:
    """A hashable stand-in for constant data, so equal constants merge."""
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a core dependency
        np = None
    if np is not None and isinstance(data, np.ndarray | np.generic):
        return ArraySignature(type_, np.asarray(data))
    try:
        hash(data)
    except TypeError:
        return ("id", type_, id(data))
    return (type_, type(data), data)


class ArraySignature:
    """Compares constant arrays by dtype, shape and values; hashes a digest."""

    __slots__ = ("_hash", "data", "type")

    def __init__(self, type_: Any, data: Any) -> None:
        self.type = type_
        self.data = data
        self._hash: int | None = None

    def __hash__(self) -> int:
        if self._hash is None:
            d = self.data
            h = hashlib.blake2b(digest_size=8)
            h.update(str((d.dtype.str, d.shape)).encode())
            if d.size <= 1_000_000:
                h.update(d.tobytes() if d.flags.c_contiguous else d.copy().tobytes())
            else:
                h.update(d.ravel()[:: max(1, d.size // 10_000)].tobytes())
            self._hash = hash((self.type, h.digest()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArraySignature):
            return False
        a, b = self.data, other.data
        if self.type != other.type or a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a is b:
            return True
        if a.dtype.kind in "fc":
            import numpy as np

            return bool(np.array_equal(a, b, equal_nan=True))
        return bool((a == b).all())


@attrs.define(eq=False, repr=False, init=False)
class Constant(Variable):
    """A Variable with a fixed, read-only value; equal constants share a signature."""

    _data: Any

    def __init__(self, type: Type, data: Any, name: str | None = None) -> None:
        Variable.__init__(self, type, None, None, name)
        self._data = _freeze(type.filter(data))

    @property
    def data(self) -> Any:
        return self._data

    @data.setter
    def data(self, value: Any) -> None:
        raise AttributeError(
            f"Constant {self} is read-only: build a new Constant instead of assigning .data"
        )

    @property
    def value(self) -> Any:
        return self._data

    def signature(self) -> Hashable:
        return _signature_of(self.type, self._data)

    def equals(self, other: object) -> bool:
        return isinstance(other, Constant) and self.signature() == other.signature()

    def get_parents(self) -> list:
        return []

    def clone(self, **kwargs: Any) -> Constant:
        cp = type(self).__new__(type(self))
        Variable.__init__(cp, self.type, None, None, kwargs.get("name", self.name))
        cp._data = self._data
        if self._tag is not None:
            cp._tag = self._tag.copy()
        return cp

    @property
    def owner(self) -> None:  # type: ignore[override]
        return None

    @owner.setter
    def owner(self, value: Any) -> None:
        if value is not None:
            raise ValueError(f"Constant {self} cannot have an owner")

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        text = str(self._data)
        if len(text) > 20:
            text = text[:10].strip() + " ... " + text[-5:].strip()
        return f"{type(self).__name__}{{{text}}}"


def _freeze(data: Any) -> Any:
    """Read-only view of array data; the caller's array is copied, never locked."""
    flags = getattr(data, "flags", None)
    if flags is not None and getattr(flags, "writeable", False):
        try:
            data = data.copy()
            data.flags.writeable = False
        except (AttributeError, ValueError):
            pass
    return data


@attrs.define(eq=False, repr=False, init=False)
class Apply(Node):
    """One application of an Op to input Variables, producing output Variables."""

    op: Op
    inputs: list[Variable]
    outputs: list[Variable]
    _tag: Scratchpad | None

    def __init__(self, op: Op, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        # The hot path of graph building: one pass per list when everything is
        # well formed; the detailed checks run only to explain a failure.
        if not isinstance(inputs, list | tuple) or not isinstance(outputs, list | tuple):
            self._reject(op, inputs, outputs)
        inputs = list(inputs)
        outputs = list(outputs)
        for x in inputs:
            if not isinstance(x, Variable):
                self._reject(op, inputs, outputs)
        for o in outputs:
            if not isinstance(o, Variable) or o.owner is not None:
                self._check_outputs(op, outputs)
                break
        self.op = op
        self.inputs = inputs
        self.outputs = outputs
        self._tag = None
        i = 0
        for o in outputs:
            o.owner = self
            o.index = i
            i += 1

    def _reject(self, op: Op, inputs: Any, outputs: Any) -> None:
        """Raise the TypeError that names the malformed inputs or outputs."""
        for what, seq in (("inputs", inputs), ("outputs", outputs)):
            if not isinstance(seq, list | tuple):
                raise TypeError(
                    f"Apply of {op}: {what} must be a list or tuple of Variables, "
                    f"got {type_name(seq)}"
                )
        for i, x in enumerate(inputs):
            if not isinstance(x, Variable):
                raise TypeError(
                    f"Apply of {op}: input {i} must be a Variable, "
                    f"got {type_name(x)} {x!r:.80}"
                )

    def _check_outputs(self, op: Op, outputs: list) -> None:
        """Raise unless every output is a Variable free to be owned by this node."""
        for i, o in enumerate(outputs):
            if not isinstance(o, Variable):
                raise TypeError(
                    f"Apply of {op}: output {i} must be a Variable, "
                    f"got {type_name(o)} {o!r:.80}"
                )
            if o.owner is not None and (o.owner is not self or o.index != i):
                raise ValueError(
                    f"Apply of {op}: output {i} ({o}) already belongs to another Apply "
                    f"({o.owner.op}); outputs must be fresh Variables"
                )

    def default_output(self) -> Variable:
        """The output ``op(...)`` returns: ``op.default_output``, or the only one."""
        do = getattr(self.op, "default_output", None)
        if do is None:
            if len(self.outputs) == 1:
                return self.outputs[0]
            raise ValueError(
                f"{self.op} has {len(self.outputs)} outputs and no default_output; "
                "pick one with node.outputs[i]"
            )
        if not isinstance(do, int) or not -len(self.outputs) <= do < len(self.outputs):
            raise ValueError(
                f"{self.op}.default_output must be an int index into {len(self.outputs)} "
                f"outputs, got {do!r}"
            )
        return self.outputs[do]

    @property
    def out(self) -> Variable:
        return self.default_output()

    @property
    def nin(self) -> int:
        return len(self.inputs)

    @property
    def nout(self) -> int:
        return len(self.outputs)

    @property
    def params_type(self) -> Any:
        return getattr(self.op, "params_type", None)

    def get_parents(self) -> list[Variable]:
        return list(self.inputs)

    def clone(self, clone_inner_graph: bool = False) -> Apply:
        """Same op and inputs, fresh outputs."""
        op = self.op
        if clone_inner_graph and hasattr(op, "clone") and hasattr(op, "inner_outputs"):
            op = op.clone()
        cp = Apply(op, self.inputs, [o.clone() for o in self.outputs])
        if self._tag is not None:
            cp._tag = self._tag.copy()
        return cp

    def clone_with_new_inputs(
        self, inputs: Sequence[Variable], strict: bool = True, clone_inner_graph: bool = False
    ) -> Apply:
        """This node applied to ``inputs``; remade through make_node if types change."""
        if len(inputs) != len(self.inputs):
            raise ValueError(
                f"clone_with_new_inputs of {self.op}: expected {len(self.inputs)} inputs, "
                f"got {len(inputs)}"
            )
        new_inputs = list(inputs)
        remake = False
        for i, (cur, new) in enumerate(zip(self.inputs, new_inputs)):
            if cur.type != new.type:
                if strict:
                    conv = cur.type.filter_variable(new)
                    new_inputs[i] = conv
                    if conv.type != cur.type:
                        remake = True
                else:
                    remake = True
        if remake:
            node = self.op.make_node(*new_inputs)
            if self._tag is not None:
                node._tag = self._tag.copy().update(node.tag)
            return node
        node = self.clone(clone_inner_graph=clone_inner_graph)
        node.inputs = new_inputs
        return node

    def __str__(self) -> str:
        ins = ", ".join(str(i) for i in self.inputs)
        return f"{self.op}({ins})"

    def __repr__(self) -> str:
        return str(self)


def as_variables(values: Iterable[Any]) -> list[Variable]:
    """Check that every value is a Variable, naming the first one that is not."""
    out = list(values)
    for i, v in enumerate(out):
        if not isinstance(v, Variable):
            raise TypeError(f"item {i}: expected a Variable, got {type_name(v)} {v!r:.80}")
    return out


def _as_list(x: Any) -> list:
    if isinstance(x, Variable | Apply):
        return [x]
    return list(x)


# --------------------------------------------------------------------------- traversals


def walk(
    nodes: Iterable[Any],
    expand: Callable[[Any], Iterable[Any] | None],
    bfs: bool = True,
    return_children: bool = False,
    hash_fn: Callable[[Any], Hashable] = id,
) -> Iterator[Any]:
    """Visit every node reachable through ``expand`` once (BFS or DFS)."""
    queue: deque = deque(nodes)
    seen: set = set()
    pop = queue.popleft if bfs else queue.pop
    while queue:
        node = pop()
        key = hash_fn(node)
        if key in seen:
            continue
        seen.add(key)
        children = expand(node)
        if return_children:
            yield node, children
        else:
            yield node
        if children:
            if bfs:
                queue.extend(children)
            else:
                queue.extend(reversed(list(children)))


def ancestors(
    graphs: Iterable[Variable], blockers: Iterable[Variable] | None = None
) -> Iterator[Variable]:
    """Every variable that ``graphs`` depend on (including themselves), DFS order."""
    blocked = set(blockers) if blockers is not None else ()

    def expand(v: Variable) -> list[Variable] | None:
        if v.owner is not None and v not in blocked:
            return list(reversed(v.owner.inputs))
        return None

    yield from walk(_as_list(graphs), expand, bfs=False)


def graph_inputs(
    graphs: Iterable[Variable], blockers: Iterable[Variable] | None = None
) -> list[Variable]:
    """The ownerless (or blocked) variables the graphs start from."""
    blocked = set(blockers) if blockers is not None else set()
    return [v for v in ancestors(graphs, blocked) if v.owner is None or v in blocked]


def vars_between(ins: Iterable[Variable], outs: Iterable[Variable]) -> Iterator[Variable]:
    """Variables on paths from ``ins`` (exclusive of their parents) to ``outs``."""
    ins_set = set(ins)

    def expand(v: Variable) -> list[Variable] | None:
        if v.owner is not None and v not in ins_set:
            return list(reversed(v.owner.inputs + v.owner.outputs))
        return None

    yield from walk(_as_list(outs), expand, bfs=False)


def applys_between(ins: Iterable[Variable], outs: Iterable[Variable]) -> Iterator[Apply]:
    """Apply nodes between ``ins`` and ``outs``."""
    seen: set = set()
    for v in vars_between(ins, outs):
        o = v.owner
        if o is not None and o not in seen:
            seen.add(o)
            yield o


def orphans_between(ins: Iterable[Variable], outs: Iterable[Variable]) -> Iterator[Variable]:
    """Ownerless variables reached from ``outs`` that are not in ``ins``."""
    ins_set = set(ins)
    for v in vars_between(ins_set, outs):
        if v.owner is None and v not in ins_set:
            yield v


def variable_depends_on(
    variable: Variable, depends_on: Iterable[Variable], stop_search_at: Iterable[Variable] = ()
) -> bool:
    """True if ``variable`` has any of ``depends_on`` among its ancestors."""
    targets = set(depends_on)
    return any(v in targets for v in ancestors([variable], blockers=stop_search_at))


def is_in_ancestors(l_apply: Apply, f_node: Apply) -> bool:
    """True if ``f_node`` is ``l_apply`` or one of its ancestors."""
    return any(v.owner is f_node for v in ancestors(l_apply.inputs)) or l_apply is f_node


def general_toposort(
    outputs: Iterable[Any],
    deps: Callable[[Any], Iterable[Any]],
) -> list[Any]:
    """Postorder of everything reachable from ``outputs`` through ``deps``."""
    order: list = []
    done: set = set()
    on_stack: set = set()
    for root in outputs:
        if root in done:
            continue
        stack = [(root, iter(deps(root)))]
        on_stack.add(root)
        while stack:
            node, it = stack[-1]
            for d in it:
                if d in done:
                    continue
                if d in on_stack:
                    raise ValueError(f"graph contains a cycle through {d}")
                on_stack.add(d)
                stack.append((d, iter(deps(d))))
                break
            else:
                stack.pop()
                on_stack.discard(node)
                done.add(node)
                order.append(node)
    return order


def _postorder_nodes(
    in_set: Any, outputs: Iterable[Variable], orphans: list[Variable] | None = None
) -> list[Apply]:
    """Apply nodes feeding ``outputs`` (not crossing ``in_set``), producers first.

    The hot path of toposort, clone and FunctionGraph construction: one
    explicit-stack depth-first walk, each node and edge visited once. ``in_set``
    should be a set (any other container is copied into one: a membership test
    on a list would make the walk quadratic). When ``orphans`` is a list, it
    receives the ownerless inputs of the walked nodes that are not in ``in_set``
    (so FunctionGraph import finds missing inputs without a second pass).
    """
    if not isinstance(in_set, set | frozenset | dict):
        in_set = set(in_set)
    order: list[Apply] = []
    seen: set = set()  # every node pushed so far
    active: set = set()  # the nodes on the stack: reaching one again is a cycle
    seen_add = seen.add
    active_add = active.add
    active_discard = active.discard
    append = order.append
    want_orphans = orphans is not None
    for out in outputs:
        root = out.owner
        if root is None or root in seen or out in in_set:
            continue
        seen_add(root)
        active_add(root)
        stack = [(root, iter(root.inputs))]
        push = stack.append
        pop = stack.pop
        while stack:
            node, it = stack[-1]
            for x in it:
                own = x.owner
                if own is None:
                    if want_orphans and x not in in_set:
                        orphans.append(x)
                    continue
                if own in seen:
                    if own in active and x not in in_set:
                        raise ValueError(f"graph contains a cycle through {own}")
                    continue
                if x in in_set:
                    continue
                seen_add(own)
                active_add(own)
                push((own, iter(own.inputs)))
                break
            else:
                pop()
                active_discard(node)
                append(node)
    return order


def io_toposort(
    inputs: Iterable[Variable],
    outputs: Iterable[Variable],
    orderings: Mapping[Apply, Iterable[Apply]] | None = None,
    clients: Any = None,
) -> list[Apply]:
    """Apply nodes between inputs and outputs, each after everything it needs.

    ``orderings`` maps a node to extra nodes that must run before it.
    """
    in_set = set(inputs)
    outputs = list(outputs)
    if not orderings:
        return _postorder_nodes(in_set, outputs)

    def deps(node: Apply) -> list[Apply]:
        out = [i.owner for i in node.inputs if i.owner is not None and i not in in_set]
        extra = orderings.get(node)
        if extra:
            out.extend(extra)
        return out

    reachable = set(_postorder_nodes(in_set, outputs))
    roots = [o.owner for o in outputs if o.owner is not None and o not in in_set]
    roots.extend(n for n in orderings if n in reachable)
    order = general_toposort(roots, deps)
    return [n for n in order if n in reachable]


# --------------------------------------------------------------------------- cloning


def _plain_clone(cls: type) -> bool:
    """True when ``cls.clone`` is ``Variable.clone`` (so cloning may skip the call)."""
    plain = _PLAIN_CLONE.get(cls)
    if plain is None:
        plain = _PLAIN_CLONE[cls] = cls.clone is Variable.clone
    return plain


_PLAIN_CLONE: dict[type, bool] = {}


def _clone_node_fast(node: Apply, new_inputs: list[Variable]) -> Apply:
    """``node.clone_with_new_inputs`` when the input types are unchanged, minus the checks.

    Outputs whose class keeps ``Variable.clone`` are filled in directly (the same
    fields ``Variable.clone`` sets, with owner and index already right): cloning
    is the inner loop of ``FunctionGraph.clone``.
    """
    new = _new_object(Apply)
    new.op = node.op
    new.inputs = new_inputs
    tag = node._tag
    new._tag = tag.copy() if tag is not None else None
    outs = []
    i = 0
    for o in node.outputs:
        cls = type(o)
        if _PLAIN_CLONE.get(cls) or _plain_clone(cls):
            c = _new_object(cls)
            c.type = o.type
            c.owner = new
            c.index = i
            c.name = o.name
            otag = o._tag
            c._tag = otag.copy() if otag is not None else None
            c._uid = next(_ids)
            c._fn_cache = None
        else:
            c = o.clone()
            c.owner = new
            c.index = i
        outs.append(c)
        i += 1
    new.outputs = outs
    return new


_new_object = object.__new__
_new_apply = _new_object  # the former name, kept for callers


def clone_get_equiv(
    inputs: Iterable[Variable],
    outputs: Iterable[Variable],
    copy_inputs: bool = True,
    copy_orphans: bool = True,
    memo: dict | None = None,
    clone_inner_graphs: bool = False,
    **kwargs: Any,
) -> dict:
    """Clone the graph between inputs and outputs; return the old -> new map.

    The map holds Variables and Apply nodes. Nodes whose inputs keep their
    types are copied directly; the others are remade through ``make_node``.
    """
    if memo is None:
        memo = {}
    inputs = list(inputs)
    outputs = list(outputs)
    for x in inputs:
        if x not in memo:
            memo[x] = x.clone() if copy_inputs else x
    get = memo.get
    fast = not clone_inner_graphs
    for node in _postorder_nodes(set(inputs), outputs):
        new_inputs = []
        same = True
        for x in node.inputs:
            nx = get(x)
            if nx is None:
                nx = memo[x] = x.clone() if copy_orphans else x
            elif nx.type is not x.type and nx.type != x.type:
                same = False
            new_inputs.append(nx)
        if same and fast and type(node) is Apply:
            new_node = _clone_node_fast(node, new_inputs)
        else:
            new_node = node.clone_with_new_inputs(
                new_inputs, strict=False, clone_inner_graph=clone_inner_graphs
            )
        memo[node] = new_node
        olds = node.outputs
        if len(olds) == 1:
            old = olds[0]
            if old not in memo:
                memo[old] = new_node.outputs[0]
        else:
            for old, new in zip(olds, new_node.outputs):
                if old not in memo:
                    memo[old] = new
    for o in outputs:
        if o not in memo:
            memo[o] = o.clone() if copy_orphans else o
    return memo


def clone(
    inputs: Sequence[Variable],
    outputs: Sequence[Variable],
    copy_inputs: bool = True,
    copy_orphans: bool | None = None,
    clone_inner_graphs: bool = False,
) -> tuple[list[Variable], list[Variable]]:
    """Copies of ``inputs`` and ``outputs`` and of everything between them."""
    if copy_orphans is None:
        copy_orphans = copy_inputs
    equiv = clone_get_equiv(inputs, outputs, copy_inputs, copy_orphans, None, clone_inner_graphs)
    return [equiv[i] for i in inputs], [equiv[o] for o in outputs]


def clone_replace(
    output: Any,
    replace: Mapping[Variable, Variable] | Sequence[tuple[Variable, Variable]] | None = None,
    **rebuild_kwds: Any,
) -> Any:
    """Clone ``output`` (a variable or a list) with some variables substituted."""
    items = list(replace.items()) if isinstance(replace, Mapping) else list(replace or [])
    single = isinstance(output, Variable)
    outs = [output] if single else list(output)
    tmp = {}
    for old, new in items:
        if not isinstance(old, Variable) or not isinstance(new, Variable):
            raise TypeError(
                f"clone_replace: replacement pairs must be Variables, got "
                f"{type_name(old)} -> {type_name(new)}"
            )
        tmp[old] = new
    # Clone everything downstream of the replaced variables, keep the rest.
    memo: dict = dict(tmp)
    for node in io_toposort([], outs):
        if node in memo:
            continue
        new_inputs = [memo.get(i, i) for i in node.inputs]
        if any(a is not b for a, b in zip(new_inputs, node.inputs)) or rebuild_kwds.get(
            "copy_all"
        ):
            new_node = node.clone_with_new_inputs(new_inputs, strict=False)
            memo[node] = new_node
            for a, b in zip(node.outputs, new_node.outputs):
                memo[a] = b
    res = [memo.get(o, o) for o in outs]
    return res[0] if single else res


def equal_computations(
    xs: Sequence[Variable],
    ys: Sequence[Variable],
    in_xs: Sequence[Variable] | None = None,
    in_ys: Sequence[Variable] | None = None,
    strict_dtype: bool = True,
) -> bool:
    """True if ``xs`` and ``ys`` compute the same thing from corresponding inputs."""
    xs, ys = list(xs), list(ys)
    if len(xs) != len(ys):
        return False
    in_xs = list(in_xs or [])
    in_ys = list(in_ys or [])
    if len(in_xs) != len(in_ys):
        return False
    equiv: dict = {}
    partners: set = set()
    for a, b in zip(in_xs, in_ys):
        if a.type != b.type:
            return False
        equiv[a] = b
        partners.add(b)
    stack = list(zip(xs, ys))
    seen: set = set()
    while stack:
        x, y = stack.pop()
        key = (id(x), id(y))
        if key in seen:
            continue
        if x in equiv:
            if equiv[x] is not y:
                return False
            continue
        if y in partners:  # y is a declared input but x is not its partner
            return False
        if x.type != y.type:
            return False
        if isinstance(x, Constant) or isinstance(y, Constant):
            if not (isinstance(x, Constant) and isinstance(y, Constant)):
                return False
            if x.signature() != y.signature():
                return False
            continue
        xo, yo = x.owner, y.owner
        if xo is None or yo is None:
            if x is not y:
                return False
            continue
        if x.index != y.index or xo.op != yo.op or len(xo.inputs) != len(yo.inputs):
            return False
        seen.add(key)
        stack.extend(zip(xo.inputs, yo.inputs))
    return True


def io_connection_pattern(
    inputs: Sequence[Variable], outputs: Sequence[Variable]
) -> list[list[bool]]:
    """``pattern[i][j]`` is True when output ``j`` depends on input ``i``."""
    inputs = list(inputs)
    index = {v: i for i, v in enumerate(inputs)}
    reach: dict = {v: 1 << i for v, i in index.items()}
    for node in io_toposort(inputs, outputs):
        mask = 0
        for x in node.inputs:
            mask |= reach.get(x, 0)
        for o in node.outputs:
            reach[o] = mask
    pattern = []
    for i in range(len(inputs)):
        bit = 1 << i
        pattern.append([bool(reach.get(o, 0) & bit) for o in outputs])
    return pattern
