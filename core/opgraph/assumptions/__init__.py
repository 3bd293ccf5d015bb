"""Structural facts about matrices (diagonal, triangular, symmetric, positive
definite, orthogonal), stated with ``assume`` and inferred through the graph
by ``AssumptionFeature``. See ``opgraph.assumptions.core``."""

from opgraph.assumptions import display as _display  # noqa: F401 - fills debugprint's table
from opgraph.assumptions import elemwise_rules as _elemwise_rules  # noqa: F401 - registers rules
from opgraph.assumptions import tensor_rules as _tensor_rules  # noqa: F401 - registers rules
from opgraph.assumptions.core import (
    ASSUMPTION_INFER_REGISTRY,
    BUILTIN_KEYS,
    DIAGONAL,
    IMPLIES,
    LOWER_TRIANGULAR,
    ORTHOGONAL,
    POSITIVE_DEFINITE,
    SYMMETRIC,
    UPPER_TRIANGULAR,
    AssumptionFeature,
    AssumptionKey,
    ConflictingAssumptionsError,
    FactState,
    register_assumption,
    same_as_input,
)
from opgraph.assumptions.specify import SpecifyAssumptions, assume

__all__ = [
    "ASSUMPTION_INFER_REGISTRY",
    "BUILTIN_KEYS",
    "DIAGONAL",
    "IMPLIES",
    "LOWER_TRIANGULAR",
    "ORTHOGONAL",
    "POSITIVE_DEFINITE",
    "SYMMETRIC",
    "UPPER_TRIANGULAR",
    "AssumptionFeature",
    "AssumptionKey",
    "ConflictingAssumptionsError",
    "FactState",
    "SpecifyAssumptions",
    "assume",
    "register_assumption",
    "same_as_input",
]
