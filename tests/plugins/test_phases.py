"""Named rewrite phases: ordering by constraints, cycle and unknown-name errors, float mapping."""

import math

import pytest

from opgraph.plugins.phases import (
    STANDARD_PHASES,
    Phase,
    PhaseCycleError,
    PhaseError,
    order_entries,
    order_phases,
    phase_for_position,
)


def names(phases):
    return [p.name for p in phases]


def test_standard_phases_are_a_chain_with_growing_anchors():
    ordered = order_phases(STANDARD_PHASES)
    assert names(ordered) == names(STANDARD_PHASES)
    assert names(ordered)[:6] == ["inline", "initial_merge", "canonicalize", "stabilize",
                                  "specialize", "post_specialize"]
    anchors = [p.anchor for p in ordered]
    assert anchors == sorted(anchors)


def test_constraints_place_a_new_phase_between_standard_ones():
    extra = Phase("my_cleanup", after="specialize", before="fusion")
    ordered = names(order_phases([extra, *STANDARD_PHASES]))  # declared first on purpose
    assert ordered.index("specialize") < ordered.index("my_cleanup") < ordered.index("fusion")


def test_ties_keep_declaration_order():
    a, b, c = Phase("a"), Phase("b"), Phase("c", before="a")
    assert names(order_phases([a, b, c])) == ["b", "c", "a"]


def test_a_cycle_is_an_error_naming_the_cycle():
    phases = [Phase("x", after="z"), Phase("y", after="x"), Phase("z", after="y"), Phase("w")]
    with pytest.raises(PhaseCycleError, match=r"x -> y -> z -> x"):
        order_phases(phases)


def test_self_cycle_and_before_after_cycle():
    with pytest.raises(PhaseCycleError, match="p -> p"):
        order_phases([Phase("p", after="p")])
    with pytest.raises(PhaseCycleError, match="a -> b -> a"):
        order_phases([Phase("a", before="b"), Phase("b", before="a")])


def test_unknown_phase_in_a_constraint_is_named():
    with pytest.raises(PhaseError, match=r"'late'.*unknown phase 'nowhere'"):
        order_phases([Phase("late", after="nowhere")])


def test_duplicate_phase_and_decreasing_anchors():
    with pytest.raises(PhaseError, match="declared twice"):
        order_phases([Phase("a"), Phase("a")])
    with pytest.raises(PhaseError, match="anchors must grow"):
        order_phases([Phase("a", anchor=5.0), Phase("b", after="a", anchor=1.0)])


def test_bad_phase_fields_raise_type_errors():
    with pytest.raises(TypeError, match="Phase name"):
        Phase("")
    with pytest.raises(TypeError, match="phase names"):
        Phase("a", after=[1])
    with pytest.raises(TypeError, match="anchor"):
        Phase("a", anchor="1")
    with pytest.raises(TypeError, match="Phase records"):
        order_phases(["a"])


@pytest.mark.parametrize(
    ("position", "phase"),
    [(-0.5, "inline"), (-100, "inline"), (0, "initial_merge"), (1, "canonicalize"),
     (1.5, "stabilize"), (2, "specialize"), (3, "specialize"), (48, "post_specialize"),
     (48.6, "post_specialize"), (49, "fusion"), (49.5, "post_fusion_merge"),
     (75.5, "inplace"), (99, "inplace"), (100, "final_merge"), (math.inf, "final_merge")],
)
def test_float_positions_fall_in_the_phase_they_reach(position, phase):
    assert phase_for_position(order_phases(STANDARD_PHASES), position).name == phase


def test_float_positions_need_an_anchored_phase():
    with pytest.raises(PhaseError, match="no phase has an anchor"):
        phase_for_position([Phase("a")], 1.0)


def test_order_entries_keeps_the_default_order_as_far_as_constraints_allow() -> None:
    names = ["a", "b", "c", "d"]
    assert order_entries(names, {}, {}) == names
    assert order_entries(names, {"a": ("c",)}, {}) == ["b", "c", "a", "d"]
    assert order_entries(names, {}, {"d": ("b",), "c": ("absent",)}) == ["a", "c", "d", "b"]
    with pytest.raises(PhaseCycleError, match="a -> b -> a"):
        order_entries(names, {"a": ("b",), "b": ("a",)}, {})
