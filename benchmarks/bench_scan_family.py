"""A family of recurrences (issue 33): value and gradient per call, against PyTensor and JAX.

Cells: a tanh RNN, a GRU-like gated cell and an LSTM-like cell with two states,
each ``h_t = cell(h_{t-1}, x_t)`` with its weights ``W`` (recurrent), ``U``
(input) and ``b``.  The input projection ``U x_t`` is computed inside the step
(as models are usually written) or outside it (``X U^T`` passed as the
sequence); the loss is on the last state or on every state.  The gradient is
taken with respect to every weight.  Each point is timed for opgraph's C mode,
PyTensor 3.0.7's C (cvm) and Numba modes and JAX ``jit(lax.scan)``, in turns,
best of REPEATS, one BLAS/XLA thread; opgraph's gradient is checked against
central finite differences first (a wrong gradient is reported, not timed).

The grid is a base point (tanh, projection inside, loss on the last state,
float64, 200 steps) varied along one axis at a time: every cell at every hidden
size, then projection outside, loss on every state, 50 and 1000 steps and
float32 at hidden 256.  ``OPGRAPH_BENCH_SCAN_FULL=1`` runs the whole cartesian
product instead (hours).
"""

from __future__ import annotations

import itertools
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, NamedTuple

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))

import bench_scan_recurrences as recurrences  # noqa: E402
import benchutil  # noqa: E402
import numpy as np  # noqa: E402

REPEATS = benchutil.pick(5, 2)
HIDDEN = benchutil.pick((8, 64, 256, 1024), (8, 32))
BASE_STEPS = benchutil.pick(200, 20)
STEPS = benchutil.pick((50, 1000), (10,))
CELLS = ("tanh", "gru", "lstm")
#: every ``cell`` a point may name: the family's cells and the recurrences of
#: ``bench_scan_recurrences`` (``--point`` only, not in the grid)
KINDS = CELLS + recurrences.KINDS
CLOCK = time.process_time if os.environ.get("BENCH_SCAN_CLOCK") == "process" else time.perf_counter


class Point(NamedTuple):
    cell: str
    inside: bool
    last: bool
    hidden: int
    steps: int
    dtype: str


def grid() -> list[Point]:
    """The points measured (see the module doc)."""
    if os.environ.get("OPGRAPH_BENCH_SCAN_FULL"):
        return [Point(*p) for p in itertools.product(
            CELLS, (True, False), (True, False), HIDDEN, (BASE_STEPS, *STEPS),
            ("float64", "float32"))]
    mid = HIDDEN[-2] if len(HIDDEN) > 2 else HIDDEN[-1]
    base = Point("tanh", True, True, mid, BASE_STEPS, "float64")
    points = [base._replace(cell=c, hidden=h) for c in CELLS for h in HIDDEN]
    points += [base._replace(inside=False), base._replace(last=False),
               base._replace(dtype="float32")]
    points += [base._replace(steps=s) for s in STEPS]
    return list(dict.fromkeys(points))


def cell_step(m: Any, cell: str, x_proj: Any, h: Any, c: Any, w: Any) -> tuple[Any, Any]:
    """One step of ``cell`` in library ``m`` (opgraph.tensor, pytensor.tensor or jnp).

    ``x_proj`` is the input's projection (``U x_t + b``, stacked per gate); ``w`` the
    recurrent weights, gates stacked along rows.  Returns the new ``(h, c)``
    (``c`` is None for the cells with one state).
    """
    n = h.shape[0]
    pre = w @ h + x_proj
    if cell == "tanh":
        return m.tanh(pre), None
    sig = (lambda v: 1.0 / (1.0 + m.exp(-v)))
    if cell == "gru":
        z, r = sig(pre[:n]), sig(pre[n:2 * n])
        cand = m.tanh(x_proj[2 * n:] + r * (w[2 * n:] @ h))
        return (1.0 - z) * h + z * cand, None
    i, f, o = sig(pre[:n]), sig(pre[n:2 * n]), sig(pre[2 * n:3 * n])
    c = f * c + i * m.tanh(pre[3 * n:])
    return o * m.tanh(c), c


def gates(cell: str) -> int:
    return {"tanh": 1, "gru": 3, "lstm": 4, **recurrences.GATES}[cell]


def data(p: Point) -> list[np.ndarray]:
    """x (steps, hidden), W (g*hidden, hidden), U (g*hidden, hidden), b (g*hidden,), h0,
    then a recurrence's extra inputs (a mask, a second sequence)."""
    rng = np.random.default_rng(0)
    g, n = gates(p.cell), p.hidden
    arrays = [rng.normal(size=(p.steps, n)), rng.normal(size=(g * n, n)) / np.sqrt(n),
              rng.normal(size=(g * n, n)) / np.sqrt(n), rng.normal(size=g * n) * 0.1,
              np.zeros(recurrences.h0_shape(p.cell, n))]
    extra = recurrences.extra_data(p.cell, p.steps, n, p.dtype)
    return [a.astype(p.dtype) for a in arrays] + extra


def _extra_inputs(m: Any, p: Point) -> list:
    """Symbolic inputs for ``extra_data``'s arrays."""
    return {"mask": [m.vector("mask", dtype=p.dtype)],
            "taps2": [m.matrix("y", dtype=p.dtype)]}.get(p.cell, [])


def symbolic(lib: Any, m: Any, p: Point) -> tuple[list, Any, list]:
    """(inputs, loss, gradients wrt W, U, b) for opgraph or PyTensor."""
    x, w, u, b = m.matrix("x", dtype=p.dtype), m.matrix("W", dtype=p.dtype), \
        m.matrix("U", dtype=p.dtype), m.vector("b", dtype=p.dtype)
    h0 = (m.matrix if p.cell == "taps2" else m.vector)("h0", dtype=p.dtype)
    if p.cell in recurrences.KINDS:
        ins = [x, w, u, b, h0, *_extra_inputs(m, p)]
        loss = recurrences.loss(p.cell, m, lib.scan, ins, p.inside, p.last, p.hidden)
        return ins, loss, lib.grad(loss, [w, u, b])
    two = p.cell == "lstm"

    def step(xt, h, *rest):
        c = rest[0] if two else None
        w_, u_, b_ = rest[-3:]
        proj = (u_ @ xt + b_) if p.inside else xt
        h_new, c_new = cell_step(m, p.cell, proj, h, c, w_)
        return [h_new, c_new] if two else h_new

    seq = x if p.inside else m.dot(x, u.T) + b
    init = [h0, m.zeros_like(h0)] if two else [h0]
    out = lib.scan(step, sequences=[seq], outputs_info=init, non_sequences=[w, u, b],
                   return_updates=False)
    hs = out[0] if two else out
    loss = hs[-1].sum() if p.last else (hs * hs).sum() * 0.5
    return [x, w, u, b, h0], loss, lib.grad(loss, [w, u, b])


def opgraph_fns(p: Point, fast_math: bool = False) -> tuple[Any, Any]:
    import opgraph
    import opgraph.tensor as m
    from opgraph.compile.mode import Mode, get_mode
    from opgraph.config import config

    mode = Mode(linker="c", optimizer=get_mode("FAST_RUN").optimizer)
    ins, loss, grads = symbolic(opgraph, m, p)
    with config.change_flags(fast_math=fast_math):
        return opgraph.function(ins, loss, mode=mode), opgraph.function(ins, grads, mode=mode)


def opgraph_fast_math_fns(p: Point) -> tuple[Any, Any]:
    """opgraph with ``config.fast_math``: subnormals flushed to zero as XLA does on CPU
    (float32 points only: a float32 gradient decaying through the loop reaches them)."""
    return opgraph_fns(p, fast_math=True)


def _pytensor(linker: str) -> Any:
    def make(p: Point) -> tuple[Any, Any]:
        import pytensor
        import pytensor.tensor as m
        from pytensor.compile.mode import Mode

        mode = Mode(linker=linker, optimizer="fast_run")
        ins, loss, grads = symbolic(pytensor, m, p)
        return pytensor.function(ins, loss, mode=mode), pytensor.function(ins, grads, mode=mode)
    return make


def jax_fns(p: Point) -> tuple[Any, Any]:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    if p.cell in recurrences.KINDS:
        def kind_loss(*ins: Any) -> Any:
            return recurrences.loss(p.cell, jnp, recurrences.jax_scan, list(ins), p.inside,
                                    p.last, p.hidden)
        return _jitted(jax, kind_loss)
    two = p.cell == "lstm"

    def loss(x: Any, w: Any, u: Any, b: Any, h0: Any) -> Any:
        seq = x if p.inside else x @ u.T + b

        def step(carry: Any, xt: Any) -> tuple[Any, Any]:
            h, c = carry
            proj = (u @ xt + b) if p.inside else xt
            h, c = cell_step(jnp, p.cell, proj, h, c, w)
            return (h, c), h

        init = (h0, jnp.zeros_like(h0) if two else None)
        (h_last, _), hs = jax.lax.scan(step, init, seq)
        return h_last.sum() if p.last else (hs * hs).sum() * 0.5

    return _jitted(jax, loss)


def _jitted(jax: Any, loss: Any) -> tuple[Any, Any]:
    """Value and gradient wrt W, U, b of ``loss``, jitted, each call waiting for its result."""
    value = jax.jit(loss)
    gradient = jax.jit(jax.grad(loss, argnums=(1, 2, 3)))
    return (lambda *a: value(*a).block_until_ready(),
            lambda *a: jax.block_until_ready(gradient(*a)))


PEERS = {"opgraph C": opgraph_fns, "PyTensor C": _pytensor("cvm"),
         "PyTensor Numba": _pytensor("numba"), "JAX jit": jax_fns}


def gradient_error(p: Point, value: Any, gradient: Any, args: list[np.ndarray]) -> float:
    """Largest relative error of the gradient against central differences (a few entries)."""
    rng = np.random.default_rng(1)
    eps = 1e-6 if p.dtype == "float64" else 1e-2
    got = gradient(*args)
    worst = 0.0
    for k, g in zip((1, 2, 3), got):
        for _ in range(3):
            idx = tuple(int(rng.integers(s)) for s in args[k].shape)
            up = [a.copy() for a in args]
            down = [a.copy() for a in args]
            up[k][idx] += eps
            down[k][idx] -= eps
            fd = (float(value(*up)) - float(value(*down))) / (2 * eps)
            worst = max(worst, abs(float(g[idx]) - fd) / max(abs(fd), 1.0))
    return worst


def measure(p: Point, errors: list[str]) -> dict[str, Any]:
    built = {}
    peers = dict(PEERS)
    if p.dtype == "float32":
        peers["opgraph C fast_math"] = opgraph_fast_math_fns
    for name, make in peers.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                built[name] = make(p)
        except Exception as exc:  # a missing or failing peer: reported, not fatal
            # one note per peer and cause (a missing peer fails at every point alike)
            errors.append(f"{name}: {type(exc).__name__}: {str(exc)[:100]}")
    args = data(p)
    loss = "mask mean" if p.cell == "mask" else ("last" if p.last else "every")
    row: dict[str, Any] = {"cell": p.cell, "U x inside": p.inside, "loss": loss,
                           "hidden": p.hidden, "steps": p.steps, "dtype": p.dtype}
    if "opgraph C" in built:
        row["grad rel err"] = gradient_error(p, *built["opgraph C"], args)
    for k, kind in ((0, "value"), (1, "grad")):
        fns = {name: pair[k] for name, pair in built.items()}
        try:
            times = benchutil.alternating(fns, args, REPEATS, CLOCK)
        except Exception as exc:  # one peer failing when called
            errors.append(f"{p} {kind}: {type(exc).__name__}: {str(exc)[:100]}")
            times = {}
        for name in peers:
            t = times.get(name)
            row[f"{kind} {name} ms"] = None if t is None else t * 1e3
        ours = times.get("opgraph C")
        best_pt = min((times[n] for n in ("PyTensor C", "PyTensor Numba") if n in times),
                      default=None)
        row[f"{kind} / PyTensor best"] = benchutil.ratio(ours, best_pt)
        row[f"{kind} / JAX"] = benchutil.ratio(ours, times.get("JAX jit"))
        if "opgraph C fast_math" in times:
            row[f"{kind} fast_math / JAX"] = benchutil.ratio(times["opgraph C fast_math"],
                                                             times.get("JAX jit"))
    return row


#: optional ``--point`` fields after ``dtype``: where ``U x_t`` is formed, what the loss reads
OPTIONS = {"proj=in": ("inside", True), "proj=out": ("inside", False),
           "loss=last": ("last", True), "loss=every": ("last", False)}
POINT_SYNTAX = "cell,hidden,steps,dtype[,proj=in|out][,loss=last|every]"


def parse_point(text: str) -> Point:
    """One point for ``--point``: ``cell,hidden,steps,dtype`` then optional fields
    ``proj=in|out`` (the input projection inside the step, the default, or before the
    loop) and ``loss=last|every`` (default last), e.g. ``gru,256,200,float32,loss=every``."""
    parts = text.split(",")
    ok = (len(parts) >= 4 and parts[0] in KINDS and parts[1].isdigit() and parts[2].isdigit()
          and parts[3] in ("float32", "float64") and all(q in OPTIONS for q in parts[4:]))
    if not ok:
        raise SystemExit(f"--point wants {POINT_SYNTAX} with cell in {KINDS} and dtype "
                         f"float32 or float64; got {text!r}")
    point = Point(parts[0], True, True, int(parts[1]), int(parts[2]), parts[3])
    return point._replace(**dict(OPTIONS[q] for q in parts[4:]))


#: the points to measure instead of the grid (``--point``, repeatable)
SELECTED: list[Point] = []


def run(report: Any) -> None:
    report.section("scan family: tanh RNN, GRU-like, LSTM-like cells, value and gradient "
                   "wrt W, U, b, per call (ms)")
    errors: list[str] = []
    for p in SELECTED or grid():
        report.row(**measure(p, errors))
    report.note("targets (issue 33): value and gradient <= 0.8x JAX jit(lax.scan) and <= 0.5x "
                "PyTensor's best mode (C or Numba), one BLAS/XLA thread")
    for err in dict.fromkeys(errors):
        report.note(err)


if __name__ == "__main__":
    from report import run_standalone

    args = sys.argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[0], "\n\nusage: bench_scan_family.py [--point "
              f"{POINT_SYNTAX}]...  (no --point: the whole grid)\ncells: {', '.join(KINDS)}")
        raise SystemExit(0)
    while args[:1] == ["--point"] and len(args) > 1:
        SELECTED.append(parse_point(args[1]))
        args = args[2:]
    if args:
        raise SystemExit(f"unknown arguments {args}; see --help")
    run_standalone(run)
