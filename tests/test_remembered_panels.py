"""A page's panels taken from the build's memo (scalecore_generator/blocks/remembered.py): the
same page, the same markdown and figures without rendering a panel; anything a render reads
changed, rendered again."""

import pytest

from scalecore_generator.blocks import BlockError, expand_blocks
from scalecore_generator.blocks import expand as expanding
from scalecore_generator.blocks.base import PageContext, PanelTemplates
from scalecore_generator.blocks.remembered import RememberedPanels
from scalecore_generator.foundation.cache import Memo
from scalecore_generator.blocks.views import Views

from test_blocks import KINDS, SITES, block, read_baked


class Drawing(KINDS["variance"]):
    """The variance panel, with a figure drawn for its fallback as the multihead kind draws its maps."""

    def render(self, options, panel):
        spec = {"tokens": ["the", "old"], "weights": [[0.75, 0.25], [0.5, 0.5]], "title": "Attention weights"}
        figure = panel.figure("heatmap", spec)
        return super().render(options, panel).replace("</div>", f'<img src="{figure}" alt="">\n</div>', 1)


Drawing.name, Drawing.folder = "variance", KINDS["variance"].folder
DRAWING = {**KINDS, "variance": Drawing}
PAGE = "\n".join(["# Guards", "", *block("variance").splitlines(), "",
                  *block("self-check", "question: Why?", "answer: See [corpora](../corpora.md).",
                         "explanation: E").splitlines(), ""])
PAGES = {"../corpora.md": "../../corpora/"}


@pytest.fixture
def renders(monkeypatch):
    """How many times a page's panels were rendered."""
    counted = []
    real = expanding._render
    monkeypatch.setattr(expanding, "_render", lambda context, blocks: counted.append(1) or real(context, blocks))
    return counted


class Build:
    """What one build hands the pages: its memos (kept across builds in ``folder``), views, figures."""

    def __init__(self, folder, kind_keys=None, links=PAGES):
        self.folder, self.links = folder, links
        self.memo = Memo(folder / "panels.json", None, "v1")
        self.texts = Memo(folder / "markdown.json", None, "v1")
        self.views = Views(folder / "views.json")
        self.figures = {}
        self.remembered = RememberedPanels(self.memo, lambda name: (kind_keys or {}).get(name, "same"))

    def expand(self, text: str = PAGE, **markdown) -> str:
        context = PageContext(page="docs/lessons/guards.md", site_root="../../", kinds=DRAWING, sites=SITES,
                              read_baked=read_baked, figures=self.figures, memo=self.texts,
                              resolve_link=self.links.get, templates=PanelTemplates(self.views),
                              remembered=self.remembered, **markdown)
        return expand_blocks(text, context)

    def finish(self):
        for memo in (self.memo, self.texts, self.views):
            memo.save()
        self.views.close()


def test_the_same_page_is_taken_back_whole_with_its_figures_and_without_reading_the_views(tmp_path, renders):
    first = Build(tmp_path)
    html = first.expand()
    first.finish()
    assert renders == [1] and len(first.figures) == 1  # the heatmap's figure
    views = (tmp_path / "views.json").read_bytes()

    second = Build(tmp_path)
    assert second.expand() == html and second.figures == first.figures
    assert renders == [1]
    second.finish()
    assert second.views._memo is None  # the views' megabytes were not read...
    assert (tmp_path / "views.json").read_bytes() == views  # ...and are kept as they were


def test_what_a_remembered_page_asked_is_kept_when_another_page_is_rendered(tmp_path, renders):
    first = Build(tmp_path)
    first.expand()
    first.finish()
    kept = set(first.views.used)

    second = Build(tmp_path)
    second.expand()  # remembered
    second.expand(block("scale-guards", "corpus: demo"))  # rendered: the views are read, and saved
    second.finish()
    assert renders == [1, 1]
    third = Build(tmp_path)
    assert kept <= set(third.views.memo)  # the remembered page's views were not dropped


@pytest.mark.parametrize("change", ["block", "kind", "link"])
def test_a_page_is_rendered_again_when_what_its_panels_read_changed(tmp_path, renders, change):
    first = Build(tmp_path)
    html = first.expand()
    first.finish()
    if change == "block":
        later, text = Build(tmp_path), PAGE.replace("answer: See", "answer: Read")
    elif change == "kind":  # its files, its view of the site, its baked entries or its scripts
        later, text = Build(tmp_path, kind_keys={"self-check": "edited"}), PAGE
    else:  # the linked page moved
        later, text = Build(tmp_path, links={"../corpora.md": "../../texts/corpora/"}), PAGE
    again = later.expand(text)
    assert renders == [1, 1]
    assert (again == html) == (change == "kind")  # the same kind's files, here: the same panels


def test_a_page_whose_link_is_gone_stops_the_build_as_it_did_the_first_time(tmp_path, renders):
    first = Build(tmp_path)
    first.expand()
    first.finish()
    with pytest.raises(BlockError, match="the link to '../corpora.md' names no page of this site"):
        Build(tmp_path, links={}).expand()
    assert renders == [1, 1]


def test_blocks_of_one_page_are_rendered_together_so_a_repeated_question_is_still_found(tmp_path, renders):
    first = Build(tmp_path)
    first.expand()
    first.finish()
    repeated = PAGE + "\n" + block("self-check", "question: why?", "answer: A", "explanation: E")
    with pytest.raises(BlockError, match="guards.md:13: .* the same question as the self-check at docs/lessons/guards.md:7;"):
        Build(tmp_path).expand(repeated)


def test_a_page_whose_blocks_include_a_file_is_rendered_every_time(tmp_path, renders):
    """pymdownx.snippets puts a file's text into a block's text: the file may change while the
    page does not, so such a page's panels are never taken from the memo."""
    (tmp_path / "answer.md").write_text("The first answer.", encoding="utf-8")
    snippets = dict(markdown_extensions=["pymdownx.snippets"],
                    markdown_config={"pymdownx.snippets": {"base_path": [str(tmp_path)]}})
    page = block("self-check", "question: Why?", "answer: |", '  --8<-- "answer.md"', "explanation: E")
    first = Build(tmp_path)
    assert "The first answer." in first.expand(page, **snippets)
    first.finish()
    (tmp_path / "answer.md").write_text("The second answer.", encoding="utf-8")
    assert "The second answer." in Build(tmp_path).expand(page, **snippets)
    assert renders == [1, 1]
    plain = Build(tmp_path)
    plain.expand(PAGE, **snippets)
    plain.finish()
    Build(tmp_path).expand(PAGE, **snippets)  # a page without a snippet is remembered as any other
    assert renders == [1, 1, 1]
