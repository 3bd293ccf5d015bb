"""Check opgraph's JAX mode on whatever accelerator JAX sees (GPU, TPU, else CPU).

Runs a W4-like graph (an MLP's loss and gradients, float32 and float64) and a
sampler-like one (eight schools' logp and dlogp, plus 1000 steps of a
random-walk Metropolis chain as a scan with JAX PRNG keys) in ``mode="JAX"``
and in the C mode (FAST_RUN), compares the values and times both per call.
Nothing in it is GPU-specific: that is the point being checked.

Usage: ``python benchmarks/gpu_check.py [--size N] [--repeats R] [--json FILE]``.
Exit status 1 if a value differs beyond tolerance or a mode fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

Y8 = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
S8 = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def _mlp(size: int, dtype: str) -> tuple[list, list, list[np.ndarray]]:
    import opgraph
    import opgraph.tensor as pt

    x, t = pt.matrix("x", dtype=dtype), pt.matrix("t", dtype=dtype)
    w1, w2 = pt.matrix("w1", dtype=dtype), pt.matrix("w2", dtype=dtype)
    b1, b2 = pt.vector("b1", dtype=dtype), pt.vector("b2", dtype=dtype)
    h = pt.tanh(x @ w1 + b1)
    loss = ((h @ w2 + b2 - t) ** 2).mean()
    rng = np.random.default_rng(0)
    vals = [rng.normal(size=(size, size)), rng.normal(size=(size, size)),
            rng.normal(size=(size, size)) / np.sqrt(size), rng.normal(size=size) * 0.1,
            rng.normal(size=(size, size)) / np.sqrt(size), rng.normal(size=size) * 0.1]
    return ([x, t, w1, b1, w2, b2], [loss, *opgraph.grad(loss, [w1, b1, w2, b2])],
            [v.astype(dtype) for v in vals])


def _eight_schools() -> tuple[list, list, list[np.ndarray]]:
    import opgraph
    import opgraph.tensor as pt

    theta = pt.dvector("theta")
    mu, log_tau, eta = theta[0], theta[1], theta[2:]
    tau = pt.exp(log_tau)
    logp = (-0.5 * (mu / 5.0) ** 2 - pt.log1p((tau / 5.0) ** 2) + log_tau
            - 0.5 * (eta ** 2).sum() - 0.5 * (((Y8 - mu - tau * eta) / S8) ** 2).sum())
    return [theta], [logp, opgraph.grad(logp, theta)], [np.linspace(-1.0, 1.0, 10)]


def _metropolis(steps: int) -> tuple[list, list, list[np.ndarray]]:
    """A random-walk Metropolis chain on eight schools' posterior, as one scan."""
    import opgraph
    import opgraph.tensor as pt

    def logp(th: Any) -> Any:
        mu, log_tau, eta = th[0], th[1], th[2:]
        tau = pt.exp(log_tau)
        return (-0.5 * (mu / 5.0) ** 2 - pt.log1p((tau / 5.0) ** 2) + log_tau
                - 0.5 * (eta ** 2).sum() - 0.5 * (((Y8 - mu - tau * eta) / S8) ** 2).sum())

    theta0, noise, unif = pt.dvector("theta0"), pt.dmatrix("noise"), pt.dvector("u")

    def step(eps: Any, u: Any, th: Any) -> Any:
        proposal = th + 0.3 * eps
        accept = pt.log(u) < logp(proposal) - logp(th)
        return pt.switch(accept, proposal, th)

    chain = opgraph.scan(step, sequences=[noise, unif], outputs_info=[theta0],
                         return_updates=False)
    rng = np.random.default_rng(1)
    vals = [np.zeros(10), rng.normal(size=(steps, 10)), rng.uniform(size=steps)]
    return [theta0, noise, unif], [chain.mean(axis=0), chain[-1]], vals


def _per_call_s(fn: Callable[..., Any], vals: list[np.ndarray], repeats: int) -> float:
    import jax

    jax.block_until_ready(fn(*vals))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*vals))
        best = min(best, time.perf_counter() - t0)
    return best


def check(name: str, inputs: list, outputs: list, vals: list[np.ndarray], repeats: int,
          rtol: float) -> dict[str, Any]:
    """Compile in C and JAX modes, compare the values, time one call of each."""
    import opgraph

    row: dict[str, Any] = {"graph": name}
    fns = {}
    for mode in ("FAST_RUN", "JAX"):
        t0 = time.perf_counter()
        fns[mode] = opgraph.function(inputs, outputs, mode=mode)
        fns[mode](*vals)
        row[f"{mode} compile s"] = round(time.perf_counter() - t0, 3)
    want = fns["FAST_RUN"](*vals)
    got = fns["JAX"](*vals)
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        scale = np.maximum(np.abs(w), 1.0)
        worst = max(worst, float(np.max(np.abs(g - w) / scale)))
    row["max rel diff"] = worst
    row["ok"] = bool(worst <= rtol)
    for mode, fn in fns.items():
        row[f"{mode} call ms"] = round(_per_call_s(fn, vals, repeats) * 1e3, 4)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512, help="MLP width and batch")
    parser.add_argument("--steps", type=int, default=1000, help="Metropolis steps")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    args = parser.parse_args(argv)
    import jax

    devices = jax.devices()
    print(f"JAX {jax.__version__}: default backend {jax.default_backend()}, devices "
          f"{[str(d) for d in devices]}")
    graphs = [("W4 MLP float32", *_mlp(args.size, "float32"), 2e-3),
              ("W4 MLP float64", *_mlp(args.size, "float64"), 1e-9),
              ("eight schools logp+dlogp", *_eight_schools(), 1e-10),
              (f"Metropolis chain ({args.steps} steps, scan)", *_metropolis(args.steps), 1e-8)]
    rows = []
    for name, inputs, outputs, vals, rtol in graphs:
        try:
            rows.append(check(name, inputs, outputs, vals, args.repeats, rtol))
        except Exception as exc:  # report and go on: every graph is a separate check
            rows.append({"graph": name, "ok": False, "error": f"{type(exc).__name__}: {exc}"})
        print(json.dumps(rows[-1]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"backend": jax.default_backend(), "devices": [str(d) for d in devices],
                       "rows": rows}, fh, indent=1)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
