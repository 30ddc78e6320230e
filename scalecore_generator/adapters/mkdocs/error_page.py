"""The 404 page on a host that serves the site from a subpath, with no site_url.

A static host answers a missing address, at any depth, with the site's 404.html. MkDocs writes
that page with root-absolute addresses ("/assets/...") when site_url is empty: it assumes the
site is the host's root (mkdocs/mkdocs#1598). Served from https://host/course/, the page loaded
https://host/assets/... and the reader got an unstyled page whose every link was wrong.

The page cannot know the subpath when it is written, so it works it out where it is read: its
addresses are written relative, and a first script in <head> finds the site's root in the
missing address and sets the document's <base> to it, before any stylesheet is asked for.
Material resolves its own configuration's ``base`` against the page's address, not the <base>,
so a second script, just after that configuration, writes the root there.

The root is the shortest start of the address whose rest starts with a folder of the site's
pages (the build knows them), or is the missing page's own folder: /course/modules/typo.html and
/course/modules/old/typo.html are under /course/, since "modules" is a folder of the site and
"course" is not; /course/typo.html is under /course/. An address whose folders coincide with the
site's own is ambiguous without asking the server; this rule reads it as a mistake inside the
site, the likelier of the two. Written by hand: no library rewrites a page's addresses for a base the
page only learns when it is read. A site with site_url set keeps MkDocs' own page (its path is
known).
"""

from __future__ import annotations

import json
import re

from mkdocs.utils import is_error_template

_ROOT_ADDRESS = re.compile(r'(\s(?:href|src)=")/(?!/)')
_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S)

# The root, found from the missing address (see the module's docstring); kept for the second script.
_FIND_ROOT = """(function () {
  var folders = %s;
  var parts = location.pathname.split("/").slice(1, -1);
  for (var i = 0; i <= parts.length; i++) {
    if (i === parts.length || folders.indexOf(parts[i]) >= 0) {
      var root = "/" + parts.slice(0, i).map(function (p) { return p + "/"; }).join("");
      var base = document.createElement("base");
      base.href = root;
      document.head.appendChild(base);
      window.__scalecoreRoot = root;
      return;
    }
  }
})();"""

_CONFIG_ROOT = """(function () {
  var config = document.getElementById("__config");
  var values = JSON.parse(config.textContent);
  values.base = window.__scalecoreRoot || "/";
  config.textContent = JSON.stringify(values);
})();"""


def needs_root(template_name: str, site_url: str | None) -> bool:
    """Whether MkDocs wrote this theme page with root-absolute addresses."""
    return is_error_template(template_name) and not site_url


def relative_error_page(html: str, folders: list[str]) -> str:
    """The error page with relative addresses and the two scripts that find the root."""
    html = _ROOT_ADDRESS.sub(r"\1", html)
    first_link = html.find("<link")  # before the first stylesheet (and after the page's policy)
    script = "<script>" + _FIND_ROOT % json.dumps(sorted(folders)) + "</script>\n"
    html = html[:first_link] + script + html[first_link:] if first_link >= 0 else html

    def relative_config(match: re.Match) -> str:
        values = json.loads(match.group(2))
        if isinstance(values.get("search"), str) and values["search"].startswith("/"):
            values["search"] = values["search"][1:]  # a worker's address resolves against the <base>
        return match.group(1) + json.dumps(values) + match.group(3) + "\n<script>" + _CONFIG_ROOT + "</script>"

    return _CONFIG.sub(relative_config, html, count=1)


def site_folders(dest_uris) -> list[str]:
    """The top folders of the site's pages (a missing address a reader follows is a page's)."""
    return sorted({uri.split("/")[0] for uri in dest_uris if uri.endswith(".html") and "/" in uri})
