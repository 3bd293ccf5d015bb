"""``verify_grad``: compare symbolic gradients with central finite differences.

The check uses a random projection ``sum(r * fun(x))`` of the output so one
reverse pass covers every output element; the finite differences of the
output itself are computed once and reused for every projection.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgraph.autodiff import arith
from opgraph.autodiff.evaluate import compile_callable
from opgraph.autodiff.reverse import grad
from opgraph.autodiff.undefined import GradientError

__all__ = ["numeric_grad", "numeric_jacobian", "verify_grad"]

#: (step, absolute tolerance, relative tolerance) per float dtype.
DEFAULTS: dict[str, tuple[float, float, float]] = {
    "float64": (1e-6, 1e-4, 1e-4),
    "float32": (1e-3, 1e-2, 1e-2),
    "float16": (1e-1, 5e-2, 5e-2),
}


def numeric_jacobian(
    f: Callable[..., Any], values: Sequence[np.ndarray], eps: float
) -> list[np.ndarray]:
    """d f / d values[i] by central differences, shaped ``(f.size, values[i].size)``."""
    values = [np.array(v, copy=True, order="C") for v in values]  # reshape(-1) must be a view
    jacobians = []
    for i, v in enumerate(values):
        flat = v.reshape(-1)
        columns = []
        for k in range(flat.size):
            orig = flat[k]
            flat[k] = orig + eps
            plus = np.array(f(*values), dtype="float64", copy=True).reshape(-1)
            flat[k] = orig - eps
            minus = np.array(f(*values), dtype="float64", copy=True).reshape(-1)
            flat[k] = orig
            columns.append((plus - minus) / (2 * eps))
        out_size = columns[0].size if columns else np.asarray(f(*values)).size
        jac = np.stack(columns, axis=1) if columns else np.zeros((out_size, 0))
        jacobians.append(jac)
        values[i] = v
    return jacobians


class numeric_grad:
    """The gradient of a scalar-valued numeric function by one-sided finite differences.

    ``f`` takes one array per item of ``pt`` (or a single array) and returns a
    scalar; ``gf`` holds the gradients in the structure of ``pt``.
    """

    def __init__(self, f: Callable[..., Any], pt: Any, eps: float | None = None,
                 out_type: str | None = None) -> None:
        is_list = isinstance(pt, (list, tuple))
        values = [np.array(v, dtype="float64" if np.asarray(v).dtype.kind != "f" else None)
                  for v in (pt if is_list else [pt])]
        dtype = out_type or min((str(v.dtype) for v in values),
                                key=lambda d: np.dtype(d).itemsize)
        step = eps if eps is not None else DEFAULTS.get(dtype, DEFAULTS["float64"])[0]
        base = float(np.asarray(f(*values)))
        grads = []
        for v in values:
            flat = v.reshape(-1)
            g = np.zeros(flat.size, dtype="float64")
            for k in range(flat.size):
                orig = flat[k]
                flat[k] = orig + step
                g[k] = (float(np.asarray(f(*values))) - base) / step
                flat[k] = orig
            grads.append(g.reshape(v.shape))
        self.gf: Any = grads if is_list else grads[0]

    @staticmethod
    def abs_rel_err(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
        """Absolute and relative errors of ``a`` against ``b`` (relative to their sizes)."""
        a, b = np.asarray(a, dtype="float64"), np.asarray(b, dtype="float64")
        abs_err = np.abs(a - b)
        rel_err = abs_err / np.maximum(np.abs(a) + np.abs(b), 1e-8)
        return abs_err, rel_err

    def abs_rel_errors(self, g_pt: Any) -> list[tuple[np.ndarray, np.ndarray]]:
        """Errors of each analytic gradient in ``g_pt`` against ``gf``."""
        gfs = self.gf if isinstance(self.gf, list) else [self.gf]
        g_list = list(g_pt) if isinstance(g_pt, (list, tuple)) else [g_pt]
        if len(g_list) != len(gfs):
            raise ValueError(f"numeric_grad: {len(gfs)} numeric gradients, {len(g_list)} given")
        out = []
        for i, (a, b) in enumerate(zip(g_list, gfs)):
            if np.shape(a) != b.shape:
                raise ValueError(f"numeric_grad: gradient {i} has shape {np.shape(a)}; the "
                                 f"numeric one has {b.shape}")
            out.append(self.abs_rel_err(a, b))
        return out

    def max_err(self, g_pt: Any, abs_tol: float, rel_tol: float) -> tuple[int, int, float, float]:
        """(argument, flat position, abs error, rel error) of the worst mismatch."""
        best = (-1, -1, 0.0, 0.0)
        best_score = -np.inf
        for i, (abs_err, rel_err) in enumerate(self.abs_rel_errors(g_pt)):
            if abs_err.size == 0:
                continue
            score = np.minimum(abs_err / abs_tol, rel_err / rel_tol).reshape(-1)
            k = int(np.argmax(score))
            if score[k] > best_score:
                best_score = score[k]
                best = (i, k, float(abs_err.reshape(-1)[k]), float(rel_err.reshape(-1)[k]))
        return best


def _symbolic_input(i: int, value: np.ndarray) -> Any:
    shape = tuple(1 if s == 1 else None for s in value.shape)
    return arith.tensor_library().TensorType(str(value.dtype), shape)(name=f"input {i}")


def verify_grad(
    fun: Callable[..., Any],
    pt_values: Sequence[Any],
    n_tests: int = 2,
    rng: np.random.Generator | np.random.RandomState | int | None = None,
    eps: float | None = None,
    out_type: str | None = None,
    abs_tol: float | None = None,
    rel_tol: float | None = None,
    mode: Any = None,
    cast_to_output_type: bool = False,
    no_debug_ref: bool = True,
) -> None:
    """Raise :class:`GradientError` if ``grad`` of ``fun`` disagrees with finite differences.

    ``fun`` takes one symbolic tensor per value of ``pt_values`` and returns one
    tensor.  The error names the input, the position of the worst mismatch,
    both values and the absolute and relative errors.
    """
    if not isinstance(pt_values, (list, tuple)):
        raise TypeError(f"pt_values must be a list of arrays; got {type(pt_values).__name__}")
    values = [np.array(v) for v in pt_values]
    for i, v in enumerate(values):
        if v.dtype.kind != "f":
            raise TypeError(
                f"verify_grad: pt_values[{i}] must hold floats to be perturbed; got dtype {v.dtype}"
            )
    # a Generator, a RandomState, or anything with random(shape) (the np.random module)
    rng = rng if callable(getattr(rng, "random", None)) else np.random.default_rng(rng)
    inputs = [_symbolic_input(i, v) for i, v in enumerate(values)]
    output = fun(*inputs)
    if isinstance(output, (list, tuple)):
        raise TypeError("verify_grad: fun must return a single tensor, not a list")
    output = arith.as_tensor(output)
    out_dtype = out_type or arith.float_dtype_of(output)
    worst_dtype = min((str(v.dtype) for v in values), key=lambda d: np.dtype(d).itemsize)
    d_eps, d_abs, d_rel = DEFAULTS.get(worst_dtype, DEFAULTS["float64"])
    eps = d_eps if eps is None else eps
    abs_tol = d_abs if abs_tol is None else abs_tol
    rel_tol = d_rel if rel_tol is None else rel_tol

    projection = output.type.clone(dtype=out_dtype)(name="random projection") if (
        cast_to_output_type or out_dtype != output.type.dtype
    ) else output.type()
    pt = arith._pt()
    cost = pt.sum(projection * output)
    grads = grad(cost, inputs, disconnected_inputs="ignore")
    eval_out = _copying(compile_callable(inputs, [output], mode))
    eval_grads = _copying(compile_callable([*inputs, projection], grads, mode))

    out_value = np.asarray(eval_out(*values)[0])
    numeric = numeric_jacobian(lambda *vs: eval_out(*vs)[0], values, eps)
    for _ in range(n_tests):
        r = np.asarray(rng.random(out_value.shape) + 0.5, dtype=projection.type.dtype)
        analytic = eval_grads(*values, r)
        for i, (a, jac) in enumerate(zip(analytic, numeric)):
            a = np.asarray(a, dtype="float64")
            if a.shape != values[i].shape:
                raise ValueError(
                    f"verify_grad: the gradient of input {i} has shape {a.shape}, but the "
                    f"input has shape {values[i].shape}"
                )
            num = (r.reshape(-1).astype("float64") @ jac).reshape(values[i].shape)
            _compare(i, a, num, abs_tol, rel_tol)


def _copying(fn: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
    """``fn`` on copies of its arguments, returning copies: the check must not be fooled
    by a compiled function that overwrites its inputs or reuses its output buffers."""

    def call(*values: Any) -> list[Any]:
        return [np.array(o, copy=True) for o in fn(*(np.array(v, copy=True) for v in values))]

    return call


def _compare(arg: int, analytic: np.ndarray, numeric: np.ndarray, abs_tol: float,
             rel_tol: float) -> None:
    abs_err = np.abs(analytic - numeric)
    denom = np.abs(analytic) + np.abs(numeric)
    rel_err = np.divide(abs_err, denom, out=np.zeros_like(abs_err), where=denom > 0)
    bad = (abs_err > abs_tol) & (rel_err > rel_tol) | ~np.isfinite(analytic)
    if not bad.any():
        return
    score = np.where(bad, np.minimum(abs_err / abs_tol, rel_err / rel_tol), -1.0)
    score = np.where(np.isnan(score), np.inf, score)
    flat = int(np.argmax(score))
    pos = tuple(int(p) for p in np.unravel_index(flat, analytic.shape))
    raise GradientError(
        arg, pos, analytic.shape, float(analytic.reshape(-1)[flat]),
        float(numeric.reshape(-1)[flat]), float(abs_err.reshape(-1)[flat]),
        float(rel_err.reshape(-1)[flat]), abs_tol, rel_tol,
    )
