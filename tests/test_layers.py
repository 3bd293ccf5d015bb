"""The layer contract (tools/layers.py): it passes on the repository and fails on violations."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def layers():
    spec = importlib.util.spec_from_file_location("opgraph_layers_tool", ROOT / "tools/layers.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while building classes
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _fake_core(tmp_path: Path, files: dict[str, str]) -> Path:
    base = {
        "core/opgraph/__init__.py": "",
        "core/opgraph/graph/__init__.py": "",
        "core/opgraph/graph/basic.py": "X = 1\n",
        "core/opgraph/tensor/__init__.py": "",
        "core/opgraph/tensor/basic.py": "from opgraph.graph.basic import X\n",
        "core/opgraph/compile/__init__.py": "",
        "core/opgraph/compile/mode.py": "from opgraph.tensor.basic import X\n",
    }
    _write(tmp_path, {**base, **files})
    return tmp_path


def _problems(layers, root: Path, debt: dict[str, int] | None = None) -> list[str]:
    return layers.check_core(layers.scan_tree(root / "core", "opgraph"), debt or {}, root)


def test_repository_satisfies_the_contract(layers):
    modules = layers.core_modules()
    problems = layers.check_core(modules, layers.read_debt()) + layers.check_packages()
    assert problems == []


def test_clean_layering_passes(layers, tmp_path):
    assert _problems(layers, _fake_core(tmp_path, {})) == []


def test_upward_import_at_module_top_fails(layers, tmp_path):
    text = "from opgraph.tensor import basic\n"
    root = _fake_core(tmp_path, {"core/opgraph/graph/basic.py": text})
    problems = _problems(layers, root)
    assert len(problems) == 1
    assert "opgraph.graph.basic (layer 'graph') imports opgraph.tensor" in problems[0]
    assert "upward import" in problems[0]


def test_relative_upward_import_fails(layers, tmp_path):
    root = _fake_core(tmp_path, {"core/opgraph/tensor/basic.py": "from ..compile import mode\n"})
    assert any("imports opgraph.compile (package of opgraph.compile.mode)" in p
               for p in _problems(layers, root))


def test_importing_a_submodule_runs_its_package(layers, tmp_path):
    # graph -> compile.helpers (nothing above graph in it) still runs compile/__init__.
    root = _fake_core(tmp_path, {
        "core/opgraph/compile/helpers.py": "Y = 2\n",
        "core/opgraph/graph/basic.py": "from opgraph.compile.helpers import Y\n",
    })
    problems = _problems(layers, root)
    expected = "imports opgraph.compile (package of opgraph.compile.helpers)"
    assert any(expected in p for p in problems)


def test_type_checking_import_is_not_a_dependency(layers, tmp_path):
    text = """\
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from opgraph.compile.mode import X
    """
    assert _problems(layers, _fake_core(tmp_path, {"core/opgraph/graph/basic.py": text})) == []


def test_function_level_import_counts_against_the_debt(layers, tmp_path):
    text = """\
        def f():
            from opgraph.tensor.basic import X
            return X
    """
    root = _fake_core(tmp_path, {"core/opgraph/graph/basic.py": text})
    (problem,) = _problems(layers, root)
    assert "1 hidden imports" in problem and "0 allowed" in problem
    # Recorded debt lets it pass; one more import over the count fails again.
    assert _problems(layers, root, {"opgraph.graph.basic": 1}) == []
    text2 = textwrap.dedent(text) + "\n\ndef g():\n    import opgraph.compile.mode\n"
    root = _fake_core(tmp_path, {"core/opgraph/graph/basic.py": text2})
    assert len(_problems(layers, root, {"opgraph.graph.basic": 1})) == 1


def test_bottom_and_guarded_imports_are_hidden(layers, tmp_path):
    text = """\
        def f():
            return 1

        from opgraph.graph.basic import X

        try:
            import opgraph.tensor.basic
        except ImportError:
            pass
    """
    root = _fake_core(tmp_path, {"core/opgraph/compile/mode.py": text})
    info = layers.scan_tree(root / "core", "opgraph")["opgraph.compile.mode"]
    assert sorted(i.kind for i in layers.hidden_imports(info)) == ["bottom", "guarded"]


def test_plugin_import_from_core_fails(layers, tmp_path):
    root = _fake_core(tmp_path, {"core/opgraph/tensor/basic.py": "import opgraph_numpy\n"})
    assert any("the core imports plugin opgraph_numpy" in p for p in _problems(layers, root))


def test_class_name_dispatch_fails(layers, tmp_path):
    text = "def f(op):\n    return type(op).__name__ in ('Subtensor', 'Alloc')\n"
    root = _fake_core(tmp_path, {"core/opgraph/tensor/basic.py": text})
    assert any("class-name string" in p for p in _problems(layers, root))


def test_module_getattr_fails_unless_recorded(layers, tmp_path):
    text = "def __getattr__(name):\n    raise AttributeError(name)\n"
    root = _fake_core(tmp_path, {"core/opgraph/tensor/shape.py": text})
    assert any("module __getattr__" in p for p in _problems(layers, root))
    assert _problems(layers, root, {"opgraph.tensor.shape:__getattr__": 1}) == []


def test_size_cap(layers, tmp_path):
    text = "X = 1\n" * (layers.MAX_LINES + 1)
    root = _fake_core(tmp_path, {"core/opgraph/tensor/basic.py": text})
    assert any("over the cap" in p for p in _problems(layers, root))


def test_cycles_are_found(layers, tmp_path):
    root = _fake_core(tmp_path, {
        "core/opgraph/graph/basic.py": "def f():\n    from opgraph.tensor.basic import X\n",
    })
    modules = layers.scan_tree(root / "core", "opgraph")
    assert layers.cycles(layers.import_graph(modules)) == []
    found = layers.cycles(layers.import_graph(modules, with_functions=True))
    assert found == [["opgraph.graph.basic", "opgraph.tensor.basic"]]


def test_plugin_internal_and_undeclared_imports_fail(layers, tmp_path):
    def package(name: str, deps: list[str], files: dict[str, str]) -> dict[str, str]:
        mod = name.replace("-", "_")
        toml = f'[project]\nname = "{name}"\ndependencies = {deps!r}\n'.replace("'", '"')
        out = {f"plugins/{name}/pyproject.toml": toml, f"plugins/{name}/src/{mod}/__init__.py": ""}
        out.update({f"plugins/{name}/src/{mod}/{k}": v for k, v in files.items()})
        return out

    _write(tmp_path, {
        **package("opgraph-a", ["opgraph"], {"inner.py": "X = 1\n"}),
        **package("opgraph-b", ["opgraph", "opgraph-a"], {
            "ok.py": "from opgraph_a import X\n",
            "bad.py": "from opgraph_a.inner import X\n",
        }),
        **package("opgraph-c", ["opgraph"], {"use.py": "import opgraph_a\n"}),
    })
    problems = layers.check_packages(tmp_path)
    assert len(problems) == 2
    assert any("opgraph_b.bad imports opgraph_a.inner.X, an internal module" in p for p in problems)
    assert any("opgraph_c.use imports opgraph_a, which" in p for p in problems)


def test_lazy_exports_only_within_their_package(layers, tmp_path):
    inside = '_LAZY = {"X": "opgraph.graph.basic"}\n__getattr__, __dir__ = object(), object()\n'
    root = _fake_core(tmp_path, {"core/opgraph/graph/__init__.py": inside})
    assert _problems(layers, root) == []
    upward = '_LAZY = {"X": "opgraph.tensor.basic"}\n__getattr__, __dir__ = object(), object()\n'
    root = _fake_core(tmp_path, {"core/opgraph/graph/__init__.py": upward})
    assert any("module __getattr__" in p for p in _problems(layers, root))
