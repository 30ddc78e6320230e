"""``load_table``: the embedding table of a corpus, the same in the browser and in a terminal."""


def load_table(corpus: str):
    """The embedding table of a corpus, by name: ``load_table("demo")``.

    In the browser (the site's console), the table the site was built with, read from the site
    and checked against its manifest. In a terminal, the same table learned from the corpora
    shipped with this package (or ``$SCALECORE_CORPORA``), with the site's default settings, kept
    in the user's cache: learning needs numpy, which the browser path never imports. So the
    lesson's starter code runs as written in either place.
    """
    import sys

    if sys.platform in ("emscripten", "wasi"):  # the site's console: Pyodide, or the full stack
        from scalecore.browser import load_table as from_the_site

        return from_the_site(corpus)
    from scalecore.cli import default_cache
    from scalecore.corpus import VOCABULARY_SIZE, default_root, load_corpora
    from scalecore.embeddings import cached_embeddings
    from scalecore.experiment import Settings

    settings = Settings()
    found = load_corpora(default_root(), [corpus])[corpus]
    return cached_embeddings(found, settings.d_model, default_cache(), settings.recipe, VOCABULARY_SIZE)

