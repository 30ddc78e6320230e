"""``/// self-check``: a question, its answer behind a "Show answer" disclosure, and why.

Plain HTML (<details>), so it works without JavaScript. Each has a stable id, so the reader's
progress (kept in the browser under it) survives edits of the page: the page's slug and either
the author's ``id:`` or a short hash of the normalised question (spaces collapsed, case
folded). Inserting, removing or moving a self-check changes no other's id; rewording a question
changes its own, unless it has an ``id:``. Two self-checks asking the same question on one page,
or sharing an id, stop the build with the lines of both. The id the self-check had when ids were
positions (its number on the page) travels along as ``data-scalecore-legacy-id``, so the browser
moves progress saved under it to the stable id once.

The texts are markdown, rendered with the page's extensions. Raw HTML in them is shown as text.
A link to a page's .md file is written as in the page's own markdown (``[Corpora](../corpora.md)``)
and becomes that page's URL, as MkDocs does elsewhere; a link to a .md file that is not a page
of the site is a build error.
"""

import hashlib
import re

from scalecore_generator.foundation.text import slug
from scalecore_generator.kinds.options import Option, OptionError, Optional, PanelOptions, Text, ValidationError, describe
from scalecore_generator.kinds.kind import Kind

TEXTS = ("question", "answer", "explanation")
ID = re.compile(r"[a-z][a-z0-9-]{0,63}")


class CheckId(Option):
    """An author's id for a self-check: lower-case letters, digits and '-', starting with a letter."""

    def run_validation(self, value):
        if not isinstance(value, str) or not ID.fullmatch(value):
            shown = repr(value) if isinstance(value, str) else describe(value)
            raise ValidationError(f"{shown} is not an id: write lower-case letters, digits and '-', starting "
                                  "with a letter (at most 64), e.g. id: softmax-saturation")
        return value


def normalised(question: str) -> str:
    """What makes two questions the same: their words, whatever the spacing and the case."""
    return " ".join(question.split()).casefold()


def question_key(question: str) -> str:
    """The stable part of a self-check's id derived from its question: 'q' and 8 hex digits."""
    return "q" + hashlib.sha256(normalised(question).encode("utf-8")).hexdigest()[:8]


class SelfCheck(Kind):
    label = "Check yourself"

    class Options(PanelOptions):
        question = Text()
        answer = Text()
        explanation = Text()
        # The id the reader's progress is kept under; default: a hash of the question.
        id = Optional(CheckId())

    def canonical(self, options):
        """What the browser gets as options: none of the texts. The panel reads the check from its
        markup, so the question, answer and explanation (with their markup escaped, each page's
        largest attribute) would travel twice."""
        return {key: value for key, value in super().canonical(options).items() if key not in TEXTS}

    def render(self, options, panel):
        page = panel.context.page
        seen = panel.shared.setdefault("self-check", {"questions": {}, "ids": {}})
        question = normalised(options["question"])
        if question in seen["questions"]:
            raise OptionError("question", f"the same question as the self-check at {page}:"
                                          f"{seen['questions'][question]}; a reader's progress is kept per "
                                          "question. Fix: ask each question once on a page (reword one of "
                                          "the two, or remove one)")
        own = options["id"] or question_key(options["question"])
        if own in seen["ids"]:
            raise OptionError("id" if options["id"] else "question",
                              f"the id {own!r} is already the id of the self-check at {page}:{seen['ids'][own]}. "
                              "Fix: give each self-check its own id")
        seen["questions"][question] = panel.line_of("question")
        seen["ids"][own] = panel.line_of("id" if options["id"] else "question")

        html = {key: panel.markdown(options[key], key) for key in TEXTS}
        page_slug = slug(page)
        check_id = f"scalecore-selfcheck-{page_slug}-{own}"
        legacy_id = f"scalecore-selfcheck-{page_slug}-{panel.kind_number}"  # ids were positions once
        return panel.render_template(options, panel_id=check_id, check_id=check_id, legacy_id=legacy_id, **html)
