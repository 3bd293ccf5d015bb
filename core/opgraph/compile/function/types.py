"""``function()``: compile symbolic inputs/outputs into a Python callable.

Pipeline (see docs/architecture.md): check and collect inputs, outputs,
updates and givens (:mod:`opgraph.compile.prepare`); build a FunctionGraph;
attach the Features the mode needs; run the mode's rewrites (if a rewrite
database is installed); link with the mode's linker; wrap the result in a
:class:`Function` whose call path is generated code (:mod:`.callpath`).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any

from opgraph.compile.callpath import (
    CallPlan,
    InputSlot,
    build_call,
    copy_value,
    make_filter,
    native_filter,
)
from opgraph.compile.flags import flag
from opgraph.compile.function.aliasing import aliasable_groups, argument_pairs, unalias
from opgraph.compile.function.handles import Finder, VMHandle
from opgraph.compile.io import In, Out, wrap_in, wrap_out
from opgraph.compile.linkers import warn_link_fallback
from opgraph.compile.moderecord import EXTRA_PHASES, Mode
from opgraph.compile.ops import deep_copy_op
from opgraph.compile.prepare import GraphSpec, UnusedInputError, prepare_graph
from opgraph.compile.profiling import ProfileStats
from opgraph.compile.query import get_rewriter
from opgraph.compile.resolver import get_mode
from opgraph.config import config
from opgraph.graph.basic import Constant, Variable
from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.utils import InconsistencyError, type_name
from opgraph.link.basic import BackendCompileError, Container, alias_ancestors
from opgraph.link.sharedvalue import SharedVariable
from opgraph.plugins.loading import use_plugin_manager
from opgraph.plugins.records import load_target

__all__ = ["Function", "FunctionMaker", "UnusedInputError", "function", "orig_function"]


def function(
    inputs: Sequence[Any] | None = None,
    outputs: Any = None,
    mode: Any = None,
    updates: Any = None,
    givens: Any = None,
    no_default_updates: bool | Sequence[Any] = False,
    accept_inplace: bool = False,
    name: str | None = None,
    rebuild_strict: bool = True,
    allow_input_downcast: bool | None = None,
    profile: Any = None,
    on_unused_input: str | None = None,
    trust_input: bool = False,
) -> Function:
    """Compile a callable computing ``outputs`` from ``inputs``.

    ``outputs`` may be a Variable (the call returns one value), a list (a
    list), or a dict of name -> Variable (a dict).  ``updates`` maps shared
    variables to expressions written back after every call; ``givens``
    substitutes variables before compiling.
    """
    if inputs is None:
        inputs = []
    if isinstance(inputs, Variable | In) or not isinstance(inputs, Sequence | tuple):
        raise TypeError(
            f"function(): inputs must be a list of Variables or In(...), got "
            f"{type_name(inputs)}; write function([x], ...)"
        )
    single = False
    output_keys = None
    if outputs is None:
        out_items: list[Any] = []
    elif isinstance(outputs, Mapping):
        output_keys = list(outputs)
        out_items = [outputs[k] for k in output_keys]
    elif isinstance(outputs, list | tuple):
        out_items = list(outputs)
    else:
        out_items = [outputs]
        single = True
    wrapped_in = [wrap_in(item, k) for k, item in enumerate(inputs)]
    if allow_input_downcast is not None:
        for item in wrapped_in:
            if item.allow_downcast is None:
                item.allow_downcast = allow_input_downcast
    wrapped_out = [wrap_out(item, k) for k, item in enumerate(out_items)]
    t0 = time.perf_counter()
    spec = prepare_graph(
        wrapped_in, wrapped_out, updates, givens, no_default_updates,
        on_unused_input or flag("on_unused_input"), rebuild_strict,
    )
    if profile is None:
        profile = flag("profile")
    profile_stats = _profile_stats(profile, name)
    mode = get_mode(mode)
    with use_plugin_manager(mode.plugin_manager):  # every hook of this compile: the Mode's
        maker = FunctionMaker(
            spec, mode, accept_inplace=accept_inplace, name=name,
            profile=profile_stats, single=single, output_keys=output_keys,
        )
        fn = maker.create(trust_input=trust_input)
    if profile_stats is not None:
        profile_stats.compile_time += time.perf_counter() - t0
    return fn


def orig_function(
    inputs: Sequence[Any],
    outputs: Any,
    mode: Any = None,
    accept_inplace: bool = False,
    name: str | None = None,
    profile: Any = None,
    on_unused_input: str | None = None,
    output_keys: Any = None,
    trust_input: bool = False,
) -> Function:
    """PyTensor's lower-level entry point: ``In``/``Out`` lists, no updates or givens."""
    if output_keys is not None:
        outputs = dict(zip(output_keys, outputs))
    return function(list(inputs), outputs, mode=mode, accept_inplace=accept_inplace,
                    name=name, profile=profile, on_unused_input=on_unused_input,
                    trust_input=trust_input)


def _profile_stats(profile: Any, name: str | None) -> ProfileStats | None:
    if profile is None or profile is False:
        return None
    if isinstance(profile, ProfileStats):
        return profile
    if profile is True:
        return ProfileStats(name)
    if isinstance(profile, str):
        return ProfileStats(profile)
    raise TypeError(f"function(): profile must be a bool, a name or a ProfileStats, got "
                    f"{type_name(profile)}")


class FunctionMaker:
    """Builds the FunctionGraph of a function and links it; ``create`` makes Functions.

    ``fgraph`` is the rewritten graph: ``fgraph.inputs`` are the explicit
    inputs then the implicit (shared) ones, ``fgraph.outputs`` the user
    outputs then the update expressions.
    """

    def __init__(
        self,
        spec: GraphSpec,
        mode: Mode,
        accept_inplace: bool = False,
        name: str | None = None,
        profile: ProfileStats | None = None,
        single: bool = False,
        output_keys: list[Any] | None = None,
    ) -> None:
        self.spec = spec
        self.inputs: list[In] = spec.inputs
        self.outputs: list[Out] = spec.outputs
        self.mode = mode
        self.name = name
        self.profile = profile
        self.single = single
        self.output_keys = output_keys
        self.accept_inplace = accept_inplace
        t0 = time.perf_counter()
        rewriter = get_rewriter(mode)
        self.rewriter = rewriter
        fgraph = self._new_graph()
        self.fgraph = fgraph
        stats = self._rewrite(fgraph)
        mode.check_rewrites(self._new_graph, self._rewrite, fgraph)
        if profile is not None:
            profile.rewrite_time += time.perf_counter() - t0
            if config.profile_optimizer:
                profile.record_rewrites(stats)
        self.linker = mode.linker
        self.copy_outputs = self._outputs_needing_copy()
        self._copy_root_outputs()

    # -- graph preparation ----------------------------------------------------------------
    def _new_graph(self) -> FunctionGraph:
        """A fresh clone of the user graph with every Feature the mode needs attached."""
        spec = self.spec
        fgraph = FunctionGraph(
            [i.variable for i in spec.inputs],
            [o.variable for o in spec.outputs],
            clone=True,
            # as PyTensor: fn.maker.fgraph.inputs are the user's variables (an input that
            # is computed in the user's graph is cut there: it becomes a fresh root)
            memo={i.variable: i.variable for i in spec.inputs if i.variable.owner is None},
            update_mapping=spec.update_mapping,
        )
        if getattr(fgraph, "name", None) is None:
            fgraph.name = self.name  # PyTensor code reads fn.maker.fgraph.name
        for feature in self.mode.graph_features(fgraph):
            fgraph.attach_feature(feature)
        self._attach_features(fgraph, with_destroy_handler=self.rewriter is not None)
        return fgraph

    def _rewrite(self, fgraph: FunctionGraph) -> Any:
        """Run the mode's registered rewriters and its database rewrites on ``fgraph``.

        Returns the database rewriter's statistics (for ``profile_optimizer``).
        """
        stats = None
        before, after = EXTRA_PHASES
        for extra_rw in self.mode.rewriters_in(before):
            _run_rewriter(extra_rw, fgraph)
        if self.rewriter is not None:
            stats = _run_rewriter(self.rewriter, fgraph)
        for extra_rw in self.mode.rewriters_in(after):
            _run_rewriter(extra_rw, fgraph)
        return stats

    def _mutable_inputs(self, fgraph: FunctionGraph) -> list[Variable]:
        updated = set(self.spec.update_targets)
        # With accept_inplace, an input the caller's own graph overwrites is theirs to lose
        # (as in PyTensor); rewrites still may not overwrite any other input.
        destroyed = _destroyed_roots(fgraph) if self.accept_inplace else set()
        return [
            var
            for k, (var, item) in enumerate(zip(fgraph.inputs, self.inputs))
            if item.mutable or var in destroyed
            or (k in updated and isinstance(item.variable, SharedVariable))
        ]

    def _attach_features(self, fgraph: Any, with_destroy_handler: bool) -> None:
        destroyers = [n for n in fgraph.apply_nodes if getattr(n.op, "destroy_map", None)]
        if destroyers and not self.accept_inplace:
            node = destroyers[0]
            raise TypeError(
                f"function(): the graph contains the in-place operation {node.op} "
                f"(destroy_map {node.op.destroy_map}); pass accept_inplace=True to compile it"
            )
        if destroyers or with_destroy_handler:
            handler = DestroyHandler(mutable_inputs=self._mutable_inputs(fgraph))
            fgraph.attach_feature(handler)
            try:
                handler.validate(fgraph)
            except InconsistencyError as exc:
                raise InconsistencyError(
                    f"function(): unsafe in-place operation: {exc}. Inputs may only be "
                    "overwritten when declared In(x, mutable=True)"
                ) from None
        from opgraph.plugins.manager import call_hook_safely

        pm = self.mode.plugin_manager
        for features in call_hook_safely(pm, "opgraph_compile_features", fgraph=fgraph,
                                         mode=self.mode):
            for feature in features or ():
                fgraph.attach_feature(feature)

    def _outputs_needing_copy(self) -> list[bool]:
        """Which outputs must be copied so the caller never shares memory it should not.

        The rule of docs/modes.md: a returned value is copied when it may alias
        a constant, a shared variable (unless its Out says ``borrow=True``),
        another input (unless both its In and Out allow borrowing) or a later
        output (unless both are borrowed).  An update value is copied when it
        may alias a constant or an input whose storage lives on after the call
        (any input but its own target or another updated shared variable), or
        storage an earlier update already took: each array becomes the state
        of at most one shared variable.
        """
        fgraph = self.fgraph
        shared_in = {fgraph.inputs[k] for k, item in enumerate(self.inputs)
                     if isinstance(item.variable, SharedVariable)}
        updated = {fgraph.inputs[k] for k in self.spec.update_targets
                   if isinstance(self.inputs[k].variable, SharedVariable)}
        in_index = {v: k for k, v in enumerate(fgraph.inputs)}
        n_user = self.spec.n_user_outputs
        update_target = {n_user + j: k for j, k in enumerate(self.spec.update_targets)}
        roots = [alias_ancestors([o]) for o in fgraph.outputs]
        flags = [False] * len(fgraph.outputs)
        claimed: set[Variable] = set()
        for i, k_target in update_target.items():
            target = fgraph.inputs[k_target]
            for var in roots[i]:
                if isinstance(var, Constant) or var in claimed or (
                        var in in_index and var is not target and var not in updated):
                    flags[i] = True
                    break
            if not flags[i]:
                claimed |= roots[i]
        for i in range(n_user):
            borrow = self.outputs[i].borrow
            for var in roots[i]:
                k = in_index.get(var)
                if isinstance(var, Constant) or (
                        k is not None and not borrow
                        and (var in shared_in or not self.inputs[k].borrow)):
                    flags[i] = True
                    break
            if flags[i]:
                continue
            for j in range(i + 1, len(fgraph.outputs)):
                if roots[i] & roots[j] and (j in update_target or not borrow
                                            or not self.outputs[j].borrow):
                    flags[i] = True
                    break
        return flags

    def _copy_root_outputs(self) -> None:
        """An output that is (or is a view of) an input or a constant becomes a
        ``DeepCopyOp`` node.

        PyTensor's graph shape (``fn.maker.fgraph`` has a node per such output;
        PyMC counts them, PyTensor's tests look for it after ``x[1:]``): the copy
        the rule above asks for is then made by the node, so the call does not
        copy again.
        """
        fgraph = self.fgraph
        for i, var in enumerate(list(fgraph.outputs)):
            if self.copy_outputs[i]:
                fgraph.change_node_input("output", i, deep_copy_op(var), reason="insert_deepcopy")
                self.copy_outputs[i] = False

    # -- linking --------------------------------------------------------------------------
    def create(
        self, trust_input: bool = False, containers: Mapping[int, list] | None = None
    ) -> Function:
        """Link the graph into a new Function.

        ``containers`` maps input positions to state cells to use (for
        copies); shared variables otherwise use their own container's cell.
        """
        containers = dict(containers or {})
        state_cells: list[list | None] = []
        input_cells: list[list] = []
        defaults: list[list | None] = []
        for k, item in enumerate(self.inputs):
            var = item.variable
            if k in containers:
                cell = containers[k]
            elif isinstance(var, SharedVariable):
                cell = var.container.storage
            elif isinstance(item.value, Container):
                cell = item.value.storage  # shared with whoever else holds the container
            elif item.value is not None:
                cell = [_filter_default(item, k, self.name)]
            else:
                cell = None
            if item.implicit:
                if cell is None:
                    raise TypeError(f"function(): implicit input {k} ({var}) has no value")
                input_cells.append(cell)
                defaults.append(cell)
            else:
                input_cells.append([None])
                defaults.append(cell)
            state_cells.append(cell)
        t0 = time.perf_counter()
        linker, result, storage_map = self._link(input_cells)
        if self.profile is not None:
            self.profile.linker_time += time.perf_counter() - t0
        return Function(self, linker, result, storage_map, defaults, trust_input)


    def _no_recycling(self) -> list[Variable]:
        """Variables whose buffers a later call must not write into.

        Returned outputs (and whatever they view) unless their Out says
        ``borrow=True``, and every update value (it becomes state the caller
        can read).  Intermediates are absent: a linker may reuse their
        buffers across calls.
        """
        n_user = self.spec.n_user_outputs
        kept = [v for k, (v, out) in enumerate(zip(self.fgraph.outputs, self.outputs))
                if k >= n_user or not out.borrow]
        return [v for v in alias_ancestors(kept) if v.owner is not None]

    def _link(self, input_cells: list[list]) -> tuple[Any, Any, dict[Variable, list]]:
        """Bind and build with the mode's linker, falling back along its preference list.

        A linker that cannot build this graph raises BackendCompileError; when
        the mode lists further linkers, one warning names the reason and the
        log file, and the next usable linker builds it.
        """
        no_recycling = self._no_recycling()
        while True:
            linker = self.linker.accept(self.fgraph, no_recycling=no_recycling,
                                        profile=self.profile)
            storage_map: dict[Variable, list] = {}
            try:
                result = linker.make_thunk(input_storage=input_cells, storage_map=storage_map)
            except BackendCompileError as exc:
                failed = getattr(self.linker, "name", "")
                fallback = self.mode.fallback_linker(failed) if failed else None
                if fallback is None:
                    raise
                warn_link_fallback(self.mode.name, failed, fallback, exc)
                self.linker = fallback
                continue
            return linker, result, storage_map


def _run_rewriter(rewriter: Any, fgraph: Any) -> Any:
    if hasattr(rewriter, "rewrite"):
        return rewriter.rewrite(fgraph)
    return rewriter(fgraph)


def _filter_default(item: In, position: int, fname: str | None) -> Any:
    filt = make_filter(item.variable.type, position, item.name, fname, item.strict,
                       item.allow_downcast)
    return filt(item.value)


DEBUGPRINT = "opgraph.printing:debugprint"
"""What :meth:`Function.dprint` calls (the printing layer is above this one)."""


class Function:
    """A compiled function: call it with values, positionally or by input name.

    ``fn.maker.fgraph`` is the compiled graph; ``fn.trust_input = True``
    skips input checks; ``fn.copy()`` makes an independent copy; ``fn.free()``
    releases intermediate storage.
    """

    def __init__(
        self,
        maker: FunctionMaker,
        linker: Any,
        result: Any,
        storage_map: dict[Variable, list],
        defaults: list[list | None],
        trust_input: bool,
    ) -> None:
        self.maker = maker
        self.linker = linker
        self.vm = VMHandle(result.fn, storage_map, result.thunks, result.order, linker,
                           self._relink)
        self.input_storage = result.input_storage
        self.output_storage = result.output_storage
        self.thunks = result.thunks
        self.nodes = result.order
        self.storage_map = storage_map
        self.name = maker.name
        self.profile = maker.profile
        self._defaults = defaults
        self._slots: list[InputSlot] = []
        for k, (item, cell) in enumerate(zip(maker.inputs, self.input_storage)):
            if item.implicit:
                continue
            filt = make_filter(item.variable.type, k, item.name, self.name, item.strict,
                               item.allow_downcast)
            native = getattr(linker, "native_input_types", ())
            if native:
                filt = native_filter(filt, native, item.variable.type)
            self._slots.append(InputSlot(k, item.name, item.variable.type, cell, filt,
                                         defaults[k]))
        n_user = maker.spec.n_user_outputs
        updates = []
        for j, k in enumerate(maker.spec.update_targets):
            target = defaults[k]
            if target is None:  # an explicit input with an update but no default
                target = defaults[k] = [None]
                self._slots[self._slot_of(k)].default = target
            updates.append((self.output_storage[n_user + j], target))
        groups = aliasable_groups(maker)
        self._potential_aliased_input_groups = groups
        self._alias_pairs = pairs = argument_pairs(groups, self._slots)
        self._plan = CallPlan(
            self.name,
            self._slots,
            result.fn,
            self.output_storage[:n_user],
            maker.copy_outputs[:n_user],
            updates,
            maker.output_keys,
            maker.single,
            self.profile,
            maker.copy_outputs[n_user:],
            (lambda args: unalias(args, pairs)) if pairs else None,
            frozenset(getattr(linker, "alignment_checked_inputs", ())),
        )
        self._trust_input = bool(trust_input)
        self._call = build_call(self._plan, self._trust_input)

    def _relink(self, **link_kwargs: Any) -> None:
        """Link the same graph again with changed linker options, keeping inputs and state."""
        maker = self.maker
        bound = maker.linker.clone(**link_kwargs).accept(
            maker.fgraph, no_recycling=maker._no_recycling(), profile=self.profile)
        storage_map: dict[Variable, list] = {}
        result = bound.make_thunk(input_storage=self.input_storage, storage_map=storage_map)
        Function.__init__(self, maker, bound, result, storage_map, self._defaults,
                          self._trust_input)

    def _slot_of(self, position: int) -> int:
        for s, slot in enumerate(self._slots):
            if slot.position == position:
                return s
        raise KeyError(position)

    # ``f(...)`` calls the generated call path directly: the class attribute is a
    # property (C-level get) returning it, so no Python frame of Function runs per call
    __call__ = property(
        attrgetter("_call"),
        doc="Call with values, positionally or by input name (see callpath.build_call).",
    )

    @property
    def __signature__(self) -> inspect.Signature:
        """What ``inspect.signature(fn)`` shows: the generated call's ``(*args, **kwargs)``."""
        return inspect.signature(self._call)

    @property
    def trust_input(self) -> bool:
        """When True, argument values are stored unchecked (fastest; wrong values crash)."""
        return self._trust_input

    @trust_input.setter
    def trust_input(self, value: bool) -> None:
        self._trust_input = bool(value)
        self._call = build_call(self._plan, self._trust_input)

    # -- introspection and state ----------------------------------------------------------
    @property
    def _finder(self) -> Finder:
        """Containers of the inputs' cells, by variable, name or position (PyTensor's)."""
        return Finder(self)

    @property
    def unpack_single(self) -> bool:
        """True when the function returns a single value rather than a list."""
        return self.maker.single

    @property
    def input_containers(self) -> list[Container]:
        """One Container per input (explicit then implicit), over the cells the call reads."""
        return [self._container(k) for k in range(len(self.maker.inputs))]

    def _container(self, k: int) -> Container:
        item = self.maker.inputs[k]
        cell = self._defaults[k]
        if cell is None:
            cell = self.input_storage[k]
        return Container(item.variable, cell, name=item.name, strict=item.strict,
                         allow_downcast=item.allow_downcast)

    @property
    def fgraph(self) -> Any:
        return self.maker.fgraph

    @property
    def outputs(self) -> list[Any]:
        """The outputs as given to ``function`` (``Out`` items with ``.variable``), as
        PyTensor's ``Function.outputs``."""
        return list(self.maker.outputs)

    def dprint(self, **kwargs: Any) -> Any:
        """``debugprint(self, **kwargs)``: the compiled graph as text (PyTensor's method)."""
        # printing sits above compile: reached through its import string, not imported here
        return load_target(DEBUGPRINT)(self, **kwargs)

    def get_shared(self) -> list[SharedVariable]:
        """The shared variables this function reads or updates."""
        return [i.variable for i in self.maker.inputs if isinstance(i.variable, SharedVariable)]

    def _position(self, key: Any) -> int:
        for k, item in enumerate(self.maker.inputs):
            if key is item.variable or (isinstance(key, str) and item.name == key):
                return k
        if isinstance(key, int) and 0 <= key < len(self.maker.inputs):
            return key
        raise KeyError(f"function {self.name!r} has no input {key!r}")

    def __getitem__(self, key: Any) -> Any:
        """The stored value (default or shared value) of an input, by name or variable."""
        cell = self._defaults[self._position(key)]
        if cell is None:
            raise KeyError(f"input {key!r} has no stored value")
        return cell[0]

    def __setitem__(self, key: Any, value: Any) -> None:
        """Set the stored default of an input (filtered first)."""
        k = self._position(key)
        item = self.maker.inputs[k]
        cell = self._defaults[k]
        new = make_filter(item.variable.type, k, item.name, self.name, item.strict,
                          item.allow_downcast)(value)
        if cell is None:
            cell = self._defaults[k] = [new]
            self._slots[self._slot_of(k)].default = cell
        else:
            cell[0] = new

    def copy(
        self,
        share_memory: bool = False,
        swap: Mapping[SharedVariable, SharedVariable] | None = None,
        delete_updates: bool = False,
        name: str | None = None,
        profile: Any = None,
    ) -> Function:
        """An independent Function computing the same thing.

        Shared variables keep their storage (their value is global state, so
        updates made by either function are seen by both).
        ``share_memory=True`` also shares the stored defaults of other
        inputs; otherwise those are copied.
        ``swap`` replaces shared variables by others of the same type.
        """
        maker = self.maker
        if delete_updates and maker.spec.update_targets:
            return self._recompile_without_updates(name, profile)
        swap = dict(swap or {})
        containers: dict[int, list] = {}
        for k, item in enumerate(maker.inputs):
            var = item.variable
            cell = self._defaults[k]
            if var in swap:
                new = swap.pop(var)
                if not isinstance(new, SharedVariable) or new.type != var.type:
                    raise TypeError(
                        f"copy(swap=...): {var} must be replaced by a shared variable of type "
                        f"{var.type}, got {getattr(new, 'type', type_name(new))}"
                    )
                containers[k] = new.container.storage
            elif isinstance(var, SharedVariable):
                containers[k] = cell  # a shared variable's value is global state: keep it
            elif cell is not None:
                containers[k] = cell if share_memory else [copy_value(cell[0])]
        if swap:
            raise ValueError(f"copy(swap=...): {list(swap)} are not inputs of this function")
        new_maker = maker if (name is None and profile is None) else _renamed(maker, name,
                                                                                profile)
        return new_maker.create(trust_input=self._trust_input, containers=containers)

    def _recompile_without_updates(self, name: str | None, profile: Any) -> Function:
        maker = self.maker
        spec = maker.spec
        n_user = spec.n_user_outputs
        stripped = GraphSpec(
            [_without_update(i) for i in spec.inputs], spec.outputs[:n_user], n_user, []
        )
        new = FunctionMaker(stripped, maker.mode, maker.accept_inplace, name or maker.name,
                            _profile_stats(profile, name), maker.single, maker.output_keys)
        return new.create(trust_input=self._trust_input)

    def free(self) -> None:
        """Drop every intermediate value this function holds (inputs and state stay)."""
        keep = {id(c) for c in self._defaults if c is not None}
        for var, cell in self.storage_map.items():
            if var.owner is not None and id(cell) not in keep:
                cell[0] = None
        for cell in self.input_storage:
            if id(cell) not in keep:
                cell[0] = None

    def __reduce__(self) -> Any:
        """Pickle (and deepcopy) as the recipe: the graph spec, mode and stored values.

        Loading recompiles; cells shared with shared variables or other
        functions pickled together stay shared (pickle's memo).
        """
        m = self.maker
        state = {
            "spec": m.spec, "mode": m.mode, "accept_inplace": m.accept_inplace,
            "name": m.name, "single": m.single, "output_keys": m.output_keys,
            "defaults": self._defaults, "trust_input": self._trust_input,
        }
        return (_restore_function, (state,))

    def __repr__(self) -> str:
        names = ", ".join(s.name or f"<{s.position}>" for s in self._slots)
        return f"<opgraph Function {self.name or ''}({names})>"


def _restore_function(state: dict[str, Any]) -> Function:
    maker = FunctionMaker(state["spec"], state["mode"], state["accept_inplace"], state["name"],
                          None, state["single"], state["output_keys"])
    containers = {k: cell for k, cell in enumerate(state["defaults"]) if cell is not None}
    return maker.create(trust_input=state["trust_input"], containers=containers)


def _without_update(item: In) -> In:
    if item.update is None:
        return item
    return In(item.variable, name=item.name, value=item.value, mutable=item.mutable,
              strict=item.strict, allow_downcast=item.allow_downcast, implicit=item.implicit,
              borrow=item.borrow)


def _renamed(maker: FunctionMaker, name: str | None, profile: Any) -> FunctionMaker:
    import copy as _copy

    new = _copy.copy(maker)
    if name is not None:
        new.name = name
    if profile is not None:
        new.profile = _profile_stats(profile, name or maker.name)
    return new


def _destroyed_roots(fgraph: FunctionGraph) -> set[Variable]:
    """The variables (and what they view) that the graph's in-place Ops overwrite."""
    hit = [node.inputs[i] for node in fgraph.apply_nodes
           for idxs in (getattr(node.op, "destroy_map", None) or {}).values() for i in idxs]
    return alias_ancestors(hit)
