"""Loading every plugin and compiling a model must not import SciPy's big submodules.

scipy.linalg and scipy.optimize cost about a second on this machine, scipy.sparse a
tenth of one; the linalg and sparse plugins name them only where an Op runs or a
rewrite needs them (lazy modules), though both plugins' rewrites are registered when
the rewrite database is built.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys
    import opgraph, opgraph.tensor as pt
    x, w = pt.matrix("x"), pt.matrix("w")
    loss = pt.mean(pt.tanh(pt.dot(x, w)) ** 2)
    opgraph.function([x, w], [loss, opgraph.grad(loss, w)])
    heavy = sorted(m for m in ("scipy.linalg", "scipy.optimize", "scipy.sparse")
                   if m in sys.modules)
    print(",".join(heavy))
    """
)


def test_compiling_a_model_loads_no_scipy_submodule() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=300, check=True)
    assert out.stdout.strip() == "", out.stdout
