"""Tests of scalecore.corpus: the shipped corpora, the folder format, its errors, tokenising."""

from __future__ import annotations

import hashlib
import importlib.util
import pathlib
import pickle
import random
import re
import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scalecore import corpus as corpus_module
from scalecore.corpus import (
    MAX_LINE_LENGTH,
    SHARED_SENTENCE,
    VOCABULARY_SIZE,
    Corpus,
    CorpusError,
    default_root,
    find_corpora,
    load_corpora,
    load_corpus,
    missing_shared_words,
    split_sentences,
    tokenise,
)

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPORA = REPO / "scalecore" / "corpora"
FIX = "Fix: "


@pytest.fixture(scope="module")
def shipped() -> dict[str, Corpus]:
    """The committed corpora, loaded once for the module (the KJV is ~4 MB)."""
    return load_corpora(CORPORA)


def counts_table(text: str) -> str:
    sentences = tokenise(text)
    return (
        "[counts]\n"
        f"sentences = {len(sentences)}\n"
        f"tokens = {sum(len(s) for s in sentences)}\n"
        f"vocabulary = {len({w for s in sentences for w in s})}\n"
    )


HEADER = 'title = "Sample"\nsource = "Tests"\nlicence = "CC0"\nextraction = "by hand"\n'


def write_corpus(
    root: pathlib.Path,
    name: str = "sample",
    text: str | bytes = "The cat sat on the mat.\nA dog ran.\n",
    toml: str | None = None,
) -> pathlib.Path:
    """Write a corpus folder; by default its corpus.toml is valid with correct counts.

    (Named apart from conftest's ``make_corpus`` fixture, which returns a loaded Corpus.)"""
    folder = root / name
    folder.mkdir(parents=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    (folder / "text.txt").write_bytes(data)
    if toml is None:
        toml = HEADER + "\n" + counts_table(data.decode("utf-8", errors="replace"))
    (folder / "corpus.toml").write_text(toml, encoding="utf-8")
    return folder


def error_of(call, *args) -> str:
    with pytest.raises(CorpusError) as caught:
        call(*args)
    return str(caught.value)


# ------------------------------------------------------------------------------------------
# The shipped corpora
# ------------------------------------------------------------------------------------------


def test_the_repository_ships_demo_kjv_and_wordnet():
    assert list(find_corpora(CORPORA)) == ["demo", "kjv", "wordnet"]


def test_each_shipped_corpus_toml_counts_equal_the_counts_computed_from_its_text(shipped):
    for name, corpus in shipped.items():
        recorded = tomllib.loads((CORPORA / name / "corpus.toml").read_text("utf-8"))["counts"]
        assert recorded == corpus.counts(), name


def test_shipped_metadata_names_source_licence_and_extraction(shipped):
    for name, corpus in shipped.items():
        assert corpus.name == name
        assert corpus.title and corpus.source and corpus.licence and corpus.description
    assert shipped["kjv"].extraction == "python build_tools/extract_corpora.py kjv"
    assert shipped["wordnet"].extraction == "python build_tools/extract_corpora.py wordnet"


def test_extracted_corpora_carry_their_licence_notice_beside_the_text():
    wordnet = (CORPORA / "wordnet" / "LICENSE").read_text("utf-8")
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in wordnet
    assert "THIS SOFTWARE AND DATABASE IS PROVIDED \"AS IS\"" in wordnet
    kjv = (CORPORA / "kjv" / "LICENSE").read_text("utf-8")
    assert "copyright for the King James Version text of the Bible is expired" in kjv


def test_corpora_have_clearly_different_sizes(shipped):
    wordnet, kjv, demo = shipped["wordnet"], shipped["kjv"], shipped["demo"]
    assert 9_000 <= len(wordnet.sentences) <= 11_000
    assert len(kjv.sentences) >= 30_000
    assert len(demo.sentences) == 8
    assert kjv.token_count > 5 * wordnet.token_count
    assert wordnet.token_count > 100 * demo.token_count


def test_extracted_texts_hold_exactly_one_sentence_per_line(shipped):
    for name in ("wordnet", "kjv"):
        lines = (CORPORA / name / "text.txt").read_text("utf-8").splitlines()
        assert len(lines) == len(shipped[name].sentences), name


def test_demo_corpus_has_at_least_36_distinct_words_and_contains_the_shared_sentence(shipped):
    demo = shipped["demo"]
    assert demo.counts()["vocabulary"] >= 36
    (shared,) = tokenise(SHARED_SENTENCE)
    assert tuple(shared) in demo.sentences


def test_shared_sentence_is_plain_lower_case_with_eight_to_ten_tokens():
    (words,) = tokenise(SHARED_SENTENCE)
    assert " ".join(words) == SHARED_SENTENCE
    assert 8 <= len(words) <= 10


def test_every_word_of_the_shared_sentence_is_in_every_corpus_vocabulary(shipped):
    assert missing_shared_words(shipped) == {}
    for corpus in shipped.values():
        vocabulary = set(corpus.vocabulary(VOCABULARY_SIZE))
        assert set(SHARED_SENTENCE.split()) <= vocabulary, corpus.name


def test_missing_shared_words_names_the_missing_word_and_the_corpus(tmp_path, shipped):
    write_corpus(tmp_path, "no-sun", "The old man looked at the light of the moon.\n")
    corpora = {**shipped, **load_corpora(tmp_path)}
    assert missing_shared_words(corpora) == {"no-sun": ["sun"]}


def test_missing_shared_words_respects_the_vocabulary_size(shipped):
    # 'the' is the most frequent word everywhere; with a vocabulary of one, everything else
    # is missing, listed once and in sentence order.
    missing = missing_shared_words(shipped, size=1)
    assert set(missing) == {"demo", "kjv", "wordnet"}
    assert missing["kjv"] == ["old", "man", "looked", "at", "light", "of", "sun"]


def test_missing_shared_words_rejects_a_sentence_without_words(shipped):
    with pytest.raises(ValueError, match="has no words"):
        missing_shared_words(shipped, sentence="123 ...")


# ------------------------------------------------------------------------------------------
# Loading a folder
# ------------------------------------------------------------------------------------------


def test_a_valid_folder_loads_with_its_metadata_sentences_and_digest(tmp_path):
    folder = write_corpus(tmp_path, "sample")
    corpus = load_corpus(folder)
    assert corpus.name == "sample"
    assert (corpus.title, corpus.source, corpus.licence, corpus.extraction) == (
        "Sample",
        "Tests",
        "CC0",
        "by hand",
    )
    assert corpus.description == ""
    assert corpus.sentences == (("the", "cat", "sat", "on", "the", "mat"), ("a", "dog", "ran"))
    assert corpus.token_count == 9
    assert corpus.counts() == {"sentences": 2, "tokens": 9, "vocabulary": 8}
    assert corpus.path == str(folder)
    expected = hashlib.sha256(
        (folder / "text.txt").read_bytes() + (folder / "corpus.toml").read_bytes()
    ).hexdigest()
    assert corpus.digest == expected


def test_digest_changes_when_only_the_metadata_changes(tmp_path):
    folder = write_corpus(tmp_path)
    before = load_corpus(folder).digest
    toml = (folder / "corpus.toml").read_text("utf-8").replace('"Sample"', '"Other"')
    (folder / "corpus.toml").write_text(toml, "utf-8")
    assert load_corpus(folder).digest != before


def test_a_byte_order_mark_and_crlf_line_ends_are_tolerated(tmp_path):
    folder = write_corpus(tmp_path, text=b"\xef\xbb\xbfOne line.\r\nTwo lines\r\n")
    assert load_corpus(folder).sentences == (("one", "line"), ("two", "lines"))


def test_corpus_repr_does_not_print_every_sentence(shipped):
    assert len(repr(shipped["kjv"])) < 2_000


# ------------------------------------------------------------------------------------------
# Error messages (exact)
# ------------------------------------------------------------------------------------------


def test_error_message_has_path_line_problem_and_fix():
    error = CorpusError("corpora/x/corpus.toml", 3, "bad thing.", "do this.")
    assert str(error) == "corpora/x/corpus.toml:3: bad thing. Fix: do this."
    assert (error.path, error.line, error.problem, error.fix) == (
        "corpora/x/corpus.toml",
        3,
        "bad thing.",
        "do this.",
    )
    assert isinstance(error, ValueError)
    error = CorpusError("corpora/x", None, "gone.", "make it.")
    assert str(error) == "corpora/x: gone. Fix: make it."


def test_corpus_error_survives_pickling():
    error = CorpusError("p", 2, "bad.", "fix.")
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.line, copy.fix) == (str(error), 2, "fix.")


def test_missing_folder_is_an_error(tmp_path):
    folder = tmp_path / "nowhere"
    assert error_of(load_corpus, folder) == (
        f"{folder}: corpus folder not found. "
        "Fix: check the path, or create the folder with a text.txt and a corpus.toml."
    )


def test_a_file_instead_of_a_folder_is_an_error(tmp_path):
    path = tmp_path / "file"
    path.write_text("x")
    assert error_of(load_corpus, path).startswith(f"{path}: is not a folder. Fix: ")


def test_missing_corpus_toml_is_an_error(tmp_path):
    folder = write_corpus(tmp_path)
    (folder / "corpus.toml").unlink()
    assert error_of(load_corpus, folder) == (
        f"{folder / 'corpus.toml'}: missing: every corpus folder needs a corpus.toml beside "
        "its text.txt. Fix: create it with the keys title, source, licence and extraction (the "
        "format is described in scalecore/corpus.py)."
    )


def test_missing_text_is_an_error(tmp_path):
    folder = write_corpus(tmp_path)
    (folder / "text.txt").unlink()
    assert error_of(load_corpus, folder) == (
        f"{folder / 'text.txt'}: missing: every corpus folder needs a text.txt (UTF-8, one "
        f"sentence per line). Fix: put the corpus text in {folder / 'text.txt'}."
    )


def test_invalid_toml_names_the_line_reported_by_tomllib(tmp_path):
    folder = write_corpus(tmp_path, toml='title = "a"\nsource = \n')
    assert error_of(load_corpus, folder) == (
        f"{folder / 'corpus.toml'}:2: invalid TOML: Invalid value (column 10). "
        'Fix: correct the syntax there; text values need double quotes, e.g. title = "My corpus".'
    )


def test_missing_key_is_named_with_its_type(tmp_path):
    folder = write_corpus(tmp_path, toml='title = "a"\nsource = "b"\nextraction = "c"\n')
    assert error_of(load_corpus, folder) == (
        f"{folder / 'corpus.toml'}: missing key 'licence' (a string). "
        'Fix: add a line such as: licence = "..."'
    )


def test_wrong_typed_key_names_the_key_its_line_and_the_expected_type(tmp_path):
    toml = 'title = "a"\nsource = "b"\nlicence = "c"\nextraction = 5\n'
    folder = write_corpus(tmp_path, toml=toml)
    assert error_of(load_corpus, folder) == (
        f"{folder / 'corpus.toml'}:4: key 'extraction' must be a string, not an integer (5). "
        'Fix: write the value in double quotes, e.g. extraction = "...".'
    )


def test_a_boolean_count_is_not_an_integer(tmp_path):
    toml = HEADER + "[counts]\nsentences = true\ntokens = 9\nvocabulary = 8\n"
    folder = write_corpus(tmp_path, toml=toml)
    assert "must be a non-negative integer, not a boolean (True)" in error_of(load_corpus, folder)


def test_wrong_typed_count_names_the_key_and_expects_an_integer(tmp_path):
    toml = HEADER + '[counts]\nsentences = "2"\ntokens = 9\nvocabulary = 8\n'
    folder = write_corpus(tmp_path, toml=toml)
    assert error_of(load_corpus, folder) == (
        f"{folder / 'corpus.toml'}:6: key 'counts.sentences' must be a non-negative integer, "
        "not a string ('2'). Fix: write a whole number without quotes, e.g. sentences = 123."
    )


def test_empty_required_key_is_an_error(tmp_path):
    folder = write_corpus(tmp_path, toml=HEADER.replace('"Tests"', '"  "'))
    assert error_of(load_corpus, folder).startswith(
        f"{folder / 'corpus.toml'}:2: key 'source' is empty. Fix: "
    )


def test_unknown_key_suggests_the_close_spelling(tmp_path):
    toml = HEADER.replace("licence", "license")
    folder = write_corpus(tmp_path, toml=toml)
    assert error_of(load_corpus, folder) == (
        f"{folder / 'corpus.toml'}:3: unknown key 'license'. Fix: Did you mean 'licence'? "
        "The keys are: title, source, licence, extraction, description (optional) and the "
        "[counts] table."
    )


def test_counts_may_be_left_out_of_a_hand_written_corpus(tmp_path):
    folder = write_corpus(tmp_path, toml=HEADER)
    assert load_corpus(folder).counts() == {"sentences": 2, "tokens": 9, "vocabulary": 8}


def test_missing_count_key_gives_its_number(tmp_path):
    folder = write_corpus(tmp_path, toml=HEADER + "\n[counts]\nsentences = 2\n")
    assert error_of(load_corpus, folder) == (
        f"{folder / 'corpus.toml'}:6: missing keys 'counts.tokens', 'counts.vocabulary' "
        "(an integer). Fix: add under [counts]: tokens = 9, vocabulary = 8."
    )


def test_stale_counts_are_an_error_giving_the_right_numbers(tmp_path):
    toml = HEADER.replace('"by hand"', '"python make.py"')
    toml += "[counts]\nsentences = 3\ntokens = 9\nvocabulary = 8\n"
    folder = write_corpus(tmp_path, toml=toml)
    assert error_of(load_corpus, folder) == (
        f"{folder / 'corpus.toml'}:5: [counts] say sentences = 3, tokens = 9, vocabulary = 8, "
        "but text.txt has sentences = 2, tokens = 9, vocabulary = 8. Fix: if text.txt changed "
        "on purpose, set [counts] to sentences = 2, tokens = 9, vocabulary = 8 (or rerun: "
        "python make.py)."
    )


def test_empty_text_is_an_error(tmp_path):
    for name, text in (("empty", ""), ("blank", " \n\n\t\n")):
        folder = write_corpus(tmp_path, name, text, toml=HEADER)
        assert error_of(load_corpus, folder) == (
            f"{folder / 'text.txt'}: the text is empty. "
            "Fix: write the corpus text in this file, one sentence per line."
        )


def test_bytes_that_are_not_utf8_are_named_by_offset_and_line(tmp_path):
    folder = write_corpus(tmp_path, text=b"Fine line.\nCaf\xe9 au lait.\n", toml=HEADER)
    assert error_of(load_corpus, folder) == (
        f"{folder / 'text.txt'}: byte 14 is not UTF-8 (line 2). Fix: the file holds 0xE9 "
        "there (bytes are counted from 0); re-save the file as UTF-8, for example with: "
        "iconv -f windows-1252 -t utf-8 (check which encoding it really uses first)."
    )


def test_corpus_toml_that_is_not_utf8_is_an_error(tmp_path):
    folder = write_corpus(tmp_path)
    (folder / "corpus.toml").write_bytes(b'title = "caf\xe9"\n')
    assert error_of(load_corpus, folder).startswith(
        f"{folder / 'corpus.toml'}: byte 12 is not UTF-8 (line 1). Fix: "
    )


def test_text_without_any_word_is_an_error(tmp_path):
    folder = write_corpus(tmp_path, text="1984.\n42 -- 7!\n", toml=HEADER)
    assert error_of(load_corpus, folder) == (
        f"{folder / 'text.txt'}: the text has no usable sentence: no line contains a word made "
        "of letters. Fix: write sentences of words, one per line; digits and punctuation are "
        "ignored."
    )


def test_an_absurdly_long_line_is_named(tmp_path):
    text = "Short.\nAlso short.\n" + "word " * 20_001 + "\nEnd.\n"
    folder = write_corpus(tmp_path, text=text, toml=HEADER)
    assert error_of(load_corpus, folder) == (
        f"{folder / 'text.txt'}:3: line 3 is 100,005 characters long (the limit is 100,000). "
        "Fix: put one sentence per line; a line this long usually means the text lost its "
        "line breaks (or the file is not text)."
    )


def test_a_line_of_exactly_the_limit_is_accepted(tmp_path):
    line = ("ab " * (MAX_LINE_LENGTH // 3 + 1))[:MAX_LINE_LENGTH]
    folder = write_corpus(tmp_path, text=line + "\n")
    assert load_corpus(folder).counts()["sentences"] == 1


def test_a_bad_folder_name_is_an_error_suggesting_a_valid_one(tmp_path):
    folder = write_corpus(tmp_path, "My Corpus")
    expected = (
        f"{folder}: the folder name 'My Corpus' is not a valid corpus name: corpus names use "
        "lower-case letters, digits and '-' only (they appear in URLs). "
        "Fix: rename the folder, for example to 'my-corpus'."
    )
    assert error_of(load_corpus, folder) == expected
    assert error_of(find_corpora, tmp_path) == expected


# ------------------------------------------------------------------------------------------
# Finding and selecting corpora
# ------------------------------------------------------------------------------------------


def test_find_corpora_lists_corpus_folders_sorted_and_ignores_everything_else(tmp_path):
    write_corpus(tmp_path, "zeta")
    write_corpus(tmp_path, "alpha-2")
    (tmp_path / "only-text").mkdir()
    (tmp_path / "only-text" / "text.txt").write_text("Hi.")
    (tmp_path / "README.md").write_text("notes")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / ".Hidden").mkdir()
    (tmp_path / ".Hidden" / "corpus.toml").write_text("")
    found = find_corpora(tmp_path)
    assert list(found) == ["alpha-2", "only-text", "zeta"]
    assert found["zeta"] == tmp_path / "zeta"


def test_a_folder_with_only_a_text_is_found_and_then_reported(tmp_path):
    (tmp_path / "draft").mkdir()
    (tmp_path / "draft" / "text.txt").write_text("Hi.")
    assert "missing: every corpus folder needs a corpus.toml" in error_of(load_corpora, tmp_path)


def test_load_corpora_returns_the_requested_names_in_order(tmp_path):
    for name in ("a", "b", "c"):
        write_corpus(tmp_path, name)
    assert list(load_corpora(tmp_path)) == ["a", "b", "c"]
    assert list(load_corpora(tmp_path, ["c", "a", "c"])) == ["c", "a"]
    assert list(load_corpora(tmp_path, "b")) == ["b"]


def test_unknown_corpus_name_lists_the_available_ones(tmp_path):
    write_corpus(tmp_path, "alpha")
    write_corpus(tmp_path, "beta")
    assert error_of(load_corpora, tmp_path, ["gamma"]) == (
        f"{tmp_path}: no corpus named 'gamma'. "
        "Fix: use one of the corpora in this folder: alpha, beta."
    )


def test_missing_or_empty_corpora_folder_is_an_error(tmp_path):
    missing = tmp_path / "corpora"
    assert error_of(load_corpora, missing) == (
        f"{missing}: corpora folder not found. Fix: check the path, or set SCALECORE_CORPORA "
        "to the folder that holds the corpora."
    )
    missing.mkdir()
    assert error_of(load_corpora, missing).startswith(
        f"{missing}: no corpus found (no sub-folder holds a corpus.toml or text.txt). Fix: "
    )


def test_default_root_prefers_the_environment_then_the_working_directory(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("SCALECORE_CORPORA", str(tmp_path / "elsewhere"))
    assert default_root() == tmp_path / "elsewhere"
    monkeypatch.delenv("SCALECORE_CORPORA")
    monkeypatch.chdir(tmp_path)
    assert default_root() == CORPORA  # no ./corpora here: the ones shipped with the package
    (tmp_path / "corpora").mkdir()
    assert default_root() == pathlib.Path("corpora")


# ------------------------------------------------------------------------------------------
# Tokenising
# ------------------------------------------------------------------------------------------


def test_tokenise_lower_cases_and_drops_digits_and_punctuation():
    assert tokenise("The Cat, the HAT; 42 cats & 3.5 dogs: (yes)") == [
        ["the", "cat", "the", "hat", "cats", "dogs", "yes"]
    ]


def test_inner_apostrophes_and_hyphens_stay_inside_words_other_ones_do_not():
    assert tokenise("Don't o'clock self-contained Beth-el lord's") == [
        ["don't", "o'clock", "self-contained", "beth-el", "lord's"]
    ]
    assert tokenise("'quoted' fathers' pro- and anti-war a--b x-1 rock'n'roll") == [
        ["quoted", "fathers", "pro", "and", "anti-war", "a", "b", "x", "rock'n'roll"]
    ]


def test_typographic_apostrophes_and_hyphens_become_ascii():
    assert tokenise("It\u2019s well\u2010known") == [["it's", "well-known"]]


def test_unicode_letters_are_words_and_digits_of_any_script_are_not():
    hindi = "\u0939\u093f\u0928\u094d\u0926\u0940"  # combining vowel signs inside
    assert tokenise(f"Café NAÏVE Straße \u0661\u0662 x\u00b2y {hindi}") == [
        ["café", "naïve", "straße", "x", "y", hindi]
    ]


def test_lines_and_sentence_final_punctuation_end_sentences():
    text = 'It rained. We stayed in! Did we? "Yes." (Really.) Then\nnext line'
    assert tokenise(text) == [
        ["it", "rained"],
        ["we", "stayed", "in"],
        ["did", "we"],
        ["yes"],
        ["really"],
        ["then"],
        ["next", "line"],
    ]


def test_a_full_stop_before_a_lower_case_word_does_not_end_the_sentence():
    assert tokenise("Pets, e.g. the cat, etc. are fine. 3.5 kg") == [
        ["pets", "e", "g", "the", "cat", "etc", "are", "fine"],
        ["kg"],
    ]


def test_sentences_without_words_are_dropped():
    assert tokenise("...\n\n1984. 42!\n  \nHello.") == [["hello"]]
    assert tokenise("") == []


def test_split_sentences_returns_raw_stripped_sentences_that_split_into_themselves():
    pieces = split_sentences("  One. Two!  \n\nthree e.g. four ")
    assert pieces == ["One.", "Two!", "three e.g. four"]
    assert all(split_sentences(piece) == [piece] for piece in pieces)


@given(st.text())
def test_tokens_are_lower_case_letter_words_and_retokenise_to_themselves(text):
    sentences = tokenise(text)
    for sentence in sentences:
        assert sentence
        for word in sentence:
            assert word == word.lower()
            assert not any(ch.isspace() or ch.isdecimal() for ch in word)
            assert word[0].isalpha() and word[-1] not in "'-"
    rejoined = "\n".join(" ".join(sentence) for sentence in sentences)
    assert tokenise(rejoined) == sentences


# ------------------------------------------------------------------------------------------
# Vocabulary
# ------------------------------------------------------------------------------------------


def sample_corpus(sentences) -> Corpus:
    return Corpus("t", "T", "s", "l", "e", "", tuple(map(tuple, sentences)), "0" * 64, "t")


def test_vocabulary_is_most_frequent_first_with_ties_broken_alphabetically():
    corpus = sample_corpus([["b", "a", "c"], ["d", "c", "b"], ["a", "e"], ["c"]])
    # counts: c 3; a, b 2; d, e 1
    assert corpus.vocabulary() == ("c", "a", "b", "d", "e")
    assert corpus.vocabulary(3) == ("c", "a", "b")
    assert corpus.vocabulary(None) == corpus.vocabulary(100)
    assert corpus.counts() == {"sentences": 4, "tokens": 9, "vocabulary": 5}


def test_vocabulary_does_not_depend_on_the_order_of_the_sentences(shipped):
    sentences = list(shipped["demo"].sentences)
    expected = sample_corpus(sentences).vocabulary()
    for seed in range(5):
        random.Random(seed).shuffle(sentences)
        shuffled = [list(reversed(s)) for s in sentences]
        assert sample_corpus(shuffled).vocabulary() == expected


def test_vocabulary_size_must_be_a_positive_integer():
    corpus = sample_corpus([["a"]])
    for bad in (0, -1, 2.5, True, "10"):
        with pytest.raises(ValueError, match="positive integer"):
            corpus.vocabulary(bad)


def test_shipped_vocabularies_have_the_default_size(shipped):
    assert len(shipped["kjv"].vocabulary()) == VOCABULARY_SIZE
    assert len(shipped["wordnet"].vocabulary()) == VOCABULARY_SIZE
    assert len(shipped["demo"].vocabulary()) == shipped["demo"].counts()["vocabulary"]
    assert shipped["kjv"].vocabulary(3) == ("the", "and", "of")


# ------------------------------------------------------------------------------------------
# The extraction script
# ------------------------------------------------------------------------------------------


@pytest.fixture()
def extraction_script():
    path = REPO / "build_tools" / "extract_corpora.py"
    spec = importlib.util.spec_from_file_location("extract_corpora_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_extraction_names_the_apt_get_command_when_a_package_is_missing(
    extraction_script, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(extraction_script, "WORDNET_DIR", tmp_path)
    monkeypatch.setattr(extraction_script.shutil, "which", lambda name: None)
    monkeypatch.setattr(extraction_script, "CORPORA", tmp_path / "out")
    for name, package in (("wordnet", "wordnet-base"), ("kjv", "bible-kjv-text")):
        assert extraction_script.main([name]) == 2
        message = capsys.readouterr().err
        assert f"the Debian package {package} is not installed" in message
        assert f"sudo apt-get install -y {package}" in message
    assert not (tmp_path / "out").exists()


def test_extraction_records_the_command_that_regenerates_each_corpus(shipped):
    for name in ("wordnet", "kjv"):
        toml = (CORPORA / name / "corpus.toml").read_text("utf-8")
        command = f'extraction = "python build_tools/extract_corpora.py {name}"'
        assert re.search(f"^{re.escape(command)}$", toml, re.M)


def test_module_documents_the_folder_format():
    doc = corpus_module.__doc__
    for needle in ("text.txt", "corpus.toml", "[counts]", "title", "licence", "extraction"):
        assert needle in doc
