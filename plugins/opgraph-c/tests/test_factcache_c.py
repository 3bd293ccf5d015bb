"""A new process's first C compile spawns nothing once the machine facts are on disk
(opgraph.factcache: ``uname -p``, ``cc --version`` and ``ldconfig`` each cost a
subprocess; the compiler's identity is part of every cache key)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def test_a_warm_process_compiles_without_a_subprocess(tmp_path):
    """The first compile in a new process spawns nothing once the facts are on disk
    (``uname -p``, ``cc --version`` and ``ldconfig`` cost tens of milliseconds)."""
    script = textwrap.dedent("""
        import subprocess
        spawned = []
        real = subprocess.Popen.__init__
        def spy(self, args, *a, **k):
            spawned.append(args)
            real(self, args, *a, **k)
        subprocess.Popen.__init__ = spy
        import opgraph, opgraph.tensor as pt
        x = pt.dvector("x")
        opgraph.function([x], pt.exp(x) * 2)([1.0])
        print(repr(spawned))
    """)
    env = {**os.environ, "OPGRAPH_FLAGS": f"base_compiledir={tmp_path}"}
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=600, check=True)
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, timeout=600, check=True)
    assert first.stdout.strip() != "[]"  # the facts were learned (and the module built)
    assert second.stdout.strip() == "[]", second.stdout
