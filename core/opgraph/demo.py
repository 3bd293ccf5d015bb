"""``opgraph demo``: the documented scenario, end to end, with whatever plugins are installed.

It builds the OpFromGraph examples of the documentation (basic, with a shared
variable, with a per-input pullback override), differentiates them, compiles
every example under every installed mode, checks that the modes agree, and
prints the graphs before and after rewriting, the plugins in use and a table
of compile time and time per call for each mode.

A missing or disabled plugin is never an error: the parts that need it are
skipped and listed with the reason.  The exit status is 1 only when something
that is installed misbehaves (a mode fails to compile or run an example, or
two modes disagree).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import attrs
import numpy as np

__all__ = ["Example", "Skip", "main", "run", "setup"]

#: distribution name -> what the demo uses it for
FEATURES: dict[str, str] = {
    "opgraph-numpy": "the Python linkers (py, vm) and mode FAST_COMPILE",
    "opgraph-rewrites": "the rewrite database (graphs compile unrewritten without it)",
    "opgraph-ofg": "OpFromGraph (the three documented examples)",
    "opgraph-c": "the C linkers (modes C, CVM; FAST_RUN prefers C)",
    "opgraph-special": "special functions (the log(erfc(x)) stabilisation example)",
}


@attrs.frozen
class Skip:
    """Something the demo did not do, and why."""

    what: str
    why: str


@attrs.define
class Example:
    """One scenario: symbolic inputs, outputs, values to call with, and an optional check."""

    name: str
    inputs: list[Any]
    outputs: list[Any]
    values: tuple[Any, ...]
    expected: list[Any] | None = None
    #: compare only in modes whose rewrite query includes this tag (None: every mode)
    needs_tag: str | None = None


@attrs.define
class Timing:
    mode: str
    linker: str = "-"
    compile_s: float = float("nan")
    call_s: float = float("nan")
    status: str = "ok"


# --------------------------------------------------------------------------- plugins


def plugin_states() -> dict[str, tuple[str, str]]:
    """distribution -> (status, reason); status is ok, disabled, failed or missing."""
    from opgraph.plugins.manager import plugin_report

    states: dict[str, tuple[str, str]] = {}
    for info in plugin_report():
        states[info.distribution or info.name] = (info.status, info.error)
    for dist in FEATURES:
        states.setdefault(dist, ("missing", "not installed"))
    return states


def _why(state: tuple[str, str], dist: str) -> str:
    status, error = state
    if status == "disabled":
        return f"plugin {dist} is disabled (OPGRAPH_DISABLE_PLUGINS)"
    if status == "failed":
        return f"plugin {dist} failed to load: {error}"
    return f"plugin {dist} is not installed (pip install ./{_path_of(dist)})"


def _path_of(dist: str) -> str:
    return f"contrib/{dist}" if dist == "opgraph-special" else f"plugins/{dist}"


def print_plugins(out: TextIO) -> None:
    from opgraph.plugins.manager import plugin_report

    rows = [("plugin", "distribution", "version", "status", "provides")]
    for info in plugin_report():
        provides = ", ".join([*info.linkers, *info.modes]) or ", ".join(
            h.removeprefix("opgraph_") for h in info.hooks
        )
        rows.append((info.name, info.distribution, info.version, info.status, provides or "-"))
    _table(rows, out)


# --------------------------------------------------------------------------- examples


def build_examples(states: dict[str, tuple[str, str]], skips: list[Skip]) -> list[Example]:
    """The documentation's examples whose plugins are available (the rest become skips)."""
    import opgraph
    import opgraph.tensor as pt
    from opgraph.gradient import grad

    examples = []
    a = pt.dvector("a")
    b = a + a**10
    examples.append(Example("tutorial: a + a**10", [a], [b], (np.array([0.0, 1.0, 2.0]),),
                            [np.array([0.0, 2.0, 1026.0])]))
    w = pt.dvector("w")
    loss = (pt.tanh(pt.dot(w, a)) - 0.5) ** 2
    examples.append(Example("gradient of (tanh(w.a) - 1/2)**2", [w, a], grad(loss, [w, a]),
                            (np.array([0.1, -0.2, 0.3]), np.array([1.0, 2.0, 3.0]))))

    if states["opgraph-ofg"][0] == "ok":
        from opgraph.compile.builders import OpFromGraph

        x, y, z = pt.scalars("xyz")
        op = OpFromGraph([x, y, z], [x + y * z])
        e2 = op(x, y, z) + op(z, y, x)
        values = (2.0, 3.0, 4.0)
        examples.append(Example("OpFromGraph: basic", [x, y, z], [e2], values,
                                [np.array(2.0 + 12.0 + 4.0 + 6.0)]))
        examples.append(Example("OpFromGraph: basic, differentiated", [x, y, z],
                                grad(e2, [x, y, z]), values,
                                [np.array(4.0), np.array(6.0), np.array(4.0)]))
        rng = np.random.default_rng(0)
        s_value = rng.random((2, 2)).astype(opgraph.config.floatX)
        s = opgraph.shared(s_value, name="s")
        op_s = OpFromGraph([x, y, z], [x + y * z + s])
        e3 = op_s(x, y, z) + op_s(z, y, x)
        examples.append(Example("OpFromGraph: shared variable", [x, y, z], [e3], values,
                                [2 * s_value + 24.0]))

        def rescale_dy(inps: Sequence[Any], outputs: Sequence[Any], out_grads: Sequence[Any]):
            _x, _y, z_ = inps
            return z_ * 2

        op_g = OpFromGraph([x, y, z], [x + y * z], pullback=[None, rescale_dy, None])
        examples.append(Example("OpFromGraph: per-input pullback override", [x, y, z],
                                grad(op_g(x, y, z), [x, y, z]), values,
                                [np.array(1.0), np.array(8.0), np.array(3.0)]))

    if states["opgraph-special"][0] == "ok":
        import opgraph_special as special

        v = pt.dvector("v")
        values = np.array([-3.0, 0.5, 10.0, 40.0])
        expected = np.log(2.0) + _log_ndtr(-values * np.sqrt(2.0))
        examples.append(Example("special: log(erfc(v))", [v], [pt.log(special.erfc(v))],
                                (values,), [expected], needs_tag="fast_run"))
        if not _rewrites_on(states):
            skips.append(Skip("checking the log(erfc(v)) stabilisation",
                              _why(states["opgraph-rewrites"], "opgraph-rewrites")))
    return examples


def _log_ndtr(x: np.ndarray) -> np.ndarray:
    import scipy.special

    return scipy.special.log_ndtr(x)


def _rewrites_on(states: dict[str, tuple[str, str]]) -> bool:
    return states["opgraph-rewrites"][0] == "ok"


# --------------------------------------------------------------------------- compiling


def _time_calls(fn: Callable[..., Any], values: Sequence[Any], budget_s: float) -> float:
    """Seconds per call, from as many calls as fit in ``budget_s`` (at least 3)."""
    fn(*values)
    n, start = 0, time.perf_counter()
    while True:
        fn(*values)
        n += 1
        elapsed = time.perf_counter() - start
        if (n >= 3 and elapsed >= budget_s) or n >= 100_000:
            return elapsed / n


def compile_all(
    examples: list[Example], modes: list[str], budget_s: float, out: TextIO,
    skips: list[Skip],
) -> tuple[dict[str, list[Timing]], list[str]]:
    """Compile and run each example in each mode; returns timings and problems found."""
    from opgraph.compile.function import function

    timings: dict[str, list[Timing]] = {}
    problems: list[str] = []
    for ex in examples:
        rows: list[Timing] = []
        results: dict[str, list[np.ndarray]] = {}
        for mode in modes:
            row = Timing(mode)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    start = time.perf_counter()
                    fn = function(ex.inputs, ex.outputs, mode=mode)
                    row.compile_s = time.perf_counter() - start
                    row.linker = _linker_name(fn)
                    results[mode] = [np.asarray(r) for r in fn(*ex.values)]
                    row.call_s = _time_calls(fn, ex.values, budget_s)
                except Exception as exc:
                    row.status = f"FAILED: {type(exc).__name__}: {_first_line(exc)}"
                    problems.append(f"{ex.name} [{mode}]: {row.status}")
            for w in caught:
                if "falling back" in str(w.message):
                    skips.append(Skip(f"mode {mode}: its preferred linker",
                                      _first_line(w.message)))
            rows.append(row)
        problems += _compare(ex, _comparable(ex, results, rows), rows)
        timings[ex.name] = rows
    return timings, problems


def note_linker_fallbacks(modes: Sequence[str], skips: list[Skip]) -> None:
    """Record each mode whose preferred linker is unavailable, with the reason given."""
    from opgraph.compile.mode import get_mode

    for mode in modes:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                get_mode(mode).linker  # noqa: B018 - resolving is what may warn
            except Exception as exc:
                skips.append(Skip(f"mode {mode}", _first_line(exc)))
        for w in caught:
            skips.append(Skip(f"mode {mode}: its preferred linker", _first_line(w.message)))


def _mode_tags(mode: str) -> frozenset[str]:
    from opgraph.plugins.manager import mode_records

    record = mode_records().get(mode)
    if record is None:
        from opgraph.compile.mode import BUILTIN_MODES

        record = BUILTIN_MODES.get(mode)
    return frozenset(getattr(record, "include", ()) or ())


def _comparable(
    ex: Example, results: dict[str, list[np.ndarray]], rows: list[Timing]
) -> dict[str, list[np.ndarray]]:
    """The results of the modes that should agree (a stabilisation needs its rewrites)."""
    if ex.needs_tag is None:
        return results
    kept = {}
    for row in rows:
        if row.mode not in results:
            continue
        if ex.needs_tag in _mode_tags(row.mode) and _rewrites_installed():
            kept[row.mode] = results[row.mode]
        else:
            row.status = f"not compared (no '{ex.needs_tag}' rewrites in this mode)"
    return kept


def _rewrites_installed() -> bool:
    from opgraph.plugins.manager import plugin_report

    return any(i.distribution == "opgraph-rewrites" and i.status == "ok" for i in plugin_report())


def _linker_name(fn: Any) -> str:
    maker = getattr(fn, "maker", None)
    linker = getattr(maker, "linker", None)
    return str(getattr(linker, "name", None) or type(linker).__name__)


def _first_line(obj: Any) -> str:
    text = str(obj).strip().splitlines()
    return text[0] if text else type(obj).__name__


def _compare(ex: Example, results: dict[str, list[np.ndarray]], rows: list[Timing]) -> list[str]:
    """Every mode against the first that ran, and against the expected values if known."""
    problems = []
    if not results:
        return problems
    ref_mode, ref = next(iter(results.items()))
    targets = [("expected", ex.expected)] if ex.expected is not None else []
    targets += [(ref_mode, ref)]
    for row in rows:
        got = results.get(row.mode)
        if got is None:
            continue
        for label, want in targets:
            if label == row.mode:
                continue
            if not all(np.allclose(g, w, rtol=1e-7, atol=1e-12) for g, w in zip(got, want)):
                row.status = f"DISAGREES with {label}"
                problems.append(f"{ex.name} [{row.mode}]: {row.status}: {got} vs {want}")
                break
    return problems


# --------------------------------------------------------------------------- printing


def _table(rows: list[Sequence[str]], out: TextIO) -> None:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for k, row in enumerate(rows):
        print("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip(), file=out)
        if k == 0:
            print("  " + "  ".join("-" * w for w in widths), file=out)


def _fmt_time(seconds: float) -> str:
    if seconds != seconds:  # nan
        return "-"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def print_timings(timings: dict[str, list[Timing]], out: TextIO) -> None:
    rows: list[Sequence[str]] = [("example", "mode", "linker", "compile", "per call", "result")]
    for name, trows in timings.items():
        for t in trows:
            rows.append((name, t.mode, t.linker, _fmt_time(t.compile_s), _fmt_time(t.call_s),
                         t.status))
    _table(rows, out)


def print_graphs(examples: list[Example], mode: str, out: TextIO) -> None:
    """Each example's graph as written, then as compiled by ``mode`` (after rewriting)."""
    from opgraph.compile.function import function
    from opgraph.printing import dprint

    for ex in examples:
        print(f"\n--- {ex.name}: before rewriting", file=out)
        print(dprint(ex.outputs, file="str").rstrip(), file=out)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fn = function(ex.inputs, ex.outputs, mode=mode)
            except Exception as exc:
                print(f"--- {ex.name}: {mode} could not compile it ({_first_line(exc)})", file=out)
                continue
        print(f"--- {ex.name}: after rewriting ({mode})", file=out)
        print(dprint(fn, file="str").rstrip(), file=out)


# --------------------------------------------------------------------------- command


def setup(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``opgraph demo`` (the CLI registers the same ones without importing this)."""
    from opgraph.cli import _setup_demo

    _setup_demo(parser)


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the scenario; 0 unless an installed part failed or modes disagree."""
    import sys

    out = out or sys.stdout
    from opgraph.compile.mode import available_modes

    skips: list[Skip] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # plugin load failures are shown in the table below
        states = plugin_states()
    print("== Plugins in use", file=out)
    print_plugins(out)
    for dist, use in FEATURES.items():
        if states[dist][0] != "ok":
            skips.append(Skip(use, _why(states[dist], dist)))
    if states["opgraph-numpy"][0] != "ok":
        print("\nopgraph demo needs a linker to run anything; "
              + _why(states["opgraph-numpy"], "opgraph-numpy"), file=out)
        _print_skips(skips, out)
        return 0

    examples = build_examples(states, skips)
    modes = available_modes()
    note_linker_fallbacks(modes, skips)
    print(f"\n== Modes: {', '.join(modes)}", file=out)
    if not args.no_graphs:
        graph_mode = "FAST_RUN" if "FAST_RUN" in modes else modes[0]
        print(f"\n== Graphs before and after rewriting ({graph_mode})", file=out)
        print_graphs(examples, graph_mode, out)
    print("\n== Compile time and time per call", file=out)
    timings, problems = compile_all(examples, modes, args.budget, out, skips)
    print_timings(timings, out)
    _print_skips(skips, out)
    if problems:
        print("\n== Problems", file=out)
        for p in problems:
            print(f"  {p}", file=out)
        return 1
    print(f"\nAll {len(modes)} modes agree on all {len(examples)} examples.", file=out)
    return 0


def _print_skips(skips: list[Skip], out: TextIO) -> None:
    print("\n== Skipped", file=out)
    if not skips:
        print("  nothing: every plugin the demo uses is installed", file=out)
    seen = set()
    for s in skips:
        if s in seen:
            continue
        seen.add(s)
        print(f"  {s.what}: {s.why}", file=out)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m opgraph.demo``."""
    parser = argparse.ArgumentParser(prog="opgraph demo", description=__doc__.splitlines()[0])
    setup(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
