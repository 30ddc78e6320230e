/* Panels come to life when the reader nears them: each panel's kind script is loaded and its
 * handler hydrates the no-JS fallback into the live panel, then its address is followed
 * (addresses.js). Loaded last of the panel scripts (views.js, panels.js, addresses.js); it starts
 * the page's panels on every page of Material's instant navigation. A classic script: it works
 * from file:// too.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  if (!S || !S.util || !S.addresses || S.hydrate) return; // a part missing, or loaded twice
  var U = S.util, A = S.addresses, timings = S.timings;
  var loadScript = U.loadScript, options = U.options, isHttp = U.isHttp, unreachable = U.unreachable;
  var showError = U.showError, addressPanel = A.addressPanel, addressedPanel = A.addressedPanel;
  // The page is being left (a reload, a link): what it was still downloading is cut off then.
  var leaving = false;
  window.addEventListener("pagehide", function () { leaving = true; });
  window.addEventListener("pageshow", function () { leaving = false; }); // back from the page cache

  function hydratePanel(root) {
    var kind = root.getAttribute("data-scalecore-kind");
    root.setAttribute("data-scalecore-hydrated", "pending");
    var script = root.getAttribute("data-scalecore-script"); // the kind's panel.js, named by the block
    var ready = script && !S.kinds[kind] ? loadScript(new URL(script, document.baseURI).href) : Promise.resolve();
    // The panel as the build wrote it, put back whole if its script fails: its markup as text (a
    // cloned copy would start downloading the baked figures its live view replaces).
    var built = null;
    return ready
      .then(function () {
        var handler = S.kinds[kind];
        if (!handler) throw new Error("unknown panel kind " + JSON.stringify(kind));
        var context = { options: options(root) };
        built = root.innerHTML;
        return handler.hydrate(root, context);
      })
      .then(function () {
        // The panel works whatever its address says: a state it cannot take is left out.
        return addressPanel(root).catch(function (error) {
          console.warn("scalecore: this panel's address could not be followed:", error);
        });
      })
      .then(function () {
        root.setAttribute("data-scalecore-hydrated", "true");
        root.classList.add("scalecore-hydrated");
      })
      .catch(function (error) {
        if (leaving) return; // a page being left cuts off its downloads (Firefox): not the panel's fault
        root.setAttribute("data-scalecore-hydrated", "error");
        // A script that failed half way (its fallback hidden, its controls added) leaves no dead
        // controls over a missing figure: the panel is the build's again, the baked fallback shown.
        if (built !== null) root.innerHTML = built;
        if (isHttp()) {
          // Served: a fallback's note about pages opened from disk is not the reason (the kind marks it).
          Array.prototype.forEach.call(root.querySelectorAll("[data-scalecore-disk-note]"), function (note) { note.hidden = true; });
          error = unreachable("its code", error);
        }
        showError(root, error && error.message ? error.message : String(error));
        console.error("scalecore: a " + kind + " panel could not start:", error);
      });
  }

  /* Hydrate every panel of the page not hydrated yet, now; safe to call any number of times. */
  function hydrateAll(scope) {
    var roots = (scope || document).querySelectorAll(".scalecore-panel[data-scalecore-kind]:not([data-scalecore-hydrated])");
    var started = performance.now();
    return Promise.all(Array.prototype.map.call(roots, hydrateOne)).then(function () {
      if (roots.length) timings.hydrateMs = performance.now() - started;
    });
  }

  function hydrateOne(root) {
    if (root.hasAttribute("data-scalecore-hydrated")) return Promise.resolve();
    return hydratePanel(root).then(function () { stopWaiting(root); });
  }

  /* The waiting panel's own Tab stop goes; if it has the focus, the focus goes to its first
     control first (removing a focused element's tabindex would drop the focus). */
  function stopWaiting(root) {
    if (!root.hasAttribute("data-scalecore-waiting")) return;
    root.removeAttribute("data-scalecore-waiting");
    if (document.activeElement === root) {
      var first = root.querySelector(".scalecore-controls button, .scalecore-controls select, " +
        ".scalecore-controls input, button, select, input, textarea, summary, a[href]");
      if (first) first.focus();
    }
    root.removeAttribute("tabindex");
  }

  /* Hydrate each panel when it comes near the viewport (a screen ahead), so a page with many
     panels builds no DOM and runs no long task for panels the reader has not reached. A panel
     still waiting takes the keyboard's focus (one Tab stop, its fallback stays the view), and
     hydrates then: a reader who tabs past the screen never skips its controls. Without
     IntersectionObserver, every panel hydrates at once. */
  var watcher = null;
  function hydrateNear(scope) {
    var roots = (scope || document).querySelectorAll(".scalecore-panel[data-scalecore-kind]:not([data-scalecore-hydrated])");
    if (!("IntersectionObserver" in window)) return hydrateAll(scope);
    if (!watcher) {
      watcher = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (!entry.isIntersecting) return;
          watcher.unobserve(entry.target);
          hydrateOne(entry.target);
        });
      }, { rootMargin: "100% 0px" });
    }
    Array.prototype.forEach.call(roots, function (root) {
      if (root.hasAttribute("data-scalecore-waiting")) return;
      root.setAttribute("data-scalecore-waiting", "");
      if (!root.hasAttribute("tabindex")) root.setAttribute("tabindex", "0");
      root.addEventListener("focus", function onFocus() {
        root.removeEventListener("focus", onFocus);
        watcher.unobserve(root);
        hydrateOne(root);
      });
      watcher.observe(root);
    });
    return Promise.resolve();
  }

  S.hydrate = hydrateAll; // now, every panel (tests, printing)
  S.hydrateNear = hydrateNear;


  /* Material's document$ emits on every page, including instant swaps. From file:// it may
     complete without emitting (instant navigation is off there), so the plain DOM events run
     too: hydration is idempotent. The panels near the screen hydrate in a task of their own:
     document$ first emits inside Material's DOMContentLoaded handler, which mounts Material's own
     components in that same task; the panels' set-up (and the module header's, module.js) in that
     task too made it one long task, and a reader's tap waits for a whole task. */
  function hydrateSoon() {
    A.pageChanged(); // a page swapped in by instant navigation has its own address
    setTimeout(function () { hydrateNear(document); }, 0);
    keepTargetInView();
  }

  /* A link to a section near the page's end: the browser scrolls to it once, at load, as far as
     the page then reaches; the panels below it hydrate and the boxes render afterwards, the page
     grows, and on a slow phone the heading was left hundreds of pixels down. While the page
     settles (a few seconds) and until the reader moves (wheel, touch, key, pointer), each growth
     of the page brings the target back to the top. Only the browser's own place for it counts
     (scrollIntoView keeps the heading's scroll-margin, below the header). */
  var SETTLE_MS = 5000;
  function keepTargetInView() {
    var id = location.hash.slice(1);
    var target = null;
    try {
      target = id && document.getElementById(decodeURIComponent(id));
    } catch (error) {
      target = null; // a malformed address: nothing to keep
    }
    if (!target && !id) {
      // The panel a copied address is about: hydrated now, not when it nears the screen, and
      // brought into view, then again once it has grown; the browser's scroll anchoring keeps it
      // there while panels above it grow. (Not the keeping below: a page that scrolls itself, or
      // a reader's first scroll, must not be pulled back to it.)
      var addressed = addressedPanel();
      if (addressed && !addressed.hasAttribute("data-scalecore-hydrated")) {
        addressed.scrollIntoView({ block: "start" });
        hydrateOne(addressed).then(function () { addressed.scrollIntoView({ block: "start" }); });
      }
      return;
    }
    if (!target || !("ResizeObserver" in window)) return;
    var stops = ["wheel", "touchstart", "keydown", "pointerdown"];
    var growth = new ResizeObserver(function () {
      var wanted = (parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0) +
        (parseFloat(getComputedStyle(target).scrollMarginTop) || 0); // below the header
      if (Math.abs(target.getBoundingClientRect().top - wanted) > 1) target.scrollIntoView({ block: "start" });
    });
    function stop() {
      growth.disconnect();
      stops.forEach(function (type) { window.removeEventListener(type, stop, true); });
    }
    stops.forEach(function (type) { window.addEventListener(type, stop, { capture: true, passive: true }); });
    growth.observe(document.body);
    setTimeout(stop, SETTLE_MS);
  }
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe({ next: hydrateSoon, error: hydrateSoon, complete: hydrateSoon });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", hydrateSoon);
  else hydrateSoon();
})();
