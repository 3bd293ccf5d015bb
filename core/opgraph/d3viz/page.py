"""The self-contained HTML page: the laid-out document as JSON plus a small script.

No network access is needed to open it (no CDN, no fonts): the drawing is
plain SVG made by the script below, with pan (drag), zoom (wheel), details of
a box on click, and inner graphs (OpFromGraph, Scan, fused Composites) opened
by double-click, with a breadcrumb trail back.  ``#n12`` in the URL opens the
inner graph of box ``n12`` at load.  When drawn, ``<body>`` carries
``data-ready``, ``data-nodes``, ``data-edges`` and ``data-errors`` (script
errors caught), which the browser test reads.
"""

from __future__ import annotations

import html
import json
from typing import Any

__all__ = ["render_page"]

_STYLE = """
body { margin: 0; font: 13px sans-serif; display: flex; height: 100vh; }
#main { flex: 1; display: flex; flex-direction: column; min-width: 0; }
#bar { padding: 6px 10px; background: #f2f2f2; border-bottom: 1px solid #ccc; }
#bar a { color: #1a5fb4; cursor: pointer; text-decoration: underline; }
#canvas { flex: 1; cursor: grab; }
#details { width: 300px; padding: 8px; border-left: 1px solid #ccc; overflow: auto;
           font-family: monospace; white-space: pre-wrap; }
.box rect { stroke: #333; stroke-width: 1; rx: 5; }
.box text { font-size: 12px; pointer-events: none; }
.box.inner rect { stroke-width: 3; stroke-dasharray: 6 2; }
.kind-apply rect { fill: #cfe2ff; } .kind-input rect { fill: #d1f2d1; }
.kind-shared rect { fill: #b8ece6; } .kind-constant rect { fill: #e6e6e6; }
.kind-output rect { fill: #ffe0b3; }
.edge { fill: none; stroke: #777; stroke-width: 1.2; marker-end: url(#arrow); }
.selected rect { stroke: #d00; stroke-width: 2.5; }
"""

_SCRIPT = r"""
(function () {
  "use strict";
  const body = document.body;
  body.dataset.errors = "0";
  window.addEventListener("error", function () {
    body.dataset.errors = String(Number(body.dataset.errors) + 1);
  });
  const SVG = "http://www.w3.org/2000/svg";
  const root = JSON.parse(document.getElementById("graph-data").textContent);
  const svg = document.getElementById("canvas");
  const view = document.getElementById("viewport");
  const details = document.getElementById("details");
  const crumbs = document.getElementById("crumbs");
  let stack = [{doc: root, title: root.title}];
  let scale = 1, tx = 20, ty = 20;

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function apply() {
    view.setAttribute("transform", "translate(" + tx + "," + ty + ") scale(" + scale + ")");
  }
  function describe(n) {
    const lines = [n.label, "kind: " + n.kind];
    if (n.op_class) lines.push("op: " + n.op_class);
    if (n.type) lines.push("type: " + n.type);
    if (n.shape) lines.push("shape: " + n.shape);
    if (n.outputs) n.outputs.forEach(function (o, i) {
      lines.push("output " + i + (o.name ? " (" + o.name + ")" : "") + ": " + o.type);
    });
    if (n.time !== undefined) lines.push("time: " + (n.time * 1e3).toFixed(3) + " ms");
    if (n.inner) lines.push("inner graph: " + n.inner.nodes.length +
                            " boxes (double-click to open)");
    return lines.join("\n");
  }
  function draw() {
    const doc = stack[stack.length - 1].doc;
    while (view.firstChild) view.removeChild(view.firstChild);
    const byId = {};
    doc.nodes.forEach(function (n) { byId[n.id] = n; });
    let edges = 0, boxes = 0;
    const maxTime = Math.max.apply(null, doc.nodes.map(function (n) { return n.time || 0; }));
    doc.edges.forEach(function (e) {
      const s = byId[e.source], t = byId[e.target];
      const x1 = s.x + s.w / 2, y1 = s.y + 36, x2 = t.x + t.w / 2, y2 = t.y;
      const p = el("path", {"class": "edge", d: "M" + x1 + "," + y1 + " C" + x1 + "," +
                  (y1 + 30) + " " + x2 + "," + (y2 - 30) + " " + x2 + "," + y2}, view);
      el("title", {}, p).textContent = (e.label ? e.label + ": " : "") + e.type + " " +
                                       e.shape;
      edges += 1;
    });
    doc.nodes.forEach(function (n) {
      const g = el("g", {"class": "box kind-" + n.kind + (n.inner ? " inner" : ""),
                         "data-id": n.id}, view);
      const r = el("rect", {x: n.x, y: n.y, width: n.w, height: 36}, g);
      if (n.time !== undefined && maxTime > 0) {
        const heat = Math.round(255 - 155 * n.time / maxTime);
        r.style.fill = "rgb(255," + heat + "," + heat + ")";
      }
      const label = n.label.length > 38 ? n.label.slice(0, 35) + "..." : n.label;
      el("text", {x: n.x + 8, y: n.y + 15}, g).textContent = label;
      const sub = n.kind === "apply" ? (n.outputs && n.outputs[0] ? n.outputs[0].shape : "")
                                     : n.shape;
      el("text", {x: n.x + 8, y: n.y + 30, fill: "#555"}, g).textContent =
        (sub || "") + (n.time !== undefined ? "  " + (n.time * 1e3).toFixed(2) + " ms" : "");
      el("title", {}, g).textContent = describe(n);
      g.addEventListener("click", function (ev) {
        ev.stopPropagation();
        view.querySelectorAll(".selected").forEach(function (x) {
          x.classList.remove("selected");
        });
        g.classList.add("selected");
        details.textContent = describe(n);
      });
      g.addEventListener("dblclick", function (ev) {
        ev.stopPropagation();
        if (n.inner) open(n);
      });
      boxes += 1;
    });
    crumbs.textContent = "";
    stack.forEach(function (entry, i) {
      if (i > 0) crumbs.appendChild(document.createTextNode(" \u203a "));
      const a = document.createElement(i === stack.length - 1 ? "span" : "a");
      a.textContent = entry.title;
      if (i < stack.length - 1) a.addEventListener("click", function () {
        stack = stack.slice(0, i + 1); draw();
      });
      crumbs.appendChild(a);
    });
    body.dataset.nodes = String(boxes);
    body.dataset.edges = String(edges);
    body.dataset.depth = String(stack.length - 1);
    details.textContent = doc.title + "\n" + boxes + " boxes, " + edges + " edges" +
      (root.profiled ? "\nprofiled: box colour = time" : "");
  }
  function open(n) {
    stack.push({doc: n.inner, title: n.label});
    tx = 20; ty = 20; scale = 1; apply(); draw();
  }
  let drag = null;
  svg.addEventListener("mousedown", function (ev) { drag = [ev.clientX - tx, ev.clientY - ty]; });
  window.addEventListener("mouseup", function () { drag = null; });
  window.addEventListener("mousemove", function (ev) {
    if (drag) { tx = ev.clientX - drag[0]; ty = ev.clientY - drag[1]; apply(); }
  });
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    const k = ev.deltaY < 0 ? 1.1 : 1 / 1.1;
    tx = ev.offsetX - (ev.offsetX - tx) * k; ty = ev.offsetY - (ev.offsetY - ty) * k;
    scale *= k; apply();
  }, {passive: false});
  apply();
  draw();
  const wanted = decodeURIComponent(window.location.hash.slice(1));
  if (wanted) {
    wanted.split("/").forEach(function (id) {
      const doc = stack[stack.length - 1].doc;
      const n = doc.nodes.find(function (x) { return x.id === id; });
      if (n && n.inner) open(n);
    });
  }
  body.dataset.ready = "1";
})();
"""


def render_page(doc: dict[str, Any]) -> str:
    """The HTML text of the viewer for a laid-out document."""
    data = json.dumps(doc).replace("</", "<\\/")  # never close the script element early
    title = html.escape(str(doc.get("title", "graph")))
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
        f"<title>{title} - opgraph d3viz</title>\n<style>{_STYLE}</style></head>\n"
        "<body><div id=\"main\"><div id=\"bar\"><span id=\"crumbs\"></span> &mdash; "
        "drag to pan, wheel to zoom, click for details, double-click a dashed box to "
        "open its inner graph</div>\n"
        "<svg id=\"canvas\" xmlns=\"http://www.w3.org/2000/svg\"><defs><marker id=\"arrow\" "
        "viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
        "orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#777\"/></marker></defs>"
        "<g id=\"viewport\"></g></svg></div>\n<div id=\"details\"></div>\n"
        f"<script type=\"application/json\" id=\"graph-data\">{data}</script>\n"
        f"<script>{_SCRIPT}</script>\n</body></html>\n"
    )
