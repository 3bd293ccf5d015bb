"""tools/check_docs.py: it passes on the repository and finds each kind of stale statement."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tool():
    path = ROOT / "tools" / "check_docs.py"
    spec = importlib.util.spec_from_file_location("opgraph_check_docs", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


def _project(root: Path, rel: str, name: str) -> None:
    _write(root, f"{rel}/pyproject.toml", f'[project]\nname = "{name}"\n')


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A repository with a core, one plugin declaring mode FAST and linker fast, and docs."""
    _project(tmp_path, ".", "opgraph")
    _project(tmp_path, "plugins/opgraph-fast", "opgraph-fast")
    _project(tmp_path, "plugins/opgraph-extra", "opgraph-extra")
    _write(tmp_path, "core/opgraph/compile/resolver.py", """
        FAST_RUN = "FAST_RUN"
        STANDARD_MODES = {FAST_RUN: None}
        PREDEFINED_MODE_TARGETS = {"DebugMode": "x:DebugMode"}
        """)
    _write(tmp_path, "core/opgraph/compile/linkers.py", """
        BACKEND_PLUGINS = {"JAX": "opgraph-jax", "jax": "opgraph-jax"}
        LINKER_ALIASES = {"c|py": None}
        """)
    _write(tmp_path, "plugins/opgraph-fast/src/opgraph_fast/plugin.py", """
        '''Example in a docstring: ModeRecord("NOT_REAL") does not count.'''
        def opgraph_modes():
            return [ModeRecord("FAST", linkers=("fast",))]
        def opgraph_linkers():
            return [LinkerRecord("fast", "opgraph_fast.linker:FastLinker")]
        class FastLinker:
            pass
        def setup(parser):
            parser.add_argument("--quick")
        """)
    install = "pip install . ./plugins/opgraph-fast"
    _write(tmp_path, "README.md", f"```bash\n{install} && opgraph demo\n```\n")
    _write(tmp_path, "docs/index.md", f"""
        ```bash
        {install}
        ```

        | distribution | provides |
        |---|---|
        | `opgraph` | the core |
        | `opgraph-fast` | mode `FAST`, linker `fast` |
        """)
    return tmp_path


def test_the_repository_passes(tool, capsys) -> None:
    assert tool.main([str(ROOT)]) == 0, capsys.readouterr().out


def test_a_consistent_tiny_repository_passes(tool, tiny: Path, capsys) -> None:
    _write(tiny, "docs/modes.md", """
        Use `mode="fast"` (names are case-insensitive), `get_mode("DebugMode")`,
        `OPGRAPH_FLAGS="mode=FAST_RUN,linker=c|py"`, `Mode(linker="fast")`, mode `"JAX"`,
        the `FastLinker` class, `np.pad(x, mode="symmetric")`, `opgraph demo --quick`.
        register_mode("MINE", m); function(..., mode="MINE"); mode="NO_SUCH_MODE" fails.

        | name | what |
        |---|---|
        | `FAST`, `fast` | the plugin's mode and linker |
        """)
    assert tool.main([str(tiny)]) == 0, capsys.readouterr().out


def test_a_package_missing_from_the_table(tool, tiny: Path) -> None:
    install = "pip install . ./plugins/opgraph-fast ./plugins/opgraph-extra"
    _write(tiny, "README.md", f"```bash\n{install}\n```\n")
    text = (tiny / "docs/index.md").read_text().replace(
        "pip install . ./plugins/opgraph-fast", install)
    (tiny / "docs/index.md").write_text(text)
    assert tool.check_packages(tiny) == [
        "docs/index.md's package table lacks opgraph-extra (README's command installs it)"]


def test_readme_and_index_install_different_packages(tool, tiny: Path) -> None:
    _write(tiny, "README.md", "```bash\npip install . ./plugins/opgraph-extra\n```\n")
    problems = tool.check_packages(tiny)
    assert any("install different packages" in p and "opgraph-extra" in p for p in problems)


def test_a_stale_table_row(tool, tiny: Path) -> None:
    index = tiny / "docs/index.md"
    index.write_text(index.read_text() + "| `opgraph-gone` | nothing |\n")
    # the row is inside the table only if no blank line separates it
    assert any("opgraph-gone" in p for p in tool.check_packages(tiny))


def test_unknown_mode_linker_class_and_option(tool, tiny: Path) -> None:
    _write(tiny, "docs/bad.md", """
        Compile with `mode="FASTEST"` or `get_mode("NOT_REAL")`,
        `Mode(linker="turbo")`, a `TurboLinker`, and run `opgraph demo --cold`.
        """)
    problems = tool.check_names(tiny) + tool.check_options(tiny)
    assert problems == [
        "docs/bad.md:2: mode 'FASTEST' is declared nowhere",
        "docs/bad.md:2: mode 'NOT_REAL' is declared nowhere",
        "docs/bad.md:3: linker 'turbo' is declared nowhere",
        "docs/bad.md:3: class TurboLinker is defined nowhere",
        "docs/bad.md:3: `opgraph demo --cold`: option --cold does not exist",
    ]


def test_install_paths_reads_continued_lines(tool) -> None:
    text = "```bash\npip install . ./plugins/a \\\n    ./contrib/b[test] && opgraph demo\n```"
    assert tool.install_paths(text) == [".", "./plugins/a", "./contrib/b"]


def test_every_declared_mode_and_linker_has_a_row(tool, tiny: Path) -> None:
    _write(tiny, "docs/modes.md", """
        | mode | linkers |
        |---|---|
        | `FAST_RUN` (default), `FAST` | `fast` |

        | linker | plugin |
        |---|---|
        | `py` | opgraph-numpy |
        """)
    assert tool.check_tables(tiny) == [
        "docs/modes.md: no table row for the linker 'fast' (opgraph-fast declares it)"]
