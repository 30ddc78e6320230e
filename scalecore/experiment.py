"""One experiment: a sentence from a corpus, through one head, under one guard set.

This is the glue between the pieces, and the single place that defines what a baked result and
a live result contain, so the build and the browser cannot drift apart:

    tokens -> X = E[tokens] + PE  (the position-aware sum)  -> attend(X, guards, seed, d_k)
           -> report: every intermediate and the measures, as plain JSON-ready data
"""

from dataclasses import dataclass

from scalecore.attention import HeadResult, attend
from scalecore.corpus import tokenise
from scalecore.embeddings import DEFAULT_RECIPE, EmbeddingTable
from scalecore.guards import GuardSet, all_guard_sets
from scalecore.matrices import Matrix, add
from scalecore.positional import positional_encoding


@dataclass(frozen=True)
class Settings:
    """The model's sizes. Small on purpose: readers inspect every number."""

    d_model: int = 32  # width of token vectors (embedding and positional encoding)
    d_k: int = 16  # width of queries and keys: the sum in q . k has d_k terms
    recipe: str = DEFAULT_RECIPE  # how the embeddings were learned from counts


def sentence_tokens(sentence: str) -> list[str]:
    """The sentence as lower-case word tokens, read the way corpora are read."""
    tokens = [token for part in tokenise(sentence) for token in part]
    if not tokens:
        raise ValueError(f"no words in the sentence {sentence!r}")
    return tokens


def position_aware_input(table: EmbeddingTable, tokens: list[str]) -> Matrix:
    """X = E[tokens] + PE: each word's vector plus its position's sinusoid, shape (T, d_model)."""
    return add(table.lookup(tokens), positional_encoding(len(tokens), table.d_model))


def run(table: EmbeddingTable, tokens: list[str], seed: int, guards: GuardSet, d_k: int) -> HeadResult:
    """The head on this sentence, with projections drawn from ``seed``."""
    return attend(position_aware_input(table, tokens), guards, seed, d_k, tokens)


def run_all(table: EmbeddingTable, tokens: list[str], seed: int, d_k: int) -> dict[str, HeadResult]:
    """All 8 guard sets, keyed by their names ('none' ... 'norm+init+scale')."""
    x = position_aware_input(table, tokens)
    return {str(guards): attend(x, guards, seed, d_k, tokens) for guards in all_guard_sets()}


def combination(corpus: str, seed: int, guards: str, sentence: str, d_k: int, vocabulary_size: int) -> dict:
    """One baked combination of the guards lesson: what a panel shows, and what produced it.

    The same function bakes ``api/scale-guards/<corpus>/<seed>/<guards>.json`` at build time and
    recomputes it live in the browser (any sentence, seed or d_k): the table comes from the site.
    """
    from scalecore import sitedata

    table = sitedata.embeddings(corpus)
    tokens = sentence_tokens(sentence)
    unknown = table.unknown_words(tokens)
    if unknown:
        raise ValueError(f"not in the {corpus} vocabulary ({len(table.vocabulary)} words): {', '.join(unknown)}")
    shown = report(run(table, tokens, int(seed), GuardSet.parse(guards), int(d_k)), tokens, table)
    return {
        "schema": "scalecore/scale-guards-combination/2",
        "corpus": corpus,
        "seed": int(seed),
        "guards": shown["settings"]["guards"],
        "sentence": sentence,
        "tokens": shown["tokens"],
        "scores": shown["scores"],
        "weights": shown["weights"],
        "measures": shown["measures"],
        "settings": dict(shown["settings"], vocabulary_size=vocabulary_size),
    }


def report(result: HeadResult, tokens: list[str], table: EmbeddingTable) -> dict:
    """Every intermediate of a head as JSON-ready data: the 'show your work' view.

    The keys are a contract (the CLI's ``head --json``, the baked files and the live mode
    all use them): tokens, x, x_norm, w_q, w_k, scores, weights, measures, settings.
    """
    return {
        "tokens": list(tokens),
        "x": result.x,
        "x_norm": result.x_norm,
        "w_q": result.projections.w_q,
        "w_k": result.projections.w_k,
        "scores": result.scores,
        "weights": result.weights,
        "measures": result.measures.as_dict(),
        "settings": {
            "corpus": table.corpus,
            "seed": result.seed,
            "guards": str(result.guards),
            "d_model": result.d_model,
            "d_k": result.d_k,
            "recipe": table.recipe,
            "init_std": result.projections.std,
        },
    }

