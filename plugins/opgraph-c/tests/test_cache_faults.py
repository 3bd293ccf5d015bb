"""The compile cache degrades, never fails: unusable directories, foreign and corrupt
files, damaged precompiled headers, `cache clear` while other processes compile."""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from opgraph_c import cache as cache_mod
from opgraph_c.cache import CacheWarning, ModuleCache
from opgraph_c.compiler import probe

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode

pytestmark = pytest.mark.skipif(probe() is not None, reason="no working C compiler")

# one process: compile in FAST_RUN and C, check values, report warnings and where the cache went
_COMPILE_BOTH = textwrap.dedent("""
    import sys, warnings, numpy as np
    import opgraph.tensor as pt
    from opgraph.compile.function import function
    from opgraph_c.cache import default_cache
    k = float(sys.argv[1])
    x = pt.dvector("x")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for mode in ("FAST_RUN", "C"):
            f = function([x], pt.exp(x) * k + 1, mode=mode)
            assert type(f.maker.linker).__name__ == "CLinker", f.maker.linker
            assert np.allclose(f(np.ones(3)), np.e * k + 1)
    for w in caught:
        print("WARN", w.category.__name__, w.message)
    print("ROOT", default_cache().root)
""")


def _run(compiledir: str | Path, k: float = 2.0, **kw) -> list[str]:
    env = dict(os.environ, OPGRAPH_FLAGS=f"compiledir={compiledir}")
    out = subprocess.run([sys.executable, "-c", _COMPILE_BOTH, str(k)], env=env,
                         capture_output=True, text=True, timeout=300, **kw)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def _warnings(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("WARN ")]


def _fallback_root(lines: list[str]) -> str:
    return next(line[5:] for line in lines if line.startswith("ROOT "))


@pytest.mark.parametrize("shape", ["file", "under_a_file"])
def test_compiledir_that_is_a_file_falls_back_with_one_warning(tmp_path, shape):
    a_file = tmp_path / "not-a-dir"
    a_file.write_text("x")
    compiledir = a_file if shape == "file" else a_file / "sub"
    lines = _run(compiledir)
    warns = _warnings(lines)
    assert len(warns) == 1, lines
    assert "CacheWarning" in warns[0] and str(compiledir) in warns[0]
    assert "NotADirectoryError" in warns[0] or "FileExistsError" in warns[0]
    fallback = _fallback_root(lines)
    assert fallback != str(compiledir / "c")
    assert not os.path.exists(fallback)  # the per-process cache is removed at exit
    assert a_file.read_text() == "x"  # the user's file is untouched


def test_read_only_compiledir_falls_back_with_one_warning(tmp_path):
    if os.geteuid() == 0:
        # root may write through permission bits: /proc is a directory nobody can add to
        compiledir: Path = Path("/proc")
    else:
        compiledir = tmp_path / "ro"
        compiledir.mkdir()
        compiledir.chmod(0o555)
    try:
        lines = _run(compiledir)
    finally:
        if compiledir != Path("/proc"):
            compiledir.chmod(0o755)
    warns = _warnings(lines)
    assert len(warns) == 1, lines
    assert str(compiledir / "c") in warns[0]
    assert re.search(r"(Permission|FileNotFound)Error", warns[0]), warns[0]


def _entry_files(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.suffix in (".so", ".json", ".c"))


@pytest.mark.parametrize("victim", [".so", ".json"])
def test_a_directory_in_place_of_a_cache_file_is_quarantined_and_rebuilt(tmp_path, victim):
    assert _warnings(_run(tmp_path)) == []
    root = tmp_path / "c"
    for path in root.glob(f"*{victim}"):
        path.unlink()
        path.mkdir()
        (path / "inside").write_text("foreign")
    lines = _run(tmp_path)  # a fresh process: reads the bad entry, rebuilds it
    warns = _warnings(lines)
    assert warns and all("quarantine" in w for w in warns), lines
    assert all(p.is_file() for p in _entry_files(root))
    assert any((root / ".quarantine").glob("*/*/inside"))
    assert _warnings(_run(tmp_path)) == []  # and the rebuilt entry is good


def test_truncated_or_damaged_precompiled_header_never_breaks_compiles(tmp_path):
    assert _warnings(_run(tmp_path, 1.0)) == []
    gchs = glob.glob(str(tmp_path / "c" / "pch" / "*" / "*.gch"))
    if not gchs:
        pytest.skip("this compiler does not use precompiled headers (not GCC)")
    for k, damage in enumerate(("truncate", "garbage", "empty", "header_gone")):
        for gch in glob.glob(str(tmp_path / "c" / "pch" / "*" / "*.gch")):
            data = Path(gch).read_bytes()
            if damage == "truncate":
                Path(gch).write_bytes(data[: len(data) // 2])
            elif damage == "garbage":
                Path(gch).write_bytes(data[:64] + b"\x00garbage" * 100)
            elif damage == "empty":
                Path(gch).write_bytes(b"")
            else:
                os.unlink(gch[: -len(".gch")])  # `cache clear` took the header away
        lines = _run(tmp_path, 10.0 + k)  # new graphs: real compiles
        assert _warnings(lines) == [], (damage, lines)


def _c_fn(op):
    x = pt.dvector("x")
    return function([x], op(x) * 3.0, mode=Mode(linker="c"))


def test_a_wrong_module_under_a_key_is_replaced_in_the_same_process(tmp_path, monkeypatch):
    cache = ModuleCache(str(tmp_path), 64)
    monkeypatch.setattr(cache_mod, "default_cache", lambda: cache)
    monkeypatch.setattr("opgraph_c.linker.default_cache", lambda: cache)
    _c_fn(pt.sinh)
    _c_fn(pt.cosh)
    keys = [e.key for e in cache.entries()]
    assert len(keys) == 2
    a, b = keys
    # b's (valid) module and record under a's key: loads fine as a file, but is another module
    for ext in (".so", ".json"):
        shutil.copyfile(tmp_path / f"{b}{ext}", tmp_path / f"{a}{ext}")
    cache.forget_loaded()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f_sinh, f_cosh = _c_fn(pt.sinh), _c_fn(pt.cosh)
    assert np.allclose(f_sinh(np.ones(2)), np.sinh(1.0) * 3.0)
    assert np.allclose(f_cosh(np.ones(2)), np.cosh(1.0) * 3.0)
    assert [w.category for w in caught] == [CacheWarning]
    assert "does not load" in str(caught[0].message)
    cache.forget_loaded()
    before = dict(cache.stats)
    f_sinh = _c_fn(pt.sinh)  # the rebuilt entry is now good on disk
    assert np.allclose(f_sinh(np.ones(2)), np.sinh(1.0) * 3.0)
    assert cache.stats["disk_hits"] == before["disk_hits"] + 1
    assert cache.stats["builds"] == before["builds"]


def test_clear_leaves_nothing_behind(tmp_path):
    cache = ModuleCache(str(tmp_path), 64)
    (tmp_path / "orphan.json").write_text(json.dumps({"size": 1}))
    (tmp_path / "orphan2.c").write_text("int x;")
    (tmp_path / ".tmp-abandoned").write_bytes(b"half")
    (tmp_path / ".build-abc-123").mkdir()
    (tmp_path / "pch" / "k").mkdir(parents=True)
    (tmp_path / ".quarantine" / "q").mkdir(parents=True)
    (tmp_path / "k1.so").mkdir()  # even a foreign directory named like an entry
    listed = {e.key for e in cache.entries()}
    assert {"orphan", "orphan2", "k1"} <= listed
    assert not any(e.valid for e in cache.entries())
    cache.clear()
    assert os.listdir(tmp_path) == []


def test_an_entry_removed_while_listed_is_invalid_not_an_error(tmp_path, monkeypatch):
    """Another process may evict or clear an entry between the listing and the stat (seen
    in CI with two nox sessions sharing one cache): the listing must not raise."""
    cache = ModuleCache(str(tmp_path), 64)
    (tmp_path / "gone.json").write_text(json.dumps({"size": 10, "created": 1.0}))
    monkeypatch.setattr(cache_mod, "is_regular_file", lambda path: True)  # the .so "exists"
    (entry,) = cache.entries()
    assert entry.key == "gone" and not entry.valid
    assert cache.evict(max_bytes=1) == ["gone"]


def test_total_size_counts_every_file(tmp_path):
    cache = ModuleCache(str(tmp_path), 64)
    (tmp_path / "k.so").write_bytes(b"x" * 1000)
    (tmp_path / "pch" / "a").mkdir(parents=True)
    (tmp_path / "pch" / "a" / "h.gch").write_bytes(b"x" * 5000)
    assert cache.total_size() == 6000


_WORKER = textwrap.dedent("""
    import sys, warnings, numpy as np
    import opgraph.tensor as pt
    from opgraph.compile.function import function
    from opgraph.compile.mode import Mode
    seed, n = int(sys.argv[1]), int(sys.argv[2])
    x = pt.dvector("x")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(n):
            k = float(i % 3 + 1)  # shared keys between processes, and new ones
            f = function([x], pt.cosh(x) * k + seed * 0 + i % 3, mode=Mode(linker="c"))
            assert np.allclose(f(np.ones(2)), np.cosh(1.0) * k + i % 3)
    bad = [str(w.message) for w in caught if "cache" in str(w.message).lower()]
    print("ok", len(bad), bad)
""")

_CLEARER = textwrap.dedent("""
    import os, sys, time
    from opgraph_c.cache import ModuleCache
    cache = ModuleCache(sys.argv[1], 64)
    stop, n = sys.argv[2], 0
    end = time.time() + 300
    while not os.path.exists(stop) and time.time() < end:
        cache.clear(); n += 1
        time.sleep(0.02)
    print("cleared", n)
""")


@pytest.mark.parametrize("n_procs", [4])  # 2 processes took the same path, with less contention
def test_processes_compile_while_the_cache_is_cleared(tmp_path, n_procs):
    env = dict(os.environ, OPGRAPH_FLAGS=f"compiledir={tmp_path}")
    stop = tmp_path / "stop"
    clearer = subprocess.Popen([sys.executable, "-c", _CLEARER, str(tmp_path / "c"), str(stop)],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    workers = [
        subprocess.Popen([sys.executable, "-c", _WORKER, str(s), "6"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for s in range(n_procs)
    ]
    results = [(*w.communicate(timeout=600), w.returncode) for w in workers]
    stop.write_text("")
    out, err = clearer.communicate(timeout=60)
    assert clearer.returncode == 0, err
    assert int(out.split()[1]) >= 5  # it really cleared, many times, during the compiles
    for w_out, w_err, code in results:
        assert code == 0, w_err
        assert w_out.split()[:2] == ["ok", "0"], w_out  # no entry was ever seen corrupt
    # what is left is consistent: every complete entry loads
    assert _warnings(_run(tmp_path, 1.0)) == []
    assert not list((tmp_path / "c").glob(".tmp-*"))


# a warm cache this process cannot write (simulated: root writes through permission bits)
_READ_ONLY_WARM = textwrap.dedent("""
    import sys, warnings, numpy as np
    import opgraph.tensor as pt
    from opgraph_c import cache as cache_mod
    from opgraph.compile.function import function
    shared_dir = sys.argv[1]
    real = cache_mod.unusable_reason
    cache_mod.unusable_reason = lambda root: (
        "PermissionError: read-only file system" if root.startswith(shared_dir) else real(root))
    x = pt.dvector("x")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for mode in ("FAST_RUN", "C"):
            f = function([x], pt.exp(x) * 2.0 + 1, mode=mode)  # in the warm cache
            assert np.allclose(f(np.ones(3)), np.e * 2 + 1)
        g = function([x], pt.tanh(x) * 3.0, mode="C")  # not in it
        assert np.allclose(g(np.ones(3)), np.tanh(1.0) * 3)
    for w in caught:
        print("WARN", w.category.__name__, w.message)
    cache = cache_mod.default_cache()
    print("ROOT", cache.root)
    print("STATS", cache.stats["disk_hits"], cache.stats["builds"])
""")


def test_a_read_only_warm_cache_is_loaded_from_and_only_missing_modules_are_built(tmp_path):
    compiledir = tmp_path / "shared"
    _run(compiledir, k=2.0)  # warm it
    before = {p.name: p.stat().st_mtime_ns for p in (compiledir / "c").iterdir()}
    env = dict(os.environ, OPGRAPH_FLAGS=f"compiledir={compiledir}")
    out = subprocess.run([sys.executable, "-c", _READ_ONLY_WARM, str(compiledir)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    warns = _warnings(lines)
    assert len(warns) == 1 and "still loaded from it" in warns[0], lines
    hits, builds = map(int, next(x for x in lines if x.startswith("STATS")).split()[1:])
    assert hits >= 1, lines  # the warm modules were loaded, not rebuilt
    assert builds == 1, lines  # only the graph it did not hold
    assert _fallback_root(lines) != str(compiledir / "c")
    # nothing written, moved or touched in the shared cache
    assert {p.name: p.stat().st_mtime_ns for p in (compiledir / "c").iterdir()} == before
