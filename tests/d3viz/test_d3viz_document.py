"""The viewer's document and layout, without a browser or a linker."""

from __future__ import annotations

import itertools
import json
import re

import opgraph.tensor as pt
from opgraph.d3viz import d3write, graph_document, render_page
from opgraph.d3viz.layout import layout_document
from opgraph.graph.traversal import applys_between


def _graph():
    x = pt.dvector("x")
    w = pt.dmatrix("w")
    y = pt.tanh(pt.dot(w, x) + 1.0)
    return x, w, pt.sum(y * y)


def test_document_has_a_box_per_node_input_output_and_constant():
    x, w, out = _graph()
    doc = graph_document(out)
    kinds = [n["kind"] for n in doc["nodes"]]
    applies = list(applys_between([x, w], [out]))
    assert kinds.count("apply") == len(applies)
    assert kinds.count("input") == 2 and kinds.count("output") == 1
    assert kinds.count("constant") >= 1
    ids = {n["id"] for n in doc["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids for e in doc["edges"])
    labels = {n["label"] for n in doc["nodes"]}
    assert {"x", "w"} <= labels
    w_box = next(n for n in doc["nodes"] if n["label"] == "w")
    assert w_box["shape"] == "(?, ?)" and w_box["dtype"] == "float64"


def test_layout_points_every_edge_down_and_keeps_rows_apart():
    doc = layout_document(graph_document(_graph()[2]))
    by_id = {n["id"]: n for n in doc["nodes"]}
    for e in doc["edges"]:
        assert by_id[e["source"]]["y"] < by_id[e["target"]]["y"]
    rows: dict[float, list] = {}
    for n in doc["nodes"]:
        rows.setdefault(n["y"], []).append(n)
    for row in rows.values():
        row.sort(key=lambda n: n["x"])
        for a, b in itertools.pairwise(row):
            assert a["x"] + a["w"] <= b["x"]


def test_page_is_self_contained_and_embeds_the_document():
    doc = layout_document(graph_document(_graph()[2], title="my </script> graph"))
    page = render_page(doc)
    assert "<link" not in page and " src=" not in page
    urls = set(re.findall(r"https?://[^\s\"')]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}  # the SVG namespace, never fetched
    data = page.split('id="graph-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(data.replace("<\\/", "</"))["title"] == "my </script> graph"


def test_d3write_writes_dot(tmp_path):
    out = d3write(_graph()[2], tmp_path / "g.dot")
    text = open(out, encoding="utf-8").read()
    assert text.startswith("digraph opgraph {") and "->" in text and "Tanh" in text


def test_d3viz_module_path_and_text_helpers():
    import importlib
    import json

    import opgraph.d3viz as package

    mod = importlib.import_module("opgraph.d3viz.d3viz")
    assert package.d3viz is mod.d3viz and package.d3write is mod.d3write
    text = mod.safe_json({"a": "</script><b>"})
    assert "<" not in text and json.loads(text) == {"a": "</script><b>"}
    assert mod.replace_patterns("x-y-z", {"-": "+", "z": 1}) == "x+y+1"
