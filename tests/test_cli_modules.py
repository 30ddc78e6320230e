"""The CLI's multihead and encoder commands: every intermediate as JSON, and mistakes in one line."""

import json

import numpy as np
import pytest

from scalecore import encoder, multihead
from scalecore.guards import GuardSet
from test_cli import cache, scalecore  # noqa: F401  (cache is a fixture: the CLI's embeddings cache)


def numpy_layer_norm(x):
    x = np.asarray(x, dtype=np.float64)
    return (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)


@pytest.mark.parametrize("guards", ["init+scale", "norm+init+scale", "none"])
def test_multihead_json_shows_every_intermediate(guards, cache):
    done = scalecore("multihead", "--corpus", "demo", "--seed", "1", "--heads", "4", "--guards", guards, "--json",
                     cache=cache)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data) == ["tokens", "x", "head_input", "heads", "d_k", "w_q", "w_k", "w_v", "w_o", "weights",
                          "output", "guards"]
    T = len(data["tokens"])
    assert data["tokens"] == ["the", "old", "man", "looked", "at", "the", "light", "of", "the", "sun"]
    assert np.shape(data["x"]) == (T, 32)
    if "norm" in guards:
        assert np.allclose(data["head_input"], numpy_layer_norm(data["x"]), rtol=0, atol=1e-12)
    else:
        assert data["head_input"] == data["x"]
    assert (data["heads"], data["d_k"], data["guards"]) == (4, 8, guards)
    for key in ("w_q", "w_k", "w_v", "w_o"):
        assert np.shape(data[key]) == (32, 32)
    assert np.shape(data["weights"]) == (4, T, T)
    assert np.allclose(np.sum(data["weights"], axis=2), 1.0, rtol=0, atol=1e-12)
    assert np.shape(data["output"]) == (T, 32)
    result, weights = multihead.attend(data["x"], GuardSet.parse(guards), 1, 4)  # JSON floats round-trip
    assert data["output"] == result.output and data["w_o"] == weights.w_o


@pytest.mark.parametrize("norm", encoder.NORMS)
def test_encoder_json_shows_every_layer(norm, cache):
    done = scalecore("encoder", "--corpus", "demo", "--seed", "2", "--layers", "2", "--norm", norm, "--heads", "8",
                     "--json", cache=cache)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data) == ["tokens", "x", "heads", "d_ff", "norm", "layers"]
    T = len(data["tokens"])
    assert np.shape(data["x"]) == (T, 32)
    assert (data["heads"], data["d_ff"], data["norm"]) == (8, 128, norm)
    assert len(data["layers"]) == 2
    stack = encoder.encode(data["x"], 2, 2, norm, 8)
    for shown, layer in zip(data["layers"], stack):
        assert list(shown) == ["w_q", "w_k", "w_v", "w_o", "w_1", "w_2", "weights", "output"]
        for key in ("w_q", "w_k", "w_v", "w_o"):
            assert np.shape(shown[key]) == (32, 32)
        assert np.shape(shown["w_1"]) == (32, 128) and np.shape(shown["w_2"]) == (128, 32)
        assert np.shape(shown["weights"]) == (8, T, T)
        assert np.shape(shown["output"]) == (T, 32)
        assert shown["output"] == layer.output


def test_multihead_prints_each_heads_weights(cache):
    done = scalecore("multihead", "--corpus", "demo", "--heads", "2", cache=cache)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == ("corpus demo, seed 0, guards init+scale, 2 heads of d_k 16: "
                        "the old man looked at the light of the sun")
    assert len(lines) == 1 + 2 * (1 + 10)
    assert lines[1].startswith("head 1: row-max ") and lines[12].startswith("head 2: row-max ")


def test_encoder_prints_one_line_per_layer(cache):
    done = scalecore("encoder", "--corpus", "demo", "--layers", "3", "--norm", "post", cache=cache)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "corpus demo, seed 0, LayerNorm post, 4 heads: the old man looked at the light of the sun"
    assert lines[1].startswith("input spread ")
    assert [line.split(":")[0] for line in lines[2:]] == ["layer 1", "layer 2", "layer 3"]


@pytest.mark.parametrize("args, message", [
    (["multihead", "--corpus", "demo", "--heads", "3"],
     "scalecore: error: 3 heads do not split d_model = 32: use one of 1, 2, 4, 8, 16, 32"),
    (["multihead", "--corpus", "demo", "--heads", "0"],
     "scalecore: error: 0 heads do not split d_model = 32: use one of 1, 2, 4, 8, 16, 32"),
    (["multihead", "--corpus", "demo", "--heads", "5", "--d-model", "12"],
     "scalecore: error: 5 heads do not split d_model = 12: use one of 1, 2, 3, 4, 6, 12"),
    (["multihead", "--corpus", "nope", "--heads", "3"],  # named before the corpus is looked for
     "scalecore: error: 3 heads do not split d_model = 32: use one of 1, 2, 4, 8, 16, 32"),
    (["multihead", "--corpus", "demo", "--heads", "four"],
     "scalecore: error: argument --heads: invalid int value: 'four' (see: python -m scalecore multihead --help)"),
    (["multihead", "--corpus", "demo", "--guards", "init+scaling"],
     "scalecore: error: unknown guard 'scaling' in 'init+scaling': valid guards are norm, init, scale (joined by '+'), or 'none'"),
    (["encoder", "--corpus", "demo", "--heads", "3"],
     "scalecore: error: 3 heads do not split d_model = 32: use one of 1, 2, 4, 8, 16, 32"),
    (["encoder", "--corpus", "demo", "--layers", "0"],
     "scalecore: error: layers must be a whole number from 1 to 12, got 0"),
    (["encoder", "--corpus", "demo", "--layers", "13"],
     "scalecore: error: layers must be a whole number from 1 to 12, got 13"),
    (["encoder", "--corpus", "demo", "--norm", "middle"],
     "scalecore: error: unknown LayerNorm placement 'middle': use one of none, post, pre"),
    (["encoder", "--corpus", "nope", "--norm", "middle"],
     "scalecore: error: unknown LayerNorm placement 'middle': use one of none, post, pre"),
    (["encoder", "--corpus", "demo", "--sentence", "the zebra"],
     "scalecore: error: not in the 'demo' vocabulary: zebra"),
])
def test_mistakes_are_one_line_naming_what_is_accepted_with_exit_code_2(args, message, cache):
    done = scalecore(*args, cache=cache)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [message]
    assert done.stdout == ""
