"""Compile cache, bad input, read-only and inplace safety, no-compiler fallback."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from opgraph_c.cache import ModuleCache, default_cache

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode


def c_fn(inputs, outputs, **kw):
    return function(inputs, outputs, mode=Mode(linker="c"), **kw)


def test_second_compile_is_a_cache_hit_and_constants_are_parameters():
    cache = default_cache()
    x = pt.dvector("x")
    before = dict(cache.stats)
    f = c_fn([x], pt.exp(x) * 3.5 + 1)
    cache.forget_loaded()  # force the disk path
    g = c_fn([x], pt.exp(x) * 3.5 + 1)
    h = c_fn([x], pt.exp(x) * 7.0 + 2)  # other constants: same module
    assert cache.stats["builds"] == before["builds"] + 1
    a = np.arange(3.0)
    np.testing.assert_allclose(f(a), g(a))
    np.testing.assert_allclose(h(a), np.exp(a) * 7 + 2)


_BUILD_ONE = r"""
import sys
from opgraph_c.cache import ModuleCache
from opgraph_c import compiler
src = (
    "#include <Python.h>\n"
    "static struct PyModuleDef d = {PyModuleDef_HEAD_INIT, \"@MODNAME@\", NULL, -1, NULL};\n"
    "PyMODINIT_FUNC PyInit_@MODNAME@(void) { return PyModule_Create(&d); }\n"
)
cache = ModuleCache(sys.argv[1], 16)
comp = compiler.find_compiler()
flags = compiler.build_flags(openmp=False)
def build(source, out):
    compiler.compile_shared(comp, source, out, flags, (), sys.argv[1] + "/log")
key = cache.make_key(src, "t")
cache.get(key, src, build)
print(key)
print(cache.stats["rebuilds"], cache.stats["builds"], cache.stats["disk_hits"])
"""


def test_truncated_module_is_rebuilt(tmp_path):
    def run() -> list[str]:
        out = subprocess.run([sys.executable, "-c", _BUILD_ONE, str(tmp_path)],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return out.stdout.split("\n")

    key = run()[0]
    so = tmp_path / f"{key}.so"
    assert run()[1] == "0 0 1"  # a fresh process: disk hit
    so.write_bytes(so.read_bytes()[:100])  # a truncated module (e.g. a full disk)
    assert run()[1] == "1 1 0"  # detected and rebuilt
    assert so.stat().st_size > 100
    cache = ModuleCache(str(tmp_path), 16)
    entries = cache.entries()
    assert len(entries) == 1 and entries[0].valid
    assert cache.clear() == 1 and cache.entries() == []


def test_lru_eviction_keeps_cache_under_its_cap(tmp_path):
    cache = ModuleCache(str(tmp_path), 0)
    for i in range(3):
        for ext in (".so", ".json", ".c"):
            (tmp_path / f"k{i}{ext}").write_bytes(b"x" * 1000)
        os.utime(tmp_path / f"k{i}.json", (1000 + i, 1000 + i))
    removed = cache.evict(max_bytes=7000)
    assert removed == ["k0"]
    assert {e.key for e in cache.entries()} == {"k1", "k2"}


_PARALLEL = """
import numpy as np, opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode
x = pt.dvector("x")
f = function([x], pt.sin(x) * 0.5 + pt.cos(x) * pt.exp(x), mode=Mode(linker="c"))
a = np.linspace(0, 1, 5)
assert np.allclose(f(a), np.sin(a) * 0.5 + np.cos(a) * np.exp(a))
print("ok")
"""


def test_two_processes_compiling_the_same_graph_at_once(tmp_path):
    env = dict(os.environ, OPGRAPH_FLAGS=f"compiledir={tmp_path}")
    procs = [subprocess.Popen([sys.executable, "-c", _PARALLEL], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert out.strip() == "ok"
    entries = ModuleCache(str(tmp_path / "c")).entries()
    assert len(entries) == 1 and entries[0].valid


_NO_CC = """
import warnings, numpy as np, opgraph.tensor as pt
from opgraph.compile.function import function
x = pt.dvector("x")
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    f = function([x], x + 1, mode="FAST_RUN")
    g = function([x], x * 2, mode="FAST_RUN")
assert np.allclose(f(np.ones(2)), 2)
msgs = [str(m.message) for m in w if "linker 'c'" in str(m.message)]
assert len(msgs) == 1, msgs
assert "/bin/false" in msgs[0] and ".log" in msgs[0], msgs[0]
try:
    function([x], x + 1, mode="c")
except Exception as exc:
    assert "/bin/false" in str(exc), exc
    print("raised")
"""


def test_no_compiler_fast_run_falls_back_and_c_raises(tmp_path):
    env = dict(os.environ, CC="/bin/false", OPGRAPH_FLAGS=f"compiledir={tmp_path}")
    out = subprocess.run([sys.executable, "-c", _NO_CC], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "raised"


@pytest.mark.parametrize(
    "value, exc",
    [
        (np.zeros((2, 2), dtype="float32"), TypeError),
        (np.zeros(3), TypeError),
        ([[1.0, 2.0]], TypeError),
        (np.zeros((2, 5)), ValueError),
    ],
)
def test_bad_input_with_trust_input_is_a_python_exception(value, exc):
    x = pt.tensor(dtype="float64", shape=(2, 4), name="x")
    f = c_fn([x], x * 2)
    f.trust_input = True
    with pytest.raises(exc, match="input 0"):
        f(value)


def test_read_only_input_is_never_written_and_inplace_is_safe():
    x = pt.dvector("x")
    f = function([x], pt.exp(x) + 1, mode="c")
    a = np.arange(4.0)
    a.flags.writeable = False
    np.testing.assert_allclose(f(a), np.exp(np.arange(4.0)) + 1)
    np.testing.assert_array_equal(a, np.arange(4.0))
    from opgraph.scalar import add as scalar_add
    from opgraph.tensor.elemwise import Elemwise

    y = pt.dvector("y")
    node_out = Elemwise(scalar_add, {0: 0})(x, y)
    from opgraph.compile.io import In

    g = c_fn([In(x, mutable=True), y], node_out, accept_inplace=True)
    ro = np.arange(3.0)
    ro.flags.writeable = False
    np.testing.assert_allclose(g(ro, np.ones(3)), [1, 2, 3])
    np.testing.assert_array_equal(ro, np.arange(3.0))
    # overlapping inputs: x + x[::-1] in place must not read overwritten values
    base = np.arange(5.0)
    np.testing.assert_allclose(g(base, base[::-1]), np.arange(5.0) + np.arange(5.0)[::-1])


def test_error_note_names_the_node():
    x, y = pt.dvector("x"), pt.dvector("y")
    f = c_fn([x, y], x + y)
    with pytest.raises(ValueError) as info:
        f(np.ones(3), np.ones(4))
    assert "cannot be broadcast" in str(info.value)
    assert any("Apply node" in n for n in getattr(info.value, "__notes__", []))


def test_cache_cli_list_info_clear(capsys):
    from opgraph.cli import main

    x = pt.dvector("x")
    c_fn([x], pt.cosh(x))
    assert main(["cache", "list"]) == 0
    assert "nodes" in capsys.readouterr().out
    assert main(["cache", "info"]) == 0
    assert "modules:" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert "removed" in capsys.readouterr().out
    default_cache().forget_loaded()
