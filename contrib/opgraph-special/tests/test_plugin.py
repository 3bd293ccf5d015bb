"""The entry point and its hooks, seen the way the core sees them."""

from __future__ import annotations

from importlib.metadata import entry_points

from opgraph_special import plugin
from opgraph_special import scalar as s

import opgraph.scalar as ps


def test_entry_point_is_declared() -> None:
    (ep,) = [e for e in entry_points(group="opgraph.plugins") if e.name == "opgraph-special"]
    assert ep.value == "opgraph_special.plugin"
    assert ep.load() is plugin


def test_op_impl_declines_other_backends_and_other_ops() -> None:
    assert plugin.opgraph_op_impl(op=s.erf, backend="jax") is None
    assert plugin.opgraph_op_impl(op=ps.exp, backend="c") is None


def test_op_impl_covers_every_function_libm_or_a_helper() -> None:
    from opgraph_special.c_impl import C_TEMPLATES, HELPERS, PERFORM_ONLY

    libm = (s.erf, s.erfc, s.gammaln, s.xlogy, s.xlog1py, s.gamma, s.j0, s.j1)
    assert {type(op) for op in libm} == set(C_TEMPLATES)
    covered = set(C_TEMPLATES) | set(HELPERS)
    assert covered | PERFORM_ONLY == {type(op) for op in s.SPECIAL_OPS.values()}
    assert not covered & PERFORM_ONLY


def test_plugin_module_is_cheap() -> None:
    import subprocess
    import sys

    code = (
        "import sys, opgraph_special.plugin;"
        "heavy = [m for m in ('opgraph_special.rewrites', 'opgraph_special.c_impl', 'scipy')"
        " if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_registering_the_rewrites_does_not_import_scipy() -> None:
    """Every compile builds the rewrite database: it must not pay SciPy's import."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import opgraph_special.rewrites\n"
        "import opgraph_special.scalar\n"
        "print('scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr
