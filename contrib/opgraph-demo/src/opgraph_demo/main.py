"""``opgraph demo``: the documented examples in every installed mode, compared and timed."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import TextIO

from opgraph.compile.mode import available_modes
from opgraph_demo.examples import FEATURES, Skip, build_examples, plugin_states, why_missing
from opgraph_demo.measure import ModeRun, cold_compile_times, compare, run_mode, usable_modes
from opgraph_demo.record import apply_recorded, load_cold_times, save_cold_times, version_key
from opgraph_demo.report import (
    print_example_times,
    print_graphs,
    print_plugins,
    print_skips,
    print_times,
    print_values,
)

__all__ = ["run"]


def _verdict(runs: list[ModeRun], n_examples: int) -> tuple[list[str], str]:
    """The problems found, and one sentence saying exactly what was compared."""
    problems: list[str] = []
    unchecked: dict[str, list[str]] = {}
    compared = not_compared = 0
    for run in runs:
        for name, cell in run.cells.items():
            if cell.error:
                problems.append(f"{name} [{run.name}]: FAILED: {cell.error}")
            elif cell.compared:
                compared += 1
                if not cell.agrees:
                    problems.append(f"{name} [{run.name}]: differs by {cell.diff:.3g}")
            else:
                not_compared += 1
                unchecked.setdefault(f"{name}: {cell.note}", []).append(run.name)
    total = n_examples * len(runs)
    sentence = (
        f"{compared} of {total} results (examples x modes) compared with their reference: "
        + ("all agree" if not problems else f"{len(problems)} problem(s)")
        + " (relative tolerance 1e-7)."
    )
    if not_compared:
        sentence += f" {not_compared} not compared (n/c):"
        for why, modes in unchecked.items():
            sentence += f"\n  {why} ({', '.join(modes)})"
    return problems, sentence


def _chosen_modes(wanted: str, available: list[str]) -> tuple[list[str], str]:
    """The modes ``--modes`` names (all when empty), and an error naming any unknown one."""
    if not wanted.strip():
        return available, ""
    chosen = [m.strip() for m in wanted.split(",") if m.strip()]
    unknown = [m for m in chosen if m not in available]
    if unknown:
        return [], (f"opgraph demo: --modes names unknown mode(s) {', '.join(unknown)}; "
                    f"the installed plugins provide {', '.join(available)}")
    return chosen, ""


def _cold_times(args: argparse.Namespace, runs: list[ModeRun], key: str) -> str:
    """Measure (``--cold``) or look up the cold compile times; returns the heading's note."""
    if getattr(args, "cold", False):
        for mode_run in runs:
            cold_compile_times(mode_run)
        saved = save_cold_times(key, runs)
        return "measured now" + ("" if saved else " (could not be recorded)")
    recorded = None if getattr(args, "no_cold", False) else load_cold_times(key)
    if recorded is None:
        return ""
    apply_recorded(runs, recorded)
    return f"recorded by `opgraph demo --cold` on {recorded['date']}"


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the scenario; 0 unless an installed part failed or modes disagree (2: an unknown
    mode in ``--modes``).  ``args`` needs ``verbose`` and ``budget``; ``modes``, ``cold`` and
    ``no_cold`` default to every mode, no cold measurement, recorded figures shown."""
    out = out or sys.stdout
    skips: list[Skip] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # plugin load failures are listed under Skipped
        states = plugin_states()
    for dist, use in FEATURES.items():
        if states[dist][0] != "ok":
            skips.append(Skip(use, why_missing(states[dist], dist)))
    if args.verbose:
        print("== Plugins", file=out)
        print_plugins(out)
    if states["opgraph-numpy"][0] != "ok":
        print("opgraph demo needs a linker to run anything; "
              + why_missing(states["opgraph-numpy"], "opgraph-numpy"), file=out)
        print_skips(skips, out)
        return 0
    chosen, error = _chosen_modes(getattr(args, "modes", ""), available_modes())
    if error:
        print(error, file=out)
        return 2
    examples = build_examples(states, skips)
    modes = usable_modes(chosen, skips)
    print(f"opgraph demo: {len(examples)} examples, each compiled and run in {len(modes)} "
          f"modes ({', '.join(modes)}).", file=out)
    if args.verbose:
        graph_mode = "FAST_RUN" if "FAST_RUN" in modes else modes[0]
        print(f"\n== Graphs before and after rewriting ({graph_mode})", file=out)
        print_graphs(examples, graph_mode, out)
    runs = [run_mode(mode, examples, args.budget) for mode in modes]
    cold_note = _cold_times(args, runs, version_key(modes, [ex.name for ex in examples]))
    refs = compare(examples, runs, rewrites_on=states["opgraph-rewrites"][0] == "ok")
    print("\n== Largest |difference| from the reference, per example and mode", file=out)
    print_values(examples, runs, refs, out)
    print("\n== Times (warm: the same graph compiled again in this process)", file=out)
    print_times(runs, out, cold=bool(cold_note))
    if cold_note:
        print(f"  cold: each mode in a fresh process with an empty compile cache; {cold_note}",
              file=out)
    else:
        print("  cold compiles (a fresh process, an empty compile cache) are not measured by "
              "default:\n  `opgraph demo --cold` measures and records them (minutes)", file=out)
    if args.verbose:
        print("\n== Per example", file=out)
        print_example_times(examples, runs, out)
    print_skips(skips, out)
    problems, sentence = _verdict(runs, len(examples))
    print(f"\n{sentence}", file=out)
    for p in problems:
        print(f"  {p}", file=out)
    return 1 if problems else 0
