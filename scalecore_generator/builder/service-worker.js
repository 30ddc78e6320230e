/* The site's service worker: cross-origin isolation, and the pages a reader opened kept for
 * reading offline.
 *
 * Served at the site root as coi-serviceworker.js (scalecore_generator/builder/offline.py writes this file
 * there with the build's version in BUILD), so its scope is the whole site, under any subpath.
 *
 * Isolation: every response it gives carries COOP same-origin and COEP require-corp (with CORP),
 * as coi-serviceworker (npm, MIT) did before: Stop interrupts Python and input() waits for the
 * reader on hosts that cannot send those headers (assets/isolate.js reloads a panel's page once).
 *
 * A guest, never in the way. The network answers first, always: while the network can be
 * reached the reader gets exactly what the host serves, as if there were no worker, whatever the
 * worker is doing (installing, saving, updating). The cache answers only what the network
 * cannot: offline, or a request that fails. What the network gives is kept on the side, after
 * the page has its answer, and only if it is a file of this build (its sha256 is the one
 * offline.json lists); a file with another digest says a newer build is published: the browser
 * is asked for the newer worker, which takes over as soon as it has copied what the reader had.
 * Network-first rather than cache-first: a cached copy served while online is a copy that may be
 * of an older build than the page that asked for it, and an edit loop (a dev server on the same
 * origin) must never be answered from a cache.
 *
 * Offline: offline.json, written by the same build, lists every file of the site with its sha256
 * and size. The worker keeps what the reader used (pages, styles, fonts, baked data, and the live
 * runtime once it ran) in one cache per build, "scalecore-<scope path>:<version>", and on request ("Make this
 * site available offline", assets/offline.js) fetches the rest, with or without the live runtime.
 *  - only this site's own files (same origin, inside the scope, listed); nothing of another origin
 *    is ever stored;
 *  - a file is stored and served only if its bytes have the listed sha256, checked every time it
 *    is served: a damaged or altered cached file is dropped and fetched again, never served;
 *  - a page asked for offline that was not kept gets a page saying so, with the pages that were.
 * Hand-written rather than Workbox: Workbox's precache checks revisions, not the bytes, and it
 * would be a second worker to merge with the isolation headers.
 */
"use strict";

const BUILD = "__SCALECORE_BUILD__";
const ROOT = new URL("./", self.location.href); // the site root: this file lives there
// One cache per build, named by the site's scope too: two sites of one origin (two project sites
// of a GitHub user, two versions on Read the Docs) never take each other's caches for older builds.
const PREFIX = "scalecore-" + ROOT.pathname + ":";
const CACHE = PREFIX + BUILD;
const LEGACY = /^scalecore-[0-9a-f]{20}$/; // before the scope was in the name: ours if it lists our files
const LISTING = new URL("offline.json", ROOT).href;
const SAVED = new URL("offline.json?saved", ROOT).href; // {level}: what the reader asked to save
const CHANGES = new URL("offline.json?changes", ROOT).href; // {older build: [its files this build changed or dropped]}
// (a query, not a fragment: the Cache API ignores fragments)
const PARALLEL = 4;

let listing = null; // Promise of offline.json for BUILD

const isolation = {
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "cross-origin",
};

/* A file that is neither a page nor a script gets a policy of its own: an SVG or XML document
   opened, linked or framed runs no script on the site's origin and reaches nothing (the build
   refuses an author's file that carries one, scalecore_generator/pages/author_files.py; this covers
   whatever else put one there), while a figure still draws: its styles, the site's images and
   data: URLs. Pages carry their own policy (scalecore_generator/pages/csp.py); a script must not
   carry this one (a worker's policy is its script's response's); nor a PDF (the browser's own
   viewer, which a sandbox stops). A file the site allows scripts in by name (the plugin option
   allow_inline_scripts) is listed so ("scripts" in offline.json) and keeps what its host sends. */
const FILE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "media-src 'self'; sandbox";
const OWN_POLICY = /^\s*(text\/html|application\/pdf|(text|application)\/(x-)?(javascript|ecmascript))\s*(;|$)/i;

function isolated(response, entry = null) {
  if (response.status === 0) return response; // opaque: nothing to add
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(isolation)) headers.set(name, value);
  if (!OWN_POLICY.test(headers.get("Content-Type") || "") && !(entry && entry.scripts)) {
    headers.set("Content-Security-Policy", FILE_POLICY);
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

async function sha256(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buffer));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/* The site path a URL names, or null outside the site. A folder is its index.html. */
function sitePath(url) {
  const parsed = new URL(url);
  if (parsed.origin !== ROOT.origin || !parsed.pathname.startsWith(ROOT.pathname)) return null;
  let path;
  try { path = decodeURIComponent(parsed.pathname.slice(ROOT.pathname.length)); } catch (error) { return null; }
  return path === "" || path.endsWith("/") ? path + "index.html" : path;
}

const keyOf = (path) => new URL(path.split("/").map(encodeURIComponent).join("/"), ROOT).href;

async function fetchListing() {
  const response = await fetch(LISTING, { cache: "no-store" });
  if (!response.ok) throw new Error(`offline.json: HTTP ${response.status}`);
  const found = await response.clone().json();
  if (found.version !== BUILD) throw new Error("offline.json belongs to another build");
  return { found, response };
}

let knownFiles = null; // the listing's files once read: which requests are this site's files

function currentListing() {
  if (!listing) {
    // caches.match, not caches.open: reading never creates a cache (one deleted meanwhile stays so)
    listing = caches.match(LISTING, { cacheName: CACHE }).then(async (stored) => {
      if (stored) return stored.json();
      const { found, response } = await fetchListing();
      await (await caches.open(CACHE)).put(LISTING, response);
      return found;
    });
    listing.then((found) => { knownFiles = found.files; }, () => { listing = null; }); // else: again on the next request
  }
  return listing;
}

/* The cached bytes of a path, if they are the listed ones. A copy that does not match is deleted
   from this build's cache (damaged or altered); another build's cache is only read (its file may
   simply be that build's version). */
async function cachedCopy(cache, path, entry, own = true) {
  const stored = await cache.match(keyOf(path));
  if (!stored) return null;
  const body = await stored.arrayBuffer();
  if ((await sha256(body)) === entry.sha256) return { body, type: stored.headers.get("Content-Type") || "" };
  if (own) await cache.delete(keyOf(path));
  return null;
}

class NewerBuild extends Error {}

/* The network's bytes of a path, checked against the listing, then stored. The browser's HTTP
   cache is asked first (the first visit's files are there already, and the digest tells whether
   its copy is this build's), then the server. */
async function networkCopy(cache, path, entry) {
  for (const mode of ["force-cache", "no-cache"]) {
    const response = await fetch(keyOf(path), { cache: mode });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    const body = await response.arrayBuffer();
    if ((await sha256(body)) !== entry.sha256) continue;
    const type = response.headers.get("Content-Type") || "";
    await cache.put(keyOf(path), new Response(body, { headers: { "Content-Type": type } }));
    return { body, type };
  }
  throw new NewerBuild(path);
}

/* A page's answer says which build it is (Server-Timing, which the page reads from its navigation
   entry: assets/offline.js): this worker's BUILD, or "newer" for a page the network gave with
   another digest. A page told of a newer worker compares, so one already of the newer build is not
   asked to reload. */
const stamped = (headers, build) => { headers.set("Server-Timing", `scalecore;desc="${build}"`); return headers; };

const served = ({ body, type }, entry) =>
  isolated(new Response(body, { headers: stamped(new Headers({ "Content-Type": type }), BUILD) }), entry);

const escape = (value) => value.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

/* What a page shows where neither the network nor the cache can give the page it asked for:
   static text (no script), with the pages this device keeps ({path, title}), so the reader has
   somewhere to go. */
function notice(title, text, kept = []) {
  const pages = kept.length ? `<h2 style="font-size:1.1rem">Saved on this device</h2><ul>` +
    kept.map((page) => `<li><a href="${escape(keyOf(page.path))}">${escape(page.title)}</a></li>`).join("") + "</ul>" : "";
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<meta name="color-scheme" content="light dark">` + // the reader's light or dark, with no stylesheet to fetch
    `<title>${title}</title><body style="font:1rem/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem">` +
    `<h1 style="font-size:1.4rem">${title}</h1><p>${text}</p><p><a href="">Try again</a> · <a href="${ROOT.href}">Home</a></p>${pages}`;
  return isolated(new Response(html, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } }));
}

const PAGE_LIMIT = 40; // the saved pages a notice lists

/* The pages this build's cache keeps, each named by its <title> (read from the kept copy). */
async function keptPages() {
  if (!(await caches.has(CACHE))) return [];
  const cache = await caches.open(CACHE);
  const paths = (await cache.keys()).map((request) => sitePath(request.url))
    .filter((path) => path && path.endsWith(".html") && path !== "404.html").sort().slice(0, PAGE_LIMIT);
  return Promise.all(paths.map(async (path) => {
    const text = await (await cache.match(keyOf(path))).text();
    const found = /<title>([^<]*)<\/title>/i.exec(text);
    const title = found ? found[1].replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").trim() : "";
    return { path, title: title || path };
  }));
}

async function tellPages(message) {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true })) client.postMessage(message);
}

let newerAsked = false; // a newer build was seen: the browser is asked for its worker once

function newerBuild() {
  if (newerAsked) return;
  newerAsked = true;
  self.registration.update().catch(() => { newerAsked = false; });
  tellPages({ type: "newer-build" }).catch(() => {});
}

/* The listing of this build, or null when it cannot be had now (it never holds a request up
   longer than its own fetch, and never fails one). */
async function filesOrNull() {
  try { return (await currentListing()).files; } catch (error) { return null; }
}

/* A copy of what the network gave, kept if it is this build's file and not kept already. Runs
   after the page has its answer: nothing here can delay or fail the request. A file of a newer
   build is said to the pages, with when it was asked for (``started``, ms since the epoch): the
   page that asked then has the newer file, and is not asked to reload for it once the newer
   worker takes over (assets/offline.js; the page that asked is not known here: a page still
   loading is not yet among the clients). A large file kept already is not read again (those are
   the live runtime's, which a page's own worker asks for, not the page). */
const CHECKED_WHEN_KEPT = 4 * 1024 * 1024;

async function keepCopy(response, path, entry, started = 0) {
  const kept = await caches.match(keyOf(path), { cacheName: CACHE });
  if (kept && entry.bytes > CHECKED_WHEN_KEPT) return; // checked when kept, and when served
  const body = await response.arrayBuffer();
  if ((await sha256(body)) !== entry.sha256) {
    tellPages({ type: "newer-file", path, started }).catch(() => {});
    newerBuild();
    return;
  }
  if (kept) return;
  const type = response.headers.get("Content-Type") || "";
  await (await caches.open(CACHE)).put(keyOf(path), new Response(body, { headers: { "Content-Type": type } }));
}

/* What the cache holds for a request the network could not answer. */
async function offlineAnswer(request, path, files) {
  const entry = files && files[path];
  if (entry && await caches.has(CACHE)) { // reading never creates the cache (a page stepping aside deleted it)
    const copy = await cachedCopy(await caches.open(CACHE), path, entry).catch(() => null);
    if (copy) return served(copy, entry);
  }
  if (request.mode !== "navigate") return Response.error();
  const kept = await keptPages().catch(() => []);
  if (files && !entry) {
    return notice("Not a page of the saved site", "This address is not a page of the version of this site saved on " +
      "this device (it may be newer, or mistyped), and the network cannot be reached.", kept);
  }
  return notice("Not saved for offline reading", "This page was not saved on this device, and the network cannot be " +
    "reached. Pages read while online are kept (those below); to keep the whole site, choose \u201cMake this site " +
    "available offline\u201d (the arrow in the header) the next time you are online.", kept);
}

async function answer(event, path) {
  const request = event.request;
  const started = Date.now();
  const files = await filesOrNull();
  let response;
  try {
    response = await fetch(request);
  } catch (error) { // offline, or the host could not be reached
    return offlineAnswer(request, path, files);
  }
  const entry = files && files[path];
  if (!entry || response.status !== 200 || response.type !== "basic") return isolated(response, entry);
  if (request.mode === "navigate") return stampedPage(event, response, path, entry);
  event.waitUntil(keepCopy(response.clone(), path, entry, started).catch(() => {}));
  return isolated(response, entry);
}

/* A page from the network, read whole (pages are small) to say which build it is, then kept. */
async function stampedPage(event, response, path, entry) {
  const body = await response.arrayBuffer();
  const ours = (await sha256(body)) === entry.sha256;
  if (ours) event.waitUntil(keepCopy(new Response(body, { headers: response.headers }), path, entry).catch(() => {}));
  else newerBuild();
  const headers = stamped(new Headers(response.headers), ours ? BUILD : "newer");
  return isolated(new Response(body, { status: response.status, statusText: response.statusText, headers }), entry);
}

/* Which requests the worker answers: pages (they need the isolation headers) and this site's
   own files. Everything else goes to the network without the worker (a request it answers is one
   it holds: a dev server's live-reload poll, held open for a minute, would keep a newer worker
   from taking over for that long). */
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.cache === "only-if-cached" && request.mode !== "same-origin") return;
  const path = request.method === "GET" && !request.headers.has("Range") ? sitePath(request.url) : null;
  if (request.mode === "navigate") event.respondWith(unfailing(path === null ? fetch(request).then(isolated) : answer(event, path)));
  else if (path !== null && (!knownFiles || knownFiles[path])) event.respondWith(unfailing(answer(event, path)));
});

/* An answer that cannot reject: a request the page gave up on (it is being left, and the browser
   aborts its loads) ends the fetch or the body being read. The browser then gets a network error,
   what it would have had without a worker, not a worker that "encountered an unexpected error". */
const unfailing = (answering) => answering.catch(() => Response.error());

/* ---- install and update -------------------------------------------------------------------- */

async function otherCaches() {
  const names = [];
  for (const name of await caches.keys()) {
    if (name.startsWith(PREFIX) ? name !== CACHE : LEGACY.test(name) && await caches.match(LISTING, { cacheName: name })) names.push(name);
  }
  return names;
}

/* Fill this build's cache with what the reader had: each kept file of an older build that this
   build lists unchanged is copied (after checking it), a changed one fetched; if they had asked
   for the whole site, the whole site. Nothing else touches the old caches, and a failure leaves
   the older worker in place (the browser tries again on a later visit). */
async function prepare() {
  await caches.delete(CACHE); // a half-filled cache from an install that failed
  const { found, response } = await fetchListing();
  const cache = await caches.open(CACHE);
  const wanted = new Set();
  const changes = {};
  let saved = null;
  for (const name of await otherCaches()) {
    const old = await caches.open(name);
    const marker = await old.match(SAVED);
    if (marker) saved = await marker.json();
    const listed = await old.match(LISTING);
    if (listed) Object.assign(changes, changedSince(await listed.json(), found));
    for (const request of await old.keys()) {
      const path = sitePath(request.url);
      if (path && found.files[path] && request.url !== LISTING) wanted.add(path);
    }
  }
  if (saved) for (const [path, entry] of Object.entries(found.files)) if (chosen(entry, saved.level)) wanted.add(path);
  await inParallel([...wanted], async (path) => {
    const entry = found.files[path];
    for (const name of await otherCaches()) {
      const copy = await cachedCopy(await caches.open(name), path, entry, false);
      if (copy) return cache.put(keyOf(path), new Response(copy.body, { headers: { "Content-Type": copy.type } }));
    }
    return networkCopy(cache, path, entry);
  });
  if (saved) await cache.put(SAVED, new Response(JSON.stringify(saved)));
  await cache.put(CHANGES, new Response(JSON.stringify(changes)));
  await cache.put(LISTING, response);
}

/* The files of an older build's listing that this build changed or dropped, by that build: a page
   still open from it is offered the update only if it used one of them (assets/offline.js). A
   page whose own bytes and files are the same in both builds is simply of this build too. */
function changedSince(older, found) {
  if (!older || typeof older.version !== "string" || !older.files) return {};
  const changed = Object.keys(older.files).filter((path) =>
    !found.files[path] || found.files[path].sha256 !== older.files[path].sha256);
  return { [older.version]: changed };
}

/* work(item) for every item, PARALLEL at a time, done(item) after each. The first failure stops
   the lanes taking more, and is thrown once every lane has settled: a lane still finishing its file
   would otherwise report progress after the failure was said (a full storage read "Saving: 175 of
   982 files" instead of why it stopped). */
async function inParallel(items, work, done = () => {}) {
  let next = 0;
  let failure = null;
  async function lane() {
    while (next < items.length && !failure) {
      const item = items[next++];
      try {
        await work(item);
      } catch (error) {
        failure = failure || { error };
        return;
      }
      if (!failure) done(item);
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, lane));
  if (failure) throw failure.error;
}

self.addEventListener("install", (event) => {
  // Every build's worker takes over as soon as its cache holds what the reader had: the network
  // answers first, so an open page of the older build loses nothing by it (the pages are told,
  // assets/offline.js, and offer a reload into the new version).
  event.waitUntil(prepare().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(otherCaches()
    .then((names) => Promise.all(names.map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

/* ---- what pages ask -------------------------------------------------------------------------- */

/* What the reader may save: "site" (pages, styles, fonts, data), "runtime" (and Pyodide with the
   rest of live mode), "stack" (and the console's full scientific stack). */
const LEVELS = ["site", "runtime", "stack"];
const levelOf = (entry) => (entry.stack ? "stack" : entry.runtime ? "runtime" : "site");
const chosen = (entry, level) => LEVELS.indexOf(levelOf(entry)) <= LEVELS.indexOf(level);

async function status(since = null) {
  const { files } = await currentListing();
  const cache = await caches.open(CACHE);
  const kept = new Set((await cache.keys()).map((request) => sitePath(request.url)));
  const sizes = { site: 0, runtime: 0, stack: 0, keptSite: 0, keptRuntime: 0, keptStack: 0, files: 0, kept: 0 };
  for (const [path, entry] of Object.entries(files)) {
    const group = { site: "Site", runtime: "Runtime", stack: "Stack" }[levelOf(entry)];
    sizes[group.toLowerCase()] += entry.bytes;
    sizes.files += 1;
    if (kept.has(path)) { sizes["kept" + group] += entry.bytes; sizes.kept += 1; }
  }
  const marker = await cache.match(SAVED);
  const answer = { type: "status", build: BUILD, sizes, saved: marker ? await marker.json() : null };
  if (typeof since === "string" && since !== BUILD) {
    const changes = await cache.match(CHANGES);
    const changed = changes ? (await changes.json())[since] : null;
    answer.changed = Array.isArray(changed) ? changed : null; // null: not known, so assume it changed
  }
  return answer;
}

/* Everything the reader chose, with progress after each file. */
async function saveAll(level, client) {
  const { files } = await currentListing();
  const cache = await caches.open(CACHE);
  const kept = new Set((await cache.keys()).map((request) => sitePath(request.url)));
  const missing = Object.keys(files).filter((path) => chosen(files[path], level) && !kept.has(path));
  const total = missing.reduce((sum, path) => sum + files[path].bytes, 0);
  let doneFiles = 0, doneBytes = 0;
  const report = () => client.postMessage({ type: "progress", files: doneFiles, totalFiles: missing.length,
    bytes: doneBytes, totalBytes: total });
  report();
  await inParallel(missing, (path) => networkCopy(cache, path, files[path]), (path) => {
    doneFiles += 1;
    doneBytes += files[path].bytes;
    report();
  });
  const previous = await cache.match(SAVED);
  const before = previous ? (await previous.json()).level : "site";
  const saved = LEVELS[Math.max(LEVELS.indexOf(level), LEVELS.indexOf(before))];
  await cache.put(SAVED, new Response(JSON.stringify({ level: saved })));
}

/* The files a page used before this worker controlled it (the first visit): kept like the rest. */
async function keep(urls) {
  const { files } = await currentListing();
  const cache = await caches.open(CACHE);
  const paths = [...new Set(urls.map(sitePath))].filter((path) => path && files[path]);
  await inParallel(paths, async (path) => {
    if (!(await cachedCopy(cache, path, files[path]))) await networkCopy(cache, path, files[path]).catch(() => {});
  });
}

self.addEventListener("message", (event) => {
  const data = event.data || {};
  const client = event.source;
  if (data.type === "skip-waiting") self.skipWaiting();
  else if (data.type === "keep" && Array.isArray(data.urls)) event.waitUntil(keep(data.urls.map(String)).catch(() => {}));
  else if (data.type === "status") event.waitUntil(status(data.since).then((found) => client.postMessage(found),
    (error) => client.postMessage({ type: "status", error: String(error) })));
  else if (data.type === "save" && LEVELS.includes(data.level)) event.waitUntil(saveAll(data.level, client).then(
    () => client.postMessage({ type: "saved", level: data.level }),
    (error) => client.postMessage({ type: "failed", newer: error instanceof NewerBuild, reason: String(error.message || error),
      quota: !!error && error.name === "QuotaExceededError", network: error instanceof TypeError })));
});
