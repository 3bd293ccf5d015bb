"""Specs (see generate.py) to opgraph graphs, to input values, and to NumPy results.

One interpreter walks the steps for both targets, so the graph and its NumPy
reference cannot drift apart.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import opgraph.tensor as pt

from .ops import BINARY, REDUCE, UNARY

__all__ = ["bad_values", "build", "has_nonfinite", "numpy_outputs", "values"]


def _data(dtype: str, shape: Any, rng: np.random.Generator, smooth: bool) -> np.ndarray:
    shape = tuple(shape)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("uint"):
        return rng.integers(0, 9, shape).astype(dtype)
    if dtype.startswith("int"):
        return rng.integers(-4, 5, shape).astype(dtype)
    lo = -1.0 if smooth else -3.0
    return rng.uniform(lo, -lo, shape).astype(dtype)


def _smooth(spec: dict) -> bool:
    return bool(spec.get("smooth"))


def values(spec: dict) -> list[np.ndarray]:
    """The input values of the spec's (valid) call."""
    rng = np.random.default_rng(spec["seed"])
    return [_data(i["dtype"], i["shape"], rng, _smooth(spec)) for i in spec["inputs"]]


def bad_values(spec: dict) -> list[np.ndarray] | None:
    """The inputs of the spec's possibly-invalid call (one input reshaped), or None."""
    bad = spec.get("bad")
    if not bad:
        return None
    good = values(spec)
    rng = np.random.default_rng(spec["seed"] + 1)
    i = bad["input"]
    good[i] = _data(spec["inputs"][i]["dtype"], bad["shape"], rng, False)
    return good


def _index(idx: list) -> tuple:
    return tuple(k[1] if k[0] == "i" else slice(k[1], k[2], k[3]) for k in idx)


def _axis(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def _step(step: list, pool: list, numpy: bool, smooth: bool) -> Any:
    kind = step[0]
    if kind == "const":
        data = _data(step[1], step[2], np.random.default_rng(step[3]), smooth)
        return data if numpy else pt.constant(data)
    if kind == "unary":
        return UNARY[step[1]][numpy](pool[step[2]])
    if kind == "binary":
        return BINARY[step[1]][numpy](pool[step[2]], pool[step[3]])
    if kind == "switch":
        c, a, b = (pool[k] for k in step[1:])
        return np.where(c, a, b) if numpy else pt.switch(c, a, b)
    if kind == "cast":
        return np.asarray(pool[step[1]]).astype(step[2]) if numpy else pt.cast(pool[step[1]],
                                                                              step[2])
    if kind == "reduce":
        name, a, axis, keep = step[1:]
        return REDUCE[name][numpy](pool[a], axis=_axis(axis), keepdims=keep)
    if kind == "argmax":
        return np.argmax(pool[step[1]], axis=step[2]) if numpy else pt.argmax(pool[step[1]],
                                                                              axis=step[2])
    if kind == "dot":
        return (np.dot if numpy else pt.dot)(pool[step[1]], pool[step[2]])
    if kind == "matmul":
        return (np.matmul if numpy else pt.matmul)(pool[step[1]], pool[step[2]])
    if kind == "sub":
        return pool[step[1]][_index(step[2])]
    if kind == "reshape":
        return (np.reshape if numpy else pt.reshape)(pool[step[1]], tuple(step[2]))
    if kind == "dimshuffle":
        a, pattern = pool[step[1]], step[2]
        if not numpy:
            return a.dimshuffle(*pattern)
        a = np.asarray(a)
        dropped = tuple(k for k in range(a.ndim) if k not in pattern)
        a = np.squeeze(a, axis=dropped) if dropped else a
        kept = [p for p in pattern if p != "x"]
        order = [sorted(kept).index(p) for p in kept]
        a = np.transpose(a, order)
        for pos, p in enumerate(pattern):
            if p == "x":
                a = np.expand_dims(a, pos)
        return a
    if kind == "join":
        parts = [pool[k] for k in step[2]]
        return np.concatenate(parts, axis=step[1]) if numpy else pt.join(step[1], *parts)
    raise ValueError(f"unknown step {step!r}")


def build(spec: dict, inputs: Any = None) -> tuple[list, list]:
    """(inputs, outputs) of the opgraph graph a spec describes (on ``inputs`` if given)."""
    if inputs is None:
        inputs = [pt.tensor(dtype=i["dtype"], shape=tuple(i["static"]), name=f"in{k}")
                  for k, i in enumerate(spec["inputs"])]
    pool: list = list(inputs)
    for step in spec["steps"]:
        pool.append(_step(step, pool, False, _smooth(spec)))
    return inputs, [pool[k] for k in spec["outputs"]]


def _deps(step: list) -> list[int]:
    """The entries a step reads."""
    kind = step[0]
    if kind == "const":
        return []
    if kind in ("unary", "reduce"):
        return [step[2]]
    if kind == "binary":
        return [step[2], step[3]]
    if kind == "switch":
        return list(step[1:4])
    if kind == "join":
        return list(step[2])
    return [step[1]] + ([step[2]] if kind in ("dot", "matmul") else [])


def needed(spec: dict) -> set[int]:
    """The entries the outputs depend on (a graph computes nothing else)."""
    n_in = len(spec["inputs"])
    todo, seen = list(spec["outputs"]), set()
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        if k >= n_in:
            todo.extend(_deps(spec["steps"][k - n_in]))
    return seen


def numpy_outputs(spec: dict, vals: list[np.ndarray], every_step: bool = False
                  ) -> list[np.ndarray]:
    """The spec's outputs computed by NumPy directly (raises what NumPy raises).

    Only the steps the outputs need run, unless ``every_step``.
    """
    pool = _entries(spec, vals, every_step)
    return [pool[k] for k in spec["outputs"]]


def _entries(spec: dict, vals: list[np.ndarray], every_step: bool) -> list:
    pool: list = list(vals)
    used = set(range(len(vals) + len(spec["steps"]))) if every_step else needed(spec)
    with np.errstate(all="ignore"):
        for step in spec["steps"]:
            if len(pool) in used:
                pool.append(np.asarray(_step(step, pool, True, _smooth(spec))))
            else:
                pool.append(None)
    return pool


def has_nonfinite(spec: dict, vals: list[np.ndarray]) -> bool:
    """Whether NumPy meets a NaN or an infinity anywhere on the way to the outputs."""
    try:
        pool = _entries(spec, vals, False)
    except Exception:
        return False
    return any(v is not None and v.dtype.kind == "f" and not np.isfinite(v).all() for v in pool)
