"""Entry point discovery: the disk cache answers as importlib.metadata does, and sees installs."""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
import time
from pathlib import Path

import pytest

from opgraph.plugins import discovery
from opgraph.plugins.discovery import CACHE_FILE, DiscoveredEntryPoint, discover_entry_points

GROUP = "opgraph_tests.discovery"


def _metadata_view(group: str) -> list[tuple[str, str, str, str]]:
    return [(ep.name, ep.value, str(ep.dist.metadata["Name"]), str(ep.dist.version))
            for ep in importlib.metadata.entry_points(group=group)]


def _view(eps: list[DiscoveredEntryPoint]) -> list[tuple[str, str, str, str]]:
    return [(ep.name, ep.value, ep.dist_name, ep.dist_version) for ep in eps]


def _make_dist(site: Path, dist: str, module: str, version: str = "1.0") -> Path:
    info = site / f"{dist}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{dist} = {module}\n")
    return info


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "site"
    path.mkdir()
    monkeypatch.syspath_prepend(str(path))
    importlib.invalidate_caches()
    return path


def test_installed_plugins_match_importlib_metadata(tmp_path: Path) -> None:
    first = discover_entry_points("opgraph.plugins", cache_dir=tmp_path)
    assert (tmp_path / CACHE_FILE).exists()
    again = discover_entry_points("opgraph.plugins", cache_dir=tmp_path)
    assert _view(first) == _view(again) == _metadata_view("opgraph.plugins")


def test_a_current_cache_answers_without_importlib_metadata(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _make_dist(site, "fake_a", "json:dumps")
    assert _view(discover_entry_points(GROUP, cache_dir=tmp_path)) == [
        ("fake_a", "json:dumps", "fake_a", "1.0")]

    def refuse(group: str) -> list[DiscoveredEntryPoint]:
        raise AssertionError("the cache is current: importlib.metadata must not be asked")

    monkeypatch.setattr(discovery, "_from_metadata", refuse)
    (ep,) = discover_entry_points(GROUP, cache_dir=tmp_path)
    assert ep.load() is json.dumps


def test_a_new_distribution_is_found(site: Path, tmp_path: Path) -> None:
    _make_dist(site, "fake_a", "json:dumps")
    assert len(discover_entry_points(GROUP, cache_dir=tmp_path)) == 1
    _make_dist(site, "fake_b", "json:loads")
    importlib.invalidate_caches()
    found = discover_entry_points(GROUP, cache_dir=tmp_path)
    assert sorted(ep.name for ep in found) == ["fake_a", "fake_b"]
    assert _view(found) == _metadata_view(GROUP)


def test_an_edited_entry_points_file_is_read_again(site: Path, tmp_path: Path) -> None:
    info = _make_dist(site, "fake_a", "json:dumps")
    assert discover_entry_points(GROUP, cache_dir=tmp_path)[0].value == "json:dumps"
    text = info / "entry_points.txt"
    text.write_text(f"[{GROUP}]\nfake_a = json:loads\n")
    stamp = time.time_ns() + 10**9  # a later time stamp, whatever the file system's resolution
    os.utime(text, ns=(stamp, stamp))
    assert discover_entry_points(GROUP, cache_dir=tmp_path)[0].load() is json.loads


def test_an_unwritable_cache_directory_only_means_asking_again(site: Path, tmp_path: Path) -> None:
    _make_dist(site, "fake_a", "json:dumps")
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    found = discover_entry_points(GROUP, cache_dir=blocker)
    assert _view(found) == [("fake_a", "json:dumps", "fake_a", "1.0")]


def test_a_corrupt_cache_file_is_replaced(site: Path, tmp_path: Path) -> None:
    _make_dist(site, "fake_a", "json:dumps")
    (tmp_path / CACHE_FILE).write_text("{not json")
    assert len(discover_entry_points(GROUP, cache_dir=tmp_path)) == 1
    assert json.loads((tmp_path / CACHE_FILE).read_text())


def test_load_resolves_dotted_attributes_and_ignores_extras() -> None:
    ep = DiscoveredEntryPoint("x", "os:path.join [extra]", GROUP)
    assert ep.load() is os.path.join
    assert DiscoveredEntryPoint("m", "json", GROUP).load() is sys.modules["json"]
