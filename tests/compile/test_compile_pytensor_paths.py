"""Names PyTensor's ``compile`` package and ``compile.rebuild`` re-export: the same objects."""

from __future__ import annotations

import opgraph.compile as c
from opgraph.compile.aliasing import add_supervisor_to_fgraph
from opgraph.compile.ops import FromFunctionOp
from opgraph.compile.prepare import UnusedInputError
from opgraph.compile.rebuild import UnusedInputError as RebuildUnusedInputError
from opgraph.compile.rebuild import rebuild_collect_shared


def test_compile_reexports():
    assert c.rebuild_collect_shared is rebuild_collect_shared
    assert c.add_supervisor_to_fgraph is add_supervisor_to_fgraph
    assert c.FromFunctionOp is FromFunctionOp
    assert RebuildUnusedInputError is UnusedInputError is c.UnusedInputError
    assert {"rebuild_collect_shared", "FromFunctionOp"} <= set(c.__all__)


def test_load_back_finds_an_object_by_module_and_name():
    import math

    import pytest

    from opgraph.compile.ops import load_back

    assert load_back("math", "sqrt") is math.sqrt
    with pytest.raises(AttributeError):
        load_back("math", "no_such_function")
