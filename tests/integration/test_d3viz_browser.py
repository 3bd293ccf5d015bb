"""The graph viewer in a real headless browser: the page loads without script
errors, shows one box per node, and opens inner graphs (OpFromGraph, Scan).

Needs Chromium (or Chrome) on PATH; without one the browser tests are skipped
(docs/viewer.md says how to install it).  The document tests run anyway.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
from opgraph.compile.builders import OpFromGraph

import opgraph
import opgraph.tensor as pt
from opgraph.d3viz import d3viz, graph_document
from opgraph.scan import scan

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def _browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _body_attributes(html_path, fragment: str = "") -> dict[str, str]:
    browser = _browser()
    if browser is None:
        pytest.skip("no Chromium/Chrome on PATH (apt install chromium); see docs/viewer.md")
    url = html_path.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    out = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
         "--v=0", "--dump-dom", url],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    console_errors = [line for line in out.stderr.splitlines()
                      if "CONSOLE" in line and ("Uncaught" in line or "Error" in line)]
    assert console_errors == []
    body = re.search(r"<body([^>]*)>", out.stdout)
    assert body is not None, out.stdout[:500]
    return dict(re.findall(r'data-([a-z]+)="([^"]*)"', body.group(1)))


def _mlp_function():
    a, b = pt.dvector("a"), pt.dmatrix("b")
    layer = OpFromGraph([a, b], [pt.tanh(pt.dot(b, a))], name="layer")
    x, w = pt.dvector("x"), pt.dmatrix("w")
    loss = layer(layer(x, w), w).sum()
    f = opgraph.function([x, w], [loss, opgraph.grad(loss, w)], profile=True)
    f(np.ones(3), np.eye(3))
    return f


def test_compiled_function_page_loads_and_shows_every_node(tmp_path):
    f = _mlp_function()
    doc = graph_document(f)
    assert doc["profiled"] and any("time" in n for n in doc["nodes"])
    page = tmp_path / "mlp.html"
    d3viz(f, page)
    attrs = _body_attributes(page)
    assert attrs["ready"] == "1" and attrs["errors"] == "0"
    assert int(attrs["nodes"]) == len(doc["nodes"])
    assert int(attrs["edges"]) == len(doc["edges"])
    assert int(attrs["nodes"]) == len(f.maker.fgraph.apply_nodes) + sum(
        n["kind"] != "apply" for n in doc["nodes"])


def test_inner_graphs_open_opfromgraph_and_scan(tmp_path):
    x = pt.dvector("x")
    h0 = pt.dscalar("h0")
    hs = scan(lambda x_t, h: pt.tanh(h + x_t), sequences=x, outputs_info=h0,
              return_updates=False)
    f = opgraph.function([x, h0], hs[-1], mode="FAST_COMPILE")
    doc = graph_document(f)
    scan_box = next(n for n in doc["nodes"] if n.get("op_class") == "Scan")
    page = tmp_path / "scan.html"
    d3viz(f, page)
    top = _body_attributes(page)
    assert top["errors"] == "0" and int(top["nodes"]) == len(doc["nodes"])
    inner = _body_attributes(page, scan_box["id"])
    assert inner["depth"] == "1" and inner["errors"] == "0"
    assert int(inner["nodes"]) == len(scan_box["inner"]["nodes"])

    g = _mlp_function()
    gdoc = graph_document(g)
    ofg = next(n for n in gdoc["nodes"] if n.get("op_class") == "OpFromGraph")
    page2 = tmp_path / "ofg.html"
    d3viz(g, page2)
    opened = _body_attributes(page2, ofg["id"])
    assert opened["depth"] == "1" and int(opened["nodes"]) == len(ofg["inner"]["nodes"])
