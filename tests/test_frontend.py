"""The site's own scripts and styles as a reader's browser gets them (scalecore_generator/pages/frontend.py): one
Scalecore stylesheet per page, every own script minified, and esbuild's mistakes reported with the
file and line."""

import re
import subprocess
from pathlib import Path

import pytest

from scalecore_generator.pages import frontend

ESBUILD_MISSING = pytest.mark.skipif(not frontend.ESBUILD.exists(), reason="npm packages not installed (bash build_tools/dev.sh)")


def test_a_stylesheet_moved_into_the_bundle_still_points_at_its_fonts():
    css = ("@font-face{src:url('stix-two-math.woff') format('woff')}"
           ".a{background:url(\"data:image/svg+xml,<svg/>\")} .b{mask:url(#m)} .c{src:url(/abs.woff)}")
    moved = frontend.rebased(css, "assets/scalecore/math/math.css")
    assert "url('math/stix-two-math.woff')" in moved
    assert 'url("data:image/svg+xml,<svg/>")' in moved and "url(#m)" in moved and "url(/abs.woff)" in moved
    katex = frontend.rebased("src:url(fonts/KaTeX_Main-Regular.woff2)", "assets/katex/katex.min.css")
    assert katex == "src:url(../katex/fonts/KaTeX_Main-Regular.woff2)"


@ESBUILD_MISSING
def test_minified_copies_are_cached_by_content_and_a_damaged_copy_is_made_again(tmp_path):
    sources = {"a/x.js": b"function add(first, second) {\n  // a comment\n  return first + second;\n}\n",
               "b/x.js": b"var   y = 1 ;\n", "s.css": b".a {\n  color: red;\n}\n"}
    build = frontend.Minifier(tmp_path)
    first = build.minify(sources)
    assert first["a/x.js"].read_bytes().strip() == b"function add(first,second){return first+second}"  # names as written
    assert b"comment" not in first["a/x.js"].read_bytes()
    assert first["s.css"].read_bytes().strip() == b".a{color:red}"
    build.commit()  # the build succeeded
    assert len(list(tmp_path.iterdir())) == 3
    following = frontend.Minifier(tmp_path)
    cached = following.minify(sources)
    assert all(path.parent == tmp_path for path in cached.values()) and following.fresh is None  # no esbuild run
    expected = {path: cached[path].read_bytes() for path in sources}
    cached["b/x.js"].write_bytes(b"damaged")
    again = frontend.Minifier(tmp_path).minify(sources)
    assert {path: again[path].read_bytes() for path in sources} == expected


@ESBUILD_MISSING
def test_a_failed_build_leaves_the_cache_as_it_was(tmp_path):
    build = frontend.Minifier(tmp_path / "cache")
    made = build.minify({"a.js": b"let  a = 1;\n"})
    assert made["a.js"].is_file()
    build.discard()
    assert not made["a.js"].exists() and not (tmp_path / "cache").exists()


@ESBUILD_MISSING
def test_a_script_esbuild_cannot_parse_is_named_with_its_line(tmp_path):
    minifier = frontend.Minifier(tmp_path)
    with pytest.raises(frontend.FrontendError) as raised:
        minifier.minify({"assets/scalecore/kinds/mine/panel.js": b"export function draw( {\n  return 1;\n}\n"},
                        labels={"assets/scalecore/kinds/mine/panel.js": "kinds/mine/panel.js"})
    message = str(raised.value)
    assert message.startswith('kinds/mine/panel.js:2:9: Expected "}" but found "1"') and "Fix:" in message


def test_a_brace_left_open_is_told_as_such_not_only_at_the_files_end(tmp_path):
    """esbuild finds an unclosed brace at the end of the file: the fix says to look above (a fresh
    author's extra '{' on line 26 was reported at line 72, the file's last)."""
    source = tmp_path / "kinds" / "mine" / "panel.js"
    source.parent.mkdir(parents=True)
    source.write_text("function draw(x) {\n  if (x) {\n  return 1;\n}\n", encoding="utf-8")
    with pytest.raises(frontend.FrontendError) as raised:
        frontend.Minifier(tmp_path / "cache").minify({"assets/scalecore/kinds/mine/panel.js": source.read_bytes()},
                                                     labels={"assets/scalecore/kinds/mine/panel.js": str(source)})
    message = str(raised.value)
    assert message.startswith(f"{source}:5:0: Unexpected end of file") and "look above it for a '{', '(' or '[' opened and not closed" in message


def stylesheets(html: str) -> list[str]:
    return re.findall(r'<link rel="stylesheet" href="([^"]+)"', html)


def test_every_page_links_one_scalecore_stylesheet_after_material_s(built_site):
    for page in ("index.html", "modules/softmax-range.html", "modules/multi-head-attention.html"):
        links = stylesheets((built_site / page).read_text(encoding="utf-8"))
        ours = [link for link in links if "/assets/stylesheets/" not in "/" + link.lstrip("./")]
        assert [Path(link).name for link in ours] == [Path(frontend.STYLESHEET).name], (page, links)
    css = (built_site / frontend.STYLESHEET).read_text(encoding="utf-8")
    # the kinds' own styles, the theme's and the math's are all in it, and its font is found
    assert ".multihead-maps" in css and ".scalecore-module" in css and "math/stix-two-math.woff" in css
    assert (built_site / "assets/scalecore/math/stix-two-math.woff").is_file()


def test_the_site_s_own_scripts_are_served_minified(built_site, tmp_path):
    for script in ("assets/scalecore/panels.js", "assets/scalecore/worker.js",
                   "assets/scalecore/kinds/scale-guards/panel.js", "assets/scalecore-module/module.js"):
        served = (built_site / script).read_text(encoding="utf-8")
        assert "\n  " not in served and "/*" not in served.replace("/*!", ""), script
        checks = []
        for suffix in (".mjs", ".cjs"):  # a module or a classic script: either must parse
            copy = tmp_path / (Path(script).stem + suffix)
            copy.write_text(served, encoding="utf-8")
            checks.append(subprocess.run(["node", "--check", str(copy)], capture_output=True, text=True))
        assert any(check.returncode == 0 for check in checks), (script, [check.stderr for check in checks])


def test_a_script_is_ours_by_its_real_folder_through_any_link(tmp_path):
    """Whether a file is one of our scripts is decided by where it really is: a link to our
    folder (a site that links the theme in) makes its scripts ours, a link out of it does not,
    and a file's own link is followed."""
    from scalecore_generator.pages.frontend import _real_folder, is_own

    ours, other = tmp_path / "ours" / "assets", tmp_path / "npm" / "package"
    ours.mkdir(parents=True)
    other.mkdir(parents=True)
    (ours / "panel.js").write_text("1", encoding="utf-8")
    (other / "lib.js").write_text("2", encoding="utf-8")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "theme").symlink_to(tmp_path / "ours", target_is_directory=True)
    (ours / "vendor").symlink_to(other, target_is_directory=True)
    (tmp_path / "site" / "linked.js").symlink_to(ours / "panel.js")
    _real_folder.cache_clear()
    own = [tmp_path / "ours"]
    assert is_own(tmp_path / "site" / "theme" / "assets" / "panel.js", own)
    assert not is_own(tmp_path / "site" / "theme" / "assets" / "vendor" / "lib.js", own)
    assert not is_own(other / "lib.js", own) and not is_own(ours / "panel.css", [tmp_path / "npm"])
    assert is_own(tmp_path / "site" / "linked.js", own)
