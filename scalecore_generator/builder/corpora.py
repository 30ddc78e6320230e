"""Corpora for the build, verified once per content instead of on every rebuild.

Loading a corpus decodes, tokenises and checks all of its text (half a second for the KJV): worth
doing when the text changes, not on each warm rebuild. The first load of some content (the bytes
of text.txt and corpus.toml, and the loader's code) records what the build needs to know in the
cache (title and counts); a later build of the same bytes reuses that record and tokenises the
text only if something asks for the sentences (learning embeddings after a cache miss).
"""

import functools
import hashlib
from pathlib import Path

import scalecore.corpus as corpus_module
from scalecore.corpus import METADATA_FILE, SHIPPED, TEXT_FILE, CorpusError, find_corpora, load_corpus
from scalecore_generator.foundation.cache import read_record, write_record


class KnownCorpus:
    """A corpus whose content was verified by an earlier build: the same interface as
    :class:`scalecore.corpus.Corpus`, with the text tokenised only on first use."""

    def __init__(self, folder: Path, name: str, digest: str, facts: dict):
        self.path, self.name, self.digest = str(folder), name, digest
        self.title = facts["title"]
        self._counts = facts["counts"]

    def counts(self) -> dict[str, int]:
        return dict(self._counts)

    @property
    def token_count(self) -> int:
        return self._counts["tokens"]

    @functools.cached_property
    def _loaded(self):
        return load_corpus(self.path)

    def __getattr__(self, attribute):  # sentences, vocabulary(), ...: the real corpus
        # Python's own protocols (pickle asks for __setstate__ before __init__'s attributes
        # exist) are this object's, never forwarded: forwarding them loaded the corpus from a
        # path not yet set, and recursed.
        if attribute.startswith("__") or attribute in self._OWN:
            raise AttributeError(attribute)
        return getattr(self._loaded, attribute)

    _OWN = frozenset({"path", "name", "digest", "title", "_counts"})

    def __getstate__(self):
        """Sent to a worker process (learning an embedding table): the record, not the tokenised
        text, which the worker loads itself, in parallel with the others."""
        state = dict(self.__dict__)
        state.pop("_loaded", None)
        return state


def _loader_version() -> str:
    """The code that reads a corpus: the loader, its files' readers and the tokeniser."""
    from scalecore import corpus_files, tokens

    return hashlib.sha256(b"".join(Path(module.__file__).read_bytes()
                                   for module in (corpus_module, corpus_files, tokens))).hexdigest()


def available(root: Path) -> dict[str, Path]:
    """The corpora a site may name: those shipped with the core (demo, wordnet, kjv), and its own in
    ``root`` (its corpora_dir, when it has one), which win over a shipped one of the same name."""
    found = find_corpora(SHIPPED)
    if Path(root).is_dir():
        found.update(find_corpora(root))
    return found


def default_names(root: Path) -> list[str]:
    """The corpora a site bakes when its ``corpora`` option is empty: its own, or the shipped demo."""
    own = find_corpora(root) if Path(root).is_dir() else {}
    return list(own) or ["demo"]


def load_for_build(root: Path, names: list[str] | None, cache_dir: Path, log, digest=None, memo=None) -> dict:
    """``names`` (the defaults when empty) as corpora, from the verification record when the
    content is known. ``digest`` and ``memo``: the build's ledger and memo, through which a warm
    build knows a corpus's digest (of its text and metadata together) without reading the text
    (the shipped ones are megabytes): see _content_digest."""
    known = available(root)
    wanted = list(dict.fromkeys(names)) if names else default_names(root)
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise CorpusError(root, None, f"no corpus named {unknown[0]!r}.",
                          f"use one of the corpora shipped with Scalecore or in {root}: {', '.join(known)}.")
    loader = _loader_version()
    result = {}
    for name in wanted:
        folder = known[name]
        text, metadata = folder / TEXT_FILE, folder / METADATA_FILE
        if not (text.is_file() and metadata.is_file()):
            result[name] = load_corpus(folder)  # raises: the missing file, and the fix
            continue
        content = _content_digest(text, metadata, digest, memo)
        key = hashlib.sha256(f"{content}\0{loader}".encode()).hexdigest()[:32]
        record = Path(cache_dir) / "corpora" / f"{name}-{key}.json"
        facts = read_record(record, log)
        if facts is not None:
            result[name] = KnownCorpus(folder, name, content, facts)
            continue
        corpus = load_corpus(folder)
        write_record(record, {"title": corpus.title, "counts": corpus.counts()})
        result[name] = corpus
    return result


def _content_digest(text: Path, metadata: Path, digest=None, memo=None) -> str:
    """The sha256 of the text and the metadata together (the core's Corpus.digest, which names
    the corpus's embedding table). With the build's ledger and memo, it is kept under the two
    files' own sha256, which the ledger knows without reading an unchanged file."""
    def read():
        return hashlib.sha256(text.read_bytes() + metadata.read_bytes()).hexdigest()

    if digest is None or memo is None:
        return read()
    return memo.get(f"{digest(text)} {digest(metadata)}", read)


def warn_about_outside_corpora(build) -> None:
    """A corpus folder (or its text) that links outside the site's folder and corpora_dir is
    baked and published like any other: say where it really comes from."""
    inside = [build.root.resolve(), (build.root / build.settings.corpora_dir).resolve(), SHIPPED.resolve()]
    for name, corpus in build.corpora.items():
        folder = Path(corpus.path)
        for path in (folder, folder / "text.txt", folder / "corpus.toml"):
            target = path.resolve()
            if path.is_symlink() or path == folder:
                if not any(target == top or top in target.parents for top in inside):
                    build.log.warning(f"the corpus {name!r} ({path}) links to {target}, outside "
                                     f"{build.root}: that text is baked and published with this site. If that "
                                     "is not meant, copy the corpus into corpora_dir instead of linking it.")
                    break
