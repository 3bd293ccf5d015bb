"""Registers the standard rewrites into the standard phases (see registry.py)."""

from __future__ import annotations

from typing import Any

from opgraph.graph.rewriting.merge import MergeOptimizer
from opgraph.graph.rewriting.walking import in2out
from opgraph.tensor.einsum import inline_optimized_einsum
from opgraph_rewrites.add_mul_fusion import add_mul_fusion_seqopt
from opgraph_rewrites.alloc_empty import alloc_empty_rewriters
from opgraph_rewrites.assumptions import drain_specify_assumptions
from opgraph_rewrites.basic import basic_rewriters, local_remove_all_assert
from opgraph_rewrites.basic_join_diag import basic_join_diag_rewriters
from opgraph_rewrites.basic_more import basic_more_rewriters
from opgraph_rewrites.basic_vectors import basic_vector_rewriters
from opgraph_rewrites.blas import register_blas_opt
from opgraph_rewrites.blas_reductions import register_blas_rewrites
from opgraph_rewrites.blockwise_passes import (
    register_blockwise_canonicalize,
    register_blockwise_passes,
)
from opgraph_rewrites.canonicalize import canonicalize_rewriters
from opgraph_rewrites.composite import local_inline_composite_constants
from opgraph_rewrites.composite_outputs import composite_outputs_rewriters
from opgraph_rewrites.constant_folding import constant_folding
from opgraph_rewrites.elemwise import elemwise_rewriters, register_before_fusion
from opgraph_rewrites.extra_ops import extra_ops_rewriters
from opgraph_rewrites.extract_diag import ExtractDiag, extract_diag_lift_pass
from opgraph_rewrites.fill import fill_rewriters, local_useless_fill
from opgraph_rewrites.fusion import FusionOptimizer
from opgraph_rewrites.ifelse import ifelse_make_view
from opgraph_rewrites.inplace import InplaceElemwiseOptimizer
from opgraph_rewrites.inverse_pairs import inverse_pair_rewriters
from opgraph_rewrites.math import fast_math_rewriters, math_rewriters
from opgraph_rewrites.math_bessel import math_bessel_rewriters
from opgraph_rewrites.math_dot_diag import local_sumsqr2dot, math_dot_diag_rewriters
from opgraph_rewrites.math_log_sign import math_log_sign_rewriters
from opgraph_rewrites.math_logexp import math_logexp_rewriters
from opgraph_rewrites.math_more import math_more_rewriters
from opgraph_rewrites.math_named import math_named_rewriters
from opgraph_rewrites.matmul import matmul_rewriters
from opgraph_rewrites.pow_squaring import pow_squaring_rewriters
from opgraph_rewrites.pytensor_names import tag_pytensor_names
from opgraph_rewrites.random import random_make_inplace, sidestep_unused_rng_consumer
from opgraph_rewrites.reshape import reshape_dims_rewriters
from opgraph_rewrites.scan import register_scan_rewrites
from opgraph_rewrites.shape import reshape_rewriters, shape_named_rewriters
from opgraph_rewrites.shape_feature import shape_rewriters
from opgraph_rewrites.special import special_rewriters
from opgraph_rewrites.specialize import specialize_rewriters
from opgraph_rewrites.stabilize import stabilize_rewriters
from opgraph_rewrites.subtensor import subtensor_rewriters, subtensor_specialize_rewriters
from opgraph_rewrites.subtensor_index import subtensor_index_rewriters
from opgraph_rewrites.subtensor_inplace import register_subtensor_inplace
from opgraph_rewrites.subtensor_lift import subtensor_lift_rewriters
from opgraph_rewrites.subtensor_lift_more import (
    register_by_name_only,
    subtensor_lift_more_rewriters,
)
from opgraph_rewrites.subtensor_merge import local_join_subtensors, subtensor_merge_rewriters
from opgraph_rewrites.subtensor_writes import subtensor_write_rewriters
from opgraph_rewrites.uncanonicalize import uncanonicalize_rewriters

__all__ = ["register_standard_rewrites"]


def _per_phase_tables() -> list[tuple[str, list[tuple[str, Any, tuple[str, ...]]]]]:
    """(phase, entries) of the modules that place their rewrites in several phases."""
    tables = [basic_rewriters, basic_more_rewriters, basic_vector_rewriters,
              math_more_rewriters, math_named_rewriters, math_logexp_rewriters,
              subtensor_write_rewriters, subtensor_index_rewriters, shape_named_rewriters,
              subtensor_lift_more_rewriters,
              math_dot_diag_rewriters, math_log_sign_rewriters, basic_join_diag_rewriters,
              composite_outputs_rewriters, math_bessel_rewriters, pow_squaring_rewriters]
    items = [item for table in tables for item in table().items()]
    return [*items, ("specialize", subtensor_specialize_rewriters())]


def register_standard_rewrites(db: Any) -> None:
    canon, stab, spec = db["canonicalize"], db["stabilize"], db["specialize"]
    canon.register("constant_folding", constant_folding, "fast_run", "fast_compile",
                   "constant_folding")
    canon.register("canonicalize_merge", MergeOptimizer(), "fast_run", "fast_compile", "merge",
                   final_rewriter=True)
    register_blockwise_canonicalize(canon)  # before local_blockwise_inc_subtensor
    for name, rw, tags in [*canonicalize_rewriters(), *shape_rewriters(),
                           *inverse_pair_rewriters(), *elemwise_rewriters(), *math_rewriters(),
                           *reshape_rewriters(), *reshape_dims_rewriters(), *extra_ops_rewriters(),
                           *subtensor_lift_rewriters(), *subtensor_rewriters()]:
        canon.register(name, rw, "fast_run", *tags)
    fills = fill_rewriters()
    for name, rw, tags in fills["canonicalize"]:
        canon.register(name, rw, "fast_run", *tags)
    for name, rw, tags in fills["specialize"]:
        spec.register(name, rw, "fast_run", *tags)
    for name, rw, tags in [*stabilize_rewriters(), *special_rewriters()]:
        stab.register(name, rw, "fast_run", *tags)
    for phase, entries in _per_phase_tables():
        for name, rw, tags in entries:
            db[phase].register(name, rw, "fast_run", *tags)
    for name, rw, tags in fast_math_rewriters():
        canon.register(name, rw, *tags)
    # Opt-in by name (extreme finite values regroup into inf/NaN): not in FAST_RUN
    for phase in (canon, spec):
        phase.register("local_sumsqr2dot", local_sumsqr2dot, use_db_name_as_tag=False)
    # Unsafe: runs only when a mode asks for it by name or by the tag "unsafe".
    # Without the phase's name as a tag, so including a whole phase does not select it.
    for phase in (canon, stab, spec):
        phase.register("local_remove_all_assert", local_remove_all_assert, "unsafe",
                       use_db_name_as_tag=False)
    # FAST_COMPILE has no stabilize phase; the same rules run in its canonicalize, so
    # written-out sigmoids and their gradients stay finite there too (PyTensor's
    # FAST_COMPILE trains the logistic-regression tutorial; NaN would be a wrong result).
    for name, rw, tags in stabilize_rewriters():
        if "finite" in tags:
            canon.register(name, rw, "fast_compile", "stabilize", *tags)
    # The gradient's seed is fill(cost, 1); removing such no-op fills lets the rules above
    # see exp(z)/sum(exp(z)) in gradients of log(sum(exp(z))) in FAST_COMPILE too.
    canon.register("local_useless_fill_fast_compile", local_useless_fill(), "fast_compile",
                   "finite")
    for name, rw, tags in subtensor_merge_rewriters():
        canon.register(name, rw, "fast_run", "fast_compile", *tags)
        spec.register(name, rw, "fast_run", *tags)
    spec.register("local_join_subtensors", local_join_subtensors, "fast_run")
    if ExtractDiag is not None:  # the Op comes from opgraph-linalg
        spec.register("extract_diag_lift_pass", extract_diag_lift_pass, "fast_run",
                      "shape_unsafe")
    stab.register("stabilize_constant_folding", constant_folding, "fast_run", "constant_folding")
    for name, rw, tags in [*specialize_rewriters(), *uncanonicalize_rewriters(),
                           *matmul_rewriters(), *alloc_empty_rewriters()]:
        spec.register(name, rw, "fast_run", *tags)
    spec.register("specialize_constant_folding", constant_folding, "fast_run",
                  "constant_folding")
    spec.register("inline_optimized_einsum", inline_optimized_einsum, "fast_run", "inline_einsum")
    register_blas_opt(db)
    register_blockwise_passes(db)
    register_before_fusion(db)
    # PyTensor's first fusion step: nested sums/products flattened, constant terms folded
    db.register("add_mul_fusion", add_mul_fusion_seqopt, "fast_run", "fusion", phase="fusion",
                before=("elemwise_fusion",))
    # The extra tags are the names PyTensor code excludes them by.
    db.register("elemwise_fusion", FusionOptimizer(), "fast_run", "fusion",
                "local_elemwise_fusion", phase="fusion")
    db.register("local_inline_composite_constants",
                in2out(local_inline_composite_constants, name="local_inline_composite_constants"),
                "fast_run", "fusion", phase="fusion")
    # Gemm/Gemv/Ger and Blockwise claim their buffers first
    db.register("inplace_elemwise", InplaceElemwiseOptimizer(), "fast_run", "inplace",
                "inplace_elemwise_optimizer", phase="inplace",
                after=("InplaceBlasOpt", "c_blas_destructive", "blockwise_inplace"))
    register_subtensor_inplace(db)
    register_by_name_only(db)
    db.register("ifelse_make_view", ifelse_make_view, "fast_run", "inplace", phase="inplace")
    db.register("random_make_inplace", random_make_inplace, "fast_run", "inplace",
                phase="inplace")
    # assume() markers go before canonicalize (PyTensor's position 0.8); their facts
    # stay on fgraph.assumption_feature for the rewrites that read them
    db.register("drain_specify_assumptions", drain_specify_assumptions, "fast_run",
                "fast_compile", position=0.8)
    register_scan_rewrites(db)
    register_blas_rewrites(db)
    canon.register("sidestep_unused_rng_consumer", sidestep_unused_rng_consumer, "fast_run",
                   "fast_compile", "random_unsafe")
    tag_pytensor_names(db)
