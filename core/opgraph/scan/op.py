"""The Scan Op: a loop whose body is an inner graph, compiled once and run per step.

Layout of a node (the PyTensor convention, so code reading ``node.inputs``
ports):

* outer inputs: ``n_steps``, sequences, the initial buffers of the mit-sot then
  sit-sot outputs, the initial values of the shared outputs, one length per
  nit-sot output, then the non-sequences;
* outer outputs: the mit-sot and sit-sot buffers (initial rows first, then one
  row per step), the nit-sot outputs (one row per step), the final values of
  the shared outputs;
* inner inputs: one slice per sequence, one value per tap of each mit-sot and
  sit-sot output, the shared values, the non-sequences;
* inner outputs: mit-sot, sit-sot, nit-sot, shared, then the ``until``
  condition when ``info.as_while``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.compile.function import function
from opgraph.compile.io import In
from opgraph.graph.basic import Apply, Variable, clone, io_toposort
from opgraph.graph.fg import FunctionGraph, InnerFunctionGraph
from opgraph.graph.op import EqualByValueKey, HasInnerGraph, Op
from opgraph.scan import grad as scan_grad
from opgraph.scan.helpers import (
    TensorConstructorType,
    check_broadcast,
    copy_var_format,
    err_msg1,
    err_msg2,
    err_msg3,
)
from opgraph.scan.key import InnerGraphKey
from opgraph.scan.rings import detach_aliases, release_each_step, ring_result, ring_rows
from opgraph.tensor.random.type import RandomType
from opgraph.tensor.random.utils import custom_rng_deepcopy
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["InnerFunctionGraph", "Scan", "ScanInfo", "TensorConstructorType", "check_broadcast",
           "copy_var_format", "err_msg1", "err_msg2", "err_msg3"]


@attrs.frozen
class ScanInfo:
    """The counts and taps that say how a Scan's inputs and outputs are laid out."""

    n_seqs: int
    mit_mot_in_slices: tuple = ()
    mit_mot_out_slices: tuple = ()
    mit_sot_in_slices: tuple = ()
    sit_sot_in_slices: tuple = ()
    n_nit_sot: int = 0
    n_untraced_sit_sot: int = 0
    n_non_seqs: int = 0
    as_while: bool = False

    @property
    def n_shared_outs(self) -> int:
        """Recurrent outputs whose history is not kept (shared-variable updates)."""
        return self.n_untraced_sit_sot

    @property
    def n_mit_mot(self) -> int:
        return len(self.mit_mot_in_slices)

    @property
    def n_mit_sot(self) -> int:
        return len(self.mit_sot_in_slices)

    @property
    def n_sit_sot(self) -> int:
        return len(self.sit_sot_in_slices)

    @property
    def state_taps(self) -> tuple[tuple[int, ...], ...]:
        """Taps of every recurrent output (mit-sot then sit-sot)."""
        return tuple(self.mit_sot_in_slices) + tuple(self.sit_sot_in_slices)

    @property
    def tap_array(self) -> tuple[tuple[int, ...], ...]:
        return tuple(self.mit_mot_in_slices) + self.state_taps

    @property
    def n_states(self) -> int:
        return self.n_mit_sot + self.n_sit_sot

    @property
    def n_mit_mot_inner_inputs(self) -> int:
        return sum(len(t) for t in self.mit_mot_in_slices)

    @property
    def n_mit_mot_inner_outputs(self) -> int:
        return sum(len(t) for t in self.mit_mot_out_slices)

    @property
    def n_inner_inputs(self) -> int:
        return (self.n_seqs + self.n_mit_mot_inner_inputs + sum(len(t) for t in self.state_taps)
                + self.n_shared_outs + self.n_non_seqs)

    @property
    def n_inner_outputs(self) -> int:
        return (self.n_mit_mot_inner_outputs + self.n_states + self.n_nit_sot
                + self.n_shared_outs + int(self.as_while))

    @property
    def n_outer_inputs(self) -> int:
        return (1 + self.n_seqs + self.n_mit_mot + self.n_states + self.n_shared_outs
                + self.n_nit_sot + self.n_non_seqs)

    @property
    def n_outer_outputs(self) -> int:
        return self.n_mit_mot + self.n_states + self.n_nit_sot + self.n_shared_outs


def _mode_key(mode: Any) -> Any:
    if mode is None or isinstance(mode, str):
        return mode
    return ("id", id(mode))


def _buffer_type(inner: TensorType) -> TensorType:
    """The type of a buffer stacking values of ``inner`` along a new first axis."""
    return TensorType(inner.dtype, shape=(None, *inner.shape))


class Scan(EqualByValueKey, Op, HasInnerGraph):
    """A loop over ``n_steps`` steps of the inner graph ``inputs -> outputs`` (see module doc)."""

    def __init__(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        info: ScanInfo,
        mode: Any = None,
        typeConstructor: Any = None,
        truncate_gradient: int = -1,
        name: str | None = None,
        profile: Any = False,
        allow_gc: bool | None = None,
        strict: bool = True,
        keep_last: Sequence[int] | None = None,
    ) -> None:
        if not isinstance(info, ScanInfo):
            raise TypeError(f"Scan: info must be a ScanInfo; got {type(info).__name__}")
        if len(info.mit_mot_out_slices) != info.n_mit_mot:
            raise ValueError("Scan: info needs one mit_mot_out_slices entry per "
                             "mit_mot_in_slices entry")
        inputs, outputs = list(inputs), list(outputs)
        if len(inputs) != info.n_inner_inputs:
            raise ValueError(f"Scan: info describes {info.n_inner_inputs} inner inputs; "
                             f"got {len(inputs)}")
        if len(outputs) != info.n_inner_outputs:
            raise ValueError(f"Scan: info describes {info.n_inner_outputs} inner outputs; "
                             f"got {len(outputs)}")
        self.inner_inputs_ = inputs
        self.inner_outputs_ = outputs
        self.info = info
        self.mode = mode
        self.truncate_gradient = int(truncate_gradient)
        self.name = name
        self.profile = profile
        self.allow_gc = allow_gc
        self.strict = strict
        keep = tuple(int(k) for k in keep_last) if keep_last is not None else ()
        if keep and (len(keep) != info.n_states or any(k < 0 for k in keep)):
            raise ValueError(f"Scan: keep_last needs one count >= 0 per recurrent output "
                             f"({info.n_states}); got {keep_last!r}")
        self.keep_last = keep if any(keep) else ()
        self._key: Any = None
        self._fn: Any = None
        self._fgraph: FunctionGraph | None = None

    # -- HasInnerGraph ----------------------------------------------------------------
    @property
    def inner_inputs(self) -> list[Variable]:
        return self.inner_inputs_

    @property
    def inner_outputs(self) -> list[Variable]:
        return self.inner_outputs_

    @property
    def fgraph(self) -> Any:
        """The inner graph as a FunctionGraph (built on first use)."""
        if self._fgraph is None:
            self._fgraph = InnerFunctionGraph(self.inner_inputs_, self.inner_outputs_,
                                              clone=False)
        return self._fgraph

    def clone(self) -> Scan:
        """A copy with its own inner nodes (the inner input variables are shared)."""
        new = copy.copy(self)
        new.inner_inputs_, new.inner_outputs_ = clone(self.inner_inputs_, self.inner_outputs_,
                                                      copy_inputs=False)
        new._key = None
        new._fn = None
        new._fgraph = None
        return new

    @property
    def mitmots_preallocated(self) -> tuple[bool, ...]:
        """PyTensor's flag, per mit-mot output, for "written into a buffer allocated before
        the loop": opgraph's loop always writes them so, in every linker."""
        return (True,) * self.info.n_mit_mot

    # -- equality ---------------------------------------------------------------------
    def _value_key(self) -> Any:
        if self._key is None:
            self._key = (self.info, InnerGraphKey(self.inner_inputs_, self.inner_outputs_),
                         self.truncate_gradient, _mode_key(self.mode), self.keep_last)
        return self._key

    def __str__(self) -> str:
        kind = "while" if self.info.as_while else "for"
        return f"Scan{{{self.name or 'scan_fn'}, while_loop={kind == 'while'}, inplace=none}}"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_fn"] = None
        state["_fgraph"] = None
        return state

    # -- layout helpers -----------------------------------------------------------------
    def outer_slices(self) -> dict[str, slice]:
        """Where each group sits among the outer inputs."""
        i = self.info
        edges = [("n_steps", 1), ("seqs", i.n_seqs), ("mit_mot", i.n_mit_mot),
                 ("states", i.n_states),
                 ("shared", i.n_shared_outs), ("nit_lens", i.n_nit_sot),
                 ("non_seqs", i.n_non_seqs)]
        out, pos = {}, 0
        for name, n in edges:
            out[name] = slice(pos, pos + n)
            pos += n
        return out

    def outer_seqs(self, outer_inputs: Sequence[Any]) -> list[Any]:
        """The sequences among a node's inputs (PyTensor's accessor)."""
        return list(outer_inputs)[self.outer_slices()["seqs"]]

    def outer_non_seqs(self, outer_inputs: Sequence[Any]) -> list[Any]:
        return list(outer_inputs)[self.outer_slices()["non_seqs"]]

    def inner_seqs(self, inner_inputs: Sequence[Any]) -> list[Any]:
        return list(inner_inputs)[:self.info.n_seqs]

    def inner_non_seqs(self, inner_inputs: Sequence[Any]) -> list[Any]:
        n = self.info.n_non_seqs
        return list(inner_inputs)[len(inner_inputs) - n:] if n else []

    def get_oinp_iinp_iout_oout_mappings(self) -> dict[str, dict[int, Any]]:
        """How outer inputs, inner inputs, inner outputs and outer outputs correspond.

        Keys are PyTensor's (``"inner_inp_from_outer_inp"``, ...); a missing
        counterpart is ``-1`` for a single index and ``[]`` for a list.
        """
        info = self.info
        if info.n_mit_mot:
            raise NotImplementedError("get_oinp_iinp_iout_oout_mappings: Scans with mit-mot "
                                      "outputs are not mapped yet")
        n_st, n_nit = info.n_states, info.n_nit_sot
        o_iinp: dict[int, list[int]] = {0: []}
        o_iout: dict[int, list[int]] = {0: []}
        o_oout: dict[int, int] = {0: -1}
        oi, ii = 1, 0

        def add(inner_ins: list[int], out: int) -> None:
            nonlocal oi
            o_iinp[oi] = inner_ins
            o_iout[oi] = [] if out < 0 else [out]
            o_oout[oi] = out
            oi += 1

        for _ in range(info.n_seqs):
            add([ii], -1)
            ii += 1
        for m, taps in enumerate(info.state_taps):
            add(list(range(ii, ii + len(taps))), m)
            ii += len(taps)
        for p in range(info.n_shared_outs):
            add([ii], n_st + n_nit + p)
            ii += 1
        for q in range(n_nit):
            add([], n_st + q)
        for _ in range(info.n_non_seqs):
            add([ii], -1)
            ii += 1
        oinp_from_iinp = {i: o for o, ins in o_iinp.items() for i in ins}
        oinp_from_oout = {out: o for o, out in o_oout.items() if out >= 0}
        return {
            "inner_inp_from_outer_inp": o_iinp,
            "inner_out_from_outer_inp": o_iout,
            "outer_out_from_outer_inp": o_oout,
            "outer_inp_from_inner_inp": oinp_from_iinp,
            "inner_out_from_inner_inp": {i: o_iout[o] for i, o in oinp_from_iinp.items()},
            "outer_out_from_inner_inp": {i: o_oout[o] for i, o in oinp_from_iinp.items()},
            "outer_inp_from_inner_out": dict(oinp_from_oout),
            "inner_inp_from_inner_out": {j: o_iinp[o] for j, o in oinp_from_oout.items()},
            "outer_out_from_inner_out": {j: j for j in oinp_from_oout},
            "outer_inp_from_outer_out": dict(oinp_from_oout),
            "inner_inp_from_outer_out": {j: o_iinp[o] for j, o in oinp_from_oout.items()},
            "inner_out_from_outer_out": {j: [j] for j in oinp_from_oout},
        }

    def inner_state_inputs(self) -> list[list[Variable]]:
        """The inner inputs of each recurrent output, one per tap."""
        pos = self.info.n_seqs + self.info.n_mit_mot_inner_inputs
        res = []
        for taps in self.info.state_taps:
            res.append(self.inner_inputs_[pos:pos + len(taps)])
            pos += len(taps)
        return res

    # -- building nodes ---------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        info = self.info
        who = f"Scan {self.name or ''}".rstrip()
        if len(inputs) != info.n_outer_inputs:
            raise TypeError(f"{who}: expects {info.n_outer_inputs} inputs; got {len(inputs)}")
        sl = self.outer_slices()
        inputs = [x if sl["shared"].start <= k < sl["shared"].stop and isinstance(x, Variable)
                  else _as_tensor(x) for k, x in enumerate(inputs)]
        for name in ("n_steps", "nit_lens"):
            for x in inputs[sl[name]]:
                if x.type.ndim != 0 or not x.type.dtype.startswith(("int", "uint")):
                    raise TypeError(f"{who}: {name} must be an integer scalar; got {x.type}")
        inner = self.inner_inputs_
        for k, x in enumerate(inputs[sl["seqs"]]):
            _check_stack(who, f"sequence {k}", x, inner[k].type)
        pos = info.n_seqs
        for j, (taps, x) in enumerate(zip(info.mit_mot_in_slices, inputs[sl["mit_mot"]])):
            if taps:
                _check_stack(who, f"mit-mot buffer {j}", x, inner[pos].type)
            pos += len(taps)
        state_inner = self.inner_state_inputs()
        for m, x in enumerate(inputs[sl["states"]]):
            _check_stack(who, f"initial state {m}", x, state_inner[m][0].type)
        pos = info.n_seqs + info.n_mit_mot_inner_inputs + sum(len(t) for t in info.state_taps)
        for p, x in enumerate(inputs[sl["shared"]]):
            want = inner[pos + p].type
            if isinstance(want, TensorType):
                ok = isinstance(x.type, TensorType) and x.type.dtype == want.dtype and \
                    x.type.ndim == want.ndim
            else:
                ok = x.type == want
            if not ok:
                raise TypeError(f"{who}: untraced state input {p} must have type {want}; got "
                                f"{x.type}")
        pos += info.n_shared_outs
        converted = list(inputs)
        start = sl["non_seqs"].start
        for q, x in enumerate(inputs[sl["non_seqs"]]):
            want = inner[pos + q].type
            try:
                converted[start + q] = want.filter_variable(x, allow_convert=True)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"{who}: non-sequence {q} must have type {want}; got "
                                f"{x.type}: {exc}") from None
        n_mm = info.n_mit_mot_inner_outputs
        outs = self.inner_outputs_[n_mm:]
        n_st, n_nit = info.n_states, info.n_nit_sot
        out_types = [x.type for x in inputs[sl["mit_mot"]]]
        out_types += [_buffer_type(o.type) for o in outs[:n_st + n_nit]]
        out_types += [o.type for o in outs[n_st + n_nit:n_st + n_nit + info.n_shared_outs]]
        return Apply(self, converted, [t() for t in out_types])

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return scan_grad.connection_pattern(self)

    # -- computing --------------------------------------------------------------------
    @property
    def fn(self) -> Any:
        """The inner function, compiled on first use (once per Op)."""
        if self._fn is None:
            fn = function(self._inner_function_inputs(), list(self.inner_outputs_),
                          mode=self.mode,
                          on_unused_input="ignore", accept_inplace=True,
                          name=self.name, profile=self.profile or None)
            fn.trust_input = True
            self._fn = fn
        return self._fn

    def _inner_function_inputs(self) -> list[Any]:
        """The inner inputs, the generators among the untraced states marked mutable.

        ``run_loop`` hands each step a generator it owns (copied once per loop, not
        per step), so the inner random variables may advance it in place
        (``random_make_inplace``) instead of copying it at every step.
        """
        info = self.info
        ins: list[Any] = list(self.inner_inputs_)
        start = info.n_seqs + info.n_mit_mot_inner_inputs + sum(len(t) for t in info.state_taps)
        for p in range(start, start + info.n_shared_outs):
            if isinstance(ins[p].type, RandomType):
                ins[p] = In(ins[p], mutable=True, borrow=True)
        return ins

    def prepare_node(self, node: Apply, storage_map: Any, compute_map: Any,
                     impl: str | None) -> None:
        self.fn  # noqa: B018 - compile the body once, when the outer function is linked

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]
                ) -> None:
        run_loop(self, node, list(inputs), output_storage)

    # -- differentiation --------------------------------------------------------------
    def pullback(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 cotangents: Sequence[Variable]) -> list[Variable]:
        return scan_grad.pullback(self, list(inputs), list(outputs), list(cotangents))

    def pushforward(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                    tangents: Sequence[Variable]) -> list[Variable]:
        return scan_grad.pushforward(self, list(inputs), list(outputs), list(tangents))


def _as_tensor(x: Any) -> Variable:
    return x if isinstance(x, Variable) else as_tensor_variable(x)


def _check_stack(who: str, what: str, x: Variable, inner: Any) -> None:
    """``x`` must stack values of the inner type ``inner`` along its first axis."""
    if not isinstance(x.type, TensorType) or x.type.ndim != inner.ndim + 1 or \
            x.type.dtype != inner.dtype:
        raise TypeError(f"{who}: {what} must be a {inner.ndim + 1}-d {inner.dtype} tensor "
                        f"(steps along axis 0 of {inner}); got {x.type}")


def _empty_like_type(t: TensorType, rows: int) -> np.ndarray:
    """``rows`` rows of an output of type ``t`` (unknown step dimensions become 0)."""
    return np.zeros((rows, *(0 if s is None else s for s in t.shape[1:])), dtype=t.dtype)


def run_loop(op: Scan, node: Apply, inputs: list[Any], output_storage: list[list[Any]]
             ) -> None:
    """Run the inner function step by step, writing every output into its buffer."""
    info = op.info
    who = f"Scan {op.name or ''}".rstrip()
    fn = op.fn
    sl = op.outer_slices()
    n = int(inputs[0])
    if n < 0:
        raise ValueError(f"{who}: n_steps must be >= 0; got {n}")
    seqs = inputs[sl["seqs"]]
    for k, s in enumerate(seqs):
        if s.shape[0] < n:
            raise ValueError(f"{who}: sequence {k} has {s.shape[0]} entries, fewer than "
                             f"n_steps={n}")
    # mit-mot buffers (read and written at step i + tap), copied: inputs stay intact
    n_mm = info.n_mit_mot
    mm_bufs = [np.array(b, copy=True) for b in inputs[sl["mit_mot"]]]
    for j, (buf, ins, outs) in enumerate(zip(mm_bufs, info.mit_mot_in_slices,
                                              info.mit_mot_out_slices)):
        need = n + max((*ins, *outs, 0))
        if buf.shape[0] < need:
            raise ValueError(f"{who}: mit-mot buffer {j} needs {need} rows for n_steps={n}; "
                             f"got shape {buf.shape}")
    node_outputs = node.outputs[n_mm:]
    storage = output_storage[n_mm:]
    n_mm_out = info.n_mit_mot_inner_outputs
    bufs: list[np.ndarray] = []
    offsets: list[int] = []
    rows: list[int] = []  # buffer length: every row, or a ring of the last ones (keep_last)
    keep = op.keep_last or (0,) * info.n_states
    for m, (init, taps) in enumerate(zip(inputs[sl["states"]], info.state_taps)):
        k = -min(taps)
        if init.shape[0] < k:
            raise ValueError(f"{who}: initial state {m} needs {k} rows for taps {list(taps)}; "
                             f"got shape {init.shape}")
        r = ring_rows(k, n, keep[m])
        buf = np.empty((r, *init.shape[1:]), dtype=node_outputs[m].type.dtype)
        buf[:k] = init[:k]
        bufs.append(buf)
        offsets.append(k)
        rows.append(r)
    # the loop's own copies: the inner function may advance a generator in place
    shared = [_own_copy(v) for v in inputs[sl["shared"]]]
    non_seqs = inputs[sl["non_seqs"]]
    n_st, n_nit, n_sh = info.n_states, info.n_nit_sot, info.n_shared_outs
    nits: list[np.ndarray | None] = [None] * n_nit
    done = n
    # what each step reads and writes, computed once (the loop runs per step)
    mm_reads = [(buf, t) for buf, taps in zip(mm_bufs, info.mit_mot_in_slices) for t in taps]
    state_reads = [(bufs[m], offsets[m] + t, rows[m])
                   for m, taps in enumerate(info.state_taps) for t in taps]
    writes = [(bufs[m], offsets[m], rows[m]) for m in range(n_st)]
    tight = [bufs[m] for m in range(n_st) if rows[m] <= offsets[m] < offsets[m] + n]
    release = release_each_step(fn, tight)
    as_while = info.as_while
    base = n_st + n_nit
    non_seqs = list(non_seqs)
    for i in range(n):
        args = [s[i, ...] for s in seqs]
        if mm_reads:
            args += [buf[i + t, ...] for buf, t in mm_reads]
        args += [buf[(pos + i) % r, ...] for buf, pos, r in state_reads]
        if shared:
            args += shared
        args += non_seqs
        res: Any = None  # the last step's results, freed: the function may reuse their buffers
        res = fn(*args)
        if n_mm:
            pos = 0
            for buf, taps in zip(mm_bufs, info.mit_mot_out_slices):
                for t in taps:
                    buf[i + t] = res[pos]
                    pos += 1
            res = res[n_mm_out:]
        if tight:
            res = detach_aliases(res, tight)
        for m, (buf, k, r) in enumerate(writes):
            buf[(k + i) % r] = res[m]
        for q in range(n_nit):
            val = np.asarray(res[n_st + q])
            if nits[q] is None:
                nits[q] = np.empty((n, *val.shape), dtype=node_outputs[n_st + q].type.dtype)
            elif nits[q].shape[1:] != val.shape:
                raise ValueError(f"{who}: output {n_st + q} has shape {val.shape} at step {i} "
                                 f"but {nits[q].shape[1:]} at step 0; every step must "
                                 "return the same shape")
            nits[q][i] = val
        if release:
            fn.free()
        if n_sh:
            shared = [_step_value(v, non_seqs) for v in res[base:base + n_sh]]
        if as_while and bool(res[base + n_sh]):
            done = i + 1
            break
    for j in range(n_mm):
        output_storage[j][0] = mm_bufs[j]
    for m in range(n_st):
        storage[m][0] = ring_result(bufs[m], offsets[m], done, rows[m], n)
    for q in range(n_nit):
        arr = nits[q]
        if arr is None:
            arr = _empty_like_type(node_outputs[n_st + q].type, 0)
        storage[n_st + q][0] = arr[:done]
    for p in range(n_sh):
        storage[n_st + n_nit + p][0] = shared[p]


def _own_copy(value: Any) -> Any:
    """A copy of an untraced state's initial value that the loop may overwrite."""
    if isinstance(value, np.ndarray):
        return np.array(value, copy=True)
    if isinstance(value, np.random.Generator):
        return custom_rng_deepcopy(value)
    return copy.copy(value)


def _step_value(value: Any, non_seqs: list[Any]) -> Any:
    """The value of an untraced state for the next step.

    A generator the step returned is the loop's own (the one it was given, advanced
    in place, or a new one drawn from a copy) unless the step passed through one of
    its non-sequences: only that one is copied.
    """
    if isinstance(value, np.ndarray):
        return np.array(value, copy=True)
    if isinstance(value, np.random.Generator):
        return custom_rng_deepcopy(value) if any(value is a for a in non_seqs) else value
    return copy.copy(value)


def inner_toposort(op: Scan) -> list[Apply]:
    """The inner graph's nodes in order (for printing and tests)."""
    return io_toposort(op.inner_inputs_, op.inner_outputs_)
