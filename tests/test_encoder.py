"""The encoder block against an independent numpy implementation of the three LayerNorm placements."""

import json
import math
import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scalecore import encoder, multihead, sitedata
from scalecore.embeddings import EmbeddingTable
from scalecore.experiment import position_aware_input
from scalecore.guards import GuardSet, all_guard_sets
from scalecore.layernorm import layer_norm

EPS = 1e-5


def numpy_layer_norm(x):
    return (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + EPS)


def numpy_attention(x, w, heads):
    """PyTorch's multi-head attention without biases, in row vectors: (output, weights per head)."""
    d_k = x.shape[1] // heads
    q, k, v = (x @ np.array(m) for m in (w.w_q, w.w_k, w.w_v))
    outputs, weights = [], []
    for i in range(heads):
        cut = slice(i * d_k, (i + 1) * d_k)
        s = q[:, cut] @ k[:, cut].T / np.sqrt(d_k)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        a = e / e.sum(axis=1, keepdims=True)
        weights.append(a)
        outputs.append(a @ v[:, cut])
    return np.hstack(outputs) @ np.array(w.w_o), weights


def numpy_feed_forward(x, w):
    return np.maximum(x @ np.array(w.w_1), 0.0) @ np.array(w.w_2)


def numpy_encode(x, seed, layers, norm, heads):
    """Each layer's (output, attention weights, the sums LayerNorm received), as PyTorch computes them."""
    x = np.asarray(x, dtype=np.float64)
    done = []
    for w in encoder.draw_layers(seed, x.shape[1], layers):
        sums = []
        if norm == "pre":  # x = x + MHA(LN(x)); x = x + FFN(LN(x))
            update, weights = numpy_attention(numpy_layer_norm(x), w.attention, heads)
            x = x + update
            x = x + numpy_feed_forward(numpy_layer_norm(x), w)
        elif norm == "post":  # x = LN(x + MHA(x)); x = LN(x + FFN(x))
            update, weights = numpy_attention(x, w.attention, heads)
            sums.append(x + update)
            x = numpy_layer_norm(sums[-1])
            sums.append(x + numpy_feed_forward(x, w))
            x = numpy_layer_norm(sums[-1])
        else:  # x = x + MHA(x); x = x + FFN(x)
            update, weights = numpy_attention(x, w.attention, heads)
            x = x + update
            x = x + numpy_feed_forward(x, w)
        done.append((x, weights, sums))
    return done


def close(actual, expected, tol=1e-9):
    """Equal to ``tol``, relative to the largest entry where the values are large."""
    expected = np.asarray(expected, dtype=np.float64)
    assert np.shape(actual) == expected.shape
    size = max(1.0, float(np.abs(expected).max()))
    return np.allclose(np.asarray(actual, dtype=np.float64), expected, rtol=tol, atol=tol * size)


@st.composite
def streams(draw, max_scale=1e4):
    """(x, heads): T in 1..6 tokens of width 4, 8 or 16, heads dividing it, entries up to ``max_scale``."""
    d_model = draw(st.sampled_from([4, 8, 16]))
    tokens = draw(st.integers(1, 6))
    scale = draw(st.floats(1e-2, max_scale))
    x = draw(st.lists(st.lists(st.floats(-1, 1), min_size=d_model, max_size=d_model),
                      min_size=tokens, max_size=tokens))
    heads = draw(st.sampled_from([h for h in (1, 2, 4, 8, 16) if d_model % h == 0]))
    return [[scale * v for v in row] for row in x], heads


seeds = st.integers(0, 2**32)
norms = st.sampled_from(encoder.NORMS)


@settings(max_examples=40, deadline=None)
@given(streams(), seeds, st.integers(1, 3), norms)
def test_every_placement_agrees_with_numpy_to_1e_9(case, seed, layers, norm):
    x, heads = case
    stack = encoder.encode(x, seed, layers, norm, heads)
    expected = numpy_encode(x, seed, layers, norm, heads)
    assert len(stack) == layers
    for done, (output, weights, _) in zip(stack, expected):
        assert close(done.output, output)
        assert len(done.attention.heads) == heads
        for head, a in zip(done.attention.heads, weights):
            assert np.allclose(head.weights, a, rtol=0, atol=1e-9)


@settings(max_examples=20, deadline=None)
@given(streams(), seeds, st.integers(1, 3), st.integers(1, 3), norms)
def test_a_stack_is_the_first_layers_of_a_deeper_stack(case, seed, layers, more, norm):
    x, heads = case
    shallow = encoder.encode(x, seed, layers, norm, heads)
    deep = encoder.encode(x, seed, layers + more, norm, heads)
    assert [done.output for done in shallow] == [done.output for done in deep[:layers]]
    assert [done.weights for done in shallow] == [done.weights for done in deep[:layers]]


@given(seeds, st.sampled_from([1, 4, 8]), st.integers(1, 3))
@settings(max_examples=10, deadline=None)
def test_the_weights_are_drawn_layer_after_layer_at_one_over_sqrt_fan_in(seed, d_model, layers):
    rng = random.Random(seed)
    d_ff = 4 * d_model

    def draw(rows, columns, fan_in):
        return [[rng.gauss(0.0, 1.0) / math.sqrt(fan_in) for _ in range(columns)] for _ in range(rows)]

    for w in encoder.draw_layers(seed, d_model, layers):
        a = w.attention
        for m in (a.w_q, a.w_k, a.w_v, a.w_o):
            assert np.allclose(m, draw(d_model, d_model, d_model), rtol=1e-15, atol=0)
        assert np.allclose(w.w_1, draw(d_model, d_ff, d_model), rtol=1e-15, atol=0)
        assert np.allclose(w.w_2, draw(d_ff, d_model, d_ff), rtol=1e-15, atol=0)
        assert a.std == 1 / math.sqrt(d_model)


FIRST_LAYER_GUARDS = {"none": "init+scale", "post": "init+scale", "pre": "norm+init+scale"}


@settings(max_examples=30, deadline=None)
@given(streams(), seeds, norms)
def test_the_first_layer_is_the_multihead_layer_of_the_same_seed(case, seed, norm):
    x, heads = case
    first = encoder.encode(x, seed, 1, norm, heads)[0]
    result, weights = multihead.attend(x, GuardSet.parse(FIRST_LAYER_GUARDS[norm]), seed, heads)
    assert first.weights.attention == weights
    assert first.attention.head_input == (layer_norm(x) if norm == "pre" else x)
    assert [h.weights for h in first.attention.heads] == [h.weights for h in result.heads]
    assert first.attention_update == result.output


@pytest.mark.parametrize("norm", encoder.NORMS)
def test_exactly_one_guard_set_gives_the_first_layers_attention(norm):
    rng = random.Random(5)
    x = [[rng.gauss(0.0, 3.0) + 2.0 for _ in range(8)] for _ in range(5)]
    first = [h.weights for h in encoder.encode(x, 7, 1, norm, 2)[0].attention.heads]
    matching = []
    for guards in all_guard_sets():
        weights = [h.weights for h in multihead.attend(x, guards, 7, 2)[0].heads]
        if np.allclose(weights, first, rtol=0, atol=1e-12):
            matching.append(str(guards))
    assert matching == [FIRST_LAYER_GUARDS[norm]]


@settings(max_examples=30, deadline=None)
@given(streams(), seeds, st.integers(1, 3))
def test_post_and_none_give_the_first_layer_the_same_attention(case, seed, layers):
    x, heads = case
    post = encoder.encode(x, seed, layers, "post", heads)[0].attention
    none = encoder.encode(x, seed, layers, "none", heads)[0].attention
    assert post.head_input == none.head_input == x
    assert [h.weights for h in post.heads] == [h.weights for h in none.heads]
    assert post.output == none.output


@settings(max_examples=40, deadline=None)
@given(streams(), seeds, st.integers(1, 3))
def test_post_ln_leaves_every_row_with_mean_zero_and_unit_variance(case, seed, layers):
    x, heads = case
    stack = encoder.encode(x, seed, layers, "post", heads)
    for done, (_, _, sums) in zip(stack, numpy_encode(x, seed, layers, "post", heads)):
        output = np.array(done.output)
        variance = sums[-1].var(axis=1)  # LayerNorm gives v / (v + eps): 1 up to eps / v
        assert np.all(np.abs(output.mean(axis=1)) < 1e-12)
        assert np.allclose(output.var(axis=1), variance / (variance + EPS), rtol=1e-9, atol=1e-12)
        assert np.all(output.var(axis=1) <= 1.0 + 1e-12)
        assert np.all(output.var(axis=1)[variance >= 1e-2] >= 1.0 - 1e-3)


@settings(max_examples=40, deadline=None)
@given(streams(max_scale=1e2), seeds, st.floats(1.0, 1e3))
def test_pre_ln_first_layer_attention_does_not_see_the_scale_of_x(case, seed, factor):
    x, heads = case
    assume(all(np.var(row) >= 1.0 for row in x))  # well above eps, before and after scaling
    scaled = [[factor * v for v in row] for row in x]
    plain = encoder.encode(x, seed, 1, "pre", heads)[0].attention.heads
    large = encoder.encode(scaled, seed, 1, "pre", heads)[0].attention.heads
    for a, b in zip(plain, large):  # LayerNorm(c x) = LayerNorm(x) up to eps / var(x) <= 1e-5
        assert np.allclose(a.weights, b.weights, rtol=0, atol=1e-3)


def test_without_layernorm_the_first_layer_attention_sees_the_scale_of_x():
    rng = random.Random(2)
    x = [[rng.gauss(0.0, 1.0) for _ in range(8)] for _ in range(6)]
    scaled = [[10.0 * v for v in row] for row in x]
    for norm in ("none", "post"):
        plain = encoder.encode(x, 0, 1, norm, 2)[0].attention.heads
        large = encoder.encode(scaled, 0, 1, norm, 2)[0].attention.heads
        assert max(abs(u - v) for a, b in zip(plain, large) for ra, rb in zip(a.weights, b.weights)
                   for u, v in zip(ra, rb)) > 0.1
        assert max(h.measures.mean_row_max for h in large) > max(h.measures.mean_row_max for h in plain)
    plain = encoder.encode(x, 0, 1, "pre", 2)[0].attention.heads
    large = encoder.encode(scaled, 0, 1, "pre", 2)[0].attention.heads
    assert np.allclose([h.weights for h in plain], [h.weights for h in large], rtol=0, atol=1e-4)


@pytest.mark.parametrize("norm", encoder.NORMS)
def test_the_report_has_every_layers_matrices_in_their_shapes(norm):
    rng = random.Random(1)
    x = [[rng.uniform(-2.0, 2.0) for _ in range(8)] for _ in range(3)]
    stack = encoder.encode(x, 4, 2, norm, 4)
    data = json.loads(json.dumps(encoder.report(stack, ["a", "b", "c"], x, norm, 4)))
    assert list(data) == ["tokens", "x", "heads", "d_ff", "norm", "layers"]
    assert (data["tokens"], data["x"], data["heads"], data["d_ff"], data["norm"]) == (["a", "b", "c"], x, 4, 32, norm)
    assert len(data["layers"]) == 2
    for shown, done in zip(data["layers"], stack):
        assert list(shown) == ["w_q", "w_k", "w_v", "w_o", "w_1", "w_2", "weights", "output"]
        for key in ("w_q", "w_k", "w_v", "w_o"):
            assert np.shape(shown[key]) == (8, 8)
        assert np.shape(shown["w_1"]) == (8, 32) and np.shape(shown["w_2"]) == (32, 8)
        assert np.shape(shown["weights"]) == (4, 3, 3)
        assert np.shape(shown["output"]) == (3, 8)
        assert shown["output"] == done.output


@pytest.mark.parametrize("norm", ["middle", "Pre", "", None, "post-ln"])
def test_check_norm_names_the_placements(norm):
    with pytest.raises(ValueError) as error:
        encoder.check_norm(norm)
    assert str(error.value) == f"unknown LayerNorm placement {norm!r}: use one of none, post, pre"


@pytest.mark.parametrize("norm", encoder.NORMS)
def test_check_norm_accepts_the_placements(norm):
    assert encoder.check_norm(norm) == norm


@pytest.mark.parametrize("layers", [0, 13, -1, True, 2.0, "3", None])
def test_check_layers_wants_a_whole_number_from_1_to_12(layers):
    with pytest.raises(ValueError) as error:
        encoder.check_layers(layers)
    assert str(error.value) == f"layers must be a whole number from 1 to 12, got {layers!r}"


def test_check_layers_accepts_1_to_12():
    assert [encoder.check_layers(n) for n in range(1, 13)] == list(range(1, 13))


@pytest.mark.parametrize("args, message", [
    ((0, 1, "middle", 2), "unknown LayerNorm placement 'middle'"),
    ((0, 0, "pre", 2), "layers must be a whole number from 1 to 12, got 0"),
    ((0, 1, "pre", 3), "3 heads do not split d_model = 4: use one of 1, 2, 4"),
    ((-1, 1, "pre", 2), "a seed is a non-negative integer, got -1"),
])
def test_encode_rejects_bad_arguments_plainly(args, message):
    with pytest.raises(ValueError, match=message):
        encoder.encode([[1.0, 2.0, 3.0, 4.0]], *args)


# block: the baked point, read through sitedata from a tiny table written here

WORDS = ("the", "old", "man", "looked", "at", "sun")


@pytest.fixture
def tiny_site():
    rng = random.Random(11)
    vectors = tuple(tuple(rng.uniform(-3.0, 3.0) for _ in range(8)) for _ in WORDS)
    text = json.dumps(EmbeddingTable("tiny", "raw", 8, WORDS, vectors).to_json())
    previous = sitedata._reader
    sitedata.use({"api/embeddings/tiny.json": text}.__getitem__)
    yield EmbeddingTable.from_json(json.loads(text))
    sitedata.use(previous)


@pytest.mark.parametrize("norm", encoder.NORMS)
def test_the_block_follows_the_stream_layer_by_layer(tiny_site, norm):
    point = encoder.block("tiny", 2, norm, 2, 3, "the old man looked at the sun")
    assert point["schema"] == "scalecore/encoder-block/1"
    assert (point["norm"], point["heads"], point["d_model"], point["d_k"], point["d_ff"]) == (norm, 2, 8, 4, 32)
    x = position_aware_input(tiny_site, point["tokens"])
    stack = encoder.encode(x, 2, 3, norm, 2)
    assert point["input_spread"] == encoder.spread(x)
    assert [layer["layer"] for layer in point["layers"]] == [1, 2, 3]
    for shown, done in zip(point["layers"], stack):
        assert shown["stream_spread"] == encoder.spread(done.output)
        assert shown["attention_input_spread"] == encoder.spread(done.attention.head_input)
        assert [h["weights"] for h in shown["per_head"]] == [h.weights for h in done.attention.heads]
        assert math.isclose(shown["mean_row_max"], sum(h["mean_row_max"] for h in shown["per_head"]) / 2)
    json.dumps(point)


def test_the_block_names_an_unknown_word(tiny_site):
    with pytest.raises(ValueError, match=r"not in the tiny vocabulary \(6 words\): zebra$"):
        encoder.block("tiny", 0, "pre", 2, 1, "the old zebra")
