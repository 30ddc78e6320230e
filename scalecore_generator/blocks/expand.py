"""Expand every block of a page into the panel's HTML, or fail with the page and the line.

One block goes through: its kind (registry), its YAML body (mapping, with each key's line), its
options (the kind's ``Options``, an OptionGroup: ``validate()``), the baked grid (the kind's
``check``) and its template (the kind's ``render``). The first mistake stops the build.
"""

import traceback
from pathlib import Path
from typing import Callable

import yaml

from scalecore_generator.blocks.base import BlockError, OptionError, PageContext, Panel
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.kinds.options import closest, describe, in_words, listing, suggestion
from scalecore_generator.blocks.scanner import Located, RawBlock, scan


def expand_blocks(markdown: str, context: PageContext, keep: Callable[[str], str] | None = None) -> str:
    """The page's markdown with each block replaced by its panel's HTML, set between blank lines
    so Python-Markdown keeps it as one raw HTML block; or by what ``keep`` gives for that HTML
    (the plugin's slot, scalecore_generator/blocks/stash.py). Raises BlockError."""
    try:
        segments = scan(markdown, sorted(context.kinds), context.line_offset)
        blocks = [segment for segment in segments if isinstance(segment, RawBlock)]
        if context.remembered is not None and blocks:  # blocks/remembered.py
            panels = iter(context.remembered.panels(context, blocks, lambda recording: _render(recording, blocks)))
        else:
            panels = iter(_render(context, blocks))
        lines = []
        for segment in segments:
            if isinstance(segment, RawBlock):
                html = next(panels)
                lines += ["", keep(html) if keep else html, ""]
            else:
                lines.append(segment)
        return "\n".join(lines)
    except Located as error:
        raise BlockError(context.page, error.line, error.message) from None


def _render(context: PageContext, blocks: list[RawBlock]) -> list[str]:
    """The panels of a page's blocks, in order: one expansion, whose state the blocks share."""
    page = _Page(context)
    return [page.expand(block) for block in blocks]


class _Page:
    """The state of one page's expansion: how many blocks of each kind came before."""

    def __init__(self, context: PageContext):
        self.context = context
        self.count = 0
        self.counts: dict[str, int] = {}
        self.shared: dict = {}  # per-page caches kinds may use (a Markdown instance)

    def expand(self, raw: RawBlock) -> str:
        kinds = self.context.kinds
        if raw.kind not in kinds:
            raise Located(raw.line, f"unknown block kind {raw.kind!r}{suggestion(raw.kind, kinds)}; "
                                    f"the kinds are: {listing(sorted(kinds))}")
        kind = kinds[raw.kind]()
        prefix = f"/// {raw.kind}: "
        data, lines = _read_body(raw, prefix)
        schema = dict(kind.Options._schema)

        for key, value in data.items():
            if key not in schema:
                close = closest(key, schema)
                fix = f"write {close!r}" if close else "write one of them"
                raise Located(lines[key], f"{prefix}unknown option {key!r}{suggestion(key, schema)}; "
                                          f"the options of /// {raw.kind} are: {listing(schema)}. "
                                          f"Fix: {fix}, or remove the line")
            if value is None:
                raise Located(lines[key], f"{prefix}option {key!r} has no value; give one after "
                                          f"'{key}:' or remove the line")
        if raw.title is not None:
            if "title" in data:
                raise Located(lines["title"], f"{prefix}the title is given twice, after '|' and as "
                                              "option 'title'; keep one")
            data["title"], lines["title"] = raw.title, raw.line

        options = kind.Options(config_file_path=self.context.page)
        options.load_dict(data)
        failed, _warnings = options.validate()  # unknown keys, the only warnings, are errors above
        if failed:
            key, error = failed[0]
            if key not in data:
                required = [name for name, option in schema.items() if option.required]
                raise Located(raw.line, f"{prefix}missing required option {key!r}; /// {raw.kind} "
                                        f"needs: {listing(required)}")
            raise Located(lines[key], f"{prefix}option {key!r}: {in_words(error, data.get(key))}")

        try:
            kind.check(options, self.context.sites[raw.kind])
            self.count += 1
            self.counts[raw.kind] = self.counts.get(raw.kind, 0) + 1
            panel = Panel(kind, self.context, self.count, self.counts[raw.kind],
                          kind.canonical_json(options), self.shared, raw.line, lines)
            return kind.render(options, panel)
        except OptionError as error:
            if error.key is None:
                raise Located(raw.line, f"{prefix}{error.message}") from None
            raise Located(lines.get(error.key, raw.line), f"{prefix}option {error.key!r}: {error.message}") from None
        except (ScalecoreError, Located):
            raise
        except Exception as error:  # the kind's own check() or render() raised: its line, no traceback
            raise Located(raw.line, f"{prefix}{_kind_code_failed(kind, error)}") from None


def _kind_code_failed(kind, error: Exception) -> str:
    """What a kind's check() or render() raising means for its author: the line of the kind's own
    folder where it was raised (else the innermost line outside the generator), and the fix."""
    frames = traceback.extract_tb(error.__traceback__)
    folder = Path(kind.folder).resolve()
    generator = Path(__file__).resolve().parents[1]
    own = ([frame for frame in frames if Path(frame.filename).resolve().is_relative_to(folder)]
           or [frame for frame in frames if not Path(frame.filename).resolve().is_relative_to(generator)] or frames)
    where = own[-1]
    return (f"{where.filename}:{where.lineno}: the kind's {where.name}() raised {type(error).__name__}: {error}. "
            f"Fix: correct the kind's code at that line (its render() receives the block's options and the "
            "panel: scalecore guide kinds).")


def _read_body(raw: RawBlock, prefix: str) -> tuple[dict, dict[str, int]]:
    """The YAML body as a dict, and the page line of each key. Raises Located.

    Read with libyaml's parser when PyYAML has it (the same constructor, so the same values, in a
    fraction of the time); a body it does not read plainly is read again by the pure-Python
    parser, whose marks and messages the errors quote."""
    if getattr(yaml, "CSafeLoader", None) is not None:
        try:
            return _parse_body(raw, prefix, yaml.CSafeLoader)
        except (Located, yaml.YAMLError):
            pass
    return _parse_body(raw, prefix, yaml.SafeLoader)


def _parse_body(raw: RawBlock, prefix: str, loader_class) -> tuple[dict, dict[str, int]]:
    last = raw.body_line + max(len(raw.body) - 1, 0)

    def page_line(mark) -> int:
        line = raw.body_line + mark.line if mark is not None else raw.body_line
        return min(max(line, raw.body_line), last)  # the end of the stream is the last body line

    loader = loader_class("\n".join(raw.body))
    try:
        node = loader.get_single_node()
        if node is None:  # an empty body: every option at its default
            return {}, {}
        if not isinstance(node, yaml.MappingNode):
            raise Located(page_line(node.start_mark),
                          f"{prefix}the options must be 'option: value' lines (a YAML mapping), "
                          f"got {describe(loader.construct_document(node))}")
        lines: dict[str, int] = {}
        for key_node, _value in node.value:
            key = str(loader.construct_object(key_node, deep=True))  # 'yes' -> 'True', as in data
            line = page_line(key_node.start_mark)
            if key in lines:
                raise Located(line, f"{prefix}option {key!r} is given twice (lines {lines[key]} and "
                                    f"{line}); keep one")
            lines[key] = line
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as error:
        problem = error.problem
        if error.context and error.context_mark is not None:  # where the broken construct began
            problem += f", {error.context} that starts on line {page_line(error.context_mark)}"
        fix = ("; a value that holds ': ' (a question with a colon) must be quoted, "
               "question: \"...\", or written as a block, question: | and the text indented below it"
               if "mapping values are not allowed" in (error.problem or "") else "")
        raise Located(page_line(error.problem_mark),
                      f"{prefix}the options are not valid YAML ({problem}); write one "
                      f"'option: value' per line, lists as [a, b]{fix}") from None
    except yaml.YAMLError as error:
        raise Located(raw.body_line, f"{prefix}the options are not valid YAML ({error}); write one "
                                     "'option: value' per line, lists as [a, b]") from None
    finally:
        loader.dispose()
    return {str(key): value for key, value in data.items()}, lines
