"""The build's step order, written once (builder/steps.py, issue 44.3): every adapter is held to
it, so an adapter that calls a step before what it needs stops with its own mistake named."""

import pytest

from scalecore_generator.builder.steps import AFTER, StepOutOfOrder, Steps


def test_every_step_can_be_taken_in_some_order():
    steps, left = Steps(), dict(AFTER)
    while left:
        ready = [step for step, needs in left.items() if all(need in steps.taken for need in needs)]
        assert ready, f"these steps wait on each other: {sorted(left)}"
        for step in ready:
            steps.take(step)
            del left[step]


@pytest.mark.parametrize("step, missing", [("prepare", "configure"), ("finish", "write_files"),
                                           ("restore", "expand"), ("finish_a_page", "check_neighbours")])
def test_a_step_taken_too_early_names_what_it_needs(step, missing):
    steps = Steps()
    with pytest.raises(StepOutOfOrder, match=f"{step!r} was taken before .*{missing!r}"):
        steps.take(step)


def test_the_mkdocs_order_and_the_zensical_order_both_hold():
    """MkDocs writes the build's files before its pages, Zensical's adapter after them."""
    mkdocs = ["configure", "stage", "prepare", "check_author_files", "theme_files", "write_files", "finish_page",
              "expand", "restore", "read", "expand", "restore", "read", "check_neighbours", "finish_a_page",
              "finish_a_page", "finish"]
    zensical = ["configure", "stage", "prepare", "check_author_files", "expand", "restore", "read",
                "check_neighbours", "write_files", "theme_files", "finish_page", "finish_a_page", "finish"]
    for order in (mkdocs, zensical):
        steps = Steps()
        for step in order:
            steps.take(step)
