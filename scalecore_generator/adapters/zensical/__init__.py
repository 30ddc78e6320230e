"""The Zensical adapter: the same site built by Zensical, Material for MkDocs' successor.

Zensical reads mkdocs.yml and runs Python-Markdown extensions, but runs no MkDocs plugin (it
drops ``plugins: [scalecore]`` without a word) and has no plugin API of its own yet. So the
adapter runs the build around ``zensical build`` instead of inside it (build.py):

    1. read the scalecore options from mkdocs.yml, checked as the MkDocs plugin checks them;
    2. the build's configure and prepare: corpora, bake, runtime, manifest (builder/site_build.py);
    3. write a derived configuration for Zensical: the Markdown extensions the features need,
       the authors' blocks as an extension (blocks.py), our scripts and stylesheet, in a
       project folder of its own inside the cache;
    4. ``zensical build --clean`` in this process, so the blocks' extension reaches the build;
    5. what MkDocs' later hooks do, done on the built files: the baked and runtime files copied
       in, our theme's files minified, each page's math, font preload and policy, the
       mentor's scripts; then the staged site swapped into place.

The engines' differences, feature by feature, are in docs/guide/engines.md (each row tested in
tests/test_engines.py).
"""

ZENSICAL_VERSION = "0.0.73"  # the version tested (build_tools/requirements.lock pins it)
