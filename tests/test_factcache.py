"""Machine facts kept on disk between processes (opgraph.factcache)."""

from __future__ import annotations

import json
import os

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
