/* The variance panel: why scores grow with d_k.
 *
 * q . k for q, k with d independent unit-variance entries has variance d; divided by sqrt(d) it
 * has variance 1 whatever d. The panel shows the baked samples (scalecoreData["variance"]) as a
 * histogram for a chosen d, raw or divided by sqrt(d), on an axis that stays fixed while d
 * changes (so the spread visibly grows), and the variance against d on log axes. Live, any d
 * is sampled in the Python worker with scalecore.variance, exactly as the bake did.
 *
 * A classic script (loaded by panels.js): it works from file://.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  var u = S.util;
  var el = u.el;
  var svg = u.svg;
  var fmt = u.fmt;
  var timings = S.timings;
  var LIVE_MAX_D = 2048;

  /* The histogram is the shared view (views.js), drawn at the bins' true positions on an axis
     [-reach, reach]; the same function drew the baked figure. */
  function histogram(node, summary, reach, label) {
    node.innerHTML = globalThis.scalecoreViews.histogram({ low: summary.low, high: summary.high,
      counts: summary.counts, reach: reach, label: label });
  }

  /* Variance against d on log-log axes: raw (grows like d) and divided by sqrt(d) (stays at 1). */
  function varianceChart(node, rows, chosen) {
    var plot = { left: 44, right: 10, top: 10, bottom: 34 };
    var width = 360;
    var height = 190;
    var ds = rows.map(function (r) { return r.d; });
    var vs = rows.map(function (r) { return r.raw.variance; }).concat(rows.map(function (r) { return r.scaled.variance; }));
    var lx = [Math.log10(Math.min.apply(null, ds)) - 0.1, Math.log10(Math.max.apply(null, ds)) + 0.1];
    var ly = [Math.min(-0.5, Math.log10(Math.min.apply(null, vs)) - 0.2), Math.log10(Math.max.apply(null, vs)) + 0.2];
    var X = function (d) { return plot.left + ((Math.log10(d) - lx[0]) / (lx[1] - lx[0])) * (width - plot.left - plot.right); };
    var Y = function (v) { return height - plot.bottom - ((Math.log10(v) - ly[0]) / (ly[1] - ly[0])) * (height - plot.top - plot.bottom); };
    var root = svg("svg", { viewBox: "0 0 " + width + " " + height, class: "scalecore-chart", role: "img",
      "aria-label": "Variance of q\u00b7k against d, on logarithmic axes: the raw variance grows like d, the scaled one stays near 1." });
    root.appendChild(svg("title", null, "Variance of q\u00b7k against d (log axes)"));
    for (var e = Math.ceil(ly[0]); e <= ly[1]; e++) {
      root.appendChild(svg("line", { x1: plot.left, x2: width - plot.right, y1: Y(Math.pow(10, e)), y2: Y(Math.pow(10, e)), class: "scalecore-grid" }));
      root.appendChild(svg("text", { x: plot.left - 6, y: Y(Math.pow(10, e)) + 4, "text-anchor": "end", class: "scalecore-tick" }, fmt(Math.pow(10, e))));
    }
    for (var f = Math.ceil(lx[0]); f <= lx[1]; f++) {
      root.appendChild(svg("text", { x: X(Math.pow(10, f)), y: height - plot.bottom + 16, "text-anchor": "middle", class: "scalecore-tick" }, fmt(Math.pow(10, f))));
    }
    root.appendChild(svg("text", { x: (width + plot.left) / 2, y: height - 4, "text-anchor": "middle", class: "scalecore-axis-title" }, "d (log)"));
    // The law itself, Var = d, as a line.
    var d0 = Math.pow(10, lx[0]);
    var d1 = Math.pow(10, lx[1]);
    root.appendChild(svg("line", { x1: X(d0), y1: Y(d0), x2: X(d1), y2: Y(d1), class: "scalecore-law" }));
    root.appendChild(svg("line", { x1: X(d0), y1: Y(1), x2: X(d1), y2: Y(1), class: "scalecore-law" }));
    rows.forEach(function (row) {
      var on = row === chosen;
      root.appendChild(svg("circle", { cx: X(row.d), cy: Y(row.raw.variance), r: on ? 5.5 : 3.5,
        class: "scalecore-dot scalecore-dot--raw" + (on ? " scalecore-dot--on" : "") + (row.live ? " scalecore-dot--live" : "") }));
      root.appendChild(svg("circle", { cx: X(row.d), cy: Y(row.scaled.variance), r: on ? 5.5 : 3.5,
        class: "scalecore-dot scalecore-dot--scaled" + (on ? " scalecore-dot--on" : "") + (row.live ? " scalecore-dot--live" : "") }));
    });
    node.replaceChildren(root);
  }

  function VariancePanel(root, options) {
    this.root = root;
    this.options = options || {};
    this.announce = u.announcer(root);
    root.scalecorePanel = this;
  }

  VariancePanel.prototype.start = function () {
    var self = this;
    return u.panelData(this.root, "variance").then(function (group) {
      var data = group.index; // the lesson: the kind's only point
      self.data = data;
      var dims = Array.isArray(self.options.dims) ? self.options.dims.map(Number) : null;
      self.rows = data.dims.filter(function (row) { return !dims || dims.indexOf(row.d) >= 0; });
      if (!self.rows.length) self.rows = data.dims.slice();
      var show = Array.isArray(self.options.show) ? self.options.show : ["histogram", "table", "live"];
      self.show = { histogram: show.indexOf("histogram") >= 0, table: show.indexOf("table") >= 0, live: show.indexOf("live") >= 0 };
      var wanted = Number(self.options.d);
      self.chosen = self.rows.filter(function (r) { return r.d === wanted; })[0] || self.rows[0];
      self.scaled = self.options.scaled === true || self.options.scale === true;
      self.build();
      self.render(null);
    });
  };

  VariancePanel.prototype.reach = function () {
    var dmax = Math.max.apply(null, this.rows.map(function (r) { return r.d; }));
    return this.scaled ? 4 : 4 * Math.sqrt(dmax);
  };

  /* The slider's positions as the address writes them: the d of each row. */
  VariancePanel.prototype.dValues = function () {
    return this.rows.map(function (r) { return String(r.d) + (r.live ? "-live" : ""); }).join(" ");
  };

  VariancePanel.prototype.build = function () {
    var self = this;
    var box = u.controls(this.root);
    box.replaceChildren();
    var sliderId = u.nextId("scalecore-d");
    this.slider = el("input", { id: sliderId, type: "range", min: 0, max: this.rows.length - 1, step: 1,
      value: this.rows.indexOf(this.chosen), class: "scalecore-range", "data-scalecore-state": "d",
      "data-scalecore-state-values": this.dValues() });
    this.sliderValue = el("output", { for: sliderId, class: "scalecore-range__value" });
    this.slider.addEventListener("input", function () {
      self.chosen = self.rows[Number(self.slider.value)];
      self.render(performance.now());
    });
    this.scaleSwitch = u.toggle("divide by \u221ad", this.scaled, function (on) {
      self.scaled = on;
      self.render(performance.now());
    }, { state: "scaled" });
    box.appendChild(el("div", { class: "scalecore-pickers" }, [
      el("div", { class: "scalecore-field" }, [el("label", { for: sliderId }, "d, the width of q and k"), this.slider, this.sliderValue]),
      el("div", { class: "scalecore-switch-field" }, this.scaleSwitch),
    ]));
    if (this.show.live) box.appendChild(this.buildLive());

    this.histogram = el("div", { class: "scalecore-histogram" });
    this.histCaption = el("figcaption", { class: "scalecore-caption" });
    this.chart = el("div", { class: "scalecore-variance-chart" });
    this.readout = el("dl", { class: "scalecore-readouts scalecore-readouts--inline" });
    this.table = el("div", { class: "scalecore-table__scroll" });
    var view = el("div", { class: "scalecore-view scalecore-view--two" }, [
      this.show.histogram ? el("figure", { class: "scalecore-figure" }, [this.histogram, this.histCaption]) : null,
      this.show.histogram ? el("figure", { class: "scalecore-figure" }, [this.chart, el("figcaption", { class: "scalecore-caption" },
        [el("span", { class: "scalecore-key scalecore-key--raw" }, "\u25cf q\u00b7k"), " grows like d (the line Var = d); ",
         el("span", { class: "scalecore-key scalecore-key--scaled" }, "\u25cf q\u00b7k/\u221ad"), " stays near 1."])]) : null,
      this.readout,
      this.show.table ? el("details", { class: "scalecore-table" }, [el("summary", null, "The variances as a table"),
        this.table]) : null,
    ]);
    this.view = view;
    box.parentNode.insertBefore(view, box.nextSibling);
    Array.prototype.forEach.call(this.root.querySelectorAll(".scalecore-fallback, [data-scalecore-fallback]"), function (node) {
      node.hidden = true;
    });
  };

  VariancePanel.prototype.render = function (clicked) {
    var row = this.chosen;
    var summary = this.scaled ? row.scaled : row.raw;
    var what = this.scaled ? "q\u00b7k/\u221ad" : "q\u00b7k";
    var label = "Histogram of " + this.data.samples + " samples of " + what + " for d = " + row.d + (row.live ? " (live)" : "") +
      ": variance " + globalThis.scalecoreViews.measure(summary.variance) + ".";
    histogram(this.histogram, summary, this.reach(), label);
    this.histCaption.replaceChildren(
      row.live ? el("span", { class: "scalecore-badge scalecore-badge--live" }, "live") : el("span", { class: "scalecore-badge scalecore-badge--baked" }, "baked"),
      " " + what + " for d = " + row.d + ", " + this.data.samples.toLocaleString("en") + " samples; the axis stays fixed as d changes.");
    varianceChart(this.chart, this.rows, row);
    // The shared table view (views.js), the same as the fallback's.
    this.table.innerHTML = globalThis.scalecoreViews.table({
      className: "scalecore-variance",
      caption: "Variance of q \u00b7 k for random q and k with d entries (" + this.data.samples + " samples each): it " +
        "grows like d, and dividing by \u221ad brings it back to about 1.",
      columns: ["d", "Variance of q \u00b7 k", "Variance of q \u00b7 k / \u221ad"],
      rows: this.rows.map(function (r) {
        return { header: String(r.d) + (r.live ? " (live)" : ""), cells: [r.raw.variance, r.scaled.variance],
          attributes: { "data-scalecore-d": r.d, class: r === row ? "scalecore-initial" : null } };
      }),
    });
    this.slider.setAttribute("aria-valuetext", "d = " + row.d);
    this.sliderValue.textContent = "d = " + row.d + (row.live ? " (live)" : "");
    this.readout.replaceChildren(
      el("div", { class: "scalecore-readout" }, [el("dt", null, "Variance of q\u00b7k"),
        el("dd", null, [el("span", { class: "scalecore-readout__value", "data-measure": "raw" }, globalThis.scalecoreViews.measure(row.raw.variance)),
          el("span", { class: "scalecore-readout__hint" }, "About d: each of the d products adds variance 1.")])]),
      el("div", { class: "scalecore-readout" }, [el("dt", null, "Variance of q\u00b7k/\u221ad"),
        el("dd", null, [el("span", { class: "scalecore-readout__value", "data-measure": "scaled" }, globalThis.scalecoreViews.measure(row.scaled.variance)),
          el("span", { class: "scalecore-readout__hint" }, "About 1 whatever d: the scale guard's whole job.")])]));
    this.root.setAttribute("data-scalecore-d", String(row.d));
    if (clicked !== null) {
      timings.lastRepaintMs = performance.now() - clicked;
      this.announce("d = " + row.d + ": variance of " + what + " " + globalThis.scalecoreViews.measure(summary.variance) + ".");
    }
  };

  /* "Any d, live" (the panel base's live form): one more width sampled by the function that
     baked the others, added to the slider's widths. */
  VariancePanel.prototype.buildLive = function () {
    var self = this;
    var input = el("input", { type: "number", min: 1, max: LIVE_MAX_D, step: 1, value: 64, class: "scalecore-input", inputmode: "numeric" });
    var d = null;
    return u.liveForm(this.root, {
      kind: "variance",
      open: "Any d, live",
      run: "Sample live",
      feature: "Sampling a new d",
      fields: [{ label: "d (1 to " + LIVE_MAX_D + ")", input: input }],
      points: function () {
        d = u.wholeNumber(input, 1, LIVE_MAX_D, "d");
        return [{ dims: [d], samples: self.data.samples, seed: self.data.seed, bins: self.data.bins }];
      },
      busy: function () { return "Sampling " + self.data.samples + " dot products of width " + d + " in Python\u2026"; },
      done: function (answers, started) {
        var row = answers[0].dims[0];
        row.live = true;
        self.rows = self.rows.filter(function (r) { return !(r.live && r.d === row.d); }).concat([row])
          .sort(function (a, b) { return a.d - b.d || (a.live ? 1 : -1); });
        self.chosen = row;
        self.slider.max = String(self.rows.length - 1);
        self.slider.setAttribute("data-scalecore-state-values", self.dValues());
        self.slider.value = String(self.rows.indexOf(row));
        self.render(started);
      },
      said: function (ms) { return "Live: d = " + d + " sampled in your browser in " + ms + " ms."; },
    });
  };

  S.kinds.variance = {
    hydrate: function (root, context) {
      return new VariancePanel(root, context.options).start();
    },
  };
})();
