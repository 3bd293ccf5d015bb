"""Machine facts kept on disk between processes (opgraph.factcache)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from opgraph.factcache import FILE_NAME, cached_machine_fact, uname_key


def test_a_fact_is_computed_once_and_read_back(tmp_path):
    calls = []

    def compute() -> str:
        calls.append(1)
        return "x86_64"

    assert cached_machine_fact(tmp_path, "processor|k", compute) == "x86_64"
    assert cached_machine_fact(tmp_path, "processor|k", compute) == "x86_64"
    assert calls == [1]
    assert json.loads((tmp_path / FILE_NAME).read_text()) == {"processor|k": "x86_64"}
    # another key (another machine, compiler or time) is asked again; both are kept
    assert cached_machine_fact(tmp_path, "processor|other", lambda: "arm64") == "arm64"
    assert json.loads((tmp_path / FILE_NAME).read_text()) == {
        "processor|k": "x86_64", "processor|other": "arm64"}


def test_a_corrupt_file_is_replaced_and_an_unwritable_directory_only_costs_time(tmp_path):
    (tmp_path / FILE_NAME).write_text("{not json")
    assert cached_machine_fact(tmp_path, "k", lambda: "v") == "v"
    assert json.loads((tmp_path / FILE_NAME).read_text()) == {"k": "v"}
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    assert cached_machine_fact(blocked, "k", lambda: "w") == "w"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".facts-")]


@pytest.mark.skipif(not hasattr(os, "uname"), reason="POSIX uname")
def test_the_uname_key_names_the_kernel_and_machine():
    u = os.uname()
    assert u.release in uname_key() and u.machine in uname_key()


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
