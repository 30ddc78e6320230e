/* The encoder panel: a stack of encoder layers, LayerNorm none / post / pre, layer by layer.
 *
 * A classic script on the shared panel base (globalThis.scalecore.util) and the shared views
 * (globalThis.scalecoreViews): it works from file://. One data.js holds the three placements of
 * one corpus and seed, each with every baked layer (a shallower stack is the first layers of a
 * deeper one), so moving LayerNorm, stacking layers or picking a layer repaints from memory.
 * "Compute live" recomputes the three placements in Python with scalecore.encoder.block, the
 * function that baked them, for any sentence and seed: the one shown first, then the other two.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  var u = S.util;
  var el = u.el;
  var V = globalThis.scalecoreViews;
  var KIND = "encoder";
  var NORMS = [
    { value: "none", label: "none", what: "no LayerNorm" },
    { value: "post", label: "post-LN", what: "post-LN: LN(x + sublayer(x))" },
    { value: "pre", label: "pre-LN", what: "pre-LN: x + sublayer(LN(x))" },
  ];

  function Panel(root, options) {
    var self = this;
    this.root = root;
    this.o = options;
    this.show = {};
    (options.show || []).forEach(function (name) { self.show[name] = true; });
    this.corpus = options.corpus[0];
    this.seed = options.seed;
    this.norm = options.norm;
    this.layers = options.layers;
    this.layer = options.layer;
    this.live = null;
    this.say = u.announcer(root);
    root.scalecorePanel = this;
  }

  Panel.prototype.key = function (corpus, seed) {
    return KIND + "/" + corpus + "/" + seed;
  };

  Panel.prototype.start = function () {
    var self = this;
    return u.manifestOf(this.root).catch(function () { return null; }).then(function (manifest) {
      self.manifest = manifest;
      return u.panelData(self.root, self.key(self.corpus, self.seed));
    }).then(function (unit) {
      self.deepest = unit[self.norm].layers.length;
      self.build();
      self.render(null);
    });
  };

  /* ------------------------------------------------------------------ the controls */

  Panel.prototype.build = function () {
    var self = this;
    var box = u.controls(this.root);
    box.replaceChildren();
    var pickers = el("div", { class: "scalecore-pickers" });
    if (this.show.norm) pickers.appendChild(this.normSwitch());
    if (this.show.layers && this.deepest > 1) {
      var counts = [];
      for (var n = 1; n <= this.deepest; n++) counts.push({ value: n, label: String(n) });
      this.layersSelect = u.labelledSelect("Layers", counts, this.layers, function (value) {
        self.layers = Number(value);
        self.layer = Math.min(self.layer, self.layers);
        self.render(performance.now());
      }, "layers").select;
      pickers.appendChild(this.layersSelect.parentNode);
    }
    if (this.show.maps) {
      this.layerSelect = u.labelledSelect("Maps of layer", [], this.layer, function (value) {
        self.layer = Number(value);
        self.render(performance.now());
      }, "layer").select;
      pickers.appendChild(this.layerSelect.parentNode);
    }
    u.corpusSeedPickers({ kind: KIND, manifest: this.manifest, corpora: this.o.corpus, corpus: this.corpus, seed: this.seed,
      showCorpus: this.show.corpus, showSeed: this.show.seed,
      current: function () { return { corpus: self.corpus, seed: self.seed }; },
      choose: function (corpus, seed) { self.choose(corpus, seed); },
    }).fields.forEach(function (field) { pickers.appendChild(field); });
    this.status = el("span", { class: "scalecore-status", role: "status" });
    pickers.appendChild(this.status);
    box.appendChild(pickers);
    if (this.show.live) box.appendChild(this.buildLive());

    this.view = el("div", { class: "scalecore-view encoder-view" });
    this.caption = el("p", { class: "encoder-summary" });
    this.view.appendChild(this.caption);
    this.parts = {};
    if (this.show.stream) this.parts.stream = this.view.appendChild(el("figure", { class: "scalecore-figure encoder-stream" }));
    if (this.show.attention) this.parts.attention = this.view.appendChild(el("div", { class: "encoder-attention" }));
    if (this.show.maps) {
      this.parts.maps = this.view.appendChild(el("div", { class: "encoder-maps scalecore-scroll-x" }));
      var legend = this.view.appendChild(el("div", { class: "scalecore-legend__box" },
        [el("span", { class: "scalecore-legend__label" }, "weight")]));
      legend.insertAdjacentHTML("beforeend", V.legend());
    }
    if (this.show.table) this.parts.table = this.view.appendChild(el("div", { class: "scalecore-table__scroll" }));
    box.parentNode.insertBefore(this.view, box.nextSibling);
    Array.prototype.forEach.call(this.root.querySelectorAll(".scalecore-fallback"), function (node) { node.remove(); });
  };

  /* LayerNorm's placement as a segmented radio group. */
  Panel.prototype.normSwitch = function () {
    var self = this;
    return u.segmented({ legend: "LayerNorm", className: "encoder-norm", state: "norm",
      choices: NORMS.map(function (norm) {
        return { value: norm.value, label: norm.label, aria: norm.what, checked: norm.value === self.norm };
      }),
      pick: function (value) { self.norm = value; self.render(performance.now()); } });
  };

  Panel.prototype.choose = function (corpus, seed) {
    var self = this;
    return u.chooseGroup(this, { kind: KIND, group: corpus + "/" + seed, key: this.key(corpus, seed),
      what: corpus + ", seed " + seed, apply: function () {
        self.corpus = corpus;
        self.seed = seed;
        if (self.liveInputs) self.liveInputs.follow(seed);
      } });
  };

  /* ------------------------------------------------------------------ the view */

  Panel.prototype.current = function () {
    var unit = this.live ? this.live.results : globalThis.scalecoreData[this.key(this.corpus, this.seed)];
    return unit && unit[this.norm];
  };

  Panel.prototype.render = function (clicked) {
    var point = this.current();
    if (!point) return;
    var L = this.layers;
    var shown = point.layers.slice(0, L);
    var what = NORMS.filter(function (n) { return n.value === point.norm; })[0].what;
    var where = u.corpusTitle(this.manifest, point.corpus) + " (" + point.corpus + "), seed " + point.seed + ", " + what +
      (this.live ? ", computed live" : "");
    this.root.setAttribute("data-scalecore-source", this.live ? "live" : "baked");
    this.root.setAttribute("data-encoder-norm", point.norm);
    this.root.setAttribute("data-encoder-layers", String(L));
    var last = shown[L - 1];
    this.caption.textContent = L + (L === 1 ? " layer" : " layers") + " of " + point.heads + " heads (d_k = " + point.d_k +
      ") and an FFN of d_ff = " + point.d_ff + ", " + where + ". The stream's spread goes from " +
      V.number(point.input_spread) + " to " + V.number(last.stream_spread) + ".";
    var p = this.parts;
    if (p.stream) {
      var ys = [point.input_spread].concat(shown.map(function (l) { return l.stream_spread; }));
      var xs = ys.map(function (_, i) { return i; });
      // Each chart's caption above it, as its title: below, on a phone, a caption sat between two charts.
      p.stream.innerHTML = "<figcaption>Spread (std) of the residual stream, on a log scale: the input (0), then after each layer.</figcaption>" +
        V.line({ xs: xs, ys: ys, xTicks: xs, log: true, dots: true,
        label: "Spread of the residual stream (log scale), input (0) and after each layer, " + where + "." });
    }
    if (p.attention) {
      var labels = shown.map(function (l) { return "layer " + l.layer; });
      p.attention.innerHTML = "<figure class=\"scalecore-figure\">" +
        "<figcaption>Mean row-max of the heads, layer by layer (1 is all of it on one token).</figcaption>" + V.bars({ labels: labels,
        values: shown.map(function (l) { return l.mean_row_max; }), label: "Mean row-max of the heads of each layer, " + where + "." }) +
        "</figure><figure class=\"scalecore-figure\">" +
        "<figcaption>Gradient size of the heads' softmax, layer by layer (near 0: no gradient reaches the scores).</figcaption>" +
        V.bars({ labels: labels,
        values: shown.map(function (l) { return l.gradient; }), label: "Gradient size of the heads' softmax of each layer, " + where + "." }) +
        "</figure>";
    }
    if (p.maps) this.paintMaps(point, where);
    if (p.table) p.table.innerHTML = V.table(layersTable(point, L, where));
    if (clicked !== null) {
      S.timings.lastRepaintMs = performance.now() - clicked;
      this.say(what + ", " + L + (L === 1 ? " layer" : " layers") + ": the stream's spread is " + V.number(last.stream_spread) +
        "; the last layer's mean row-max is " + last.mean_row_max.toFixed(2) + ".");
    }
  };

  Panel.prototype.paintMaps = function (point, where) {
    var self = this;
    if (this.layerSelect.options.length !== this.layers) {
      var choices = [];
      for (var n = 1; n <= this.layers; n++) choices.push(el("option", { value: String(n) }, "Layer " + n));
      this.layerSelect.replaceChildren.apply(this.layerSelect, choices);
    }
    this.layerSelect.value = String(this.layer);
    var chosen = point.layers[this.layer - 1];
    var box = this.parts.maps;
    if (box.childNodes.length !== chosen.per_head.length) {
      box.replaceChildren.apply(box, chosen.per_head.map(function () { return el("figure", { class: "scalecore-figure encoder-map" }); }));
      this.svgs = [];
    }
    chosen.per_head.forEach(function (head, i) {
      var spec = { tokens: point.tokens, weights: head.weights, font: 14,
        title: "Layer " + chosen.layer + ", head " + (i + 1) + ": attention weights, " + where };
      var figure = box.childNodes[i];
      if (self.svgs[i]) {
        V.repaintHeatmap(self.svgs[i], spec);
        figure.lastChild.textContent = "Layer " + chosen.layer + ", head " + (i + 1) + ": row-max " + head.mean_row_max.toFixed(2);
      } else {
        figure.innerHTML = V.heatmap(spec) + "<figcaption></figcaption>";
        figure.lastChild.textContent = "Layer " + chosen.layer + ", head " + (i + 1) + ": row-max " + head.mean_row_max.toFixed(2);
        self.svgs[i] = figure.firstChild;
      }
    });
  };

  function layersTable(point, L, where) {
    var rows = [{ header: "input", cells: ["", "", "", "", point.input_spread, "", ""] }].concat(
      point.layers.slice(0, L).map(function (l) {
        return { header: String(l.layer), cells: [l.attention_input_spread, l.attention_update_spread, l.ffn_update_spread,
          l.ffn_share, l.stream_spread, l.mean_row_max, l.gradient] };
      }));
    return {
      className: "scalecore-encoder-layers",
      caption: "Layer by layer, " + where + ": the spread (std) of what the heads see, of what attention and the FFN " +
        "add (and the FFN's share of what the layer adds), and of the residual stream after the layer; the heads' " +
        "mean row-max and gradient size.",
      columns: ["Layer", "Heads see", "Attention adds", "FFN adds", "FFN share", "Stream", "Row-max", "Gradient"],
      formats: ["", "", "", "", ".3f", "", ".2f", ""], // as kind.py's LAYER_FORMATS: the fallback's table
      rows: rows,
    };
  }

  /* ------------------------------------------------------------------ live mode */

  Panel.prototype.buildLive = function () {
    var self = this;
    var inputs = this.liveInputs = u.sentenceSeedFields(this.manifest, this.seed);
    return u.liveForm(this.root, {
      kind: KIND,
      what: "the three placements of " + this.deepest + " layers",
      fields: inputs.fields,
      back: function () { self.live = null; self.render(performance.now()); },
      // The function that baked every stack, once per placement (in one request).
      points: function () {
        var chosen = inputs.values();
        var heads = globalThis.scalecoreData[self.key(self.corpus, self.seed)][self.norm].heads;
        return NORMS.map(function (norm) {
          return { corpus: self.corpus, seed: chosen.seed, norm: norm.value, heads: heads, layers: self.deepest,
            sentence: chosen.sentence };
        });
      },
      // The placement on screen first (a third of the work); the other two follow, and a switch
      // to one of them before they land waits for them (render shows nothing it lacks).
      first: function (point) { return point.norm === self.norm; },
      done: function (results, started, partial) {
        var shown = self.live && self.live.results[self.norm];
        self.live = { results: u.byKey(results, "norm") };
        if (!partial && shown && shown === self.live.results[self.norm]) return; // already on screen
        self.render(performance.now());
      },
    });
  };

  S.kinds[KIND] = {
    hydrate: function (root, context) {
      return new Panel(root, context.options).start();
    },
  };
})();
