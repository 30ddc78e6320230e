/* The keys a reader types on a page reloaded for cross-origin isolation (isolate.js), from its
   first moment until the focus is back in the panel they reached for: kept, before anything else
   sees them, for isolate.js to type where the focus returns. Without it they reached the page
   itself: lost, or Material's shortcuts ('n' and 'p', the next and previous page) took the reader
   to another page (a fresh reader, typing on through the reload). Inlined by the build before
   Material's script on the pages with such a panel (held_keys.py); it does nothing on any
   other load. */
(function () {
  try {
    var reached = JSON.parse(sessionStorage.getItem("scalecore:isolation-reached") || "null");
    if (!reached || reached.path !== location.pathname || !window.crossOriginIsolated) return;
  } catch (error) {
    return; // no storage: isolate.js did not reload this page
  }
  var kept = (globalThis.scalecoreHeldKeys = { text: "", all: false, run: null });
  function take(event) {
    if (event.isComposing || event.altKey) return;
    var key = event.key;
    var command = event.ctrlKey || event.metaKey;
    if (command && (key === "a" || key === "A")) {
      kept.all = true; // select all, then typing: what is typed replaces the code
      kept.text = "";
    } else if (key === "Enter" && (command || event.shiftKey)) {
      kept.run = { ctrlKey: event.ctrlKey, metaKey: event.metaKey, shiftKey: event.shiftKey };
    } else if (command) {
      return; // the browser's own (reload, copy)
    } else if (key === "Enter") {
      kept.text += "\n";
    } else if (key === "Backspace") {
      kept.text = kept.text.slice(0, -1);
    } else if (key.length === 1) {
      kept.text += key;
    } else {
      return; // Tab, arrows, Escape: as the page has them
    }
    event.preventDefault();
    event.stopImmediatePropagation();
  }
  addEventListener("keydown", take, true);
  kept.stop = function () { removeEventListener("keydown", take, true); };
  setTimeout(kept.stop, 10000); // isolate.js never came: the keys go to the page again
})();
