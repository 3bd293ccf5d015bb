"""The fuzzer's child process: runs batches of graph specs in every mode.

``python -m integration.fuzz.worker`` (with ``tests/`` on the path) reads one
request per line, ``{"specs": [...]}`` or ``{"grad": [...]}``, and answers
``{"results": [finding-or-null, ...]}``; ``{"functions": [...]}`` runs function specs
(:mod:`.functions`), whose findings are ``semantics`` (the memory rule or a value
broken) or ``function`` (a mode raises where the oracle computes).  A finding is
``{"kind": ..., "detail": ...}`` with kind one of ``build`` (make_node refused
a graph NumPy computes), ``compile``, ``mismatch`` (values, dtypes or shapes
differ from NumPy or between modes), ``disagree`` (modes differ on whether a
call is an error), ``unusable`` (a good call fails after a bad one), ``grad``,
``rewrite`` (only the rewritten modes differ from NumPy, where NumPy meets an inf
or a NaN, or only the modes without rewrites raise).

Graphs of one batch are compiled together as one function per mode (one C
module each: compiling dominates the cost); a spec whose call is expected to
fail, or a batch whose call fails, is rerun graph by graph.
"""

from __future__ import annotations

import faulthandler
import json
import sys
import traceback
from typing import Any

import numpy as np

from opgraph.autodiff.verify import verify_grad
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode

from .build import bad_values, build, has_nonfinite, numpy_outputs, values
from .functions import run_function

faulthandler.enable()

MODES = {
    "py": lambda: Mode(linker="py", optimizer=None),
    "c": lambda: Mode(linker="c", optimizer=get_mode("FAST_RUN").optimizer),
    "c_norewrite": lambda: Mode(linker="c", optimizer=None),
    "py_rewrite": lambda: Mode(linker="py", optimizer=get_mode("FAST_RUN").optimizer),
}
REWRITTEN = ("c", "py_rewrite")
NOT_REWRITTEN = {"py", "c_norewrite"}


def _nonfinite_only(got: np.ndarray, want: np.ndarray) -> bool:
    """Whether ``got`` differs from ``want`` only where ``want`` is NaN or infinite."""
    if got.shape != want.shape or got.dtype != want.dtype or want.dtype.kind != "f":
        return False
    with np.errstate(all="ignore"):
        same = np.isclose(got, want, rtol=1e-3, atol=1e-3, equal_nan=True)
    return bool(np.all(same | ~np.isfinite(want)))


def _finding(kind: str, detail: str) -> dict:
    return {"kind": kind, "detail": detail[-4000:]}


def _compare(got: Any, want: np.ndarray, declared: str, where: str) -> str | None:
    """Why ``got`` is not ``want`` (NumPy's dtype and shape, values within float tolerance)."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.dtype != want.dtype or str(got.dtype) != declared:
        return f"{where}: dtype {got.dtype}, NumPy gives {want.dtype}, the graph says {declared}"
    if got.shape != want.shape:
        return f"{where}: shape {got.shape}, NumPy gives {want.shape}"
    if got.dtype.kind != "f":
        if not np.array_equal(got, want):
            return f"{where}: {got.tolist()} != NumPy {want.tolist()}"
        return None
    rtol = {2: 1e-2, 4: 1e-3}.get(got.dtype.itemsize, 1e-6)  # float16 keeps 11 bits
    finite = want[np.isfinite(want)]
    scale = float(np.max(np.abs(finite))) if finite.size else 0.0
    with np.errstate(all="ignore"):
        ok = np.isclose(got, want, rtol=rtol, atol=rtol * (1.0 + scale), equal_nan=True)
    if not ok.all():
        return f"{where}: {got.tolist()} != NumPy {want.tolist()}"
    return None


def _call(fn: Any, vals: list[np.ndarray]) -> tuple[list | None, str | None]:
    try:
        with np.errstate(all="ignore"):
            return [np.array(o, copy=True) for o in fn(*[v.copy() for v in vals])], None
    except Exception as exc:  # every mode must agree on raising, whatever the type
        return None, f"{type(exc).__name__}: {exc}"[:500]


def _reference(spec: dict, vals: list[np.ndarray] | None) -> tuple[list | None, str | None]:
    if vals is None:
        return None, None
    try:
        return numpy_outputs(spec, vals), None
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"[:500]


def _check_call(probe: tuple[dict, list], outs_by_mode: dict, refs: Any, declared: list,
                label: str, numpy_binds: bool) -> dict | None:
    """Compare one call's results across modes and with NumPy (per spec slices).

    ``probe`` is the spec and the values of the call.
    """
    errors = {m: outs_by_mode[m][1] for m in outs_by_mode}
    raised = {m for m, e in errors.items() if e is not None}
    if raised == NOT_REWRITTEN:
        # the rewritten graph dropped the computation that raises (x * 0 -> 0, x / x -> 1,
        # switch(1, a, b) -> a without evaluating x or b): only fast_math may do that
        return _finding("rewrite", f"{label}: only the modes without rewrites raise "
                                   f"({errors['py']})")
    if raised and len(raised) != len(errors):
        return _finding("disagree", f"{label}: " + "; ".join(
            f"{m}: {'raises ' + errors[m] if errors[m] else 'returns'}" for m in errors))
    ref, ref_error = refs
    if raised:
        if numpy_binds and ref_error is None:
            return _finding("disagree", f"{label}: every mode raises ({errors['py']}), "
                                        "NumPy computes it")
        return None
    if numpy_binds and ref_error is not None:
        return _finding("disagree", f"{label}: NumPy raises ({ref_error}), every mode returns")
    soft = None
    for m, (outs, _) in outs_by_mode.items():
        for j, got in enumerate(outs):
            want = ref[j] if ref is not None and ref_error is None else outs_by_mode["py"][0][j]
            why = _compare(got, want, declared[j], f"{label} mode {m} output {j}")
            if why and m in REWRITTEN and all(
                    _compare(outs_by_mode[r][0][j], got, declared[j], "") is None
                    for r in REWRITTEN) and (_nonfinite_only(np.asarray(got), np.asarray(want))
                                             or has_nonfinite(*probe)):
                # an algebraic rewrite (x/x -> 1, ...) assuming finite values: allowed only
                # under fast_math, so a failure of its own kind (named for the diagnosis)
                soft = soft or _finding("rewrite", why)
            elif why:
                return _finding("mismatch", why)
    return soft


def _compile(inputs: list, outputs: list) -> dict:
    return {m: function(inputs, outputs, mode=make(), on_unused_input="ignore")
            for m, make in MODES.items()}


def _build_failed(spec: dict) -> dict | None:
    """A graph make_node refuses is fine only when NumPy cannot compute it either."""
    error = traceback.format_exc(limit=4)
    try:  # make_node may refuse a step the outputs do not even need: fine if NumPy does too
        numpy_outputs(spec, values(spec), every_step=True)
    except Exception:
        return None
    return _finding("build", error)


def run_one(spec: dict) -> dict | None:
    """Every check of one spec, compiled on its own."""
    try:
        inputs, outputs = build(spec)
    except Exception:
        return _build_failed(spec)
    declared = [o.type.dtype for o in outputs]
    try:
        fns = _compile(inputs, outputs)
    except Exception:
        return _finding("compile", traceback.format_exc(limit=6))
    good = values(spec)
    ref = _reference(spec, good)
    first = {m: _call(f, good) for m, f in fns.items()}
    found = _check_call((spec, good), first, ref, declared, "valid call", True)
    if found:
        return found
    bad = bad_values(spec)
    if bad is not None:
        outs = {m: _call(f, bad) for m, f in fns.items()}
        found = _check_call((spec, bad), outs, _reference(spec, bad), declared, "reshaped call",
                            False)
        if found:
            return found
        again = {m: _call(f, good) for m, f in fns.items()}
        if any(e for _, e in again.values()) and ref[1] is None:
            return _finding("unusable", f"after the reshaped call: {again}")
        return _check_call((spec, good), again, ref, declared, "valid call after the reshaped one",
                           True)
    return None


def run_batch(specs: list[dict]) -> list[dict | None]:
    """Findings for each spec; graphs NumPy computes are compiled together."""
    results: list[dict | None] = [None] * len(specs)
    together, alone = [], []
    built = {}
    for k, spec in enumerate(specs):
        try:
            built[k] = build(spec)
        except Exception:
            results[k] = _build_failed(spec)
            continue
        (alone if _reference(spec, values(spec))[1] else together).append(k)
    if together:
        ins = [v for k in together for v in built[k][0]]
        outs = [v for k in together for v in built[k][1]]
        try:
            fns = _compile(ins, outs)
        except Exception:
            fns = None
        if fns is None:
            alone += together
        else:
            vals = [v for k in together for v in values(specs[k])]
            first = {m: _call(f, vals) for m, f in fns.items()}
            if any(e for _, e in first.values()):
                alone += together
            else:
                alone += _check_batch(specs, together, built, fns, first, vals)
    for k in sorted(alone):
        results[k] = run_one(specs[k])
    return results


def _slices(specs: list[dict], together: list[int], built: dict) -> tuple[dict, dict]:
    in_pos, out_pos, i, o = {}, {}, 0, 0
    for k in together:
        n_in, n_out = len(built[k][0]), len(built[k][1])
        in_pos[k], out_pos[k] = slice(i, i + n_in), slice(o, o + n_out)
        i, o = i + n_in, o + n_out
    return in_pos, out_pos


def _check_batch(specs: list[dict], together: list[int], built: dict, fns: dict, first: dict,
                 vals: list) -> list[int]:
    """Check the batch's calls; the specs that need rerunning alone."""
    in_pos, out_pos = _slices(specs, together, built)
    redo = []
    for k in together:
        declared = [o.type.dtype for o in built[k][1]]
        mine = {m: (outs[out_pos[k]], None) for m, (outs, _) in first.items()}
        ref = _reference(specs[k], values(specs[k]))
        if _check_call((specs[k], values(specs[k])), mine, ref, declared, "valid call", True):
            redo.append(k)
            continue
        bad = bad_values(specs[k])
        if bad is None:
            continue
        call = list(vals)
        call[in_pos[k]] = bad
        outs = {m: _call(f, call) for m, f in fns.items()}
        sliced = {m: (o[out_pos[k]] if o is not None else None, e) for m, (o, e) in outs.items()}
        if _check_call((specs[k], bad), sliced, _reference(specs[k], bad), declared,
                       "reshaped call", False):
            redo.append(k)
    again = {m: _call(f, vals) for m, f in fns.items()}
    for k in together:
        declared = [o.type.dtype for o in built[k][1]]
        mine = {m: ((o[out_pos[k]] if o is not None else None), e) for m, (o, e) in
                again.items()}
        if k not in redo and _check_call((specs[k], values(specs[k])), mine,
                                         _reference(specs[k], values(specs[k])), declared,
                                         "valid call after the others", True):
            redo.append(k)
    return redo


def run_grad(spec: dict) -> dict | None:
    """verify_grad of the spec's first output in FAST_RUN with the C linker."""
    def fun(*inputs: Any) -> Any:
        return build(spec, inputs)[1][0]

    try:
        verify_grad(fun, values(spec), mode=MODES["c"](), rng=np.random.default_rng(0))
    except Exception:
        return _finding("grad", traceback.format_exc(limit=3))
    return None


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "grad" in request:
                results = [run_grad(s) for s in request["grad"]]
            elif "functions" in request:
                results = [run_function(s) for s in request["functions"]]
            else:
                results = run_batch(request["specs"])
            answer = {"results": results}
        except Exception:
            answer = {"error": traceback.format_exc(limit=8)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
