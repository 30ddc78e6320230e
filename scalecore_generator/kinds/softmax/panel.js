/* The softmax panel: a row of scores, multiplied by a factor, through softmax.
 *
 * As the factor grows (scores spread further apart), the weights go one-hot and the Jacobian
 * J = diag(p) - p p^T, which carries the gradient back to the scores, shrinks towards 0: the
 * head stops learning. Softmax is cheap, so the slider computes in plain JavaScript (the same
 * formulas as scalecore.softmax); the baked sweep (scalecoreData["softmax"]) is the reference
 * the tests compare against, and the no-JS figure.
 *
 * A classic script (loaded by panels.js): it works from file://.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  var u = S.util;
  var el = u.el;
  var fmt = u.fmt;
  var timings = S.timings;

  var V = globalThis.scalecoreViews;
  var FACTOR_MAX = 10;
  var FACTOR_STEP = 0.25;

  /* softmax(s)_i = exp(s_i - max s) / sum_j exp(s_j - max s): stable for any finite scores. */
  function softmax(scores) {
    var top = Math.max.apply(null, scores);
    var exps = scores.map(function (s) { return Math.exp(s - top); });
    var total = exps.reduce(function (a, b) { return a + b; }, 0);
    return exps.map(function (e) { return e / total; });
  }

  /* d p_i / d s_j = p_i (delta_ij - p_j) */
  function jacobian(p) {
    return p.map(function (pi, i) {
      return p.map(function (pj, j) { return pi * ((i === j ? 1 : 0) - pj); });
    });
  }

  /* Frobenius norm of the Jacobian: how much gradient can flow back to the scores. */
  function jacobianNorm(p) {
    var sum = 0;
    jacobian(p).forEach(function (row) { row.forEach(function (x) { sum += x * x; }); });
    return Math.sqrt(sum);
  }

  /* The reader's scores: 2 to 12 numbers, each at most a million in size (the kind's LARGEST),
     so that a score times the factor stays finite (1e308 x 2 is Infinity, and softmax NaN). */
  var LARGEST = 1e6;
  function parseScores(text) {
    var parts = String(text).split(/[\s,;]+/).filter(Boolean);
    var values = parts.map(Number);
    if (values.length < 2 || values.length > 12 || values.some(function (v) { return !isFinite(v); })) {
      throw new Error("Write 2 to 12 numbers separated by commas, for example 1, 2, 3.");
    }
    if (values.some(function (v) { return Math.abs(v) > LARGEST; })) {
      throw new Error("Write scores from -1,000,000 to 1,000,000: a million already puts all the weight on one score.");
    }
    return values;
  }

  function SoftmaxPanel(root, options) {
    this.root = root;
    this.options = options || {};
    this.announce = u.announcer(root);
    root.scalecorePanel = this;
  }

  SoftmaxPanel.prototype.start = function () {
    var self = this;
    return u.panelData(this.root, "softmax").then(function (group) {
      var data = group.index; // the lesson: the kind's only point
      self.data = data;
      var first = data.examples && data.examples[0];
      self.scores = Array.isArray(self.options.scores) ? self.options.scores.map(Number) : first ? first.scores.slice() : [1, 2, 3];
      var factor = Number(self.options.factor);
      self.factor = isFinite(factor) && factor >= 0 ? factor : 1;
      self.factorMax = Math.max(FACTOR_MAX, Math.ceil(self.factor));
      var show = Array.isArray(self.options.show) ? self.options.show : ["weights", "jacobian", "table"];
      self.show = { weights: show.indexOf("weights") >= 0, jacobian: show.indexOf("jacobian") >= 0, table: show.indexOf("table") >= 0 };
      self.build();
      self.render(null);
    });
  };

  SoftmaxPanel.prototype.build = function () {
    var self = this;
    var box = u.controls(this.root);
    box.replaceChildren();
    var scoresId = u.nextId("scalecore-scores");
    var factorId = u.nextId("scalecore-factor");
    this.scoresInput = el("input", { id: scoresId, type: "text", class: "scalecore-input", value: this.scores.join(", "),
      spellcheck: "false", autocomplete: "off", "data-scalecore-state": "scores" });
    this.scoresMessage = el("span", { class: "scalecore-status", role: "status" });
    this.scoresInput.addEventListener("change", function () {
      try {
        self.scores = parseScores(self.scoresInput.value);
        self.scoresMessage.textContent = "";
        self.scoresInput.removeAttribute("aria-invalid");
        self.render(performance.now());
      } catch (error) {
        self.scoresMessage.textContent = error.message;
        self.scoresInput.setAttribute("aria-invalid", "true");
      }
    });
    this.slider = el("input", { id: factorId, type: "range", min: 0, max: this.factorMax, step: FACTOR_STEP, value: this.factor, class: "scalecore-range",
      "data-scalecore-state": "factor" });
    this.sliderValue = el("output", { for: factorId, class: "scalecore-range__value" });
    this.slider.addEventListener("input", function () {
      self.factor = Number(self.slider.value);
      self.render(performance.now());
    });
    box.appendChild(el("div", { class: "scalecore-pickers" }, [
      el("div", { class: "scalecore-field" }, [el("label", { for: scoresId }, "Scores"), this.scoresInput, this.scoresMessage]),
      el("div", { class: "scalecore-field" }, [el("label", { for: factorId }, "Multiply the scores by"), this.slider, this.sliderValue]),
    ]));
    this.bars = el("div", { class: "scalecore-softmax-bars" });
    this.curve = el("div", { class: "scalecore-softmax-curve" });
    this.readout = el("dl", { class: "scalecore-readouts scalecore-readouts--inline" });
    this.jacobianTable = el("div", { class: "scalecore-table__scroll" });
    this.weightsTable = el("div", { class: "scalecore-table__scroll" });
    var view = el("div", { class: "scalecore-view scalecore-view--two" }, [
      this.show.weights ? el("figure", { class: "scalecore-figure" }, [this.bars, el("figcaption", { class: "scalecore-caption" }, "The weights: softmax of the scaled scores.")]) : null,
      this.show.weights ? el("figure", { class: "scalecore-figure" }, [this.curve, el("figcaption", { class: "scalecore-caption" },
        "Gradient size (norm of the softmax Jacobian) as the factor grows; the dot is the current factor.")]) : null,
      this.readout,
      this.show.table ? el("details", { class: "scalecore-table" }, [el("summary", null, "The weights as a table"),
        this.weightsTable]) : null,
      this.show.jacobian ? el("details", { class: "scalecore-table" }, [el("summary", null, "The Jacobian as a table"),
        this.jacobianTable]) : null,
    ]);
    this.view = view;
    box.parentNode.insertBefore(view, box.nextSibling);
    Array.prototype.forEach.call(this.root.querySelectorAll(".scalecore-fallback, [data-scalecore-fallback]"), function (node) {
      node.hidden = true;
    });
  };

  SoftmaxPanel.prototype.state = function (factor) {
    var scaled = this.scores.map(function (s) { return s * factor; });
    var weights = softmax(scaled);
    return { scaled: scaled, weights: weights, gradient: jacobianNorm(weights) };
  };

  SoftmaxPanel.prototype.render = function (clicked) {
    var now = this.state(this.factor);
    this.sliderValue.textContent = "\u00d7 " + this.factor;
    this.slider.setAttribute("aria-valuetext", "times " + this.factor);
    this.drawBars(now);
    this.drawCurve();
    var top = Math.max.apply(null, now.weights);
    this.readout.replaceChildren(
      el("div", { class: "scalecore-readout" }, [el("dt", null, "Gradient size"), el("dd", null, [
        el("span", { class: "scalecore-readout__value", "data-measure": "gradient" }, V.measure(now.gradient)),
        el("span", { class: "scalecore-readout__hint" }, "How much learning signal reaches the scores. It vanishes as one weight takes everything.")])]),
      el("div", { class: "scalecore-readout" }, [el("dt", null, "Largest weight"), el("dd", null, [
        el("span", { class: "scalecore-readout__value", "data-measure": "max" }, V.measure(top)),
        el("span", { class: "scalecore-readout__hint" }, "1/n is even attention; 1 is all on one item.")])]));
    // Both tables are the shared table view (views.js), with the fallback's very specs.
    var J = jacobian(now.weights);
    var factorText = V.alike([this.factor])[0]; // as few decimals as it needs, as the slider writes it
    this.jacobianTable.innerHTML = V.table({
      className: "scalecore-jacobian",
      caption: "The softmax Jacobian at factor " + factorText + ": how weight i (row) moves when score j (column) moves, " +
        "p_i (\u03b4_ij \u2212 p_j); its size is " + fmt(now.gradient) + ".",
      columns: ["i \\ j"].concat(J.map(function (_, j) { return "s" + (j + 1); })),
      formats: [""].concat(J.map(function () { return ".3f"; })),
      rows: J.map(function (row, i) { return { header: "p" + (i + 1), cells: row }; }),
    });
    var scoresText = V.alike(this.scores), scaledText = V.alike(now.scaled); // each column in one precision
    this.weightsTable.innerHTML = V.table({
      className: "scalecore-softmax",
      caption: "Softmax of the scores multiplied by " + factorText + ": the weights sum to 1.",
      columns: ["i", "Score", "\u00d7 " + factorText, "Weight"], formats: ["", "", "", ".3f"],
      rows: this.scores.map(function (score, i) { return { header: String(i + 1), cells: [scoresText[i], scaledText[i], now.weights[i]] }; }),
    });
    this.root.setAttribute("data-scalecore-factor", String(this.factor));
    if (clicked !== null) {
      timings.lastRepaintMs = performance.now() - clicked;
      this.announce("Factor " + this.factor + ": weights " + now.weights.map(function (w) { return w.toFixed(2); }).join(", ") +
        "; gradient size " + V.measure(now.gradient) + ".");
    }
  };

  /* The bars and the curve are the shared views (views.js). */
  SoftmaxPanel.prototype.drawBars = function (now) {
    var scaledText = globalThis.scalecoreViews.alike(now.scaled); // one precision for the row
    this.bars.innerHTML = globalThis.scalecoreViews.bars({
      labels: scaledText.map(function (s) { return "score " + s; }), values: now.weights,
      label: "Weights: " + now.weights.map(function (w, i) { return "score " + scaledText[i] + " gets " + w.toFixed(3); }).join("; "),
    });
  };

  SoftmaxPanel.prototype.drawCurve = function () {
    var xs = [];
    var ys = [];
    var fmax = this.factorMax;
    for (var f = 0; f <= fmax + 1e-9; f += FACTOR_STEP) {
      xs.push(f);
      ys.push(this.state(f).gradient);
    }
    this.curve.innerHTML = globalThis.scalecoreViews.line({
      xs: xs, ys: ys, yMax: 0.5, marker: [this.factor, this.state(this.factor).gradient], xPrefix: "\u00d7",
      xTicks: [0, 0.2, 0.4, 0.6, 0.8, 1].map(function (t) { return Math.round(t * fmax * 4) / 4; }),
      label: "Gradient size against the factor: it falls towards 0 as the factor grows.",
    });
  };

  S.softmax = { softmax: softmax, jacobian: jacobian, jacobianNorm: jacobianNorm };
  S.kinds.softmax = {
    hydrate: function (root, context) {
      return new SoftmaxPanel(root, context.options).start();
    },
  };
})();
