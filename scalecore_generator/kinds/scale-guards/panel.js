/* The scale-guards panel: one sentence through one attention head, with the three guards
 * (norm, init, scale) as switches, a heatmap of the weights and the measures beside it.
 *
 * A classic script (loaded by panels.js): it works from file://. Every switch repaints from data
 * already in the page (scalecoreData["scale-guards/<corpus>/<seed>"] holds all 8 guard sets);
 * another corpus or seed loads that unit's data.js once, through the manifest. "Compute live"
 * recomputes all 8 guard sets in Python (Pyodide, in a worker) for any sentence, seed and d_k.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  var u = S.util;
  var el = u.el;
  var svg = u.svg;
  var fmt = u.fmt;
  var timings = S.timings;

  // What each guard does here (the names, their order and the guard sets' names are the panel
  // base's: u.guardSwitches, u.guardSetName).
  var HINTS = { norm: "LayerNorm the input", init: "projections at 1/\u221ad_model", scale: "scores \u00f7 \u221ad_k" };
  var GUARD_NAMES = S.constants.GUARD_NAMES;
  var SHOWABLE = ["heatmap", "measures", "switches", "corpus", "seed", "table", "live"];
  var MAX_SEED = S.constants.MAX_SEED;
  var guardSetName = u.guardSetName;
  var parseGuards = u.parseGuards;

  function listOption(value, all) {
    if (value === true) return all.slice();
    if (!value) return [];
    if (typeof value === "string") return value.split(/[\s,+]+/).filter(Boolean);
    return Array.isArray(value) ? value.map(String) : [];
  }

  function text(node, value) {
    if (node.textContent !== value) node.textContent = value;
  }

  function attribute(node, name, value) {
    if (node.getAttribute(name) !== value) node.setAttribute(name, value);
  }

  /* ------------------------------------------------------------------ the heatmap */

  /* The heatmap is the shared view (views.js): the same function drew the baked figure. */
  var V = globalThis.scalecoreViews;

  function Heatmap() {
    this.node = el("div", { class: "scalecore-heatmap" });
  }

  Heatmap.prototype.paint = function (tokens, weights, description) {
    // On a phone the figure is drawn at ~0.8 scale: larger labels keep the words readable.
    var font = window.matchMedia && window.matchMedia("(max-width: 30em)").matches ? 16 : 12;
    var spec = { tokens: tokens, weights: weights, title: description, font: font };
    var key = font + "\u0000" + tokens.join("\u0000");
    if (this.svg && this.key === key) {
      V.repaintHeatmap(this.svg, spec); // the same tokens: only the cells change
      return;
    }
    this.node.innerHTML = '<div class="scalecore-scroll-x">' + V.heatmap(spec) + "</div>" +
      '<div class="scalecore-legend__box"><span class="scalecore-legend__label">weight</span>' + V.legend() + "</div>";
    this.svg = this.node.firstChild.firstChild;
    this.key = key;
  };

  /* ------------------------------------------------------------------ the panel */

  function GuardsPanel(root, options) {
    this.root = root;
    this.options = options || {};
    this.announce = u.announcer(root);
    this.manifest = null;
    this.live = null; // {corpus, seed, d_k, sentence, tokens, results}
    this.source = "baked";
    root.scalecorePanel = this; // for tests and curious readers: document.querySelector(...).scalecorePanel
  }

  GuardsPanel.prototype.start = function () {
    var self = this;
    var o = this.options;
    this.flags = parseGuards(o.guards);
    this.locked = listOption(o.locked, GUARD_NAMES).filter(function (n) { return GUARD_NAMES.indexOf(n) >= 0; });
    var show = o.show === undefined || o.show === null ? SHOWABLE : listOption(o.show, SHOWABLE);
    this.show = {};
    SHOWABLE.forEach(function (name) { self.show[name] = show.indexOf(name) >= 0; });
    return u.manifestOf(this.root)
      .catch(function (error) {
        console.warn("scalecore: no manifest, this panel shows its own data only:", error.message);
        return null;
      })
      .then(function (manifest) {
        self.manifest = manifest;
        var m = manifest && manifest.data;
        var all = m ? m.corpora.map(function (c) { return c.name; }) : [];
        self.corpora = listOption(o.corpus, all);
        if (!self.corpora.length) self.corpora = all;
        self.corpus = self.corpora[0];
        self.seed = o.seed !== undefined && o.seed !== null ? Number(o.seed) : m && u.bakedAxis(manifest, "scale-guards", "seed", m.seeds)[0];
        return u.panelData(self.root, self.key());
      })
      .then(function () {
        self.build();
        self.render(null);
      });
  };

  GuardsPanel.prototype.key = function (corpus, seed) {
    return "scale-guards/" + (corpus || this.corpus) + "/" + (seed === undefined ? this.seed : seed);
  };

  GuardsPanel.prototype.corpusInfo = function (name) {
    var m = this.manifest && this.manifest.data;
    if (!m) return null;
    for (var i = 0; i < m.corpora.length; i++) if (m.corpora[i].name === name) return m.corpora[i];
    return null;
  };

  GuardsPanel.prototype.build = function () {
    var self = this;
    var root = this.root;
    var box = u.controls(root);
    box.replaceChildren();

    // The guard switches.
    var guards = u.guardSwitches({ flags: this.flags, hints: HINTS, locked: this.locked, hidden: !this.show.switches,
      onChange: function (name, on) {
        self.flags[name] = on;
        self.render(performance.now());
      } });
    this.switches = guards.switches;
    box.appendChild(guards.node);

    // Corpus and seed: the seeds this kind baked (the manifest's axis), not the site's.
    var pickers = el("div", { class: "scalecore-pickers" });
    var chosen = u.corpusSeedPickers({ kind: "scale-guards", manifest: this.manifest, corpora: this.corpora,
      corpus: this.corpus, seed: this.seed, showCorpus: this.show.corpus, showSeed: this.show.seed,
      corpusLabel: function (name) {
        var c = self.corpusInfo(name);
        return c ? c.title + " (" + name + ", " + c.tokens.toLocaleString("en") + " words)" : name;
      },
      current: function () { return { corpus: self.corpus, seed: self.seed }; },
      choose: function (corpus, seed) { self.choose(corpus, seed); } });
    this.corpusSelect = chosen.corpus;
    this.seedSelect = chosen.seed;
    chosen.fields.forEach(function (field) { pickers.appendChild(field); });
    this.status = el("span", { class: "scalecore-status", role: "status" });
    pickers.appendChild(this.status);
    box.appendChild(pickers);

    if (this.show.live) box.appendChild(this.buildLive());

    // The view: figure, read-outs, table.
    var view = el("div", { class: "scalecore-view" });
    this.badge = el("span", { class: "scalecore-badge" });
    this.caption = el("span", { class: "scalecore-caption__text" });
    this.heatmap = new Heatmap();
    if (this.show.heatmap) {
      view.appendChild(el("figure", { class: "scalecore-figure" }, [
        this.heatmap.node,
        el("figcaption", { class: "scalecore-caption" }, [this.badge, " ", this.caption]),
      ]));
    }
    // The read-outs and the table are the shared views (views.js), the very ones of the fallback;
    // the measures' definitions come with the panel (data-scalecore-measures, from kind.py).
    this.measures = JSON.parse(root.getAttribute("data-scalecore-measures") || "[]");
    this.texts = {};
    this.readouts = null;
    if (this.show.measures) {
      this.readouts = el("div", { class: "scalecore-readouts__box" });
      view.appendChild(this.readouts);
    }
    if (this.show.table) {
      // Drawn only while open (a closed table would cost every switch a frame for nothing).
      this.table = el("div", { class: "scalecore-table__scroll" });
      this.tableBox = el("details", { class: "scalecore-table" }, [el("summary", null, "The weights as a table"), this.table]);
      this.tableBox.addEventListener("toggle", function () { self.drawTable(); });
      view.appendChild(this.tableBox);
    }
    this.view = view;
    var old = root.querySelector(":scope > .scalecore-view");
    if (old) old.remove();
    box.parentNode.insertBefore(view, box.nextSibling);
    hideFallback(root, [box, view]);
  };

  /* The block's no-JS view (baked figure, measures, table) gives way to the interactive one. */
  function hideFallback(root, keep) {
    Array.prototype.forEach.call(root.querySelectorAll(".scalecore-fallback, [data-scalecore-fallback]"), function (node) {
      if (keep.indexOf(node) >= 0) return;
      // The fallback's figure stays, hidden; its read-outs and table go: the live view draws the
      // same views, and one read-out per measure is what readers (and their tools) should find.
      node.hidden = true;
      Array.prototype.forEach.call(node.querySelectorAll(".scalecore-measures, .scalecore-table__scroll"), function (part) {
        part.remove();
      });
    });
  }

  /* Another corpus or seed: its unit's data.js, located through the manifest, loaded once. */
  GuardsPanel.prototype.choose = function (corpus, seed) {
    var self = this;
    var clicked = performance.now();
    var key = this.key(corpus, seed);
    var own = this.manifest && this.manifest.data.kinds && this.manifest.data.kinds["scale-guards"];
    var entry = own && own.scripts[corpus + "/" + seed];
    var url = entry ? u.resolveUrl(this.manifest, entry.url) : null;
    var pending = !globalThis.scalecoreData[key];
    if (pending) {
      this.status.textContent = "Loading " + corpus + ", seed " + seed + "\u2026";
      this.view.setAttribute("aria-busy", "true");
    }
    this.request = key;
    return u.ensureData(key, url).then(function () {
      if (self.request !== key) return; // the reader chose again meanwhile
      self.corpus = corpus;
      self.seed = seed;
      if (self.live) {
        self.live = null;
        self.liveBox.showBack(false);
        self.liveBox.say("Showing the baked data of " + corpus + ", seed " + seed + ". Recompute live to see this corpus live.");
      }
      self.source = "baked";
      self.status.textContent = "";
      self.view.removeAttribute("aria-busy");
      self.render(clicked);
      if (self.liveSeed && !self.live) self.liveSeed.value = String(seed);
    }, function (error) {
      self.view.removeAttribute("aria-busy");
      self.status.textContent = u.notLoaded(corpus + ", seed " + seed, error);
      if (self.corpusSelect) self.corpusSelect.value = self.corpus;
      if (self.seedSelect) self.seedSelect.value = String(self.seed);
    });
  };

  /* The combination on show: live results when computed, else the baked unit. */
  GuardsPanel.prototype.current = function () {
    var name = guardSetName(this.flags);
    if (this.source === "live" && this.live) return this.live.results[name];
    var unit = globalThis.scalecoreData[this.key()];
    return unit && unit[name];
  };

  GuardsPanel.prototype.describe = function (combination) {
    var settings = combination.settings || {};
    var info = this.corpusInfo(settings.corpus || this.corpus);
    return (info ? info.title : settings.corpus || this.corpus) + ", seed " + settings.seed + ", d_k " + settings.d_k +
      ", guards: " + guardSetName(this.flags);
  };

  /* Repaint everything from data in memory. `clicked` (performance.now() of the reader's
     action) times click-to-repaint; null for the first paint (nothing announced). */
  GuardsPanel.prototype.render = function (clicked) {
    var combination = this.current();
    if (!combination) return;
    var self = this;
    var tokens = combination.tokens;
    var T = tokens.length;
    var description = this.describe(combination);
    var isLive = this.source === "live";
    // Every write below is made only where the value differs: what did not change is not
    // restyled or repainted (a live recompute of the same settings changes nothing on screen).
    attribute(this.root, "data-scalecore-source", this.source);
    attribute(this.root, "data-scalecore-guards", guardSetName(this.flags));
    text(this.badge, isLive ? "live" : "baked");
    attribute(this.badge, "class", "scalecore-badge scalecore-badge--" + this.source);
    attribute(this.badge, "title", isLive ? "Computed in your browser, just now" : "Computed when the site was built");
    text(this.caption, "Attention weights: " + description + (isLive ? " (sentence: \u201c" + this.live.sentence + "\u201d)" : ""));
    this.heatmap.paint(tokens, combination.weights, "Heatmap of the attention weights, " + description +
      ". Each row is a query word, each column a key word; darker is more attention.");

    var changed = [];
    var shown = this.measures.map(function (measure) {
      var value = combination.measures[measure.key];
      var text = V.measure(value) + (measure.unit || ""); // as its read-out writes it
      if (self.texts[measure.key] !== text) changed.push(measure.name.toLowerCase() + " " + text);
      self.texts[measure.key] = text;
      return Object.assign({}, measure, { value: value });
    });
    if (this.readouts) {
      var list = this.readouts.firstElementChild;
      var spec = { tokens: T, measures: shown };
      if (!list || !V.repaintReadouts(list, spec)) this.readouts.innerHTML = V.readouts(spec);
    }
    this.tableSpec = { tokens: tokens, weights: combination.weights,
      caption: "Attention weights, " + description + ". Each row sums to 1." };
    this.drawTable();

    if (clicked !== null && clicked !== undefined) {
      timings.lastRepaintMs = performance.now() - clicked; // the DOM is updated
      requestAnimationFrame(function () {
        timings.lastRepaintFrameMs = performance.now() - clicked; // ...and the next frame is due
      });
      this.announce("Guards: " + guardSetName(this.flags) + (isLive ? " (live)" : "") + ". " +
        (changed.length ? changed.join(", ") + "." : "No change."));
    }
  };

  GuardsPanel.prototype.drawTable = function () {
    if (!this.table || !this.tableBox.open || this.tableDrawn === this.tableSpec) return;
    this.table.innerHTML = V.weights(this.tableSpec);
    this.tableDrawn = this.tableSpec;
  };

  /* ------------------------------------------------------------------ live mode */

  /* "Compute live" (the panel base's live form): the sentence, seed and d_k, all 8 guard sets
     computed in one request by the function that baked them, computed once when first opened. */
  GuardsPanel.prototype.buildLive = function () {
    var self = this;
    var m = this.manifest && this.manifest.data;
    this.liveSentence = el("input", { type: "text", class: "scalecore-input scalecore-input--wide", value: (m && m.sentence) || "",
      spellcheck: "false", autocomplete: "off" });
    this.liveSeed = el("input", { type: "number", class: "scalecore-input", min: 0, max: MAX_SEED, step: 1, value: this.seed, inputmode: "numeric" });
    this.liveDk = el("input", { type: "number", class: "scalecore-input", min: 1, max: 256, step: 1,
      value: (m && m.settings.d_k) || 16, inputmode: "numeric" });
    var request = null;
    this.liveBox = u.liveForm(this.root, {
      kind: "scale-guards",
      what: "all 8 guard sets",
      run: "Recompute live",
      computeOnOpen: true, // the first time: this corpus and seed, computed live
      fields: [{ label: "Sentence", input: this.liveSentence }, { label: "Any seed", input: this.liveSeed },
        { label: "d_k", input: this.liveDk }],
      points: function () {
        if (!self.manifest) throw new Error("Live mode needs the site's manifest (api/index.json), which did not load.");
        request = { corpus: self.corpus, sentence: u.words(self.liveSentence),
          seed: u.wholeNumber(self.liveSeed, 0, MAX_SEED, "The seed"), d_k: u.wholeNumber(self.liveDk, 1, 256, "d_k") };
        return u.bakedAxis(self.manifest, "scale-guards", "guards", []).map(function (guards) {
          return { corpus: request.corpus, seed: request.seed, guards: guards, sentence: request.sentence,
            d_k: request.d_k, vocabulary_size: self.manifest.data.settings.vocabulary_size };
        });
      },
      done: function (answers, started) {
        self.root.removeAttribute("data-scalecore-unknown");
        self.live = { corpus: request.corpus, seed: request.seed, d_k: request.d_k, sentence: request.sentence,
          tokens: answers[0].tokens, results: u.byKey(answers, "guards") };
        self.source = "live";
        self.render(started);
      },
      explain: function (error) {
        // The core's ValueError (scalecore.experiment.combination), as the worker passes it on.
        var unknown = /(?:^|: )not in the .*? vocabulary \(([\d,]+) words\): (.*)$/.exec(error && error.message || "");
        if (!unknown || !request) return null;
        var info = self.corpusInfo(request.corpus);
        self.root.setAttribute("data-scalecore-unknown", unknown[2].split(", ").join(" "));
        return "Not in the vocabulary of " + (info ? info.title : request.corpus) + " (" +
          Number(unknown[1].replace(/,/g, "")).toLocaleString("en") + " words): " + unknown[2] +
          ". Use other words, or choose another corpus.";
      },
      back: function () {
        self.live = null;
        self.source = "baked";
        self.render(performance.now());
      },
    });
    return this.liveBox;
  };

  S.kinds["scale-guards"] = {
    hydrate: function (root, context) {
      return new GuardsPanel(root, context.options).start();
    },
  };
  S.GuardsPanel = GuardsPanel;
})();
