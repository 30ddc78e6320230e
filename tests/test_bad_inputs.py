"""Bad inputs: each breaks one thing in a built copy of the fixture site and expects the build to
fail with exactly the message a user needs (the file, the line where there is one, and the fix or
the accepted values), without a Python traceback, and without touching the previous site or the
cache.

The builds are independent processes in their own folders, so the module runs them concurrently
(one per core) and each test then checks its own outcome.
"""

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from scalecore_generator.adapters.mkdocs.config import ScalecoreConfig
from sites import CACHE, build, copy_site, edit, line_of, stamps, tree

OPTIONS = ", ".join(key for key, _ in ScalecoreConfig._schema)


def plugin_option(folder: Path, key: str, message: str) -> list[str]:
    """How MkDocs reports a bad value of one of the plugin's options."""
    return [f"Config value 'plugins': Plugin 'scalecore' option '{key}': {message}"]


def yml(folder: Path, text: str) -> str:
    """``<folder>/mkdocs.yml:<line of text>``."""
    return f"{folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', text)}"


def set_option(folder: Path, old: str, new: str) -> None:
    edit(folder / "mkdocs.yml", old, new)


def add_option(folder: Path, line: str) -> None:
    edit(folder / "mkdocs.yml", "      live: false\n", f"      live: false\n      {line}\n")


def lesson(folder: Path, old: str, new: str) -> None:
    edit(folder / "docs" / "lesson.md", old, new)


# --------------------------------------------------------------------------------------------
# The cases: each breaks one thing in ``folder`` and returns the ERROR lines it expects
# --------------------------------------------------------------------------------------------


def unknown_corpus_name(folder):
    set_option(folder, "corpora: [tiny, small]", "corpora: [tiny, nope]")
    return plugin_option(folder, "corpora", (
        f"{yml(folder, 'corpora:')}: no corpus named 'nope' among those shipped with Scalecore or in {folder}/corpora. "
        f"Fix: list only corpora that exist (demo, kjv, wordnet, small, tiny), or create {folder}/corpora/nope/ with a "
        "text.txt and a corpus.toml."))


def upper_case_corpus_name(folder):
    """A name the loader would reject is never suggested: the likely typo is."""
    set_option(folder, "corpora: [tiny, small]", "corpora: [Tiny, small]")
    return plugin_option(folder, "corpora", (
        f"{yml(folder, 'corpora:')}: no corpus named 'Tiny' among those shipped with Scalecore or in {folder}/corpora. "
        "Fix: did you mean 'tiny'? The corpora are: demo, kjv, wordnet, small, tiny."))


def unknown_corpus_under_a_relative_folder(folder):
    """The fix names a real path a reader can create, with no '..' in it."""
    add_option(folder, "corpora_dir: docs/../corpora")
    set_option(folder, "corpora: [tiny, small]", "corpora: [tiny, Extra_Texts]")
    return plugin_option(folder, "corpora", (
        f"{yml(folder, 'corpora:')}: no corpus named 'Extra_Texts' among those shipped with Scalecore or in "
        f"{folder}/corpora. Fix: corpus names use lower-case letters, digits and '-' only; list one of demo, kjv, "
        "wordnet, small, tiny, or create "
        f"{folder}/corpora/extra-texts/ with a text.txt and a corpus.toml and list 'extra-texts'."))


def negative_seed(folder):
    set_option(folder, "seeds: [0]", "seeds: [0, -1]")
    return plugin_option(folder, "seeds", (
        f"{yml(folder, 'seeds:')}: expected an integer from 0 to 4294967295, got -1. "
        "Fix: write a list of distinct integers from 0 to 4294967295, e.g. seeds: [0, 1, 2]."))


def text_seed(folder):
    set_option(folder, "seeds: [0]", 'seeds: [0, "x"]')
    return plugin_option(folder, "seeds", (
        f"{yml(folder, 'seeds:')}: expected an integer from 0 to 4294967295, got 'x'. "
        "Fix: write a list of distinct integers from 0 to 4294967295, e.g. seeds: [0, 1, 2]."))


def repeated_seed(folder):
    set_option(folder, "seeds: [0]", "seeds: [0, 1, 0]")
    return plugin_option(folder, "seeds",
                         f"{yml(folder, 'seeds:')}: 0 listed more than once. Fix: list each value once.")


def zero_d_k(folder):
    set_option(folder, "d_k: 4", "d_k: 0")
    return plugin_option(folder, "d_k", (
        f"{yml(folder, 'd_k:')}: expected an integer from 1 to 256, got 0. Fix: write an integer from 1 to 256, "
        "e.g. d_k: 16."))


def unknown_recipe(folder):
    add_option(folder, "recipe: tfidf")
    return plugin_option(folder, "recipe", (
        f"{yml(folder, 'recipe:')}: Expected one of: ('raw', 'sqrt', 'log1p', 'ppmi') but received: 'tfidf'. "
        "Fix: write one of raw, sqrt, log1p, ppmi, e.g. recipe: raw."))


def unknown_option(folder):
    add_option(folder, "seed: [1]")
    return plugin_option(folder, "seed", (
        f"{yml(folder, 'seed: [1]')}: unknown option 'seed'. Fix: did you mean 'seeds'? The options are: {OPTIONS}."))


def missing_corpora_folder(folder):
    """Without its own corpora folder a site has the shipped corpora: the ones it lists are not there."""
    shutil.rmtree(folder / "corpora")
    return plugin_option(folder, "corpora", (
        f"{yml(folder, 'corpora:')}: no corpus named 'tiny' among those shipped with Scalecore or in "
        f"{folder}/corpora (no such folder). Fix: list only corpora that exist (demo, kjv, wordnet), or create "
        f"{folder}/corpora/tiny/ with a text.txt and a corpus.toml."))


def missing_corpora_folder_set_by_the_site(folder):
    add_option(folder, "corpora_dir: texts")
    return plugin_option(folder, "corpora_dir", (
        f"{yml(folder, 'corpora_dir: texts')}: the corpora folder {folder}/texts does not exist. Fix: point "
        "corpora_dir (relative to mkdocs.yml) at the folder that holds one sub-folder per corpus, or leave the "
        "option out to use only the corpora shipped with Scalecore."))


def sentence_without_words(folder):
    add_option(folder, 'sentence: "1, 2, 3."')
    return plugin_option(folder, "sentence", (
        f"{yml(folder, 'sentence:')}: the sentence '1, 2, 3.' has no words. Fix: write the sentence every "
        'corpus shares, e.g. sentence: "the old man looked at the light of the sun".'))


def shared_word_missing_from_a_corpus(folder):
    add_option(folder, 'sentence: "the old man looked at the river"')
    return [f"scalecore: {yml(folder, 'sentence:')}: the shared sentence 'the old man looked at the river' must "
            "use only words in every corpus's top 32 vocabulary: tiny lacks river. Fix: choose other words "
            "(option 'sentence') or raise 'vocabulary_size'."]


def missing_text(folder):
    (folder / "corpora" / "small" / "text.txt").unlink()
    text = folder / "corpora" / "small" / "text.txt"
    return [f"scalecore: {text}: missing: every corpus folder needs a text.txt (UTF-8, one sentence per line). "
            f"Fix: put the corpus text in {text}."]


def empty_text(folder):
    text = folder / "corpora" / "tiny" / "text.txt"
    text.write_text("\n  \n", encoding="utf-8")
    return [f"scalecore: {text}: the text is empty. Fix: write the corpus text in this file, one sentence per line."]


def text_not_utf8(folder):
    text = folder / "corpora" / "tiny" / "text.txt"
    data = text.read_bytes()
    text.write_bytes(data + "The caf\u00e9 was open.\n".encode("cp1252"))
    offset = len(data) + len("The caf")
    return [f"scalecore: {text}: byte {offset} is not UTF-8 (line 4). Fix: the file holds 0xE9 there (bytes are "
            "counted from 0); re-save the file as UTF-8, for example with: iconv -f windows-1252 -t utf-8 "
            "(check which encoding it really uses first)."]


def text_without_sentence(folder):
    text = folder / "corpora" / "tiny" / "text.txt"
    text.write_text("1984.\n-- 42 --\n", encoding="utf-8")
    return [f"scalecore: {text}: the text has no usable sentence: no line contains a word made of letters. "
            "Fix: write sentences of words, one per line; digits and punctuation are ignored."]


def missing_metadata(folder):
    metadata = folder / "corpora" / "tiny" / "corpus.toml"
    metadata.unlink()
    return [f"scalecore: {metadata}: missing: every corpus folder needs a corpus.toml beside its text.txt. "
            "Fix: create it with the keys title, source, licence and extraction (the format is described in "
            "scalecore/corpus.py)."]


def metadata_not_toml(folder):
    metadata = folder / "corpora" / "tiny" / "corpus.toml"
    edit(metadata, 'title = "Fixture corpus tiny"', "title = Fixture corpus tiny")
    return [f"scalecore: {metadata}:1: invalid TOML: Invalid value (column 9). Fix: correct the syntax there; "
            'text values need double quotes, e.g. title = "My corpus".']


def metadata_misspelt_key(folder):
    metadata = folder / "corpora" / "tiny" / "corpus.toml"
    edit(metadata, "licence = ", "license = ")
    return [f"scalecore: {metadata}:3: unknown key 'license'. Fix: Did you mean 'licence'? The keys are: title, "
            "source, licence, extraction, description (optional) and the [counts] table."]


def counts_out_of_date(folder):
    with open(folder / "corpora" / "small" / "text.txt", "a", encoding="utf-8") as text:
        text.write("A new sentence.\n")
    metadata = folder / "corpora" / "small" / "corpus.toml"
    return [f"scalecore: {metadata}:6: [counts] say sentences = 6, tokens = 63, vocabulary = 31, but text.txt has "
            "sentences = 7, tokens = 66, vocabulary = 34. Fix: if text.txt changed on purpose, set [counts] to "
            "sentences = 7, tokens = 66, vocabulary = 34."]


def bad_corpus_folder_name(folder):
    shutil.copytree(folder / "corpora" / "tiny", folder / "corpora" / "My_Corpus")
    return [f"scalecore: {folder}/corpora/My_Corpus: the folder name 'My_Corpus' is not a valid corpus name: corpus "
            "names use lower-case letters, digits and '-' only (they appear in URLs). Fix: rename the folder, "
            "for example to 'my-corpus'."]


# Author blocks (scalecore_generator/blocks), on docs/lesson.md. The block errors come after the bake, so
# these cases also show that a late failure keeps the previous site.


def block_unknown_corpus(folder):
    lesson(folder, "corpus: [tiny, small]", "corpus: [tiny, kjv]")
    return ["scalecore: docs/lesson.md:6: /// scale-guards: option 'corpus': 'kjv' is not a baked "
                        f"corpus; the baked corpora are: tiny, small (the plugin option 'corpora', "
                        f"{yml(folder, 'corpora:')})"]


def block_all_corpora_with_others(folder):
    lesson(folder, "corpus: [tiny, small]", "corpus: [all, tiny]")
    return ["scalecore: docs/lesson.md:6: /// scale-guards: option 'corpus': 'all' stands for every "
                        "baked corpus, so it cannot be listed with others; write corpus: all, or list the corpora "
                        "you want"]


def corpus_named_all(folder):
    shutil.copytree(folder / "corpora" / "tiny", folder / "corpora" / "all")
    set_option(folder, "corpora: [tiny, small]", "corpora: [tiny, small, all]")
    return plugin_option(folder, "corpora", (
        f"{yml(folder, 'corpora:')}: the corpus {folder}/corpora/all has a reserved name: a block's 'corpus: all' "
        f"means every baked corpus. Fix: rename the folder, e.g. to {folder}/corpora/all-texts, and list it so."))


def self_check_question_twice(folder):
    check = "/// self-check\nquestion: Why divide by the root?\nanswer: A.\nexplanation: E.\n///\n"
    with open(folder / "docs" / "lesson.md", "a", encoding="utf-8") as page:
        page.write("\n" + check + "\nMore text.\n\n" + check.replace("Why divide", "why  divide"))
    return ["scalecore: docs/lesson.md:28: /// self-check: option 'question': the same question as the "
                        "self-check at docs/lesson.md:20; a reader's progress is kept per question. Fix: ask each "
                        "question once on a page (reword one of the two, or remove one)"]


def self_check_link_to_no_page(folder):
    with open(folder / "docs" / "lesson.md", "a", encoding="utf-8") as page:
        page.write("\n/// self-check\nquestion: Q?\nanswer: See [the start](indx.md).\nexplanation: E.\n///\n")
    return ["scalecore: docs/lesson.md:21: /// self-check: option 'answer': the link to 'indx.md' names "
                        "no page of this site (did you mean 'index.md'?). Fix: link to a page by its .md file, "
                        "relative to this page, e.g. [Corpora](../corpora.md)"]


def nav_entry_to_a_missing_page(folder):
    set_option(folder, "  - Lesson: lesson.md", "  - Lesson: lessons.md")
    return [f"scalecore: {yml(folder, 'lessons.md')}: the nav entry 'lessons.md' is not a page in docs/. Fix: did "
            "you mean 'lesson.md'? Write the path of a page relative to docs/, or add that page."]


def nav_entry_far_from_any_page(folder):
    set_option(folder, "  - Lesson: lesson.md", "  - Lesson: tutorials/first-steps.md")
    return [f"scalecore: {yml(folder, 'first-steps.md')}: the nav entry 'tutorials/first-steps.md' is not a page in "
            "docs/. Fix: write the path of a page relative to docs/ (the pages are: index.md, lesson.md), or add "
            "that page."]


def audience_code_as_callout_type(folder):
    lesson(folder, "Without the guards:", '!!! language-pro "From a linguist\'s perspective"\n    A note.\n\n'
                                          "Without the guards:")
    return ["scalecore: docs/lesson.md:11: '!!! language-pro' names the audience 'language-pro', not a "
                        "callout type: the side notes for language-pro readers are '!!! linguist' admonitions. Fix: "
                        "write '!!! linguist \"From a linguist's perspective\"' (the audience codes guest, it-ml, "
                        "language-pro go in front matter; their callouts are guest, practitioner, linguist)"]


def callout_type_as_audience(folder):
    page = folder / "docs" / "lesson.md"
    page.write_text("---\ncode: T1.demo\ntitle: A lesson\ndescription: A lesson on guards.\n"
                    "audience: [guest, practitioner]\n---\n\n" + page.read_text(encoding="utf-8"), encoding="utf-8")
    return ["scalecore: docs/lesson.md:5: key 'audience': 'practitioner' is not one of guest, it-ml, "
                        "language-pro ('practitioner' is the callout type of the 'it-ml' readers' side notes: write "
                        "'it-ml' here)"]


def generated_table_unknown(folder):
    lesson(folder, "Without the guards:", "{{ scalecore: option }}\n\nWithout the guards:")
    return ["scalecore: docs/lesson.md:11: {{ scalecore: option }}: no table named 'option' (did you "
                        "mean 'options'?). Fix: write one of {{ scalecore: options }}, {{ scalecore: kind-settings }}, "
                        "{{ scalecore: corpora }}"]


def block_bad_guard(folder):
    lesson(folder, "guards: init+scale", "guards: init+scal")
    return ["scalecore: docs/lesson.md:8: /// scale-guards: option 'guards': unknown guard 'scal' in "
                        "'init+scal': valid guards are norm, init, scale (joined by '+'), or 'none'"]


def block_seed_not_baked(folder):
    lesson(folder, "seed: 0", "seed: 7")
    return ["scalecore: docs/lesson.md:7: /// scale-guards: option 'seed': 7 is not a baked seed; "
                        f"the baked seeds are: 0 (the plugin option 'seeds', {yml(folder, 'seeds:')})"]


def block_bad_yaml(folder):
    lesson(folder, "show: [heatmap, measures]", "show: [heatmap, measures")
    return ["scalecore: docs/lesson.md:16: /// scale-guards: the options are not valid YAML (expected "
                        "',' or ']', but got '<stream end>', while parsing a flow sequence that starts on line 16); "
                        "write one 'option: value' per line, lists as [a, b]"]


def block_unknown_kind(folder):
    lesson(folder, "/// scale-guards | The guards", "/// scale-gaurds | The guards")
    return ["scalecore: docs/lesson.md:5: unknown block kind 'scale-gaurds' (did you mean "
                        "'scale-guards'?); the kinds are: console, encoder, multihead, scale-guards, self-check, softmax, variance"]


def block_unclosed(folder):
    lesson(folder, "show: [heatmap, measures]\n///\n", "show: [heatmap, measures]\n")
    return ["scalecore: docs/lesson.md:13: '/// scale-guards' opened here is never closed; add a "
                        "line '///' after its options"]


def block_unknown_option(folder):
    lesson(folder, "show: [heatmap, measures]", "show: [heatmap, measures]\ncolour: red")
    return ["scalecore: docs/lesson.md:17: /// scale-guards: unknown option 'colour'; the options of "
                        "/// scale-guards are: title, corpus, seed, guards, show, locked. Fix: write one of them, or remove the line"]


def block_after_front_matter(folder):
    """Lines count from the top of the .md file, front matter included."""
    page = folder / "docs" / "lesson.md"
    page.write_text("---\ntitle: A lesson\n---\n\n" + page.read_text(encoding="utf-8"), encoding="utf-8")
    lesson(folder, "guards: none", "guards: nrom")
    return ["scalecore: docs/lesson.md:19: /// scale-guards: option 'guards': unknown guard 'nrom' in "
                        "'nrom': valid guards are norm, init, scale (joined by '+'), or 'none'"]


def corpus_huge_line(folder):
    text = folder / "corpora" / "tiny" / "text.txt"
    text.write_text(text.read_text(encoding="utf-8") + "word " * 30000 + "\n", encoding="utf-8")
    return [f"scalecore: {folder}/corpora/tiny/text.txt:4: line 4 is 150,000 characters long (the limit is "
            "100,000). Fix: put one sentence per line; a line this long usually means the text lost its line "
            "breaks (or the file is not text)."]


def corpus_nul_byte(folder):
    text = folder / "corpora" / "tiny" / "text.txt"
    text.write_bytes(text.read_bytes().replace(b"The sun rose", b"The s\x00un rose", 1))
    return [f"scalecore: {folder}/corpora/tiny/text.txt:2: line 2, column 6 holds the control character U+0000 "
            "(NUL), which is not text: it would split the word around it. Fix: remove it (for example: "
            "tr -d '\\000-\\010\\013\\014\\016-\\037' < text.txt > clean.txt); a file full of them is not a "
            "text file."]


def front_matter_bad_audience(folder):
    page = folder / "docs" / "lesson.md"
    page.write_text("---\ncode: T1.demo\ntitle: A lesson\ndescription: A lesson on guards.\n"
                    "audience: [guest, gueest]\n---\n\n" + page.read_text(encoding="utf-8"), encoding="utf-8")
    return ["scalecore: docs/lesson.md:5: key 'audience': 'gueest' is not one of guest, it-ml, "
                        "language-pro (did you mean 'guest'?)"]


def front_matter_next_names_no_page(folder):
    page = folder / "docs" / "lesson.md"
    page.write_text("---\ncode: T1.demo\ntitle: A lesson\ndescription: A lesson on guards.\n"
                    "audience: [guest]\nnext: Hom\n---\n\n" + page.read_text(encoding="utf-8"), encoding="utf-8")
    # MkDocs' own "Error building page 'index.md':" (the page it was rendering, not the one at
    # fault) no longer dangles above the message
    return ["scalecore: docs/lesson.md:6: key 'next': 'Hom' is not the title of another page of this site; "
            "the closest titles are 'Home'. Fix: correct the title, or list it under 'external:' if that module "
            "lives elsewhere on purpose"]


def quote_unknown_path(folder):
    lesson(folder, "Without the guards:", "Without the guards ({{ baked: scale-guards/tiny/9/none/mean_row_max }}):")
    return ["scalecore: docs/lesson.md:11: {{ baked: scale-guards/tiny/9/none/mean_row_max }}: no value "
                        "'9' under scale-guards/tiny; accepted here: 0, mean, lowest, highest. Fix: write one of the "
                        "accepted values there."]


def formula_left_open(folder):
    """A fresh author's \\(T before softmax built without a word and showed "(T before softmax"."""
    lesson(folder, "Without the guards:", "Divide by \\(T before softmax.\n\nWithout the guards:")
    return ["scalecore: docs/lesson.md:11: a formula opened with \\( is not closed in its paragraph, so it is not "
            "typeset: the page shows '(' and the TeX as text. Fix: close it with \\), or write the parenthesis "
            "without the backslash if no formula was meant."]


def block_stray_closing_line(folder):
    lesson(folder, "Without the guards:", "Without the guards:\n\n///")
    return ["scalecore: docs/lesson.md:13: stray '///': no block is open, so there is nothing to "
                        "close; a block opens with '/// <kind>' (the kinds are: console, encoder, multihead, scale-guards, self-check, "
                        "softmax, variance)"]


def full_stack_without_the_console(folder):
    add_option(folder, "console_full_stack: true")
    return plugin_option(folder, "console_full_stack", (
        f"{yml(folder, 'console_full_stack:')}: console_full_stack needs the console, which live: false leaves out. "
        "Fix: set live: true, or leave console_full_stack out."))


@dataclass(frozen=True)
class Case:
    breaks: Callable[[Path], list[str]]

    @property
    def id(self) -> str:
        return self.breaks.__name__.replace("_", "-")


CASES = [Case(f) for f in (
    unknown_corpus_name, upper_case_corpus_name, unknown_corpus_under_a_relative_folder, negative_seed, text_seed, repeated_seed, zero_d_k, unknown_recipe, unknown_option,
    missing_corpora_folder, missing_corpora_folder_set_by_the_site, sentence_without_words, shared_word_missing_from_a_corpus,
    missing_text, empty_text, text_not_utf8, text_without_sentence, missing_metadata, metadata_not_toml,
    metadata_misspelt_key, counts_out_of_date, bad_corpus_folder_name,
    block_unknown_corpus, block_bad_guard, block_seed_not_baked, block_bad_yaml, block_unknown_kind,
    block_unclosed, block_unknown_option, block_after_front_matter, corpus_huge_line,
    front_matter_bad_audience, front_matter_next_names_no_page, quote_unknown_path, block_stray_closing_line, corpus_nul_byte,
    block_all_corpora_with_others, corpus_named_all, self_check_question_twice, self_check_link_to_no_page,
    nav_entry_to_a_missing_page, nav_entry_far_from_any_page, audience_code_as_callout_type, callout_type_as_audience, generated_table_unknown,
    full_stack_without_the_console, formula_left_open,
)]


# --------------------------------------------------------------------------------------------
# Running them
# --------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    folder: Path
    expected: list[str]
    before: tuple
    result: object


def _snapshot(folder: Path) -> tuple:
    return tree(folder / "site"), tree(folder / CACHE), stamps(folder / CACHE)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Every case, built concurrently from a copy of one good build (site and cache present)."""
    template = copy_site(tmp_path_factory.mktemp("template") / "base")
    first = build(template)
    assert first.returncode == 0, first.describe()
    folders = {case.id: tmp_path_factory.mktemp(case.id) / "base" for case in CASES}

    def run(case):
        try:
            folder = copy_site(folders[case.id], source=template)
            before = _snapshot(folder)
            expected = case.breaks(folder)
            return Outcome(folder, expected, before, build(folder))
        except Exception as error:  # reported by the case's own test
            return error

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip([case.id for case in CASES], pool.map(run, CASES)))


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_a_bad_input_fails_with_its_message_and_changes_nothing(case, outcomes):
    outcome = outcomes[case.id]
    if isinstance(outcome, Exception):
        raise outcome
    result = outcome.result
    assert result.returncode == 1, result.describe()
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.describe()
    assert result.errors == outcome.expected, result.describe()
    assert "Aborted with a" in result.stdout, result.describe()
    assert _snapshot(outcome.folder) == outcome.before, "the failed build changed the previous site or the cache"
    assert not list(outcome.folder.glob(".site.partial*"))


def test_there_are_enough_cases():
    assert len(CASES) >= 15
    assert len({case.id for case in CASES}) == len(CASES)
