"""Specs of ``grad_generate.py`` to opgraph graphs, input values and cotangents.

``build`` returns the graph's inputs, its outputs, one cotangent input per output
and the scalar cost ``sum_j sum(out_j * cot_j)``: its gradient is the pullback of
the full random cotangent, not of a plain ``sum``.  Operands that must lie in an
Op's domain get the property from the graph itself (a Gram product plus the
identity is positive definite; ``tanh`` of a matrix plus ``(n + 1) I`` is
diagonally dominant, hence invertible and pivot-free), so finite differences in
any direction stay inside the domain.  An *input* whose fill already has the
property (``illcond``, ``gram``, ``tri``, ``sym``, ``diag``) is used as it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import opgraph_linalg as la
from opgraph.compile.builders import OpFromGraph

import opgraph
import opgraph.tensor as pt

from .grad_generate import GRAMMABLE, TRANSPOSABLE

__all__ = ["build", "cotangents", "values"]

MARKED = frozenset(GRAMMABLE + TRANSPOSABLE)
#: fills of invertible input values (used raw where an invertible matrix is needed)
INVERTIBLE_FILLS = ("illcond", "gram", "tri", "sym", "diag")


def _fill(fill: str, shape: list[int], rng: np.random.Generator) -> np.ndarray:
    """One input value: plain normal, or a structured (square) matrix stack."""
    shape = tuple(shape)
    x = rng.standard_normal(shape)
    if fill == "normal" or len(shape) < 2:
        return x
    n = shape[-1]
    eye = np.eye(n)
    if fill == "gram":
        return x @ np.swapaxes(x, -1, -2) + 0.1 * eye
    if fill == "tri":
        t = np.tril(x) if rng.random() < 0.5 else np.triu(x)
        signs = rng.choice([-1.0, 1.0], shape[:-1])
        return t * (1 - eye) + eye * (signs * rng.uniform(0.5, 2.0, shape[:-1]))[..., None, :]
    q = np.linalg.qr(x)[0]
    if fill == "sym":  # symmetric, indefinite, well conditioned
        d = rng.choice([-1.0, 1.0], shape[:-1]) * rng.uniform(0.5, 2.0, shape[:-1])
        return (q * d[..., None, :]) @ np.swapaxes(q, -1, -2)
    if fill == "diag":
        return eye * (rng.choice([-1.0, 1.0], shape[:-1])
                      * rng.uniform(0.5, 2.0, shape[:-1]))[..., None, :]
    if fill == "illcond":  # condition number 1e3: U diag(logspace(0, -3)) V^T
        v = np.linalg.qr(rng.standard_normal(shape))[0]
        s = np.logspace(0, -3, n)
        return (q * s) @ np.swapaxes(v, -1, -2)
    raise ValueError(f"unknown fill {fill!r}")


def values(spec: dict) -> list[np.ndarray]:
    """The input values of the spec."""
    rng = np.random.default_rng(spec["seed"])
    return [_fill(i["fill"], i["shape"], rng) for i in spec["inputs"]]


def cotangents(spec: dict, shapes: list[tuple]) -> list[np.ndarray]:
    """One random (full, not all-ones) cotangent per output."""
    rng = np.random.default_rng(spec["seed"] + 7919)
    return [rng.standard_normal(s) for s in shapes]


class _Ctx:
    """What the step functions need: the variables, the spec's inputs and ``n``."""

    def __init__(self, spec: dict, inputs: list) -> None:
        self.spec, self.vars, self.n = spec, list(inputs), spec["n"]
        self.fills = {k: i["fill"] for k, i in enumerate(spec["inputs"])}
        self.marker: str | None = None

    def leaf_fill(self, k: int) -> str | None:
        return self.fills.get(k)

    def eye(self) -> Any:
        return pt.eye(self.n)

    def bounded(self, k: int) -> Any:
        """The variable itself when it is an input, else ``tanh`` of it (entries in (-1, 1))."""
        return self.vars[k] if k in self.fills else pt.tanh(self.vars[k])

    def general(self, k: int) -> Any:
        """An invertible, well-pivoted matrix (stack) made of variable ``k``."""
        if self.leaf_fill(k) in INVERTIBLE_FILLS:
            return self.vars[k]
        return pt.tanh(self.vars[k]) + (self.n + 1.0) * self.eye()

    def matrix(self, k: int, need: str) -> Any:
        """Variable ``k`` made ``need`` ("general", "sym" or "spd"), per the step's marker:
        "gram" makes it ``X @ X.T`` of an invertible ``X`` (symmetric positive definite,
        a form rewrites recognise); "T" transposes the result."""
        if self.marker == "gram":  # an ill-conditioned X would square its condition number
            x = self.general(k) if self.leaf_fill(k) != "illcond" else \
                pt.tanh(self.vars[k]) + (self.n + 1.0) * self.eye()
            return pt.dot(x, x.T) if x.type.ndim == 2 else pt.matmul(x, _mt(x))
        a = {"general": self.general, "sym": self.sym, "spd": self.spd}[need](k)
        return _mt(a) if self.marker == "T" else a

    def sym(self, k: int) -> Any:
        a = self.general(k)
        return 0.5 * (a + _mt(a))

    def spd(self, k: int) -> Any:
        """A symmetric positive-definite matrix: a Gram product plus the identity."""
        x = self.vars[k]
        if self.leaf_fill(k) == "gram":
            return 0.5 * (x + _mt(x))
        t = self.bounded(k)
        gram = pt.dot(t, t.T) if t.type.ndim == 2 else pt.matmul(t, _mt(t))
        return gram + self.eye()


def _mt(x: Any) -> Any:
    return x.T if x.type.ndim == 2 else pt.swapaxes(x, -1, -2)


def _band(n: int) -> np.ndarray:
    return np.tri(n, n, 1) * np.tri(n, n, 1).T


UNARY = {
    "tanh": pt.tanh, "sin": pt.sin, "cos": pt.cos, "sqr": pt.sqr, "neg": lambda x: -x,
    "exp_tanh": lambda x: pt.exp(pt.tanh(x)), "sigmoid": pt.sigmoid, "softplus": pt.softplus,
    "log1p_sqr": lambda x: pt.log1p(pt.sqr(x)),
}
BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div_pos": lambda a, b: a / (1.0 + pt.sqr(b)),
    "pow_pos": lambda a, b: (1.0 + pt.sqr(a)) ** pt.tanh(b),
}
REDUCE = {
    "sum": pt.sum, "mean": pt.mean,
    "prod_tanh": lambda x, axis, keepdims: pt.prod(1.5 + pt.tanh(x), axis=axis,
                                                   keepdims=keepdims),
    "logsumexp": lambda x, axis, keepdims: pt.log(pt.sum(pt.exp(x), axis=axis,
                                                         keepdims=keepdims)),
}
VIEWS = {"T": lambda x: x.T, "rev0": lambda x: x[::-1], "rev1": lambda x: x[:, ::-1]}


def _index(idx: list) -> tuple:
    return tuple(k[1] if k[0] == "i" else slice(k[1], k[2], k[3]) for k in idx)


def _op(x: Any, flag: bool) -> Any:
    return x.T if flag else x


def _elementwise_step(c: _Ctx, s: list) -> Any:
    v = c.vars
    kind = s[0]
    if kind == "unary":
        return UNARY[s[1]](v[s[2]])
    if kind in ("binary", "bcast"):
        return BINARY[s[1]](v[s[2]], v[s[3]])
    if kind == "reduce":
        f = REDUCE[s[1]]
        return f(v[s[2]], axis=s[3], keepdims=s[4])
    if kind == "view":
        return VIEWS[s[2]](v[s[1]])
    if kind == "index":
        return v[s[1]][_index(s[2])]
    if kind == "adv_index":
        return v[s[1]][np.array(s[2], dtype="int64")]
    if kind == "reshape":
        return v[s[1]].reshape(s[2])
    if kind == "join":
        return pt.concatenate([v[s[1]], v[s[2]]], axis=0)
    return None


def _product_step(c: _Ctx, s: list) -> Any:
    v = c.vars
    kind = s[0]
    if kind == "dot":  # a trailing flag: the product written with @ (MatMul), not dot
        prod = pt.matmul if len(s) > 5 and s[5] else pt.dot
        return prod(_op(v[s[1]], s[3]), _op(v[s[2]], s[4]))
    if kind == "gemm":  # op(c) + alpha * op(a) op(b), the product itself maybe transposed
        _, ci, ai, bi, alpha, ta, tb, tc, tp, *mm = s
        prod = pt.matmul if mm and mm[0] else pt.dot
        term = prod(_op(v[ai], ta), _op(v[bi], tb))
        term = term if alpha == 1.0 else alpha * term
        return _op(v[ci], tc) + _op(term, tp)
    if kind == "gemv":
        return v[s[1]] + s[4] * pt.dot(_op(v[s[2]], s[5]), v[s[3]])
    if kind == "ger":
        return _op(v[s[1]], s[5]) + s[4] * pt.outer(v[s[2]], v[s[3]])
    if kind == "scan":
        w, h0, xs = v[s[1]], v[s[2]], v[s[3]]
        hs, _ = opgraph.scan(lambda x_t, h, w_: pt.tanh(pt.dot(h, w_) + x_t),
                             sequences=[xs], outputs_info=[h0], non_sequences=[w])
        return hs.sum(axis=0) if s[4] else hs[-1]
    if kind == "ofg":
        a_, b_ = pt.dmatrix("a"), pt.dmatrix("b")
        op = OpFromGraph([a_, b_], [pt.dot(a_, b_.T) + pt.sin(a_)])
        first = op(v[s[1]], v[s[2]])
        return op(first, v[s[1]])
    return None


def _solve_matrix(c: _Ctx, k: int, assume: str) -> Any:
    if assume in ("sym", "her"):
        return c.matrix(k, "sym")
    if assume == "pos":
        return c.matrix(k, "spd")
    a = c.matrix(k, "general")
    if assume == "diagonal":
        return a * c.eye()
    if assume == "tridiagonal":
        return a * _band(c.n)
    if assume in ("lower triangular", "upper triangular"):
        return pt.tril(a) if assume.startswith("lower") else pt.triu(a)
    return a


def _b_ndim(c: _Ctx, a: Any, b: Any) -> int:
    return b.type.ndim - (a.type.ndim - 2)


def _solver_step(c: _Ctx, s: list) -> Any:
    v = c.vars
    kind = s[0]
    if kind == "solve":
        _, ai, bi, assume, transposed, lower = s
        a = _solve_matrix(c, ai, assume)
        return la.solve(a, v[bi], assume_a=assume, transposed=transposed, lower=lower,
                        b_ndim=_b_ndim(c, a, v[bi]))
    if kind == "solve_tri":  # a full matrix: only its triangle (or strict triangle) counts
        _, ai, bi, lower, trans, unit = s
        a = c.matrix(ai, "general")
        return la.solve_triangular(a, v[bi], lower=lower, trans=trans, unit_diagonal=unit,
                                   b_ndim=_b_ndim(c, a, v[bi]))
    if kind == "cho_solve":
        _, ai, bi, lower = s
        chol = la.cholesky(c.matrix(ai, "spd"), lower=lower)
        return la.cho_solve((chol, lower), v[bi], b_ndim=_b_ndim(c, chol, v[bi]))
    if kind == "lstsq":
        tall = c.bounded(s[1]) + (c.n + 1.0) * pt.eye(c.n + 1, c.n)
        return la.lstsq(tall, v[s[2]])[0]
    if kind == "lyap":
        a = 0.4 / c.n * pt.tanh(v[s[1]])
        return la.solve_discrete_lyapunov(a, v[s[2]])
    return None


def _decomposition_step(c: _Ctx, s: list) -> Any:
    v = c.vars
    kind, k = s[0], s[1]
    if kind == "chol":
        factor = la.cholesky(c.matrix(k, "spd"), lower=s[2])
        if s[3]:  # cholesky of the factor's own product: a rewrite gives the factor back
            prod = pt.dot(factor, _mt(factor)) if s[2] else pt.dot(_mt(factor), factor)
            if factor.type.ndim == 2:
                return la.cholesky(prod, lower=s[2])
        return factor
    if kind == "det":
        return la.det(c.matrix(k, "general"))
    if kind == "slogdet":
        sign, logabs = la.slogdet(c.matrix(k, "general"))
        return logabs + 0.0 * sign
    if kind == "logdet_gram":
        return pt.log(la.det(c.matrix(k, "spd")))
    if kind == "trace":
        return pt.diagonal(v[k], axis1=-2, axis2=-1).sum(axis=-1)
    if kind == "norm":
        return la.norm(v[k], axis=(-2, -1))
    if kind == "inv":
        return (la.inv if s[2] else la.matrix_inverse)(c.matrix(k, "general"))
    if kind == "pinv":
        return la.pinv(c.matrix(k, "general"))
    if kind == "expm":
        a = 0.5 * c.bounded(k)
        return la.expm(_mt(a) if c.marker == "T" else a)
    if kind == "tril_triu":
        return pt.tril(v[k]) if s[2] else pt.triu(v[k], 1)
    if kind == "eigh":  # eigenvectors squared: their sign is arbitrary
        w, q = la.eigh(c.matrix(k, "sym"), lower=s[2])
        return pt.sqr(q) * pt.shape_padaxis(w, -2)
    if kind == "eigvalsh":
        return la.eigvalsh(c.matrix(k, "sym"), lower=s[2])
    if kind == "svd":
        a = c.matrix(k, "general")
        if s[2] == 0:
            return la.svd(a, compute_uv=False)
        u, sv, vt = la.svd(a, full_matrices=False)
        return pt.sqr(u) * pt.shape_padaxis(sv, -2) + pt.sqr(vt)
    if kind == "qr":
        a = c.matrix(k, "general")
        if s[2] == 0:  # squared: Householder QR flips signs at triangular inputs
            q, r = la.qr(a)
            return pt.sqr(q) + pt.sqr(r)
        return pt.sqr(la.qr(a, mode="r"))
    if kind == "lu":
        a = c.matrix(k, "general")
        if s[2] == 0:
            _, low, up = la.lu(a)
            return low + up
        return la.lu_factor(a)[0]
    if kind == "matrix_power":
        return la.matrix_power(0.5 * c.bounded(k), s[2])
    if kind == "kron":
        return la.kron(v[s[1]], v[s[2]])
    return None


STEPS = (_elementwise_step, _product_step, _solver_step, _decomposition_step)


def build(spec: dict) -> tuple[list, list, list, Any]:
    """``(inputs, outputs, cotangent inputs, cost)`` of the spec's graph."""
    inputs = []
    for k, i in enumerate(spec["inputs"]):
        # a length-1 axis broadcasts, so its static length must say 1
        shape = tuple(d if i["static"] or d == 1 else None for d in i["shape"])
        inputs.append(pt.tensor(f"x{k}", dtype="float64", shape=shape))
    c = _Ctx(spec, inputs)
    for s in spec["steps"]:
        c.marker = s[-1] if s[0] in MARKED and s[-1] in ("T", "gram") else None
        s = s[:-1] if c.marker else s
        for f in STEPS:
            out = f(c, s)
            if out is not None:
                break
        else:
            raise ValueError(f"unknown step {s!r}")
        c.vars.append(out)
    outputs = [c.vars[o] for o in spec["outputs"]]
    cots = [pt.tensor(f"cot{j}", dtype="float64", shape=(None,) * o.type.ndim)
            for j, o in enumerate(outputs)]
    cost = pt.sum(pt.stack([pt.sum(o * w) for o, w in zip(outputs, cots)]))
    return inputs, outputs, cots, cost
