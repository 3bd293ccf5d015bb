"""function(..., profile=True) under the C linkers: per-node and per-class times.

"c" builds a profiling variant of the graph's module (timed on the monotonic
clock in C); "cvm" times each per-node thunk from Python.  Both must give a
time and a call count to every node, including nodes run as Python thunks.
"""

from __future__ import annotations

import io
import re
import time

import numpy as np
import pytest
from opgraph_c.cache import default_cache

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
from opgraph.compile.profiling import ProfileStats
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op

N_CALLS = 4


class SlowPlusOne(Op):
    """No C: runs as a Python thunk inside the module; sleeps so it is the slowest node."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        time.sleep(0.003)
        out[0][0] = inputs[0] + 1.0


def _graph():
    x = pt.dvector("x")
    y = pt.dvector("y")
    out = SlowPlusOne()(pt.exp(x) * y) + pt.tanh(x).sum()
    return [x, y], out


def _expected(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.exp(a) * b + 1.0 + np.tanh(a).sum()


def _profiled(linker: str, **kw):
    inputs, out = _graph()
    f = function(inputs, out, mode=Mode(linker=linker), profile=True, name=f"p-{linker}", **kw)
    a, b = np.linspace(-1, 1, 50), np.linspace(2, 3, 50)
    for _ in range(N_CALLS):
        np.testing.assert_allclose(f(a, b), _expected(a, b), rtol=1e-12)
    return f


def _times_column(text: str, header: str) -> list[float]:
    """The <time s> column of one table of summary()'s text."""
    block = text.split("\n" + header + "\n", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in block.splitlines()[1:] if line.strip()]
    return [float(re.split(r"\s+", row.strip())[2]) for row in rows]


@pytest.mark.parametrize("linker", ["c", "cvm"])
def test_every_node_and_class_gets_a_positive_time(linker: str) -> None:
    f = _profiled(linker)
    prof = f.profile
    nodes = f.maker.fgraph.toposort()
    assert prof.fct_callcount == N_CALLS
    times, counts = prof.apply_time, prof.apply_callcount
    assert set(times) == set(nodes)
    for node in nodes:
        assert counts[node] == N_CALLS, node
        assert times[node] > 0.0, node
    classes = prof.class_time()
    assert set(classes) == {type(n.op) for n in nodes}
    assert all(t > 0.0 for t in classes.values())
    # nodes run inside the call: their sum cannot exceed the measured call time
    assert sum(times.values()) <= prof.fct_call_time
    # the sleeping Python-thunk node dominates
    slow = next(n for n in nodes if isinstance(n.op, SlowPlusOne))
    assert times[slow] >= N_CALLS * 0.003
    assert max(times, key=times.get) is slow


@pytest.mark.parametrize("linker", ["c", "cvm"])
def test_summary_lists_classes_and_nodes_slowest_first(linker: str) -> None:
    f = _profiled(linker)
    buf = io.StringIO()
    text = f.profile.summary(file=buf)
    assert buf.getvalue() == text
    assert "does not support profiling" not in text
    nodes = f.maker.fgraph.toposort()
    class_times = _times_column(text, "Class")
    apply_times = _times_column(text, "Apply")
    assert len(class_times) == len({type(n.op) for n in nodes})
    assert len(apply_times) == len(nodes)
    assert class_times == sorted(class_times, reverse=True)
    assert apply_times == sorted(apply_times, reverse=True)
    class_block = text.split("\nClass\n", 1)[1].split("\n\n", 1)[0]
    assert class_block.splitlines()[1].rstrip().endswith("SlowPlusOne")
    for cls in {type(n.op).__name__ for n in nodes}:
        assert cls in class_block
    # "Time in nodes" is the per-node sum, given as a share of the call time
    line = next(ln for ln in text.splitlines() if "Time in nodes" in ln)
    in_nodes = float(re.search(r"Time in nodes: ([0-9.]+)s", line).group(1))
    assert in_nodes == pytest.approx(sum(f.profile.apply_time.values()), abs=2e-6)
    share = float(re.search(r"\(([0-9.]+)% of the call time\)", line).group(1))
    assert 0.0 < share <= 100.0


def test_profiled_module_is_a_separate_cache_entry_and_plain_one_has_no_timing_code() -> None:
    inputs, out = _graph()
    plain = function(inputs, out, mode=Mode(linker="c"))
    timed = _profiled("c")
    plain_src, timed_src = plain.linker.module_source, timed.linker.module_source
    assert plain.linker.module is not timed.linker.module
    assert plain.linker.module.__name__ != timed.linker.module.__name__
    for marker in ("clock_gettime", "og_clock", "og_prof_add", "OG_PROFILE"):
        assert marker not in plain_src, marker
        assert marker in timed_src, marker
    # each C node and the Python-thunk loop are timed
    n_c_nodes = timed_src.count("int og_rc = og_node_")
    assert timed_src.count("og_prof_add(og_st, ") == n_c_nodes > 0
    assert "og_prof_add(st, k, t0)" in timed_src
    described = {e.key: e.description for e in default_cache().entries()}
    names = {default_cache().module_name(k): d for k, d in described.items()}
    assert names[timed.linker.module.__name__].startswith("profiling")
    assert not names[plain.linker.module.__name__].startswith("profiling")
    # the plain function records nothing and computes the same
    a, b = np.arange(3.0), np.ones(3)
    np.testing.assert_allclose(plain(a, b), timed(a, b))
    assert plain.profile is None


def test_profile_accumulates_across_copies_and_shared_stats() -> None:
    stats = ProfileStats("shared")
    inputs, out = _graph()
    f = function(inputs, out, mode=Mode(linker="c"), profile=stats)
    g = function(inputs, out, mode=Mode(linker="c"), profile=stats)
    per_class: dict[type, int] = {}
    for node in f.maker.fgraph.toposort():
        per_class[type(node.op)] = per_class.get(type(node.op), 0) + 1
    a, b = np.arange(4.0), np.ones(4)
    f(a, b)
    g(a, b)
    g(a, b)
    assert stats.fct_callcount == 3
    # each function has its own nodes; classes pool them
    assert stats.class_callcount() == {cls: 3 * n for cls, n in per_class.items()}
    h = f.copy()
    h(a, b)
    assert stats.fct_callcount == 4
    assert stats.class_callcount() == {cls: 4 * n for cls, n in per_class.items()}
    assert sum(stats.apply_time.values()) <= stats.fct_call_time


def test_fast_run_with_c_records_per_node_times() -> None:
    x = pt.dvector("x")
    f = function([x], pt.exp(x) + 1, mode="FAST_RUN", profile=True)
    if type(f.linker).__name__ != "CLinker":
        pytest.fail(f"FAST_RUN should link with C here, got {f.linker!r}")
    f(np.arange(5.0))
    nodes = f.maker.fgraph.toposort()
    assert all(f.profile.apply_callcount[n] == 1 for n in nodes)
    assert "not recorded" not in f.profile.summary(file=io.StringIO())


def test_summary_says_when_a_linker_recorded_no_node_times() -> None:
    stats = ProfileStats("bare")
    stats.fct_callcount, stats.fct_call_time = 2, 0.5
    text = stats.summary(file=io.StringIO())
    assert "Time in nodes: not recorded" in text
    assert "does not support profiling" in text


def test_add_node_timers_rejects_misaligned_sequences() -> None:
    inputs, out = _graph()
    nodes = function(inputs, out, mode=Mode(linker="c")).maker.fgraph.toposort()
    with pytest.raises(ValueError, match="one entry per node"):
        ProfileStats().add_node_timers(nodes, [0.0], [0])
