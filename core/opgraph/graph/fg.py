"""FunctionGraph: a graph bounded by inputs and outputs, with client tracking.

The container every rewrite and linker works on. It records who uses each
variable (``clients``) so the graph can be walked in both directions, keeps
``apply_nodes`` and ``variables`` exact under import / replace / prune, and
notifies attached Features of every change.

Cost model: each operation touches only the nodes it imports, prunes or
rewires; nothing walks the whole graph except ``toposort`` (cached until the
next structural change), ``check_integrity`` and ``clone``.

Graph outputs are clients too: output ``i`` is the pair ``("output", i)`` in
``clients[var]``, and ``change_node_input("output", i, v)`` replaces it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

import attrs

from opgraph.config import config
from opgraph.graph.basic import (
    Apply,
    AtomicVariable,
    Variable,
    _postorder_nodes,
    clone_get_equiv,
    general_toposort,
    graph_inputs,
)
from opgraph.graph.cycles import cycle_through
from opgraph.graph.feature_host import FeatureHost
from opgraph.graph.features import ReplaceValidate
from opgraph.graph.frozen import (
    MUTABLE_GRAPH,
    AbstractFunctionGraph,
    FrozenFunctionGraph,
    Output,
    _debugprint,
)
from opgraph.graph.integrity import check_integrity
from opgraph.graph.null_type import NullType
from opgraph.graph.utils import InconsistencyError, MissingInputError, type_name

__all__ = ["OUTPUT", "ClientType", "FrozenFunctionGraph", "FunctionGraph", "InnerFunctionGraph",
           "Output"]

class _OutputClient(str):
    """The string ``"output"`` that also answers as PyTensor 3's output client node.

    opgraph marks graph outputs in ``clients`` with ``("output", i)``; PyTensor 3
    uses an Apply of an ``Output`` Op there, and code written for it reads
    ``client.op`` (PyMC: ``match client.op: case Output(): ...``) or
    ``client.outputs``.  This str compares equal to ``"output"``, so opgraph's own
    checks (``client == "output"``, ``isinstance(client, str)``) are unchanged.
    """

    __slots__ = ()
    op = Output(None)
    outputs: tuple = ()


#: The pseudo-node that stands for the graph's outputs in ``clients``.
OUTPUT: Literal["output"] = _OutputClient("output")  # type: ignore[assignment]

ClientType = tuple[Apply | Literal["output"], int]

_MAX_STR_NODES = 200


class Clients(dict):
    """``{variable: [(node, i), ...]}`` for the variables of one graph.

    Holds exactly the graph's variables; looking up any other variable gives
    an empty list (not stored), so stale variables read as "unused".
    """

    __slots__ = ()

    def __missing__(self, key: Variable) -> list[ClientType]:
        return []


def _node_label(node: Any) -> str:
    return "output" if node == OUTPUT else str(node)


@attrs.define(eq=False, repr=False, slots=False, init=False)
@AbstractFunctionGraph.register
class FunctionGraph(FeatureHost):
    """A subgraph between ``inputs`` and ``outputs`` that Features can watch.

    ``clone=True`` (the default) works on a copy, so the caller's variables are
    never modified; ``clone=False`` adopts the given variables.
    """

    inputs: list[Variable]
    outputs: list[Variable]
    clients: Clients
    apply_nodes: set[Apply]
    variables: set[Variable]
    update_mapping: dict | None
    _features: list[Any]

    def __init__(
        self,
        inputs: Sequence[Variable] | None = None,
        outputs: Sequence[Variable] | None = None,
        features: Sequence[Any] | None = None,
        clone: bool = True,
        update_mapping: dict | None = None,
        **clone_kwds: Any,
    ) -> None:
        if outputs is None:
            raise ValueError("No outputs specified: FunctionGraph needs a list of outputs")
        if isinstance(outputs, Variable) or not isinstance(outputs, Iterable):
            raise TypeError(
                f"FunctionGraph outputs must be a list of Variables, got {type_name(outputs)} "
                f"('{type_name(outputs)}' object is not iterable)"
            )
        outputs = list(outputs)
        if inputs is None:
            inputs = [i for i in graph_inputs(outputs) if not isinstance(i, AtomicVariable)]
        elif isinstance(inputs, Variable) or not isinstance(inputs, Iterable):
            raise TypeError(
                f"FunctionGraph inputs must be a list of Variables, got {type_name(inputs)} "
                f"('{type_name(inputs)}' object is not iterable)"
            )
        inputs = list(inputs)
        for kind, seq in (("input", inputs), ("output", outputs)):
            for k, v in enumerate(seq):
                if not isinstance(v, Variable):
                    raise TypeError(
                        f"FunctionGraph {kind} {k} must be a Variable, got {type_name(v)} {v!r:.60}"
                    )
        if clone:
            equiv = clone_get_equiv(inputs, outputs, **clone_kwds)
            inputs = [equiv[i] for i in inputs]
            outputs = [equiv[o] for o in outputs]

        self.inputs = []
        self.outputs = []
        self.clients = Clients()
        self.apply_nodes = set()
        self.variables = set()
        self.update_mapping = update_mapping
        self._features = []
        self._callbacks: dict[str, list] = {}
        self._order_features: list[Any] = []
        self._topo_cache: list[Apply] | None = None
        self.execute_callbacks_times: dict[Any, float] = {}
        self._input_cache: tuple[int, set[Variable]] | None = None

        for v in inputs:
            if v.owner is not None:
                raise ValueError(
                    "One of the provided inputs is the output of an already existing node. "
                    "If that is okay, either discard that input's owner or use graph.clone. "
                    f"(FunctionGraph input {v} is the output of {v.owner.op})"
                )
            if v in self.variables:  # listed twice: kept in ``inputs`` (as in PyTensor)
                self.inputs.append(v)
                continue
            self.add_input(v, check=False)

        order = self._import_graph(outputs, reason="init", import_missing=False, check=True)
        for i, out in enumerate(outputs):
            self.outputs.append(out)
            self.clients[out].append((OUTPUT, i))
        self._topo_cache = order
        for f in features or ():
            self.attach_feature(f)
        # As in PyTensor: every graph can checkpoint/revert and validate replacements.
        self.attach_feature(ReplaceValidate())

    # ------------------------------------------------------------------ inputs/vars
    def add_input(self, var: Variable, check: bool = True) -> None:
        """Add an ownerless variable as a new input of the graph."""
        if check and var in self.inputs:
            return
        if not isinstance(var, Variable):
            raise TypeError(f"add_input: expected a Variable, got {type_name(var)}")
        if var.owner is not None:
            raise ValueError(
                f"add_input: {var} is the output of {var.owner.op} and cannot be a graph "
                f"input; pass an ownerless variable (e.g. var.type() or var.clone() of an "
                f"input)"
            )
        self.inputs.append(var)
        self.setup_var(var)
        self.variables.add(var)

    def setup_var(self, var: Variable) -> None:
        """Give ``var`` a (possibly empty) client list in this graph."""
        self.clients.setdefault(var, [])

    def setup_node(self, node: Apply) -> None:
        """Check what this graph needs of a node before it is imported."""
        op = node.op
        for attr in ("view_map", "destroy_map"):
            m = getattr(op, attr, None)
            if not m:
                continue
            if not isinstance(m, dict):
                raise TypeError(f"{op}.{attr} must be a dict {{output: [inputs]}}, got {m!r}")
            for o, ins in m.items():
                if not isinstance(ins, list | tuple):
                    raise TypeError(
                        f"{op}.{attr}[{o}] must be a list of input indices, got {ins!r}"
                    )

    def get_clients(self, var: Variable) -> list[ClientType]:
        """The ``(node, i)`` pairs such that ``node.inputs[i] is var``."""
        return self.clients[var]

    def add_client(self, var: Variable, new_client: ClientType) -> None:
        """Record that ``new_client = (node, i)`` uses ``var``."""
        if not isinstance(new_client, tuple) or len(new_client) != 2:
            raise TypeError(f"a client is a (node, index) pair, got {new_client!r}")
        if not (isinstance(new_client[0], Apply) or new_client[0] == OUTPUT):
            raise TypeError(
                f"The first entry of a client must be an Apply node or {OUTPUT!r}, "
                f"got {type_name(new_client[0])}"
            )
        cl = self.clients.get(var)
        if cl is None:
            raise KeyError(f"add_client: {var} is not a variable of this FunctionGraph")
        cl.append(new_client)

    def remove_client(
        self,
        var: Variable,
        client_to_remove: ClientType,
        reason: str | None = None,
        remove_if_empty: bool = False,
    ) -> None:
        """Drop one client of ``var``; prune whatever is left unused, upward.

        A variable left without clients leaves ``variables`` and ``clients``
        (so ``remove_if_empty`` is always in effect) unless it is a graph input.
        """
        self._remove_clients([(var, client_to_remove)], reason, remove_if_empty)

    def _remove_clients(
        self, stack: list[tuple[Variable, Any]], reason: str | None, remove_if_empty: bool
    ) -> None:
        """Pop ``(var, client)`` pairs (client None: already removed), pruning upward."""
        clients = self.clients
        while stack:
            var, client = stack.pop()
            var_clients = clients.get(var)
            if var_clients is None:
                continue
            if client is not None:
                try:
                    var_clients.remove(client)
                except ValueError:
                    pass  # already gone: an earlier pruning step removed it
            if var_clients:
                continue
            owner = var.owner
            if owner is None:
                if var not in self._inputs_set():
                    self.variables.discard(var)
                    del clients[var]
                continue
            if owner not in self.apply_nodes:
                continue
            if any(clients.get(o) for o in owner.outputs):
                continue
            self._topo_cache = None
            self.apply_nodes.remove(owner)
            self.variables.difference_update(owner.outputs)
            for o in owner.outputs:
                clients.pop(o, None)
            _note(owner, "removed_by", reason)
            self.execute_callbacks("on_prune", owner, reason)
            for i, inp in enumerate(owner.inputs):
                stack.append((inp, (owner, i)))

    def _inputs_set(self) -> set[Variable]:
        """``set(self.inputs)``, rebuilt only when the inputs list changed."""
        cached = self._input_cache
        if cached is None or cached[0] != len(self.inputs):
            cached = self._input_cache = (len(self.inputs), set(self.inputs))
        return cached[1]

    # ------------------------------------------------------------------ importing
    def _import_graph(
        self,
        outputs: Sequence[Variable],
        reason: str | None,
        import_missing: bool,
        check: bool = True,
    ) -> list[Apply]:
        """Import everything ``outputs`` need; return the new nodes in order.

        Everything is checked before the graph changes, so an error leaves it
        untouched.
        """
        variables = self.variables
        orphans: list[Variable] | None = [] if check else None
        new_nodes = _postorder_nodes(variables, outputs, orphans)
        apply_nodes = self.apply_nodes
        if apply_nodes and new_nodes:  # only a corrupted graph walks into its own nodes
            new_nodes = [n for n in new_nodes if n not in apply_nodes]
        if check and (
            any(not isinstance(x, AtomicVariable) for x in orphans)
            or any(
                o.owner is None and o not in variables and not isinstance(o, AtomicVariable)
                for o in outputs
            )
        ):
            self._import_missing(new_nodes, outputs, import_missing)
        if new_nodes:
            self._connect(new_nodes, reason)
        for out in outputs:
            if out not in variables:  # ownerless constants and known inputs
                variables.add(out)
                self.clients.setdefault(out, [])
        return new_nodes

    def _import_missing(
        self, new_nodes: list[Apply], outputs: Sequence[Variable], import_missing: bool
    ) -> None:
        """Raise for the first undeclared input (in import order), or add them all as inputs."""
        variables = self.variables
        missing: list[tuple[Variable, Apply | None]] = []
        for node in new_nodes:
            for x in node.inputs:
                if x.owner is None and x not in variables and not isinstance(x, AtomicVariable):
                    missing.append((x, node))
        for out in outputs:
            if out.owner is None and out not in variables and not isinstance(out, AtomicVariable):
                missing.append((out, None))
        if not import_missing:
            var, node = missing[0]
            where = f"needed by {node}" if node is not None else "requested as an output"
            raise MissingInputError(
                f"Input {var} (of type {var.type}) is not an input of this FunctionGraph, "
                f"{where}; add it to the inputs or pass import_missing=True",
                variable=var,
            )
        for var, _ in missing:
            if var not in variables:
                self.add_input(var)

    def _connect(self, new_nodes: list[Apply], reason: str | None) -> None:
        """Add already-checked nodes (in topological order): the bulk of construction."""
        self._topo_cache = None
        cls = type(self)
        custom_setup = (
            cls.setup_var is not FunctionGraph.setup_var
            or cls.setup_node is not FunctionGraph.setup_node
        )
        on_import = self._callbacks_for("on_import")
        if custom_setup or on_import:
            self._connect_each(new_nodes, reason, custom_setup, on_import)
            return
        clients = self.clients
        get = clients.get
        add_node = self.apply_nodes.add
        add_var = self.variables.add
        setup_node = self.setup_node
        for node in new_nodes:
            op = node.op
            if op.view_map or op.destroy_map:
                setup_node(node)
            add_node(node)
            for o in node.outputs:
                add_var(o)
                clients[o] = []
            i = 0
            for x in node.inputs:
                cl = get(x)
                if cl is None:  # an ownerless variable seen for the first time
                    add_var(x)
                    cl = clients[x] = []
                cl.append((node, i))
                i += 1

    def _connect_each(
        self, new_nodes: list[Apply], reason: str | None, custom_setup: bool, on_import: list
    ) -> None:
        """``_connect`` with subclass setup hooks and on_import callbacks, node by node."""
        variables = self.variables
        clients = self.clients
        add_node = self.apply_nodes.add
        add_var = variables.add
        get = clients.get
        for node in new_nodes:
            op = node.op
            if custom_setup or op.view_map or op.destroy_map:
                self.setup_node(node)
            add_node(node)
            for o in node.outputs:
                add_var(o)
                clients[o] = []
                if custom_setup:
                    self.setup_var(o)
            for i, x in enumerate(node.inputs):
                cl = get(x)
                if cl is None:  # an ownerless variable seen for the first time
                    add_var(x)
                    cl = clients[x] = []
                    if custom_setup:
                        self.setup_var(x)
                cl.append((node, i))
            for cb in on_import:
                cb(self, node, reason)

    def import_node(
        self,
        apply_node: Apply,
        check: bool = True,
        reason: str | None = None,
        import_missing: bool = False,
    ) -> None:
        """Import ``apply_node`` and everything it needs that is not in the graph."""
        if not isinstance(apply_node, Apply):
            raise TypeError(f"import_node: expected an Apply, got {type_name(apply_node)}")
        for node in self._import_graph(apply_node.outputs, reason, import_missing, check):
            _note(node, "imported_by", reason)

    def import_var(
        self, var: Variable, reason: str | None = None, import_missing: bool = False
    ) -> None:
        """Import ``var`` with its owner and the owner's ancestors."""
        if not isinstance(var, Variable):
            raise TypeError(f"import_var: expected a Variable, got {type_name(var)}")
        if var in self.variables:
            return
        if isinstance(var.type, NullType):
            raise TypeError(
                f"Computation graph contains a NullType variable {var}, which has no value: "
                f"{var.type.why_null}"
            )
        for node in self._import_graph([var], reason, import_missing, True):
            _note(node, "imported_by", reason)

    # ------------------------------------------------------------------ rewiring
    def change_node_input(
        self,
        node: Apply | Literal["output"],
        i: int,
        new_var: Variable,
        reason: str | None = None,
        import_missing: bool = False,
        check: bool = True,
    ) -> None:
        """Make ``node.inputs[i]`` (or output ``i`` for ``"output"``) be ``new_var``.

        Refused (graph unchanged) when ``new_var`` is computed from ``node`` itself.
        """
        if node != OUTPUT:
            if node not in self.apply_nodes:
                raise ValueError(f"change_node_input: {node} is not in this FunctionGraph")
            self._refuse_cycle([node], node.inputs[i], new_var)
        self._rewire(node, i, new_var, reason, import_missing, check)

    def _refuse_cycle(self, targets: list[Any], var: Variable, new_var: Variable) -> None:
        new_node, old_node = new_var.owner, var.owner
        if new_node is None or (
            old_node is not None and all(x in old_node.inputs for x in new_node.inputs)
        ):
            # ``new`` reads only what ``var``'s own node reads (a merge of duplicates, a
            # node rebuilt over the same inputs): a target above ``new`` would read ``var``
            # and feed ``var``'s inputs, a cycle the graph cannot already hold.  O(inputs)
            # instead of a search, which made merging a long chain quadratic.
            return
        culprit = cycle_through(targets, new_var, self.clients, self.apply_nodes)
        if culprit is not None:
            raise InconsistencyError(
                f"replacing {var} by {new_var} would create a cycle: {new_var} is computed "
                f"from {culprit}, which uses {var}; the graph is unchanged"
            )

    def _rewire(
        self, node: Apply | Literal["output"], i: int, new_var: Variable, reason: str | None,
        import_missing: bool, check: bool,
    ) -> None:
        if node == OUTPUT:
            node = OUTPUT  # the marker carrying ``.op``, whatever string the caller passed
            r = self.outputs[i]
        else:
            r = node.inputs[i]
        if check and not r.type.is_super(new_var.type):
            raise TypeError(
                f"The type of the replacement ({new_var.type}, of {new_var}) must be compatible "
                f"with the type of the original Variable ({r.type}, of {r})"
            )
        if r is new_var:
            return
        self.import_var(new_var, reason=reason, import_missing=import_missing)
        if node == OUTPUT:
            self.outputs[i] = new_var
        else:
            node.inputs[i] = new_var
        self._topo_cache = None
        self.clients[new_var].append((node, i))
        self.remove_client(r, (node, i), reason=reason)
        self.execute_callbacks("on_change_input", node, i, r, new_var, reason=reason)

    def replace(
        self,
        var: Variable,
        new_var: Variable,
        reason: str | None = None,
        verbose: bool | None = None,
        import_missing: bool = False,
    ) -> None:
        """Make every client of ``var`` use ``new_var`` instead.

        ``verbose`` (default ``config.optimizer_verbose``) prints the replacement,
        unless ``reason`` is listed in ``config.optimizer_verbose_ignore``.
        """
        if verbose is None:
            verbose = getattr(config, "optimizer_verbose", False)
            if verbose:
                ignored = getattr(config, "optimizer_verbose_ignore", "") or ""
                verbose = str(reason) not in [n.strip() for n in ignored.split(",")]
        if verbose:
            print(
                f"rewriting: rewrite {reason} replaces {var} of {var.owner} "
                f"with {new_var} of {getattr(new_var, 'owner', None)}"
            )
        if not isinstance(new_var, Variable):
            raise TypeError(
                f"replace: the replacement of {var} must be a Variable, got {type_name(new_var)}"
            )
        new_var = var.type.filter_variable(new_var, allow_convert=True)
        if var not in self.variables:
            return  # not in the graph (e.g. an unused output of a multi-output node)
        targets = list(self.clients[var])  # before importing: new_var may use var itself
        if not targets:
            return
        self._refuse_cycle([node for node, _ in targets], var, new_var)
        if var._tag is not None and new_var.owner is not None and (
            getattr(new_var.tag, "trace", None) is None
        ):
            trace = getattr(var._tag, "trace", None)
            if trace:
                new_var.tag.trace = trace  # a rewrite's result was built where var was
        if new_var not in self.variables:
            self.import_var(new_var, reason=reason, import_missing=import_missing)
        for node, i in targets:
            self._rewire(node, i, new_var, reason, import_missing, True)

    def replace_all(self, pairs: Iterable[tuple[Variable, Variable]], **kwargs: Any) -> None:
        """``replace`` each ``(var, new_var)`` pair in turn."""
        for var, new_var in pairs:
            self.replace(var, new_var, **kwargs)

    # ------------------------------------------------------------------ removal
    def remove_node(self, node: Apply, reason: str | None = None) -> None:
        """Remove ``node``, everything computed from it, and what becomes orphaned."""
        if node not in self.apply_nodes:
            return
        stack = [node]
        clients = self.clients
        while stack:
            cur = stack[-1]
            if cur not in self.apply_nodes:
                stack.pop()
                continue
            user = None
            for o in cur.outputs:
                cl = clients.get(o)
                if cl:
                    user = cl[-1]
                    break
            if user is None:
                stack.pop()
                self._prune(cur, reason)
            elif user[0] == OUTPUT:
                self.remove_output(user[1], reason=reason)
            else:
                stack.append(user[0])

    def _prune(self, node: Apply, reason: str | None) -> None:
        """Drop an Apply whose outputs have no clients, then its unused inputs."""
        self._topo_cache = None
        self.apply_nodes.remove(node)
        self.variables.difference_update(node.outputs)
        for o in node.outputs:
            self.clients.pop(o, None)
        _note(node, "removed_by", reason)
        self.execute_callbacks("on_prune", node, reason)
        for i, inp in enumerate(node.inputs):
            self.remove_client(inp, (node, i), reason=reason)

    def remove_input(self, input_idx: int, reason: str | None = None) -> None:
        """Remove input ``input_idx`` and everything that depends on it."""
        var = self.inputs[input_idx]
        clients = self.clients
        while clients.get(var):
            node, i = clients[var][-1]
            if node == OUTPUT:
                self.remove_output(i, reason=reason)
            else:
                self.remove_node(node, reason=reason)
        del self.inputs[input_idx]
        self._input_cache = None
        self.variables.discard(var)
        clients.pop(var, None)
        self._topo_cache = None

    def remove_output(self, output_idx: int, reason: str | None = None) -> None:
        """Remove output ``output_idx``; later outputs shift down by one."""
        outputs = self.outputs
        var = outputs[output_idx]
        clients = self.clients
        clients[var].remove((OUTPUT, output_idx))
        del outputs[output_idx]
        for k in range(output_idx, len(outputs)):
            cl = clients[outputs[k]]
            cl[cl.index((OUTPUT, k + 1))] = (OUTPUT, k)
        self._topo_cache = None
        self._remove_clients([(var, None)], reason, False)

    def add_output(
        self, var: Variable, reason: str | None = None, import_missing: bool = False
    ) -> None:
        """Append ``var`` to the outputs, importing what it needs."""
        if not isinstance(var, Variable):
            raise TypeError(f"add_output: expected a Variable, got {type_name(var)}")
        self.import_var(var, reason=reason, import_missing=import_missing)
        self.outputs.append(var)
        self.clients[var].append((OUTPUT, len(self.outputs) - 1))
        self._topo_cache = None

    # ------------------------------------------------------------------ ordering
    def orderings(self) -> dict[Apply, list[Apply]]:
        """``{node: [nodes that must run before it]}`` merged from every Feature."""
        merged: dict[Apply, list[Apply]] = {}
        for f in self._order_features:
            ords = f.orderings(self)
            if not isinstance(ords, dict):
                raise TypeError(
                    f"{type(f).__name__}.orderings must return a dict "
                    f"{{node: [prerequisites]}}, got {type_name(ords)}"
                )
            for node, prereqs in ords.items():
                if not prereqs:
                    continue
                lst = merged.setdefault(node, [])
                seen = set(lst)
                for p in prereqs:
                    if p not in seen:
                        seen.add(p)
                        lst.append(p)
        return merged

    def toposort(self) -> list[Apply]:
        """Every Apply node, each after its inputs' owners and its Feature orderings."""
        if self._order_features:
            ords = self.orderings()
            if ords:
                return self._toposort_with(ords)
        cache = self._topo_cache
        if cache is None:
            cache = self._topo_cache = _postorder_nodes(self._inputs_set(), self.outputs)
        return list(cache)

    def _toposort_with(self, ords: dict[Apply, list[Apply]]) -> list[Apply]:
        def deps(node: Apply) -> list[Apply]:
            out = [x.owner for x in node.inputs if x.owner is not None]
            extra = ords.get(node)
            if extra:
                out.extend(extra)
            return out

        roots = [o.owner for o in self.outputs if o.owner is not None]
        roots.extend(n for n in ords if n in self.apply_nodes)
        return general_toposort(roots, deps)

    # ------------------------------------------------------------------ checking
    def check_integrity(self) -> None:
        """Raise if clients, apply_nodes or variables disagree with the graph's edges.

        Linear time; see :mod:`opgraph.graph.integrity`.
        """
        check_integrity(self)

    # ------------------------------------------------------------------ cloning
    def clone(self, check_integrity: bool = True) -> FunctionGraph:
        """A copy of this graph (new nodes and variables, cloned Features)."""
        return self.clone_get_equiv(check_integrity)[0]

    def clone_get_equiv(
        self, check_integrity: bool = True, attach_feature: bool = True, **kwargs: Any
    ) -> tuple[FunctionGraph, dict]:
        """A copy of this graph and the map from old nodes/variables to new ones."""
        equiv = clone_get_equiv(self.inputs, self.outputs, **kwargs)
        new = FunctionGraph(
            [equiv[i] for i in self.inputs],
            [equiv[o] for o in self.outputs],
            clone=False,
            update_mapping=dict(self.update_mapping) if self.update_mapping else None,
        )
        if check_integrity:
            new.check_integrity()
        if attach_feature:
            for feature in self._features:
                clone = getattr(feature, "clone", None)
                new.attach_feature(clone() if callable(clone) else feature)
        return new, equiv

    # ------------------------------------------------------------------ dunders
    def __contains__(self, item: Any) -> bool:
        if isinstance(item, Variable):
            return item in self.variables
        if isinstance(item, Apply):
            return item in self.apply_nodes
        raise TypeError(
            f"'in FunctionGraph' expects a Variable or an Apply, got {type_name(item)}"
        )

    def __str__(self) -> str:
        if len(self.apply_nodes) > _MAX_STR_NODES:
            return (
                f"FunctionGraph({len(self.inputs)} inputs, {len(self.outputs)} outputs, "
                f"{len(self.apply_nodes)} nodes)"
            )
        return f"FunctionGraph({', '.join(_graph_strings(self))})"

    def __repr__(self) -> str:
        return str(self)

    def __copy__(self) -> FunctionGraph:
        return self.clone()

    @property
    def features(self) -> list[Any]:
        """The attached Features, in attachment order (a copy)."""
        return list(self._features)

    def dprint(self, **kwargs: Any) -> Any:
        """``debugprint(self, **kwargs)``; loads ``opgraph.printing`` on first use."""
        return _debugprint(self, **kwargs)

    def freeze(self) -> FrozenFunctionGraph:
        """An immutable, hashable copy: equal graphs freeze to equal objects."""
        return FrozenFunctionGraph(self.inputs, self.outputs)


def _note(node: Apply, field: str, reason: Any) -> None:
    """Append ``reason`` to ``node.tag.<field>`` (who imported or removed the node)."""
    if not isinstance(reason, str | None):
        reason = str(reason)  # rewriters are often unpicklable; their names are enough
    tag = node.tag
    seen = getattr(tag, field, None)
    if seen is None:
        setattr(tag, field, [reason])
    else:
        seen.append(reason)


def _graph_strings(fgraph: FunctionGraph) -> list[str]:
    """Output expressions; a value used twice is written ``*k -> expr`` once, then ``*k``.

    Only used for small graphs (``__str__`` summarises big ones), so recursion is safe.
    """
    clients = fgraph.clients
    labels: dict[Variable, str] = {}

    def render(v: Variable) -> str:
        owner = v.owner
        if owner is None:  # as in PyTensor, computed values show their expression, not name
            return str(v)
        if v in labels:
            return labels[v]
        text = f"{owner.op}({', '.join(render(x) for x in owner.inputs)})"
        if len(owner.outputs) > 1:
            text += f".{v.index}"
        if len(clients.get(v, ())) > 1:
            labels[v] = f"*{len(labels) + 1}"
            return f"{labels[v]} -> {text}"
        return text

    return [render(o) for o in fgraph.outputs]


MUTABLE_GRAPH.append(FunctionGraph)  # what FrozenFunctionGraph.unfreeze builds


class InnerFunctionGraph(FunctionGraph):
    """An inner-graph Op's ``op.fgraph`` (Scan, OpFromGraph): its clones keep the inputs.

    PyTensor builds inner graphs on nominal input variables, which a clone keeps;
    code written for it (PyMC's measurable-scan rewrite, CustomDist's support
    point) clones ``op.fgraph`` and then replaces ``op.inner_inputs`` in the clone.
    Here the clone shares the input variables for the same reason; its nodes and
    every other variable are new.
    """

    def clone_get_equiv(self, check_integrity: bool = True, attach_feature: bool = True,
                        **kwargs: Any) -> tuple[FunctionGraph, dict]:
        kwargs.setdefault("copy_inputs", False)
        return super().clone_get_equiv(check_integrity, attach_feature, **kwargs)
