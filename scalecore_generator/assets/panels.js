/* Scalecore panels: the entry script every page loads.
 *
 * A CLASSIC script on purpose (no import/export): pages opened from disk (file://) refuse module
 * scripts and fetch(), but still run classic scripts and load data through <script src> tags.
 * So everything a baked panel needs works from file://:
 *
 *   panels.js         this file: the panel base (shared helpers, hydration on every page: Material's
 *                     instant navigation swaps pages without reloading)
 *   <kind>/panel.js   each kind's view, a classic script too, loaded only when a page has such a
 *                     panel (its root names it: data-scalecore-script); it registers its kind
 *                     on globalThis.scalecore.kinds
 *
 * Live mode and the console need Python (Pyodide, in a module Web Worker); their code (live.js,
 * worker.js, the console kind's modules/console.js) is imported with import() only when the
 * reader asks for it, and only over http. From file:// those controls say how to serve the site
 * instead.
 */
(function () {
  "use strict";

  if (globalThis.scalecore && globalThis.scalecore.started) return; // loaded twice: keep the first

  var SERVE_COMMAND = "python3 -m http.server -d site 8000";
  var SERVE_URL = "http://127.0.0.1:8000/";
  var MAX_SEED = 4294967295; // random.Random takes any integer; the panels offer the 32-bit ones
  var BUSY_AFTER_MS = 100; // a live form shows that it computes only after this long (liveForm)
  var PREPARE_AFTER_MS = 150; // a live form's fields unchanged this long: the worker computes them (liveForm)
  // Where a self-check keeps a revealed answer ("<prefix><check id>" = "1"); the module header's
  // progress (theme module.js) reads the same keys.
  var REVEALED_PREFIX = "scalecore:revealed:";
  // The three guards, in the order a guard set names them ("norm+init+scale", or "none").
  var GUARD_NAMES = ["norm", "init", "scale"];

  var S = (globalThis.scalecore = globalThis.scalecore || {});
  S.started = true;
  S.constants = { MAX_SEED: MAX_SEED, BUSY_AFTER_MS: BUSY_AFTER_MS, REVEALED_PREFIX: REVEALED_PREFIX,
    GUARD_NAMES: GUARD_NAMES.slice() };
  S.kinds = S.kinds || {};
  var data = (globalThis.scalecoreData = globalThis.scalecoreData || {});
  var timings = (globalThis.scalecoreTimings = globalThis.scalecoreTimings || {});

  /* Where this script (and so every other asset) lives. document.currentScript is null if a
     page loads us as a module, so fall back to finding our own tag. */
  function assetsBase() {
    var script = document.currentScript;
    if (!script || !script.src) script = document.querySelector('script[src*="scalecore/panels.js"]');
    return new URL(".", script ? script.src : document.baseURI).href;
  }
  S.base = assetsBase();

  /* ---------------------------------------------------------------- small DOM helpers */

  var SVG_NS = "http://www.w3.org/2000/svg";

  /* el("div", {class: "x", hidden: true, onclick: f}, [children or text]) */
  function el(tag, attributes, children) {
    var node = tag.indexOf("svg:") === 0 ? document.createElementNS(SVG_NS, tag.slice(4)) : document.createElement(tag);
    setAttributes(node, attributes);
    append(node, children);
    return node;
  }
  function svg(tag, attributes, children) {
    return el("svg:" + tag, attributes, children);
  }
  function setAttributes(node, attributes) {
    for (var key in attributes || {}) {
      var value = attributes[key];
      if (value === undefined || value === null || value === false) continue;
      if (key.indexOf("on") === 0 && typeof value === "function") node.addEventListener(key.slice(2), value);
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
  }
  function append(node, children) {
    if (children === undefined || children === null) return node;
    if (!Array.isArray(children)) children = [children];
    children.forEach(function (child) {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
    });
    return node;
  }

  var uid = 0;
  function nextId(prefix) {
    uid += 1;
    return (prefix || "scalecore") + "-" + uid;
  }

  /* ---------------------------------------------------------------- numbers */

  /* Numbers as readers see them: the shared views' format (views.js), the same in the baked
     figures, the fallback and every live view. */
  var fmt = globalThis.scalecoreViews.format;

  /* ---------------------------------------------------------------- data and scripts */

  var scripts = {};

  /* Load a classic script once (works from file://); resolves when it has run. */
  function loadScript(url) {
    if (!scripts[url]) {
      scripts[url] = new Promise(function (resolve, reject) {
        var tag = document.createElement("script");
        tag.src = url;
        tag.async = false;
        tag.onload = function () { resolve(url); };
        tag.onerror = function () {
          delete scripts[url];
          tag.remove();
          reject(new Error("could not load " + url));
        };
        document.head.appendChild(tag);
      });
    }
    return scripts[url];
  }

  /* scalecoreData[key], loading its script first if it is not there yet. */
  function ensureData(key, url) {
    if (data[key]) return Promise.resolve(data[key]);
    if (!url) return Promise.reject(new Error("no data for " + key + " on this page"));
    return loadScript(url).then(function () {
      if (!data[key]) throw new Error(url + " did not provide the data " + key);
      return data[key];
    });
  }

  function isHttp() {
    return location.protocol === "http:" || location.protocol === "https:";
  }

  /* The manifest (index.json) of the static API: fetched over http, or on file:// loaded from its
     script twin named by the panel (data-scalecore-manifest-script). Its URL is the base of every
     URL in it. */
  function manifestOf(root) {
    var relative = root.getAttribute("data-scalecore-manifest");
    if (!relative) return Promise.reject(new Error("the panel names no manifest"));
    var url = new URL(relative, document.baseURI).href;
    if (data.manifest) return Promise.resolve({ data: data.manifest, url: url });
    var loading = isHttp()
      ? fetch(url).then(function (response) {
          if (!response.ok) throw new Error("could not load the manifest " + url + " (HTTP " + response.status + ")");
          return response.json();
        })
      : ensureData("manifest", new URL(root.getAttribute("data-scalecore-manifest-script"), document.baseURI).href);
    return loading.then(function (manifest) {
      data.manifest = data.manifest || manifest;
      return { data: data.manifest, url: url };
    });
  }

  /* A URL from the manifest, made absolute (never built by hand). */
  function resolveUrl(manifest, relative) {
    return new URL(relative, manifest.url).href;
  }

  /* scalecoreData[key] from the panel's own data scripts (blocks/panel.html): inert in the page,
     they run here, when the panel hydrates; once per URL, across instant navigations too. */
  function panelData(root, key) {
    if (data[key]) return Promise.resolve(data[key]);
    var tags = Array.prototype.slice.call(root.querySelectorAll("script[src]"));
    return Promise.all(tags.map(function (tag) { return loadScript(tag.src); })).then(function () {
      if (!data[key]) throw new Error("the page's data scripts did not provide " + key);
      return data[key];
    });
  }

  function options(root) {
    var text = root.getAttribute("data-scalecore-options");
    if (!text) return {};
    try {
      return JSON.parse(text) || {};
    } catch (error) {
      throw new Error("the panel's options are not valid JSON (" + error.message + ")");
    }
  }

  /* ---------------------------------------------------------------- shared panel parts */

  /* Say something to screen readers through the panel's live region (debounced: a reader
     flicking switches hears the state they stopped on, not every step). */
  function announcer(root) {
    var region = root.querySelector(".scalecore-live-region");
    if (!region) {
      region = el("div", { class: "scalecore-live-region", "aria-live": "polite" });
      root.appendChild(region);
    }
    var timer = 0;
    return function (text) {
      clearTimeout(timer);
      timer = setTimeout(function () {
        region.textContent = text;
      }, 200);
    };
  }

  /* The placeholder the block leaves for controls; shown once the panel is interactive. */
  function controls(root) {
    var box = root.querySelector(".scalecore-controls");
    if (!box) {
      box = el("div", { class: "scalecore-controls" });
      root.insertBefore(box, root.firstChild);
    }
    box.hidden = false;
    return box;
  }

  /* A labelled switch: <button role="switch" aria-checked>. */
  function toggle(label, checked, onChange, extra) {
    var id = nextId("scalecore-switch");
    var button = el("button", {
      type: "button", role: "switch", class: "scalecore-switch", id: id,
      "aria-checked": checked ? "true" : "false",
    }, [el("span", { class: "scalecore-switch__track", "aria-hidden": "true" }, el("span", { class: "scalecore-switch__thumb" })),
        el("span", { class: "scalecore-switch__label" }, label)]);
    if (extra && extra.describedBy) button.setAttribute("aria-describedby", extra.describedBy);
    if (extra && extra.state) button.setAttribute("data-scalecore-state", extra.state);
    button.addEventListener("click", function () {
      if (button.disabled) return;
      var next = button.getAttribute("aria-checked") !== "true";
      button.setAttribute("aria-checked", next ? "true" : "false");
      onChange(next);
    });
    return button;
  }

  /* A labelled <select>; `state` (optional) names it in the page's address (see "addresses"). */
  function labelledSelect(label, choices, value, onChange, state) {
    var id = nextId("scalecore-select");
    var select = el("select", { id: id, class: "scalecore-select", "data-scalecore-state": state }, choices.map(function (choice) {
      return el("option", { value: choice.value, selected: String(choice.value) === String(value) }, choice.label);
    }));
    select.addEventListener("change", function () { onChange(select.value); });
    return { field: el("div", { class: "scalecore-field" }, [el("label", { for: id }, label), select]), select: select };
  }

  /* Where this site lives on disk, from the page's own address and the panel's way back to the
     site's root (data-scalecore-root): an unzipped bundle's folder may have any name, so the
     command names the real one. {folder, parent, page}, or null if the address says nothing. */
  function siteOnDisk(root) {
    try {
      var top = new URL((root && root.getAttribute("data-scalecore-root")) || "./", location.href);
      var parts = top.pathname.split("/").filter(Boolean).map(decodeURIComponent);
      if (!parts.length) return null;
      var windows = /^[A-Za-z]:$/.test(parts[0]);
      var above = parts.slice(0, -1);
      return {
        folder: parts[parts.length - 1],
        parent: windows ? above.join("\\") + "\\" : "/" + above.join("/"),
        page: location.href.indexOf(top.href) === 0 ? location.href.slice(top.href.length).split("#")[0] : "",
      };
    } catch (error) {
      return null;
    }
  }

  function shellWord(text) {
    return /^[A-Za-z0-9._\/:-]+$/.test(text) ? text : '"' + text.replace(/(["\\$`])/g, "\\$1") + '"';
  }

  /* What the live parts show from file://: the plain reason, and the one command. */
  function needsHttp(what, root) {
    var disk = siteOnDisk(root);
    var command = disk ? "python3 -m http.server -d " + shellWord(disk.folder) + " 8000" : SERVE_COMMAND;
    var where = disk ? ["in the folder that contains this site's folder (", el("code", null, disk.parent), "), run"]
      : ["in the folder that contains the site folder, run"];
    return el("div", { class: "scalecore-note scalecore-note--http", role: "note" }, [
      el("p", null, [what + " runs Python in your browser, and browsers allow that only for pages served over " +
        "http, not for files opened from disk. To use it, serve the site: in a terminal, "].concat(where)),
      el("pre", null, el("code", null, command)),
      el("p", null, ["then open ", el("code", null, SERVE_URL + (disk ? disk.page : "")), " in your browser."]),
    ]);
  }

  /* What to say when a part the page fetches on first use (live mode, the console, their
     runtime) could not be had: over http that is the network, and offline it means the part was
     not kept on this device. Said as such, never as the browser's module or fetch error. Other
     errors are returned as they are. */
  var NETWORK_ERROR = /failed to fetch|networkerror|load failed|dynamically imported module|could not (download|load)|importing a module script failed/i;
  var WORKER_FAILED = /python worker failed|python could not start/i; // offline: its script was not kept
  function unreachable(what, error) {
    var message = error && error.message ? error.message : String(error);
    var offline = navigator.onLine === false;
    if ((error && error.unreachable) || !(NETWORK_ERROR.test(message) || (offline && WORKER_FAILED.test(message)))) {
      return error;
    }
    var said = new Error(offline
      ? what + " is not saved on this device, and there is no network. It is kept once it has started on a " +
        "page while online; to keep it for every page, choose \u201cMake this site available offline\u201d in " +
        "the header, with the live runtime, the next time you are online."
      : what + " could not be downloaded: the site's server did not answer. Try again in a moment.");
    said.unreachable = true;
    return said;
  }

  /* Offline, live mode runs only from what this device kept: whether it ever started here (its
     worker's script is kept once it has), asked of the caches at once rather than learnt from a
     worker that fails to start. */
  function keptForOffline(what) {
    if (navigator.onLine !== false || !window.caches) return Promise.resolve();
    return caches.match(new URL("worker.js", S.base).href).then(function (found) {
      if (!found) throw unreachable(what, new Error("Failed to fetch"));
    }, function () { /* no answer from the caches: try, and say what fails */ });
  }

  /* The live client (live.js, a module, with the worker): imported on first use only. */
  var liveModule = null;
  var liveClient = null; // the one live client of this visit, once a form or an intent started it (live.js)
  function live(what) {
    if (!isHttp()) return Promise.reject(new Error("live mode needs the site served over http"));
    return keptForOffline(what || "Live mode").then(function () {
      if (!liveModule) {
        liveModule = import(new URL("live.js", S.base).href).catch(function (error) {
          liveModule = null;
          throw unreachable("Live mode", error);
        });
      }
      return liveModule;
    });
  }

  /* Intent to compute live (a pointer over or pressing a live control, or keyboard focus on
     it): the worker starts now (live.js, prefetch), with its downloads, so the wait after the
     click is shorter. One listener for the whole document, for the live controls of every kind
     (the shared classes scalecore-live__open and scalecore-live__form, whoever built them). */
  var LIVE_CONTROL = ".scalecore-live__open, .scalecore-live__form";
  var warmed = false;
  function warmOnIntent(event) {
    var target = event.target;
    if (warmed || !target || !target.closest || !isHttp()) return;
    var control = target.closest(LIVE_CONTROL);
    var root = control && control.closest("[data-scalecore-manifest]");
    if (!root) return;
    warmed = true;
    manifestOf(root).then(function (manifest) {
      return live().then(function (module) { liveClient = module.prefetch(manifest) || liveClient; });
    }).catch(function () { warmed = false; /* the click says what is wrong */ });
  }
  ["pointerover", "pointerdown", "focusin"].forEach(function (type) {
    document.addEventListener(type, warmOnIntent, { passive: true, capture: true });
  });

  /* A visible progress indicator for the worker's start (downloading runtime, starting Python,
     verifying core, ready), bound to the live client's progress events. */
  function progressView() {
    var bar = el("progress", { max: "4", value: "0", class: "scalecore-progress__bar" });
    var text = el("span", { class: "scalecore-progress__text" }, "");
    var box = el("div", { class: "scalecore-progress", hidden: true, role: "status" }, [bar, text]);
    function update(progress) {
      box.hidden = progress.stage === "ready";
      if (progress.step !== undefined) bar.value = progress.step;
      text.textContent = progress.text || "";
      box.classList.toggle("scalecore-progress--error", progress.stage === "error");
      box.setAttribute("data-stage", progress.stage);
    }
    update.node = box; // the live client forgets listeners whose node left the page
    return { node: box, update: update };
  }

  /* "Compute live": a disclosure button over a form of labelled fields, built when first opened
     (over http; from file:// it says how to serve the site instead), with the runtime's progress,
     a message line and, when spec.back is given, a "Show baked data" button. On submit,
     spec.points() gives the points to compute (it may throw an Error that says what is wrong with
     the input), the kind's compute function runs on them in Python (one request), and
     spec.done(results, started) shows them; the times are kept in scalecoreTimings
     (lastRecomputeMs, click to shown; lastRecomputePythonMs, the request alone).
     Optional: spec.open and spec.run (the two buttons' labels), spec.feature (what a page opened
     from disk says cannot run), spec.computeOnOpen (compute once when first opened),
     spec.busy() and spec.said(ms, allMs) (the messages while and after computing), spec.explain(error)
     (a kind's own words for an error, or null), spec.first(point) (true for the points the panel
     shows now: they are computed and passed to spec.done(results, started, true) first, then
     the request's others, and spec.done is called again with every result; lastRecomputeMs is
     then click to the first shown, lastRecomputeAllMs click to all). Returns the box, with
     .say(text, error) and .showBack(shown) for the panel's later changes (another corpus chosen: baked data again). */
  function liveForm(root, spec) {
    var message = el("p", { class: "scalecore-live__message", "aria-live": "polite" });
    var progress = progressView();
    // The form's own button: "Compute" where "Compute live" (the open button beside it) only
    // opened the form; two buttons of one name side by side left a reader guessing which computes.
    var run = el("button", { type: "submit", class: "scalecore-button scalecore-button--primary" },
      spec.run || (spec.computeOnOpen ? "Compute live" : "Compute"));
    var back = spec.back ? el("button", { type: "button", class: "scalecore-button", hidden: true }, "Show baked data") : null;
    var fields = spec.fields.map(function (field) {
      field.input.id = field.input.id || nextId("scalecore-input");
      return el("div", { class: "scalecore-field" }, [el("label", { for: field.input.id }, field.label), field.input]);
    });
    function say(text, error) {
      message.textContent = text;
      message.className = "scalecore-live__message" + (error ? " scalecore-live__message--error" : "");
    }
    var rows = fields.length > 1 ? [fields[0], el("div", { class: "scalecore-live__row" }, fields.slice(1).concat([run, back]))]
      : [el("div", { class: "scalecore-live__row" }, fields.concat([run, back]))];
    var form = el("form", { class: "scalecore-live__form", novalidate: true }, rows.concat([progress.node, message]));
    if (back) {
      back.addEventListener("click", function () {
        back.hidden = true;
        say("Showing the baked data again.");
        spec.back();
      });
    }
    var running = false;
    // While the reader edits the fields, the worker computes what a click would send (live.js,
    // prepare; a new seed's draws cost a recompute more than its JSON), and the form keeps the
    // answer: a click on the same fields shows it in the click's own frame, with no message to
    // the worker (its answer to a message waited for the next frame after a click: 12 ms).
    // Only while live mode runs already: typing starts nothing.
    var preparing = null;
    var prepared = null; // {key, results}: the answer to the fields as they were last prepared
    function firstPart(points) { // the points a click computes first (spec.first), or all of them
      var now = spec.first ? points.filter(spec.first) : [];
      return now.length && now.length < points.length ? now : points;
    }
    form.addEventListener("input", function () {
      clearTimeout(preparing);
      preparing = setTimeout(prepare, PREPARE_AFTER_MS);
    });
    function prepare() {
      var client = liveClient;
      if (running || !client) return;
      var points;
      try {
        points = firstPart(spec.points());
      } catch (error) {
        return; // not a request yet (a field half typed): the click will say why
      }
      var key = JSON.stringify(points);
      if (prepared && prepared.key === key) return;
      prepared = null;
      client.prepare(spec.kind, points).then(function (results) {
        if (results) prepared = { key: key, results: results };
      });
    }
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (running) return; // one request at a time
      running = true;
      var started = performance.now();
      // The busy state shows only once the answer takes longer than BUSY_AFTER_MS: a warm
      // recompute then costs the page one frame (the answer), not two, and nothing flickers.
      var busy = null;
      var python = 0;
      var shownMs = 0; // click to the first points shown, when spec.first splits the request
      Promise.resolve().then(function () {
        var points = spec.points();
        var now = firstPart(points);
        var ready = prepared && prepared.key === JSON.stringify(now) ? prepared.results : null;
        prepared = null; // used once: done() may keep and change what it is given
        timings.lastRecomputePrepared = Boolean(ready);
        python = performance.now();
        if (ready && now === points) return ready; // all of it computed while the reader typed
        if (ready) { // the part on screen is: shown now, the rest computed after
          spec.done(ready, started, true);
          shownMs = performance.now() - started;
        }
        busy = setTimeout(function () {
          run.disabled = true;
          say(spec.busy ? spec.busy() : "Computing " + spec.what + " in Python\u2026");
        }, BUSY_AFTER_MS);
        return manifestOf(root)
          .then(function (manifest) {
            return live(spec.feature).then(function (module) { return module.client(manifest, { onProgress: progress.update }); });
          })
          .then(function (client) {
            liveClient = client;
            if (now === points) return client.compute(spec.kind, points);
            // The points on screen first, the others once those are shown: the reader waits for
            // what they look at (an encoder's one placement of three), not for the whole request.
            var first = ready ? Promise.resolve(ready) : client.compute(spec.kind, now).then(function (shown) {
              timings.lastRecomputePythonMs = performance.now() - python;
              spec.done(shown, started, true);
              shownMs = performance.now() - started;
              return shown;
            });
            return first.then(function (shown) {
              return client.compute(spec.kind, points.filter(function (point) { return now.indexOf(point) < 0; }))
                .then(function (others) {
                  return points.map(function (point) {
                    var at = now.indexOf(point);
                    return at >= 0 ? shown[at] : others.shift();
                  });
                });
            });
          });
      }).then(function (results) {
        if (!shownMs) timings.lastRecomputePythonMs = performance.now() - python;
        spec.done(results, started);
        if (back) back.hidden = false;
        timings.lastRecomputeMs = shownMs || performance.now() - started;
        timings.lastRecomputeAllMs = performance.now() - started;
        var ms = Math.round(timings.lastRecomputeMs);
        var all = Math.round(timings.lastRecomputeAllMs);
        say(spec.said ? spec.said(ms, all) : "Live: " + spec.what + " computed in your browser" +
          (shownMs ? ", what is shown in " + ms + " ms and the rest by " + all + " ms" : " in " + ms + " ms") +
          ". The panel now shows these results.");
      }).catch(function (error) {
        var own = spec.explain ? spec.explain(error) : null;
        error = unreachable(spec.feature || "Live mode", error);
        say(own || (error && error.message ? error.message : String(error)), true);
      }).then(function () {
        clearTimeout(busy);
        run.disabled = false;
        running = false;
      });
    });
    var box = el("div", { class: "scalecore-live__panel", id: nextId("scalecore-live"), hidden: true });
    var open = el("button", { type: "button", class: "scalecore-button scalecore-live__open", "aria-expanded": "false",
      "aria-controls": box.id }, spec.open || "Compute live");
    open.addEventListener("click", function () {
      var opening = open.getAttribute("aria-expanded") !== "true";
      open.setAttribute("aria-expanded", String(opening));
      box.hidden = !opening;
      if (!opening || box.firstChild) return;
      if (!isHttp()) {
        box.appendChild(needsHttp(spec.feature || "Live mode", root));
        return;
      }
      box.appendChild(form);
      if (spec.computeOnOpen) form.requestSubmit();
    });
    var whole = el("div", { class: "scalecore-live" }, [open, box]);
    whole.say = say;
    whole.showBack = function (shown) { if (back) back.hidden = !shown; };
    return whole;
  }

  /* A corpus's title from the manifest (its name when the manifest is missing or lacks it). */
  function corpusTitle(manifest, name) {
    var corpora = (manifest && manifest.data.corpora) || [];
    for (var i = 0; i < corpora.length; i++) if (corpora[i].name === name) return corpora[i].title;
    return name;
  }

  /* The values a kind baked on one of its axes (the manifest's kinds[kind].axes[axis]): a kind
     may bake fewer seeds or corpora than the site has, and a picker offers only what is baked.
     Without a manifest, `fallback`. */
  function bakedAxis(manifest, kind, axis, fallback) {
    var own = manifest && manifest.data.kinds && manifest.data.kinds[kind];
    var values = own && own.axes && own.axes[axis];
    return Array.isArray(values) && values.length ? values.slice() : (fallback || []).slice();
  }

  /* The corpus and seed pickers of a panel whose points have those axes: spec.kind, spec.corpora
     (the panel's), spec.corpus and spec.seed (the current), spec.manifest, spec.showCorpus,
     spec.showSeed and spec.corpusLabel(name) (optional); spec.choose(corpus, seed) is called on
     a change, with both pickers' values (so two changes at once make one request). The seeds
     offered are the kind's own baked ones. Returns {fields, corpus, seed} (the selects, or null). */
  function corpusSeedPickers(spec) {
    var fields = [];
    var corpusSelect = null;
    var seedSelect = null;
    var baked = bakedAxis(spec.manifest, spec.kind, "corpus", spec.corpora);
    var corpora = spec.corpora.filter(function (name) { return baked.indexOf(name) >= 0; });
    function chosen() {
      spec.choose(corpusSelect ? corpusSelect.value : spec.current().corpus,
        seedSelect ? Number(seedSelect.value) : spec.current().seed);
    }
    if (spec.showCorpus && corpora.length > 1) {
      var corpusField = labelledSelect("Corpus", corpora.map(function (name) {
        return { value: name, label: spec.corpusLabel ? spec.corpusLabel(name) : corpusTitle(spec.manifest, name) + " (" + name + ")" };
      }), spec.corpus, chosen, "corpus");
      corpusSelect = corpusField.select;
      fields.push(corpusField.field);
    }
    var seeds = bakedAxis(spec.manifest, spec.kind, "seed", []);
    if (spec.showSeed && seeds.length > 1) {
      var seedField = labelledSelect("Seed", seeds.map(function (s) { return { value: s, label: String(s) }; }),
        spec.seed, chosen, "seed");
      seedSelect = seedField.select;
      fields.push(seedField.field);
    }
    return { fields: fields, corpus: corpusSelect, seed: seedSelect };
  }

  /* A guard set's name from switches' states: "norm+init", "none". */
  function guardSetName(flags) {
    var on = GUARD_NAMES.filter(function (name) { return flags[name]; });
    return on.length ? on.join("+") : "none";
  }

  /* {norm, init, scale} from a guard set's name (unknown names are ignored). */
  function parseGuards(text) {
    var flags = { norm: false, init: false, scale: false };
    String(text || "none").split("+").forEach(function (name) {
      name = name.trim();
      if (name in flags) flags[name] = true;
    });
    return flags;
  }

  /* The three guard switches as one labelled group (its state, in the address: "guards").
     spec: flags, hints {name: what it does}, locked [names], hidden, onChange(name, on).
     Returns {node, switches: {name: button}}. */
  function guardSwitches(spec) {
    var label = nextId("scalecore-guards");
    var group = el("div", { class: "scalecore-switches", role: "group", "aria-labelledby": label, hidden: !!spec.hidden,
      "data-scalecore-state": "guards" }, [el("span", { id: label, class: "scalecore-group-label" }, "Guards")]);
    var switches = {};
    GUARD_NAMES.forEach(function (name) {
      var locked = (spec.locked || []).indexOf(name) >= 0;
      var hint = nextId("scalecore-hint");
      var button = toggle(name, spec.flags[name], function (on) { spec.onChange(name, on); }, { describedBy: hint });
      button.setAttribute("data-guard", name);
      button.setAttribute("data-scalecore-state-item", name);
      if (locked) {
        button.disabled = true;
        button.setAttribute("title", "Fixed on this page");
      }
      switches[name] = button;
      group.appendChild(el("div", { class: "scalecore-switch-field" }, [button,
        el("span", { id: hint, class: "scalecore-switch__hint" }, spec.hints[name] + (locked ? " (fixed here)" : ""))]));
    });
    return { node: group, switches: switches };
  }

  /* The data of one group of a kind's points (kind/group in scalecoreData), its data.js located
     through the manifest and loaded once. */
  function loadGroup(manifest, kind, group) {
    var own = manifest && manifest.data.kinds[kind];
    var entry = own && own.scripts[group];
    return ensureData(kind + "/" + group, entry ? resolveUrl(manifest, entry.url) : null);
  }

  /* Another group of a panel's baked points (a corpus and seed, and whatever else its data.js is
     cut by): loaded once, the panel saying "Loading" meanwhile; a newer choice wins over one still
     loading. choice: {kind, group, key (the group's key in scalecoreData), what (named in a failure),
     apply() (the panel's new state)}; the panel then leaves live results and repaints, timed from the click. */
  function chooseGroup(panel, choice) {
    var clicked = performance.now();
    if (!globalThis.scalecoreData[choice.key]) {
      panel.status.textContent = "Loading\u2026";
      panel.view.setAttribute("aria-busy", "true");
    }
    panel.request = choice.key;
    return loadGroup(panel.manifest, choice.kind, choice.group).then(function () {
      if (panel.request !== choice.key) return;
      choice.apply();
      panel.live = null;
      panel.status.textContent = "";
      panel.view.removeAttribute("aria-busy");
      panel.render(clicked);
    }, function (error) {
      panel.view.removeAttribute("aria-busy");
      panel.status.textContent = notLoaded(choice.what, error);
    });
  }

  /* What a panel says when the data of ``what`` ("kjv, seed 3") did not load: offline, a choice
     never viewed online was never saved, said as the pages say it (it showed the data script's
     URL: a fresh reader); online, the loader's own error. */
  function notLoaded(what, error) {
    if (navigator.onLine === false) {
      return what.charAt(0).toUpperCase() + what.slice(1) + " is not saved on this device, and there is no network: " +
        "it loads once you are online.";
    }
    return "Could not load " + what + ": " + error.message;
  }

  /* One choice among a few, every option visible: a fieldset of radio buttons drawn as a segmented
     control. spec: {legend, className, state (its data-scalecore-state, for addresses), choices:
     [{value, label, aria (optional), checked}], pick(value)}. Returns the fieldset. */
  function segmented(spec) {
    var name = nextId(spec.className);
    var group = el("div", { class: "scalecore-segmented" });
    spec.choices.forEach(function (choice) {
      var attributes = { type: "radio", name: name, value: String(choice.value), checked: !!choice.checked };
      if (choice.aria) attributes["aria-label"] = choice.aria;
      var input = el("input", attributes);
      input.addEventListener("change", function () { if (input.checked) spec.pick(choice.value); });
      group.appendChild(el("label", null, [input, el("span", null, choice.label)]));
    });
    return el("fieldset", { class: spec.className, "data-scalecore-state": spec.state }, [el("legend", null, spec.legend), group]);
  }

  /* The fields most live forms ask for: a sentence (the site's, to start with) and a seed. Its
     values() are {sentence, seed}, or an Error that says what is wrong with the seed. "Any seed":
     the panel's own "Seed" picker, beside it, offers the baked seeds only. */
  function sentenceSeedFields(manifest, seed) {
    var sentence = el("input", { type: "text", class: "scalecore-input scalecore-input--wide", spellcheck: "false",
      autocomplete: "off", value: (manifest && manifest.data.sentence) || "" });
    var seedInput = el("input", { type: "number", class: "scalecore-input", min: 0, max: MAX_SEED, step: 1,
      value: seed, inputmode: "numeric" });
    var edited = false; // the reader's own seed: kept whatever the panel shows
    seedInput.addEventListener("input", function () { edited = true; });
    return {
      // The panel's seed as it changes (its picker, an address that names one), until the reader
      // types a seed of their own: live mode computed seed 0 while the panel showed seed 4.
      follow: function (now) { if (!edited) seedInput.value = String(now); },
      fields: [{ label: "Sentence", input: sentence }, { label: "Any seed", input: seedInput }],
      values: function () {
        if (!manifest) throw new Error("Live mode needs the site's manifest (api/index.json), which did not load.");
        return { sentence: words(sentence), seed: wholeNumber(seedInput, 0, MAX_SEED, "The seed") };
      },
    };
  }

  /* Results of one live request keyed by one of their fields ({guards: result, ...}). */
  function byKey(results, key) {
    var found = {};
    results.forEach(function (result) { found[result[key]] = result; });
    return found;
  }

  /* The sentence typed in an input, or an Error that says what to write: an empty one reached
     Python and came back as its raw "ValueError: no words in the sentence ''" (a fresh reader). */
  function words(input) {
    if (!input.value.trim()) throw new Error("Write a sentence first: live mode computes attention over its words.");
    return input.value;
  }

  /* A whole number from low to high typed in an input, or an Error that says so. */
  function wholeNumber(input, low, high, name) {
    var text = input.value.trim();
    var value = Number(text);
    if (!/^\d+$/.test(text) || value < low || value > high) {
      throw new Error(name + " must be a whole number from " + low + " to " + high + "; got \u201c" + text + "\u201d.");
    }
    return value;
  }

  function showError(root, message) {
    var note = root.querySelector(".scalecore-error");
    if (!note) {
      note = el("p", { class: "scalecore-note scalecore-error", role: "alert" });
      var box = root.querySelector(".scalecore-controls");
      root.insertBefore(note, box ? box.nextSibling : root.firstChild);
    }
    note.textContent = "This panel could not start: " + message + ". The figure shown is the baked one.";
  }

  function clearError(root) {
    var note = root.querySelector(".scalecore-error");
    if (note) note.remove();
  }

  S.util = {
    keptForOffline: keptForOffline,
    el: el, svg: svg, append: append, nextId: nextId, fmt: fmt,
    loadScript: loadScript, ensureData: ensureData, panelData: panelData, isHttp: isHttp, manifestOf: manifestOf,
    resolveUrl: resolveUrl, announcer: announcer, controls: controls, toggle: toggle,
    labelledSelect: labelledSelect, needsHttp: needsHttp, unreachable: unreachable, live: live, progressView: progressView,
    showError: showError, clearError: clearError, liveForm: liveForm, wholeNumber: wholeNumber,
    corpusTitle: corpusTitle, corpusSeedPickers: corpusSeedPickers, loadGroup: loadGroup, chooseGroup: chooseGroup,
    notLoaded: notLoaded,
    segmented: segmented,
    sentenceSeedFields: sentenceSeedFields, words: words, byKey: byKey, bakedAxis: bakedAxis,
    guardSetName: guardSetName, parseGuards: parseGuards, guardSwitches: guardSwitches,
    options: options,
  };
  S.timings = timings;
})();
