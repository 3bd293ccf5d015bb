"""Structural facts about matrices (diagonal, triangular, symmetric, positive
definite, orthogonal), stated with ``assume`` and inferred through the graph
by ``AssumptionFeature``. See ``opgraph.assumptions.core``."""

from opgraph.assumptions import alloc as _alloc  # noqa: F401 - registers rules
from opgraph.assumptions import dimshuffle as _dimshuffle  # noqa: F401 - registers rules
from opgraph.assumptions import display as _display  # noqa: F401 - fills debugprint's table
from opgraph.assumptions import elemwise_rules as _elemwise_rules  # noqa: F401 - registers rules
from opgraph.assumptions import reshape as _reshape  # noqa: F401 - registers rules
from opgraph.assumptions import shape as _shape  # noqa: F401 - registers rules
from opgraph.assumptions import subtensor as _subtensor  # noqa: F401 - registers rules
from opgraph.assumptions import tensor_rules as _tensor_rules  # noqa: F401 - registers rules
from opgraph.assumptions.core import (
    ALL_KEYS,
    ASSUMPTION_INFER_REGISTRY,
    BUILTIN_KEYS,
    DIAGONAL,
    IMPLIES,
    LOWER_TRIANGULAR,
    ORTHOGONAL,
    PERMUTATION,
    POSITIVE_DEFINITE,
    SELECTION,
    SYMMETRIC,
    UPPER_TRIANGULAR,
    AssumptionFeature,
    AssumptionKey,
    ConflictingAssumptionsError,
    FactState,
    check_assumption,
    register_assumption,
    register_constant_inference,
    register_implies,
    same_as_input,
)
from opgraph.assumptions.display import assumption_tags, summarize_assumptions
from opgraph.assumptions.specify import SpecifyAssumptions, assume, specify_assumption_rule
from opgraph.graph.fg import FunctionGraph

__all__ = [
    "ALL_KEYS",
    "ASSUMPTION_INFER_REGISTRY",
    "BUILTIN_KEYS",
    "DIAGONAL",
    "IMPLIES",
    "LOWER_TRIANGULAR",
    "ORTHOGONAL",
    "PERMUTATION",
    "POSITIVE_DEFINITE",
    "SELECTION",
    "SYMMETRIC",
    "UPPER_TRIANGULAR",
    "AssumptionFeature",
    "AssumptionKey",
    "ConflictingAssumptionsError",
    "FactState",
    "FunctionGraph",
    "SpecifyAssumptions",
    "assume",
    "assumption_tags",
    "check_assumption",
    "register_assumption",
    "register_constant_inference",
    "register_implies",
    "same_as_input",
    "specify_assumption_rule",
    "summarize_assumptions",
]
