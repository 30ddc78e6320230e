/* Cross-origin isolation on any static host.
 *
 * Stop interrupts Python in place, and input() waits for the reader, only where the page is
 * cross-origin isolated (SharedArrayBuffer): the host must send COOP same-origin and COEP
 * require-corp. Most static hosts cannot, so the site serves coi-serviceworker (npm, MIT, pinned in
 * build_tools/package-lock.json) at its root and this script registers it from the site's own
 * origin: the service worker adds those headers to every response of the site, and its scope is
 * the folder the site lives in (a subpath stays a subpath).
 *
 * A page only becomes isolated when it is loaded through the service worker. The worker is
 * registered on every page (the next page load is isolated), but a page is never reloaded under a
 * reader who is only reading: it is reloaded once, the first time the reader reaches for a panel
 * that needs isolation (focus or press inside it; its kind sets Kind.isolated, as the console
 * does), before anything is typed into it, as soon as they pause, and the control they reached
 * for gets the focus back
 * after the reload, with whatever they typed into its fields while the reload was under way (a
 * button they pressed, Run, is pressed again for them once the panel is ready), and with what they
 * had typed into the page's other fields and not sent (a question for the mentor). Once
 * the reader has typed into such a panel, it is never reloaded (nothing they wrote is lost): the
 * panel keeps its fallback. One reload per page and visit at most; where
 * isolation still fails (a browser that ignores it), the fallback stays
 * (Stop restarts Python; input() says it cannot read here).
 *
 * Nothing happens from file:// (service workers do not run there), on an insecure origin, where
 * service workers are unavailable (private modes), where the host already isolates the page, or
 * on a development server's page (mkdocs serve marks it scalecore-serve): no worker may stand
 * between an author's edit and the reload that shows it, so there Stop restarts Python.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var RELOADED = "scalecore:isolation-reloaded"; // the page reloaded for isolation in this tab
  var REACHED = "scalecore:isolation-reached"; // where the reader was: {path, y, panel, index, tag}
  var PANEL = ".scalecore-panel[data-scalecore-isolated]";
  var FOCUSABLE = "textarea, input, select, button, [contenteditable], [tabindex]";
  var TEXT = "textarea, input:not([type]), input[type=text]"; // what a reader types into
  if (!script || !/^https?:$/.test(location.protocol)) return;
  if (document.querySelector('meta[name="scalecore-serve"]')) return;

  function storage(work) {
    try { return work(window.sessionStorage); } catch (error) { return null; /* no storage */ }
  }

  // After the reload: back to where the reader was (Material turns the browser's own scroll
  // restoration off), and the focus back to the control they reached for once its panel has
  // hydrated (the console's editor comes with its code, a moment after the page).
  function giveFocusBack() {
    var reached = storage(function (store) {
      var value = JSON.parse(store.getItem(REACHED) || "null");
      store.removeItem(REACHED);
      return value;
    });
    if (!reached || reached.path !== location.pathname) return;
    window.scrollTo(0, reached.y);
    var deadline = Date.now() + 20000;
    var typed = reached.typed || [];
    var elsewhere = reached.elsewhere || [];
    // The keys typed on since this page's first moment, held before Material's script saw them
    // (pages/held-keys.js, inline): typed where the focus comes back, after what was held before.
    var later = globalThis.scalecoreHeldKeys || null;
    var focusedAt = 0;
    (function attempt() {
      elsewhere = putBackElsewhere(elsewhere);
      var panel = document.getElementById(reached.panel);
      if (panel && typed.length && panel.querySelectorAll(TEXT).length > typed[typed.length - 1].index) {
        putBackTyped(panel, typed); // the hydrated panel's fields, whatever control was reached
        typed = [];
      }
      var control = panel && panel.querySelectorAll(FOCUSABLE)[reached.index];
      var focused = control && control.tagName === reached.tag;
      if (focused) control.focus();
      else if (panel && panel.querySelector(TEXT) && reached.tag !== "TEXTAREA" && reached.tag !== "INPUT") {
        panel.querySelector(TEXT).focus(); // reached before it hydrated (its fallback): its first field
        focused = true;
      }
      var ready = panel && panel.getAttribute("data-scalecore-hydrated") === "true";
      if (reached.keys && ready && !typed.length) { // the keys the reload held back, where they were typed
        var into = panel.querySelectorAll(TEXT)[reached.keys.index];
        if (into) typeBack(into, reached.keys);
        delete reached.keys;
      }
      if (reached.press !== undefined && ready && !typed.length && !reached.keys) {
        var pressed = panel.querySelectorAll(FOCUSABLE)[reached.press];
        delete reached.press; // once
        if (pressed && pressed.tagName === "BUTTON" && !pressed.disabled) pressed.click();
      }
      if (focused && !focusedAt) focusedAt = Date.now();
      // with keys held: until the panel is ready for them (its editor hydrated), 5 s at most
      var waiting = later && !ready && Date.now() - focusedAt < 5000;
      if ((!focused || waiting || typed.length || elsewhere.length || reached.press !== undefined || reached.keys) && Date.now() < deadline) {
        setTimeout(attempt, 100);
      } else if (later) {
        putHeld(later, focused ? document.activeElement : null);
      }
    })();
  }

  // Held keys typed into ``field`` over what was selected when they were held (Ctrl+A, then
  // typing: the code replaced), announced to the panel as typing.
  function typeBack(field, keys) {
    var at = Math.min(keys.at, field.value.length);
    var end = Math.max(at, Math.min(keys.end === undefined ? at : keys.end, field.value.length));
    field.setRangeText(keys.text, at, end, "end");
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function putHeld(kept, field) {
    kept.stop();
    if (!field || !field.matches || !field.matches(TEXT)) return;
    if (kept.all) field.select();
    if (kept.text || kept.all) {
      field.setRangeText(kept.text, field.selectionStart, field.selectionEnd, "end");
      field.dispatchEvent(new Event("input", { bubbles: true }));
    }
    if (kept.run) field.dispatchEvent(new KeyboardEvent("keydown", Object.assign({ key: "Enter", bubbles: true }, kept.run)));
  }

  // What the reader typed between reaching for the panel and the reload taking the page away (a
  // fast reader, or a script, clicks into the console's editor and types at once): back in the
  // same fields of the hydrated panel, announced to it as typing (an input event).
  function typedIn(panel) {
    return Array.prototype.map.call(panel.querySelectorAll(TEXT), function (field, index) {
      return { index: index, value: field.value };
    }).filter(function (field) { return field.value !== ""; });
  }

  // What the reader typed into the page's other fields and had not sent (a question for the mentor, typed before they
  // reached for the console: a fresh reader's, lost to the reload): by the field's id, put back once the field is
  // there, unless something was typed into it since. Returns the fields not there yet.
  function typedElsewhere(panel) {
    return Array.prototype.filter.call(document.querySelectorAll(TEXT), function (field) {
      return field.id && !panel.contains(field) && field.value !== "" && field.value !== field.defaultValue;
    }).map(function (field) { return { id: field.id, value: field.value }; });
  }

  function putBackElsewhere(fields) {
    return fields.filter(function (field) {
      var into = document.getElementById(field.id);
      if (!into) return true;
      if (into.value === into.defaultValue && into.value !== field.value) {
        into.value = field.value;
        into.dispatchEvent(new Event("input", { bubbles: true }));
      }
      return false;
    });
  }

  function putBackTyped(panel, typed) {
    var fields = panel.querySelectorAll(TEXT);
    typed.forEach(function (field) {
      var into = fields[field.index];
      if (!into || into.value === field.value) return;
      into.value = field.value;
      into.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }

  if (window.crossOriginIsolated) {
    storage(function (store) { store.removeItem(RELOADED); });
    giveFocusBack();
    return;
  }
  if (!window.isSecureContext || !("serviceWorker" in navigator)) return;

  var worker = new URL("../../coi-serviceworker.js", script.src) // the site root: see runtime.py;
  var state = (globalThis.scalecoreIsolation = { worker: worker.href, registered: false, reloading: false });
  var active = false; // the worker controls this origin's next loads
  var reached = null; // the first control reached for in a panel that needs isolation
  var typed = false; // something was typed into such a panel: never reload it away
  var changed = false; // typed into, even after the reload was asked for: kept across it
  // A button the reader pressed in the panel (Run) that the reload took away: pressed again for
  // them once the reloaded panel is ready, unless typing was held back meanwhile (what they meant
  // to run never reached the editor).
  var pressed = null;
  var heldTyping = false; // typing held back that cannot be made again (not plain keys)
  // The keys typed while the panel was held (between reaching for it and the reload): made again
  // in the same field, at the same place, once the reloaded panel is ready.
  var heldKeys = null; // {index: the field among the panel's, at: where the caret was, text}

  function panelOf(target) {
    return target && target.closest ? target.closest(PANEL) : null;
  }

  function reloadOnce() {
    if (window.crossOriginIsolated || state.reloading || !reached || typed || !active) return;
    var allowed = storage(function (store) {
      if (store.getItem(RELOADED) === location.pathname) return false; // tried already: keep the fallback
      store.setItem(RELOADED, location.pathname);
      store.setItem(REACHED, JSON.stringify(reached));
      return true;
    });
    if (!allowed) return letGo(); // no storage: no guard against a reload loop, so no reload
    state.reloading = true;
    window.addEventListener("pagehide", function () {
      var panel = document.getElementById(reached.panel);
      if (!panel) return;
      var kept = {};
      if (changed) kept.typed = typedIn(panel); // nothing typed: the reloaded panel's own code stays
      if (heldKeys && heldKeys.text && !heldTyping) kept.keys = heldKeys;
      if (pressed !== null && !heldTyping) kept.press = pressed;
      var elsewhere = typedElsewhere(panel);
      if (elsewhere.length) kept.elsewhere = elsewhere;
      if (!kept.typed && kept.press === undefined && !kept.keys && !kept.elsewhere) return;
      storage(function (store) { store.setItem(REACHED, JSON.stringify(Object.assign({}, reached, kept))); });
    });
    location.reload();
  }

  function reach(event) {
    var panel = panelOf(event.target);
    if (!panel || reached || !panel.id) return;
    var control = event.target.closest(FOCUSABLE);
    reached = { path: location.pathname, y: window.scrollY, panel: panel.id, tag: control ? control.tagName : "",
      index: Array.prototype.indexOf.call(panel.querySelectorAll(FOCUSABLE), control) };
    if (event.type === "pointerdown" && control && control.tagName === "BUTTON") pressed = reached.index;
    if (reloadComing()) hold(panel);
    reloadWhenQuiet();
  }

  // The reload waits until the reader has paused for QUIET_MS: a key pressed while one document
  // gives way to the next reaches neither (a fresh reader who clicked, pressed Ctrl+A and typed on
  // lost the first keys, 12 times in 12). Keys typed before the pause are held and made again.
  var QUIET_MS = 600;
  var quietTimer = null;
  function reloadWhenQuiet() {
    clearTimeout(quietTimer);
    quietTimer = setTimeout(reloadOnce, holding ? QUIET_MS : 0);
  }

  // Between the reader reaching for the panel and the reload (the worker may still be starting:
  // up to a second or two), what they type would be cut in two by it (a fresh author typed code
  // and ran half of it). The panel takes no typing meanwhile and says why; if the reload does not
  // come (the worker refused), typing is let through again.
  var holding = null; // the panel held, and its note
  var refused = false; // the worker was refused: no reload will come
  function reloadComing() {
    return !refused && !typed && !storage(function (store) { return store.getItem(RELOADED) === location.pathname; });
  }

  function hold(panel) {
    var note = document.createElement("p");
    note.className = "scalecore-isolating";
    note.setAttribute("role", "status");
    note.textContent = "One moment: the page reloads once so that Python can be stopped and read input here; " +
      "what you type meanwhile comes back after it.";
    panel.insertBefore(note, panel.firstChild);
    holding = { panel: panel, note: note };
    state.holding = true; // the panel's own start (the console's Python) waits for the reload
    setTimeout(function () { if (!active) letGo(); }, HOLD_MS);
  }
  var HOLD_MS = 5000; // a worker that neither starts nor fails within this lets typing through

  // No reload comes: what was held goes into the field now, where it was typed.
  function letGo() {
    if (!holding || state.reloading) return;
    var field = heldKeys && !heldTyping ? holding.panel.querySelectorAll(TEXT)[heldKeys.index] : null;
    if (field && heldKeys.text) {
      typeBack(field, heldKeys);
      typed = true; // the reader's text is in the panel now: never reloaded away
    }
    heldKeys = null;
    holding.note.remove();
    holding = null;
    state.holding = false;
  }

  function held(event) {
    if (!holding || panelOf(event.target) !== holding.panel) return;
    reloadWhenQuiet(); // the reader is still typing
    event.preventDefault();
    if (event.type === "beforeinput") keep(event);
    var button = event.type === "click" && event.target.closest("button");
    if (button) pressed = Array.prototype.indexOf.call(holding.panel.querySelectorAll(FOCUSABLE), button);
  }
  function keep(event) {
    var field = event.target;
    var fields = Array.prototype.slice.call(holding.panel.querySelectorAll(TEXT));
    var index = fields.indexOf(field);
    var type = event.inputType;
    if (index < 0 || (heldKeys && heldKeys.index !== index)) {
      heldTyping = true; // another field, or none: not made again
      return;
    }
    heldKeys = heldKeys || { index: index, at: field.selectionStart || 0, end: field.selectionEnd || 0, text: "" };
    if (type === "insertText" || type === "insertReplacementText") heldKeys.text += event.data || "";
    else if (type === "insertLineBreak" || type === "insertParagraph") heldKeys.text += "\n";
    else if (type === "insertFromPaste" && event.dataTransfer) heldKeys.text += event.dataTransfer.getData("text/plain");
    else if (type === "deleteContentBackward" && heldKeys.text) heldKeys.text = heldKeys.text.slice(0, -1);
    else heldTyping = true;
  }
  document.addEventListener("beforeinput", held, true);
  document.addEventListener("click", held, true); // Run would start a Python the reload stops
  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey || event.shiftKey)) held(event);
    else if (holding && panelOf(event.target) === holding.panel) reloadWhenQuiet(); // Ctrl+A, arrows: typing
  }, true);
  document.addEventListener("focusin", reach, true);
  document.addEventListener("pointerdown", reach, true);
  document.addEventListener("input", function (event) {
    if (!panelOf(event.target)) return;
    changed = true; // kept across the reload
    if (!holding) typed = true; // typed before any reload was asked for: never reloaded away
  }, true);
  // Material's instant navigation swaps pages without loading them: what was reached on the page
  // before does not count on the next one.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe({ next: function () {
      letGo();
      reached = pressed = heldKeys = null;
      typed = changed = heldTyping = false;
    } });
  }

  function noReload() {
    refused = true; // no worker will take the page: no reload comes, and typing goes on
    letGo();
  }

  navigator.serviceWorker.register(worker.href, { updateViaCache: "none" }).then(function (registration) { // as offline.js does
    state.registered = true;
    var starting = registration && (registration.installing || registration.waiting || registration.active);
    if (!starting) noReload(); // a browser that takes registrations and runs no worker
    else if (starting.state !== "activated") {
      starting.addEventListener("statechange", function () { if (starting.state === "redundant") noReload(); });
    }
    return navigator.serviceWorker.ready;
  }).then(function () {
    active = true;
    state.active = true;
    if (reached) reloadWhenQuiet(); // the reader reached for the panel while the worker was still starting
  }, noReload); // refused (for example a browser setting): the panels keep their fallbacks
})();
