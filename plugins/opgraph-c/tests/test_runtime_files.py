"""The fixed runtime C lives in package-data files, and profiling sections resolve cleanly."""

import tomllib
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path

import pytest
from opgraph_c.codegen import runtime_c

PLUGIN_ROOT = Path(__file__).resolve().parents[1]


def test_every_runtime_file_is_declared_as_package_data():
    config = tomllib.loads((PLUGIN_ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["opgraph_c.codegen"]
    folder = resources.files("opgraph_c.codegen").joinpath("runtime")
    names = sorted(p.name for p in folder.iterdir() if p.is_file())
    assert names == sorted(runtime_c.RUNTIME_FILES)
    for name in names:
        assert any(fnmatch(f"runtime/{name}", g) for g in globs), name


def test_runtime_texts_come_from_the_files():
    assert runtime_c.RUNTIME == runtime_c.runtime_file("state.c")
    assert "#include <Python.h>" in runtime_c.PRELUDE
    assert "og_pool_malloc" in runtime_c.POOL
    with pytest.raises(ValueError, match=r"unknown runtime C file 'nope\.c'"):
        runtime_c.runtime_file("nope.c")


def test_profile_sections_are_resolved_both_ways():
    plain, timed = runtime_c.runtime_source(False), runtime_c.runtime_source(True)
    for text in (plain, timed):
        assert "#ifdef OG_PROFILE" not in text and "#endif" not in text
    assert "prof_obj" in timed and "prof_obj" not in plain
    assert "built without profiling" in plain and "built without profiling" not in timed
    assert runtime_c.profile_define(True) == "#define OG_PROFILE 1\n"
    assert runtime_c.profile_define(False) == ""


def test_select_profile_keeps_the_chosen_branch_and_rejects_bad_nesting():
    text = "a\n#ifdef OG_PROFILE\nb\n#else\nc\n#endif\nd\n#ifdef OG_PROFILE\ne\n#endif\n"
    assert runtime_c.select_profile(text, True) == "a\nb\nd\ne\n"
    assert runtime_c.select_profile(text, False) == "a\nc\nd\n"
    with pytest.raises(ValueError, match="without #endif"):
        runtime_c.select_profile("#ifdef OG_PROFILE\nx\n", True)
    with pytest.raises(ValueError, match="nested"):
        runtime_c.select_profile("#ifdef OG_PROFILE\n#ifdef OG_PROFILE\n#endif\n", True)
