"""The rewrite engine: node and graph rewriters, walkers, equilibrium, patterns, merge.

Mechanism only; which rewrites run in which mode is decided by the rewrite
database (the ``opgraph-rewrites`` plugin).
"""

from opgraph.graph.rewriting.basic import (
    FromFunctionGraphRewriter,
    FromFunctionNodeRewriter,
    GraphRewriter,
    NodeRewriter,
    OpToRewriterTracker,
    RewriteFailure,
    Rewriter,
    RewriterStats,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    apply_node_rewrite,
    graph_rewriter,
    node_rewriter,
)
from opgraph.graph.rewriting.merge import MergeFeature, MergeOptimizer, merge_optimizer
from opgraph.graph.rewriting.pattern import (
    PatternNodeRewriter,
    RemovalNodeRewriter,
    SubstitutionNodeRewriter,
)
from opgraph.graph.rewriting.utils import check_stack_trace, rewrite_graph
from opgraph.graph.rewriting.walking import (
    EquilibriumGraphRewriter,
    WalkingGraphRewriter,
    dfs_rewriter,
    in2out,
    out2in,
)

# Older PyTensor/Theano names, so ported code keeps working.
LocalOptimizer = NodeRewriter
GlobalOptimizer = GraphRewriter
local_optimizer = node_rewriter
TopoOptimizer = WalkingGraphRewriter
EquilibriumOptimizer = EquilibriumGraphRewriter
PatternSub = PatternNodeRewriter
OpSub = SubstitutionNodeRewriter
OpRemove = RemovalNodeRewriter
SeqOptimizer = SequentialGraphRewriter

__all__ = [
    "EquilibriumGraphRewriter",
    "EquilibriumOptimizer",
    "FromFunctionGraphRewriter",
    "FromFunctionNodeRewriter",
    "GlobalOptimizer",
    "GraphRewriter",
    "LocalOptimizer",
    "MergeFeature",
    "MergeOptimizer",
    "NodeRewriter",
    "OpRemove",
    "OpSub",
    "OpToRewriterTracker",
    "PatternNodeRewriter",
    "PatternSub",
    "RemovalNodeRewriter",
    "RewriteFailure",
    "Rewriter",
    "RewriterStats",
    "SeqOptimizer",
    "SequentialGraphRewriter",
    "SequentialNodeRewriter",
    "SubstitutionNodeRewriter",
    "TopoOptimizer",
    "WalkingGraphRewriter",
    "apply_node_rewrite",
    "check_stack_trace",
    "dfs_rewriter",
    "graph_rewriter",
    "in2out",
    "local_optimizer",
    "merge_optimizer",
    "node_rewriter",
    "out2in",
    "rewrite_graph",
]

#: a tuple PyTensor's ``graph.rewriting`` package exposes under this name (the names it meant
#: to export at first)
all = ("rewrite_graph",)
