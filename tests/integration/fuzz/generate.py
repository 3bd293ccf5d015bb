"""Random typed graphs as plain data (JSON-able specs), drawn either by hypothesis
(the CI profile, which shrinks a failure to a small graph) or by a seeded
``random.Random`` (the long profile, which must be cheap per graph).

A spec is ``{"inputs": [...], "steps": [...], "outputs": [...], "seed": int}``:
entry ``k`` is input ``k`` for ``k < len(inputs)``, else step ``k - len(inputs)``.
The generator tracks every entry's dtype, runtime shape and static shape (a
length known to the type, or None), and only builds graphs that are valid for
the values it will feed: broadcasting happens only along a static length 1, as
in opgraph's types.  ``bad`` (optional) describes a second call with one input
reshaped so that it may be invalid: then every mode must agree on raising.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

import attrs
import numpy as np
from hypothesis import strategies as st

from .ops import BINARY, DTYPES, REDUCE, SMOOTH_BINARY, SMOOTH_UNARY, UNARY, result_dtype

#: (op, input dtype) pairs where opgraph deliberately differs from NumPy (docs/testing.md):
#: round keeps a bool a bool (NumPy gives float16), as PyTensor does.
DELIBERATE = {("round", "bool")}

__all__ = ["Draw", "RandomDraw", "grad_specs", "random_spec", "specs"]


class Draw(Protocol):
    """The few draws the generator needs (hypothesis and random both provide them)."""

    def integer(self, lo: int, hi: int) -> int: ...

    def choice(self, seq: Any) -> Any: ...


class RandomDraw:
    """Draws from a seeded ``random.Random`` (no shrinking, no overhead)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, seq: Any) -> Any:
        return self.rng.choice(list(seq))


class HypothesisDraw:
    """Draws through hypothesis, so failures shrink."""

    def __init__(self, draw: Any) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def choice(self, seq: Any) -> Any:
        return self.draw(st.sampled_from(list(seq)))


@attrs.define
class Entry:
    dtype: str
    shape: tuple[int, ...]
    static: tuple[int | None, ...]


def _compatible(a: Entry, b: Entry) -> bool:
    """Whether opgraph broadcasts ``a`` with ``b`` (only along static 1s)."""
    for (la, sa), (lb, sb) in zip(zip(reversed(a.shape), reversed(a.static)),
                                  zip(reversed(b.shape), reversed(b.static))):
        if la != lb and sa != 1 and sb != 1:
            return False
        if la != lb and ((sa == 1 and la != 1) or (sb == 1 and lb != 1)):
            return False
    return True


def _broadcast(a: Entry, b: Entry) -> tuple[tuple[int, ...], tuple[int | None, ...]]:
    nd = max(len(a.shape), len(b.shape))
    pa = (1,) * (nd - len(a.shape)) + a.shape, (1,) * (nd - len(a.shape)) + a.static
    pb = (1,) * (nd - len(b.shape)) + b.shape, (1,) * (nd - len(b.shape)) + b.static
    shape, static = [], []
    for la, sa, lb, sb in zip(pa[0], pa[1], pb[0], pb[1]):
        shape.append(max(la, lb) if 0 not in (la, lb) else 0)
        if sa == 1:
            static.append(sb)
        elif sb == 1:
            static.append(sa)
        else:
            static.append(sa if sa is not None else sb)
    return tuple(shape), tuple(static)


class _Builder:
    def __init__(self, d: Draw, smooth: bool) -> None:
        self.d = d
        self.smooth = smooth
        self.entries: list[Entry] = []
        self.inputs: list[dict] = []
        self.steps: list[list] = []
        self.lengths = [d.integer(1, 4), d.integer(2, 4), d.choice([0, 1, 3])]

    def dtype(self) -> str:
        return "float64" if self.smooth else self.d.choice(DTYPES)

    def shape(self, nd: int) -> tuple[int, ...]:
        return tuple(self.d.choice(self.lengths) for _ in range(nd))

    def add_input(self) -> int:
        nd = self.d.integer(0, 3)
        shape = self.shape(nd)
        static = tuple(1 if n == 1 and self.d.integer(0, 1) else None for n in shape)
        self.inputs.append({"dtype": self.dtype(), "static": list(static), "shape": list(shape)})
        self.entries.append(Entry(self.inputs[-1]["dtype"], shape, static))
        return len(self.entries) - 1

    def add(self, step: list, dtype: str, shape: tuple, static: tuple) -> int:
        self.steps.append(step)
        self.entries.append(Entry(dtype, tuple(shape), tuple(static)))
        return len(self.entries) - 1

    def const(self, shape: tuple[int, ...], dtype: str | None = None) -> int:
        dtype = dtype or self.dtype()
        return self.add(["const", dtype, list(shape), self.d.integer(0, 999)], dtype, shape, shape)

    def pick(self, pred: Any = lambda e: True) -> int | None:
        ok = [k for k, e in enumerate(self.entries) if pred(e)]
        return self.d.choice(ok) if ok else None

    # -- steps ---------------------------------------------------------------------------------
    def step(self) -> None:
        kinds = ["unary", "binary", "reduce", "dot", "sub", "reshape", "dimshuffle", "switch",
                 "matmul"]
        if not self.smooth:
            kinds += ["cast", "argmax", "join", "binary", "unary", "const"]
        getattr(self, "s_" + self.d.choice(kinds))()

    def s_const(self) -> None:
        self.const(self.shape(self.d.integer(0, 2)))

    def s_unary(self) -> None:
        a = self.pick()
        e = self.entries[a]
        names = SMOOTH_UNARY if self.smooth else tuple(UNARY)
        name = self.d.choice(names)
        dt = result_dtype(UNARY[name][1], e.dtype)
        if dt is None or (name, e.dtype) in DELIBERATE:
            return
        self.add(["unary", name, a], dt, e.shape, e.static)

    def _partner(self, a: int) -> int:
        e = self.entries[a]
        b = self.pick(lambda o: _compatible(e, o))
        if b is None or self.d.integer(0, 4) == 0:
            b = self.const(e.shape[self.d.integer(0, len(e.shape)):])
        return b

    def s_binary(self) -> None:
        a = self.pick()
        b = self._partner(a)
        ea, eb = self.entries[a], self.entries[b]
        name = self.d.choice(SMOOTH_BINARY if self.smooth else tuple(BINARY))
        dt = result_dtype(BINARY[name][1], ea.dtype, eb.dtype)
        if dt is None:
            return
        self.add(["binary", name, a, b], dt, *_broadcast(ea, eb))

    def s_switch(self) -> None:
        a = self.pick()
        b = self._partner(a)
        shape, static = _broadcast(self.entries[a], self.entries[b])
        ab = Entry("bool", shape, static)
        if self.smooth:  # a condition that does not depend on the perturbed values' sign
            c = self.const(shape, "bool")
        else:
            c = self.pick(lambda o: _compatible(ab, o))
        dt = str(np.result_type(self.entries[a].dtype, self.entries[b].dtype))
        self.add(["switch", c, a, b], dt, *_broadcast(ab, self.entries[c]))

    def s_cast(self) -> None:
        a = self.pick()
        e = self.entries[a]
        dt = self.d.choice(DTYPES)
        self.add(["cast", a, dt], dt, e.shape, e.static)

    def _axis(self, nd: int) -> Any:
        if nd == 0 or self.d.integer(0, 3) == 0:
            return None
        if nd >= 2 and self.d.integer(0, 2) == 0:
            first = self.d.integer(0, nd - 1)
            second = (first + self.d.integer(1, nd - 1)) % nd
            return sorted([first, second])
        return self.d.integer(-nd, nd - 1)

    def s_reduce(self) -> None:
        a = self.pick()
        e = self.entries[a]
        name = self.d.choice(("sum", "prod", "mean") if self.smooth else tuple(REDUCE))
        axis = self._axis(len(e.shape))
        keep = bool(self.d.integer(0, 3) == 0)
        with np.errstate(all="ignore"):
            np_axis = tuple(axis) if isinstance(axis, list) else axis
            dt = str(np.asarray(REDUCE[name][1](np.ones((2,) * len(e.shape), e.dtype),
                                                 axis=np_axis)).dtype)
        axes = set(range(len(e.shape))) if axis is None else {
            ax % len(e.shape) for ax in (axis if isinstance(axis, list) else [axis])}
        shape = tuple((1 if keep else None) if k in axes else n for k, n in enumerate(e.shape))
        static = tuple((1 if keep else None) if k in axes else s for k, s in enumerate(e.static))
        keep_dims = [k for k in range(len(e.shape)) if k not in axes or keep]
        self.add(["reduce", name, a, axis, keep], dt, tuple(shape[k] for k in keep_dims),
                 tuple(static[k] for k in keep_dims))

    def s_argmax(self) -> None:
        a = self.pick(lambda o: len(o.shape) >= 1)
        if a is None:
            return
        e = self.entries[a]
        axis = self.d.integer(-len(e.shape), len(e.shape) - 1)
        k = axis % len(e.shape)
        self.add(["argmax", a, axis], "int64", e.shape[:k] + e.shape[k + 1:],
                 e.static[:k] + e.static[k + 1:])

    def s_dot(self, kind: str = "dot") -> None:
        a = self.pick(lambda o: len(o.shape) in (1, 2))
        if a is None:
            return
        ea = self.entries[a]
        k = ea.shape[-1]
        b = self.pick(lambda o: len(o.shape) in (1, 2) and o.shape[0] == k)
        if b is None or self.d.integer(0, 4) == 0:
            b = self.const((k, *self.shape(self.d.integer(0, 1))))
        eb = self.entries[b]
        dt = result_dtype(np.dot, ea.dtype, eb.dtype)
        shape = ea.shape[:-1] + eb.shape[1:]
        self.add([kind, a, b], dt, shape, (None,) * len(shape))

    def s_matmul(self) -> None:
        a = self.pick(lambda o: len(o.shape) == 3)
        if a is None:
            self.s_dot("matmul")
            return
        ea = self.entries[a]
        b = self.pick(lambda o: len(o.shape) == 3 and o.shape[0] == ea.shape[0]
                      and o.shape[1] == ea.shape[2])
        if b is None:
            b = self.const((ea.shape[0], ea.shape[2], self.d.choice(self.lengths)))
        eb = self.entries[b]
        dt = result_dtype(np.matmul, ea.dtype, eb.dtype)
        self.add(["matmul", a, b], dt, (ea.shape[0], ea.shape[1], eb.shape[2]), (None,) * 3)

    def s_sub(self) -> None:
        a = self.pick(lambda o: len(o.shape) >= 1)
        if a is None:
            return
        e = self.entries[a]
        idx, out, static = [], [], []
        n_axes = self.d.integer(1, len(e.shape))
        for ax in range(n_axes):
            n = e.shape[ax]
            if n > 0 and self.d.integer(0, 1):
                idx.append(["i", self.d.integer(-n, n - 1)])
                continue
            start = self.d.choice([None, *range(-n - 2, n + 3)])
            stop = self.d.choice([None, *range(-n - 2, n + 3)])
            step = self.d.choice([None, 1, 2, 3, -1, -2, -3])
            idx.append(["s", start, stop, step])
            out.append(len(range(*slice(start, stop, step).indices(n))))
            static.append(None)
        self.add(["sub", a, idx], e.dtype, tuple(out) + e.shape[n_axes:],
                 tuple(static) + e.static[n_axes:])

    def s_reshape(self) -> None:
        a = self.pick()
        e = self.entries[a]
        size = int(np.prod(e.shape))
        options = [[size], [1, size], [size, 1]]
        options += [[n, size // n] for n in (2, 3) if size and size % n == 0]
        if size:
            options.append([-1])
            options += [[n, -1] for n in (2, 3) if size % n == 0]
        target = self.d.choice(options)
        shape = tuple(size // int(np.prod([t for t in target if t != -1] or [1]))
                      if t == -1 else t for t in target)
        self.add(["reshape", a, target], e.dtype, shape,
                 tuple(1 if t == 1 else None for t in target))

    def s_dimshuffle(self) -> None:
        a = self.pick()
        e = self.entries[a]
        kept = [k for k in range(len(e.shape)) if e.static[k] != 1 or self.d.integer(0, 1)]
        order = [kept.pop(self.d.integer(0, len(kept) - 1)) for _ in range(len(kept))]
        pattern: list = list(order)
        for _ in range(self.d.integer(0, 1)):
            pattern.insert(self.d.integer(0, len(pattern)), "x")
        self.add(["dimshuffle", a, pattern], e.dtype,
                 tuple(1 if p == "x" else e.shape[p] for p in pattern),
                 tuple(1 if p == "x" else e.static[p] for p in pattern))

    def s_join(self) -> None:
        a = self.pick(lambda o: len(o.shape) >= 1)
        if a is None:
            return
        e = self.entries[a]
        axis = self.d.integer(0, len(e.shape) - 1)
        same = [k for k, o in enumerate(self.entries) if len(o.shape) == len(e.shape)
                and all(o.shape[d] == e.shape[d] for d in range(len(e.shape)) if d != axis)]
        parts = [a] + [self.d.choice(same) for _ in range(self.d.integer(1, 2))]
        dt = str(np.result_type(*(self.entries[p].dtype for p in parts)))
        shape = list(e.shape)
        shape[axis] = sum(self.entries[p].shape[axis] for p in parts)
        static = list(e.static)
        static[axis] = None
        self.add(["join", axis, parts], dt, tuple(shape), tuple(static))

    def spec(self, seed: int) -> dict:
        n_in = len(self.inputs)
        outs = [len(self.entries) - 1]
        for _ in range(self.d.integer(0, 2)):
            outs.append(self.d.integer(n_in, len(self.entries) - 1))
        spec = {"inputs": self.inputs, "steps": self.steps, "outputs": sorted(set(outs)),
                "seed": seed}
        if self.smooth:
            spec["smooth"] = True
        if not self.smooth and self.d.integer(0, 2) == 0:
            free = [(i, k) for i, inp in enumerate(self.inputs)
                    for k, s in enumerate(inp["static"]) if s is None]
            if free:
                i, k = self.d.choice(free)
                shape = list(self.inputs[i]["shape"])
                shape[k] = max(0, shape[k] + self.d.choice([-1, 1, 2]))
                spec["bad"] = {"input": i, "shape": shape}
        return spec


def _generate(d: Draw, smooth: bool) -> dict:
    b = _Builder(d, smooth)
    for _ in range(d.integer(1, 3)):
        b.add_input()
    for _ in range(d.integer(1, 8)):
        b.step()
    if not b.steps:
        b.s_unary() if smooth else b.s_cast()
    if not b.steps:
        b.s_dimshuffle()
    return b.spec(d.integer(0, 2**31 - 1))


def random_spec(seed: int, smooth: bool = False) -> dict:
    """One graph from a seed (the long profile)."""
    return _generate(RandomDraw(seed), smooth)


@st.composite
def specs(draw: Any, smooth: bool = False) -> dict:
    """Hypothesis strategy of graph specs."""
    return _generate(HypothesisDraw(draw), smooth)


def grad_specs() -> st.SearchStrategy[dict]:
    """Graphs of float64 inputs and differentiable ops, for verify_grad."""
    return specs(smooth=True)
