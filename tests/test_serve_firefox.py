"""Issue 42.1 in Firefox: the edit loop of tests/test_serve.py, in Debian's firefox-esr.

Under ``mkdocs serve`` (and ``properdocs serve``) no service worker takes the pages, and the worker a built site left on the
same origin steps aside, so an edit shows with the site's Content-Security-Policy in force.
Playwright's own Firefox cannot be installed here, so Firefox is driven over WebDriver BiDi by
puppeteer-core (build_tools/package.json) from a small Node script, tests/firefox_driver.cjs,
with a profile in the test's temporary folder. The script watches every document the tab loads:
CSP violations, console and uncaught errors, HTTP errors, requests to another origin.

Each wait is bounded generously (a rebuild on a shared machine), never timed: the time from the
edit to the page showing it is printed (``pytest -s``), not asserted.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from browser import StaticServer, free_port
from sites import build, edit, environment
from test_serve import start_serving, stop

pytestmark = pytest.mark.browser

FIREFOX = Path("/usr/bin/firefox-esr")
DRIVER = Path(__file__).resolve().parent / "firefox_driver.cjs"
PUPPETEER = Path(__file__).resolve().parents[1] / "build_tools" / "node_modules" / "puppeteer-core"

SERVE_MARKER = "!!document.querySelector('meta[name=\"scalecore-serve\"]')"
CONTROLLER = "navigator.serviceWorker.controller ? navigator.serviceWorker.controller.scriptURL : null"
REGISTRATIONS = "navigator.serviceWorker.getRegistrations().then(r => r.length)"
CACHES = "caches.keys()"
LEFT = "console error: [logged while the page was being left]"  # tests/firefox_driver.cjs marks them
POLICY = "(document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]') || {}).content || ''"


def shows(text: str) -> str:
    return f"!!document.body && document.body.innerText.includes({json.dumps(text)})"


def require_firefox() -> None:
    missing = [str(path) for path in (FIREFOX, PUPPETEER) if not path.exists()]
    if shutil.which("node") is None:
        missing.append("node")
    if not missing:
        return
    why = ("needs " + " and ".join(missing) + " (bash build_tools/dev.sh test installs firefox-esr with apt-get "
           "and puppeteer-core with npm ci)")
    if os.environ.get("CI") == "true":
        pytest.fail(f"the Firefox tests cannot run in CI: {why}", pytrace=False)
    pytest.skip(f"Firefox tests skipped: {why}")


class Firefox:
    """One headless firefox-esr with its own profile, driven by tests/firefox_driver.cjs."""

    def __init__(self, profile: Path):
        profile.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(["node", str(DRIVER), str(profile), str(FIREFOX)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.version = self._answer()["version"]

    def _answer(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(timeout=30)
            raise AssertionError(f"the Firefox driver ended (exit status {self.process.returncode}):\n"
                                 f"{self.process.stderr.read()[-4000:]}")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise AssertionError(f"Firefox: {answer.get('error')}")
        return answer

    def send(self, op: str, **fields) -> dict:
        self.process.stdin.write(json.dumps({"op": op, **fields}) + "\n")
        self.process.stdin.flush()
        return self._answer()

    def goto(self, url: str) -> None:
        self.send("goto", url=url)

    def reload(self) -> None:
        self.send("reload")

    def evaluate(self, expression: str):
        return self.send("evaluate", expression=expression).get("value")

    def wait(self, expression: str, timeout: float = 30_000) -> int:
        """Until ``expression`` is truthy in the page (through its own reloads): milliseconds it took."""
        return self.send("wait", expression=expression, timeout=timeout)["elapsed"]

    def problems(self) -> list[str]:
        return self.send("problems")["problems"]

    def check(self) -> None:
        """No problem, but what a page logged while it was being left (a reload, a navigation):
        Firefox cuts off the loads of the page it leaves and runs their failure callbacks in it
        (a panel whose code was still downloading says it could not start), which Chromium does
        not. A policy violation counts wherever it happened."""
        problems = [problem for problem in self.problems()
                    if not problem.startswith(LEFT) or "CSP violation" in problem or "Content-Security-Policy" in problem]
        assert not problems, "what the page did wrong in Firefox:\n  " + "\n  ".join(problems)

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.send("close")
            except (AssertionError, OSError, ValueError):
                pass
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def firefox(tmp_path):
    require_firefox()
    browser = Firefox(tmp_path / "firefox-profile")
    yield browser
    browser.close()


@pytest.fixture
def serving(tmp_path):
    folder = new_site(tmp_path)
    server, url = start_serving(folder, free_port())
    yield folder, url
    stop(server)


def new_site(tmp_path: Path) -> Path:
    """The site ``scalecore new`` writes (the lesson template)."""
    folder = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "scalecore_generator", "new", str(folder)], capture_output=True,
                          text=True, env=environment())
    assert done.returncode == 0, done.stdout + done.stderr
    return folder.resolve()


def test_an_edit_shows_in_firefox_under_the_sites_policy(firefox, serving):
    """mkdocs serve, service workers allowed as in a reader's Firefox: an edit shows by itself
    (the dev server's live-reload script, allowed by the serve build's nonce), then on reload and
    on the next visit; no worker registered, the offline dialog says why, no CSP violation. Then a
    script the policy does not allow is refused and reported: the policy is in force, and the
    watch sees its violations."""
    folder, url = serving
    firefox.goto(url + "index.html")
    firefox.wait(shows("My lessons") + " && " + SERVE_MARKER)
    policy = firefox.evaluate(POLICY)
    assert "'nonce-" in policy and "'unsafe-inline'" not in policy.split("script-src", 1)[1].split(";")[0]

    edit(folder / "docs" / "index.md", "# My lessons\n", "# My lessons\n\nEdited in Firefox.\n")
    elapsed = firefox.wait(shows("Edited in Firefox."), timeout=120_000)  # rebuilt, then reloaded by the script
    print(f"\nFirefox {firefox.version}: the edit showed {elapsed} ms after the file was written")
    edit(folder / "docs" / "index.md", "Edited in Firefox.\n", "Edited in Firefox, twice.\n")
    elapsed = firefox.wait(shows("Edited in Firefox, twice."), timeout=120_000)
    print(f"Firefox {firefox.version}: the second edit showed {elapsed} ms after the file was written")
    firefox.reload()
    firefox.wait(shows("Edited in Firefox, twice."), timeout=30_000)
    firefox.goto(url + "index.html")
    firefox.wait(shows("Edited in Firefox, twice."), timeout=30_000)

    firefox.wait("document.readyState === 'complete'")
    firefox.evaluate("new Promise(done => setTimeout(done, 1500))")  # offline.js works when the page is idle
    assert firefox.evaluate(REGISTRATIONS) == 0
    assert firefox.evaluate(CONTROLLER) is None
    firefox.evaluate("document.querySelector('button[aria-label=\"Make this site available offline\"]').click()")
    firefox.wait("(document.querySelector('dialog.scalecore-offline[open]') || {textContent: ''}).textContent"
                 ".includes('development server')")
    firefox.check()

    # The policy is in force: an inline script without the nonce is refused, and the watch says so
    # (the page's listener, and Firefox's own report of it, an error in the page's log).
    before = len(firefox.problems())
    firefox.evaluate("(() => { const s = document.createElement('script'); s.textContent = 'window.ran = 1';"
                     " document.body.append(s); })()")
    firefox.wait("new Promise(done => setTimeout(() => done(true), 500))")
    assert firefox.evaluate("window.ran === undefined")
    refused = firefox.problems()[before:]
    assert "console error: CSP violation: script-src-elem blocked inline at " + url + "index.html:1" in refused, refused
    assert all("CSP violation" in problem or "Content-Security-Policy" in problem for problem in refused), refused


def test_a_built_sites_worker_steps_aside_in_firefox(firefox, tmp_path):
    """Issue 42's sequence in Firefox: the built site served on a port and read (its worker
    installs and keeps the pages), then ``mkdocs serve`` on the same port: the first visit brings
    the dev server's page, the old worker is gone with its caches, edits show, no CSP violation."""
    folder = new_site(tmp_path)
    result = build(folder)
    assert result.returncode == 0, result.describe()
    built = StaticServer(folder / "site")
    port = built.port
    try:
        firefox.goto(built.url + "index.html")
        firefox.wait("!!navigator.serviceWorker.controller", timeout=30_000)
        firefox.reload()  # the page now comes through the worker, which keeps it
        firefox.wait("caches.keys().then(k => k.length > 0)", timeout=30_000)
        assert not firefox.evaluate(SERVE_MARKER)
        # What the built site's page and worker have left in flight settles before its server goes.
        firefox.evaluate("new Promise(done => setTimeout(done, 2000))")
    finally:
        built.close()
    firefox.check()

    server, url = start_serving(folder, port)
    try:
        firefox.goto(url + "index.html")
        # The old worker answered this navigation from the network (the dev server's page); the
        # page, or the step-aside worker the browser's update check found, unregistered it and
        # reloaded.
        stepped = firefox.wait("!navigator.serviceWorker.controller && " + SERVE_MARKER, timeout=20_000)
        firefox.wait("caches.keys().then(names => names.length === 0)", timeout=10_000)
        assert firefox.evaluate(REGISTRATIONS) == 0
        how = firefox.evaluate("performance.getEntriesByType('navigation')[0].type")
        print(f"\nFirefox {firefox.version}: the built site's worker stepped aside {stepped} ms after the page "
              f"loaded (the dev server's page then came by {how})")

        edit(folder / "docs" / "index.md", "# My lessons\n", "# My lessons\n\nEdited after the built site.\n")
        elapsed = firefox.wait(shows("Edited after the built site."), timeout=120_000)
        print(f"Firefox {firefox.version}: the edit showed {elapsed} ms after the file was written")
        firefox.reload()
        firefox.wait(shows("Edited after the built site."), timeout=30_000)
        assert firefox.evaluate(CONTROLLER) is None
        assert firefox.evaluate(REGISTRATIONS) == 0
        firefox.check()
    finally:
        firefox.close()  # while the dev server still runs: nothing of the page is cut off
        stop(server)


def test_properdocs_serve_keeps_the_same_edit_loop_in_firefox(firefox, tmp_path):
    pytest.importorskip("properdocs")
    folder = new_site(tmp_path)
    server, url = start_serving(folder, free_port(), command="properdocs")
    try:
        firefox.goto(url + "index.html")
        firefox.wait(shows("My lessons") + " && " + SERVE_MARKER)
        edit(folder / "docs" / "index.md", "# My lessons\n", "# My lessons\n\nEdited under ProperDocs.\n")
        elapsed = firefox.wait(shows("Edited under ProperDocs."), timeout=120_000)
        print(f"\nFirefox {firefox.version}: under ProperDocs the edit showed {elapsed} ms after the file was written")
        assert firefox.evaluate(CONTROLLER) is None
        firefox.check()
    finally:
        firefox.close()
        stop(server)
