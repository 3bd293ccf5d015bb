"""``ScanArgs``: a Scan node split into named groups, edited, and rebuilt.

Rewrites of a Scan (dropping an input, merging two loops, pushing a
computation out of the body) are edits of these lists: one list per kind of
input or output, inner and outer side by side, so that the index of an item
is the same on both sides.  :meth:`ScanArgs.make_node` turns the lists back
into a Scan node with a matching :class:`ScanInfo`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.traversal import graph_inputs
from opgraph.scan.op import Scan, ScanInfo

__all__ = ["FieldInfo", "ScanArgs"]

_INNER_IN = ("inner_in_seqs", "inner_in_mit_mot", "inner_in_mit_sot", "inner_in_sit_sot",
             "inner_in_shared", "inner_in_non_seqs")
_OUTER_IN = ("outer_in_seqs", "outer_in_mit_mot", "outer_in_mit_sot", "outer_in_sit_sot",
             "outer_in_shared", "outer_in_nit_sot", "outer_in_non_seqs")
_INNER_OUT = ("inner_out_mit_mot", "inner_out_mit_sot", "inner_out_sit_sot",
              "inner_out_nit_sot", "inner_out_shared")
_OUTER_OUT = ("outer_out_mit_mot", "outer_out_mit_sot", "outer_out_sit_sot",
              "outer_out_nit_sot", "outer_out_shared")
_NESTED = {"inner_in_mit_mot", "inner_in_mit_sot", "inner_out_mit_mot"}


@attrs.frozen
class FieldInfo:
    """Where a variable sits: field name, index in it, index inside a tap group, flat index."""

    name: str
    agg_name: str
    index: int
    inner_index: int | None
    agg_index: int


def _take(seq: list, n: int) -> list:
    head = seq[:n]
    del seq[:n]
    return head


class ScanArgs:
    """The inputs and outputs of a Scan node, grouped by kind (PyTensor's ``ScanArgs``)."""

    def __init__(self, outer_inputs: Sequence[Variable], outer_outputs: Sequence[Variable],
                 inner_inputs: Sequence[Variable], inner_outputs: Sequence[Variable],
                 info: ScanInfo, op_options: dict[str, Any] | None = None) -> None:
        outer_in = list(outer_inputs)
        self.n_steps = outer_in.pop(0)
        inner_in = list(inner_inputs)
        inner_out = list(inner_outputs)
        outer_out = list(outer_outputs)
        self.outer_in_seqs = _take(outer_in, info.n_seqs)
        self.inner_in_seqs = _take(inner_in, info.n_seqs)
        self.mit_mot_in_slices = [list(t) for t in info.mit_mot_in_slices]
        self.mit_mot_out_slices = [list(t) for t in info.mit_mot_out_slices]
        self.mit_sot_in_slices = [list(t) for t in info.mit_sot_in_slices]
        self.sit_sot_in_slices = [list(t) for t in info.sit_sot_in_slices]
        self.outer_in_mit_mot = _take(outer_in, info.n_mit_mot)
        self.inner_in_mit_mot = [_take(inner_in, len(t)) for t in self.mit_mot_in_slices]
        self.outer_in_mit_sot = _take(outer_in, info.n_mit_sot)
        self.inner_in_mit_sot = [_take(inner_in, len(t)) for t in self.mit_sot_in_slices]
        self.outer_in_sit_sot = _take(outer_in, info.n_sit_sot)
        self.inner_in_sit_sot = _take(inner_in, info.n_sit_sot)
        self.outer_in_shared = _take(outer_in, info.n_shared_outs)
        self.inner_in_shared = _take(inner_in, info.n_shared_outs)
        self.outer_in_nit_sot = _take(outer_in, info.n_nit_sot)
        self.outer_in_non_seqs = _take(outer_in, info.n_non_seqs)
        self.inner_in_non_seqs = _take(inner_in, info.n_non_seqs)
        self.inner_out_mit_mot = [_take(inner_out, len(t)) for t in self.mit_mot_out_slices]
        self.outer_out_mit_mot = _take(outer_out, info.n_mit_mot)
        self.inner_out_mit_sot = _take(inner_out, info.n_mit_sot)
        self.outer_out_mit_sot = _take(outer_out, info.n_mit_sot)
        self.inner_out_sit_sot = _take(inner_out, info.n_sit_sot)
        self.outer_out_sit_sot = _take(outer_out, info.n_sit_sot)
        self.inner_out_nit_sot = _take(inner_out, info.n_nit_sot)
        self.outer_out_nit_sot = _take(outer_out, info.n_nit_sot)
        self.inner_out_shared = _take(inner_out, info.n_shared_outs)
        self.outer_out_shared = _take(outer_out, info.n_shared_outs)
        self.cond = _take(inner_out, 1) if info.as_while else []
        self.as_while = info.as_while
        self.other_info = dict(op_options or {})

    @classmethod
    def from_node(cls, node: Apply, clone: bool = False) -> ScanArgs:
        """Split a Scan node (``clone=True`` copies the inner graph first)."""
        if not isinstance(getattr(node, "op", None), Scan):
            raise TypeError(f"ScanArgs.from_node: node must be a Scan node; got "
                            f"{getattr(node, 'op', node)!r:.80}")
        op = node.op.clone() if clone else node.op
        return cls(node.inputs, node.outputs, op.inner_inputs, op.inner_outputs, op.info,
                   op_options(op))

    # -- the aggregate views ------------------------------------------------------------
    @property
    def n_nit_sot(self) -> int:
        return len(self.outer_in_nit_sot)

    @property
    def n_mit_mot(self) -> int:
        return len(self.outer_in_mit_mot)

    @property
    def inputs(self) -> list[Variable]:
        return self.inner_inputs

    @property
    def outputs(self) -> list[Variable]:
        return self.inner_outputs

    @property
    def inner_inputs(self) -> list[Variable]:
        return (self.inner_in_seqs + _flat(self.inner_in_mit_mot)
                + _flat(self.inner_in_mit_sot) + self.inner_in_sit_sot
                + self.inner_in_shared + self.inner_in_non_seqs)

    @property
    def outer_inputs(self) -> list[Variable]:
        return ([self.n_steps, *self.outer_in_seqs, *self.outer_in_mit_mot,
                 *self.outer_in_mit_sot, *self.outer_in_sit_sot, *self.outer_in_shared,
                 *self.outer_in_nit_sot, *self.outer_in_non_seqs])

    @property
    def inner_outputs(self) -> list[Variable]:
        return (_flat(self.inner_out_mit_mot) + self.inner_out_mit_sot
                + self.inner_out_sit_sot + self.inner_out_nit_sot + self.inner_out_shared
                + self.cond)

    @property
    def outer_outputs(self) -> list[Variable]:
        return (self.outer_out_mit_mot + self.outer_out_mit_sot + self.outer_out_sit_sot
                + self.outer_out_nit_sot + self.outer_out_shared)

    @property
    def info(self) -> ScanInfo:
        sit_taps = tuple(tuple(t) for t in self.sit_sot_in_slices)
        if len(sit_taps) != len(self.inner_in_sit_sot):
            # Code written for PyTensor edits the sit-sot lists but not their taps
            # (PyTensor derives them: a sit-sot reads tap -1), e.g. PyMC's scan logprob.
            sit_taps = ((-1,),) * len(self.inner_in_sit_sot)
        return ScanInfo(
            n_seqs=len(self.outer_in_seqs),
            mit_mot_in_slices=tuple(tuple(t) for t in self.mit_mot_in_slices),
            mit_mot_out_slices=tuple(tuple(t) for t in self.mit_mot_out_slices),
            mit_sot_in_slices=tuple(tuple(t) for t in self.mit_sot_in_slices),
            sit_sot_in_slices=sit_taps,
            n_nit_sot=len(self.outer_in_nit_sot),
            n_untraced_sit_sot=len(self.outer_in_shared),
            n_non_seqs=len(self.outer_in_non_seqs),
            as_while=bool(self.cond),
        )

    def make_node(self) -> Apply:
        """A new Scan node computing these groups (same options as the original Op)."""
        op = Scan(self.inner_inputs, self.inner_outputs, self.info, **self.other_info)
        return op.make_node(*self.outer_inputs)

    # -- lookups ------------------------------------------------------------------------
    def _fields(self) -> list[str]:
        return [*_INNER_IN, *_OUTER_IN, *_INNER_OUT, *_OUTER_OUT]

    def find_among_fields(self, i: Any, field_filter: Any = None) -> FieldInfo | None:
        """Where ``i`` sits among the groups, or None."""
        for name in self._fields():
            if field_filter is not None and not field_filter(name):
                continue
            agg_name = {"inner_in": "inner_inputs", "outer_in": "outer_inputs",
                        "inner_ou": "inner_outputs", "outer_ou": "outer_outputs"}[name[:8]]
            field = getattr(self, name)
            flat = getattr(self, agg_name)
            for k, item in enumerate(field):
                if name in _NESTED:
                    for j, v in enumerate(item):
                        if v is i:
                            return FieldInfo(name, agg_name, k, j, _index(flat, v))
                elif item is i:
                    return FieldInfo(name, agg_name, k, None, _index(flat, item))
        return None

    def get_alt_field(self, var_info: Any, alt_prefix: str) -> Variable:
        """The counterpart of ``var_info`` in the group named ``alt_prefix`` (e.g. "inner_out")."""
        info = var_info if isinstance(var_info, FieldInfo) else self.find_among_fields(var_info)
        if info is None:
            raise ValueError(f"ScanArgs.get_alt_field: {var_info!r:.60} is not part of this "
                             "Scan")
        kind = info.name.split("_", 2)[2]
        alt = getattr(self, f"{alt_prefix}_{kind}")
        return alt[info.index]

    # -- removing ----------------------------------------------------------------------
    def _remove_from_fields(self, i: Any, field_filter: Any = None) -> FieldInfo | None:
        """Remove ``i`` from the group holding it; its FieldInfo (before removal), or None."""
        info = self.find_among_fields(i, field_filter)
        if info is None:
            return None
        field = getattr(self, info.name)
        if info.inner_index is None:
            del field[info.index]
            return info
        group = field[info.index]
        del group[info.inner_index]
        slices = {"inner_in_mit_mot": "mit_mot_in_slices", "inner_in_mit_sot": "mit_sot_in_slices",
                  "inner_out_mit_mot": "mit_mot_out_slices"}[info.name]
        taps = getattr(self, slices)
        del taps[info.index][info.inner_index]
        if not group:
            del field[info.index]
            del taps[info.index]
        return info

    def _group(self, info: FieldInfo) -> list[Variable]:
        """Every variable of the input/output ``info`` belongs to (inner and outer sides)."""
        kind = info.name.split("_", 2)[2]
        members: list[Variable] = []
        for prefix in ("inner_in", "outer_in", "inner_out", "outer_out"):
            field = getattr(self, f"{prefix}_{kind}", None)
            if field is None or info.index >= len(field):
                continue
            item = field[info.index]
            members.extend(item if isinstance(item, list) else [item])
        return members

    def remove_from_fields(self, i: Variable, rm_dependents: bool = True
                           ) -> list[tuple[Variable, FieldInfo | None]]:
        """Remove ``i`` (and, with ``rm_dependents``, what depends on it); what was removed."""
        if self.find_among_fields(i) is None:
            raise ValueError(f"ScanArgs.remove_from_fields: {i} is not part of this Scan")
        if not rm_dependents:
            return [(i, self._remove_from_fields(i))]
        todo, order = [i], []
        seen: set[Variable] = set()
        while todo:
            v = todo.pop()
            if v in seen:
                continue
            info = self.find_among_fields(v)
            if info is None:
                continue
            group = self._group(info)
            seen.update(group)
            order.extend(g for g in group if g not in order)
            inner_ins = {g for g in group if g in set(self.inner_inputs)}
            if inner_ins:
                for o in self.inner_outputs:
                    if o not in seen and inner_ins & set(graph_inputs([o])):
                        todo.append(o)
        return [(v, self._remove_from_fields(v)) for v in order]

    def __copy__(self) -> ScanArgs:
        new = object.__new__(ScanArgs)
        for k, v in self.__dict__.items():
            if isinstance(v, list):
                v = [list(x) if isinstance(x, list) else x for x in v]
            elif isinstance(v, dict):
                v = dict(v)
            new.__dict__[k] = v
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScanArgs):
            return False
        return all(_same(getattr(self, k), getattr(other, k)) for k in self.__dict__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        groups = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._fields()
                           if getattr(self, k))
        return f"ScanArgs(n_steps={self.n_steps!r}, {groups})"


def _flat(groups: list[list[Variable]]) -> list[Variable]:
    return [v for g in groups for v in g]


def _index(flat: list, v: Any) -> int:
    for k, x in enumerate(flat):
        if x is v:
            return k
    return -1


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, Variable) or isinstance(b, Variable):
        return a is b
    return bool(a == b)


def op_options(op: Scan) -> dict[str, Any]:
    """The keyword options of a Scan Op, to build a new one like it."""
    return {"mode": op.mode, "truncate_gradient": op.truncate_gradient, "name": op.name,
            "profile": op.profile, "allow_gc": op.allow_gc, "strict": op.strict}
