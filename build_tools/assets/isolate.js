/* Cross-origin isolation on any static host.
 *
 * Stop interrupts Python in place, and input() waits for the reader, only where the page is
 * cross-origin isolated (SharedArrayBuffer): the host must send COOP same-origin and COEP
 * require-corp. Most static hosts cannot, so the site serves coi-serviceworker (npm, MIT, pinned in
 * build_tools/package-lock.json) at its root and this script registers it from the site's own
 * origin: the service worker adds those headers to every response of the site, and its scope is
 * the folder the site lives in (a subpath stays a subpath).
 *
 * A page only becomes isolated when it is loaded through the service worker, so the first visit
 * to a page with a panel that needs it (its kind sets Kind.isolated, as the console does) reloads
 * it once, as soon as the worker is active (other pages just register it: the next page load is
 * isolated). After an instant navigation (Material) onto such a page that is not isolated yet,
 * the page is reloaded the same way. One reload per page and visit at most: if isolation still
 * fails (a browser that ignores it), the panel keeps its fallback
 * (Stop restarts Python; input() says it cannot read here).
 *
 * Nothing happens from file:// (service workers do not run there), on an insecure origin, where
 * service workers are unavailable (private modes), or where the host already isolates the page.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var RELOADED = "scalecore:isolation-reloaded";
  if (!script || !/^https?:$/.test(location.protocol)) return;
  if (window.crossOriginIsolated) {
    try { sessionStorage.removeItem(RELOADED); } catch (error) { /* no storage */ }
    return;
  }
  if (!window.isSecureContext || !("serviceWorker" in navigator)) return;

  var worker = new URL("../../coi-serviceworker.js", script.src) // the site root: see runtime.py;
  var state = (globalThis.scalecoreIsolation = { worker: worker.href, registered: false, reloading: false });

  function needsIsolation() { // a panel whose kind says so (Kind.isolated in build_tools/kind.py)
    return !!document.querySelector(".scalecore-panel[data-scalecore-isolated]");
  }

  function reloadOnce() {
    if (window.crossOriginIsolated || state.reloading || !needsIsolation()) return;
    try {
      if (sessionStorage.getItem(RELOADED) === location.pathname) return; // tried already: keep the fallback
      sessionStorage.setItem(RELOADED, location.pathname);
    } catch (error) {
      return; // no storage: no guard against a reload loop, so no reload
    }
    state.reloading = true;
    location.reload();
  }

  navigator.serviceWorker.register(worker.href).then(function () {
    state.registered = true;
    return navigator.serviceWorker.ready;
  }).then(function () {
    reloadOnce();
    // Material's instant navigation swaps pages without loading them: such a page reached
    // that way is loaded for real once.
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe({ next: reloadOnce });
    }
  }, function () {
    /* refused (for example a browser setting): the panels keep their fallbacks */
  });
})();
