"""``opgraph demo``: the documented examples in every installed mode, compared and timed."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import TextIO

from opgraph.compile.mode import available_modes
from opgraph_demo.examples import FEATURES, Skip, build_examples, plugin_states, why_missing
from opgraph_demo.measure import ModeRun, cold_compile_times, compare, run_mode, usable_modes
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


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the scenario; 0 unless an installed part failed or modes disagree."""
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
    examples = build_examples(states, skips)
    modes = usable_modes(available_modes(), skips)
    print(f"opgraph demo: {len(examples)} examples, each compiled and run in {len(modes)} "
          f"modes ({', '.join(modes)}).", file=out)
    if args.verbose:
        graph_mode = "FAST_RUN" if "FAST_RUN" in modes else modes[0]
        print(f"\n== Graphs before and after rewriting ({graph_mode})", file=out)
        print_graphs(examples, graph_mode, out)
    runs = [run_mode(mode, examples, args.budget) for mode in modes]
    if not args.no_cold:
        for mode_run in runs:
            cold_compile_times(mode_run)
    refs = compare(examples, runs, rewrites_on=states["opgraph-rewrites"][0] == "ok")
    print("\n== Largest |difference| from the reference, per example and mode", file=out)
    print_values(examples, runs, refs, out)
    print("\n== Times (cold: fresh process, empty compile cache; warm: same graph again)",
          file=out)
    print_times(runs, out)
    if args.verbose:
        print("\n== Per example", file=out)
        print_example_times(examples, runs, out)
    print_skips(skips, out)
    problems, sentence = _verdict(runs, len(examples))
    print(f"\n{sentence}", file=out)
    for p in problems:
        print(f"  {p}", file=out)
    return 1 if problems else 0
