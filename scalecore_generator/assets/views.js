/* Scalecore's shared views: the one renderer of each chart, used by the build and the browser.
 *
 * Each view is a pure function from plain data to markup (a string of SVG), so the same code
 * draws the baked figure at build time (run in Node by scalecore_generator/blocks/views.py, written to an .svg
 * the no-JS fallback shows) and the live view in the page (set as the figure's markup). The number
 * format and the colour scale are defined here once. Every text that comes from data goes through
 * escape(): a word of a corpus can never become markup.
 *
 * A classic script (no import/export): pages opened from file:// run it like the panels; it sets
 * globalThis.scalecoreViews.
 *
 *   format(value, digits)      3 significant digits; very large or small as "1.95 × 10⁹"
 *   measure(value)             a measure's value: format(), but a whole number keeps its digits
 *                              ("1.00", never "1" beside "0.998": one format per measure)
 *   shade(weight)              the ink of a weight: its square root, so 0.05 and 0.25 differ
 *   heatmap({tokens, weights, title, font})      attention weights, rows = queries
 *   repaintHeatmap(svg, spec)  the same, on an SVG heatmap() drew for the same tokens and font
 *   legend()                   the heatmap's colour scale
 *   histogram({low, high, counts, reach, label}) counts over bins, on an axis [-reach, reach]
 *   bars({labels, values, label})      one horizontal bar per value in [0, 1], labelled
 *   line({xs, ys, label, marker, xTicks, xPrefix, log, dots, xMax, yMax, xTitle, yTitle, series})  a curve
 *                              (or up to four: series [{xs, ys, label}], with a legend), a dot at marker
 *   weights({tokens, weights, caption})  the weights as a table: a row per query, 3 decimals
 *   readouts({tokens, measures: [{key, name, hint, unit, value, range}]})  measures, each with a
 *                              meter when it has a range [low, high] ("1/T", "ln T" allowed)
 *   repaintReadouts(dl, spec)  the same, on a list readouts() drew for the same measures (false:
 *                              other measures, draw afresh)
 *   table({className, caption, columns, formats, rows: [{header, cells, attributes}]})
 *                              a table with a header row and a header cell per row; numeric
 *                              cells written with their column's format (see number)
 *   number(value, spec)        a number for prose and captions: spec "" is format(), ".2f" fixed
 *   standalone(markup)         an SVG file of a view, with its light palette inlined (for <img>)
 */
(function (root) {
  "use strict";

  if (root.scalecoreViews) return;

  var SUPERSCRIPT = { "-": "\u207b", 0: "\u2070", 1: "\u00b9", 2: "\u00b2", 3: "\u00b3", 4: "\u2074", 5: "\u2075",
    6: "\u2076", 7: "\u2077", 8: "\u2078", 9: "\u2079" };

  function format(value, digits) {
    digits = digits || 3;
    if (typeof value !== "number" || isNaN(value)) return "n/a";
    if (!isFinite(value)) return value > 0 ? "\u221e" : "\u2212\u221e";
    if (value === 0) return "0";
    var size = Math.abs(value);
    if (Number.isInteger(value) && size < 1e5) return String(value).replace("-", "\u2212");
    if (size >= 1e5 || size < 1e-3) return scientific(value, digits, false);
    var text = size >= Math.pow(10, digits - 1) ? value.toFixed(0) : value.toPrecision(digits);
    return text.replace("-", "\u2212");
  }

  /* "1.95 × 10⁹"; trailing zeros of the mantissa dropped unless `keepZeros` ("7.90 × 10⁶"). */
  function scientific(value, digits, keepZeros) {
    var parts = value.toExponential(digits - 1).split("e");
    var exponent = String(Number(parts[1])).split("").map(function (c) { return SUPERSCRIPT[c]; }).join("");
    var mantissa = keepZeros ? parts[0] : parts[0].replace(/\.?0+$/, "");
    return mantissa.replace("-", "\u2212") + " \u00d7 10" + exponent;
  }

  /* Numbers read side by side (a row of bar labels, a table's column, a factor beside them): all with the same
     decimals, as few as three significant digits of any of them need ("0.5, 1.0, 1.5"; "1, 2, 3"), where format()
     wrote each on its own ("0.500, 1.00, 1.50", and "0.500, 2.50, 5" beside whole numbers, which a reader took for
     three precisions). Very large or small numbers keep format()'s powers of ten. */
  function alike(values) {
    var plain = values.every(function (v) {
      return typeof v === "number" && isFinite(v) && (v === 0 || (Math.abs(v) < 1e5 && Math.abs(v) >= 1e-3));
    });
    if (!plain) return values.map(function (v) { return format(v); });
    var decimals = Math.max.apply(null, values.map(function (v) {
      var text = Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3);
      var point = text.indexOf(".");
      return point < 0 ? 0 : text.replace(/0+$/, "").length - point - 1;
    }));
    return values.map(function (v) { return noNegativeZero(v.toFixed(decimals)).replace("-", "\u2212"); });
  }

  /* No sign on a zero: "-0.000" is a tiny negative rounded away. */
  function noNegativeZero(text) {
    return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
  }

  /* A measured quantity (a read-out): three significant digits every time, so a share that is
     exactly 1 at one seed reads "1.00", as 0.999 does at another (not "1"), and a spread of
     7.9 million reads "7.90 × 10⁶" beside "7.91 × 10⁶". Counts are not measures: they keep
     format(). */
  function measure(value) {
    if (typeof value !== "number" || !isFinite(value)) return format(value);
    var size = Math.abs(value);
    if (value !== 0 && (size >= 1e5 || size < 1e-3)) return scientific(value, 3, true);
    return (size >= 100 ? value.toFixed(0) : value.toPrecision(3)).replace("-", "\u2212");
  }

  function shade(weight) {
    return Math.sqrt(Math.max(0, Math.min(1, weight)));
  }

  function escape(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  /* <tag a="1">children</tag>: attributes escaped, children already markup. */
  function tag(name, attributes, children) {
    var out = "<" + name;
    for (var key in attributes) {
      var value = attributes[key];
      if (value === undefined || value === null || value === false) continue;
      out += " " + key + '="' + escape(value) + '"';
    }
    return out + ">" + (children || []).join("") + "</" + name + ">";
  }

  function text(attributes, content) {
    return tag("text", attributes, [escape(content)]);
  }

  var CELL = 34;

  /* Where a cell's number switches from the ink of an empty cell to the ink of a full one, on the
     0-1 scale of shade()'s input. The two palettes of scalecore.css cross over at different
     places: on light cells black ink holds at least 4.6:1 up to 0.58 and white ink beyond; on the
     dark scheme's cells white ink holds it up to 0.24 and black ink beyond (the WCAG contrast of
     the ink with the cell's blended colour, computed for every hundredth of the scale; a single
     switch point at 0.55 left 1.7:1 on dark mid cells). Each cell carries both marks, and each
     scheme's style sheet uses its own. */
  var STRONG = 0.58;
  var BRIGHT = 0.24;

  /* What one cell shows: the one definition both heatmap() and repaintHeatmap() use. */
  function cell(w, query, key) {
    return { opacity: shade(w).toFixed(4), text: w.toFixed(2).replace(/^0\./, "."), strong: w > STRONG,
      bright: w > BRIGHT, title: query + " \u2192 " + key + ": " + w.toPrecision(3) };
  }

  /* The matrix a heatmap draws, from either form of its spec:
   * - attention's shorthand {tokens, weights}: a square of weights in [0, 1], read
   *   "query ↓ key →", each cell's number written as .xx;
   * - the general form {rows, columns, values, domain, scheme, axis, digits}: any rows × columns
   *   of numbers, labelled by the kind; domain [low, high] (default: the values' own range);
   *   scheme "sequential" (low pale, high strong) or "diverging" (0 pale, negative and positive
   *   in two colours, strong at the larger magnitude); digits of the numbers (default 2). */
  function matrix(spec) {
    if (spec.tokens) {
      return { rows: spec.tokens, columns: spec.tokens, values: spec.weights, attention: true,
        axis: "query \u2193  key \u2192", legendTitle: "weight" };
    }
    var flat = [].concat.apply([], spec.values);
    var low = spec.domain ? spec.domain[0] : Math.min.apply(null, flat);
    var high = spec.domain ? spec.domain[1] : Math.max.apply(null, flat);
    var diverging = spec.scheme === "diverging";
    if (diverging) {
      high = Math.max(Math.abs(low), Math.abs(high)) || 1;
      low = -high;
    }
    return { rows: spec.rows, columns: spec.columns, values: spec.values, low: low, high: high, diverging: diverging,
      axis: spec.axis || "", digits: spec.digits || 2, legendTitle: spec.legendTitle || "value" };
  }

  /* What cell (i, j) of a matrix shows: attention's cells as cell() has them, others on the
     matrix's own scale. */
  function cellOf(m, i, j) {
    var v = m.values[i][j];
    if (m.attention) return cell(v, m.rows[i], m.columns[j]);
    var t = m.diverging ? Math.abs(v) / m.high : (v - m.low) / ((m.high - m.low) || 1);
    return { opacity: shade(t).toFixed(4), text: format(v, m.digits), strong: t > STRONG, bright: t > BRIGHT,
      negative: m.diverging && v < 0,
      title: m.rows[i] + ", " + m.columns[j] + ": " + format(v, 3) };
  }

  function fillClass(shown) {
    return "scalecore-cell__fill" + (shown.negative ? " scalecore-cell__fill--negative" : "");
  }

  function textClass(shown) {
    return "scalecore-cell__text" + (shown.strong ? " scalecore-cell__text--strong" : "") +
      (shown.bright ? " scalecore-cell__text--bright" : "");
  }

  function heatmap(spec) {
    var m = matrix(spec);
    var font = spec.font || 12;
    var R = m.rows.length;
    var C = m.columns.length;
    var longest = m.rows.concat(m.columns).reduce(function (n, t) { return Math.max(n, String(t).length); }, 4);
    // The words' margins are laid out for at least the 14 px a phone and a figure file draw them,
    // which leaves room for the 16 px they grow to where the map is drawn small (legibility()).
    var room = Math.max(font, 14);
    // Room for the axis title too, which ends under the first column's word: at the 13 px a phone
    // and a figure file draw it (at most 7.5 px a character), short words left it under that word.
    var left = Math.max(Math.round(longest * room * 0.62 + 30), Math.round(String(m.axis).length * 7.5 - CELL / 2 + 8));
    var top = Math.round(longest * room * 0.45 + 30);
    var width = left + C * CELL + 6;
    var height = top + R * CELL + 6;
    var parts = [tag("title", {}, [escape(spec.title || "")]),
      text({ x: 2, y: top - 8, class: "scalecore-axis-title scalecore-axis-title--line" }, m.axis)];
    // The same title in two lines in the corner ("key →" over "query ↓"), shown instead where the
    // map is drawn small (legibility()): at the size that keeps it legible there, one line would
    // run under the first column's word.
    var lines = String(m.axis).split(/\s{2,}/).reverse();
    if (m.axis) {
      parts.push(tag("text", { class: "scalecore-axis-title scalecore-axis-title--corner", display: "none",
        "text-anchor": "end" }, lines.map(function (line, k) {
        return tag("tspan", { x: left - 6, y: top - 8 - (lines.length - 1 - k) * 18 }, [escape(line)]);
      })));
    }
    m.columns.forEach(function (column, j) {
      var x = left + j * CELL + CELL / 2;
      parts.push(text({ class: "scalecore-axis-label", transform: "translate(" + x + "," + (top - 6) + ") rotate(-55)",
        "font-size": font }, column));
    });
    // The cells touch, so their empty colour is one square under the grid; each cell is then its
    // shade (the cell's value as its tooltip) and its number: two elements a cell, not four in a
    // group. A heatmap is most of a panel's DOM, and the browser styles and lays out every element.
    parts.push(tag("rect", { x: left, y: top, width: C * CELL, height: R * CELL, class: "scalecore-cell__bg" }));
    m.rows.forEach(function (row, i) {
      var y = top + i * CELL;
      parts.push(text({ class: "scalecore-axis-label", x: left - 6, y: y + CELL / 2 + 4, "text-anchor": "end",
        "font-size": font }, row));
      m.columns.forEach(function (column, j) {
        var x = left + j * CELL;
        var shown = cellOf(m, i, j);
        parts.push(tag("rect", { x: x, y: y, width: CELL, height: CELL, class: fillClass(shown),
          "fill-opacity": shown.opacity }, [tag("title", {}, [escape(shown.title)])]));
        parts.push(text({ x: x + CELL / 2, y: y + CELL / 2 + 4, "text-anchor": "middle", class: textClass(shown) },
          shown.text));
      });
    });
    parts.push(tag("rect", { x: left, y: top, width: C * CELL, height: R * CELL, class: "scalecore-heatmap__frame" }));
    if (spec.legend) {  // a figure file carries its own colour scale (the page shows legend() beside it)
      parts.push(text({ x: left, y: height + 16, class: "scalecore-axis-title" }, m.legendTitle));
      parts.push(tag("g", { transform: "translate(" + (left + 40) + "," + (height + 4) + ")" }, [legendParts(m)]));
      height += 40;
      width = Math.max(width, left + 40 + 220);
    }
    // --scalecore-natural: its size at one pixel a unit, which a phone keeps (scrolling sideways)
    // rather than shrinking the labels below the page's small text (scalecore.css). aspect-ratio:
    // its height, which a size container (scalecore.css) no longer takes from its viewBox.
    parts.splice(1, 0, tag("style", {}, [legibility(width)]));  // after the <title>, which names the map
    return tag("svg", { viewBox: "0 0 " + width + " " + height, class: "scalecore-heatmap__svg", role: "img",
      "data-scalecore-natural": width, style: "max-width:" + Math.round(width * 1.25) + "px;--scalecore-natural:" + width + "px;aspect-ratio:" +
        width + "/" + height }, parts);
  }

  /* A map drawn smaller than its natural size (a pixel a unit) shrinks its text with it: four or
     eight heads side by side at 1280 px are drawn at ~0.7, their 10 px numbers at 7 px and their
     14 px words at 10 px. So each map says, for its own width, what it shows at each size: nothing
     of its text under LEGIBLE px. Below LEGIBLE / 10 of its width (where the page's 10 px numbers
     read under LEGIBLE) the numbers are 13 px, the words 14 and the axis title 13, as on a phone
     and in a figure file; below LEGIBLE / 13 the numbers are hidden (each cell's value stays in its
     tooltip, and the colour scale says what the shades mean) and the axis title is the corner's two
     lines at 14 px; below LEGIBLE / 14 the words and the title are 16 px, which holds them at
     LEGIBLE down to 0.66 of the natural size (a 442 px map at 290 px; a grid of maps is not drawn
     narrower than 15rem).
     Queried on the map itself (scalecore.css makes the <svg> a size container); standalone()
     turns the queries into media queries, which in a file shown by <img> read the image's own
     rendered size, so the baked map and the live one show the same at the same size. Each map's
     rules are keyed by its natural width (data-scalecore-natural): maps of one width share
     the same rules, written the same way every time. No "<" in them: the style sheet is parsed
     as markup in an SVG file and in innerHTML. */
  var LEGIBLE = 10.5;

  function legibility(width) {
    var map = "svg[data-scalecore-natural='" + width + "'] text.scalecore-";
    var below = function (size, rules) {
      return "@container (max-width:" + (width * LEGIBLE / size - 0.01).toFixed(2) + "px){" + rules.join("") + "}";
    };
    return [
      below(10, [map + "cell__text{font-size:13px}", map + "axis-label{font-size:14px}", map + "axis-title--line{font-size:13px}"]),
      below(13, [map + "cell__text{display:none}", map + "axis-title--line{display:none}",
        map + "axis-title--corner{display:inline;font-size:14px}"]),
      below(14, [map + "axis-label{font-size:16px}", map + "axis-title--corner{font-size:16px}"]),
    ].join("");
  }

  /* The same heatmap on an SVG that heatmap() drew for the same rows and columns: only what a
     switch changes is set, and only where it differs from what is shown (an unchanged cell is not
     touched, so the browser has nothing of it to restyle or repaint), so a baked switch
     repaints in well under a frame and a live recompute that changes little repaints little. */
  function repaintHeatmap(svg, spec) {
    var m = matrix(spec);
    var fills = svg.querySelectorAll("rect.scalecore-cell__fill");
    var numbers = svg.querySelectorAll("text.scalecore-cell__text");
    var C = m.columns.length;
    setText(svg.querySelector("title"), spec.title || "");
    for (var i = 0; i < m.rows.length; i++) {
      for (var j = 0; j < C; j++) {
        var fill = fills[i * C + j];
        var number = numbers[i * C + j];
        var shown = cellOf(m, i, j);
        if (fill.getAttribute("fill-opacity") !== shown.opacity) fill.setAttribute("fill-opacity", shown.opacity);
        if (!m.attention) fill.classList.toggle("scalecore-cell__fill--negative", !!shown.negative);
        setText(fill.firstChild, shown.title);
        setText(number, shown.text);
        var ink = textClass(shown); // set only when it differs, in heatmap()'s order
        if (number.getAttribute("class") !== ink) number.setAttribute("class", ink);
      }
    }
  }

  /* A node's text, set only when it differs (setting the same text still replaces the text node). */
  function setText(node, value) {
    if (node.textContent !== value) node.textContent = value;
  }

  /* The colour scale beside a heatmap: attention's weights (no spec), or a general matrix's. */
  function legend(spec) {
    return tag("svg", { viewBox: "0 0 220 34", class: "scalecore-legend", "aria-hidden": "true" },
      [legendParts(spec && !spec.tokens ? matrix(spec) : null)]);
  }

  function legendParts(m) {
    if (m && !m.attention) return scaleParts(m);
    var stops = [0, 0.05, 0.25, 0.5, 1];
    var width = 200;
    // One empty bar under the 50 shades, as under the heatmap's cells.
    var parts = [tag("rect", { x: 10, y: 2, width: width + 0.5, height: 12, class: "scalecore-cell__bg" })];
    for (var i = 0; i < 50; i++) {
      var w = (i + 0.5) / 50;
      var box = { x: 10 + (i * width) / 50, y: 2, width: width / 50 + 0.5, height: 12 };
      parts.push(tag("rect", Object.assign({ class: "scalecore-cell__fill", "fill-opacity": shade(w * w).toFixed(3) }, box)));
    }
    stops.forEach(function (w) {
      parts.push(text({ x: 10 + Math.sqrt(w) * width, y: 30, "text-anchor": "middle", class: "scalecore-tick" }, String(w)));
    });
    return parts.join("");
  }

  /* A general matrix's colour scale: its low end to its high end, or for a diverging scheme the
     negative colour on the left, 0 in the middle, the positive colour on the right. */
  function scaleParts(m) {
    var width = 200;
    var parts = [tag("rect", { x: 10, y: 2, width: width + 0.5, height: 12, class: "scalecore-cell__bg" })];
    for (var i = 0; i < 50; i++) {
      var at = (i + 0.5) / 50;
      var value = m.low + at * (m.high - m.low);
      var t = m.diverging ? Math.abs(value) / m.high : at;
      var box = { x: 10 + (i * width) / 50, y: 2, width: width / 50 + 0.5, height: 12 };
      parts.push(tag("rect", Object.assign({ class: fillClass({ negative: m.diverging && value < 0 }),
        "fill-opacity": shade(t).toFixed(3) }, box)));
    }
    [m.low, (m.low + m.high) / 2, m.high].forEach(function (value, k) {
      parts.push(text({ x: 10 + (k * width) / 2, y: 30, "text-anchor": "middle", class: "scalecore-tick" },
        format(value, 2)));
    });
    return parts.join("");
  }

  function niceTicks(reach) {
    var step = Math.pow(10, Math.floor(Math.log10(reach)));
    if (reach / step < 2) step /= 2;
    var ticks = [];
    for (var x = -Math.floor(reach / step) * step; x <= reach + 1e-9; x += step) ticks.push(Math.round(x * 1e6) / 1e6);
    return ticks;
  }

  var W = 360;
  var H = 184;
  var PAD = { left: 12, right: 12, top: 10, bottom: 44 };

  function histogram(spec) {
    var counts = spec.counts;
    var reach = spec.reach;
    var width = (spec.high - spec.low) / counts.length;
    var plotW = W - PAD.left - PAD.right;
    var plotH = H - PAD.top - PAD.bottom;
    var highest = Math.max.apply(null, counts) || 1;
    var x = function (value) { return PAD.left + ((value + reach) / (2 * reach)) * plotW; };
    var parts = [tag("title", {}, [escape(spec.label)])];
    counts.forEach(function (count, i) {
      if (!count) return;
      var from = x(spec.low + i * width);
      var to = x(spec.low + (i + 1) * width);
      var h = (count / highest) * plotH;
      parts.push(tag("rect", { x: from.toFixed(2), y: (PAD.top + plotH - h).toFixed(2),
        width: Math.max(0.6, to - from - 0.4).toFixed(2), height: h.toFixed(2), class: "scalecore-bar" }));
    });
    var axisY = PAD.top + plotH;
    parts.push(tag("line", { x1: PAD.left, x2: W - PAD.right, y1: axisY, y2: axisY, class: "scalecore-axis" }));
    niceTicks(reach).forEach(function (tick) {
      parts.push(tag("line", { x1: x(tick), x2: x(tick), y1: axisY, y2: axisY + 4, class: "scalecore-axis" }));
      parts.push(text({ x: x(tick), y: axisY + 16, "text-anchor": "middle", class: "scalecore-tick" },
        String(tick).replace("-", "\u2212")));
    });
    if (spec.xTitle) parts.push(text({ x: W / 2, y: H - 4, "text-anchor": "middle", class: "scalecore-axis-title" }, spec.xTitle));
    return tag("svg", { viewBox: "0 0 " + W + " " + H, class: "scalecore-chart", role: "img", "aria-label": spec.label }, parts);
  }

  function bars(spec) {
    var width = 360;
    var row = 26;
    var left = 92;
    var span = width - left - 52;
    var parts = [tag("title", {}, [escape(spec.label)])];
    spec.values.forEach(function (value, i) {
      var y = 4 + i * row;
      parts.push(text({ x: left - 8, y: y + row / 2 + 2, "text-anchor": "end", class: "scalecore-tick" }, spec.labels[i]));
      parts.push(tag("rect", { x: left, y: y + 3, width: span, height: row - 8, class: "scalecore-cell__bg" }));
      parts.push(tag("rect", { x: left, y: y + 3, width: Math.max(0, value * span).toFixed(2), height: row - 8,
        class: "scalecore-bar" }));
      parts.push(text({ x: width - 46, y: y + row / 2 + 2, class: "scalecore-tick scalecore-bar__value" }, value.toFixed(3)));
    });
    return tag("svg", { viewBox: "0 0 " + width + " " + (spec.values.length * row + 8), class: "scalecore-chart",
      role: "img", "aria-label": spec.label }, parts);
  }

  /* Curves over x. With spec.log the y axis is logarithmic, ticked at powers of ten: a quantity
     that grows by factors (a residual stream from 1 to 10^5) stays readable at every step.
     spec.xMax / spec.yMax hold an axis's end where views are compared (a 15° throw against a 45°
     one), raised only when a value goes past it (spec.yMin, the older name of yMax, still works);
     spec.xTitle / spec.yTitle name the axes and their units. One curve is spec.xs and spec.ys;
     several to compare on one scale are spec.series, [{xs, ys, label}] (at most four), each drawn
     in its own colour and dash, named in a legend over the plot. */
  function line(spec) {
    var width = 360;
    var series = (spec.series || [{ xs: spec.xs, ys: spec.ys }]).slice(0, 4);
    var allXs = [].concat.apply([], series.map(function (s) { return s.xs; }));
    var allYs = [].concat.apply([], series.map(function (s) { return s.ys; }));
    var xmin = Math.min.apply(null, allXs.concat([0]));
    var xmax = Math.max.apply(null, allXs.concat([spec.xMax || 0]));
    var ymax = Math.max.apply(null, allYs.concat([spec.yMax || spec.yMin || 0]));
    var ticks, fraction;
    if (spec.log) {
      var positive = allYs.filter(function (y) { return y > 0; });
      var low = Math.floor(Math.log10(Math.min.apply(null, positive)));
      var high = Math.max(low + 1, Math.ceil(Math.log10(ymax)));
      fraction = function (y) { return (Math.log10(Math.max(y, Math.pow(10, low))) - low) / (high - low); };
      ticks = [];
      var step = Math.ceil((high - low) / 4);
      for (var power = low; power <= high; power += step) ticks.push(Math.pow(10, power));
    } else {
      fraction = function (y) { return y / ymax; };
      ticks = [0, ymax / 2, ymax];
    }
    // Large values (a residual stream of 10^5) and small ones (a swing of 0.004, whose ticks read
    // 0.00, 0.00, 0.00 to two decimals) get the shared number format, and room for it; whole
    // numbers are written whole (20, not 20.00).
    var whole = ticks.every(function (t) { return Number.isInteger(t); });
    var small = function (y) { return format(y).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, ""); }; // 0.002, not 0.00200
    var tick = spec.log || ymax >= 1000 ? format : ymax < 0.1 && !whole ? small :
      function (y) { return whole ? String(y) : y.toFixed(2); };
    var longest = ticks.reduce(function (n, t) { return Math.max(n, tick(t).length); }, 0);
    var legend = series.length > 1 ? 20 : 0;
    var plot = { left: Math.max(40, Math.round(longest * 6.5 + 12)), right: spec.xTicks ? 16 : 10,
      top: (spec.yTitle ? 28 : 10) + legend, bottom: spec.xTitle ? 44 : 30 };
    var height = 170 + (spec.yTitle ? 18 : 0) + (spec.xTitle ? 14 : 0) + legend;
    var X = function (x) { return plot.left + ((x - xmin) / ((xmax - xmin) || 1)) * (width - plot.left - plot.right); };
    var Y = function (y) { return height - plot.bottom - fraction(y) * (height - plot.top - plot.bottom); };
    var parts = [tag("title", {}, [escape(spec.label)])];
    ticks.forEach(function (y) {
      parts.push(tag("line", { x1: plot.left, x2: width - plot.right, y1: Y(y), y2: Y(y), class: "scalecore-grid" }));
      parts.push(text({ x: plot.left - 6, y: Y(y) + 4, "text-anchor": "end", class: "scalecore-tick" }, tick(y)));
    });
    (spec.xTicks || []).forEach(function (t) {
      parts.push(text({ x: X(t), y: height - plot.bottom + 16, "text-anchor": "middle", class: "scalecore-tick" },
        (spec.xPrefix || "") + format(t)));
    });
    if (spec.xTitle) {
      parts.push(text({ x: (plot.left + width - plot.right) / 2, y: height - 6, "text-anchor": "middle",
        class: "scalecore-axis-title" }, spec.xTitle));
    }
    if (spec.yTitle) parts.push(text({ x: 4, y: 14, class: "scalecore-axis-title" }, spec.yTitle));
    var at = plot.left; // the legend, one row over the plot: a stroke of each curve's look, then its name
    series.forEach(function (curve, n) {
      var look = "scalecore-curve" + (n ? " scalecore-curve--" + (n + 1) : "");
      if (legend) {
        var y = plot.top - legend + 4;
        parts.push(tag("line", { x1: at, x2: at + 22, y1: y, y2: y, class: look }));
        var name = String(curve.label === undefined ? "series " + (n + 1) : curve.label);
        parts.push(text({ x: at + 27, y: y + 4, class: "scalecore-tick" }, name));
        at += 27 + name.length * 7 + 14;
      }
      parts.push(tag("polyline", { class: look, points: curve.xs.map(function (x, i) {
        return X(x).toFixed(1) + "," + Y(curve.ys[i]).toFixed(1);
      }).join(" ") }));
      curve.xs.forEach(function (x, i) {  // a dot per value: a flat curve (post-LN's 1s) still shows its points
        if (spec.dots) parts.push(tag("circle", { cx: X(x).toFixed(1), cy: Y(curve.ys[i]).toFixed(1), r: 3,
          class: "scalecore-dot" + (n ? " scalecore-dot--" + (n + 1) : "") }));
      });
    });
    if (spec.marker) {
      parts.push(tag("circle", { cx: X(spec.marker[0]), cy: Y(spec.marker[1]), r: 5, class: "scalecore-dot scalecore-dot--on" }));
    }
    return tag("svg", { viewBox: "0 0 " + width + " " + height, class: "scalecore-chart", role: "img",
      "aria-label": spec.label }, parts);
  }

  /* A number with a format: "" (the site's format), ".Nf" (N decimals), "," (thousands
     separators) or ",.Nf" (both): the Python format specifications a page's quotes use most,
     written the same here, in the baked figures and in a template's num filter (FORMATS). */
  function number(value, spec) {
    var parts = FORMATS.exec(spec || "");
    if (!spec || !parts) return format(value);
    var text = parts[2] !== undefined ? noNegativeZero(value.toFixed(Number(parts[2])))
      : Number.isInteger(value) ? String(value) : format(value);
    return parts[1] ? grouped(text) : text;
  }
  var FORMATS = /^(,?)(?:\.(\d{1,2})f)?$/;

  function grouped(text) {
    var point = text.indexOf(".");
    var whole = point < 0 ? text : text.slice(0, point);
    return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (point < 0 ? "" : text.slice(point));
  }

  function table(spec) {
    var formats = spec.formats || [];
    var head = tag("tr", {}, spec.columns.map(function (c) { return tag("th", { scope: "col" }, [escape(c)]); }));
    var rows = spec.rows.map(function (row) {
      return tag("tr", row.attributes || {}, [tag("th", { scope: "row" }, [escape(row.header)])].concat(
        row.cells.map(function (cell, i) {
          return tag("td", {}, [escape(typeof cell === "number" ? number(cell, formats[i + 1]) : cell)]);
        })));
    });
    return tag("table", { class: spec.className }, [tag("caption", {}, [escape(spec.caption)]),
      tag("thead", {}, [head]), tag("tbody", {}, rows)]);
  }

  function weights(spec) {
    var head = tag("tr", {}, [tag("th", { scope: "col" }, ["query \u2193 key \u2192"])].concat(
      spec.tokens.map(function (t) { return tag("th", { scope: "col" }, [escape(t)]); })));
    var rows = spec.weights.map(function (row, i) {
      return tag("tr", {}, [tag("th", { scope: "row" }, [escape(spec.tokens[i])])].concat(
        row.map(function (w) { return tag("td", {}, [w.toFixed(3)]); })));
    });
    return tag("table", { class: "scalecore-weights" }, [tag("caption", {}, [escape(spec.caption)]),
      tag("thead", {}, [head]), tag("tbody", {}, rows)]);
  }

  function bound(end, T) {
    if (end === "1/T") return 1 / T;
    if (end === "ln T") return Math.log(T);
    return end;
  }

  /* What one read-out shows: the one definition both readouts() and repaintReadouts() use. */
  function readout(m, T) {
    var ranged = Array.isArray(m.range);
    var low = ranged ? bound(m.range[0], T) : 0;
    var high = ranged ? bound(m.range[1], T) : 1;
    var share = ranged ? Math.max(0, Math.min(1, (m.value - low) / (high - low))) : 0;
    return { ranged: ranged, value: measure(m.value) + (m.unit || ""), width: (share * 100).toFixed(1) + "%" };
  }

  function readouts(spec) {
    return tag("dl", { class: "scalecore-readouts" }, spec.measures.map(function (m) {
      var shown = readout(m, spec.tokens);
      return tag("div", { class: "scalecore-readout", "data-measure": m.key }, [
        tag("dt", {}, [escape(m.name)]),
        tag("dd", {}, [
          tag("span", { class: "scalecore-readout__value" }, [escape(shown.value)]),
          tag("span", { class: "scalecore-meter", "aria-hidden": "true", hidden: !shown.ranged },
            [tag("span", { class: "scalecore-meter__fill", style: "width:" + shown.width })]),
          tag("span", { class: "scalecore-readout__hint" }, [escape(m.hint)]),
        ]),
      ]);
    }));
  }

  /* The same read-outs on a <dl> readouts() drew for the same measures (keys, in order): each
     value, meter and hint is set only where it differs, so an unchanged read-out is not touched.
     Returns false (nothing done) when the list has other measures: draw it afresh then. */
  function repaintReadouts(list, spec) {
    var items = list.children;
    if (items.length !== spec.measures.length) return false;
    for (var i = 0; i < items.length; i++) {
      if (items[i].getAttribute("data-measure") !== spec.measures[i].key) return false;
    }
    spec.measures.forEach(function (m, i) {
      var shown = readout(m, spec.tokens);
      var dd = items[i].children[1];
      setText(items[i].children[0], m.name);
      setText(dd.children[0], shown.value);
      var meter = dd.children[1];
      if (meter.hidden !== !shown.ranged) meter.hidden = !shown.ranged;
      var style = "width:" + shown.width;
      if (meter.firstChild.getAttribute("style") !== style) meter.firstChild.setAttribute("style", style);
      setText(dd.children[2], m.hint);
    });
    return true;
  }

  /* The light palette of scalecore.css, inlined: a view saved as a file is shown through <img>,
     which page styles do not reach. Its text is sized for a phone, where the file is shown at one
     pixel a unit (a heatmap, scrolling sideways) or at 0.88 (a 360-wide chart in a 390 px
     screen's panel): every label at least the page's small text (12.8 px). */
  var FILE_STYLE = [
    "svg{background:#fff;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}",
    ".scalecore-cell__bg{fill:#eceff8}.scalecore-cell__fill,.scalecore-bar{fill:#3949ab}",
    ".scalecore-cell__text{fill:#000;font-size:13px}.scalecore-cell__text--strong{fill:#fff}",
    ".scalecore-heatmap__frame{fill:none;stroke:#d6d6d6}.scalecore-axis-label,.scalecore-tick{fill:#1f1f1f}",
    ".scalecore-axis-label{font-size:14px}.scalecore-tick{font-size:15px}",
    ".scalecore-axis-title{fill:#5f5f5f;font-size:15px}.scalecore-heatmap__svg .scalecore-axis-title{font-size:13px}",
    ".scalecore-axis{stroke:#5f5f5f;stroke-width:1}.scalecore-grid{stroke:#d6d6d6;stroke-width:1}",
    ".scalecore-curve{fill:none;stroke:#3949ab;stroke-width:2}.scalecore-dot{fill:#3949ab;stroke:#fff;stroke-width:1}",
    ".scalecore-dot--on{stroke:#1f1f1f;stroke-width:2}",
    ".scalecore-curve--2{stroke:#c2185b;stroke-dasharray:7 4}.scalecore-curve--3{stroke:#5f5f5f;stroke-dasharray:2 3}",
    ".scalecore-curve--4{stroke:#1f1f1f;stroke-dasharray:9 3 2 3}.scalecore-dot--2{fill:#c2185b}",
    ".scalecore-dot--3{fill:#5f5f5f}.scalecore-dot--4{fill:#1f1f1f}",
  ].join("");

  /* A view as an SVG file: its namespace, its palette, and its natural size (width and height
     from its viewBox), so an <img> shows it at the size the page's own view has. */
  function standalone(markup) {
    var box = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(markup);
    var size = box ? 'width="' + box[1] + '" height="' + box[2] + '" ' : "";
    // A heatmap's size rules (legibility()) as media queries: in a file the map is the viewport.
    markup = markup.replace(/@container \(/g, "@media (");
    return '<?xml version="1.0" encoding="utf-8"?>\n' + markup.replace(/^<svg /,
      '<svg xmlns="http://www.w3.org/2000/svg" ' + size).replace(/(<svg [^>]*>)/, "$1<style>" + FILE_STYLE + "</style>") + "\n";
  }

  root.scalecoreViews = { format: format, alike: alike, measure: measure, shade: shade, escape: escape, heatmap: heatmap,
    repaintHeatmap: repaintHeatmap, legend: legend,
    histogram: histogram, bars: bars, line: line, table: table, weights: weights, readouts: readouts,
    repaintReadouts: repaintReadouts, number: number,
    standalone: standalone };
})(globalThis);
