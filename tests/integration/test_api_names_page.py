"""docs/api/names.md lists exactly the public names of opgraph's main modules."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("api_names", ROOT / "docs/tools/api_names.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_page_is_generated_from_the_current_code() -> None:
    tool = _tool()
    page = (ROOT / "docs/api/names.md").read_text(encoding="utf-8")
    assert page == tool.render(), (
        "docs/api/names.md is stale: run `python docs/tools/api_names.py` and commit it"
    )


def test_every_name_of_dir_is_listed() -> None:
    tool = _tool()
    page = (ROOT / "docs/api/names.md").read_text(encoding="utf-8")
    for module_name in tool.MODULES:
        section = page.split(f"## `{module_name}` (", 1)[1].split("\n## ", 1)[0]
        listed = {line.split("`")[1] for line in section.splitlines() if line.startswith("| `")}
        assert listed == set(tool.public_names(module_name)), module_name
