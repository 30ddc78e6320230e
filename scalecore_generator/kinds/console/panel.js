/* The console panel: a Python console on the site's own Pyodide. Its code (console.js, a module
 * with the live client and the worker) is imported only over http, when the page has a console;
 * from file:// the panel says how to serve the site instead.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  var u = S.util;

  /* ---------------------------------------------------------------- console (module) */

  S.kinds.console = {
    hydrate: function (root, context) {
      var box = u.controls(root);
      if (!u.isHttp()) {
        box.appendChild(u.needsHttp("The console", root));
        return;
      }
      return import(new URL("console.js", S.base).href).then(function (module) {
        return module.mountConsole(root, context);
      });
    },
  };

})();
