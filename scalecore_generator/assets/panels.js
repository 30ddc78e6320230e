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
        "the header, with the live runtime, the next time you are online"
      : what + " could not be downloaded: the site's server did not answer. Try again in a moment");
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
      return live().then(function (module) { module.prefetch(manifest); });
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
     spec.busy() and spec.said(ms) (the messages while and after computing), spec.explain(error)
     (a kind's own words for an error, or null). Returns the box, with .say(text, error) and
     .showBack(shown) for the panel's later changes (another corpus chosen: baked data again). */
  function liveForm(root, spec) {
    var message = el("p", { class: "scalecore-live__message", "aria-live": "polite" });
    var progress = progressView();
    var run = el("button", { type: "submit", class: "scalecore-button scalecore-button--primary" }, spec.run || "Compute live");
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
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (running) return; // one request at a time
      running = true;
      var started = performance.now();
      // The busy state shows only once the answer takes longer than BUSY_AFTER_MS: a warm
      // recompute then costs the page one frame (the answer), not two, and nothing flickers.
      var busy = null;
      var python = 0;
      Promise.resolve().then(function () {
        var points = spec.points();
        busy = setTimeout(function () {
          run.disabled = true;
          say(spec.busy ? spec.busy() : "Computing " + spec.what + " in Python\u2026");
        }, BUSY_AFTER_MS);
        return manifestOf(root)
          .then(function (manifest) {
            return live(spec.feature).then(function (module) { return module.client(manifest, { onProgress: progress.update }); });
          })
          .then(function (client) {
            python = performance.now();
            return client.compute(spec.kind, points);
          });
      }).then(function (results) {
        timings.lastRecomputePythonMs = performance.now() - python;
        spec.done(results, started);
        if (back) back.hidden = false;
        timings.lastRecomputeMs = performance.now() - started;
        var ms = Math.round(timings.lastRecomputeMs);
        say(spec.said ? spec.said(ms) : "Live: " + spec.what + " computed in your browser in " + ms +
          " ms. The switches now show these results.");
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

  /* The fields most live forms ask for: a sentence (the site's, to start with) and a seed. Its
     values() are {sentence, seed}, or an Error that says what is wrong with the seed. */
  function sentenceSeedFields(manifest, seed) {
    var sentence = el("input", { type: "text", class: "scalecore-input scalecore-input--wide", spellcheck: "false",
      autocomplete: "off", value: (manifest && manifest.data.sentence) || "" });
    var seedInput = el("input", { type: "number", class: "scalecore-input", min: 0, max: MAX_SEED, step: 1,
      value: seed, inputmode: "numeric" });
    return {
      fields: [{ label: "Sentence", input: sentence }, { label: "Seed", input: seedInput }],
      values: function () {
        if (!manifest) throw new Error("Live mode needs the site's manifest (api/index.json), which did not load.");
        return { sentence: sentence.value, seed: wholeNumber(seedInput, 0, MAX_SEED, "The seed") };
      },
    };
  }

  /* Results of one live request keyed by one of their fields ({guards: result, ...}). */
  function byKey(results, key) {
    var found = {};
    results.forEach(function (result) { found[result[key]] = result; });
    return found;
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

  /* ---------------------------------------------------------------- addresses */

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
     exists once 8 heads are shown). */
  function restoreState(root) {
    var wanted = Object.assign({}, root.scalecoreDefaults || {}, stateInQuery(location.search, stateKey(root)));
    root.scalecoreRestoring = (root.scalecoreRestoring || 0) + 1;
    function pass(left) {
      var pending = controlsOf(root).filter(function (node) {
        var name = node.getAttribute("data-scalecore-state");
        return name in wanted && setControl(node, wanted[name]) === "no";
      });
      return settled(root, 300).then(function () {
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
        status.textContent = "Link copied.";
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
     navigation would otherwise fetch and swap this very page again on the first Back. Listened
     to in the capture phase, which runs before the page's other listeners on window. */
  window.addEventListener("popstate", function (event) {
    var before = new URL(lastHref);
    var ours = before.pathname === location.pathname && before.hash === location.hash && before.search !== location.search;
    rememberAddress();
    if (ours) event.stopImmediatePropagation();
    Array.prototype.forEach.call(document.querySelectorAll(".scalecore-panel[data-scalecore-hydrated=true]"), function (root) {
      if (root.scalecoreAddressed && document.contains(root)) restoreState(root);
    });
  }, true);
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

  /* ---------------------------------------------------------------- hydration */

  function hydratePanel(root) {
    var kind = root.getAttribute("data-scalecore-kind");
    root.setAttribute("data-scalecore-hydrated", "pending");
    var script = root.getAttribute("data-scalecore-script"); // the kind's panel.js, named by the block
    var ready = script && !S.kinds[kind] ? loadScript(new URL(script, document.baseURI).href) : Promise.resolve();
    return ready
      .then(function () {
        var handler = S.kinds[kind];
        if (!handler) throw new Error("unknown panel kind " + JSON.stringify(kind));
        var context = { options: options(root) };
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
        root.setAttribute("data-scalecore-hydrated", "error");
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

  S.util = {
    keptForOffline: keptForOffline,
    el: el, svg: svg, append: append, nextId: nextId, fmt: fmt,
    loadScript: loadScript, ensureData: ensureData, panelData: panelData, isHttp: isHttp, manifestOf: manifestOf,
    resolveUrl: resolveUrl, announcer: announcer, controls: controls, toggle: toggle,
    labelledSelect: labelledSelect, needsHttp: needsHttp, unreachable: unreachable, live: live, progressView: progressView,
    showError: showError, clearError: clearError, liveForm: liveForm, wholeNumber: wholeNumber,
    corpusTitle: corpusTitle, corpusSeedPickers: corpusSeedPickers, loadGroup: loadGroup,
    sentenceSeedFields: sentenceSeedFields, byKey: byKey, bakedAxis: bakedAxis,
    guardSetName: guardSetName, parseGuards: parseGuards, guardSwitches: guardSwitches,
    stateKey: stateKey, linkToView: linkToView,
  };
  S.hydrate = hydrateAll; // now, every panel (tests, printing)
  S.hydrateNear = hydrateNear;
  S.timings = timings;

  /* Material's document$ emits on every page, including instant swaps. From file:// it may
     complete without emitting (instant navigation is off there), so the plain DOM events run
     too: hydration is idempotent. The panels near the screen hydrate in a task of their own:
     document$ first emits inside Material's DOMContentLoaded handler, which mounts Material's own
     components in that same task; the panels' set-up (and the module header's, module.js) in that
     task too made it one long task, and a reader's tap waits for a whole task. */
  function hydrateSoon() {
    rememberAddress(); // a page swapped in by instant navigation has its own address
    loadedSearch = location.search;
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

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe({ next: hydrateSoon, error: hydrateSoon, complete: hydrateSoon });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", hydrateSoon);
  else hydrateSoon();
})();
