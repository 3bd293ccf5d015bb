"""PyTensor's names for jobs the standard rewrites already do under opgraph's names.

``PYTENSOR_TAGS`` maps a PyTensor rewrite name to the standard entries doing that
job; :func:`tag_pytensor_names` adds the name as a tag to them, so
``mode.including("local_log1p")`` or ``excluding("local_expm1")`` select what it
selects in PyTensor. The module-level rewriters (one node rewriter trying the
entries in turn) are what ``from opgraph.tensor.rewriting.math import
local_log1p`` gives, for code that applies them itself (``in2out(local_log1p)``).
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.rewriting.basic import NodeRewriter, SequentialNodeRewriter
from opgraph_rewrites.canonicalize import canonicalize_rewriters
from opgraph_rewrites.fill import local_fill_sink, local_fill_to_alloc, local_useless_fill
from opgraph_rewrites.inverse_pairs import inverse_pair_rewriters
from opgraph_rewrites.specialize import local_pow_specialize as _pow_specialize
from opgraph_rewrites.stabilize import stabilize_rewriters
from opgraph_rewrites.useless import local_reshape_reshape as _reshape_reshape
from opgraph_rewrites.useless import local_sum_of_alloc

__all__ = [
    "PYTENSOR_TAGS",
    "add_canonizer",
    "local_1msigmoid",
    "local_add_canonizer",
    "local_exp_log",
    "local_exp_log_nan_switch",
    "local_expm1",
    "local_log1p",
    "local_log1p_plusminus_exp",
    "local_log_sum_exp",
    "local_logsoftmax",
    "local_opt_alloc",
    "local_pow_specialize",
    "local_reciprocal_1_plus_exp",
    "local_reshape_chain",
    "local_second_sink",
    "local_second_to_alloc",
    "local_sigm_times_exp",
    "local_useless_fill",
    "log1msigm_to_softplus",
    "log1p_neg_sigmoid",
    "logmexpm1_to_log1mexp",
    "logsigm_to_softplus",
    "tag_pytensor_names",
]

#: PyTensor name -> the standard entries (in any phase) that do its job.
PYTENSOR_TAGS: dict[str, tuple[str, ...]] = {
    "local_log1p": ("log1p_from_log_add", "log1p_from_log_add_r", "log1p_from_log_sub"),
    "local_expm1": ("expm1_from_exp_add", "expm1_from_exp_add_r", "expm1_from_exp_sub"),
    "logsigm_to_softplus": ("log_sigmoid",),
    "log1msigm_to_softplus": ("log1m_sigmoid",),
    "local_1msigmoid": ("one_minus_sigmoid", "one_plus_neg_sigmoid", "one_plus_neg_sigmoid_r"),
    "logmexpm1_to_log1mexp": ("log1mexp_from_expm1",),
    "local_log_sum_exp": ("local_logsumexp",),
    "local_sigm_times_exp": ("local_exp_sigmoid_product",),
    "local_add_canonizer": ("canonicalize_add",),
    "local_second_to_alloc": ("local_fill_to_alloc",),
    "local_second_sink": ("local_fill_sink", "specialize_fill_sink"),
    "local_useless_fill": ("local_useless_fill",),
    "local_sqrt_sqr": ("canonical_pattern_1:(Sqrt, (Sqr, x)) -> (Abs, x)",),
    "local_join_dims": ("local_join_dims_to_reshape",),
    "local_split_dims": ("local_split_dims_to_reshape",),
    "local_Unique_second": ("local_Unique_second_lift",),
    "local_logsoftmax": ("log_softmax",),
    "local_useless_subtensor": ("local_useless_slice",),
    "local_reshape_chain": ("local_reshape_reshape",),
    "local_log1p_plusminus_exp": ("softplus_from_log1p_exp", "log1mexp_from_log1p"),
    "local_reciprocal_1_plus_exp": ("local_exp_sigmoid_product",),
    "local_opt_alloc": ("local_sum_of_alloc",),
}


def tag_pytensor_names(db: Any) -> None:
    """Tag the standard entries of every phase with the PyTensor names of their jobs."""
    for phase in ("canonicalize", "stabilize", "specialize"):
        sub = db[phase]
        for pt_name, entries in PYTENSOR_TAGS.items():
            for entry in entries:
                if entry in sub:
                    sub.add_tags(entry, pt_name)


def _group(name: str, rewriters: dict[str, NodeRewriter]) -> NodeRewriter:
    parts = [rewriters[e] for e in PYTENSOR_TAGS[name] if e in rewriters]
    if len(parts) == 1:
        return parts[0]
    group = SequentialNodeRewriter(*parts)
    group.name = name
    return group


_STANDARD = {n: rw for n, rw, _ in [*stabilize_rewriters(), *canonicalize_rewriters()]}
_STANDARD.update({"local_fill_sink": local_fill_sink(),
                  "local_sum_of_alloc": local_sum_of_alloc(),
                  "local_fill_to_alloc": local_fill_to_alloc(),
                  "local_useless_fill": local_useless_fill()})

local_log1p = _group("local_log1p", _STANDARD)
local_expm1 = _group("local_expm1", _STANDARD)
logsigm_to_softplus = _group("logsigm_to_softplus", _STANDARD)
log1msigm_to_softplus = _group("log1msigm_to_softplus", _STANDARD)
local_1msigmoid = _group("local_1msigmoid", _STANDARD)
logmexpm1_to_log1mexp = _group("logmexpm1_to_log1mexp", _STANDARD)
local_log_sum_exp = _group("local_log_sum_exp", _STANDARD)
local_sigm_times_exp = _group("local_sigm_times_exp", _STANDARD)
local_log1p_plusminus_exp = _group("local_log1p_plusminus_exp", _STANDARD)
local_reciprocal_1_plus_exp = _STANDARD["local_exp_sigmoid_product"]
local_add_canonizer = add_canonizer = _group("local_add_canonizer", _STANDARD)
local_second_to_alloc = _group("local_second_to_alloc", _STANDARD)
local_logsoftmax = _STANDARD["log_softmax"]
log1p_neg_sigmoid = _STANDARD["log1p_neg_sigmoid"]
local_pow_specialize = _pow_specialize()
local_reshape_chain = _reshape_reshape()
local_second_sink = _STANDARD["local_fill_sink"]
local_useless_fill = _STANDARD["local_useless_fill"]
local_opt_alloc = _STANDARD["local_sum_of_alloc"]

_PAIRS = inverse_pair_rewriters()
local_exp_log = SequentialNodeRewriter(*[rw for _, rw, tags in _PAIRS])
local_exp_log.name = "local_exp_log"
local_exp_log_nan_switch = SequentialNodeRewriter(
    *[rw for _, rw, tags in _PAIRS if "local_exp_log_nan_switch" in tags])
local_exp_log_nan_switch.name = "local_exp_log_nan_switch"
