"""The parent side of the value-and-gradient fuzzer (``grad_worker.py``): batches of
random linear-algebra graphs sent to worker children, findings counted.

The long profile is part of ``nox -s fuzz`` (``--grad-linalg``, 5,000 graphs by
default) or runs alone::

    PYTHONPATH=tests python -m integration.fuzz.grad_driver --graphs 5000 --jobs 2

Every batch runs the reference (Python linker, no rewrites), FAST_COMPILE and
FAST_RUN's rewrites on the Python linker, and checks the reference gradient
against finite differences; every ``--c-every``-th batch also compiles FAST_RUN
and C (C linker), and every ``--dask-every``-th one runs DASK (C compilation and
the DASK scheduler dominate the cost, and the rewrites they run are those of the
Python-linker run).
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

from .grad_generate import STEP_KINDS, random_grad_spec
from .pool import append_jsonl, run_per_thread

TESTS_DIR = Path(__file__).resolve().parents[2]
KINDS = ("crash", "build", "compile", "raise", "value", "grad", "fd")
BASE_MODES = ["ref", "FAST_COMPILE", "py_rewrite"]
C_MODES = ["FAST_RUN", "C"]


class GradFuzzer:
    """One worker child; :meth:`run` returns every result, in order."""

    def __init__(self, compiledir: str, cflags: str = "-O0", timeout: float = 900.0) -> None:
        flags = f"compiledir={compiledir}" + (f",gcc__cxxflags={cflags}" if cflags else "")
        env = dict(os.environ, OPGRAPH_FLAGS=flags,
                   OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   PYTHONWARNINGS="ignore",
                   PYTHONPATH=os.pathsep.join(
                       [str(TESTS_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]))
        self.child = ChildProcess([sys.executable, "-m", "integration.fuzz.grad_worker"],
                                  env=env, timeout=timeout)

    def run(self, specs: list[dict], modes: list[str]) -> list[dict | None]:
        answer = self.child.ask({"specs": specs, "modes": modes})
        if isinstance(answer, Crash):
            if len(specs) == 1:
                return [{"kind": "crash", "detail": answer.describe()}]
            return [r for s in specs for r in self.run([s], modes)]
        if "error" in answer:
            raise RuntimeError(f"the gradient fuzz worker failed:\n{answer['error']}")
        return answer["results"]

    def close(self) -> None:
        self.child.close()


def batch_modes(k: int, c_every: int, dask_every: int) -> list[str]:
    """The modes of batch ``k``: the base ones, C every ``c_every``, DASK every ``dask_every``."""
    modes = list(BASE_MODES)
    if c_every and k % c_every == 0:
        modes += C_MODES
    if dask_every and k % dask_every == 0:
        modes.append("DASK")
    return modes


def long_run(graphs: int, jobs: int = 2, batch: int = 32, seed: int = 0, c_every: int = 4,
             dask_every: int = 8, cflags: str = "-O0", stream: str | None = None) -> dict:
    """Run ``graphs`` random graphs; counts, Ops covered and findings."""
    specs = [random_grad_spec(seed + k) for k in range(graphs)]
    work = [(k, specs[i:i + batch]) for k, i in enumerate(range(0, graphs, batch))]
    findings: list[dict] = []
    done, per_mode, skipped = Counter(), Counter(), Counter()
    lock = threading.Lock()
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="opgraph-gradfuzz-") as cache:
        def handle(fuzzer: GradFuzzer, item: tuple[int, list[dict]]) -> None:
            k, chunk = item
            modes = batch_modes(k, c_every, dask_every)
            results = fuzzer.run(chunk, modes)
            with lock:
                for spec, r in zip(chunk, results):
                    if r and "skipped" in r:
                        skipped[r["skipped"][:60]] += 1
                    elif r:
                        findings.append({"spec": spec, "modes": modes, **r})
                        append_jsonl(stream, [findings[-1]])
                done["graphs"] += len(chunk)
                for m in modes:
                    per_mode[m] += len(chunk)
                print(f"[{time.time() - start:7.0f}s] {done['graphs']} graphs, "
                      f"{len(findings)} findings", flush=True)

        run_per_thread(work, jobs, lambda: GradFuzzer(cache, cflags), handle)
    counts = Counter(f["kind"] for f in findings)
    return {"graphs": done["graphs"], "seconds": time.time() - start,
            "graphs_per_mode": dict(per_mode), "skipped": dict(skipped),
            "steps_covered": coverage(specs), "counts": {k: counts.get(k, 0) for k in KINDS},
            "findings": findings}


def coverage(specs: list[dict]) -> dict[str, int]:
    """How many graphs use each step kind (and each solve ``assume_a``)."""
    seen: Counter = Counter()
    for spec in specs:
        kinds = {s[0] for s in spec["steps"]}
        kinds |= {f"solve[{s[3]}]" for s in spec["steps"] if s[0] == "solve"}
        kinds |= {f"solve_tri[lower={s[3]},trans={s[4]},unit={s[5]}]"
                  for s in spec["steps"] if s[0] == "solve_tri"}
        kinds |= {"batched" for i in spec["inputs"] if len(i["shape"]) == 3}
        seen.update(kinds)
    return {k: seen[k] for k in sorted(seen, key=lambda k: (k not in STEP_KINDS, k))}


def add_arguments(p: argparse.ArgumentParser, prefix: str = "") -> None:
    """The options of this profile (also offered by ``driver.py`` under ``--grad-linalg-*``)."""
    p.add_argument(f"--{prefix}c-every", type=int, default=4,
                   help="compile the C modes for every N-th batch (0: never)")
    p.add_argument(f"--{prefix}dask-every", type=int, default=8,
                   help="run DASK for every N-th batch (0: never)")
    p.add_argument(f"--{prefix}batch", type=int, default=32, help="graphs compiled together")


def report(result: dict, seed: int, out: str) -> int:
    """Print the summary; 1 when anything was found."""
    Path(out).write_text(json.dumps(result, indent=1))
    print(f"{result['graphs']} value-and-gradient graphs in {result['seconds']:.0f}s "
          f"(seed {seed}); graphs per mode: {result['graphs_per_mode']}")
    print(f"skipped (the unrewritten graph raised or was not finite): {result['skipped']}")
    print("step kinds covered (graphs using each): " + ", ".join(
        f"{k} {n}" for k, n in result["steps_covered"].items()))
    for kind, n in result["counts"].items():
        print(f"  {kind:8s} {n}")
    for f in result["findings"][:20]:
        print(f"\n[{f['kind']}] {f['detail'][:800]}\nspec: {json.dumps(f['spec'])}")
    print(f"\nfindings written to {out}")
    return 1 if result["findings"] else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", type=int, default=5000)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cflags", default="-O0", help="extra C compiler flags")
    p.add_argument("--out", default="gradfuzz-report.json")
    add_arguments(p)
    a = p.parse_args(argv)
    result = long_run(a.graphs, a.jobs, a.batch, a.seed, a.c_every, a.dask_every, a.cflags,
                      stream=a.out + "l")
    return report(result, a.seed, a.out)


if __name__ == "__main__":
    sys.exit(main())
