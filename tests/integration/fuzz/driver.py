"""The parent side of the fuzzer: sends batches of specs to worker children, turns a
dead child into a ``crash`` finding for the graph that killed it, and counts.

The long profile is this module's command line (``nox -s fuzz`` runs it)::

    PYTHONPATH=tests python -m integration.fuzz.driver --graphs 20000 --grad 500 --jobs 2

plus 20,000 function specs (``--functions``, :mod:`.functions`); ``--graphs 0 --grad 0``
runs only those.

or ``nox -s fuzz -- --graphs 20000``.

It prints a summary and writes every finding, with its spec, to ``--out`` (and, as they
come, to the same name with an ``l`` appended: JSON lines).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from opgraph_c.childproc import ChildProcess, Crash

from . import grad_driver
from .functions import random_function
from .generate import random_spec
from .pool import append_jsonl, run_per_thread

TESTS_DIR = Path(__file__).resolve().parents[2]
#: Extra C flags of the fuzz runs: compiling dominates the cost, and -O0 compiles about
#: four times faster than the linker's -O3; ``--cflags ""`` keeps the production flags.
DEFAULT_CFLAGS = "-O0"
#: Findings that fail a run: every kind.  ``rewrite`` (a rewrite assuming finite values,
#: e.g. x / x -> 1 where x is 0, or dropping a node that raises) fails too: rewrites keep
#: NumPy's IEEE results unless ``config.fast_math`` is set, which the fuzzer never sets.
FAILING = ("crash", "mismatch", "disagree", "unusable", "build", "compile", "grad", "rewrite",
           "semantics", "function")
KINDS = FAILING


class Fuzzer:
    """One worker child; :meth:`run` returns ``(spec, finding)`` for each finding."""

    def __init__(self, compiledir: str, cflags: str = DEFAULT_CFLAGS,
                 timeout: float = 600.0) -> None:
        flags = f"compiledir={compiledir}" + (f",gcc__cxxflags={cflags}" if cflags else "")
        env = dict(os.environ, OPGRAPH_FLAGS=flags,
                   OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   PYTHONPATH=os.pathsep.join(
                       [str(TESTS_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]))
        self.child = ChildProcess([sys.executable, "-m", "integration.fuzz.worker"], env=env,
                                  timeout=timeout)

    def _ask(self, key: str, specs: list[dict]) -> list[dict | None]:
        answer = self.child.ask({key: specs})
        if isinstance(answer, Crash):
            if len(specs) == 1:
                return [{"kind": "crash", "detail": answer.describe()}]
            # one graph at a time (a fresh child after each crash) to name the culprit
            return [r for s in specs for r in self._ask(key, [s])]
        if "error" in answer:
            raise RuntimeError(f"the fuzz worker failed:\n{answer['error']}")
        return answer["results"]

    def run(self, specs: list[dict], grad: bool = False,
            key: str | None = None) -> list[tuple[dict, dict]]:
        """Findings of ``specs``: value graphs, ``grad`` graphs or ``key="functions"``."""
        results = self._ask(key or ("grad" if grad else "specs"), specs)
        return [(s, r) for s, r in zip(specs, results) if r is not None]

    def close(self) -> None:
        self.child.close()


def _chunks(seq: list, n: int) -> list[list]:
    return [seq[i:i + n] for i in range(0, len(seq), n)]


def long_run(graphs: int, grad: int, jobs: int, batch: int, seed: int,
             cflags: str = DEFAULT_CFLAGS, stream: str | None = None,
             functions: int = 0, structures: int = 0) -> dict:
    """Run ``graphs`` value graphs, ``grad`` gradient graphs and ``functions`` function
    specs (over ``structures`` graphs, 0: each its own); counts and findings.

    Each finding is also appended to the file ``stream`` (JSON lines) as it comes.
    """
    values = [("specs", c) for c in _chunks([random_spec(seed + k) for k in range(graphs)],
                                             batch)]
    grads = [("grad", c) for c in _chunks([random_spec(seed + graphs + k, smooth=True)
                                           for k in range(grad)], max(1, batch // 8))]
    every = max(1, len(values) // max(1, len(grads)))
    work: list[tuple[str, list[dict]]] = []
    for k, item in enumerate(values):  # interleaved, so progress shows both kinds
        work.append(item)
        if k % every == every - 1 and grads:
            work.append(grads.pop())
    work += grads
    work += [("functions", c) for c in _chunks(
        [random_function(seed + k, structures) for k in range(functions)], max(1, batch // 4))]
    findings: list[tuple[dict, dict]] = []
    done = Counter()
    lock = threading.Lock()
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="opgraph-fuzz-") as cache:
        def handle(fuzzer: Fuzzer, item: tuple[str, list[dict]]) -> None:
            key, specs = item
            found = fuzzer.run(specs, key=key)
            with lock:
                findings.extend(found)
                append_jsonl(stream, [{"spec": spec, **f} for spec, f in found])
                done[key] += len(specs)
                total = done["specs"] + done["grad"] + done["functions"]
                if total % (batch * 10) < len(specs):
                    print(f"[{time.time() - start:7.0f}s] {done['specs']} graphs, "
                          f"{done['grad']} gradient graphs, {done['functions']} functions, "
                          f"{len(findings)} findings", flush=True)

        run_per_thread(work, jobs, lambda: Fuzzer(cache, cflags), handle)
    counts = Counter(f["kind"] for _, f in findings)
    return {"graphs": done["specs"], "grad_graphs": done["grad"],
            "functions": done["functions"], "seconds": time.time() - start,
            "counts": {k: counts.get(k, 0) for k in KINDS},
            "findings": [{"spec": s, **f} for s, f in findings]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", type=int, default=20000)
    p.add_argument("--grad", type=int, default=500, help="gradient graphs (verify_grad)")
    p.add_argument("--functions", type=int, default=20000,
                   help="function specs (memory rule, updates, borrow, copies: functions.py)")
    p.add_argument("--structures", type=int, default=200,
                   help="distinct graphs the function specs draw from (0: every one new)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--batch", type=int, default=64, help="graphs compiled together")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cflags", default=DEFAULT_CFLAGS, help="extra C compiler flags")
    p.add_argument("--out", default="fuzz-report.json")
    p.add_argument("--grad-linalg", type=int, default=5000,
                   help="value-and-gradient graphs with linear algebra (grad_driver.py)")
    grad_driver.add_arguments(p, prefix="grad-linalg-")
    args = p.parse_args(argv)
    report = long_run(args.graphs, args.grad, args.jobs, args.batch, args.seed, args.cflags,
                      stream=args.out + "l", functions=args.functions,
                      structures=args.structures)
    Path(args.out).write_text(json.dumps(report, indent=1))
    print(f"{report['graphs']} graphs, {report['grad_graphs']} gradient graphs and "
          f"{report['functions']} functions in "
          f"{report['seconds']:.0f}s (seed {args.seed})")
    for kind, n in report["counts"].items():
        print(f"  {kind:9s} {n}")
    for f in [f for f in report["findings"] if f["kind"] in FAILING][:20]:
        print(f"\n[{f['kind']}] {f['detail'][:800]}\nspec: {json.dumps(f['spec'])}")
    print(f"\nfindings written to {args.out}")
    failed = any(report["counts"][k] for k in FAILING)
    if args.grad_linalg:
        out = args.out.replace(".json", "") + "-grad-linalg.json"
        result = grad_driver.long_run(args.grad_linalg, args.jobs, args.grad_linalg_batch,
                                      args.seed, args.grad_linalg_c_every,
                                      args.grad_linalg_dask_every, args.cflags, stream=out + "l")
        failed = grad_driver.report(result, args.seed, out) or failed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
