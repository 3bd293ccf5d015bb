"""A layered drawing of a graph document: rows by depth, order by barycentre.

Done in Python so the page's script only draws.  Each box gets a row (its
longest distance from a source, so every edge points down) and a position in
its row chosen to keep edges short: a few sweeps of the barycentre heuristic
(each box moves to the mean position of its neighbours in the adjacent row),
the standard Sugiyama-style method, good enough for graphs of a few hundred
nodes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["layout_document"]

ROW_HEIGHT = 90
GAP = 24
CHAR_WIDTH = 7
MIN_WIDTH, MAX_WIDTH = 56, 280
SWEEPS = 4


def _width(node: dict[str, Any]) -> int:
    """Wide enough for the label and the second line (shape, and time when profiled)."""
    outputs = node.get("outputs") or [{}]
    sub = len(node.get("shape") or outputs[0].get("shape", "")) + (12 if "time" in node else 0)
    chars = max(len(node["label"]), sub)
    return max(MIN_WIDTH, min(MAX_WIDTH, CHAR_WIDTH * chars + 20))


def layout_document(doc: dict[str, Any]) -> dict[str, Any]:
    """Add ``x``, ``y``, ``w`` to every node of ``doc`` (and of its inner documents),
    and the drawing's ``width``/``height``; returns ``doc``."""
    nodes = doc["nodes"]
    preds: dict[str, list[str]] = {n["id"]: [] for n in nodes}
    succs: dict[str, list[str]] = {n["id"]: [] for n in nodes}
    for e in doc["edges"]:
        preds[e["target"]].append(e["source"])
        succs[e["source"]].append(e["target"])
    row: dict[str, int] = {}
    for n in nodes:  # documents list producers before consumers
        nid = n["id"]
        row[nid] = 1 + max((row[p] for p in preds[nid] if p in row), default=-1)
    rows: list[list[str]] = [[] for _ in range(1 + max(row.values(), default=0))]
    for n in nodes:
        rows[row[n["id"]]].append(n["id"])
    pos = {nid: float(i) for r in rows for i, nid in enumerate(r)}
    for sweep in range(SWEEPS):
        order = rows if sweep % 2 == 0 else list(reversed(rows))
        neighbours = preds if sweep % 2 == 0 else succs
        for r in order:
            def key(nid: str, nb: dict[str, list[str]] = neighbours) -> float:
                around = [pos[m] for m in nb[nid]]
                return sum(around) / len(around) if around else pos[nid]
            r.sort(key=key)
            for i, nid in enumerate(r):
                pos[nid] = float(i)
    by_id = {n["id"]: n for n in nodes}
    widths = [sum(_width(by_id[nid]) for nid in r) + GAP * max(len(r) - 1, 0)
              for r in rows]
    total = max(widths, default=0)
    for r, width in zip(rows, widths):
        x = (total - width) / 2
        for nid in r:
            node = by_id[nid]
            node["w"] = _width(node)
            node["x"] = x
            node["y"] = row[nid] * ROW_HEIGHT
            x += node["w"] + GAP
            if "inner" in node:
                layout_document(node["inner"])
    doc["width"] = total
    doc["height"] = len(rows) * ROW_HEIGHT
    return doc
