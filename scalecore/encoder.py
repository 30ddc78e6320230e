"""The encoder block: attention and a feed-forward network, each added to a residual stream,
with LayerNorm after each sum (post-LN), before each sublayer (pre-LN), or nowhere.

This is exactly PyTorch's ``nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=4 * d_model,
dropout=0, activation="relu", layer_norm_eps=1e-5, bias=False, norm_first=...)`` with LayerNorm's
gain at 1, written with row vectors (``x @ W``):

    post-LN (norm_first=False, the original Transformer):
        x = LN(x + MHA(x));      x = LN(x + FFN(x))
    pre-LN (norm_first=True, Xiong et al. 2020):
        x = x + MHA(LN(x));      x = x + FFN(LN(x))
    none (no LayerNorm: the failure):
        x = x + MHA(x);          x = x + FFN(x)

    FFN(x) = relu(x W_1) W_2     W_1 (d_model, d_ff), W_2 (d_ff, d_model), d_ff = 4 d_model

Where the three guards of the softmax module live here: ``scale`` inside every head (PyTorch
always divides by sqrt(d_k)); ``init`` in the weights, every matrix drawn at 1/sqrt(its fan-in);
``norm`` is the placement of LayerNorm. Pre-LN puts exactly the norm guard in front of every
head; post-LN normalises the stream after each sum, so from the second layer on the heads see a
normalised input, but the first layer's heads see the raw embeddings; with none, nothing stops
the stream, and with it the scores, from growing.

The weights are drawn from ``random.Random(seed)``, layer after layer, each in the order W_Q, W_K,
W_V, W_O, W_1, W_2, so a stack of L layers is the first L layers of any deeper stack, and the
first layer's attention weights are those of :mod:`scalecore.multihead` for the same seed.
"""

import math
import random
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter

from scalecore.layernorm import layer_norm
from scalecore.matrices import Matrix, add, flatten, matmul, mean, shape, std, sumprod
from scalecore.measures import mean_gradient, mean_row_max, share_saturated
from scalecore.multihead import MultiHeadResult, Weights, head_width, mix
from scalecore.projections import standard_matrix

NORMS = ("none", "post", "pre")
FFN_FACTOR = 4  # d_ff = 4 d_model, as in the original Transformer
MAX_LAYERS = 12


@dataclass(frozen=True)
class LayerWeights:
    attention: Weights  # W_Q, W_K, W_V, W_O, each (d_model, d_model), at 1/sqrt(d_model)
    w_1: Matrix  # (d_model, d_ff), at 1/sqrt(d_model)
    w_2: Matrix  # (d_ff, d_model), at 1/sqrt(d_ff)


@dataclass(frozen=True)
class Layer:
    """One layer's work, every intermediate kept."""

    weights: LayerWeights
    attention: MultiHeadResult  # its head_input is what the heads saw
    attention_update: Matrix  # what attention added to the stream
    ffn_update: Matrix  # what the feed-forward network added
    output: Matrix  # the stream after the layer, (T, d_model)


def relu(m: Matrix) -> Matrix:
    return [[x if x > 0.0 else 0.0 for x in row] for row in m]


def feed_forward(x: Matrix, weights: LayerWeights) -> Matrix:
    """FFN(x) = relu(x W_1) W_2: each token on its own, widened to d_ff and back."""
    return active_matmul(relu(matmul(x, weights.w_1)), weights.w_2)


def active_matmul(hidden: Matrix, w: Matrix) -> Matrix:
    """hidden @ w, each row's sums taken over the units relu left active only: a zero adds nothing
    to an accurate sum, and relu zeroes about half of them. The same numbers as matmul, less work."""
    columns = list(zip(*w))
    product = []
    for row in hidden:
        active = [j for j, h in enumerate(row) if h]
        if len(active) < 2:  # itemgetter of one index gives a number, not a tuple: the plain way
            product.append([sumprod(row, column) for column in columns])
            continue
        pick = itemgetter(*active)
        kept = pick(row)
        product.append([sumprod(kept, pick(column)) for column in columns])
    return product


def check_norm(norm: str) -> str:
    if norm not in NORMS:
        raise ValueError(f"unknown LayerNorm placement {norm!r}: use one of {', '.join(NORMS)}")
    return norm


def check_layers(layers: int) -> int:
    if isinstance(layers, bool) or not isinstance(layers, int) or not 1 <= layers <= MAX_LAYERS:
        raise ValueError(f"layers must be a whole number from 1 to {MAX_LAYERS}, got {layers!r}")
    return layers


def layer(x: Matrix, weights: LayerWeights, norm: str, heads: int) -> Layer:
    """One encoder layer on the stream ``x``, with LayerNorm where ``norm`` puts it."""
    if norm == "pre":
        attention = mix(layer_norm(x), weights.attention, heads, scaled=True)
        middle = add(x, attention.output)
        ffn = feed_forward(layer_norm(middle), weights)
        output = add(middle, ffn)
    else:
        attention = mix(x, weights.attention, heads, scaled=True)
        middle = add(x, attention.output)
        if norm == "post":
            middle = layer_norm(middle)
        ffn = feed_forward(middle, weights)
        output = add(middle, ffn)
        if norm == "post":
            output = layer_norm(output)
    return Layer(weights=weights, attention=attention, attention_update=attention.output, ffn_update=ffn,
                 output=output)


def draw_layers(seed: int, d_model: int, layers: int) -> list[LayerWeights]:
    """Every layer's weights, at 1/sqrt(fan-in), from one generator seeded with ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"a seed is a non-negative integer, got {seed!r}")
    drawn = []
    for w_q, w_k, w_v, w_o, w_1, w_2 in _scaled_draws(seed, d_model, layers):
        fresh = [[list(row) for row in m] for m in (w_q, w_k, w_v, w_o)]  # lists the caller may change
        attention = Weights(*fresh, std=1.0 / math.sqrt(d_model))
        drawn.append(LayerWeights(attention=attention, w_1=[list(row) for row in w_1], w_2=[list(row) for row in w_2]))
    return drawn


@lru_cache(maxsize=16)
def _scaled_draws(seed: int, d_model: int, layers: int) -> tuple:
    """Every layer's draws times 1/sqrt(their fan-in), remembered: the three placements of a
    recompute share them."""
    d_ff = FFN_FACTOR * d_model

    def scaled(m, fan_in):
        factor = 1.0 / math.sqrt(fan_in)
        return tuple(tuple(z * factor for z in row) for row in m)

    return tuple((*(scaled(m, d_model) for m in (w_q, w_k, w_v, w_o)), scaled(w_1, d_model), scaled(w_2, d_ff))
                 for w_q, w_k, w_v, w_o, w_1, w_2 in _standard_draws(seed, d_model, layers))


@lru_cache(maxsize=16)
def _standard_draws(seed: int, d_model: int, layers: int) -> tuple:
    rng = random.Random(seed)
    d_ff = FFN_FACTOR * d_model
    shapes = [(d_model, d_model)] * 4 + [(d_model, d_ff), (d_ff, d_model)]
    return tuple(tuple(standard_matrix(rng, rows, cols) for rows, cols in shapes) for _ in range(layers))


def encode(x: Matrix, seed: int, layers: int, norm: str, heads: int) -> list[Layer]:
    """A stack of ``layers`` encoder layers on ``x``, each fed the previous one's output."""
    check_norm(norm)
    check_layers(layers)
    if not x:
        raise ValueError("the encoder needs at least one token")
    head_width(shape(x)[1], heads)
    done = []
    stream = x
    for weights in draw_layers(seed, shape(x)[1], layers):
        done.append(layer(stream, weights, norm, heads))
        stream = done[-1].output
    return done


def spread(m: Matrix) -> float:
    """The std of all entries: how large the numbers in the stream are."""
    return std(flatten(m))


def ffn_share(done: Layer) -> float:
    """The feed-forward network's share of what the layer added: its sum of squares over the
    sum of both sublayers' (0 when attention adds everything, 1 when the FFN does)."""
    ffn = math.fsum([v * v for v in flatten(done.ffn_update)])  # a list, not a generator: faster, the same sum
    attention = math.fsum([v * v for v in flatten(done.attention_update)])
    return ffn / (ffn + attention) if ffn + attention > 0 else 0.0


def block(corpus: str, seed: int, norm: str, heads: int, layers: int, sentence: str) -> dict:
    """One baked point of the encoder lesson: layer by layer, the residual stream's spread, what
    each sublayer adds, and each head's weights and saturation. Recomputed live by the same
    function."""
    from scalecore import sitedata
    from scalecore.experiment import position_aware_input, sentence_tokens

    table = sitedata.embeddings(corpus)
    tokens = sentence_tokens(sentence)
    unknown = table.unknown_words(tokens)
    if unknown:
        raise ValueError(f"not in the {corpus} vocabulary ({len(table.vocabulary)} words): {', '.join(unknown)}")
    x = position_aware_input(table, tokens)
    stack = encode(x, int(seed), int(layers), check_norm(norm), int(heads))
    per_layer = []
    for number, done in enumerate(stack, start=1):
        # The three measures of each head the lesson shows, straight from its weights (a head's
        # other measures are never worked out here: see scalecore.multihead.Head)
        maps = [head.weights for head in done.attention.heads]
        row_max, gradient = [mean_row_max(a) for a in maps], [mean_gradient(a) for a in maps]
        per_layer.append({
            "layer": number,
            "attention_input_spread": spread(done.attention.head_input),
            "attention_update_spread": spread(done.attention_update),
            "ffn_update_spread": spread(done.ffn_update),
            "ffn_share": ffn_share(done),
            "stream_spread": spread(done.output),
            "mean_row_max": mean(row_max),
            "gradient": mean(gradient),
            "saturated_share": mean([share_saturated(a) for a in maps]),
            "per_head": [{"weights": a, "mean_row_max": m, "gradient": g} for a, m, g in zip(maps, row_max, gradient)],
        })
    return {
        "schema": "scalecore/encoder-block/1",
        "corpus": corpus,
        "seed": int(seed),
        "norm": norm,
        "heads": int(heads),
        "d_model": table.d_model,
        "d_k": head_width(table.d_model, int(heads)),
        "d_ff": FFN_FACTOR * table.d_model,
        "sentence": sentence,
        "tokens": tokens,
        "input_spread": spread(x),
        "layers": per_layer,
    }


def report(stack: list[Layer], tokens: list[str], x: Matrix, norm: str, heads: int) -> dict:
    """Every intermediate as JSON-ready data: the CLI's ``encoder --json``."""
    return {
        "tokens": list(tokens),
        "x": x,
        "heads": heads,
        "d_ff": FFN_FACTOR * shape(x)[1],
        "norm": norm,
        "layers": [{
            "w_q": done.weights.attention.w_q,
            "w_k": done.weights.attention.w_k,
            "w_v": done.weights.attention.w_v,
            "w_o": done.weights.attention.w_o,
            "w_1": done.weights.w_1,
            "w_2": done.weights.w_2,
            "weights": [head.weights for head in done.attention.heads],
            "output": done.output,
        } for done in stack],
    }
