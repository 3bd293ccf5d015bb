"""The fast (CI) profile of the differential fuzzer, plus the graphs of the issue that
used to crash the interpreter.

Each hypothesis example is a batch of random graphs run by a worker child in the
Python linker, the C linker with and without FAST_RUN rewrites, and NumPy; a
crash kills only the child and becomes a ``crash`` finding.  The long profile is
``nox -s fuzz`` (docs/testing.md).  ``OPGRAPH_FUZZ_EXAMPLES`` scales this one.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opgraph.tensor as pt
from opgraph.compile.function import function

from .driver import FAILING, Fuzzer
from .generate import grad_specs, random_spec, specs

EXAMPLES = int(os.environ.get("OPGRAPH_FUZZ_EXAMPLES", "8"))
BATCH = 24


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory: pytest.TempPathFactory):
    f = Fuzzer(str(tmp_path_factory.mktemp("opgraph-fuzz-cache")))
    yield f
    f.close()


def _failures(found: list) -> str:
    bad = [(s, r) for s, r in found if r["kind"] in FAILING]
    return "\n\n".join(f"[{r['kind']}] {r['detail']}\nspec: {json.dumps(s)}" for s, r in bad)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(specs(), min_size=BATCH, max_size=BATCH))
def test_random_graphs_agree_across_modes_and_numpy(fuzzer, batch):
    assert not _failures(fuzzer.run(batch)), _failures(fuzzer.run(batch))


@settings(max_examples=max(1, EXAMPLES // 4), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(grad_specs(), min_size=3, max_size=3))
def test_random_gradients_match_finite_differences(fuzzer, batch):
    found = fuzzer.run(batch, grad=True)
    assert not _failures(found), _failures(found)


def test_seeded_graphs_of_the_long_profile(fuzzer):
    """The generator of the long profile (random.Random, no hypothesis) works too."""
    batch = [random_spec(seed) for seed in range(32)]
    found = fuzzer.run(batch)
    assert not _failures(found), _failures(found)


def _inp(dtype: str, shape: list) -> dict:
    return {"dtype": dtype, "static": [None] * len(shape), "shape": shape}


# The reproducers of the issue (mixed-dtype dot segfaulted in the C linker).
ISSUE_GRAPHS = {
    "expm1(dot(cast(dot(a, B), int32), c))": {
        "inputs": [_inp("float32", [4]), _inp("float32", [4, 2]), _inp("float32", [2])],
        "steps": [["dot", 0, 1], ["cast", 3, "int32"], ["dot", 4, 2], ["unary", "expm1", 5]],
        "outputs": [6], "seed": 1},
    "dot(cast(bool vector), cast(all(int32 matrix, 0)))": {
        "inputs": [_inp("bool", [3]), _inp("int32", [2, 3])],
        "steps": [["cast", 0, "float32"], ["reduce", "all", 1, 0, False], ["cast", 3, "int32"],
                  ["dot", 2, 4]],
        "outputs": [5], "seed": 2},
    "dot(max((f32 3-d - bool 3-d)[0, -8:7:3, 1:5], 0), int32 vector)": {
        "inputs": [_inp("float32", [2, 9, 6]), _inp("bool", [2, 9, 6]), _inp("int32", [4])],
        "steps": [["binary", "sub", 0, 1],
                  ["sub", 3, [["i", 0], ["s", -8, 7, 3], ["s", 1, 5, None]]],
                  ["reduce", "max", 4, 0, False], ["dot", 5, 2]],
        "outputs": [6], "seed": 3},
    "dot(sum(sum(int64 3-d, 1).T, 0), tanh(exp(int32 matrix)[0, -7::3]))": {
        "inputs": [_inp("int64", [3, 2, 4]), _inp("int32", [3, 10])],
        "steps": [["reduce", "sum", 0, 1, False], ["dimshuffle", 2, [1, 0]],
                  ["reduce", "sum", 3, 0, False], ["unary", "exp", 1],
                  ["sub", 5, [["i", 0], ["s", -7, None, 3]]], ["unary", "tanh", 6],
                  ["dot", 4, 7]],
        "outputs": [8], "seed": 4},
}


@pytest.mark.parametrize("name", list(ISSUE_GRAPHS))
def test_graphs_of_the_issue(fuzzer, name):
    found = fuzzer.run([ISSUE_GRAPHS[name]])
    assert not found, _failures(found) or found


# Found by the long profile: a rewrite dropped a node that raises on the second
# (reshaped) call. ``argmax(reshape(...)) - itself`` cancelled to 0 (integers), and a
# constant ``switch`` dropped its branch although its operands do not broadcast; and one
# that NaNs elsewhere in the graph had hidden: the canonicalizer rebuilt ``True / x``
# (int8 x) as ``reciprocal(x)``, computed in float16.
REWRITE_GRAPHS = {
    "int x - x of an invalid reshape":
        {'inputs': [{'dtype': 'int16', 'static': [1, None], 'shape': [1, 4]},
                    {'dtype': 'int16', 'static': [None, None], 'shape': [1, 1]}],
         'steps': [['matmul', 1, 0],
                   ['binary', 'maximum', 0, 0],
                   ['switch', 1, 1, 1],
                   ['sub', 0, [['i', -1], ['s', -4, 2, -2]]],
                   ['reshape', 2, [2, 2]],
                   ['argmax', 3, -2],
                   ['binary', 'sub', 6, 6]],
         'outputs': [2, 8],
         'seed': 48445346,
         'bad': {'input': 1, 'shape': [2, 1]}},
    "constant switch over operands that do not broadcast":
        {'inputs': [{'dtype': 'int16', 'static': [1, None], 'shape': [1, 2]},
                    {'dtype': 'float32', 'static': [1, None], 'shape': [1, 4]}],
         'steps': [['const', 'int16', [2], 799],
                   ['binary', 'pow', 0, 2],
                   ['binary', 'sub', 2, 2],
                   ['switch', 2, 0, 4]],
         'outputs': [2, 5],
         'seed': 1576388468,
         'bad': {'input': 0, 'shape': [1, 3]}},
    "true / int8 rebuilt as reciprocal(int8), a float16":
        {'inputs': [{'dtype': 'int8', 'static': [None], 'shape': [3]}],
         'steps': [['binary', 'and', 0, 0],
                   ['binary', 'or', 0, 1],
                   ['const', 'bool', [3], 189],
                   ['switch', 2, 0, 3],
                   ['switch', 3, 4, 0],
                   ['dimshuffle', 0, [0]],
                   ['binary', 'sub', 1, 4],
                   ['binary', 'true_div', 3, 1]],
         'outputs': [3, 8],
         'seed': 1934943196,
         'bad': {'input': 0, 'shape': [4]}},
}


@pytest.mark.parametrize("name", list(REWRITE_GRAPHS))
def test_rewrites_keep_the_errors_numpy_raises(fuzzer, name):
    found = fuzzer.run([REWRITE_GRAPHS[name]])
    assert not found, _failures(found) or found


@pytest.mark.filterwarnings("ignore:mode 'FAST_RUN'")
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "C"])
def test_bad_input_names_the_input_and_the_function_stays_usable(mode, tmp_path):
    a = pt.tensor(dtype="float32", shape=(None,), name="a")
    b = pt.tensor(dtype="int32", shape=(None, None), name="b")
    f = function([a, b], pt.dot(b, a), mode=mode)
    good = (np.ones(3, "float32"), np.arange(6, dtype="int32").reshape(2, 3))
    want = np.dot(good[1], good[0])
    with pytest.raises(TypeError, match="a"):
        f(np.ones((3, 3), "float32"), good[1])  # wrong number of dimensions
    with pytest.raises(TypeError, match="b"):
        f(good[0], np.ones((2, 3), "float64"))  # would need a downcast
    with pytest.raises(ValueError):
        f(np.ones(4, "float32"), good[1])  # shapes not aligned
    np.testing.assert_allclose(f(*good), want)
    assert f(*good).dtype == want.dtype
