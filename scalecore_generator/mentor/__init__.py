"""The mentor's sources: what a module page says, cut into passages, and the numbers the site baked.

A static site has no server to answer questions, so the mentor answers from sources only: the
passages of the module and of its prerequisites (each with the section it belongs to), the
explanation of the self-check closest to the question, and, for questions about numbers, the
values the kinds baked (their quote trees, the same ones ``{{ baked: }}`` reads). This module
prepares those sources at build; the browser searches them (MiniSearch, in
``assets/scalecore-module/mentor-core.js``), so a question never leaves the reader's machine.

What counts as a passage is decided by the page's markup, not by any kind:

- a paragraph or a list item of the text, under the nearest heading with an id;
- a paragraph of a callout (an admonition), labelled with the callout's title;
- the parts of a panel that its template marks with ``data-scalecore-passage="<part>"``, joined
  into one passage per panel (a self-check marks its question, answer and explanation);
- a panel's readout (a measure's name and its hint, as the views draw them), once a page, role
  "measure"; the rest of a panel (controls, figures, the readouts' values, tables of numbers) is
  left to the facts.

Each passage also gets a role, read from the authoring conventions of docs/guide/authoring.md,
never from a lesson's words: a concept box (``!!! abstract``), a "Why it matters:" line, a
self-check, another callout (an aside for one audience), the learning goals ("You will be
able to:"), a pointer to other pages ("Where next:", "On this site:") or a reference (a list item
citing an outside source). The browser leads an explanation with the first kinds and never
answers with the last three. A passage is kept as sentences, each a list of text and formulas;
a formula is typeset at build as the page's own (MathML) and shipped as a tree of elements the
browser builds, so an answer shows the page's maths and no markup string is ever parsed there.


The package, one concept a module:

    text.py         formulas as plain text; a block's text cut into segments and sentences
    passages.py     a rendered page read: passages (section, label, role), outline, panels
    formulas.py     the passages' formulas typeset once, as MathML trees the browser builds
    facts.py        the numbers the kinds baked (the quote trees) and the corpora they name
    encoder.py      the sentence encoder: passages embedded at build, the files the browser needs
    script.py       a module page's mentor data script; the files the mentor ships
    collector.py    the site build's side: pages read as they render, scripts written (memoised)
    local_model.py  the optional local model (option mentor_model) and wllama
"""

from __future__ import annotations

from scalecore_generator.mentor.collector import Collector
from scalecore_generator.mentor.encoder import (
    ENCODER_FOLDER,
    ENCODER_PIN,
    ENCODER_SITE,
    MAX_TOKENS,
    Encoder,
    encode_passages,
    encoder,
    encoder_assets,
    encoder_available,
    pack,
    plain_text,
    word_pieces,
)
from scalecore_generator.mentor.facts import corpora_words, facts
from scalecore_generator.mentor.formulas import MATHML, math_trees
from scalecore_generator.mentor.local_model import (
    MODEL_LOCK,
    MODEL_NAME,
    MODEL_SITE,
    WLLAMA_SITE,
    ModelError,
    model_assets,
    model_file,
)
from scalecore_generator.mentor.passages import (
    BLOCKS,
    CONCEPT_CALLOUT,
    HEADINGS,
    LEAD_IN,
    LEAD_ROLES,
    SKIPPED,
    VOID,
    Page,
    read_page,
)
from scalecore_generator.mentor.script import (
    GLOBAL,
    SCRIPT_FOLDER,
    THEME_SCRIPTS,
    assets,
    data_script,
    script_path,
    vectors_path,
)
from scalecore_generator.mentor.text import (
    MATH,
    flat,
    readable,
    segments,
    sentences,
    tex_to_text,
)

__all__ = ["BLOCKS", "CONCEPT_CALLOUT", "ENCODER_FOLDER", "ENCODER_PIN", "ENCODER_SITE", "GLOBAL", "HEADINGS", "LEAD_IN", "LEAD_ROLES", "MATH", "MATHML", "MAX_TOKENS", "MODEL_LOCK", "MODEL_NAME", "MODEL_SITE", "SCRIPT_FOLDER", "SKIPPED", "THEME_SCRIPTS", "VOID", "WLLAMA_SITE", "Collector", "Encoder", "ModelError", "Page", "assets", "corpora_words", "data_script", "encode_passages", "encoder", "encoder_assets", "encoder_available", "facts", "flat", "math_trees", "model_assets", "model_file", "pack", "plain_text", "read_page", "readable", "script_path", "segments", "sentences", "tex_to_text", "vectors_path", "word_pieces"]
