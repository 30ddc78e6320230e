/* Every panel state has an address (the state in the page's query: ?p3.corpus=kjv&p3.seed=2):
 * a reader's change is kept in the address as it happens (Back and Forward walk the states),
 * "Copy link to this view" gives it, and a page opened at it shows each panel in that state.
 *
 * Loaded after panels.js (the panel base, whose helpers it takes from globalThis.scalecore.util)
 * and before hydration.js, which calls addressPanel() once a panel is hydrated and pageChanged()
 * on every page of Material's instant navigation. A classic script: it works from file:// too.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  if (!S || !S.util || S.addresses) return; // no panel base, or loaded twice: keep the first
  var el = S.util.el, isHttp = S.util.isHttp;


  /* Every panel state has an address. A kind names the controls that make its state with
     data-scalecore-state="<name>" (the shared pickers and switches do it for it): a <select>, a
     range or text <input>, a switch (role="switch"), a group of radios, or a group of switches
     (data-scalecore-state-item on each; its value is the on ones joined by "+", or "none"). The
     base reads and sets them from the outside, as a reader would (set the value, fire the event
     the kind listens to), so no kind has code of its own for this.

     In the address, a panel's state is the query parameters "<key>.<name>=<value>" of the values
     that differ from the panel's defaults, where <key> is "p" and the panel's number on its page
     (id scalecore-<page>-<n>), or its whole id: ?p1.corpus=kjv&p1.seed=3&p1.guards=norm+init.
     The query, not the hash: the hash stays the page's (heading anchors, links to a panel).
     A reader's discrete choice pushes a history entry (Back walks the choices), a slider's drag
     replaces the current one. A value that is not a choice of the control (not baked, not
     valid) leaves the control at its default. */

  var STATE = "[data-scalecore-state]";
  var SAFE_IN_QUERY = { "%2B": "+", "%2C": ",", "%3A": ":", "%2F": "/" }; // readable, and safe there

  function stateKey(root) {
    var number = /^scalecore-.+-(\d+)$/.exec(root.id || "");
    return number ? "p" + number[1] : root.id;
  }

  function encodeQueryPart(text) {
    return encodeURIComponent(text).replace(/%2B|%2C|%3A|%2F/g, function (code) { return SAFE_IN_QUERY[code]; });
  }

  function decodeQueryPart(text) {
    try {
      return decodeURIComponent(text); // "+" stays "+": guard sets are written with it
    } catch (error) {
      return null;
    }
  }

  /* The query's parts, each {raw, name, value}: parts that are not ours are kept byte for byte. */
  function queryParts(search) {
    return String(search || "").replace(/^\?/, "").split("&").filter(Boolean).map(function (raw) {
      var at = raw.indexOf("=");
      return { raw: raw, name: decodeQueryPart(at < 0 ? raw : raw.slice(0, at)), value: decodeQueryPart(at < 0 ? "" : raw.slice(at + 1)) };
    });
  }

  /* {name: value} of one panel in a query string. */
  function stateInQuery(search, key) {
    var found = {};
    queryParts(search).forEach(function (part) {
      if (part.name && part.value !== null && part.name.indexOf(key + ".") === 0) found[part.name.slice(key.length + 1)] = part.value;
    });
    return found;
  }

  /* The query with one panel's state replaced by `state` ({name: value}, defaults left out). */
  function queryWith(search, key, state) {
    var kept = queryParts(search).filter(function (part) { return !part.name || part.name.indexOf(key + ".") !== 0; })
      .map(function (part) { return part.raw; });
    Object.keys(state).forEach(function (name) {
      kept.push(encodeQueryPart(key + "." + name) + "=" + encodeQueryPart(state[name]));
    });
    return kept.length ? "?" + kept.join("&") : "";
  }

  function controlsOf(root) {
    return Array.prototype.filter.call(root.querySelectorAll(STATE), function (node) {
      return !node.closest(".scalecore-live"); // a live form's inputs are not the panel's state
    });
  }

  function switchOn(button) {
    return button.getAttribute("aria-checked") === "true";
  }

  /* A control's value as the address writes it. */
  function readControl(node) {
    if (node.getAttribute("role") === "switch") return switchOn(node) ? "on" : "off";
    var items = node.querySelectorAll("[data-scalecore-state-item]");
    if (items.length) {
      var on = Array.prototype.filter.call(items, switchOn).map(function (item) { return item.getAttribute("data-scalecore-state-item"); });
      return on.length ? on.join("+") : "none";
    }
    var radios = node.querySelectorAll("input[type=radio]");
    if (radios.length) {
      var checked = Array.prototype.filter.call(radios, function (radio) { return radio.checked; })[0];
      return checked ? checked.value : "";
    }
    var values = node.getAttribute("data-scalecore-state-values");
    if (values !== null) return values.split(" ")[Number(node.value)] || "";
    return node.value;
  }

  /* Set a control to `value` as a reader would. Returns "set" (done), "same", or "no" (not a
     value this control offers now; a later pass may find it, once other choices loaded). */
  function setControl(node, value) {
    if (readControl(node) === value) return "same";
    if (node.disabled) return "no";
    if (node.getAttribute("role") === "switch") {
      if (value !== "on" && value !== "off") return "no";
      node.click();
      return "set";
    }
    var items = node.querySelectorAll("[data-scalecore-state-item]");
    if (items.length) {
      var wanted = value === "none" ? [] : value.split("+");
      var names = Array.prototype.map.call(items, function (item) { return item.getAttribute("data-scalecore-state-item"); });
      if (wanted.some(function (name) { return names.indexOf(name) < 0; })) return "no";
      var blocked = Array.prototype.some.call(items, function (item, i) {
        return item.disabled && switchOn(item) !== (wanted.indexOf(names[i]) >= 0);
      });
      if (blocked) return "no"; // a guard fixed on this page cannot follow the address
      Array.prototype.forEach.call(items, function (item, i) {
        if (switchOn(item) !== (wanted.indexOf(names[i]) >= 0)) item.click();
      });
      return "set";
    }
    var radios = node.querySelectorAll("input[type=radio]");
    if (radios.length) {
      var radio = Array.prototype.filter.call(radios, function (r) { return r.value === value && !r.disabled; })[0];
      if (!radio) return "no";
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
      return "set";
    }
    if (node.tagName === "SELECT") {
      var option = Array.prototype.filter.call(node.options, function (o) { return o.value === value; })[0];
      if (!option) return "no";
      node.value = value;
      node.dispatchEvent(new Event("change", { bubbles: true }));
      return "set";
    }
    if (node.type === "range") {
      var values = node.getAttribute("data-scalecore-state-values");
      var number = values !== null ? values.split(" ").indexOf(value) : Number(value);
      var low = Number(node.min || 0);
      var high = Number(node.max || 100);
      var step = Number(node.step || 1);
      if (value === "" || !isFinite(number) || number < low || number > high ||
          Math.abs((number - low) / step - Math.round((number - low) / step)) > 1e-9) return "no";
      node.value = String(number);
      node.dispatchEvent(new Event("input", { bubbles: true }));
      return "set";
    }
    var before = node.value;
    node.value = value;
    node.dispatchEvent(new Event("change", { bubbles: true }));
    if (node.getAttribute("aria-invalid") === "true") { // the kind refused it: back to what it was
      node.value = before;
      node.dispatchEvent(new Event("change", { bubbles: true }));
      return "no";
    }
    return "set";
  }

  function stateOf(root) {
    var state = {};
    controlsOf(root).forEach(function (node) { state[node.getAttribute("data-scalecore-state")] = readControl(node); });
    return state;
  }

  /* A panel's state minus its defaults: what its address says. */
  function changedState(root) {
    var now = stateOf(root);
    var defaults = root.scalecoreDefaults || {};
    var changed = {};
    Object.keys(now).forEach(function (name) { if (now[name] !== defaults[name]) changed[name] = now[name]; });
    return changed;
  }

  /* Wait until the panel has no choice loading (aria-busy), at most `tries` frames apart. */
  function settled(root, tries) {
    return new Promise(function (resolve) {
      (function poll(left) {
        setTimeout(function () {
          if (!root.querySelector('[aria-busy="true"]') || left <= 0) resolve();
          else poll(left - 1);
        }, 16);
      })(tries);
    });
  }

  /* Bring a panel to the state its address names (defaults for what it does not name), in up
     to three passes: a choice may offer its values only once another has loaded (a head of 8
     exists once 8 heads are shown). Within a pass one control at a time, each once the panel has
     loaded what the last one chose: a kind's choice loads with the panel's other values as they
     are, so corpus, seed and heads set at once ended with the corpus's load and the heads it
     started with (the Heads radio said 2, the maps showed 8). A control is found again by its
     name each time: a load may draw the panel's controls anew. */
  function restoreState(root) {
    var wanted = Object.assign({}, root.scalecoreDefaults || {}, stateInQuery(location.search, stateKey(root)));
    root.scalecoreRestoring = (root.scalecoreRestoring || 0) + 1;
    function control(name) {
      return controlsOf(root).filter(function (node) { return node.getAttribute("data-scalecore-state") === name; })[0];
    }
    function pass(left) {
      var names = controlsOf(root).map(function (node) { return node.getAttribute("data-scalecore-state"); })
        .filter(function (name) { return name in wanted; });
      var pending = [];
      return names.reduce(function (done, name) {
        return done.then(function () {
          var node = control(name);
          var result = node ? setControl(node, wanted[name]) : "no";
          if (result === "no") pending.push(name);
          return result === "set" ? settled(root, 300) : null;
        });
      }, Promise.resolve()).then(function () {
        return settled(root, 300);
      }).then(function () {
        if (pending.length && left > 1) return pass(left - 1);
      });
    }
    return pass(3).then(function () {
      root.scalecoreRestoring -= 1;
      root.scalecoreWritten = JSON.stringify(changedState(root));
      // The address keeps only what the panel could show: an unbaked value leaves it.
      var search = queryWith(location.search, stateKey(root), changedState(root));
      if (search !== location.search) history.replaceState(history.state, "", location.pathname + search + location.hash);
      rememberAddress();
    });
  }

  /* After a reader's action: the address follows the panel (push for a choice, replace for a
     slider's drag). Runs after the kind's own listeners (a task later). */
  function followReader(root, event) {
    if (root.scalecoreRestoring) return;
    var target = event.target;
    if (target && target.closest && target.closest(".scalecore-live, .scalecore-copy-link")) return;
    var replace = event.type === "input" && target && target.type === "range";
    setTimeout(function () {
      if (root.scalecoreRestoring) return;
      var changed = changedState(root);
      var text = JSON.stringify(changed);
      if (text === root.scalecoreWritten) return;
      root.scalecoreWritten = text;
      var url = location.pathname + queryWith(location.search, stateKey(root), changed) + location.hash;
      if (replace) history.replaceState(history.state, "", url);
      else history.pushState(history.state, "", url);
      rememberAddress();
    }, 0);
  }

  /* The address of this view, landing on the panel (its id as the hash). */
  function linkToView(root) {
    return location.href.split("#")[0] + "#" + root.id;
  }

  /* "Copy a link to this view": the clipboard when the browser allows it, else the link shown
     selected in a field, for the reader's own copy (a page from disk may not have the
     clipboard). */
  function copyLinkButton(root) {
    var status = el("span", { class: "scalecore-status scalecore-copy-link__status", role: "status" });
    var field = el("input", { type: "text", class: "scalecore-input scalecore-copy-link__field", readonly: true, hidden: true,
      "aria-label": "Link to this view" });
    var button = el("button", { type: "button", class: "scalecore-button scalecore-copy-link__button" }, "Copy a link to this view");
    function showField(url, why) {
      field.value = url;
      field.hidden = false;
      field.focus();
      field.select();
      status.textContent = why;
    }
    button.addEventListener("click", function () {
      var url = linkToView(root);
      var clipboard = navigator.clipboard;
      if (!clipboard || !clipboard.writeText) {
        showField(url, "Copy this link (Ctrl+C or \u2318C).");
        return;
      }
      clipboard.writeText(url).then(function () {
        field.hidden = true;
        // a result computed live has no address: the link opens the baked view of the same choices
        status.textContent = root.getAttribute("data-scalecore-source") === "live"
          ? "Link copied. It opens the baked view: a result computed live has no address." : "Link copied.";
        root.setAttribute("data-scalecore-copied", url);
      }, function () {
        showField(url, "The browser did not allow copying: copy this link (Ctrl+C or \u2318C).");
      });
    });
    return el("div", { class: "scalecore-copy-link" }, [button, field, status]);
  }

  /* A hydrated panel with state controls gets its address: read now, followed from now on. */
  function addressPanel(root) {
    if (!controlsOf(root).length) return Promise.resolve();
    root.scalecoreDefaults = stateOf(root);
    if (!root.scalecoreAddressed) {
      root.scalecoreAddressed = true;
      ["change", "input", "click"].forEach(function (type) {
        root.addEventListener(type, function (event) { followReader(root, event); });
      });
      // In the row of pickers when there is one (no new row under the controls).
      var box = root.querySelector(".scalecore-controls");
      var row = box && box.querySelector(".scalecore-pickers");
      if (box && !box.querySelector(".scalecore-copy-link")) (row || box).appendChild(copyLinkButton(root));
    }
    return restoreState(root);
  }

  /* The address the page showed last, to tell a panel's Back (only the query moved) from a
     page's or an anchor's (Material's instant navigation handles those). */
  var lastHref = location.href;
  var loadedSearch = location.search; // the query of the page's links made absolute (see below)
  function rememberAddress() {
    lastHref = location.href;
  }

  /* Back and Forward: every addressed panel of the page follows the address. When only panels'
     state moved (same page, same anchor), the event is the panels' alone: Material's instant
     navigation would otherwise fetch and swap this very page again on the first Back. Heard
     before Material's listener (pages/back-first.js, inlined before its script; at the window the
     capture phase gives no precedence), else as the page's last listener. */
  onBack(function (event) {
    var before = new URL(lastHref);
    var ours = before.pathname === location.pathname && before.hash === location.hash && before.search !== location.search;
    rememberAddress();
    if (ours) event.stopImmediatePropagation();
    Array.prototype.forEach.call(document.querySelectorAll(".scalecore-panel[data-scalecore-hydrated=true]"), function (root) {
      if (root.scalecoreAddressed && document.contains(root)) restoreState(root);
    });
  });
  function onBack(handler) {
    if (Array.isArray(globalThis.scalecoreBackFirst)) globalThis.scalecoreBackFirst.push(handler);
    else window.addEventListener("popstate", handler, true);
  }
  // A click may move the address (an anchor, a link through instant navigation): note it after.
  document.addEventListener("click", function () { setTimeout(rememberAddress, 0); }, true);

  /* Under Material's instant navigation, links in the page were made absolute when it loaded (the
     address of then); a link to a place on this same page that still has the address of then
     gets the address of now, so following a heading's anchor keeps the panels' state (a link
     that names a state of its own, such as the mentor's, is followed as written). Runs before
     Material's handler (capture). */
  document.addEventListener("click", function (event) {
    var link = event.target && event.target.closest ? event.target.closest("a[href]") : null;
    if (!link || !isHttp()) return;
    var url;
    try {
      url = new URL(link.href, location.href);
    } catch (error) {
      return;
    }
    if (url.origin !== location.origin || url.pathname !== location.pathname || url.search === location.search || !url.hash) return;
    if (url.search !== loadedSearch) return; // a query of its own: not ours to change
    link.href = location.pathname + location.search + url.hash;
  }, true);

  /* A copied address holds a panel's state in its query (p3.corpus=kjv) and no fragment: the page
     opens at that panel, not at its top, thousands of pixels above it. The first panel the query
     names, or null. */
  function addressedPanel() {
    var names = queryParts(location.search).map(function (part) { return part.name || ""; });
    var panels = document.querySelectorAll(".scalecore-panel[data-scalecore-kind]");
    for (var i = 0; i < panels.length; i++) {
      var key = stateKey(panels[i]) + ".";
      if (names.some(function (name) { return name.indexOf(key) === 0; })) return panels[i];
    }
    return null;
  }

  /* A page swapped in by instant navigation has its own address. */
  function pageChanged() {
    rememberAddress();
    loadedSearch = location.search;
  }

  S.addresses = { addressPanel: addressPanel, addressedPanel: addressedPanel, pageChanged: pageChanged };
  S.util.stateKey = stateKey;
  S.util.linkToView = linkToView;
})();
