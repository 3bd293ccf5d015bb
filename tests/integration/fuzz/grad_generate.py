"""Random float64 graphs for the value-and-gradient fuzzer (``grad_worker.py``).

A spec is plain JSON data, so a finding prints a graph that pastes back into a test::

    {"seed": 7, "n": 3,
     "inputs": [{"shape": [3, 3], "fill": "gram", "static": false}, ...],
     "steps": [["gemm", 0, 1, 2, 0.5, true, false, true], ["chol", 3, true], ...],
     "outputs": [4, 5]}

Every step makes one float64 variable, numbered after the inputs.  Steps whose
operand must lie in an Op's domain (a positive-definite matrix for ``cholesky``,
an invertible one for ``solve``) build that property *in the graph* (a Gram
product plus a multiple of the identity, a triangle plus a diagonal shift), so
the central finite differences of the worker never leave the domain; the fill of
the input values (``gram``, ``tri``, ``sym``, ``diag``, ``illcond``, ``normal``)
adds structured matrices whose structure no rewrite may assume.  Outputs that
are defined only up to a sign (eigenvectors, singular vectors) are squared.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = ["FILLS", "LINALG_STEPS", "STEP_KINDS", "random_grad_spec"]

#: How input values are drawn (grad_build.values).
FILLS = ("normal", "gram", "tri", "sym", "diag", "illcond")
UNARY = ("tanh", "sin", "cos", "sqr", "neg", "exp_tanh", "sigmoid", "softplus", "log1p_sqr")
BINARY = ("add", "sub", "mul", "div_pos", "pow_pos")
REDUCE = ("sum", "mean", "prod_tanh", "logsumexp")
VIEWS = ("T", "rev0", "rev1", "none")
#: Steps over one square matrix (shape (..., n, n)) giving a matrix or a vector per matrix.
LINALG_STEPS = ("chol", "solve", "solve_tri", "cho_solve", "det", "slogdet", "logdet_gram",
                "inv", "eigh", "eigvalsh", "svd", "qr", "lu", "expm", "lyap",
                "pinv", "trace", "tril_triu", "matrix_power", "norm", "kron")
#: Every step kind the generator draws (a fuzz run reports which ones it covered).
STEP_KINDS = ("view", "unary", "binary", "bcast", "reduce", "dot", "gemm", "gemv", "ger",
              "index", "adv_index", "reshape", "join", "scan", "ofg", *LINALG_STEPS)
SOLVE_ASSUME = ("gen", "sym", "her", "pos", "diagonal", "tridiagonal", "lower triangular",
                "upper triangular")


class _Graph:
    """The variables made so far, with their concrete shapes."""

    def __init__(self, rnd: random.Random, n: int, batch: int | None) -> None:
        self.rnd, self.n, self.batch = rnd, n, batch
        self.shapes: list[list[int]] = []
        #: ("input", description) or ("step", step), in the order they were made
        self.entries: list[tuple[str, Any]] = []

    def add_input(self, shape: list[int]) -> int:
        fill = self.rnd.choice(FILLS) if len(shape) >= 2 and shape[-1] == shape[-2] \
            else "normal"
        self.entries.append(("input", {"shape": shape, "fill": fill,
                                       "static": self.rnd.random() < 0.3}))
        self.shapes.append(shape)
        return len(self.shapes) - 1

    def add(self, step: list, shape: list[int]) -> int:
        self.entries.append(("step", step))
        self.shapes.append(shape)
        return len(self.shapes) - 1

    def pick(self, pred: Any) -> int | None:
        """A random existing variable whose shape satisfies ``pred``, preferring recent ones."""
        found = [k for k, s in enumerate(self.shapes) if pred(s)]
        if not found:
            return None
        return found[-1] if self.rnd.random() < 0.4 else self.rnd.choice(found)

    def get(self, shape: list[int]) -> int:
        """An existing variable of this shape (mostly) or a new input."""
        k = self.pick(lambda s: s == shape)
        return k if k is not None and self.rnd.random() < 0.8 else self.add_input(shape)

    def square(self) -> int:
        """A square matrix (or a stack of them): an existing one or a new input."""
        n = self.n
        shape = [self.batch, n, n] if self.batch and self.rnd.random() < 0.5 else [n, n]
        k = self.pick(lambda s: s == shape)
        if k is None or self.rnd.random() < 0.25:
            k = self.add_input(shape)
        return k

    def vector_or_matrix(self, rows: int, lead: list[int]) -> int:
        """A right-hand side with ``rows`` rows: a vector or a matrix (batched like ``lead``)."""
        cols = self.rnd.choice([None, 1, 2])
        shape = [*lead, rows] if cols is None else [*lead, rows, cols]
        k = self.pick(lambda s: s == shape)
        return k if k is not None and self.rnd.random() < 0.5 else self.add_input(shape)


def _elementwise(g: _Graph) -> None:
    rnd = g.rnd
    kind = rnd.choice(("unary", "binary", "bcast", "reduce"))
    a = g.pick(lambda s: len(s) >= 1) if g.shapes else None
    if a is None:
        a = g.square()
    sa = g.shapes[a]
    if kind == "unary":
        g.add(["unary", rnd.choice(UNARY), a], sa)
    elif kind == "binary":
        b = g.pick(lambda s: s == sa)
        b = b if b is not None and rnd.random() < 0.7 else g.add_input(list(sa))
        g.add(["binary", rnd.choice(BINARY), a, b], sa)
    elif kind == "bcast":  # a row, a column or a scalar broadcast against a
        axis = rnd.randrange(-1, len(sa))
        shape = [] if axis < 0 else [1 if k != axis else sa[k] for k in range(len(sa))]
        g.add(["bcast", rnd.choice(BINARY), a, g.add_input(shape)], sa)
    else:
        axis = rnd.choice([None, *range(len(sa))])
        keep = rnd.random() < 0.3
        if axis is None:
            shape = [1] * len(sa) if keep else []
        else:
            shape = [1 if k == axis else d for k, d in enumerate(sa)] if keep else \
                [d for k, d in enumerate(sa) if k != axis]
        g.add(["reduce", rnd.choice(REDUCE), a, axis, keep], shape)


def _products(g: _Graph) -> None:
    rnd, n = g.rnd, g.n
    kind = rnd.choice(("dot", "gemm", "gemv", "ger"))
    if kind == "gemv":
        a = g.get([n, n])
        x = g.get([n])
        y = g.get([n])
        g.add(["gemv", y, a, x, rnd.choice([1.0, -0.5, 2.0]), rnd.random() < 0.5], [n])
        return
    if kind == "ger":
        a = g.get([n, n])
        x = g.get([n])
        y = g.get([n])
        g.add(["ger", a, x, y, rnd.choice([1.0, 0.3, -2.0]), rnd.random() < 0.5], [n, n])
        return
    a = g.get([n, n])
    b = g.get([n, n]) if rnd.random() < 0.7 else a
    ta, tb = rnd.random() < 0.5, rnd.random() < 0.5
    if kind == "dot":  # a Gram product a @ a.T in about a third of them
        g.add(["dot", a, b if rnd.random() < 0.6 else a, ta, tb, rnd.random() < 0.5], [n, n])
        return
    c = g.get([n, n])
    g.add(["gemm", c, a, b, rnd.choice([1.0, 0.5, -1.0, 2.0]), ta, tb, rnd.random() < 0.5,
           rnd.random() < 0.5, rnd.random() < 0.5], [n, n])


def _views_and_shapes(g: _Graph) -> None:
    rnd = g.rnd
    kind = rnd.choice(("view", "view", "index", "adv_index", "reshape", "join"))
    a = g.pick(lambda s: len(s) == 2) if g.shapes else None
    if a is None:
        a = g.add_input([g.n, g.n])
    r, c = g.shapes[a]
    if kind == "view":
        v = rnd.choice(VIEWS[:3])
        g.add(["view", a, v], [c, r] if v == "T" else [r, c])
    elif kind == "index":
        choice = rnd.choice(("row", "col", "slice"))
        if choice == "row":
            g.add(["index", a, [["i", rnd.randrange(-r, r)]]], [c])
        elif choice == "col":
            g.add(["index", a, [["s", None, None, None], ["i", rnd.randrange(c)]]], [r])
        else:
            start = rnd.randrange(r)
            g.add(["index", a, [["s", start, None, None], ["s", None, None, -1]]], [r - start, c])
    elif kind == "adv_index":  # repeated rows: the gradient's inc_subtensor must accumulate
        rows = [rnd.randrange(r) for _ in range(rnd.randint(1, r + 1))]
        g.add(["adv_index", a, rows], [len(rows), c])
    elif kind == "reshape":
        g.add(["reshape", a, [c, r]], [c, r])
    else:
        b = g.get([r, c])
        g.add(["join", a, b], [r + g.shapes[b][0], c])


def _loops(g: _Graph) -> None:
    n = g.n
    if g.rnd.random() < 0.5:  # scan: h <- tanh(h @ W + x_t), over the rows of x
        w = g.get([n, n])
        h0 = g.get([n])
        xs = g.add_input([g.rnd.randint(1, 3), n])
        g.add(["scan", w, h0, xs, g.rnd.random() < 0.5], [n])
    else:  # OpFromGraph of a @ b.T + sin(a), used twice in the graph
        a = g.get([n, n])
        b = g.get([n, n])
        g.add(["ofg", a, b], [n, n])


#: linear-algebra steps that may take a trailing "T" (the matrix operand transposed) or
#: "gram" (the operand is X @ X.T of an invertible X, which the rewrites recognise)
TRANSPOSABLE = ("solve", "solve_tri", "det", "slogdet", "inv", "pinv", "svd", "qr", "lu",
                "expm", "chol", "cho_solve", "eigh", "eigvalsh")
GRAMMABLE = ("solve", "inv", "chol", "cho_solve", "logdet_gram", "det", "eigh")


def _linalg(g: _Graph) -> None:
    _linalg_step(g)
    step = g.entries[-1][1]
    u = g.rnd.random()
    if step[0] in GRAMMABLE and u < 0.3:
        step.append("gram")
    elif step[0] in TRANSPOSABLE and u < 0.6:
        step.append("T")


def _linalg_step(g: _Graph) -> None:
    rnd, n = g.rnd, g.n
    kind = rnd.choice(LINALG_STEPS)
    a = g.square()
    lead = g.shapes[a][:-2]
    if kind in ("kron", "lstsq", "lyap", "matrix_power") and lead:
        a = g.get([n, n])
        lead = []
    mat, vec, scalar = [*lead, n, n], [*lead, n], list(lead)
    if kind == "chol":
        g.add(["chol", a, rnd.random() < 0.7, rnd.random() < 0.2], mat)
    elif kind in ("solve", "solve_tri", "cho_solve"):
        b = g.vector_or_matrix(n, lead)
        if kind == "solve":
            flags = [rnd.choice(SOLVE_ASSUME), rnd.random() < 0.5, rnd.random() < 0.3]
        elif kind == "solve_tri":
            flags = [rnd.random() < 0.5, rnd.choice([0, 1, 2, "N", "T"]), rnd.random() < 0.2]
        else:
            flags = [rnd.random() < 0.5]
        g.add([kind, a, b, *flags], g.shapes[b])
    elif kind in ("det", "slogdet", "logdet_gram", "trace", "norm"):
        g.add([kind, a], scalar)
    elif kind in ("inv", "expm", "pinv", "tril_triu"):
        g.add([kind, a, rnd.random() < 0.5], mat)
    elif kind in ("eigh", "eigvalsh"):
        g.add([kind, a, rnd.random() < 0.5], mat if kind == "eigh" else vec)
    elif kind in ("svd", "qr", "lu"):
        mode = rnd.randrange(2)
        g.add([kind, a, mode], vec if kind == "svd" and mode == 0 else mat)
    elif kind == "lstsq":
        b = g.vector_or_matrix(n + 1, [])
        tall = g.get([n + 1, n])
        g.add(["lstsq", tall, b], [n, *g.shapes[b][1:]])
    elif kind == "lyap":
        q = g.get([n, n])
        g.add(["lyap", a, q], [n, n])
    elif kind == "matrix_power":
        g.add(["matrix_power", a, rnd.randint(0, 3)], [n, n])
    else:  # kron of a 2x2 corner with a
        b = g.get([2, 2])
        g.add(["kron", b, a], [2 * n, 2 * n])


def random_grad_spec(seed: int, linalg: float = 0.6, max_steps: int = 6) -> dict:
    """A random graph spec; ``linalg`` is the chance that a step is a linear-algebra Op."""
    rnd = random.Random(seed)
    n = rnd.randint(2, 4)
    g = _Graph(rnd, n, rnd.choice([None, None, 2]))
    g.square()
    for _ in range(rnd.randint(1, max_steps)):
        u = rnd.random()
        if u < linalg:
            _linalg(g)
        elif u < linalg + 0.12:
            _products(g)
        elif u < linalg + 0.22:
            _views_and_shapes(g)
        elif u < linalg + 0.24:  # rarer: their inner graphs are compiled on their own
            _loops(g)
        else:
            _elementwise(g)
    made = [k for k, (what, _) in enumerate(g.entries) if what == "step"]
    outs = {made[-1]}
    if len(made) > 1 and rnd.random() < 0.5:
        outs.add(rnd.choice(made[:-1]))
    return _renumber(g, sorted(outs), seed, n)


def _renumber(g: _Graph, outputs: list[int], seed: int, n: int) -> dict:
    """Inputs were added between steps: number every input before every step."""
    order = [k for k, (what, _) in enumerate(g.entries) if what == "input"] + \
        [k for k, (what, _) in enumerate(g.entries) if what == "step"]
    new = {old: i for i, old in enumerate(order)}
    return {"seed": seed, "n": n,
            "inputs": [d for what, d in g.entries if what == "input"],
            "steps": [_remap(d, new) for what, d in g.entries if what == "step"],
            "outputs": [new[o] for o in outputs],
            "output_shapes": [g.shapes[o] for o in outputs]}


def _remap(step: list, new: dict[int, int]) -> list:
    """The variable operands of a step renumbered (operand positions per step kind)."""
    kind = step[0]
    positions = OPERANDS.get(kind, (1,))
    return [new[x] if i in positions else x for i, x in enumerate(step)]


#: Which positions of a step hold variable numbers (others are flags); default (1,).
OPERANDS = {"binary": (2, 3), "bcast": (2, 3), "unary": (2,), "reduce": (2,), "dot": (1, 2),
            "gemm": (1, 2, 3), "gemv": (1, 2, 3), "ger": (1, 2, 3), "join": (1, 2),
            "scan": (1, 2, 3), "ofg": (1, 2), "solve": (1, 2), "solve_tri": (1, 2),
            "cho_solve": (1, 2), "lstsq": (1, 2), "lyap": (1, 2), "kron": (1, 2)}
