"""Rewrite benchmarks: FAST_RUN compile time and rewrite quality, beside PyTensor.

Compile time of an elemwise chain of N ops (tanh, *0.5, sin, + an earlier
term, repeated) and of a 2-layer MLP gradient graph, warm caches on both
sides (each graph compiled once before the timed compile). Rewrite quality:
node counts after FAST_RUN for textbook simplifications.

Run standalone: ``python benchmarks/bench_rewrites.py``.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import Any

CHAIN_SIZES = (10, 100, 1000, 3000)
PYTENSOR_REFERENCE = {100: 0.11, 1000: 0.78, 3000: 2.7}  # seconds, from the issue


def _chain(lib: Any, n: int) -> tuple[Any, Any]:
    x = lib.vector("x")
    y = x
    history = [x]
    for i in range(n):
        step = i % 4
        if step == 0:
            y = lib.tanh(y)
        elif step == 1:
            y = y * 0.5
        elif step == 2:
            y = lib.sin(y)
        else:
            y = y + history[max(0, len(history) - 4)]
        history.append(y)
    return x, y


def _mlp_grad(lib: Any, grad: Callable[..., Any]) -> tuple[list[Any], list[Any]]:
    x, t = lib.matrix("x"), lib.matrix("t")
    w1, w2 = lib.matrix("w1"), lib.matrix("w2")
    b1, b2 = lib.vector("b1"), lib.vector("b2")
    h = lib.tanh(lib.dot(x, w1) + b1)
    out = lib.dot(h, w2) + b2
    loss = lib.mean((out - t) ** 2)
    params = [w1, b1, w2, b2]
    return [x, t, *params], grad(loss, params)


def _time_compile(build: Callable[[], tuple[Any, Any]], compile_fn: Callable[..., Any],
                  repeats: int = 1) -> tuple[float, Any]:
    inputs, outputs = build()
    compile_fn(inputs, outputs)  # warm caches (C modules, rewrite database)
    best = math.inf
    fn = None
    for _ in range(repeats):
        inputs, outputs = build()
        t0 = time.perf_counter()
        fn = compile_fn(inputs, outputs)
        best = min(best, time.perf_counter() - t0)
    return best, fn


def _ours() -> dict[str, Any] | None:
    try:
        import opgraph.tensor as pt
        from opgraph.compile.function import function
    except ImportError:
        return None
    try:
        from opgraph.gradient import grad
    except ImportError:
        grad = None

    def compile_fn(inputs: Any, outputs: Any, mode: str = "FAST_RUN") -> Any:
        return function(list(inputs), outputs, mode=mode, on_unused_input="ignore")

    def compile_vm(inputs: Any, outputs: Any) -> Any:
        from opgraph.compile.mode import Mode

        return function(list(inputs), outputs, mode=Mode(linker="vm", optimizer="fast_run"),
                        on_unused_input="ignore")

    return {"lib": pt, "compile": compile_fn, "compile_vm": compile_vm, "grad": grad}


def _peer() -> dict[str, Any] | None:
    try:
        import pytensor
        import pytensor.tensor as ptt
    except ImportError:
        return None

    def compile_fn(inputs: Any, outputs: Any, mode: str = "FAST_RUN") -> Any:
        m = pytensor.compile.mode.get_mode(mode)
        if mode == "FAST_RUN":
            m = m.clone(linker="cvm")
        return pytensor.function(list(inputs), outputs, mode=m, on_unused_input="ignore")

    return {"lib": ptt, "compile": compile_fn, "grad": pytensor.grad}


def _node_count(fn: Any) -> int:
    return len(fn.maker.fgraph.apply_nodes)


def _quality_cases(lib: Any) -> list[tuple[str, Callable[[], tuple[list[Any], Any]]]]:
    def v(name: str = "x") -> Any:
        return lib.vector(name)

    def case(expr: Callable[[Any, Any], Any]) -> Callable[[], tuple[list[Any], Any]]:
        def build() -> tuple[list[Any], Any]:
            x, y = v("x"), v("y")
            return [x, y], expr(x, y)

        return build

    return [
        ("x*y/y", case(lambda x, y: x * y / y)),
        ("log(exp(x))", case(lambda x, y: lib.log(lib.exp(x)) + 0 * y)),
        ("x+0", case(lambda x, y: (x + 0) + 0 * y)),
        ("x*1", case(lambda x, y: (x * 1) + 0 * y)),
        ("repeated subexpression", case(lambda x, y: lib.exp(x + y) * lib.exp(x + y))),
        ("--x", case(lambda x, y: -(x.__neg__()) + y)),
        ("x-x", case(lambda x, y: (x - x) + y)),
        ("x/x (x*1/x)", case(lambda x, y: x * y / x)),
        ("exp(log(x))", case(lambda x, y: lib.exp(lib.log(x)) * y)),
        ("x*0+y", case(lambda x, y: x * 0 + y)),
        ("(x+y)-y", case(lambda x, y: (x + y) - y)),
        ("x**2 -> sqr", case(lambda x, y: x**2 + y)),
        ("x**1", case(lambda x, y: x**1 + y)),
        ("log(1+x) -> log1p", case(lambda x, y: lib.log(1 + x) + y)),
        ("exp(x)-1 -> expm1", case(lambda x, y: (lib.exp(x) - 1) + y)),
        ("2+3 (constants)", case(lambda x, y: x + (lib.constant(2.0) + 3.0))),
        ("x.T.T", case(lambda x, y: x.dimshuffle(0).dimshuffle(0) + y)),
        ("-x*-y", case(lambda x, y: (-x) * (-y))),
    ]


#: the report's plot of compile time against graph size, both libraries
COMPILE_PLOT = "FAST_RUN compile time vs graph size (elemwise chain)"


def run(report: Any) -> None:
    ours = _ours()
    peer = _peer()
    if ours is None:
        report.note("opgraph.tensor or function() not importable: nothing to measure")
        return
    limit = sys.getrecursionlimit()

    report.section("FAST_RUN compile time, elemwise chain (tanh, *0.5, sin, + earlier term)")
    prev = None
    for n in CHAIN_SIZES:
        t_ours, fn = _time_compile(lambda n=n: _chain_io(ours["lib"], n), ours["compile"],
                                   repeats=3)
        row: dict[str, Any] = {"N": n, "opgraph_s": round(t_ours, 4),
                               "nodes_after": _node_count(fn)}
        report.series(COMPILE_PLOT, "opgraph", n, t_ours)
        if peer is not None:
            try:
                t_peer, _ = _time_compile(lambda n=n: _chain_io(peer["lib"], n), peer["compile"])
                row["pytensor_s"] = round(t_peer, 4)
                report.series(COMPILE_PLOT, "pytensor", n, t_peer)
                row["ratio"] = round(t_ours / t_peer, 3)
            except RecursionError:
                row["pytensor_s"] = "RecursionError"
        elif n in PYTENSOR_REFERENCE:
            row["pytensor_ref_s"] = PYTENSOR_REFERENCE[n]
            row["ratio_vs_ref"] = round(t_ours / PYTENSOR_REFERENCE[n], 3)
        if prev is not None:
            pn, pt_ = prev
            nlogn = (n * math.log(n)) / (pn * math.log(pn))
            row["growth_vs_NlogN"] = round((t_ours / pt_) / nlogn, 2)
        prev = (n, t_ours)
        report.row(**row)
    report.note(f"recursion limit {limit}; the rewrite engine and traversals are iterative")

    if ours["grad"] is not None:
        report.section("FAST_RUN compile time, 2-layer MLP gradient graph")
        try:
            def build() -> tuple[list[Any], list[Any]]:
                return _mlp_grad(ours["lib"], ours["grad"])

            linker = "preferred"
            try:
                t_ours, fn = _time_compile(build, ours["compile"], repeats=3)
            except Exception as exc:  # the preferred (C) linker failed: measure on the VM
                report.note(f"preferred linker failed on the MLP gradient graph "
                            f"({type(exc).__name__}: {str(exc).splitlines()[0][:120]}); "
                            "timing with the Python VM linker instead")
                linker = "vm"
                t_ours, fn = _time_compile(build, ours["compile_vm"], repeats=3)
            row = {"graph": "mlp_grad", "linker": linker, "opgraph_s": round(t_ours, 4),
                   "nodes_after": _node_count(fn)}
            if peer is not None:
                t_peer, _ = _time_compile(lambda: _mlp_grad(peer["lib"], peer["grad"]),
                                          peer["compile"], repeats=3)
                row["pytensor_s"] = round(t_peer, 4)
                report.series(COMPILE_PLOT, "pytensor", n, t_peer)
                row["ratio"] = round(t_ours / t_peer, 3)
            report.row(**row)
        except Exception as exc:  # keep the other sections
            report.note(f"MLP gradient benchmark failed: {type(exc).__name__}: {exc}")

    report.section("FAST_RUN compile time, long sums (canonizer has no depth cap)")
    for kind, n in [(k, n) for k in ("add_const", "cancel", "terms") for n in (1000, 3000)]:
        t_ours, fn = _time_compile(lambda k=kind, n=n: _long_sum(ours["lib"], k, n),
                                   ours["compile"])
        report.row(graph=kind, N=n, opgraph_s=round(t_ours, 4), nodes_after=_node_count(fn))
    report.note("add_const: x + 1 + 1 ... (one Add left); cancel: ((x + y) - y) ... (none "
                "left); terms: x + sin(2x) + sin(3x) ... (one fused node)")

    report.section("Rewrite quality: Apply nodes after FAST_RUN (fewer is better)")
    peer_cases = dict(_quality_cases(peer["lib"])) if peer is not None else {}
    for name, build in _quality_cases(ours["lib"]):
        row = {"expression": name}
        try:
            inputs, out = build()
            row["opgraph_nodes"] = _node_count(ours["compile"](inputs, out))
        except Exception as exc:
            row["opgraph_nodes"] = f"error: {type(exc).__name__}"
        if name in peer_cases:
            try:
                inputs, out = peer_cases[name]()
                row["pytensor_nodes"] = _node_count(peer["compile"](inputs, out))
            except Exception as exc:
                row["pytensor_nodes"] = f"error: {type(exc).__name__}"
        report.row(**row)


def _long_sum(lib: Any, kind: str, n: int) -> tuple[list[Any], Any]:
    x, y = lib.vector("x"), lib.vector("y")
    s = x
    for i in range(n):
        if kind == "add_const":
            s = s + 1.0
        elif kind == "cancel":
            s = (s + y) - y
        else:
            s = s + lib.sin(x * float(i + 2))
    return [x, y], s


def _chain_io(lib: Any, n: int) -> tuple[list[Any], Any]:
    x, y = _chain(lib, n)
    return [x], y


if __name__ == "__main__":
    from report import run_standalone

    run_standalone(run)
