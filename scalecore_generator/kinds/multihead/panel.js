/* The multihead panel: the shared sentence through h heads side by side.
 *
 * A classic script on the shared panel base (globalThis.scalecore.util) and the shared views
 * (globalThis.scalecoreViews): it works from file://. One data.js holds the 8 guard sets of one
 * corpus, seed and number of heads, so a guard switch or a head pick repaints from memory; another
 * corpus, seed or number of heads loads its data.js once, located through the manifest.
 * "Compute live" recomputes the 8 guard sets in Python (Pyodide, in a worker) with
 * scalecore.multihead.combination, the function that baked them, for any sentence and seed.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  var u = S.util;
  var el = u.el;
  var V = globalThis.scalecoreViews;
  var KIND = "multihead";
  // What each guard does here (names, order and guard-set names: the panel base's).
  var HINTS = { norm: "LayerNorm the input", init: "weights at 1/\u221ad_model", scale: "each head's scores \u00f7 \u221ad_k" };
  var guardSetName = u.guardSetName;

  function Panel(root, options) {
    this.root = root;
    this.o = options;
    this.show = {};
    var self = this;
    (options.show || []).forEach(function (name) { self.show[name] = true; });
    this.flags = u.parseGuards(options.guards);
    this.corpus = options.corpus[0];
    this.seed = options.seed;
    this.heads = options.heads;
    this.head = options.head;
    this.live = null; // {sentence, seed, results: {guards: point}} once computed live
    this.say = u.announcer(root);
    root.scalecorePanel = this;
  }

  Panel.prototype.key = function (corpus, seed, heads) {
    return KIND + "/" + corpus + "/" + seed + "/" + heads;
  };

  Panel.prototype.start = function () {
    var self = this;
    return u.manifestOf(this.root).catch(function () { return null; }).then(function (manifest) {
      self.manifest = manifest;
      var own = manifest && manifest.data.kinds[KIND];
      self.bakedHeads = own ? own.axes.heads : [self.heads];
      return u.panelData(self.root, self.key(self.corpus, self.seed, self.heads));
    }).then(function () {
      self.build();
      self.render(null);
    });
  };

  /* ------------------------------------------------------------------ the controls */

  Panel.prototype.build = function () {
    var self = this;
    var box = u.controls(this.root);
    box.replaceChildren();
    var locked = this.o.locked || [];
    if (this.show.switches) {
      box.appendChild(u.guardSwitches({ flags: this.flags, hints: HINTS, locked: locked, onChange: function (name, on) {
        self.flags[name] = on;
        self.render(performance.now());
      } }).node);
    }
    var pickers = el("div", { class: "scalecore-pickers" });
    if (this.show.heads && this.bakedHeads.length > 1) pickers.appendChild(this.headsSwitch());
    if (this.show.maps || this.show.measures) {
      this.headSelect = u.labelledSelect("Read head", [], this.head, function (value) {
        self.pick(Number(value));
      }, "head").select;
      pickers.appendChild(this.headSelect.parentNode);
    }
    u.corpusSeedPickers({ kind: KIND, manifest: this.manifest, corpora: this.o.corpus, corpus: this.corpus, seed: this.seed,
      showCorpus: this.show.corpus, showSeed: this.show.seed,
      current: function () { return { corpus: self.corpus, seed: self.seed }; },
      choose: function (corpus, seed) { self.choose(corpus, seed, self.heads); },
    }).fields.forEach(function (field) { pickers.appendChild(field); });
    this.status = el("span", { class: "scalecore-status", role: "status" });
    pickers.appendChild(this.status);
    box.appendChild(pickers);
    if (this.show.live) box.appendChild(this.buildLive());

    this.view = el("div", { class: "scalecore-view multihead-view" });
    this.caption = el("p", { class: "multihead-summary" });
    this.view.appendChild(this.caption);
    if (this.show.maps) {
      this.maps = el("div", { class: "multihead-maps scalecore-scroll-x" });
      this.view.appendChild(this.maps);
      this.view.appendChild(el("div", { class: "scalecore-legend__box" }, [
        el("span", { class: "scalecore-legend__label" }, "weight")]));
      this.view.lastChild.insertAdjacentHTML("beforeend", V.legend());
    }
    this.parts = {};
    ["rowmax", "measures", "spread", "cost"].forEach(function (name) {
      if (!self.show[name]) return;
      self.parts[name] = el("div", { class: "multihead-" + name + (name === "spread" || name === "cost" ? " scalecore-table__scroll" : "") });
      self.view.appendChild(self.parts[name]);
    });
    this.definitions = JSON.parse(this.root.getAttribute("data-scalecore-measures") || "[]");
    box.parentNode.insertBefore(this.view, box.nextSibling);
    Array.prototype.forEach.call(this.root.querySelectorAll(".scalecore-fallback"), function (node) { node.remove(); });
  };

  /* The number of heads as a segmented radio group: one choice, every option visible. */
  Panel.prototype.headsSwitch = function () {
    var self = this;
    return u.segmented({ legend: "Heads", className: "multihead-heads", state: "heads",
      choices: this.bakedHeads.map(function (heads) {
        return { value: heads, label: heads + " \u00d7 d_k " + (self.dModel() / heads), checked: heads === self.heads };
      }),
      pick: function (heads) { self.choose(self.corpus, self.seed, heads); } });
  };

  Panel.prototype.dModel = function () {
    var m = this.manifest && this.manifest.data;
    return m ? m.settings.d_model : 32;
  };

  /* Another corpus, seed or number of heads: its data.js, through the manifest, loaded once. */
  Panel.prototype.choose = function (corpus, seed, heads) {
    var self = this;
    return u.chooseGroup(this, { kind: KIND, group: corpus + "/" + seed + "/" + heads, key: this.key(corpus, seed, heads),
      what: corpus + ", seed " + seed + ", " + heads + " heads",
      apply: function () {
        self.corpus = corpus;
        self.seed = seed;
        self.heads = heads;
        self.head = Math.min(self.head, heads);
        if (self.liveInputs) self.liveInputs.follow(seed);
      } });
  };

  Panel.prototype.pick = function (head) {
    this.head = head;
    this.render(performance.now());
  };

  /* ------------------------------------------------------------------ the view */

  Panel.prototype.current = function () {
    var name = guardSetName(this.flags);
    if (this.live) return this.live.results[name];
    var unit = globalThis.scalecoreData[this.key(this.corpus, this.seed, this.heads)];
    return unit && unit[name];
  };

  Panel.prototype.render = function (clicked) {
    var point = this.current();
    if (!point) return;
    var self = this;
    var where = u.corpusTitle(this.manifest, point.corpus) + " (" + point.corpus + "), seed " + point.seed + ", guards " + point.guards +
      (this.live ? ", computed live" : "");
    this.root.setAttribute("data-scalecore-source", this.live ? "live" : "baked");
    this.root.setAttribute("data-scalecore-guards", point.guards);
    this.root.setAttribute("data-multihead-heads", String(point.heads));
    var s = point.summary;
    this.caption.textContent = point.heads + (point.heads === 1 ? " head" : " heads") + " of d_k = " + point.d_k +
      " on d_model = " + point.d_model + ", " + where + ". Mean row-max over the heads: " + s.mean_row_max.toFixed(2) +
      " (lowest " + s.lowest_row_max.toFixed(2) + ", highest " + s.highest_row_max.toFixed(2) + ").";
    if (this.headSelect) {
      var choices = point.per_head.map(function (_, i) { return String(i + 1); });
      if (this.headSelect.options.length !== choices.length) {
        this.headSelect.replaceChildren.apply(this.headSelect, choices.map(function (n) {
          return el("option", { value: n }, "Head " + n + " of " + choices.length);
        }));
      }
      this.headSelect.value = String(this.head);
      this.headSelect.parentNode.hidden = choices.length < 2; // one head: nothing to pick
    }
    if (this.maps) this.paintMaps(point, where);
    var picked = point.per_head[this.head - 1];
    var p = this.parts;
    if (p.rowmax) {
      p.rowmax.innerHTML = V.bars({ labels: point.per_head.map(function (_, i) { return "head " + (i + 1); }),
        values: point.per_head.map(function (h) { return h.measures.mean_row_max; }),
        label: "Mean row-max of each head, " + where + ": 1/T is even attention, 1 is all of it on one token." });
    }
    if (p.measures) {
      p.measures.innerHTML = '<p class="multihead-picked">Head ' + this.head + " of " + point.heads + ":</p>" +
        V.readouts({ tokens: point.tokens.length, measures: this.definitions.map(function (m) {
          return Object.assign({}, m, { value: picked.measures[m.key] });
        }) });
    }
    if (p.spread) p.spread.innerHTML = V.table(spreadTable(point));
    if (p.cost) p.cost.innerHTML = V.table(costTable(point));
    if (clicked !== null) {
      S.timings.lastRepaintMs = performance.now() - clicked;
      this.say(point.heads + " heads, guards " + point.guards + ". Head " + this.head + ": mean row-max " +
        picked.measures.mean_row_max.toFixed(2) + "; lowest over the heads " + s.lowest_row_max.toFixed(2) + ".");
    }
    self.root.setAttribute("data-multihead-head", String(this.head));
  };

  /* One heatmap per head (the shared view), each with a button under it that picks the head to
     read; the picked head is outlined. */
  Panel.prototype.paintMaps = function (point, where) {
    var self = this;
    var small = point.heads > 2;
    var key = point.heads + "\u0000" + point.tokens.join(" ");
    if (this.mapKey !== key) {
      this.maps.replaceChildren();
      this.mapNodes = point.per_head.map(function (_, i) {
        var button = el("button", { type: "button", class: "scalecore-button multihead-map__pick", "aria-pressed": "false" });
        button.addEventListener("click", function () { self.pick(i + 1); });
        var figure = el("figure", { class: "scalecore-figure multihead-map" }, [el("div"), el("figcaption", null, button)]);
        self.maps.appendChild(figure);
        return { figure: figure, button: button };
      });
      this.mapKey = key;
      this.mapSvgs = [];
    }
    this.maps.setAttribute("data-heads", String(point.heads));
    point.per_head.forEach(function (head, i) {
      var spec = { tokens: point.tokens, weights: head.weights, font: small ? 14 : 12,
        title: "Head " + (i + 1) + " of " + point.heads + ": attention weights, " + where };
      var node = self.mapNodes[i];
      if (self.mapSvgs[i]) {
        V.repaintHeatmap(self.mapSvgs[i], spec);
      } else {
        node.figure.firstChild.innerHTML = V.heatmap(spec);
        self.mapSvgs[i] = node.figure.firstChild.firstChild;
      }
      node.button.textContent = "Head " + (i + 1) + ": row-max " + head.measures.mean_row_max.toFixed(2);
      node.button.setAttribute("aria-pressed", i + 1 === self.head ? "true" : "false");
      node.figure.classList.toggle("multihead-map--picked", i + 1 === self.head);
    });
  };

  function spreadTable(point) {
    return {
      className: "scalecore-multihead-spread",
      caption: "Score spread (std within a row of the scores, averaged over the rows) of each of " + point.heads + " heads of d_k = " + point.d_k +
        ": raw, divided by \u221ad_k = \u221a" + point.d_k + " (the head's own width), and divided by \u221ad_model = \u221a" +
        point.d_model + ".",
      columns: ["Head", "Raw Q_i K_i\u1d40", "\u00f7 \u221a" + point.d_k, "\u00f7 \u221a" + point.d_model],
      rows: point.per_head.map(function (h, i) {
        return { header: String(i + 1), cells: [h.spread.unscaled, h.spread.sqrt_d_k, h.spread.sqrt_d_model] };
      }),
    };
  }

  var STAGES = [["projections", "Q, K, V = X W (3 T d_model\u00b2)"], ["scores", "h \u00d7 Q_i K_i\u1d40 (h T\u00b2 d_k)"],
    ["mixing", "h \u00d7 A_i V_i (h T\u00b2 d_k)"], ["output", "concat \u00d7 W_O (T d_model\u00b2)"], ["total", "total"]];

  function costTable(point) {
    return {
      className: "scalecore-multihead-cost",
      caption: "Multiply-adds of one layer with " + point.heads + " heads of d_k = " + point.d_k + " on T = " +
        point.tokens.length + " tokens: the total is the same for any number of heads.",
      columns: ["Stage", "Multiply-adds"],
      rows: STAGES.map(function (stage) { return { header: stage[1], cells: [point.cost[stage[0]]] }; }),
    };
  }

  /* ------------------------------------------------------------------ live mode */

  Panel.prototype.buildLive = function () {
    var self = this;
    var inputs = this.liveInputs = u.sentenceSeedFields(this.manifest, this.seed);
    var form = {
      kind: KIND,
      fields: inputs.fields,
      back: function () { self.live = null; self.render(performance.now()); },
      // The function that baked every combination, once per guard set (in one request).
      points: function () {
        var chosen = inputs.values();
        form.what = "the 8 guard sets of " + self.heads + " heads";
        return self.manifest.data.kinds[KIND].axes.guards.map(function (guards) {
          return { corpus: self.corpus, seed: chosen.seed, heads: self.heads, guards: guards, sentence: chosen.sentence };
        });
      },
      done: function (results) {
        self.live = { results: u.byKey(results, "guards") };
        self.render(performance.now());
      },
    };
    return u.liveForm(this.root, form);
  };

  S.kinds[KIND] = {
    hydrate: function (root, context) {
      return new Panel(root, context.options).start();
    },
  };
})();
