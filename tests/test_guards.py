import pytest
from hypothesis import given
from hypothesis import strategies as st

from scalecore.guards import GUARD_NAMES, GuardSet, all_guard_sets


def test_the_eight_sets_in_the_documented_order():
    assert [str(g) for g in all_guard_sets()] == [
        "none", "norm", "init", "scale", "norm+init", "norm+scale", "init+scale", "norm+init+scale",
    ]


@given(st.booleans(), st.booleans(), st.booleans())
def test_formatting_then_parsing_round_trips(norm, init, scale):
    guards = GuardSet(norm, init, scale)
    assert GuardSet.parse(str(guards)) == guards


@given(st.permutations(GUARD_NAMES))
def test_any_order_parses_to_the_canonical_name(names):
    assert str(GuardSet.parse("+".join(names))) == "norm+init+scale"


def test_an_unknown_guard_lists_the_valid_ones():
    with pytest.raises(ValueError) as error:
        GuardSet.parse("init+scaling")
    assert str(error.value) == (
        "unknown guard 'scaling' in 'init+scaling': valid guards are norm, init, scale "
        "(joined by '+'), or 'none'"
    )


def test_a_repeated_guard_is_refused():
    with pytest.raises(ValueError, match="names a guard twice"):
        GuardSet.parse("scale+scale")


def test_active_names():
    assert GuardSet(init=True, scale=True).active == ("init", "scale")
    assert str(GuardSet()) == "none"
