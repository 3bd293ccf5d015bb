"""The value-and-gradient fuzzer's child process: checks batches of ``grad_generate`` specs.

``python -m integration.fuzz.grad_worker`` (with ``tests/`` on the path) reads one
request per line, ``{"specs": [...]}``, and answers ``{"results": [...]}``: per spec
``null`` (checked, no finding), ``{"skipped": why}`` (the unrewritten graph itself
raised or gave a non-finite value on the spec's inputs) or a finding
``{"kind": ..., "detail": ...}``:

* ``build`` -- the graph or its gradient graph could not be built;
* ``compile`` -- ``function()`` failed in some mode;
* ``raise`` -- a mode raised where the unrewritten Python run returns;
* ``value`` / ``grad`` -- a mode's outputs / gradients differ from the unrewritten
  Python run's (``rtol`` 1e-6 relative to the largest magnitude of the array);
* ``fd`` -- the unrewritten gradient itself disagrees with central finite
  differences (fourth order, two random unit directions per graph, at each of the
  steps 1e-6, 1e-4 and 1e-5): a pullback bug.

Graphs of one batch are compiled together, one function per mode (compiling
dominates the cost); a batch whose call fails is rerun one graph at a time.
"""

from __future__ import annotations

import faulthandler
import json
import sys
import traceback
from typing import Any

import numpy as np

import opgraph
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode

from .grad_build import build, cotangents, values

faulthandler.enable()

#: The reference (Python linker, no rewrites) and the modes compared with it.
MODES = {
    "ref": lambda: Mode(linker="py", optimizer=None),
    "FAST_RUN": lambda: get_mode("FAST_RUN"),
    "FAST_COMPILE": lambda: get_mode("FAST_COMPILE"),
    "C": lambda: get_mode("C"),
    "c_norewrite": lambda: Mode(linker="c", optimizer=None),
    "py_rewrite": lambda: Mode(linker="py", optimizer=get_mode("FAST_RUN").optimizer),
    "DASK": lambda: get_mode("DASK"),
}
RTOL = 1e-6
#: finite differences: step, and tolerance relative to sum |g_i v_i| (plus f's roundoff)
FD_STEP = 1e-6
FD_RETRY_STEPS = (1e-4, 1e-5)
FD_RTOL = 1e-5
FD_DIRECTIONS = 2


def _finding(kind: str, detail: str) -> dict:
    return {"kind": kind, "detail": detail[-4000:]}


class _Built:
    """One spec's graph, gradient graph, input values and cotangents."""

    def __init__(self, spec: dict) -> None:
        self.spec = spec
        self.inputs, self.outputs, self.cots, self.cost = build(spec)
        self.grads = opgraph.grad(self.cost, self.inputs, disconnected_inputs="ignore")
        self.vals = values(spec)
        shapes = [o.type.shape for o in self.outputs]
        self.shapes = shapes
        self.cot_vals: list[np.ndarray] | None = None

    def all_inputs(self) -> list:
        return [*self.inputs, *self.cots]

    def all_outputs(self) -> list:
        return [*self.outputs, *self.grads]


def _call(fn: Any, args: list[np.ndarray]) -> tuple[list | None, str | None]:
    try:
        with np.errstate(all="ignore"):
            return [np.array(o, copy=True) for o in fn(*[a.copy() for a in args])], None
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"[:600]


def _mismatch(got: np.ndarray, want: np.ndarray) -> float | None:
    """The relative error of ``got`` (None: equal within RTOL)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return float("inf")
    if want.size == 0:
        return None
    scale = max(float(np.max(np.abs(want))), 1.0)
    err = float(np.max(np.abs(got - want))) / scale
    return None if err <= RTOL else err


class _Batch:
    """Specs compiled together: one function per mode, plus the reference cost function."""

    def __init__(self, built: list[_Built], modes: list[str]) -> None:
        self.built = built
        ins = [v for b in built for v in b.all_inputs()]
        outs = [v for b in built for v in b.all_outputs()]
        self.fns = {m: function(ins, outs, mode=MODES[m](), on_unused_input="ignore")
                    for m in modes}
        self.cost_fn = function(ins, [b.cost for b in built], mode=MODES["ref"](),
                                on_unused_input="ignore")

    def args(self, shift: list[list[np.ndarray]] | None = None, h: float = 0.0) -> list:
        out = []
        for k, b in enumerate(self.built):
            vals = b.vals if shift is None else [x + h * d for x, d in zip(b.vals, shift[k])]
            out += [*vals, *b.cot_vals]
        return out

    def out_slices(self) -> list[slice]:
        res, o = [], 0
        for b in self.built:
            n = len(b.outputs) + len(b.grads)
            res.append(slice(o, o + n))
            o += n
        return res


def _first_call(batch: _Batch) -> tuple[dict, str | None]:
    """Every mode called once; the reference's error, if any."""
    results = {m: _call(f, batch.args()) for m, f in batch.fns.items()}
    return results, results["ref"][1]


def _fd_disagreements(batch: _Batch, ref_grads: list[list[np.ndarray]], dirs: list,
                      step: float) -> list[str | None] | str:
    """Per graph: why the directional derivative along ``dirs`` disagrees with fourth-order
    central differences of step ``step``, or None; a string when the cost raised."""
    f = {}
    for m in (-2, -1, 1, 2):
        out, err = _call(batch.cost_fn, batch.args(dirs, m * step))
        if err:
            return f"the cost raised {m} steps of {step:g} away: {err}"
        f[m] = out
    why: list[str | None] = []
    for k in range(len(batch.built)):
        fd = (8 * (f[1][k] - f[-1][k]) - (f[2][k] - f[-2][k])) / (12 * step)
        an = sum(float(np.sum(g * d)) for g, d in zip(ref_grads[k], dirs[k]))
        scale = sum(float(np.sum(np.abs(g * d))) for g, d in zip(ref_grads[k], dirs[k]))
        base = float(np.abs(batch.cost_fn_value[k]))
        tol = FD_RTOL * scale + 1e-8 * (1.0 + base)
        ok = abs(float(fd) - an) <= tol
        why.append(None if ok else (f"directional derivative {an!r}, finite differences "
                                    f"{float(fd)!r} at step {step:g} (tolerance {tol:.3g})"))
    return why


def _fd_check(batch: _Batch, ref_grads: list[list[np.ndarray]], seed: int) -> list[str | None]:
    """Per graph: why the reference gradient disagrees with finite differences, or None.

    A graph that disagrees at ``FD_STEP`` is tried again at ``FD_RETRY_STEPS``: on an
    ill-conditioned graph the rounding of a small step or the curvature of a large one
    can each spoil one step size, while a wrong pullback disagrees at every step."""
    rng = np.random.default_rng(seed)
    why: list[str | None] = [None] * len(batch.built)
    for _ in range(FD_DIRECTIONS):
        dirs = []
        for b in batch.built:
            d = [rng.standard_normal(x.shape) for x in b.vals]
            norm = np.sqrt(sum(float(np.sum(x * x)) for x in d)) or 1.0
            dirs.append([x / norm for x in d])
        bad = _fd_disagreements(batch, ref_grads, dirs, FD_STEP)
        if isinstance(bad, str):
            return [bad] * len(batch.built)
        for step in FD_RETRY_STEPS:
            if all(b is None for b in bad):
                break
            again = _fd_disagreements(batch, ref_grads, dirs, step)
            if isinstance(again, str):
                continue
            bad = [b if a is not None else None for b, a in zip(bad, again)]
        for k, b in enumerate(bad):
            if b is not None and why[k] is None:
                why[k] = b
    return why


def _check(batch: _Batch, results: dict) -> list[dict | None]:
    """Compare every mode with the reference, and the reference with finite differences."""
    ref = results["ref"][0]
    slices = batch.out_slices()
    found: list[dict | None] = [None] * len(batch.built)
    ref_grads = []
    for k, b in enumerate(batch.built):
        mine = ref[slices[k]]
        ref_grads.append(mine[len(b.outputs):])
        if not all(np.all(np.isfinite(x)) for x in mine):
            found[k] = {"skipped": "non-finite reference value"}
            continue
        for m, (outs, err) in results.items():
            if m == "ref":
                continue
            if err is not None:
                found[k] = _finding("raise", f"mode {m} raises: {err}")
                break
            for j, (got, want) in enumerate(zip(outs[slices[k]], mine)):
                bad = _mismatch(got, want)
                if bad is not None:
                    what = (f"output {j}" if j < len(b.outputs)
                            else f"gradient of input {j - len(b.outputs)}")
                    found[k] = _finding("value" if j < len(b.outputs) else "grad",
                                        f"mode {m}: {what} off by {bad:.3g} (relative)\n"
                                        f"got {np.asarray(got).tolist()}\n"
                                        f"want {np.asarray(want).tolist()}")
                    break
            if found[k] is not None:
                break
    costs, err = _call(batch.cost_fn, batch.args())
    if err:
        return [f or _finding("raise", f"the reference cost raises: {err}") for f in found]
    batch.cost_fn_value = costs
    seed = batch.built[0].spec["seed"]
    for k, why in enumerate(_fd_check(batch, ref_grads, seed)):
        if why and found[k] is None:
            found[k] = _finding("fd", f"the unrewritten gradient: {why}")
    return found


def run_specs(specs: list[dict], modes: list[str]) -> list[dict | None]:
    """Findings for each spec (see the module docstring)."""
    if "ref" not in modes:
        modes = ["ref", *modes]
    results: list[dict | None] = [None] * len(specs)
    built: dict[int, _Built] = {}
    for k, spec in enumerate(specs):
        try:
            b = _Built(spec)
            b.cot_vals = cotangents(spec, [tuple(s) for s in spec["output_shapes"]])
            built[k] = b
        except Exception:
            results[k] = _finding("build", traceback.format_exc(limit=6))
    together = sorted(built)
    if len(together) > 1 and _batch_ok(specs, built, together, modes, results):
        return results
    for k in together:
        _batch_ok(specs, built, [k], modes, results)
    return results


def _batch_ok(specs: list[dict], built: dict, keys: list[int], modes: list[str],
              results: list) -> bool:
    """Check ``keys`` together; False when they must be rerun one at a time."""
    try:
        batch = _Batch([built[k] for k in keys], modes)
    except Exception:
        if len(keys) > 1:
            return False
        results[keys[0]] = _finding("compile", traceback.format_exc(limit=8))
        return True
    first, ref_error = _first_call(batch)
    if ref_error is not None or any(e for _, e in first.values()):
        if len(keys) > 1:
            return False
        if ref_error is not None:
            results[keys[0]] = {"skipped": f"the unrewritten graph raises: {ref_error}"}
            return True
    for k, f in zip(keys, _check(batch, first)):
        results[k] = f
    return True


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = {"results": run_specs(request["specs"], request.get("modes", list(MODES)))}
        except Exception:
            answer = {"error": traceback.format_exc(limit=8)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
