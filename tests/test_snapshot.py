"""Live mode from the build's memory snapshot (scalecore_generator/runtime/snapshot.py), in Chromium.

- From the snapshot and from the normal load alike, every kind that computes live reproduces its
  baked points (parity within 1e-9, through the same live client the panels use; generic over
  the manifest's kinds).
- Restored, each visit draws its own random numbers, and the core's modules the snapshot did not
  import still import (the worker unpacks the wheel again: the file system is not in the heap).
- A snapshot that is stale (its key no longer matches the runtime), tampered with (bytes that do
  not match the manifest's sha256), missing (HTTP 404) or refused by Pyodide (a heap it does not
  recognise) is not used: Python starts the normal way, live mode works, and the worker says
  why, in its console and in the timings.
- Intent starts the worker: a pointer over a live control, before any click.
- The snapshot build is deterministic (two builds from empty caches give the same bytes) and a
  warm build takes it from the cache without making it again.

Timings are printed (run with -s), never asserted: benchmarks/browser.py measures them.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from browser import PYODIDE_TIMEOUT_MS, module_page, site_manifest, wait_hydrated
from pyodide_node import core_wheel  # noqa: F401  (a fixture)
from test_parity import close, sample

POINTS_PER_KIND = 6

# Every kind's sample of points computed in the page's own live client (live.js, the module the
# panels import), exactly as a panel's live form asks for them.
COMPUTE = """async ({requests}) => {
  const script = document.querySelector('script[src*="panels.js"]');
  const live = await import(new URL('live.js', script.src).href);
  const root = document.querySelector('[data-scalecore-manifest]');
  const url = new URL(root.getAttribute('data-scalecore-manifest'), document.baseURI).href;
  const manifest = { data: await (await fetch(url)).json(), url };
  const client = await live.client(manifest);
  const out = {};
  for (const [kind, points] of Object.entries(requests)) out[kind] = await client.compute(kind, points);
  return { out, timings: window.scalecoreTimings };
}"""


def _requests(site: Path) -> tuple[dict, dict]:
    """kind -> [params] to compute, and kind -> [baked JSON] they must give."""
    manifest = site_manifest(site)
    requests, expected = {}, {}
    for name, kind in manifest["kinds"].items():
        if not kind.get("compute"):
            continue
        paths = sample(kind)[:POINTS_PER_KIND]
        requests[name] = [kind["points"][path]["params"] for path in paths]
        expected[name] = [json.loads((site / "api" / kind["files"][kind["points"][path]["json"]]["url"])
                                     .read_text(encoding="utf-8")) for path in paths]
    assert requests, "no kind computes live"
    return requests, expected


def _live(page, site: Path) -> dict:
    """Compute every kind's sample live in the page and compare with the bake; the worker's timings."""
    requests, expected = _requests(site)
    answer = page.evaluate(COMPUTE, {"requests": requests})
    for name, values in answer["out"].items():
        assert len(values) == len(expected[name])
        for i, (got, want) in enumerate(zip(values, expected[name])):
            difference = close(got, want, f"{name}[{i}]")
            assert difference is None, f"live differs from the bake: {difference}"
    startup = answer["timings"]["liveStartup"]
    print(f"\nsnapshot: {startup.get('snapshot')} ({startup.get('snapshotReason', '')}); live ready "
          f"{answer['timings']['liveReadyMs']:.0f} ms")
    return startup


def _open(visit, site_server, built_site, messages: list[str]):
    page, watch = visit(site_server.url + module_page(built_site))
    page.on("console", lambda message: messages.append(message.text))
    wait_hydrated(page)
    return page, watch


def _with_manifest(page, change) -> None:
    """The page manifest as the page reads it, changed by ``change(runtime)``."""
    def route(route):
        response = route.fetch()
        data = response.json()
        change(data["runtime"])
        route.fulfill(response=response, body=json.dumps(data), headers={**response.headers, "content-type": "application/json"})
    page.context.route("**/api/panels.json", route)


def test_the_build_ships_a_current_snapshot_in_the_manifest(built_site):
    runtime = site_manifest(built_site)["runtime"]
    entry = runtime["snapshot"]
    packed = (built_site / "api" / entry["url"]).read_bytes()
    assert hashlib.sha256(packed).hexdigest() == entry["sha256"]
    assert packed[:2] == b"\x1f\x8b" and packed[4:8] == b"\0\0\0\0"  # gzip, mtime 0
    assert len(gzip.decompress(packed)) == entry["bytes"]
    wasm = runtime["pyodide_asm_wasm"]["sha256"]
    wheels = [runtime["core_wheel"]["sha256"]] + [runtime[k]["sha256"] for k in sorted(runtime) if k.startswith("wheel_")]
    assert f";pyodide.asm.wasm={wasm};wheels={','.join(wheels)};jspi=1" in entry["key"], entry["key"]
    computes = {kind["compute"].partition(":")[0] for kind in site_manifest(built_site)["kinds"].values()
                if kind.get("compute")}
    assert computes <= set(entry["imports"]) and "scalecore.browser" in entry["imports"]


def test_live_mode_from_the_snapshot_reproduces_the_baked_numbers(visit, site_server, built_site):
    messages = []
    page, _ = _open(visit, site_server, built_site, messages)
    startup = _live(page, built_site)
    assert startup["snapshot"] == "used", startup
    assert any("restored from the build's memory snapshot" in text for text in messages), messages
    # this visit's own random numbers, not the build's frozen seed: another visit draws others
    draws = [_random(page)]
    other, _ = _open(visit, site_server, built_site, [])
    _live(other, built_site)
    draws.append(_random(other))
    assert draws[0] != draws[1], draws


RANDOM = """async () => {
  const live = await import(new URL('live.js', document.querySelector('script[src*="panels.js"]').src).href);
  const client = await live.existing().ready();
  let text = '';
  await client.call('run', { code: CODE, session: 'snapshot-test' },
    { onStream: (parts) => { for (const part of parts) text += part.text; } });
  return { text, snapshot: window.scalecoreTimings.liveStartup.snapshot };
}"""
# Console code: a random draw, and every module of the core's wheel the snapshot did not import,
# imported now (the file system is not in the heap: the worker unpacked the wheel again). The
# modules of the console's full stack (its matplotlib backend) run there, not in Pyodide: each must
# be found and fail only on a package of that stack.
CODE = """import importlib, json, pkgutil, random, sys, scalecore
fresh = [f"scalecore.{m.name}" for m in pkgutil.iter_modules(scalecore.__path__)
         if f"scalecore.{m.name}" not in sys.modules and m.name != "__main__"]
full_stack_only = {}
for name in fresh:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as missing:
        full_stack_only[name] = missing.name
print(json.dumps({"fresh": fresh, "full_stack_only": full_stack_only, "draw": random.random()}))"""
FULL_STACK_PACKAGES = {"numpy", "pandas", "scipy", "sklearn", "matplotlib"}


def _random(page) -> str:
    answer = page.evaluate(RANDOM.replace("CODE", json.dumps(CODE)))
    assert answer["snapshot"] == "used"
    found = json.loads(answer["text"])
    assert found["fresh"], found  # at least one module came from the wheel unpacked again
    missing = {name: package.partition(".")[0] for name, package in found["full_stack_only"].items()}
    assert set(missing.values()) <= FULL_STACK_PACKAGES, f"core modules Pyodide cannot import: {missing}"
    assert len(missing) < len(found["fresh"]), found
    return str(found["draw"])


@pytest.mark.parametrize("problem", ["stale", "tampered", "missing", "refused"])
def test_a_snapshot_that_cannot_be_used_falls_back_to_the_normal_load(visit, site_server, built_site, problem):
    messages = []
    page, watch = visit(site_server.url + module_page(built_site))
    page.on("console", lambda message: messages.append(message.text))
    if problem == "stale":  # the runtime changed since the snapshot was made
        _with_manifest(page, lambda runtime: runtime["snapshot"].update(key=runtime["snapshot"]["key"] + "0"))
    elif problem == "tampered":
        page.context.route("**/snapshot.bin.gz", lambda route: route.fulfill(
            status=200, body=gzip.compress(b"not a heap" * 100, mtime=0), content_type="application/gzip"))
    elif problem == "missing":
        page.context.route("**/snapshot.bin.gz", lambda route: route.fulfill(status=404, body=b"not here"))
    else:  # matches the manifest and decompresses to the right size, but is no heap Pyodide knows
        packed = gzip.compress(b"\0" * site_manifest(built_site)["runtime"]["snapshot"]["bytes"], mtime=0)
        page.context.route("**/snapshot.bin.gz", lambda route: route.fulfill(status=200, body=packed))
        _with_manifest(page, lambda runtime: runtime["snapshot"].update(sha256=hashlib.sha256(packed).hexdigest()))
    wait_hydrated(page)
    startup = _live(page, built_site)
    assert startup["snapshot"] == problem, startup
    assert startup["snapshotReason"]
    logged = [text for text in messages if "the memory snapshot was not used" in text]
    assert logged and f"({problem}: " in logged[0], messages
    if problem == "missing":  # the 404 is this test's doing
        watch.errors[:] = [error for error in watch.errors if "snapshot.bin.gz" not in error]


def test_intent_starts_the_worker_before_the_click(visit, site_server, built_site):
    page, watch = visit(site_server.url + module_page(built_site))
    wait_hydrated(page)
    page.wait_for_timeout(300)
    assert not [url for url in watch.requests if url.endswith("pyodide.asm.wasm")], "Python started on page load"
    assert page.evaluate("window.scalecoreTimings.prefetchedAt") is None
    control = page.locator(".scalecore-live__open").first
    control.scroll_into_view_if_needed()
    control.hover()
    page.wait_for_function("() => window.scalecoreTimings.prefetchedAt !== undefined", timeout=10_000)
    page.wait_for_function("() => window.scalecoreTimings.liveReadyMs !== undefined", timeout=PYODIDE_TIMEOUT_MS)
    assert [url for url in watch.requests if url.endswith("snapshot.bin.gz")], "the snapshot was not fetched"
    assert page.evaluate("window.scalecoreTimings.liveStartup.snapshot") == "used"


def test_the_snapshot_build_is_deterministic_and_cached(tmp_path, monkeypatch, core_wheel):  # noqa: F811
    from scalecore_generator.runtime import pyodide as runtime, snapshot

    class Log:
        lines: list[str] = []

        def info(self, line):
            self.lines.append(line)

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    imports = snapshot.compute_modules(["scalecore.softmax:saturation_lesson", "scalecore.variance:lesson"])
    made = []
    for i in (1, 2):  # each made with a user cache of its own: made twice, never copied
        monkeypatch.setenv("SCALECORE_USER_CACHE", str(tmp_path / f"user{i}"))
        made.append(snapshot.make(runtime.pyodide_folder(), [core_wheel], imports, tmp_path / f"cache{i}", Log()))
    digests = [hashlib.sha256(one.path.read_bytes()).hexdigest() for one in made]
    assert digests[0] == digests[1]  # (digests: a diff of two 6 MB byte strings takes pytest minutes)
    assert made[0].key == made[1].key
    assert made[0].path.read_bytes()[4:8] == b"\0\0\0\0"  # gzip mtime 0

    run = snapshot.subprocess.run

    def no_maker(command, *args, **kwargs):
        if "scalecore_generator.runtime.snapshot" in command:
            raise AssertionError("a warm build made the snapshot again")
        return run(command, *args, **kwargs)

    monkeypatch.setattr(snapshot.subprocess, "run", no_maker)
    again = snapshot.make(runtime.pyodide_folder(), [core_wheel], imports, tmp_path / "cache1", Log())
    assert again.path == made[0].path
    # Another site on this machine (a cache of its own, the user cache shared): copied, not made.
    other = snapshot.make(runtime.pyodide_folder(), [core_wheel], imports, tmp_path / "another-site", Log())
    assert other.path.parent.parent.parent == tmp_path / "another-site"
    assert hashlib.sha256(other.path.read_bytes()).hexdigest() == digests[0] and other.key == made[0].key
    assert other.path.stat().st_ino != made[1].path.stat().st_ino  # a copy, never a link
