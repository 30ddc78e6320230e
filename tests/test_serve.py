"""Serve is for writing: under ``mkdocs serve`` the page reloads by itself when its source
changes, with the site's Content-Security-Policy in force (the development server's live-reload
script is allowed by a nonce, in serve builds only), and a production build allows no nonce."""

import subprocess
import sys
import time
import urllib.request

import pytest

from browser import free_port
from sites import build, copy_site, edit, environment
from test_kinds_tutorial import TUTORIAL


@pytest.fixture
def serving(tmp_path):
    folder = copy_site(tmp_path / "site", source=TUTORIAL)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
                              cwd=folder, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 300
    while True:
        try:
            with urllib.request.urlopen(url + "index.html", timeout=5) as answer:
                if answer.status == 200:
                    break
        except (OSError, ValueError):
            pass
        assert server.poll() is None and time.monotonic() < deadline, server.stdout.read()
        time.sleep(0.5)
    yield folder, url
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


def test_an_edit_reloads_the_page_under_the_sites_policy(visit, serving):
    folder, url = serving
    page, watch = visit(url + "index.html", bypass_csp=False)
    page.get_by_role("heading", name="My lessons", level=1).wait_for()
    policy = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
    assert "'nonce-" in policy and "'unsafe-inline'" not in policy.split("script-src", 1)[1].split(";")[0]
    edit(folder / "docs" / "index.md", "# My lessons\n", "# My lessons\n\nEdited while serving.\n")
    page.get_by_text("Edited while serving.").wait_for(timeout=120_000)  # rebuilt, then reloaded by the script
    visit.close_all()  # while the server still runs: the page's checks (no CSP violation) see it whole


def test_a_production_build_allows_no_nonce(tmp_path):
    folder = copy_site(tmp_path / "site", source=TUTORIAL)
    result = build(folder)
    assert result.returncode == 0, result.describe()
    for page in (folder / "site").rglob("*.html"):
        assert "'nonce-" not in page.read_text(encoding="utf-8"), page
