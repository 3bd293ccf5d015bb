"""Run every benchmarks/bench_*.py module and write a Markdown report.

Usage: ``python benchmarks/run.py [--out DIR] [--only NAME ...] [--quick]`` (``nox -s
bench`` calls it). A benchmark that raises is reported as failed; the others still run.
``--quick`` (or OPGRAPH_BENCH_QUICK=1) shrinks every size for a smoke test; its numbers
are not the issues' benchmarks.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
import time
import traceback
from pathlib import Path

# One BLAS thread on both sides: threaded BLAS on 2 cores swings results 4-17x.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from report import Report  # noqa: E402


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _peer_version() -> str:
    try:
        import pytensor

        return pytensor.__version__
    except Exception as exc:  # the peer is optional
        return f"not installed ({type(exc).__name__})"


def _plot(report: Report, out: Path) -> list[str]:
    """One PNG per plot series; returns Markdown image lines."""
    lines: list[str] = []
    if not report.series_data:
        return lines
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ["(matplotlib is not installed: no plots)"]
    for name, series in report.series_data.items():
        fig, ax = plt.subplots(figsize=(6, 4))
        for label, points in series.items():
            points = sorted(points)
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(name)
        xlabel, ylabel = report.plot_axes.get(name, ("graph size (nodes)", "seconds"))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.legend()
        fname = "".join(c if c.isalnum() else "_" for c in name).strip("_") + ".png"
        fig.tight_layout()
        fig.savefig(out / fname, dpi=100)
        plt.close(fig)
        lines.append(f"![{name}]({fname})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench-report")
    parser.add_argument("--only", nargs="*", default=None, help="bench module names")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, for a smoke test (sets OPGRAPH_BENCH_QUICK=1)")
    args = parser.parse_args(argv)
    if args.quick:
        os.environ["OPGRAPH_BENCH_QUICK"] = "1"
    quick = os.environ.get("OPGRAPH_BENCH_QUICK", "") not in ("", "0")
    run_start = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    modules = sorted(HERE.glob("bench_*.py"))
    if args.only:
        modules = [m for m in modules if any(o in m.stem for o in args.only)]
    report = Report()
    failures = []
    timings: list[str] = []
    for i, path in enumerate(modules, 1):
        print(f"\n[{i}/{len(modules)}] {path.stem}", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            _load(path).run(report)
        except Exception:
            failures.append(path.stem)
            report.section(f"{path.stem}: FAILED")
            report.note("```\n" + traceback.format_exc(limit=6) + "```")
        elapsed = time.perf_counter() - start
        timings.append(f"{path.stem} {elapsed:.0f} s")
        print(f"   ({elapsed:.1f}s)", file=sys.stderr, flush=True)

    header = [
        "# opgraph benchmark report\n",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        f"- PyTensor (peer): {_peer_version()}",
        f"- BLAS threads: OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}",
        "- ratios are ours / theirs measured in the same run (below 1 means opgraph is faster);"
        " the issues' PyTensor figures appear only as reference columns or notes",
        "- PyTensor C comparisons use Mode(linker='cvm', optimizer='fast_run') (3.x's FAST_RUN"
        " is Numba); Python-VM comparisons use FAST_COMPILE",
        f"- wall time: {time.perf_counter() - run_start:.0f} s ({'; '.join(timings)})",
        "",
        "",
    ]
    if quick:
        header.insert(1, "**QUICK MODE (smoke test): sizes are shrunk; these are not the "
                         "issues' benchmarks.**\n")
    body = report.markdown()
    plots = _plot(report, out)
    text = "\n".join(header) + body + "\n" + "\n".join(plots) + "\n"
    (out / "report.md").write_text(text)
    print(f"\nreport written to {out / 'report.md'}", file=sys.stderr)
    if failures:
        print(f"benchmarks that failed: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
