"""A package whose tests use a pytest plugin's marker lists that plugin in its ``test`` extra,
so its nox session installs it and the marker does what it says (``timeout`` limits hold).

Without pytest-timeout, ``@pytest.mark.timeout(120)`` is only a warning ("Unknown
pytest.mark.timeout") and the test may hang for ever.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: marker -> the distribution that gives it a meaning
PLUGIN_MARKERS = {"timeout": "pytest-timeout"}


def _packages() -> list[Path]:
    return [ROOT, *sorted(p.parent for p in ROOT.glob("*/*/pyproject.toml"))]


def _test_extra(package: Path) -> list[str]:
    data = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))
    test = data.get("project", {}).get("optional-dependencies", {}).get("test", [])
    return [re.match(r"[A-Za-z0-9._-]+", req).group(0).lower() for req in test]


def _markers_used(package: Path) -> set[str]:
    """Names X of ``pytest.mark.X`` in the code (not the strings) of the package's tests."""
    used = set()
    for path in (package / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                    and node.value.attr == "mark" and isinstance(node.value.value, ast.Name)
                    and node.value.value.id == "pytest"):
                used.add(node.attr)
    return used


@pytest.mark.parametrize("package", _packages(), ids=lambda p: p.name if p != ROOT else "core")
def test_plugin_markers_come_with_their_plugin(package: Path) -> None:
    if not (package / "tests").is_dir():
        pytest.skip(f"{package.name} has no tests/ directory")
    missing = [f"{dist} (for @pytest.mark.{marker})"
               for marker, dist in PLUGIN_MARKERS.items()
               if marker in _markers_used(package) and dist not in _test_extra(package)]
    assert not missing, f"{package / 'pyproject.toml'}: add to the test extra: {missing}"


def test_the_check_sees_the_markers_in_use() -> None:
    c_plugin = ROOT / "plugins" / "opgraph-c"
    assert "timeout" in _markers_used(c_plugin) and "pytest-timeout" in _test_extra(c_plugin)
