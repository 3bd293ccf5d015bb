"""A real LocalCluster with two worker processes: the active Client runs the graph."""

from __future__ import annotations

import numpy as np
import pytest
from dask_helpers import compile_both
from opgraph_dask import dask_options

import opgraph.tensor as pt
from opgraph import function, shared

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    c = distributed.Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


@pytest.mark.timeout(120)
def test_graph_runs_on_the_cluster_workers(client):
    x = pt.matrix("x")
    y = pt.matrix("y")
    outs = [(pt.exp(-x**2) * y).sum(axis=0), pt.dot(x, y.T).max(), x.T[1:] + 1]
    ref, fd = compile_both([x, y], outs)
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(30, 8)), rng.normal(size=(30, 8))
    before = client.run(_tasks_done)
    assert len(before) == 2
    with dask_options(chunks=(7, 3)):
        got = fd(a, b)
    after = client.run(_tasks_done)
    # the chunks were computed by the cluster's worker processes, not in this process
    assert sum(after.values()) - sum(before.values()) >= 8
    for r, g in zip(ref(a, b), got):
        assert isinstance(g, np.ndarray)
        np.testing.assert_allclose(g, r, rtol=1e-10)


@pytest.mark.timeout(120)
def test_update_with_cluster(client):
    x = pt.vector("x")
    acc = shared(np.zeros(()), name="acc")
    fd = function([x], (x**2).sum(), updates=[(acc, acc + x.sum())], mode="DASK")
    with dask_options(chunks=4):
        out = fd(np.arange(10.0))
    assert float(out) == float((np.arange(10.0) ** 2).sum())
    assert float(acc.get_value()) == 45.0


def _tasks_done(dask_worker=None):
    """On a worker: how many tasks it has executed so far."""
    return dask_worker.state.executed_count
