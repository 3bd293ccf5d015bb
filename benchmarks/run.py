"""Run every benchmarks/bench_*.py module and write a Markdown report.

Usage: ``python benchmarks/run.py [--out DIR] [--only NAME ...]`` (``nox -s bench``
calls it). A benchmark that raises is reported as failed; the others still run.
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
        ax.set_xlabel("graph size (nodes)")
        ax.set_ylabel("seconds")
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
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    modules = sorted(HERE.glob("bench_*.py"))
    if args.only:
        modules = [m for m in modules if any(o in m.stem for o in args.only)]
    report = Report()
    failures = []
    for i, path in enumerate(modules, 1):
        print(f"\n[{i}/{len(modules)}] {path.stem}", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            _load(path).run(report)
        except Exception:
            failures.append(path.stem)
            report.section(f"{path.stem}: FAILED")
            report.note("```\n" + traceback.format_exc(limit=6) + "```")
        print(f"   ({time.perf_counter() - start:.1f}s)", file=sys.stderr, flush=True)

    header = [
        "# opgraph benchmark report\n",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        f"- PyTensor (peer): {_peer_version()}",
        f"- BLAS threads: OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}",
        "- ratios are ours / theirs measured in the same run (below 1 means opgraph is faster)",
        "",
    ]
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
