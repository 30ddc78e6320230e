"""Offline reading, measured in one run in headless Chromium: ``.venv/bin/python -m benchmarks.offline``.

- what "Make this site available offline" stores: the bytes of the cached files (each response's
  body, read back from Cache Storage) and what the browser reports for the origin
  (navigator.storage.estimate), without the live runtime, with it, and with the console's full
  scientific stack too, against the sizes the dialog
  stated before saving; and how long saving took from a server on this machine;
- the time to reload the module page offline (the service worker answering from its cache,
  checking each file's sha256) against reloading it online with no service worker (the browser's
  HTTP cache warm): navigation start to the load event, median of 5 reloads.
Prints numbers; asserts nothing.
"""

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from browser import ARGS, StaticServer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PAGE = "modules/softmax-range.html"
RELOADS = 5
CACHED_BYTES = """async () => {
  let bytes = 0, files = 0;
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      bytes += (await (await cache.match(request)).arrayBuffer()).byteLength;
      files += 1;
    }
  }
  return [bytes, files, (await navigator.storage.estimate()).usage];
}"""
LOAD_MS = "() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; }"


LABELS = {"runtime": "All of that and the live runtime", "stack": "All of that and the console's full scientific stack"}


def save(browser, server, level: str) -> dict:
    context = browser.new_context(service_workers="allow", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(server.url + PAGE)
    page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=30_000)
    page.get_by_role("button", name="Make this site available offline").click()
    dialog = page.get_by_role("dialog", name="Make this site available offline")
    size = dialog.locator(f'[data-size="{level}"]')
    size.filter(has_text="MB").wait_for()
    stated = size.text_content()
    if level in LABELS:
        dialog.get_by_label(LABELS[level], exact=False).check()
    started = time.monotonic()
    dialog.get_by_role("button", name="Save for offline").click()
    dialog.locator(".scalecore-offline__status[data-done]").wait_for(timeout=600_000)
    seconds = time.monotonic() - started
    dialog.get_by_role("button", name="Close").click()
    cached, files, usage = page.evaluate(CACHED_BYTES)
    context.set_offline(True)
    offline_ms = []
    for _ in range(RELOADS):
        page.reload(wait_until="load")
        offline_ms.append(page.evaluate(LOAD_MS))
    context.close()
    return {"stated": stated, "seconds": seconds, "cached": cached, "files": files, "usage": usage,
            "offline_ms": statistics.median(offline_ms)}


def online_reload(browser, server) -> float:
    context = browser.new_context(service_workers="block", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(server.url + PAGE, wait_until="load")
    times = []
    for _ in range(RELOADS):
        page.reload(wait_until="load")
        times.append(page.evaluate(LOAD_MS))
    context.close()
    return statistics.median(times)


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as work:
        site = Path(work) / "site"
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)], cwd=ROOT,
                       check=True, capture_output=True)
        server = StaticServer(site)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
                results = {level: save(browser, server, level) for level in ("site", "runtime", "stack")}
                online = online_reload(browser, server)
                browser.close()
        finally:
            server.close()
    print(f"module page {PAGE}; one build of this repository's site, served from 127.0.0.1")
    for mode, label in (("site", "pages, styles, fonts, data"), ("runtime", "with the live runtime"),
                        ("stack", "with the console's full stack too")):
        found = results[mode]
        print(f"saved ({label}): {found['cached'] / 1e6:.1f} MB in {found['files']} cached files "
              f"(the browser reports {found['usage'] / 1e6:.1f} MB for the origin); the dialog stated "
              f"'{found['stated']}'; saving took {found['seconds']:.1f} s")
    print(f"with the runtime {results['runtime']['cached'] / results['site']['cached']:.2f}x the bytes of the site alone, "
          f"with the full stack too {results['stack']['cached'] / results['site']['cached']:.2f}x")
    for mode in ("site", "runtime", "stack"):
        ms = results[mode]["offline_ms"]
        print(f"reload offline ({mode} saved), navigation to load event, median of {RELOADS}: {ms:.0f} ms; "
              f"online without a service worker (HTTP cache warm): {online:.0f} ms; offline/online {ms / online:.2f}")


if __name__ == "__main__":
    main()
