"""Core gradient tests evaluate graphs with each node's ``perform``.

They must pass without any linker plugin (the core nox session installs
none), and they test the gradients, not a backend: so the evaluator that
``verify_grad`` and ``compile_callable`` fall back to is used even when a
linker happens to be installed.  tests/integration/test_gradient_numeric.py
runs the same kind of checks through ``function()``.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _perform_evaluator(monkeypatch: pytest.MonkeyPatch) -> None:
    import opgraph.autodiff.evaluate as evaluate

    monkeypatch.setattr(evaluate, "_have_linker", lambda: False)
