/* The site's service worker: cross-origin isolation, and the site kept for offline reading.
 *
 * Served at the site root as coi-serviceworker.js (scalecore_generator/build/offline.py writes this file
 * there with the build's version in BUILD), so its scope is the whole site, under any subpath.
 *
 * Isolation: every response it gives carries COOP same-origin and COEP require-corp (with CORP),
 * as coi-serviceworker (npm, MIT) did before: Stop interrupts Python and input() waits for the
 * reader on hosts that cannot send those headers (assets/isolate.js reloads a panel's page once).
 * Written here rather than wrapped: that worker answers every request itself, and the answers must
 * now come from a verified cache.
 *
 * Offline: offline.json, written by the same build, lists every file of the site with its sha256
 * and size. The worker keeps what the reader uses (pages, styles, fonts, baked data) in one cache
 * per build, "scalecore-<version>", and on request ("Make this site available offline",
 * assets/offline.js) fetches the rest, with or without the live runtime. Rules:
 *  - only this site's own files (same origin, inside the scope, listed); nothing of another origin
 *    is ever stored;
 *  - a file is stored and served only if its bytes have the listed sha256, checked every time it
 *    is served: a damaged or altered cached file is dropped and fetched again, never served;
 *  - a page never mixes two builds: this worker serves its own build only. A file the network
 *    gives with another digest belongs to a newer build: it is not served, the browser is asked to
 *    look for the newer worker, and the pages are told;
 *  - updates are atomic: a new build is a new worker (its BUILD differs), installed beside this
 *    one. It fills its own cache (files unchanged between builds are copied after checking them,
 *    the rest fetched and checked) and only then waits; the pages offer "Reload to update", and the
 *    old caches are deleted when the new worker takes over. A failed install leaves the old one.
 * Hand-written rather than Workbox: Workbox's precache checks revisions, not the bytes, and it
 * would be a second worker to merge with the isolation headers.
 */
"use strict";

const BUILD = "__SCALECORE_BUILD__";
const PREFIX = "scalecore-";
const CACHE = PREFIX + BUILD;
const ROOT = new URL("./", self.location.href); // the site root: this file lives there
const LISTING = new URL("offline.json", ROOT).href;
const SAVED = new URL("offline.json?saved", ROOT).href; // {level}: what the reader asked to save
// (a query, not a fragment: the Cache API ignores fragments)
const PARALLEL = 4;

let listing = null; // Promise of offline.json for BUILD

const isolation = {
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "cross-origin",
};

function isolated(response) {
  if (response.status === 0) return response; // opaque: nothing to add
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(isolation)) headers.set(name, value);
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

function currentListing() {
  if (!listing) {
    listing = caches.open(CACHE).then((cache) => cache.match(LISTING)).then(async (stored) => {
      if (stored) return stored.json();
      const { found, response } = await fetchListing();
      await (await caches.open(CACHE)).put(LISTING, response);
      return found;
    });
    listing.catch(() => { listing = null; }); // try again on the next request
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

async function copyOf(path, entry) {
  const cache = await caches.open(CACHE);
  return (await cachedCopy(cache, path, entry)) || networkCopy(cache, path, entry);
}

const served = ({ body, type }) => isolated(new Response(body, { headers: { "Content-Type": type } }));

/* What a page shows where this worker cannot give the page it asked for. Static text, no script. */
function notice(title, text) {
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${title}</title><body style="font:1rem/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem">` +
    `<h1 style="font-size:1.4rem">${title}</h1><p>${text}</p><p><a href="">Try again</a> · <a href="${ROOT.href}">Home</a></p>`;
  return isolated(new Response(html, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } }));
}

async function tellPages(message) {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true })) client.postMessage(message);
}

async function answer(request, path) {
  let files;
  try { files = (await currentListing()).files; } catch (error) { return isolated(await fetch(request)); }
  const entry = files[path];
  if (!entry) return isolated(await fetch(request)); // not a file of this build (a 404, a query): the network's
  try {
    return served(await copyOf(path, entry));
  } catch (error) {
    if (error instanceof NewerBuild) {
      self.registration.update().catch(() => {});
      tellPages({ type: "newer-build" });
      return request.mode === "navigate"
        ? notice("This site was just updated", "The page you asked for belongs to a newer version of this site, which " +
          "is being prepared. Reload in a moment: you will be offered the new version.")
        : new Response("", { status: 503, statusText: "Newer build" });
    }
    return request.mode === "navigate"
      ? notice("Not saved for offline reading", "This page was not saved on this device, and the network cannot be " +
        "reached. Pages you have read, and every page once you choose \u201cMake this site available offline\u201d, open without a network.")
      : Response.error();
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.cache === "only-if-cached" && request.mode !== "same-origin") return;
  const path = request.method === "GET" && !request.headers.has("Range") ? sitePath(request.url) : null;
  event.respondWith(path === null ? fetch(request).then(isolated) : answer(request, path));
});

/* ---- install and update -------------------------------------------------------------------- */

async function otherCaches() {
  return (await caches.keys()).filter((name) => name.startsWith(PREFIX) && name !== CACHE);
}

/* Fill this build's cache with what the reader had: each kept file of an older build that this
   build lists unchanged is copied (after checking it), a changed one fetched; if they had asked
   for the whole site, the whole site. Nothing else touches the old caches. */
async function prepare() {
  await caches.delete(CACHE); // a half-filled cache from an install that failed
  const { found, response } = await fetchListing();
  const cache = await caches.open(CACHE);
  const wanted = new Set();
  let saved = null;
  for (const name of await otherCaches()) {
    const old = await caches.open(name);
    const marker = await old.match(SAVED);
    if (marker) saved = await marker.json();
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
  await cache.put(LISTING, response);
  return (await otherCaches()).length === 0;
}

async function inParallel(items, work, done = () => {}) {
  let next = 0;
  async function lane() {
    while (next < items.length) {
      const item = items[next++];
      await work(item);
      done(item);
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, lane));
}

self.addEventListener("install", (event) => {
  // The first worker (no older build cached, or the plain isolation worker before it) takes over
  // at once; a newer build waits until the reader chooses to reload.
  event.waitUntil(prepare().then((first) => first && self.skipWaiting()));
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

async function status() {
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
  return { type: "status", build: BUILD, sizes, saved: marker ? await marker.json() : null };
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
  else if (data.type === "status") event.waitUntil(status().then((found) => client.postMessage(found),
    (error) => client.postMessage({ type: "status", error: String(error) })));
  else if (data.type === "save" && LEVELS.includes(data.level)) event.waitUntil(saveAll(data.level, client).then(
    () => client.postMessage({ type: "saved", level: data.level }),
    (error) => client.postMessage({ type: "failed", newer: error instanceof NewerBuild, reason: String(error.message || error) })));
});
