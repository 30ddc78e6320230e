import json
import math
import subprocess
import sys

import numpy as np
import pytest

from scalecore.embeddings import (
    EmbeddingTable, cached_embeddings, cooccurrence_counts, learn_embeddings, reweight,
    truncated_svd_embedding,
)

TEXT = "the cat sat on the mat\nthe dog sat on the log\na cat and a dog\n"


def test_counts_are_symmetric_within_the_window_and_stop_at_sentence_ends():
    vocabulary = ("a", "b", "c", "d")
    counts = cooccurrence_counts([("a", "b", "c", "d"), ("d", "a")], vocabulary, window=2)
    where = {w: i for i, w in enumerate(vocabulary)}
    assert counts[where["a"], where["b"]] == 1 and counts[where["b"], where["a"]] == 1
    assert counts[where["a"], where["c"]] == 1  # two apart: inside the window
    assert counts[where["a"], where["d"]] == 1  # only from "d a"; three apart does not count
    assert counts[where["c"], where["c"]] == 0
    assert np.array_equal(counts, counts.T)


def test_words_outside_the_vocabulary_are_gaps_not_bridges():
    counts = cooccurrence_counts([("a", "x", "x", "b")], ("a", "b"), window=2)
    assert counts.sum() == 0


def test_every_recipe_compresses_or_keeps_the_counts():
    counts = np.array([[0.0, 9.0], [9.0, 4.0]])
    assert np.array_equal(reweight(counts, "raw"), counts)
    assert reweight(counts, "sqrt")[0, 1] == 3.0
    assert math.isclose(reweight(counts, "log1p")[0, 1], math.log(10))
    assert (reweight(counts, "ppmi") >= 0).all()


def test_the_embedding_reproduces_the_largest_singular_directions():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((60, 60))
    matrix = a @ a.T
    e = truncated_svd_embedding(matrix, 5)
    exact = np.linalg.svd(matrix, compute_uv=False)[:5]
    assert np.allclose(np.linalg.norm(e, axis=0), exact, rtol=1e-6)


def test_fewer_words_than_d_model_gives_zero_columns():
    e = truncated_svd_embedding(np.eye(3) * 2.0, 5)
    assert e.shape == (3, 5) and not e[:, 3:].any()


def test_raw_vectors_grow_with_the_corpus_and_normalised_recipes_grow_less(make_corpus):
    small = make_corpus("small", TEXT)
    large = make_corpus("large", TEXT * 50)

    def size(corpus, recipe):
        table = learn_embeddings(corpus, 4, recipe)
        return max(math.hypot(*v) for v in table.vectors)

    assert math.isclose(size(large, "raw") / size(small, "raw"), 50, rel_tol=1e-5)
    assert size(large, "log1p") / size(small, "log1p") < 5


def test_learning_is_deterministic_and_float32_exact(make_corpus):
    corpus = make_corpus("demo", TEXT)
    a, b = learn_embeddings(corpus, 4), learn_embeddings(corpus, 4)
    assert a == b
    assert all(float(np.float32(v)) == v for row in a.vectors for v in row)


def test_the_compact_export_round_trips_bit_for_bit(make_corpus):
    table = learn_embeddings(make_corpus("demo", TEXT), 6, "sqrt")
    data = json.loads(json.dumps(table.to_json()))
    assert isinstance(data["vectors"], str)
    assert EmbeddingTable.from_json(data) == table


def test_lookup_names_the_unknown_words(make_corpus):
    table = learn_embeddings(make_corpus("demo", TEXT), 4)
    with pytest.raises(ValueError) as error:
        table.lookup(["the", "zebra", "cat", "unicorn", "zebra"])
    assert str(error.value) == "not in the 'demo' vocabulary (9 words): zebra, unicorn"


def test_an_unknown_recipe_lists_the_recipes(make_corpus):
    with pytest.raises(ValueError, match="choose one of raw, sqrt, log1p, ppmi"):
        learn_embeddings(make_corpus("demo", TEXT), 4, "tfidf")


def test_the_cache_returns_the_stored_table_without_learning(make_corpus, tmp_path, monkeypatch):
    corpus = make_corpus("demo", TEXT)
    first = cached_embeddings(corpus, 4, tmp_path / "cache")
    files = list((tmp_path / "cache" / "embeddings").iterdir())
    assert [f.suffix for f in files] == [".json"]  # no temporary file left behind

    def fail(*args, **kwargs):
        raise AssertionError("learned again")

    monkeypatch.setattr("scalecore.embeddings.learn_embeddings", fail)
    assert cached_embeddings(corpus, 4, tmp_path / "cache") == first


def test_a_changed_corpus_or_setting_misses_the_cache(make_corpus, tmp_path):
    corpus = make_corpus("demo", TEXT)
    cached_embeddings(corpus, 4, tmp_path / "cache")
    cached_embeddings(corpus, 5, tmp_path / "cache")
    cached_embeddings(make_corpus("demo", TEXT + "a new line\n"), 4, tmp_path / "cache")
    assert len(list((tmp_path / "cache" / "embeddings").iterdir())) == 3


def test_a_damaged_cache_entry_is_relearned(make_corpus, tmp_path):
    corpus = make_corpus("demo", TEXT)
    table = cached_embeddings(corpus, 4, tmp_path / "cache")
    [entry] = (tmp_path / "cache" / "embeddings").iterdir()
    entry.write_text('{"format": "scalecore-embeddings/1", "d_mo')
    assert cached_embeddings(corpus, 4, tmp_path / "cache") == table


def test_a_cache_entry_with_one_changed_digit_is_reported_and_relearned(make_corpus, tmp_path):
    corpus = make_corpus("demo", TEXT)
    table = cached_embeddings(corpus, 4, tmp_path / "cache")
    [entry] = (tmp_path / "cache" / "embeddings").iterdir()
    text = entry.read_text()
    assert '"the"' in text
    entry.write_text(text.replace('"the"', '"thy"', 1))  # still valid JSON, one word changed
    reports = []
    assert cached_embeddings(corpus, 4, tmp_path / "cache", on_damage=reports.append) == table
    assert reports == [f"the cached embedding table {entry.name} is damaged; it will be learned again."]
    assert cached_embeddings(corpus, 4, tmp_path / "cache", on_damage=reports.append) == table
    assert len(reports) == 1, "the relearned entry is trusted again"


BLOCK_NUMPY = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ImportError("numpy is blocked in this test")
sys.meta_path.insert(0, Block())
"""


def test_the_core_and_the_attention_path_work_without_numpy(make_corpus, tmp_path):
    table = learn_embeddings(make_corpus("demo", TEXT), 4)
    path = tmp_path / "table.json"
    path.write_text(json.dumps(table.to_json()))
    code = BLOCK_NUMPY + f"""
import json, scalecore
from scalecore.embeddings import EmbeddingTable
from scalecore.experiment import run_all
table = EmbeddingTable.from_json(json.load(open({str(path)!r})))
results = run_all(table, ["the", "cat", "sat"], seed=0, d_k=4)
print(len(results), "numpy" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["8", "False"]


def test_load_table_in_a_terminal_is_the_table_the_site_bakes(tmp_path, monkeypatch):
    """`from scalecore import load_table` works outside the browser too: the shipped corpus's
    table, learned with the site's default settings, kept in the user's cache."""
    from scalecore import load_table
    from scalecore.corpus import SHIPPED, VOCABULARY_SIZE, load_corpora
    from scalecore.experiment import Settings

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("SCALECORE_CORPORA", raising=False)
    monkeypatch.chdir(tmp_path)
    table = load_table("demo")
    expected = cached_embeddings(load_corpora(SHIPPED, ["demo"])["demo"], Settings().d_model, tmp_path / "other",
                                 Settings().recipe, VOCABULARY_SIZE)
    assert table.to_json() == expected.to_json()
    assert (tmp_path / "scalecore").is_dir()
