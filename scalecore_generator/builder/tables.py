"""The corpora's embedding tables for one build: learned (in parallel) when not in the cache, then
kept in their compact form, what the bake and live mode read."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from scalecore.embeddings import cached_embeddings, table_path
from scalecore_generator.builder import bake, points
from scalecore_generator.errors import BuildError
from scalecore_generator.foundation import disk


def learn_tables(build) -> None:
    """Each corpus's embedding table, learned in parallel when not in the cache, and its compact
    form (what the bake and live mode read), with the words of the shared sentence it lacks.

    A warm build reads no table: the memo "tables" keeps, under the sha256 of the cached table
    (from the digest ledger: checked against its own hash when it was read), the sha256 of
    its compact form and the words it lacks. Only when the compact form in the cache is not
    that file is the table read and written again."""
    settings = build.settings

    def damaged(message):
        build.log.info(f"cache: {message}")

    shape = (settings.d_model, build.cache, settings.recipe, settings.vocabulary_size)
    bake.learn_tables([(corpus, *shape) for corpus in build.corpora.values()
                       if not table_path(corpus, *shape).exists()], build.workers())
    memo = build.memos["tables"]
    build.unknown_words, build.tables_files = {}, {}
    for name, corpus in build.corpora.items():
        compact = build.cache / "site" / f"{points.EMBEDDINGS}/{name}.json"

        def derive():
            table = cached_embeddings(corpus, *shape, on_damage=damaged)
            text = points.dumps(table.to_json())
            _write_if_changed(compact, text)
            return {"compact": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                    "unknown": table.unknown_words(build.tokens)}

        key = json.dumps([build.digests.of(table_path(corpus, *shape)), build.tokens])
        known = memo.get(key, derive)
        if not compact.is_file() or build.digests.of(compact) != known["compact"]:
            known = derive()
            memo.put(key, known)
        build.unknown_words[name] = known["unknown"]
        build.tables_files[f"{points.EMBEDDINGS}/{name}.json"] = compact
    check_shared_sentence(build)

def check_shared_sentence(build) -> None:
    """Every corpus knows every word of the shared sentence the panels compare corpora on."""
    missing = {name: words for name, words in build.unknown_words.items() if words}
    if missing:
        where = "; ".join(f"{name} lacks {', '.join(words)}" for name, words in missing.items())
        settings = build.settings
        raise BuildError(
            f"{settings.where('sentence')}: the shared sentence {settings.sentence!r} must use only words in "
            f"every corpus's top {settings.vocabulary_size} vocabulary: {where}. Fix: choose other words "
            "(option 'sentence') or raise 'vocabulary_size'."
        )


def _write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    disk.write_atomically(path, text)
