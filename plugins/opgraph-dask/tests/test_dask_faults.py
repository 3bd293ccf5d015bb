"""A cluster loses a worker mid-call, and workers with little memory stream data far
larger than their limit from a memory-mapped file."""

from __future__ import annotations

import os
import pickle
import signal
import threading
import time

import numpy as np
import pytest
from dask_helpers import slow_square_block
from opgraph_dask import dask_options, fused
from opgraph_dask.cluster import ClusterLostError
from opgraph_dask.memmap import MemmapSource, memmap_source
from opgraph_dask.table import register

import opgraph
import opgraph.tensor as pt
from opgraph.graph.basic import Apply
from opgraph.graph.op import Op

distributed = pytest.importorskip("distributed")


class SlowSquare(Op):
    """x * x, slowly, chunk by chunk (a test Op with its own dask translation)."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * inputs[0]


@register(SlowSquare)
def _slow_square_dask(node, values, ctx):
    return [values[0].map_blocks(slow_square_block, dtype=values[0].dtype)]


def _pid(dask_worker=None):
    return os.getpid()


def _executed(dask_worker=None):
    return dask_worker.state.executed_count


@pytest.mark.timeout(300)
def test_a_worker_killed_mid_call_does_not_lose_the_result():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        x = pt.dvector("x")
        f = opgraph.function([x], SlowSquare()(x).sum(), mode="DASK")
        data = np.arange(4000.0)
        pids = client.run(_pid)
        victim_address, victim_pid = sorted(pids.items())[0]
        killed = threading.Event()
        done = threading.Event()

        def killer():
            while not done.is_set():
                counts = client.run(_executed, workers=[victim_address])
                if counts.get(victim_address, 0) >= 2:  # in the middle of its share
                    os.kill(victim_pid, signal.SIGKILL)
                    killed.set()
                    return
                time.sleep(0.05)

        thread = threading.Thread(target=killer)
        thread.start()
        with dask_options(chunks=100):  # 40 chunks of 0.15 s: about 3 s on two workers
            result = f(data)
        done.set()
        thread.join()
        assert killed.is_set(), "the call finished before the worker could be killed"
        assert float(result) == float((data * data).sum())
        # the nanny restarted the killed worker: the cluster is whole again and usable
        deadline = time.time() + 60
        # (a worker still listed but already dead is skipped, not an error, while we wait)
        while len(client.run(_pid, on_error="ignore")) < 2 and time.time() < deadline:
            time.sleep(0.2)
        assert victim_pid not in client.run(_pid).values()
        assert float(f(np.ones(10))) == 10.0
    finally:
        client.close()
        cluster.close()


def test_memmap_source_pickles_as_a_path_and_reads_slices(tmp_path):
    data = np.arange(60.0).reshape(20, 3)
    np.save(tmp_path / "d.npy", data)
    mm = np.load(tmp_path / "d.npy", mmap_mode="r")
    source = memmap_source(mm)
    assert isinstance(source, MemmapSource)
    assert len(pickle.dumps(source)) < 500
    np.testing.assert_array_equal(source[3:7, 1:], data[3:7, 1:])
    assert memmap_source(mm[2:]) is None  # a view: handed to dask as it is
    assert memmap_source(data) is None


@pytest.mark.slow  # writes and reads 2 GB: `nox -s slow` (docs/testing.md)
@pytest.mark.timeout(900)
def test_data_four_times_a_workers_memory_streams_from_a_memmap(tmp_path):
    """Workers limited to 512 MB compute the log-likelihood and gradient of a logistic
    regression over 2 GB of float64 rows stored as .npy, without any being killed."""
    n_rows, n_feat = 25_000_000, 10  # 2.0 GB
    path = tmp_path / "X.npy"
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(n_rows, n_feat))
    rng = np.random.default_rng(0)
    step = 1_000_000
    for start in range(0, n_rows, step):
        out[start:start + step] = rng.normal(size=(min(step, n_rows - start), n_feat))
    out.flush()
    del out
    X_in = pt.dmatrix("X")
    w = pt.dvector("w")
    logp = -pt.sum(pt.softplus(-pt.dot(X_in, w)))  # log sigmoid(X w), every label 1
    f = opgraph.function([X_in, w], [logp, opgraph.grad(logp, w)], mode="DASK")
    w_value = np.linspace(-0.5, 0.5, n_feat)

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       memory_limit="512MB", dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        pids = client.run(_pid)
        X = np.load(path, mmap_mode="r")
        with dask_options(chunks=(500_000, n_feat)):  # 40 MB chunks
            value, grad = f(X, w_value)
        assert client.run(_pid) == pids  # no worker was killed (or restarted) for memory
    finally:
        client.close()
        cluster.close()
    ref_value, ref_grad = 0.0, np.zeros(n_feat)
    X = np.load(path, mmap_mode="r")
    for start in range(0, n_rows, step):
        block = np.asarray(X[start:start + step])
        z = block @ w_value
        ref_value -= np.logaddexp(0, -z).sum()
        ref_grad += block.T @ (1 / (1 + np.exp(z)))
    np.testing.assert_allclose(value, ref_value, rtol=1e-9)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-9)


@pytest.mark.timeout(300)
def test_a_cluster_that_goes_away_mid_call_says_so_and_a_new_client_works(monkeypatch):
    monkeypatch.setattr(fused, "FUSE_MIN_BYTES", 0)  # the fused row path on the new cluster
    x = pt.dvector("x")
    f = opgraph.function([x], SlowSquare()(x).sum(), mode="DASK")
    X_in, w = pt.dmatrix("X"), pt.dvector("w")
    logp = -pt.sum(pt.softplus(-pt.dot(X_in, w)))
    g = opgraph.function([X_in, w], [logp, opgraph.grad(logp, w)], mode="DASK")
    data = np.arange(4000.0)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    address = cluster.scheduler_address
    done = threading.Event()
    closed = threading.Event()

    def closer():
        while not done.is_set():
            if sum(client.run(_executed).values()) >= 2:  # the call is under way
                cluster.close()
                closed.set()
                return
            time.sleep(0.05)

    thread = threading.Thread(target=closer)
    thread.start()
    try:
        with dask_options(chunks=100), pytest.raises(ClusterLostError) as info:
            f(data)  # 40 chunks of 0.15 s on two workers: about 3 s
    finally:
        done.set()
        thread.join()
        client.close()
        cluster.close()
    assert closed.is_set(), "the call finished before the cluster was closed"
    message = str(info.value)
    assert address in message and "lost the dask.distributed cluster" in message

    rng = np.random.default_rng(5)
    X_value, w_value = rng.normal(size=(3000, 4)), rng.normal(size=4)
    z = X_value @ w_value
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster2, \
            distributed.Client(cluster2), dask_options(chunks=(700, 4)):
        assert float(f(data[:500])) == float((data[:500] ** 2).sum())
        value, grad = g(X_value, w_value)
    np.testing.assert_allclose(value, -np.logaddexp(0, -z).sum(), rtol=1e-10)
    np.testing.assert_allclose(grad, X_value.T @ (1 / (1 + np.exp(z))), rtol=1e-10)


def test_a_tasks_own_error_on_a_running_cluster_is_not_reported_as_a_lost_cluster(tmp_path):
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        np.save(tmp_path / "a.npy", np.ones((30, 2)))
        a = np.load(tmp_path / "a.npy", mmap_mode="r")
        X_in = pt.dmatrix("X")
        f = opgraph.function([X_in], X_in.sum(axis=0), mode="DASK")
        (tmp_path / "a.npy").unlink()  # the tasks open the file where they run: it is gone
        with dask_options(chunks=(10, 2)), pytest.raises(FileNotFoundError):
            f(a)
    finally:
        client.close()
        cluster.close()
