/* The service worker a development build serves (mkdocs serve, properdocs serve): it takes no
 * page and steps aside.
 *
 * A dev server's pages must come from the dev server, every time: an edit has to show on the
 * next reload. Pages of a development build register no worker (assets/offline.js and
 * assets/isolate.js read the page's scalecore-serve marker), but a reader, or the author, may have
 * visited a built site on the same origin before (a `python -m http.server` on port 8000, then
 * `mkdocs serve` on the same port): that site's worker still controls the origin and would
 * answer the dev server's pages from its cache. The browser checks the worker's script on every
 * navigation and gets this one, which replaces it at once: it deletes the site's caches,
 * unregisters, and reloads the pages the old worker held, from the network. It has no fetch
 * handler, so no request of a dev server's page ever passes through a worker.
 */
"use strict";

const ROOT = new URL("./", self.location.href);
const PREFIX = "scalecore-" + ROOT.pathname + ":"; // this site's caches (service-worker.js), not another's
const LEGACY = /^scalecore-[0-9a-f]{20}$/;
const LISTING = new URL("offline.json", ROOT).href;

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) || (LEGACY.test(name) && await caches.match(LISTING, { cacheName: name }))) await caches.delete(name);
    }
    await self.registration.unregister();
    for (const client of await self.clients.matchAll({ type: "window" })) {
      client.navigate(client.url).catch(() => { /* not held by the old worker: nothing to reload */ });
    }
  })());
});
