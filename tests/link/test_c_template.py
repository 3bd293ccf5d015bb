"""opgraph.link.c.template: fixed C read from package data, ``@NAME@`` placeholders filled."""

from __future__ import annotations

import sys

import pytest

from opgraph.link.c.template import c_source, fill, read_c_file


def test_fill_replaces_every_placeholder():
    text = "typedef @INT@ og_int;\nextern void @PREFIX@gemm@SUFFIX@(og_int);\n"
    got = fill(text, INT="long long", PREFIX="scipy_", SUFFIX="64_")
    assert got == "typedef long long og_int;\nextern void scipy_gemm64_(og_int);\n"


def test_fill_leaves_c_operators_and_lowercase_alone():
    text = "/* x @ y */ int a = b @c@; @@"  # not placeholders: spaces, lower case, empty
    assert fill(text) == text


def test_missing_and_unused_values_name_the_template():
    with pytest.raises(ValueError, match=r"lapack.h: no value for placeholder\(s\) @N@"):
        fill("double a[@N@];", "lapack.h")
    with pytest.raises(ValueError, match=r"no placeholder for value\(s\) M"):
        fill("double a[@N@];", "lapack.h", N="3", M="4")


def test_non_str_value_is_refused():
    with pytest.raises(TypeError, match=r"@N@ must be a str, got int 3"):
        fill("double a[@N@];", N=3)  # type: ignore[arg-type]


@pytest.fixture
def c_package(tmp_path, monkeypatch):
    pkg = tmp_path / "og_fake_c_pkg"
    (pkg / "c").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "c" / "loop.h").write_text("static @T@ twice(@T@ x) { return x + x; }\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "og_fake_c_pkg"
    sys.modules.pop("og_fake_c_pkg", None)
    read_c_file.cache_clear()


def test_c_source_reads_package_data(c_package):
    assert c_source(c_package, "c/loop.h", T="double") == (
        "static double twice(double x) { return x + x; }\n"
    )
    with pytest.raises(ValueError, match=r"og_fake_c_pkg/c/loop.h: no value"):
        c_source(c_package, "c/loop.h")


def test_missing_file_and_bad_arguments(c_package):
    with pytest.raises(FileNotFoundError, match=r"no C file 'c/none.h' in package"):
        c_source(c_package, "c/none.h")
    with pytest.raises(TypeError, match=r"takes two str, got str and int"):
        read_c_file(c_package, 3)  # type: ignore[arg-type]
