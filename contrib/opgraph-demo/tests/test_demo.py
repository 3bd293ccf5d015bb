"""``opgraph demo``: what it prints is what it measured, with every plugin and with few."""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest
from opgraph_demo.examples import FEATURES, Example, build_examples, log_erfc_reference
from opgraph_demo.main import _verdict
from opgraph_demo.measure import Cell, ModeRun, compare
from opgraph_demo.record import apply_recorded, load_cold_times, save_cold_times, version_key

import opgraph.tensor as pt


def _demo(disabled: list[str], *args: str, compiledir: str | None = None
          ) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("OPGRAPH_STRICT_PLUGINS", None)
    env["OPGRAPH_DISABLE_PLUGINS"] = ",".join(disabled)
    if compiledir is not None:
        env["OPGRAPH_FLAGS"] = f"compiledir={compiledir}"
    return subprocess.run(
        [sys.executable, "-m", "opgraph.cli", "demo", "--budget", "0.002", *args],
        capture_output=True, text=True, env=env, timeout=900,
    )


def _installed_plugins() -> list[str]:
    return sorted(ep.name for ep in entry_points(group="opgraph.plugins"))


def _times_rows(out: str) -> dict[str, list[str]]:
    """The rows of the Times table by mode (columns split on two spaces or more)."""
    times = out.split("== Times", 1)[1].split("== Skipped", 1)[0].splitlines()
    rows = [re.split(r"\s{2,}", line.strip()) for line in times[1:] if line.strip()]
    return {row[0]: row for row in rows[2:] if not row[0].startswith(("cold", "`"))}


def test_demo_with_every_plugin_is_short_and_shows_its_numbers() -> None:
    result = _demo([])
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert len(out.splitlines()) < 80
    assert "Largest |difference| from the reference" in out
    for name in ("scan: last state", "OpFromGraph: basic", "OpFromGraph: basic, differentiated",
                 "OpFromGraph: shared variable", "OpFromGraph: per-input pullback override",
                 "special: log(erfc(v))"):
        assert name in out
    rows = _times_rows(out)
    for mode in ("FAST_COMPILE", "FAST_RUN", "C", "CVM"):
        assert rows[mode][2].endswith(("ms", "us", " s")), f"no warm compile time: {rows[mode]}"
    # cold compiles are not measured by default; the table says how to get them
    assert "cold compile, all" not in out and "`opgraph demo --cold`" in out
    # every (example, mode) is either compared or listed with the reason it was not
    assert "all agree" in out and "FAILED" not in out
    assert "special: log(erfc(v)): needs the 'fast_run' rewrites" in out


def test_cold_is_measured_recorded_and_shown_by_later_runs(tmp_path: Path) -> None:
    cache = str(tmp_path / "compiledir")
    measured = _demo([], "--cold", "--modes", "FAST_COMPILE", compiledir=cache)
    assert measured.returncode == 0, measured.stdout + measured.stderr
    cold = _times_rows(measured.stdout)["FAST_COMPILE"][2]
    assert cold.endswith(("ms", " s")) and "measured now" in measured.stdout
    record = json.loads((tmp_path / "compiledir" / "opgraph-demo" / "cold-times.json")
                        .read_text(encoding="utf-8"))
    (entry,) = record.values()
    assert set(entry["modes"]) == {"FAST_COMPILE"} and entry["modes"]["FAST_COMPILE"] > 0
    later = _demo([], "--modes", "FAST_COMPILE", compiledir=cache)
    assert later.returncode == 0, later.stdout + later.stderr
    assert _times_rows(later.stdout)["FAST_COMPILE"][2] == cold
    assert f"recorded by `opgraph demo --cold` on {entry['date']}" in later.stdout
    # another scenario (here: other examples, a plugin being off) has no record
    other = _demo(["opgraph-special"], "--modes", "FAST_COMPILE", compiledir=cache)
    assert other.returncode == 0, other.stdout + other.stderr
    assert "cold compile, all" not in other.stdout and "recorded by" not in other.stdout


def test_unknown_mode_is_named() -> None:
    result = _demo([], "--modes", "FAST_COMPILE,NO_SUCH_MODE")
    assert result.returncode == 2
    assert "unknown mode(s) NO_SUCH_MODE" in result.stdout and "FAST_RUN" in result.stdout


def test_verbose_adds_graphs_and_plugins() -> None:
    result = _demo([], "--verbose", "--modes", "FAST_RUN,FAST_COMPILE")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "== Plugins" in out and "before rewriting" in out and "after rewriting" in out
    assert "== Per example" in out


def test_demo_with_only_the_numpy_plugin() -> None:
    keep = {"opgraph-numpy", "opgraph-demo"}
    others = [p for p in _installed_plugins() if p not in keep]
    result = _demo(others)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    skipped = out.split("== Skipped", 1)[1]
    for dist in ("opgraph-rewrites", "opgraph-ofg", "opgraph-c", "opgraph-special"):
        assert f"plugin {dist} is disabled" in skipped, f"no reason given for {dist}:\n{out}"
    assert "OpFromGraph: basic" not in out
    assert "FAST_COMPILE" in out and "all agree" in out


def _run(name: str, cells: dict[str, Cell], tags: frozenset[str] = frozenset()) -> ModeRun:
    return ModeRun(name, tags=tags, cells=cells)


def test_a_disagreement_is_reported_with_its_size() -> None:
    x = pt.dvector("x")
    ex = Example("double", [x], [2 * x], (np.ones(2),), [np.array([2.0, 2.0])])
    good = _run("A", {"double": Cell(outputs=[np.array([2.0, 2.0])])})
    bad = _run("B", {"double": Cell(outputs=[np.array([2.0, 2.5])])})
    refs = compare([ex], [good, bad], rewrites_on=True)
    assert refs == {"double": "expected"}
    assert good.cells["double"].agrees and good.cells["double"].diff == 0
    assert not bad.cells["double"].agrees and bad.cells["double"].diff == pytest.approx(0.5)
    problems, sentence = _verdict([good, bad], 1)
    assert problems == ["double [B]: differs by 0.5"]
    assert "2 of 2 results" in sentence and "1 problem" in sentence


def test_without_expected_values_the_reference_is_fast_compile() -> None:
    x = pt.dvector("x")
    ex = Example("noisy", [x], [x], (np.ones(1),))
    ref = _run("FAST_COMPILE", {"noisy": Cell(outputs=[np.array([1.0])])})
    other = _run("C", {"noisy": Cell(outputs=[np.array([1.0 + 1e-12])])})
    assert compare([ex], [other, ref], rewrites_on=True) == {"noisy": "mode FAST_COMPILE"}
    assert other.cells["noisy"].agrees and 0 < other.cells["noisy"].diff < 1e-11


def test_uncompared_results_are_never_counted_as_agreement() -> None:
    x = pt.dvector("x")
    ex = Example("stable", [x], [x], (np.ones(1),), [np.array([1.0])], needs_tag="fast_run")
    no_tag = _run("FAST_COMPILE", {"stable": Cell(outputs=[np.array([np.inf])])})
    tagged = _run("FAST_RUN", {"stable": Cell(outputs=[np.array([1.0])])},
                  frozenset({"fast_run"}))
    compare([ex], [no_tag, tagged], rewrites_on=False)
    assert not no_tag.cells["stable"].compared and not tagged.cells["stable"].compared
    problems, sentence = _verdict([no_tag, tagged], 1)
    assert problems == []
    assert sentence.startswith("0 of 2 results") and "2 not compared" in sentence


def test_failed_compile_makes_the_demo_fail() -> None:
    run = _run("C", {"x": Cell(error="RuntimeError: boom")})
    problems, _ = _verdict([run], 1)
    assert problems == ["x [C]: FAILED: RuntimeError: boom"]


@pytest.mark.parametrize("x", [-3.0, 0.0, 0.5, 2.0, 10.0, 26.0])
def test_log_erfc_reference_where_erfc_is_representable(x: float) -> None:
    assert log_erfc_reference(x) == pytest.approx(math.log(math.erfc(x)), rel=1e-15)


def test_log_erfc_reference_beyond_underflow_is_continuous() -> None:
    below, above = log_erfc_reference(26.0), log_erfc_reference(26.0 + 1e-9)
    assert math.isfinite(log_erfc_reference(40.0))
    assert abs(above - below) < 1e-6  # the slope is about -2x = -52
    assert log_erfc_reference(40.0) == pytest.approx(-1604.2615566532743, rel=1e-14)


def test_run_returns_zero_in_process() -> None:
    from opgraph_demo.main import run

    out = io.StringIO()
    code = run(argparse.Namespace(verbose=False, budget=0.001, modes="", cold=False,
                                  no_cold=True), out)
    assert code == 0, out.getvalue()


def test_recorded_times_round_trip_per_key(tmp_path: Path) -> None:
    path = str(tmp_path / "sub" / "cold.json")
    key = version_key(["C", "FAST_RUN"], ["a", "b"])
    assert key != version_key(["C"], ["a", "b"]) and key != version_key(["C", "FAST_RUN"], ["a"])
    assert load_cold_times(key, path) is None
    runs = [ModeRun("C", cold_compile_s=2.5), ModeRun("FAST_RUN", cold_error="boom")]
    assert save_cold_times(key, runs, path)
    assert save_cold_times("other", [ModeRun("C", cold_compile_s=9.0)], path)
    recorded = load_cold_times(key, path)
    assert recorded is not None and recorded["modes"] == {"C": 2.5, "FAST_RUN": None}
    fresh = [ModeRun("C"), ModeRun("FAST_RUN"), ModeRun("CVM")]
    apply_recorded(fresh, recorded)
    assert fresh[0].cold_compile_s == 2.5 and fresh[1].cold_error == "failed when recorded"
    assert math.isnan(fresh[2].cold_compile_s) and not fresh[2].cold_error


def test_an_unreadable_record_means_no_figures(tmp_path: Path) -> None:
    path = tmp_path / "cold.json"
    path.write_text("{not json", encoding="utf-8")
    assert load_cold_times("k", str(path)) is None
    path.write_text('{"k": {"date": "x", "modes": 3}}', encoding="utf-8")
    assert load_cold_times("k", str(path)) is None


def _readme_example_names(readme: Path) -> list[str]:
    """Example names in the table of the output README.md shows (``  3  name  expected``)."""
    sample = readme.read_text(encoding="utf-8").split("```text", 1)[1].split("```", 1)[0]
    table = sample.split("== Largest", 1)[1].split("==", 1)[0]
    return [re.split(r"\s{2,}", line.strip())[1] for line in table.splitlines()
            if re.match(r"\s+\d+\s{2}", line)]


def test_readme_shows_the_examples_the_demo_runs() -> None:
    readme = Path(__file__).resolve().parents[3] / "README.md"
    if not readme.is_file():
        pytest.skip("not run from a checkout (no README.md beside contrib/)")
    states = {d: ("ok", "") for d in FEATURES}
    names = [ex.name for ex in build_examples(states, [])]
    assert _readme_example_names(readme) == names
    assert sum(n.startswith("OpFromGraph") for n in names) == 4
