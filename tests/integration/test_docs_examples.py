"""The documentation's examples run as tests.

Every page of ``docs/`` has its ```` ```python ```` blocks executed in order,
in one namespace per page (so a block can use what an earlier one defined).
A block directly after a ``<!-- test: skip -->`` line is shown but not run (a
fragment, or code that needs something a test machine may lack): skipping is
explicit, so a new page cannot go untested by accident.  A failing block
names its page and line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
SKIP_MARK = "<!-- test: skip -->"
_FENCE = re.compile(r"^```python\s*$")


def extract_blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, source) of each runnable python block of a page."""
    lines = text.splitlines()
    blocks: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        if _FENCE.match(lines[i].strip()):
            skipped = i > 0 and lines[i - 1].strip() == SKIP_MARK
            start = i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            if not skipped:
                blocks.append((start + 1, "\n".join(lines[start:j])))
            i = j + 1
            continue
        i += 1
    return blocks


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if extract_blocks(p.read_text(encoding="utf-8")))


def test_some_pages_are_tested() -> None:
    assert len(_pages()) >= 5


def test_extract_blocks_honours_the_skip_mark() -> None:
    page = "```python\na = 1\n```\n<!-- test: skip -->\n```python\nboom\n```\n```bash\nls\n```\n"
    assert extract_blocks(page) == [(2, "a = 1")]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_page_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    for line, source in extract_blocks(page.read_text(encoding="utf-8")):
        code = compile(source, f"{page.relative_to(DOCS)}:{line}", "exec")
        try:
            exec(code, namespace)  # running the documentation is the test
        except Exception as exc:
            raise AssertionError(
                f"docs/{page.relative_to(DOCS)}, block at line {line} failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
