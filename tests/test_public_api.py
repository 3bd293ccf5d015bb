"""opgraph.public_api: the core modules plugins may import, documented and importable."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from opgraph.public_api import PUBLIC_MODULES, is_public_module

ROOT = Path(__file__).resolve().parent.parent


def _documented_modules() -> list[str]:
    """The modules of the table in docs/architecture.md, section "The public API"."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The public API", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `opgraph")]
    return [m for row in rows for m in re.findall(r"`(opgraph[\w.]*)`", row.split("|")[1])]


def test_the_list_has_no_repeats_and_is_documented():
    assert len(set(PUBLIC_MODULES)) == len(PUBLIC_MODULES)
    assert sorted(_documented_modules()) == sorted(PUBLIC_MODULES)


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_public_module_imports(name):
    assert importlib.import_module(name).__name__ == name


def test_is_public_module_is_exact():
    assert is_public_module("opgraph.tensor.basic")
    assert not is_public_module("opgraph.tensor.basic_more")  # re-exported by tensor.basic
    assert not is_public_module("opgraph.plugins.manager")  # names come from opgraph.plugins


def test_names_plugins_needed_have_public_homes():
    import opgraph.faces
    import opgraph.plugins
    import opgraph.plugins.phases
    from opgraph.autodiff.undefined import is_disconnected
    from opgraph.tensor import blas
    from opgraph.tensor.basic import AllocEmpty
    from opgraph.tensor.basic_more import AllocEmpty as InternalAllocEmpty
    from opgraph.tensor.elemwise import _is_disconnected

    assert opgraph.plugins.MissingPluginName is opgraph.faces.MissingPluginName
    assert opgraph.plugins.STANDARD_PHASES is opgraph.plugins.phases.STANDARD_PHASES
    assert opgraph.plugins.order_phases is opgraph.plugins.phases.order_phases
    assert AllocEmpty is InternalAllocEmpty
    # PyTensor's private names stay as aliases of the public ones
    assert blas.dot22 is blas._dot22 and blas.dot22scalar is blas._dot22scalar
    assert blas.batched_dot_op is blas._batched_dot
    disconnected = opgraph.graph.null_type.disconnected_type()
    assert is_disconnected(disconnected) and _is_disconnected(disconnected)
    assert not is_disconnected(opgraph.tensor.dscalar())
