"""Map-reduce over data rows fused into one task per chunk, tile by tile (opgraph_dask.rows,
.tiles, .fused) against the Python linker, on ragged chunks, NumPy, dask and memmap inputs."""

from __future__ import annotations

import os

import dask.array as da
import numpy as np
import pytest
from dask_helpers import assert_same, compile_both, ragged_chunks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opgraph_dask import dask_options, fused, tiles
from opgraph_dask.options import default_chunks
from opgraph_dask.rows import find_region

import opgraph
import opgraph.tensor as pt

SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

X, Y, W = pt.dmatrix("X"), pt.dvector("y"), pt.dvector("w")


def _logistic():
    z = pt.dot(X, W)
    logp = pt.sum(Y * z - pt.softplus(z))
    return logp, opgraph.grad(logp, W)


@pytest.fixture
def small_fusion(monkeypatch):
    """Fuse any size of data, in tiles of 64 rows (several tiles per chunk)."""
    monkeypatch.setattr(fused, "FUSE_MIN_BYTES", 0)
    monkeypatch.setattr(fused, "TILE_BYTES", 1)


def _count_chunk_runs(monkeypatch):
    calls = []
    original = tiles.TileProgram.run_chunk

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(tiles.TileProgram, "run_chunk", counting)
    return calls


def test_the_logistic_likelihood_and_gradient_form_one_region():
    logp, g = _logistic()
    fd = opgraph.function([X, Y, W], [logp, g], mode="DASK")
    fg = fd.maker.fgraph
    order = fg.toposort()
    region = find_region(order, [fg.inputs[0], fg.inputs[1]], fg.outputs)
    assert region is not None
    assert set(region.nodes) == set(order) - {n for n in order if not n.inputs or
                                             all(i is fg.inputs[2] for i in n.inputs)}
    assert list(region.reduce_exports.values()) == ["add", "add"]
    assert region.row_exports == {} and region.after == set()
    assert region.outer_inputs == [fg.inputs[2]]


def test_no_region_without_a_reduction_over_rows():
    fd = opgraph.function([X, W], [pt.exp(pt.dot(X, W)), X.sum(axis=1)], mode="DASK")
    fg = fd.maker.fgraph
    assert find_region(fg.toposort(), [fg.inputs[0]], fg.outputs) is None


@SETTINGS
@given(data=st.data())
def test_logistic_regression_on_ragged_chunks_matches_the_python_linker(small_fusion,
                                                                       monkeypatch, data):
    runs = _count_chunk_runs(monkeypatch)
    n = data.draw(st.integers(5, 400))  # more rows than w
    rng = np.random.default_rng(n)
    xv, yv = rng.normal(size=(n, 4)), (rng.random(n) < 0.5).astype(float)
    wv = rng.normal(size=4)
    ref, fd = compile_both([X, Y, W], list(_logistic()))
    xc, yc = data.draw(ragged_chunks(n)), data.draw(ragged_chunks(n))
    with dask_options(chunks={"X": (xc, 4), "y": (yc,)}):
        assert_same(ref(xv, yv, wv), fd(xv, yv, wv), rtol=1e-9)
    fd.trust_input = True
    dx = da.from_array(xv, chunks=(xc, (1, 3)))
    assert_same(ref(xv, yv, wv), fd(dx, da.from_array(yv, chunks=(yc,)), wv), rtol=1e-9)
    assert len(runs) == 2 * len(xc)


x = pt.matrix("x")
v = pt.vector("v")
m = pt.matrix("m")
FAMILIES = {
    "sums": [x.sum(), x.sum(axis=0), (x * v[:, None]).sum(axis=0), v.sum() * 2],
    "other_combines": [pt.prod(1 + x * 0.01, axis=0), x.max(axis=0), v.min(),
                       (x > -3).all(), (v > 1).any(axis=0)],
    "row_local_reductions_then_rows": [pt.exp(x).sum(axis=1).sum(), x.max(axis=1).min()],
    "dot_reductions": [pt.dot(x.T, v), pt.dot(v, x), pt.dot(x.T, x), pt.dot(pt.dot(x, m).T, x)],
    "row_exports_and_after": [pt.tanh(pt.dot(x, m)), (x - x.mean(axis=0)) ** 2,
                              x.sum() / x.shape[0], pt.dot(x, m).T],
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
@SETTINGS
@given(data=st.data())
def test_every_region_family_on_ragged_chunks(small_fusion, monkeypatch, family, data):
    runs = _count_chunk_runs(monkeypatch)
    n = data.draw(st.integers(4, 300))  # more bytes than m
    rng = np.random.default_rng(n + 7)
    xv, vv, mv = rng.normal(size=(n, 3)), rng.normal(size=n), rng.normal(size=(3, 2))
    ref, fd = compile_both([x, v, m], FAMILIES[family], on_unused_input="ignore")
    chunks = {"x": (data.draw(ragged_chunks(n)), 3), "v": (data.draw(ragged_chunks(n)),)}
    with dask_options(chunks=chunks):
        assert_same(ref(xv, vv, mv), fd(xv, vv, mv), rtol=1e-9)
    assert len(runs) == len(chunks["x"][0])  # fused: one task per chunk of x


def test_one_task_per_chunk_reads_a_memmap_once_for_all_outputs(small_fusion, monkeypatch,
                                                              tmp_path):
    rng = np.random.default_rng(3)
    xv, yv, wv = rng.normal(size=(1000, 4)), rng.random(1000).round(), rng.normal(size=4)
    np.save(tmp_path / "x.npy", xv)
    np.save(tmp_path / "y.npy", yv)
    xm, ym = np.load(tmp_path / "x.npy", mmap_mode="r"), np.load(tmp_path / "y.npy", mmap_mode="r")
    ref, fd = compile_both([X, Y, W], list(_logistic()))
    runs = _count_chunk_runs(monkeypatch)
    read = []
    real_preadv = os.preadv

    def counting_preadv(fd_, buffers, offset):
        got = real_preadv(fd_, buffers, offset)
        read.append(got)
        return got

    monkeypatch.setattr(os, "preadv", counting_preadv)
    with dask_options(chunks={"X": ((300, 300, 250, 150), 4), "y": (200,)}):
        out = fd(xm, ym, wv)
    assert_same(ref(xv, yv, wv), out, rtol=1e-9)
    assert len(runs) == 4  # one task per chunk of X computes both logp and the gradient
    assert sum(read) == xv.nbytes + yv.nbytes  # every byte of the data read once


def test_fortran_ordered_memmap_and_lazy_outputs(small_fusion, tmp_path):
    xv = np.asfortranarray(np.random.default_rng(4).normal(size=(500, 3)))
    np.save(tmp_path / "x.npy", xv)
    xm = np.load(tmp_path / "x.npy", mmap_mode="r")
    ref, fd = compile_both([x], [pt.exp(x).sum(axis=0), x * 2])
    with dask_options(chunks=(120, 3), lazy=True):
        total, twice = fd(xm)
    assert isinstance(total, da.Array) and isinstance(twice, da.Array)
    assert twice.chunks[0] == (120, 120, 120, 120, 20)
    assert_same(ref(xv), [total.compute(), twice.compute()])


def test_a_shape_error_in_the_region_is_the_ops_own(small_fusion):
    fd = opgraph.function([X, W], pt.dot(X, W).sum(), mode="DASK")
    ref = opgraph.function([X, W], pt.dot(X, W).sum(), mode=opgraph.Mode(linker="py"))
    args = (np.ones((200, 3)), np.ones(5))
    with pytest.raises(ValueError) as expected:
        ref(*args)
    with pytest.raises(ValueError) as got:
        fd(*args)
    assert type(got.value) is type(expected.value)
    assert "not aligned" in str(got.value) and "Dot" in str(got.value)


def test_small_data_is_not_fused(monkeypatch):
    runs = _count_chunk_runs(monkeypatch)
    ref, fd = compile_both([X, Y, W], list(_logistic()))
    args = (np.ones((50, 2)), np.ones(50), np.ones(2))
    assert_same(ref(*args), fd(*args))
    assert runs == []


@pytest.mark.parametrize(("shape", "cores", "expected"), [
    ((10_000_000, 10), 2, (833_334, 10)),      # 800 MB: 12 pieces of <= 64 MB
    ((2_000_000,), 2, (500_000,)),             # 16 MB: 3 of >= 4 MB, rounded to 4
    ((1000, 10), 2, (1000, 10)),               # 80 kB: one piece
    ((3, 100_000_000), 2, "auto"),             # too few rows to cut: dask decides
    ((0, 5), 2, "auto"),
])
def test_default_chunks(shape, cores, expected):
    assert default_chunks(shape, 8, cores) == expected
