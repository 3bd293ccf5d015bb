"""Child process of the crash-safety tests: builds graphs from plain-data specs and
compares FAST_RUN with the C linker against the Python linker without rewrites.

Runs as ``python graph_worker.py``: one JSON spec per line on stdin, one JSON
answer per line on stdout (``{"ok": true}`` or ``{"ok": false, "error": ...}``).
A segfault in generated C kills only this process; the parent sees the closed
pipe and reports the spec that did it, so a crash is a test failure.

A spec is ``{"dtype": ..., "steps": [...], "outputs": [...]}``; step ``k``
defines pool entry ``k + 2`` (entries 0 and 1 are the inputs ``x`` of shape
(4,) and ``m`` of shape (3, 4)).  See ``test_crash_safety.py`` for the steps.
"""

from __future__ import annotations

import faulthandler
import json
import sys
import traceback

import numpy as np

faulthandler.enable()

SHAPES = {"x": (4,), "m": (3, 4)}
UNARY = {
    "tanh": lambda v: _pt().tanh(v),
    "neg": lambda v: -v,
    "sq": lambda v: v * v,
    "add1": lambda v: v + 1.5,
    "exp": lambda v: _pt().exp(_pt().tanh(v)),
}
BINARY = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "sub": lambda a, b: a - b,
    "max": lambda a, b: _pt().maximum(a, b),
}


def _pt():
    import opgraph.tensor as pt

    return pt


def _index(idx: list) -> object:
    """("i", k) -> k; ("s", start, stop, step) -> slice (None kept)."""
    if idx[0] == "i":
        return idx[1]
    return slice(idx[1], idx[2], idx[3])


def _const(shape: list, seed: int, dtype: str):
    pt = _pt()
    data = np.random.default_rng(seed).uniform(-2, 2, tuple(shape)).astype(dtype)
    return pt.constant(data)


def build(spec: dict):
    """(inputs, outputs) of the graph a spec describes."""
    pt = _pt()
    dtype = spec["dtype"]
    x = pt.tensor(dtype=dtype, shape=(None,), name="x")
    m = pt.tensor(dtype=dtype, shape=(None, None), name="m")
    pool = [x, m]
    for step in spec["steps"]:
        kind, args = step[0], step[1:]
        if kind == "const":
            v = _const(args[0], args[1], dtype)
        elif kind == "alloc":  # alloc(value entry or literal, *shape)
            src = pool[args[0]] if isinstance(args[0], int) else np.asarray(args[0][0], dtype)
            v = pt.alloc(src, *args[1])
        elif kind == "zeros":
            v = pt.zeros(tuple(args[0]), dtype=dtype)
        elif kind == "unary":
            v = UNARY[args[0]](pool[args[1]])
        elif kind == "binary":
            v = BINARY[args[0]](pool[args[1]], pool[args[2]])
        elif kind == "sub":
            v = pool[args[0]][tuple(_index(i) for i in args[1])]
        elif kind in ("inc", "set"):
            target = pool[args[0]][tuple(_index(i) for i in args[1])]
            value = pool[args[2]] if isinstance(args[2], int) else np.asarray(args[2][0], dtype)
            if target is pool[args[0]]:  # x[:] is x itself: no IncSubtensor to build
                v = target + value if kind == "inc" else pt.zeros_like(target) + value
            else:
                fn = pt.inc_subtensor if kind == "inc" else pt.set_subtensor
                v = fn(target, value)
        elif kind == "join":
            v = pt.join(args[0], *(pool[i] for i in args[1]))
        elif kind == "stack":
            v = pt.stack([pool[i] for i in args[0]])
        elif kind == "sum":
            v = pool[args[0]].sum()
        else:
            raise ValueError(f"unknown step {step!r}")
        if v.type.dtype != dtype:
            v = pt.cast(v, dtype)
        pool.append(v)
    return [x, m], [pool[k] for k in spec["outputs"]]


def _values(dtype: str, seed: int, layout: str) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-2, 2, 4).astype(dtype)
    b = rng.uniform(-2, 2, (3, 4)).astype(dtype)
    if layout == "strided":
        a = np.repeat(a, 2)[::-2][::-1]
        b = np.asfortranarray(b)[:, ::-1].copy()[:, ::-1]
    elif layout == "readonly":
        a.flags.writeable = False
        b.flags.writeable = False
    return [a, b]


def check(spec: dict) -> str | None:
    """None when C and Python agree on every call; else what differed."""
    from opgraph.compile.function import function
    from opgraph.compile.mode import Mode, get_mode

    inputs, outputs = build(spec)
    fast = Mode(linker="c", optimizer=get_mode("FAST_RUN").optimizer)
    c = function(inputs, outputs, mode=fast, on_unused_input="ignore")
    py = function(inputs, outputs, mode=Mode(linker="py", optimizer=None),
                  on_unused_input="ignore")
    tol = 1e-4 if spec["dtype"] == "float32" else 1e-10
    kept = []
    for call, layout in enumerate(("contiguous", "readonly", "strided", "contiguous")):
        vals = _values(spec["dtype"], call, layout)
        before = [v.copy() for v in vals]
        with np.errstate(all="ignore"):
            outcomes = []
            for fn, args in ((c, vals), (py, [v.copy() for v in vals])):
                try:
                    outcomes.append(fn(*args))
                except (ValueError, TypeError, IndexError) as exc:  # bad input for this graph
                    outcomes.append(exc)
        got, want = outcomes
        for v, b in zip(vals, before):
            if not np.array_equal(v, b, equal_nan=True):
                return f"call {call}: the C function modified an input"
        if isinstance(got, Exception) or isinstance(want, Exception):
            if type(got) is not type(want):  # both must raise, and the same kind of error
                return f"call {call}: C gave {got!r:.200}, Python gave {want!r:.200}"
            continue
        for j, (g, w) in enumerate(zip(got, want)):
            g, w = np.asarray(g), np.asarray(w)
            if g.shape != w.shape or g.dtype != w.dtype:
                return f"call {call} output {j}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
            if not np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True):
                return f"call {call} output {j}: C {g.tolist()} != Python {w.tolist()}"
        kept.append([(np.asarray(g), np.array(g, copy=True)) for g in got])
    for call, results in enumerate(kept):  # a later call never overwrites a returned value
        for j, (g, snapshot) in enumerate(results):
            if not np.array_equal(g, snapshot, equal_nan=True):
                return f"output {j} of call {call} was overwritten by a later call"
    return None


def main() -> None:
    for line in sys.stdin:
        spec = json.loads(line)
        try:
            error = check(spec)
            answer = {"ok": error is None, "error": error}
        except Exception:
            answer = {"ok": False, "error": traceback.format_exc(limit=6)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
