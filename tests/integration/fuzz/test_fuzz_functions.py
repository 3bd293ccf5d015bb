"""The CI profile of the function-level fuzzer (:mod:`.functions`): random small graphs
compiled as functions with shared variables, updates, givens, borrow flags, views,
copies and ``trust_input``, called repeatedly in every mode and checked against the
Python linker without rewrites and the memory rule of docs/modes.md.

A worker child runs them (a crash is a finding, not a dead test run).  The long
profile is ``nox -s fuzz`` (20,000 functions); ``OPGRAPH_FUZZ_FUNCTIONS`` scales this one.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .driver import FAILING, Fuzzer
from .functions import function_specs, random_function

EXAMPLES = int(os.environ.get("OPGRAPH_FUZZ_FUNCTIONS", "4"))


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory: pytest.TempPathFactory):
    f = Fuzzer(str(tmp_path_factory.mktemp("opgraph-fuzz-functions")))
    yield f
    f.close()


def _failures(found: list) -> str:
    bad = [(s, r) for s, r in found if r["kind"] in FAILING]
    return "\n\n".join(f"[{r['kind']}] {r['detail']}\nspec: {json.dumps(s)}" for s, r in bad)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(function_specs(), min_size=3, max_size=3))
def test_random_functions_keep_values_and_the_memory_rule_in_every_mode(fuzzer, batch):
    found = fuzzer.run(batch, key="functions")
    assert not _failures(found), _failures(found)


def test_seeded_functions_of_the_long_profile(fuzzer):
    """The long profile's generator (a fixed set of graphs, each with its own flags)."""
    batch = [random_function(seed, structures=4) for seed in range(8)]
    found = fuzzer.run(batch, key="functions")
    assert not _failures(found), _failures(found)
