"""The guides travel with the package (issue 47.2): ``scalecore guide`` lists them, prints one for
the terminal (the files it quotes put in, the tables the build writes made, links to other guides
as the command that prints them), or writes them all as HTML; and no message of the generator
names a file of this repository that an author who installed the wheel does not have.

The installed wheel runs ``scalecore guide`` too: tests/test_new_site.py."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scalecore_generator import cli

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO / "scalecore_generator"
DOCS_GUIDES = sorted(path.stem for path in (REPO / "docs" / "guide").glob("*.md"))


def scalecore(*args):
    return subprocess.run([sys.executable, "-m", "scalecore_generator", *args], capture_output=True, text=True)


def test_the_package_carries_every_guide_of_the_docs_site():
    # guide/ links to docs/guide in the repository; the wheel carries the files (pyproject's package-data)
    assert sorted(cli.guide_names()) == DOCS_GUIDES
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert all(f"guide/{name}.md" in nav for name in DOCS_GUIDES), "the docs site shows every guide"
    assert '"guide/*.md"' in (REPO / "pyproject.toml").read_text(encoding="utf-8")


def test_scalecore_guide_lists_the_guides_with_their_titles():
    done = scalecore("guide")
    assert done.returncode == 0, done.stderr
    for name in DOCS_GUIDES:
        assert re.search(rf"^  {re.escape(name)} +\S", done.stdout, re.M), name
    assert re.search(r"^  kinds +Write your own interactive: Add an interactive", done.stdout, re.M)


def test_scalecore_guide_prints_a_guide_as_its_page_shows_it():
    done = scalecore("guide", "kinds")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.startswith("Write your own interactive: scalecore guide kinds\n\n# Write your own interactive\n")
    assert "--8<--" not in text, "the files the guide quotes are put in"
    assert (GENERATOR / "scaffold" / "kinds" / "temperature" / "kind.py").read_text(encoding="utf-8").strip() in text
    assert "Plugin options (scalecore guide options)" in text and "](options.md)" not in text
    assert not text.startswith("---"), "no front matter"
    options = scalecore("guide", "options").stdout
    assert "| `cache_dir` | text |" in options, "the table the build writes is made here too"
    assert "| `temperature` |" not in options and "| `variance` | `samples` |" in options  # the built-in kinds
    # links inside code stay as written (the authoring guide shows how to write one)
    assert "`[the corpora](../corpora.md)`" in scalecore("guide", "authoring").stdout


def test_an_unknown_guide_says_which_there_are():
    done = scalecore("guide", "optons")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("scalecore: error: no guide named 'optons' (did you mean 'options'?): the guides are "
                           f"{', '.join(DOCS_GUIDES)}. Fix: scalecore guide NAME, with one of those names\n")


def test_the_guides_as_html_link_to_each_other(tmp_path):
    done = scalecore("guide", "--html", str(tmp_path / "guides"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"scalecore: the guides are in {tmp_path / 'guides' / 'index.html'}\n"
    written = sorted(path.stem for path in (tmp_path / "guides").glob("*.html"))
    assert written == sorted(DOCS_GUIDES + ["index"])
    kinds = (tmp_path / "guides" / "kinds.html").read_text(encoding="utf-8")
    assert '<a href="options.html">Plugin options</a>' in kinds
    assert "<table>" in (tmp_path / "guides" / "options.html").read_text(encoding="utf-8")
    assert '<a href="new-site.html">Start a new site</a>' in (tmp_path / "guides" / "index.html").read_text(encoding="utf-8")
    refused = scalecore("guide", "kinds", "--html", str(tmp_path / "other"))
    assert refused.returncode == 2 and "Fix: scalecore guide --html DIR, or scalecore guide kinds" in refused.stderr


def _message_strings(path: Path):
    """The string constants of a module that are not docstrings, with their lines (f-strings' parts too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


# What a message may not name: the repository's guides and npm folder (an author has neither), or a
# guide by its title (an author cannot open it; 'scalecore guide NAME' prints it).
REPOSITORY_ONLY = re.compile(r"docs/guide|build_tools/node_modules|build_tools/\S+\.lock|the guide '|"
                             r"(see )?the (authoring|offline|options|mentor) guide\b")


@pytest.mark.parametrize("path", sorted(p.relative_to(GENERATOR).as_posix() for p in GENERATOR.rglob("*.py")
                                        if "vendor" not in p.parts and "__pycache__" not in p.parts))
def test_no_message_names_a_file_only_the_repository_has(path):
    found = [f"{path}:{line}: {text!r}" for line, text in _message_strings(GENERATOR / path)
             if REPOSITORY_ONLY.search(text)]
    assert found == []


def test_every_guide_a_message_names_exists():
    named = set()
    for path in GENERATOR.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".yml", ".md", ".html") and "vendor" not in path.parts \
                and "guide" not in path.relative_to(GENERATOR).parts[:1]:
            named |= set(re.findall(r"scalecore guide ([a-z][a-z-]*)", path.read_text(encoding="utf-8")))
    assert named and named <= set(DOCS_GUIDES), named - set(DOCS_GUIDES)
