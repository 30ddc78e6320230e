/* Back and Forward, heard before Material's instant navigation. At the window, listeners run in
   the order they were added, whatever their phase (capture gives no precedence at the target),
   and Material adds its own when its script runs, before any deferred script of ours: a Back that
   only the page's panels (addresses.js) or the mentor's source link (mentor.js) should answer was
   also taken by Material for a visit, which fetched and drew this very page again (a fresh
   reader's Back from a source link ended 1,600 px below the answer, the answer drawn anew).
   Inlined by the build just before Material's script (back_first.py); each handler listed in
   globalThis.scalecoreBackFirst runs first, and one that calls event.stopImmediatePropagation()
   keeps the event from Material. */
(function () {
  var first = (globalThis.scalecoreBackFirst = []);
  window.addEventListener("popstate", function (event) {
    first.slice().forEach(function (handler) { handler(event); });
  });
})();
