import pytest

from scalecore_generator.kinds.kind import Site
from scalecore_generator.pages.quotes import QuoteError, expand_quotes, namespace
from scalecore_generator.kinds.registry import discover

KINDS = discover()
SITE = Site(corpora=("kjv",), titles={}, seeds=(0, 1), settings={})
MEASURES = {"mean_row_max": 0.5, "input_spread": 2.0}
# Each kind lays out its own quote tree from its baked points (here synthetic ones).
ROWS = [[0.25, 0.75], [0.5, 0.5]]  # token 1 looks at token 2 most; token 2 ties, and the first wins
GUARDS = {"kjv/0/init+scale": {"measures": dict(MEASURES), "weights": ROWS},
          "kjv/1/init+scale": {"measures": {"mean_row_max": 0.7, "input_spread": 4.0}, "weights": ROWS}}
GUARDS |= {f"kjv/{seed}/{g}": {"measures": {"mean_row_max": 0.0, "input_spread": 0.0}, "weights": ROWS}
           for seed in (0, 1) for g in ("none", "norm", "init", "scale", "norm+init", "norm+scale", "norm+init+scale")}
TREE = namespace(
    {
        "scale-guards": KINDS["scale-guards"]().quotes(GUARDS, None, SITE),
        "softmax": KINDS["softmax"]().quotes({"index": {"examples": [{"scores": [1, 2, 3], "weights": [
            0.09003057317038046, 0.24472847105479764, 0.6652409557748219], "gradient": 0.4}]}}, None, SITE),
        "variance": KINDS["variance"]().quotes({"index": {"dims": [
            {"d": 3, "raw": {"variance": 2.97}, "scaled": {"variance": 0.99}}]}}, None, SITE),
    },
    {"kjv": {"sentences": 33695, "tokens": 789633, "vocabulary": 12771}},
    {},
)


def test_a_quote_becomes_the_baked_value_in_the_given_format():
    text = "Row-max {{ baked: scale-guards/kjv/0/init+scale/mean_row_max | .2f }} of {{baked:corpus/kjv/tokens|,}} tokens."
    assert expand_quotes(text, TREE, "docs/a.md") == "Row-max 0.50 of 789,633 tokens."


def test_the_default_format_and_the_mean_over_seeds():
    assert expand_quotes("{{ baked: scale-guards/kjv/mean/init+scale/mean_row_max }}", TREE, "p") == "0.6"
    assert expand_quotes("{{ baked: scale-guards/kjv/lowest/init+scale/input_spread }}", TREE, "p") == "2"
    assert expand_quotes("{{ baked: scale-guards/kjv/highest/init+scale/input_spread }}", TREE, "p") == "4"
    assert expand_quotes("{{ baked: scale-guards/kjv/0/none/favourite/0 }} {{ baked: scale-guards/kjv/0/none/favourite/1 }}",
                         TREE, "p") == "2 1"
    assert expand_quotes("{{ baked: softmax/0/weights/2 | .4f }}", TREE, "p") == "0.6652"


def test_quotes_in_code_are_left_as_written():
    text = "```\n{{ baked: scale-guards/kjv/0/init+scale/mean_row_max }}\n```\n`{{ baked: nope }}` and {{ baked: variance/3/raw/variance }}"
    assert expand_quotes(text, TREE, "p") == "```\n{{ baked: scale-guards/kjv/0/init+scale/mean_row_max }}\n```\n`{{ baked: nope }}` and 2.97"


def test_an_unknown_path_names_page_line_and_what_is_accepted():
    with pytest.raises(QuoteError) as error:
        expand_quotes("intro\n\nsee {{ baked: scale-guards/kjv/9/init+scale/mean_row_max }}", TREE, "docs/a.md", line_offset=4)
    assert str(error.value) == (
        "docs/a.md:7: {{ baked: scale-guards/kjv/9/init+scale/mean_row_max }}: no value '9' under scale-guards/kjv; "
        "accepted here: 0, 1, mean, lowest, highest. Fix: write one of the accepted values there."
    )


def test_an_unknown_first_part_lists_the_parts():
    with pytest.raises(QuoteError) as error:
        expand_quotes("{{ baked: scale-guard/kjv }}", TREE, "p")
    assert str(error.value).endswith("no value 'scale-guard' under the top; accepted here: scale-guards, softmax, "
                                     "variance, corpus, settings. Fix: quote a path that starts with one of scale-guards, "
                                     "softmax, variance, corpus, settings (scalecore guide authoring lists them).")


def test_a_number_written_another_way_is_named_as_the_tree_writes_it():
    """A fresh author's {{ baked: projectile/30/range }} for a value baked at 30.0."""
    tree = {"projectile": {"15.0": {"range": 20.4}, "30.0": {"range": 35.3}}}
    with pytest.raises(QuoteError) as error:
        expand_quotes("{{ baked: projectile/30/range }}", tree, "p")
    assert str(error.value).endswith("no value '30' under projectile; accepted here: 15.0, 30.0. Fix: write '30.0' there.")
    with pytest.raises(QuoteError, match=r"Fix: write 'kjv' there\.$"):
        expand_quotes("{{ baked: scale-guards/kvj/0/none/gradient }}", TREE, "p")


def test_a_path_that_stops_short_says_what_to_add():
    with pytest.raises(QuoteError, match=r"'corpus/kjv' is not a number \(it holds more: add one of sentences, tokens, "
                                         r"vocabulary\)\. Fix: quote corpus/kjv/sentences, or another of them\.$"):
        expand_quotes("{{ baked: corpus/kjv }}", TREE, "p")


def test_a_bad_format_is_an_error():
    with pytest.raises(QuoteError, match=r"p:1: .*bad format 'q'"):
        expand_quotes("{{ baked: corpus/kjv/tokens | q }}", TREE, "p")


def test_settings_can_be_quoted_and_indented_fences_are_left_alone():
    tree = dict(TREE, settings={"d_k": 16, "sqrt_d_k": 4.0})
    text = "d_k = {{ baked: settings/d_k }}\n\n    ```\n    {{ baked: settings/nope }}\n    ```\n"
    assert expand_quotes(text, tree, "p") == "d_k = 16\n\n    ```\n    {{ baked: settings/nope }}\n    ```\n"
