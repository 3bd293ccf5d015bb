"""Random small graphs as *functions*: the call-level semantics of ``function()``.

The value fuzzer (:mod:`.generate`) checks what a graph computes; this one checks
what a compiled function does with memory and state across calls, the rule of
docs/modes.md ("Outputs, updates and memory"):

* the values returned, and the shared variables' values after each call, equal
  those of the Python linker with every rewrite off (the oracle, its own copy of
  the shared state);
* no returned array shares memory with a shared variable's storage, with an
  input (unless both its ``In`` and ``Out`` say ``borrow=True``) or with another
  returned array (unless both say ``borrow=True``);
* no shared storage shares memory with another's or with an input's;
* a returned array not borrowed keeps its value through later calls, and an
  input array is never written.

A spec is JSON-able data, drawn through the :class:`~.generate.Draw` protocol
(hypothesis for CI, seeded ``random`` for the long profile ``nox -s fuzz``):
``n`` (the side of every matrix), ``inputs`` (kind ``m`` matrix or ``r`` row,
the memory ``view`` of its call values, ``borrow``), ``shared`` (matrices),
``steps`` (ops over earlier entries: inputs, then shared, then steps),
``outputs`` (entry, borrow), ``updates`` (shared index, entry), ``givens``
(shared index -> input index), ``inplace`` (accept_inplace with an in-place add
of the caller's own), ``calls`` (``f`` the function, ``c`` its copy),
``share_memory``, ``trust_input`` and ``modes`` (the modes checked).
"""

from __future__ import annotations

import traceback
from typing import Any

import numpy as np
from hypothesis import strategies as st

import opgraph
import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.compile.io import In, Out
from opgraph.compile.mode import Mode
from opgraph.tensor.elemwise import Elemwise

from .generate import Draw, HypothesisDraw, RandomDraw

#: every mode the rule binds: the C linker alone, FAST_RUN (C), the per-node C VM,
#: the Python VM with and without rewrites, dask, and DebugMode
MODES = ("FAST_RUN", "FAST_COMPILE", "CVM", "DASK", "DebugMode", "py_rewrite", "c_norewrite")
UNARY = ("neg", "exp", "sqr", "tanh", "abs")
BINARY = ("add", "mul", "sub")
VIEWS = ("T", "rev0", "rev1")
INPUT_VIEWS = ("plain", "T", "rev", "stride", "bcast", "fortran")


def make_mode(name: str) -> Any:
    if name == "oracle":
        return Mode(linker="py", optimizer=None)
    if name == "py_rewrite":
        return Mode(linker="py", optimizer=opgraph.compile.mode.get_mode("FAST_RUN").optimizer)
    if name == "c_norewrite":
        return Mode(linker="c", optimizer=None)
    return name


# -- drawing ---------------------------------------------------------------------------------
def function_specs(modes: tuple[str, ...] = MODES) -> Any:
    """A hypothesis strategy of function specs checked in every mode of ``modes``."""
    @st.composite
    def strategy(draw: Any) -> dict:
        return draw_function(HypothesisDraw(draw), modes)

    return strategy()


def draw_function(d: Draw, modes: tuple[str, ...] = MODES, n_modes: int = 0) -> dict:
    """One function spec; ``n_modes`` > 0 checks that many modes drawn from ``modes``."""
    n = d.integer(2, 3)
    inputs = [{"kind": d.choice("mmr"), "view": d.choice(INPUT_VIEWS), "borrow": d.integer(0, 1)}
              for _ in range(d.integer(1, 3))]
    kinds = [i["kind"] for i in inputs]
    shared = [{"seed": d.integer(0, 99)} for _ in range(d.integer(0, 3))]
    kinds += ["m"] * len(shared)
    inplace = bool(d.integer(0, 3) == 0)
    steps: list[list] = []
    n_roots = len(kinds)
    for _ in range(d.integer(0, 4)):
        k = d.integer(0, len(kinds) - 1)
        what = d.integer(0, 9)
        if what < 3:
            steps.append(["unary", d.choice(UNARY), k])
            kinds.append(kinds[k])
        elif what < 6:
            j = d.integer(0, len(kinds) - 1)
            steps.append(["binary", d.choice(BINARY), k, j])
            kinds.append("r" if kinds[k] == kinds[j] == "r" else "m")
        elif what < 8 and kinds[k] == "m":
            steps.append(["view", d.choice(VIEWS), k])
            kinds.append("m")
        elif what == 8 and kinds[k] == "m":
            j = d.integer(0, len(kinds) - 1)
            if kinds[j] == "m":
                steps.append(["dot", k, j])
                kinds.append("m")
        elif inplace and k >= n_roots and steps[k - n_roots][0] in ("unary", "binary") \
                and kinds[k] == "m":
            steps.append(["iadd", k, d.integer(0, len(kinds) - 1)])
            kinds.append("m")
    first_step = len(inputs) + len(shared)
    # outputs and updates lean towards shared variables and computed values, where buffer
    # reuse and in-place updates can go wrong
    pools = [range(len(kinds)), range(len(inputs), first_step) or range(len(kinds)),
             range(first_step, len(kinds)) or range(len(kinds))]
    outputs = [{"entry": d.choice(pools[d.integer(0, 2)]), "borrow": d.integer(0, 3) == 0}
               for _ in range(d.integer(0 if shared else 1, 3))]
    matrices = [k for k, kind in enumerate(kinds) if kind == "m"]
    computed = [k for k in matrices if k >= first_step] or matrices
    updates, givens = [], {}
    for s in range(len(shared)):
        pick = d.integer(0, 4)
        if pick <= 2 and matrices:
            updates.append([s, d.choice(computed if pick else matrices)])
        elif pick == 3:
            m_inputs = [i for i, kind in enumerate(inputs) if kind["kind"] == "m"]
            if m_inputs:
                givens[str(s)] = d.choice(m_inputs)
    calls = "".join(d.choice("ffc") for _ in range(d.integer(2, 4)))
    chosen = modes if not n_modes else tuple(dict.fromkeys(d.choice(modes)
                                                           for _ in range(n_modes)))
    return {"n": n, "inputs": inputs, "shared": shared, "steps": steps, "outputs": outputs,
            "updates": updates, "givens": givens, "inplace": inplace, "calls": calls,
            "share_memory": bool(d.integer(0, 1)), "trust_input": bool(d.integer(0, 2) == 0),
            "modes": list(chosen), "seed": d.integer(0, 2**16)}


# -- building --------------------------------------------------------------------------------
def _apply(step: list, ent: list) -> Any:
    kind = step[0]
    if kind == "unary":
        x = ent[step[2]]
        return {"neg": lambda: -x, "exp": lambda: pt.exp(x * 0.1), "sqr": lambda: pt.sqr(x),
                "tanh": lambda: pt.tanh(x), "abs": lambda: abs(x)}[step[1]]()
    if kind == "binary":
        a, b = ent[step[2]], ent[step[3]]
        return {"add": a + b, "mul": a * b, "sub": a - b}[step[1]]
    if kind == "view":
        x = ent[step[2]]
        return {"T": lambda: x.T, "rev0": lambda: x[::-1], "rev1": lambda: x[:, ::-1]}[step[1]]()
    if kind == "dot":
        return pt.dot(ent[step[1]], ent[step[2]])
    if kind == "iadd":
        return Elemwise(ps.add, {0: 0})(ent[step[1]], ent[step[2]])
    raise ValueError(f"unknown step {step!r}")


def _shared_value(spec: dict, s: int) -> np.ndarray:
    rng = np.random.default_rng(spec["shared"][s]["seed"])
    return rng.uniform(-1, 1, (spec["n"], spec["n"]))


def build_function(spec: dict, mode: Any) -> tuple[Any, list]:
    """The compiled function and its shared variables (fresh ones, at their first value)."""
    ins = [(pt.dmatrix if i["kind"] == "m" else pt.drow)(f"x{k}")
           for k, i in enumerate(spec["inputs"])]
    shared = [opgraph.shared(_shared_value(spec, s), name=f"s{s}")
              for s in range(len(spec["shared"]))]
    ent: list[Any] = [*ins, *shared]
    for step in spec["steps"]:
        ent.append(_apply(step, ent))
    outs = [Out(ent[o["entry"]], borrow=bool(o["borrow"])) for o in spec["outputs"]]
    updates = [(shared[s], ent[e]) for s, e in spec["updates"]]
    givens = [(shared[int(s)], ins[i]) for s, i in spec["givens"].items()]
    fn = opgraph.function([In(x, borrow=bool(i["borrow"])) for x, i in zip(ins, spec["inputs"])],
                          outs, mode=make_mode(mode), updates=updates, givens=givens or None,
                          accept_inplace=spec["inplace"], on_unused_input="ignore")
    fn.trust_input = spec["trust_input"]
    return fn, shared


def input_values(spec: dict, call: int) -> list[np.ndarray]:
    """The call's argument arrays, laid out in memory as each input's ``view`` says."""
    rng = np.random.default_rng(spec["seed"] * 7 + call)
    n, vals = spec["n"], []
    for i in spec["inputs"]:
        rows = n if i["kind"] == "m" else 1
        view = i["view"]
        if view == "T" and rows == n:
            v = rng.uniform(-1, 1, (n, rows)).T
        elif view == "rev":
            v = rng.uniform(-1, 1, (rows, n))[::-1, ::-1]
        elif view == "stride":
            v = rng.uniform(-1, 1, (rows, 2 * n))[:, ::2]
        elif view == "bcast":
            v = np.broadcast_to(rng.uniform(-1, 1, (1, n)), (rows, n))
        elif view == "fortran":
            v = np.asfortranarray(rng.uniform(-1, 1, (rows, n)))
        else:
            v = rng.uniform(-1, 1, (rows, n))
        vals.append(v)
    return vals


# -- checking --------------------------------------------------------------------------------
class Finding(Exception):
    """A broken rule (the message says which call, mode and output)."""


def _storage(shared: list) -> list[np.ndarray]:
    return [s.get_value(borrow=True) for s in shared]


def _check_memory(spec: dict, where: str, outs: list, args: list, shared: list) -> None:
    specs_out = spec["outputs"]
    states = _storage(shared)
    for j, r in enumerate(outs):
        if specs_out[j]["borrow"]:
            continue
        for s, state in enumerate(states):
            if np.shares_memory(r, state):
                raise Finding(f"{where}: output {j} shares memory with shared variable s{s}")
        for k, a in enumerate(args):
            if np.shares_memory(r, a) and not spec["inputs"][k]["borrow"]:
                raise Finding(f"{where}: output {j} shares memory with input x{k}")
        for i in range(j):
            if np.shares_memory(r, outs[i]):
                raise Finding(f"{where}: outputs {i} and {j} share memory")
    for s, state in enumerate(states):
        for t in range(s):
            if np.shares_memory(state, states[t]):
                raise Finding(f"{where}: shared variables s{t} and s{s} share memory")
        for k, a in enumerate(args):
            if np.shares_memory(state, a):
                raise Finding(f"{where}: shared variable s{s} shares memory with input x{k}")


def _close(got: Any, want: Any) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-9, atol=1e-12))


def _run_calls(spec: dict, mode: str, oracle: tuple[Any, list]) -> None:
    fn, shared = build_function(spec, mode)
    ref, ref_shared = oracle
    copies = {"f": fn, "r": ref}
    held: list[tuple[str, np.ndarray, np.ndarray]] = []  # (label, returned, its value)
    for c, which in enumerate(spec["calls"]):
        if which == "c" and "c" not in copies:
            copies["c"] = fn.copy(share_memory=spec["share_memory"])
            copies["rc"] = ref.copy(share_memory=spec["share_memory"])
        f, r = (copies["c"], copies["rc"]) if which == "c" else (fn, ref)
        args = input_values(spec, c)
        before = [a.copy() for a in args]
        outs = f(*args)
        want = r(*[a.copy() for a in args])
        where = f"mode {mode} call {c} ({which})"
        for j, (got, w) in enumerate(zip(outs, want)):
            if not _close(got, w):
                raise Finding(f"{where}: output {j} is {np.asarray(got).tolist()}, the Python "
                              f"linker without rewrites gives {np.asarray(w).tolist()}")
        for s, (a, b) in enumerate(zip(_storage(shared), _storage(ref_shared))):
            if not _close(a, b):
                raise Finding(f"{where}: shared s{s} is {a.tolist()} after the call, the "
                              f"Python linker without rewrites gives {b.tolist()}")
        for k, (a, b) in enumerate(zip(args, before)):
            if not np.array_equal(a, b):
                raise Finding(f"{where}: input x{k} was overwritten")
        _check_memory(spec, where, outs, args, shared)
        for label, arr, value in held:
            if not np.array_equal(arr, value):
                raise Finding(f"{where}: {label} changed after it was returned")
        held += [(f"output {j} of call {c}", o, np.array(o, copy=True))
                 for j, o in enumerate(outs) if not spec["outputs"][j]["borrow"]]


def random_function(seed: int, structures: int = 0) -> dict:
    """The long profile's spec ``seed``: with ``structures`` > 0 its graph is one of that
    many (so compiled C modules are reused from the cache) and the memory layout of its
    arguments, borrow flags, calls, copies, ``trust_input`` and two modes are its own."""
    spec = draw_function(RandomDraw(seed), n_modes=2)
    if structures <= 0:
        return spec
    base = draw_function(RandomDraw(10**9 + seed % structures))
    for key in ("n", "steps", "outputs", "updates", "givens", "inplace"):
        spec[key] = base[key]
    spec["shared"] = base["shared"]
    d = RandomDraw(seed)
    spec["inputs"] = [{**i, "view": d.choice(INPUT_VIEWS), "borrow": d.integer(0, 1)}
                      for i in base["inputs"]]
    spec["outputs"] = [{**o, "borrow": d.integer(0, 3) == 0} for o in base["outputs"]]
    return spec


def run_function(spec: dict) -> dict | None:
    """The first finding for ``spec`` over its modes, or None (JSON-able)."""
    for mode in spec["modes"]:
        try:
            # the oracle afresh for each mode: its own shared state from the first value
            oracle = build_function(spec, "oracle")
        except Exception:  # a graph the oracle refuses (e.g. an unsafe in-place add): not ours
            return None
        try:
            _run_calls(spec, mode, oracle)
        except Finding as exc:
            return {"kind": "semantics", "detail": str(exc)[-4000:]}
        except Exception:
            return {"kind": "function", "detail": f"mode {mode}: " +
                    traceback.format_exc(limit=6)[-4000:]}
    return None
