"""``import pytensor`` returns opgraph's module objects once the distribution is installed.

The checks that depend on interpreter start-up (the ``.pth`` line, an installed
PyTensor being shadowed, ``OPGRAPH_AS_PYTENSOR=0``) run in fresh interpreters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import opgraph_pytensor
import pytest
from opgraph_pytensor import _finder

import opgraph
import opgraph.tensor


def run_python(code: str, env: dict[str, str] | None = None,
               path: list[str] | None = None) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter (``path`` prepended to PYTHONPATH); fails loudly."""
    full_env = {k: v for k, v in os.environ.items() if k != _finder.ENV_VAR}
    full_env.update(env or {})
    if path:
        full_env["PYTHONPATH"] = os.pathsep.join([*path, full_env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def fake_pytensor(tmp_path: Path) -> Path:
    """A directory holding a package named ``pytensor`` (stands for an installed wheel)."""
    pkg = tmp_path / "pytensor"
    (pkg / "tensor").mkdir(parents=True)
    (pkg / "__init__.py").write_text("REAL_PYTENSOR = True\n__version__ = '3.0.7'\n")
    (pkg / "tensor" / "__init__.py").write_text("REAL_PYTENSOR = True\n")
    return tmp_path


def test_pytensor_is_opgraph_in_this_process() -> None:
    import pytensor
    import pytensor.graph.basic
    import pytensor.tensor
    from pytensor.tensor.type import TensorType

    assert pytensor is opgraph
    assert pytensor.tensor is opgraph.tensor
    assert sys.modules["pytensor.graph.basic"] is sys.modules["opgraph.graph.basic"]
    assert TensorType is opgraph.tensor.TensorType  # one class identity
    # opgraph's modules keep their own spec (reload and pickling read it)
    assert opgraph.tensor.__spec__.name == "opgraph.tensor"
    assert pytensor.__file__ == opgraph.__file__


def test_plugin_served_paths_are_the_plugin_modules() -> None:
    import opgraph.compile.builders
    import opgraph.graph.rewriting.db
    import pytensor.graph.rewriting.db as db_face
    from pytensor.compile.builders import OpFromGraph

    assert db_face is opgraph.graph.rewriting.db
    assert OpFromGraph is opgraph.compile.builders.OpFromGraph


def test_missing_module_names_the_pytensor_path_and_the_switch() -> None:
    with pytest.raises(ModuleNotFoundError) as info:
        __import__("pytensor.no_such_module")
    assert info.value.name == "pytensor.no_such_module"
    assert "opgraph.no_such_module" in str(info.value)
    assert _finder.ENV_VAR in str(info.value)


def test_install_is_idempotent_and_first_on_meta_path() -> None:
    first = opgraph_pytensor.install()
    assert opgraph_pytensor.install() is first
    assert sum(isinstance(f, opgraph_pytensor.PyTensorAlias) for f in sys.meta_path) == 1
    assert sys.meta_path.index(first) < next(
        i for i, f in enumerate(sys.meta_path) if getattr(f, "__name__", "") == "PathFinder"
    )


@pytest.mark.parametrize(("value", "enabled"), [
    (None, True), ("1", True), ("yes", True), ("0", False), ("false", False),
    ("No", False), (" off ", False),
])
def test_environment_switch(value: str | None, enabled: bool) -> None:
    env = {} if value is None else {_finder.ENV_VAR: value}
    assert opgraph_pytensor.enabled_by_environment(env) is enabled


def test_start_up_file_is_installed() -> None:
    purelib = Path(sysconfig.get_paths()["purelib"])
    pth = purelib / "opgraph_pytensor.pth"
    assert pth.is_file(), f"{pth} is missing: the distribution was installed without it"
    assert "install_from_environment" in pth.read_text()


def test_wins_over_an_installed_pytensor(fake_pytensor: Path) -> None:
    result = run_python("""
        import pytensor, opgraph, pytensor.tensor
        assert pytensor is opgraph, pytensor.__file__
        assert not hasattr(pytensor.tensor, "REAL_PYTENSOR")
        print(pytensor.__file__)
    """, path=[str(fake_pytensor)])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == opgraph.__file__


def test_switched_off_the_installed_pytensor_is_imported(fake_pytensor: Path) -> None:
    result = run_python("""
        import sys, pytensor
        assert pytensor.REAL_PYTENSOR
        assert "opgraph" not in sys.modules
        print("real")
    """, env={_finder.ENV_VAR: "0"}, path=[str(fake_pytensor)])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "real"


def test_start_up_does_not_import_opgraph() -> None:
    result = run_python("import sys; print('opgraph' in sys.modules)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_opgraph_plugins_lists_the_layer() -> None:
    result = subprocess.run([sys.executable, "-m", "opgraph.cli", "plugins", "--json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    entries = json.loads(result.stdout)
    names = {e["name"]: e for e in (entries if isinstance(entries, list) else entries["plugins"])}
    assert "opgraph-pytensor" in names
    assert names["opgraph-pytensor"]["status"] == "ok"


def test_opgraph_pytensor_command_reports_the_state() -> None:
    result = subprocess.run([sys.executable, "-m", "opgraph.cli", "pytensor", "--json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state["active"] is True
    assert state["pytensor_is_opgraph"] is True
    assert state["pytensor_api"] == opgraph_pytensor.PYTENSOR_VERSION == "3.0.7"


def test_importing_a_shadowed_submodule_keeps_the_package_name() -> None:
    """``pytensor.tensor.shape`` is the function, as in PyTensor, even after
    ``import pytensor.tensor.shape`` (PyMC imports it, then calls ``pt.shape(x)``)."""
    result = run_python("""
        import pytensor.tensor as pt
        import pytensor.tensor.shape
        import pytensor.tensor.shape as mod
        import opgraph.tensor.shape
        import sys
        print(callable(pt.shape), mod is pt.shape,
              sys.modules["pytensor.tensor.shape"] is sys.modules["opgraph.tensor.shape"])
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "True"]


def test_pytensor_flags_are_adopted_under_opgraph_flags() -> None:
    env = {"PYTENSOR_FLAGS": "floatX=float32,on_unused_input=ignore",
           "OPGRAPH_FLAGS": "on_unused_input=warn"}
    opgraph_pytensor.adopt_pytensor_settings(env)
    # PyTensor's first, opgraph's after: a later item wins, so opgraph's own settings win
    assert env["OPGRAPH_FLAGS"] == "floatX=float32,on_unused_input=ignore,on_unused_input=warn"
    opgraph_pytensor.adopt_pytensor_settings(env)  # a child process: nothing added twice
    assert env["OPGRAPH_FLAGS"].count("floatX") == 1


def test_pytensor_rc_is_read_before_opgraph_rc(tmp_path: Path) -> None:
    env = {"PYTENSORRC": str(tmp_path / "a.rc")}
    opgraph_pytensor.adopt_pytensor_settings(env)
    assert env["OPGRAPHRC"] == os.pathsep.join([str(tmp_path / "a.rc"), "~/.opgraphrc"])
    untouched: dict[str, str] = {"HOME": str(tmp_path)}
    opgraph_pytensor.adopt_pytensor_settings(untouched)
    assert "OPGRAPH_FLAGS" not in untouched


def test_pytensor_flags_configure_the_imported_pytensor(tmp_path: Path) -> None:
    rc = tmp_path / "pytensorrc"
    rc.write_text("[global]\non_unused_input = ignore\n")
    result = run_python("""
        import pytensor, pytensor.tensor as pt
        print(pytensor.config.floatX, pt.vector("x").dtype, pytensor.config.on_unused_input)
    """, env={"PYTENSOR_FLAGS": "floatX=float32", "PYTENSORRC": str(rc)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["float32", "float32", "ignore"]
    off = run_python("import opgraph; print(opgraph.config.floatX)",
                     env={"PYTENSOR_FLAGS": "floatX=float32", _finder.ENV_VAR: "0"})
    assert off.stdout.split() == ["float64"], off.stderr  # the layer off: PyTensor's own
