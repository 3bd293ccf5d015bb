"""Structural ops (Alloc, IncSubtensor, Join, Subtensor, stack) of constants and of
intermediates, mixed into elemwise graphs: FAST_RUN with the C linker against the
Python linker, in a child process so that a crash in generated C fails the test
(with the graph that caused it, shrunk by hypothesis) instead of killing pytest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opgraph_c.childproc import ChildProcess, Crash

WORKER = Path(__file__).with_name("graph_worker.py")
TIMEOUT = 300.0


class Worker:
    """graph_worker.py in a child process (see opgraph_c.childproc)."""

    def __init__(self, compiledir: str) -> None:
        env = dict(os.environ, OPGRAPH_FLAGS=f"compiledir={compiledir}", OPENBLAS_NUM_THREADS="1")
        self.child = ChildProcess([sys.executable, str(WORKER)], env=env, timeout=TIMEOUT)

    def check(self, spec: dict) -> str | None:
        answer = self.child.ask(spec)
        if isinstance(answer, Crash):
            return f"on this graph, {answer.describe()}"
        return None if answer["ok"] else answer["error"]

    def close(self) -> None:
        self.child.close()


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory):
    w = Worker(str(tmp_path_factory.mktemp("opgraph-c-worker-cache")))
    yield w
    w.close()


# ---- graph specs: plain data with the shape of every entry tracked -------------------------

def _broadcasts(a: tuple, b: tuple) -> tuple | None:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


@st.composite
def index_for(draw, shape: tuple):
    """A basic index for an array of ``shape`` and the shape of the result."""
    idx, out = [], []
    n_axes = draw(st.integers(1, len(shape)))
    for ax in range(n_axes):
        n = shape[ax]
        if n > 0 and draw(st.booleans()):
            idx.append(["i", draw(st.integers(-n, n - 1))])
        else:
            start = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            stop = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            step = draw(st.sampled_from([None, 1, 2, -1, -2]))
            idx.append(["s", start, stop, step])
            out.append(len(range(*slice(start, stop, step).indices(n))))
    return idx, tuple(out) + tuple(shape[n_axes:])


@st.composite
def specs(draw):
    shapes: list[tuple] = [(4,), (3, 4)]
    steps: list[list] = []

    def pick(pred=lambda s: True) -> int | None:
        ok = [k for k, s in enumerate(shapes) if pred(s)]
        return draw(st.sampled_from(ok)) if ok else None

    for _ in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["const", "alloc", "zeros", "unary", "binary", "sub",
                                     "inc", "set", "join", "stack", "sum"]))
        if kind == "const":
            shape = draw(st.sampled_from([(), (4,), (3, 4)]))
            steps.append(["const", list(shape), draw(st.integers(0, 99))])
        elif kind == "zeros":
            shape = draw(st.sampled_from([(3,), (4,), (3, 4)]))
            steps.append(["zeros", list(shape)])
        elif kind == "alloc":
            src = pick(lambda s: s in ((), (4,)))
            if src is None or draw(st.booleans()):
                shape = draw(st.sampled_from([(3,), (4,), (2, 4)]))
                steps.append(["alloc", [draw(st.sampled_from([0.0, 1.5, -2.0]))], list(shape)])
            else:
                shape = draw(st.sampled_from([(4,), (3, 4)] if shapes[src] else [(3,), (3, 4)]))
                steps.append(["alloc", src, list(shape)])
        elif kind == "unary":
            a = pick()
            shape = shapes[a]
            steps.append(["unary", draw(st.sampled_from(["tanh", "neg", "sq", "add1", "exp"])),
                          a])
        elif kind == "binary":
            a = pick()
            b = pick(lambda s, a=a: _broadcasts(shapes[a], s) is not None)
            shape = _broadcasts(shapes[a], shapes[b])
            steps.append(["binary", draw(st.sampled_from(["add", "mul", "sub", "max"])), a, b])
        elif kind == "sub":
            a = pick(lambda s: len(s) >= 1)
            idx, shape = draw(index_for(shapes[a]))
            steps.append(["sub", a, idx])
        elif kind in ("inc", "set"):
            a = pick(lambda s: len(s) >= 1)
            idx, sub_shape = draw(index_for(shapes[a]))
            v = pick(lambda s, sub=sub_shape: len(s) <= len(sub)
                     and _broadcasts(sub, s) == sub)
            value = [draw(st.sampled_from([1.0, -0.5]))] if v is None or draw(st.booleans()) \
                else v
            shape = shapes[a]
            steps.append([kind, a, idx, value])
        elif kind == "join":
            a = pick(lambda s: len(s) >= 1)
            axis = draw(st.integers(0, len(shapes[a]) - 1))
            same = [k for k, s in enumerate(shapes) if len(s) == len(shapes[a])
                    and all(s[d] == shapes[a][d] for d in range(len(s)) if d != axis)]
            parts = [a, *draw(st.lists(st.sampled_from(same), min_size=1, max_size=2))]
            shape = list(shapes[a])
            shape[axis] = sum(shapes[p][axis] for p in parts)
            shape = tuple(shape)
            steps.append(["join", axis, parts])
        elif kind == "stack":
            a = pick(lambda s: len(s) <= 2)
            parts = [a, pick(lambda s, a=a: s == shapes[a])]
            shape = (2, *shapes[a])
            steps.append(["stack", parts])
        else:
            a = pick()
            shape = ()
            steps.append(["sum", a])
        shapes.append(tuple(shape))
    last = len(shapes) - 1
    outputs = [last, *draw(st.lists(st.integers(2, last), max_size=2))]
    return {"dtype": draw(st.sampled_from(["float64", "float32"])), "steps": steps,
            "outputs": outputs}


# Each example compiles C in a child process: 20 derandomized ones in CI (conftest.py).
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs())
def test_structural_ops_in_fast_run_match_python(worker, spec):
    error = worker.check(spec)
    assert error is None, f"{error}\nspec: {json.dumps(spec)}"


# The graphs that used to crash the interpreter (a 0-d view plus a value is a NumPy
# scalar, which the C IncSubtensor then treated as an array).
REGRESSIONS = [
    {"dtype": "float64", "outputs": [4],  # inc_subtensor(alloc(0.0, 3)[1], 1.0) * x
     "steps": [["alloc", [0.0], [4]], ["inc", 2, [["i", 1]], [1.0]], ["binary", "mul", 3, 0]]},
    {"dtype": "float64", "outputs": [3],  # inc_subtensor(zeros(4)[0], 1.0)
     "steps": [["zeros", [4]], ["inc", 2, [["i", 0]], [1.0]]]},
    {"dtype": "float32", "outputs": [4],  # set on a 0-d view of an intermediate matrix
     "steps": [["unary", "tanh", 1], ["set", 2, [["i", -1], ["i", 2]], [2.0]],
               ["binary", "add", 3, 0]]},
]


@pytest.mark.parametrize("spec", REGRESSIONS)
def test_known_crashers(worker, spec):
    error = worker.check(spec)
    assert error is None, f"{error}\nspec: {json.dumps(spec)}"


def test_hessian_and_jacobian_graph_in_a_child_process(tmp_path):
    """Join + IncSubtensor{inc;int} of an Alloc, as grad/hessian/jacobian build them."""
    script = tmp_path / "hessian.py"
    script.write_text(
        "import faulthandler; faulthandler.enable()\n"
        "import numpy as np, opgraph.tensor as pt\n"
        "from opgraph.compile.function import function\n"
        "from opgraph.compile.mode import Mode, get_mode\n"
        "from opgraph.gradient import grad, hessian, Rop, jacobian\n"
        "x = pt.tensor(dtype='float64', shape=(3,), name='x'); v = pt.dvector('v')\n"
        "cost = (pt.exp(x) * pt.sin(x)).sum() + x.sum() ** 2\n"
        "g = grad(cost, x)\n"
        "outs = [hessian(cost, x), Rop(g, x, v), jacobian(g, x)]\n"
        "mode = Mode(linker='c', optimizer=get_mode('FAST_RUN').optimizer)\n"
        "c = function([x, v], outs, mode=mode)\n"
        "py = function([x, v], outs, mode=Mode(linker='py', optimizer=None))\n"
        "a, b = np.array([0.3, -1.0, 2.0]), np.array([1.0, 0.5, -2.0])\n"
        "for _ in range(3):\n"
        "    for got, want in zip(c(a, b), py(a, b)):\n"
        "        np.testing.assert_allclose(got, want, rtol=1e-10)\n"
        "print('ok')\n"
    )
    env = dict(os.environ, OPGRAPH_FLAGS=f"compiledir={tmp_path / 'cache'},gcc__cxxflags=-O1")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=TIMEOUT)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


def test_mixed_dtype_dot_and_matmul_in_a_child_process(tmp_path):
    """Every dtype pair and 1/2-D combination of dot (the C linker crashed on two vectors
    of different dtypes; matmul of these shares the code): NumPy's values and dtype."""
    script = tmp_path / "dots.py"
    script.write_text(
        "import faulthandler; faulthandler.enable()\n"
        "import itertools, numpy as np, opgraph.tensor as pt\n"
        "from opgraph.compile.function import function\n"
        "from opgraph.compile.mode import Mode\n"
        "dts = ['bool', 'int8', 'int32', 'uint8', 'float32', 'float64']\n"
        "shapes = {1: (3,), 2: (2, 3)}\n"
        "xs, ys, outs, want = [], [], [], []\n"
        "rng = np.random.default_rng(0)\n"
        "for (dx, dy), (nx, ny), f in itertools.product(\n"
        "        itertools.product(dts, dts), [(1, 1), (2, 1), (1, 2), (2, 2)],\n"
        "        [(pt.dot, np.dot)]):\n"
        "    sx = shapes[nx]; sy = shapes[ny][::-1] if ny == 2 else (3,)\n"
        "    x = pt.tensor(dtype=dx, shape=(None,) * nx)\n"
        "    y = pt.tensor(dtype=dy, shape=(None,) * ny)\n"
        "    vx = (rng.integers(-3, 4, sx)).astype(dx); vy = (rng.integers(-3, 4, sy)).astype(dy)\n"
        "    xs += [x, y]; ys += [vx, vy]; outs.append(f[0](x, y)); want.append(f[1](vx, vy))\n"
        "fn = function(xs, outs, mode=Mode(linker='c', optimizer=None))\n"
        "for _ in range(2):\n"
        "    for o, g, w in zip(outs, fn(*ys), want):\n"
        "        g = np.asarray(g)\n"
        "        assert g.dtype == np.asarray(w).dtype == o.type.dtype, (o, g.dtype, w)\n"
        "        np.testing.assert_allclose(g, w, rtol=1e-6)\n"
        "bad = function(xs[:2], outs[0], mode=Mode(linker='c', optimizer=None))\n"
        "try:\n"
        "    bad(np.ones(2, 'bool'), np.ones(3, 'bool'))\n"
        "    raise SystemExit('misaligned vectors gave no error')\n"
        "except ValueError:\n"
        "    pass\n"
        "print('ok')\n"
    )
    env = dict(os.environ, OPGRAPH_FLAGS=f"compiledir={tmp_path / 'cache'},gcc__cxxflags=-O1")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=TIMEOUT)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]
