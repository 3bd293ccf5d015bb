"""OpFromGraph: a graph wrapped as one Op, compiled once and shared by every equal Op.

Why it exists: a block reused many times (a layer, a cell) costs one node
per use in the outer graph instead of its whole body, so compiling the outer
graph stays linear in the number of uses, and the body is compiled once.
"""

from __future__ import annotations

import copy
import threading
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import opgraph.tensor as pt
from opgraph.autodiff.undefined import is_disconnected, is_null
from opgraph.compile.function import function
from opgraph.compile.io import In
from opgraph.compile.sharedvalue import SharedVariable
from opgraph.gradient import NullTypeGradError, Rop, grad, register_batching_rule
from opgraph.graph.basic import Apply, Variable, clone, clone_replace, io_toposort
from opgraph.graph.fg import FunctionGraph, InnerFunctionGraph
from opgraph.graph.op import EqualByValueKey, HasInnerGraph, Op
from opgraph.graph.traversal import ancestors
from opgraph_ofg.batching import batch_opfromgraph
from opgraph_ofg.inner import (
    GraphKey,
    _fresh,
    build_inner_graph,
    connection_pattern_of,
)
from opgraph_ofg.overrides import DEFAULT, Marker, Overrides, normalize_overrides
from opgraph_ofg.shapes import infer_inner_shapes

__all__ = ["OpFromGraph"]

#: function() arguments OpFromGraph forwards; updates and givens are refused.
_FUNCTION_KWARGS = frozenset({
    "mode", "name", "accept_inplace", "rebuild_strict", "allow_input_downcast", "profile",
    "on_unused_input", "trust_input", "no_default_updates",
})

_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_COMPILE_LOCK = threading.RLock()


def _freeze(value: Any) -> Any:
    """A hashable stand-in for a setting (identity for unhashable objects)."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return value


def _pick(who: str, new: Any, old: Any, new_name: str, old_name: str) -> Any:
    """The override given under either of two names (both at once is an error)."""
    def given(v: Any) -> bool:
        return v is not None and not (isinstance(v, str) and v == "default")

    if given(new) and given(old):
        raise ValueError(f"{who}: {new_name} and its alias {old_name} are the same "
                         "argument; give only one")
    return new if given(new) else old


class OpFromGraph(EqualByValueKey, Op, HasInnerGraph):
    """An Op whose computation is the graph from ``inputs`` to ``outputs``.

    Behaves like ``function(inputs, outputs, **kwargs)`` inside another
    graph.  See docs/opfromgraph.md for every argument.
    """

    def __init__(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        *,
        inline: bool = False,
        pullback: Any = None,
        pushforward: Any = None,
        lop_overrides: Any = None,
        rop_overrides: Any = None,
        connection_pattern: Sequence[Sequence[bool]] | None = None,
        strict: bool = False,
        name: str | None = None,
        destroy_map: dict[int, Sequence[int]] | None = None,
        grad_overrides: Any = None,
        **kwargs: Any,
    ) -> None:
        who = f"OpFromGraph{'' if name is None else f' {name!r}'}"
        self._check_kwargs(who, kwargs)
        if not isinstance(inputs, list):
            raise TypeError(f"{who}: inputs must be a list of Variables; got "
                            f"{type(inputs).__name__}")
        if isinstance(outputs, Variable):
            outputs = [outputs]
        if not isinstance(outputs, list):
            raise TypeError(f"{who}: outputs must be a list of Variables; got "
                            f"{type(outputs).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"{who}: name must be a string or None; got {type(name).__name__}")
        self.name = name
        self.is_inline = bool(inline)
        self.strict = bool(strict)
        self.kwargs = dict(kwargs)

        inner = build_inner_graph(inputs, outputs, who, self.strict,
                                  allow_repeated=kwargs.get("on_unused_input") == "ignore")
        self.inner_inputs_: list[Variable] = inner.inputs
        self.inner_outputs_: list[Variable] = inner.outputs
        self.shared_inputs: list[Variable] = inner.shared
        self.n_explicit_inputs: int = inner.n_explicit

        if grad_overrides is not None and not _is_default_str(grad_overrides):
            warnings.warn(f"{who}: grad_overrides is the deprecated Theano name; use pullback",
                          DeprecationWarning, stacklevel=2)
        for old, new, value in (("lop_overrides", "pullback", lop_overrides),
                                ("rop_overrides", "pushforward", rop_overrides)):
            if value is not None and not _is_default_str(value):
                warnings.warn(f"{who}: {old} is deprecated; use {new}", FutureWarning,
                              stacklevel=2)
        pull = _pick(who, pullback, lop_overrides, "pullback", "lop_overrides")
        pull = _pick(who, pull, grad_overrides, "pullback", "grad_overrides")
        push = _pick(who, pushforward, rop_overrides, "pushforward", "rop_overrides")
        self.lop_overrides = pull
        self.rop_overrides = push
        self._pullback_given, self._pushforward_given = pull, push
        explicit = self.inner_inputs_[: self.n_explicit_inputs]
        self._pullback_spec: Overrides = normalize_overrides(
            pull, "pullback", who, explicit, self.inner_outputs_, ofg_type=OpFromGraph)
        self._pushforward_spec: Overrides = normalize_overrides(
            push, "pushforward", who, explicit, self.inner_outputs_, ofg_type=OpFromGraph)

        self._given_pattern = connection_pattern is not None
        self._pattern = self._check_pattern(who, connection_pattern)
        self.destroy_map = self._check_destroy_map(who, destroy_map)
        self._reset_caches()

    # -- construction helpers ---------------------------------------------------------
    @staticmethod
    def _check_kwargs(who: str, kwargs: dict[str, Any]) -> None:
        for bad in ("updates", "givens"):
            if bad in kwargs:
                raise NotImplementedError(
                    f"{who}: {bad} are not supported: an OpFromGraph computes its outputs "
                    f"from its inputs only (no {bad}); apply them to the outer function()"
                )
        unknown = sorted(set(kwargs) - _FUNCTION_KWARGS)
        if unknown:
            raise TypeError(
                f"{who}: unexpected keyword argument(s) {unknown}; extra keywords are "
                f"forwarded to function() and must be among {sorted(_FUNCTION_KWARGS)}"
            )

    def _check_pattern(self, who: str, given: Any) -> list[list[bool]]:
        n_in, n_out = len(self.inner_inputs_), len(self.inner_outputs_)
        computed = connection_pattern_of(self.inner_inputs_, self.inner_outputs_)
        if given is None:
            return computed
        rows = [list(r) for r in given]
        if len(rows) == self.n_explicit_inputs and len(rows) != n_in:
            rows += computed[self.n_explicit_inputs:]  # shared inputs: computed
        if len(rows) != n_in or any(len(r) != n_out for r in rows):
            raise ValueError(
                f"{who}: connection_pattern must have one row per input "
                f"({self.n_explicit_inputs}) of one boolean per output ({n_out}); got {given}"
            )
        return [[bool(b) for b in r] for r in rows]

    def _check_destroy_map(self, who: str, dm: Any) -> dict[int, list[int]]:
        if not dm:
            return {}
        if not isinstance(dm, dict):
            raise TypeError(f"{who}: destroy_map must be a dict {{output: [inputs]}}; got "
                            f"{type(dm).__name__}")
        out: dict[int, list[int]] = {}
        for o, ins in dm.items():
            ins = [ins] if isinstance(ins, int) else list(ins)
            if not (isinstance(o, int) and 0 <= o < len(self.inner_outputs_)):
                raise ValueError(f"{who}: destroy_map key {o!r} is not an output index "
                                 f"(0..{len(self.inner_outputs_) - 1})")
            for i in ins:
                if not (isinstance(i, int) and 0 <= i < self.n_explicit_inputs):
                    raise ValueError(f"{who}: destroy_map[{o}] names {i!r}, which is not an "
                                     f"input index (0..{self.n_explicit_inputs - 1})")
            out[o] = sorted(set(ins))
        return out

    def _reset_caches(self) -> None:
        self._fgraph: Any = None
        self._key: Any = None
        self._fn: Any = None
        self._lop: tuple[Any, list[Any]] | None = None
        self._rop: tuple[Any, list[Any]] | None = None
        self._restricted_cache: dict[tuple, OpFromGraph] = {}

    def _evolve(self, **changes: Any) -> OpFromGraph:
        """A copy with some settings changed; the (immutable) inner graph is shared."""
        new = copy.copy(self)
        for k, v in changes.items():
            setattr(new, k, v)
        new._reset_caches()
        return new

    # -- HasInnerGraph ----------------------------------------------------------------
    @property
    def inner_inputs(self) -> list[Variable]:
        return self.inner_inputs_

    @property
    def inner_outputs(self) -> list[Variable]:
        return self.inner_outputs_

    @property
    def input_types(self) -> list[Any]:
        """The Types of the inner inputs (PyTensor's attribute; PyMC's Ops read it)."""
        return [v.type for v in self.inner_inputs_]

    @property
    def output_types(self) -> list[Any]:
        """The Types of the inner outputs."""
        return [v.type for v in self.inner_outputs_]

    @property
    def fgraph(self) -> FunctionGraph:
        """The inner graph as a FunctionGraph (built on first use, on the inner variables)."""
        fg = self._fgraph
        if fg is None:
            fg = self._fgraph = InnerFunctionGraph(self.inner_inputs_, self.inner_outputs_,
                                                   clone=False)
        return fg

    @property
    def has_overrides(self) -> bool:
        """Whether a pullback or pushforward override was given."""
        return not (self._pullback_spec.is_default and self._pushforward_spec.is_default)

    def clone(self) -> OpFromGraph:
        """A copy with its own inner nodes on the same inner inputs (equal to this one)."""
        new = self._evolve()
        ins, outs = clone(self.inner_inputs_, self.inner_outputs_, copy_inputs=False)
        new.inner_inputs_, new.inner_outputs_ = ins, outs
        return new

    # -- equality ---------------------------------------------------------------------
    def _value_key(self) -> Any:
        key = self._key
        if key is None:
            key = self._key = (
                self.n_explicit_inputs,
                GraphKey(self.inner_inputs_, self.inner_outputs_),
                tuple(map(id, self.shared_inputs)),
                self._pullback_spec.key(),
                self._pushforward_spec.key(),
                self.is_inline,
                self.strict,
                self.name,
                _freeze(self.destroy_map),
                _freeze(self._pattern) if self._given_pattern else None,
                _freeze(self.kwargs),
            )
        return key

    def __str__(self) -> str:
        return f"{self.name or type(self).__name__}{{inline={self.is_inline}}}"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_fn"] = None
        return state

    # -- building nodes ---------------------------------------------------------------
    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        if len(inputs) not in (self.n_explicit_inputs, len(self.inner_inputs_)):
            raise ValueError(f"{self}: Expected at least {self.n_explicit_inputs} input(s) "
                             f"({self._input_names()}); got {len(inputs)}")
        return super().__call__(*inputs, **kwargs)

    def _input_names(self) -> str:
        return ", ".join(str(v) for v in self.inner_inputs_[: self.n_explicit_inputs])

    def make_node(self, *inputs: Any) -> Apply:
        """A node on the explicit inputs, optionally followed by one per shared variable.

        Shared inputs other than the Op's own give a new Op whose inner graph
        reads them instead (a non-shared replacement becomes an explicit input).
        """
        n, n_all = self.n_explicit_inputs, len(self.inner_inputs_)
        if len(inputs) not in (n, n_all):
            extra = f", or {n_all} with its shared variables" if n_all != n else ""
            raise ValueError(f"{self}: Expected {n} input(s) ({self._input_names()}){extra}; "
                             f"got {len(inputs)}")
        given_shared = list(inputs[n:])
        if given_shared and any(a is not b for a, b in zip(given_shared, self.shared_inputs)):
            return self._with_shared(list(inputs[:n]), given_shared)
        inputs = inputs[:n]
        converted = []
        for k, (x, inner) in enumerate(zip(inputs, self.inner_inputs_)):
            try:
                converted.append(inner.type.filter_variable(x, allow_convert=True))
            except (TypeError, ValueError) as exc:
                given = getattr(x, "type", type(x).__name__)
                raise TypeError(
                    f"{self}: input {k} ({inner}) must have type {inner.type}; got {x!s:.40} "
                    f"of type {given}: {exc}"
                ) from None
        outputs = [o.type() for o in self.inner_outputs_]
        return Apply(self, converted + list(self.shared_inputs), outputs)

    def _with_shared(self, explicit: list[Any], given_shared: list[Any]) -> Apply:
        """A node of an Op like this one whose inner graph reads ``given_shared``."""
        n = self.n_explicit_inputs
        replace = dict(zip(self.inner_inputs_[n:], given_shared))
        outputs = clone_replace(list(self.inner_outputs_), replace)
        unshared = [v for v in given_shared if not isinstance(v, SharedVariable)]
        kept = [v for v in self.inner_inputs_[n:] if replace[v] in unshared]
        pattern = None
        if self._given_pattern and not kept:
            pattern = [list(r) for r in self._pattern[:n]]
        new_op = type(self)(
            list(self.inner_inputs_[:n]) + unshared, outputs,
            inline=self.is_inline, pullback=self._pullback_given,
            pushforward=self._pushforward_given, connection_pattern=pattern,
            strict=self.strict, name=self.name, destroy_map=self.destroy_map or None,
            **self.kwargs,
        )
        return new_op.make_node(*explicit, *unshared)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [list(r) for r in self._pattern]

    # -- computing --------------------------------------------------------------------
    @property
    def fn(self) -> Any:
        """The compiled inner function (compiled on first access, shared by equal Ops)."""
        fn = self._fn
        if fn is None:
            fn = self._fn = _compiled_function(self)
        return fn

    def prepare_node(self, node: Apply, storage_map: Any, compute_map: Any,
                     impl: str | None) -> None:
        self.fn  # noqa: B018 - compile at link time, once for all equal Ops

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]
                ) -> None:
        fn = self._fn
        if fn is None:
            fn = self.fn
        results = fn(*inputs)
        for cell, value in zip(output_storage, results):
            cell[0] = value

    def _make_function(self) -> Any:
        destroyed = {i for ins in self.destroy_map.values() for i in ins}
        ins = [In(v, mutable=k in destroyed) for k, v in enumerate(self.inner_inputs_)]
        kw = dict(self.kwargs)
        kw.setdefault("on_unused_input", "ignore")
        kw.setdefault("accept_inplace", True)
        if self.name is not None:
            kw.setdefault("name", self.name)
        fn = function(ins, list(self.inner_outputs_), **kw)
        fn.trust_input = True
        return fn

    def inplace_on_inputs(self, allowed_inplace_inputs: list[int]) -> OpFromGraph:
        """A version allowed to overwrite the given (explicit) inputs; self if none."""
        allowed = sorted({i for i in allowed_inplace_inputs if 0 <= i < self.n_explicit_inputs}
                         | {i for ins in self.destroy_map.values() for i in ins})
        if not allowed or not self.inner_outputs_ or self.is_inline:
            return self
        return self._evolve(destroy_map={0: allowed})

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        """Output shapes from the inner graph's shape inference, in terms of the node inputs."""

        return infer_inner_shapes(self, node, input_shapes)

    # -- differentiation --------------------------------------------------------------
    def _output_stand_ins(self) -> list[Variable]:
        """Inner outputs usable as inputs of a gradient Op (fresh dummies where not)."""
        seen: set[Variable] = set()
        inputs = set(self.inner_inputs_)
        out = []
        for o in self.inner_outputs_:
            if o.owner is None or o in seen or o in inputs:
                out.append(_fresh(o))
            else:
                seen.add(o)
                out.append(o)
        return out

    def _gradient_op(self, ins: list[Variable], results: list[Any], suffix: str
                     ) -> tuple[OpFromGraph | None, list[Any]]:
        """An OpFromGraph computing the real results; slots map items to it or to markers."""
        slots: list[Any] = []
        real: list[Variable] = []
        for r in results:
            marker = r if isinstance(r, Marker) else Marker.of(r)
            if marker is not None:
                slots.append(marker)
            else:
                slots.append(len(real))
                real.append(r)
        if not real:
            return None, slots
        name = None if self.name is None else f"{self.name}_{suffix}"
        op = OpFromGraph(ins, real, inline=self.is_inline, name=name, **self.kwargs)
        return op, slots

    def _pullback_parts(self) -> tuple[OpFromGraph | None, list[Any]]:
        if self._lop is None:
            ins = list(self.inner_inputs_)
            outs = self._output_stand_ins()
            grads = [_fresh(o) for o in self.inner_outputs_]
            for g in grads:
                g.name = None if g.name is None else f"g_{g.name}"
            n = self.n_explicit_inputs
            results = self._pullback_spec.resolve(ins[:n], outs, grads)
            results += [DEFAULT] * (len(ins) - n)
            if any(isinstance(r, str) and r == DEFAULT for r in results):
                defaults = _default_pullback(ins, self.inner_outputs_, grads)
                results = [d if isinstance(r, str) and r == DEFAULT else r
                           for r, d in zip(results, defaults)]
            self._lop = self._gradient_op(ins + outs + grads, results, "pullback")
        return self._lop

    def _pushforward_parts(self) -> tuple[OpFromGraph | None, list[Any]]:
        if self._rop is None:
            ins = list(self.inner_inputs_)
            outs = self._output_stand_ins()
            evals = [_fresh(v) for v in ins]
            n = self.n_explicit_inputs
            results = self._pushforward_spec.resolve(ins[:n], outs, evals[:n])
            if any(isinstance(r, str) and r == DEFAULT for r in results):
                defaults = _default_pushforward(ins, self.inner_outputs_, evals)
                results = [d if isinstance(r, str) and r == DEFAULT else r
                           for r, d in zip(results, defaults)]
            self._rop = self._gradient_op(ins + outs + evals, results, "pushforward")
        return self._rop

    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        op, slots = self._pullback_parts()
        values: list[Variable] = []
        if op is not None:
            cots = [_concrete(c, o) for c, o in zip(cotangents, outputs)]
            values = op(*inputs, *outputs, *cots, return_list=True)
        return [values[s] if isinstance(s, int) else s.variable() for s in slots]

    def pushforward(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                    tangents: Sequence[Variable]) -> list[Variable]:
        op, slots = self._pushforward_parts()
        values: list[Variable] = []
        if op is not None:
            tans = [_concrete(t, i) for t, i in zip(tangents, inputs)]
            values = op(*inputs, *outputs, *tans, return_list=True)
        return [values[s] if isinstance(s, int) else s.variable() for s in slots]

    # -- rewrites support ---------------------------------------------------------------
    def restricted(self, keep_inputs: Sequence[int], keep_outputs: Sequence[int]
                   ) -> OpFromGraph:
        """An equivalent Op reading only ``keep_inputs`` and computing only ``keep_outputs``.

        Indices are node-input positions (explicit then shared); the shared
        variables kept become explicit inputs of the new Op.
        """
        key = (tuple(keep_inputs), tuple(keep_outputs))
        cached = self._restricted_cache.get(key)
        if cached is not None:
            return cached
        in_pos = {old: new for new, old in enumerate(keep_inputs)}
        out_pos = {old: new for new, old in enumerate(keep_outputs)}
        dm = {out_pos[o]: [in_pos[i] for i in ins if i in in_pos]
              for o, ins in self.destroy_map.items() if o in out_pos}
        dm = {o: ins for o, ins in dm.items() if ins}
        pattern = None
        if self._given_pattern:
            pattern = [[self._pattern[i][j] for j in keep_outputs] for i in keep_inputs]
        new = OpFromGraph(
            [self.inner_inputs_[i] for i in keep_inputs],
            [self.inner_outputs_[j] for j in keep_outputs],
            inline=self.is_inline, name=self.name, destroy_map=dm or None,
            connection_pattern=pattern, **self.kwargs,
        )
        self._restricted_cache[key] = new
        return new

    def inline_outputs(self, node: Apply) -> list[Variable]:
        """The inner graph rebuilt on ``node``'s inputs (what inlining substitutes)."""
        return clone_replace(list(self.inner_outputs_),
                             dict(zip(self.inner_inputs_, node.inputs)))


def _is_default_str(v: Any) -> bool:
    return isinstance(v, str) and v == "default"


def _compiled_function(op: OpFromGraph) -> Any:
    """The inner function of ``op``: one compile per equal Op, process wide."""
    with _COMPILE_LOCK:
        try:
            fn = _COMPILED.get(op)
        except TypeError:
            fn = None
        if fn is None:
            fn = op._make_function()
            try:
                _COMPILED[op] = fn
            except TypeError:
                pass
        return fn


def _concrete(value: Variable, like: Variable) -> Variable:
    """``value``, or zeros shaped like ``like`` when it is a disconnected marker."""
    if value is None or is_disconnected(value):
        return pt.zeros_like(like)
    return value


def _default_pullback(ins: list[Variable], outs: list[Variable], grads: list[Variable]
                      ) -> list[Any]:
    """Gradients of ``ins`` from the inner graph seeded with ``grads`` on ``outs``."""

    known: dict[Variable, Variable] = {}
    for o, g in zip(outs, grads):
        known[o] = known[o] + g if o in known else g
    if not known:
        return [Marker("disconnected") for _ in ins]

    def pull(seeds: dict[Variable, Variable]) -> list[Any]:
        return list(grad(None, ins, known_grads=seeds, disconnected_inputs="ignore",
                         return_disconnected="disconnected", null_gradients="return",
                         add_names=False))

    # grad() takes a known gradient as the *total* one of its variable, so an output
    # that feeds another output must be seeded on its own and the parts added.
    upstream = set(ancestors([i for o in known if o.owner is not None for i in o.owner.inputs]))
    if not upstream.intersection(known):
        return pull(known)
    return _add_gradients([pull({o: g}) for o, g in known.items()])


def _add_gradients(parts: list[list[Any]]) -> list[Any]:
    """Per input, the sum of the connected parts (a null part makes the sum null)."""
    total: list[Any] = []
    for terms in zip(*parts):
        live = [t for t in terms if not is_disconnected(t)]
        nulls = [t for t in live if is_null(t)]
        if nulls:
            total.append(nulls[0])
        elif not live:
            total.append(terms[0])
        else:
            acc = live[0]
            for t in live[1:]:
                acc = acc + t
            total.append(acc)
    return total


def _default_pushforward(ins: list[Variable], outs: list[Variable], evals: list[Variable]
                         ) -> list[Any]:
    """Tangents of ``outs`` from the inner graph for tangents ``evals`` of ``ins``."""

    def one(fs: list[Variable]) -> list[Any]:
        ts = Rop(fs, ins, evals, disconnected_outputs="ignore", return_disconnected="none")
        return [Marker("disconnected") if t is None else t for t in ts]

    if not outs:
        return []
    try:
        return one(list(outs))
    except NullTypeGradError:
        pass
    results = []
    for o in outs:
        try:
            results.extend(one([o]))
        except NullTypeGradError as exc:
            results.append(Marker("null", str(exc)))
    return results


def inner_toposort(op: OpFromGraph) -> list[Apply]:
    """The inner graph's nodes in order (for printing and tests)."""
    return io_toposort(op.inner_inputs, op.inner_outputs)


register_batching_rule(OpFromGraph, batch_opfromgraph)
