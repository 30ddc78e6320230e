"""A Content-Security-Policy on every page, as a ``<meta>`` tag: static hosts differ in the headers
they let a site send, and a meta tag travels with the page (the offline bundle too).

The policy says what the site is: everything comes from the site itself. Scripts only from its
own files, plus the few inline scripts the theme writes into each page (Material's, a few hundred
bytes each), allowed by their sha256, computed here from the finished page, so nothing inline is
allowed that the build did not write. WebAssembly may be compiled ('wasm-unsafe-eval': Pyodide,
and the mentor's optional model), which is not permission to eval JavaScript. Workers come from
the site or from blob: URLs (the model's runtime starts its worker from one, and a blob worker
keeps this policy). Styles allow inline style attributes: KaTeX positions every glyph with one,
and a style cannot run code. No plugin, no form sent elsewhere, no <base> that could point the
page's relative URLs elsewhere. No frame: nothing of the site uses one, and a frame of the site's
own files is how a file with a script would run on its origin (pages/author_files.py); a page
whose author put an <iframe> in it may frame the site's own files, never another site's.

A package mirror configured for the console (option package_mirror) is the one other origin the
policy names, for fetching only.

The Python worker's own fetches (Pyodide's files, the wheels, the memory snapshot of
scalecore_generator/runtime/snapshot.py) are all of the site's origin, which connect-src 'self' allows (a
worker loaded from a URL is not under the page's policy in any case), and decompressing the
snapshot with DecompressionStream is no request and needs no permission.
"""

import base64
import hashlib
import re
from urllib.parse import urlsplit

INLINE_SCRIPT = re.compile(r"<script\b(?P<attrs>[^>]*)>(?P<body>.*?)</script\s*>", re.S | re.I)
HEAD = re.compile(r"<head\b[^>]*>", re.I)
FRAME = re.compile(r"<iframe\b", re.I)
CHARSET = re.compile(r"<meta\s+charset=[^>]*>", re.I)
RUNS = {"", "text/javascript", "application/javascript", "module"}  # script types a browser runs


def runnable_scripts(html: str) -> list[str]:
    """The bodies of the inline scripts a browser would run in ``html``, in page order: no src,
    and a type that runs (Material's type="application/json" config is data)."""
    found = []
    for match in INLINE_SCRIPT.finditer(html):
        attrs = match["attrs"]
        if re.search(r"\bsrc\s*=", attrs, re.I):
            continue
        kind = re.search(r"""\btype\s*=\s*["']?([^"'\s>]+)""", attrs, re.I)
        if kind and kind[1].lower() not in RUNS:
            continue
        found.append(match["body"])
    return found


def inline_hashes(html: str) -> list[str]:
    """The CSP source expression of every inline script the browser would run, in page order."""
    digests = (hashlib.sha256(body.encode("utf-8")).digest() for body in runnable_scripts(html))
    return list(dict.fromkeys(f"'sha256-{base64.b64encode(digest).decode('ascii')}'" for digest in digests))


def policy(hashes: list[str], fetch_origins: tuple[str, ...] = (), nonce: str | None = None,
           frames: bool = False) -> str:
    scripts = " ".join(["'self'", *hashes, *([f"'nonce-{nonce}'"] if nonce else []), "'wasm-unsafe-eval'"])
    connect = " ".join(["'self'", "blob:", "data:", *fetch_origins])
    return "; ".join([
        "default-src 'self'",
        f"script-src {scripts}",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        f"connect-src {connect}",
        "worker-src 'self' blob:",
        "media-src 'self' blob:",
        "frame-src " + ("'self'" if frames else "'none'"),
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    ])


def origin_of(url: str | None) -> tuple[str, ...]:
    """The origin of an absolute http(s) URL, for the policy; nothing for anything else."""
    if not url:
        return ()
    parts = urlsplit(url)
    return (f"{parts.scheme}://{parts.netloc}",) if parts.scheme in ("http", "https") and parts.netloc else ()


def add(html: str, fetch_origins: tuple[str, ...] = (), nonce: str | None = None) -> str:
    """The page with its policy as the first thing in <head> after the charset (before any
    script, so it covers them all). A page without <head> is returned as it is. ``nonce``
    (``mkdocs serve`` only) also allows the one inline script carrying it: the live-reload script
    the development server adds to every page it serves, which changes on every response. A page
    with an <iframe> may frame the site's own files; any other, none."""
    frames = bool(FRAME.search(html))
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(inline_hashes(html), fetch_origins, nonce, frames)}">'
    charset = CHARSET.search(html)
    if charset:
        return html[:charset.end()] + meta + html[charset.end():]
    head = HEAD.search(html)
    if head:
        return html[:head.end()] + meta + html[head.end():]
    return html
