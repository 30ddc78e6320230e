"""The kinds a site uses: where its pages use them, their settings, and the files they serve.

The plugin bakes and serves only the kinds the pages use (a block ``/// <kind>``) or quote
(``{{ baked: <kind>/... }}``). Each kind's section of the plugin's ``kinds:`` option is checked
with the kind's own ``Settings`` (kinds/options.py), and every message names mkdocs.yml.
"""

import difflib
import re
from pathlib import Path

from scalecore_generator.kinds.options import in_words, listing
from scalecore_generator.foundation.text import fenced_lines
from scalecore_generator.kinds.kind import Kind

BLOCK = re.compile(r"^ {0,3}///[ \t]+([a-z][a-z0-9-]*)")
QUOTED = re.compile(r"\{\{\s*baked:\s*([a-z][a-z0-9-]*)/")
ASSET_SITE = "assets/scalecore/kinds"
SERVED = {"panel.js": "script", "style.css": "style"}
MODULES = "modules"  # a kind's own ES modules, served beside its panel.js


def usage(docs: Path, kinds: dict[str, type[Kind]]) -> tuple[dict[str, str], set[str]]:
    """(kind -> "docs/page.md:line" of its first block, kinds quoted in prose) over every page.

    A quick pass on the sources: mistakes are reported later, with the page, when blocks expand.
    """
    used: dict[str, str] = {}
    quoted: set[str] = set()
    for page in sorted(docs.rglob("*.md")):
        try:
            text = page.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue
        where = f"{docs.name}/{page.relative_to(docs).as_posix()}"
        for number, (line, fenced) in enumerate(zip(text.split("\n"), fenced_lines(text)), start=1):
            if fenced:
                continue
            block = BLOCK.match(line)
            if block and block[1] in kinds:
                used.setdefault(block[1], f"{where}:{number}")
            quoted.update(name for name in QUOTED.findall(line) if name in kinds)
    return used, quoted


def settings(kinds: dict[str, type[Kind]], given: dict, where) -> dict[str, dict]:
    """Each kind's settings, validated; ``where(key, *inner)`` is mkdocs.yml:line of a plugin
    option, or of the deepest key within it found. Raises ValueError with the message."""
    for name in given:
        if name not in kinds:
            close = difflib.get_close_matches(str(name), kinds, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(f"{where('kinds', name)}: option 'kinds': there is no kind named {name!r}. Fix: {hint}"
                             f"the kinds are: {listing(kinds)}.")
    values = {}
    for name, kind in kinds.items():
        section = given.get(name) or {}
        if not isinstance(section, dict):
            raise ValueError(f"{where('kinds', name)}: option 'kinds': the settings of {name!r} must be a mapping. Fix: "
                             f"write e.g. kinds: {{{name}: {{option: value}}}}.")
        config = kind.Settings(config_file_path=str(where("kinds")))
        config.load_dict(section)
        failed, warnings = config.validate()
        known = [key for key, _ in kind.Settings._schema]
        unknown = [key for key, _ in warnings if key not in known]
        if unknown:
            accepted = listing(known) if known else "none"
            close = difflib.get_close_matches(str(unknown[0]), known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(f"{where('kinds', name, unknown[0])}: option 'kinds': {name} has no setting {unknown[0]!r}. Fix: {hint}its "
                             f"settings are: {accepted}.")
        if failed:
            key, error = failed[0]
            raise ValueError(f"{where('kinds', name, key)}: option 'kinds': {name}: setting {key!r}: "
                             f"{in_words(error, section.get(key))}. Fix: write {key}: as its type says "
                             "(scalecore guide options lists each kind's settings).")
        values[name] = {key: config[key] for key in known}
    return values


def served(kind: type[Kind]) -> dict[str, tuple[str, Path]]:
    """role -> (site path, source) of what a kind serves: its script, style and schema, and its
    own ES modules (``modules/<name>.js``, role ``modules/<name>.js``), which its panel.js
    imports when it needs them, so a page without the panel never loads them."""
    files = {}
    for source_name, role in SERVED.items():
        if (kind.folder / source_name).is_file():
            files[role] = (f"{ASSET_SITE}/{kind.name}/{source_name}", kind.folder / source_name)
    modules = kind.folder / MODULES
    if modules.is_dir():
        for module in sorted(modules.glob("*.js")):
            role = f"{MODULES}/{module.name}"
            files[role] = (f"{ASSET_SITE}/{kind.name}/{role}", module)
    if (kind.folder / "schema.json").is_file():
        files["schema"] = (f"api/{kind.name}/schema.json", kind.folder / "schema.json")
    return files
