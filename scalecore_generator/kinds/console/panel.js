/* The console panel: a Python console on the site's own Pyodide. Its code is the kind's own module,
 * modules/console.js (with the live client and the worker), imported only over http, when the
 * page has a console; from file:// the panel says how to serve the site instead.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  var u = S.util;
  // This script's own URL, while it runs: the kind's modules are served beside it.
  var here = document.currentScript && document.currentScript.src;

  S.kinds.console = {
    hydrate: function (root, context) {
      var box = u.controls(root);
      if (!u.isHttp()) {
        // The note below says how to serve this very folder: the fallback's shorter note of the
        // same thing goes (one console said it twice).
        Array.prototype.forEach.call(root.querySelectorAll("[data-scalecore-disk-note]"), function (note) { note.hidden = true; });
        box.appendChild(u.needsHttp("The console", root));
        return;
      }
      var module = here ? new URL("modules/console.js", here) : new URL("kinds/console/modules/console.js", S.base);
      return import(module.href).catch(function (error) {
        throw u.unreachable("the console's code", error); // offline, not kept: said as such (panels.js)
      }).then(function (loaded) {
        return loaded.mountConsole(root, context);
      });
    },
  };

})();
