"""A Mode fixes its linker, optimizer and plugins; the other flags are read per compile.

docs/architecture.md ("A Mode carries its plugin manager"): as in PyTensor,
``config.change_flags`` around ``function(..., mode=m)`` applies to that compile
even for a Mode built before the block.
"""

import numpy as np

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import Mode, get_mode
from opgraph.config import config
from opgraph.scalar.composite import Composite


def _fused(fn) -> bool:
    return any(
        isinstance(getattr(node.op, "scalar_op", None), Composite)
        for node in fn.maker.fgraph.apply_nodes
    )


def test_flags_of_the_compile_apply_to_a_mode_built_before():
    x = pt.dvector("x")
    y = pt.exp(x) + pt.sin(x) * 2
    mode = get_mode("FAST_RUN")
    before = opgraph.function([x], y, mode=mode)
    with config.change_flags(optimizer_excluding="fusion"):
        inside = opgraph.function([x], y, mode=mode)
    after = opgraph.function([x], y, mode=mode)
    assert _fused(before) and not _fused(inside) and _fused(after)
    v = np.linspace(-1.0, 1.0, 7)
    expected = np.exp(v) + np.sin(v) * 2
    for fn in (before, inside, after):
        np.testing.assert_allclose(fn(v), expected, rtol=1e-12)


def test_the_linker_is_fixed_when_the_mode_is_built():
    with config.change_flags(linker="py"):
        mode = Mode()
    assert mode.linker_spec == "py"
    assert mode.linker_name == "py"  # resolved after the block: still the one read at creation
