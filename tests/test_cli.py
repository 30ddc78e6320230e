import json
import shutil
import subprocess
import sys

import pytest

from scalecore.corpus import SHIPPED


def scalecore(*args, cache):
    return subprocess.run([sys.executable, "-m", "scalecore", *args, "--cache", str(cache)],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def cache(tmp_path_factory, real_tables):
    """The commands' own cache, starting with the real tables (conftest.real_tables)."""
    return shutil.copytree(real_tables, tmp_path_factory.mktemp("cli") / "cache")


def test_table_prints_every_corpus_and_guard_set_aligned(cache):
    done = scalecore("table", "--seed", "0", cache=cache)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("sentence: the old man looked at the light of the sun")
    assert lines[1].split()[:2] == ["corpus", "guards"]
    rows = lines[2:]
    assert len(rows) == 3 * 8
    assert {len(row) for row in rows} == {len(lines[1])}  # right-aligned numbers: one width
    assert [row.split()[0] for row in rows[::8]] == ["demo", "wordnet", "kjv"]  # smallest corpus first


def test_head_json_shows_every_intermediate(cache):
    done = scalecore("head", "--corpus", "demo", "--seed", "0", "--guards", "init+scale", "--json", cache=cache)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {"tokens", "x", "x_norm", "w_q", "w_k", "scores", "weights", "measures", "settings"} <= set(data)
    assert data["x_norm"] is None
    assert data["settings"]["d_model"] == 32 and data["settings"]["d_k"] == 16 and data["settings"]["recipe"] == "raw"
    assert len(data["w_q"]) == 32 and len(data["w_q"][0]) == 16
    assert len(data["weights"]) == len(data["tokens"]) == 10


@pytest.mark.parametrize("args, message", [
    (["head", "--corpus", "nope"], f"scalecore: error: {SHIPPED}: no corpus named 'nope'. Fix: use one of the corpora in this folder: demo, kjv, wordnet."),
    (["head", "--corpus", "demo", "--guards", "init+scaling"], "scalecore: error: unknown guard 'scaling' in 'init+scaling': valid guards are norm, init, scale (joined by '+'), or 'none'"),
    (["head", "--corpus", "demo", "--sentence", "the zebra and the unicorn"], "scalecore: error: not in the 'demo' vocabulary: zebra, unicorn"),
    (["table", "--recipe", "tfidf"], "scalecore: error: unknown recipe 'tfidf': choose one of raw, sqrt, log1p, ppmi"),
    (["table", "--seed", "-3"], "scalecore: error: a seed is a non-negative integer, got -3"),
])
def test_mistakes_are_one_line_with_exit_code_2(args, message, cache):
    done = scalecore(*args, cache=cache)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith(message), done.stderr
