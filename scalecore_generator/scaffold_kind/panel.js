/* The view of this kind: pick a baked factor (instant: all of them are in data.js), or compute
 * any other one live, in Python, with the function that baked them (u.liveForm).
 * A classic script on the shared panel base (globalThis.scalecore.util) and the shared views
 * (globalThis.scalecoreViews): it works from file://. KIND is the folder's name.
 */
(function () {
  "use strict";

  var KIND = "__KIND__";
  var S = globalThis.scalecore;
  var u = S.util;
  var el = u.el;

  /* One point (scores, and the weights at a factor) as the shared bars view (views.js). */
  function view(scores, row) {
    var box = el("div", { class: KIND + "-bars", "data-factor": String(row.factor) }, [
      el("p", null, "Scores multiplied by " + u.fmt(row.factor) + ": the largest weight is " +
        u.fmt(Math.max.apply(null, row.weights)) + "."),
      el("div"),
    ]);
    box.lastChild.innerHTML = globalThis.scalecoreViews.bars({
      labels: scores.map(function (score) { return "score " + u.fmt(score); }), values: row.weights,
      label: "Softmax weights at factor " + u.fmt(row.factor),
    });
    return box;
  }

  S.kinds[KIND] = {
    hydrate: function (root, context) {
      return u.panelData(root, KIND).then(function (points) {
        var keys = Object.keys(points);
        var first = keys.filter(function (key) { return points[key].sweep[0].factor === context.options.factor; })[0] || keys[0];
        var scores = points[first].examples[0].scores;
        var shown = el("div", { class: KIND + "-view" });
        var say = u.announcer(root);
        function show(row) {
          shown.replaceChildren(view(scores, row));
          say("Factor " + u.fmt(row.factor) + ": the largest weight is " + u.fmt(Math.max.apply(null, row.weights)) + ".");
        }
        var picker = u.labelledSelect("Factor", keys.map(function (key) {
          return { value: key, label: String(points[key].sweep[0].factor) };
        }), first, function (key) { show(points[key].sweep[0]); }, "factor");

        var input = el("input", { type: "number", step: "any", value: "3", class: "scalecore-input" });
        var live = u.liveForm(root, {
          kind: KIND,
          what: "the weights",
          fields: [{ label: "Any factor", input: input }],
          points: function () {  // the compute function's parameters, as kind.py's grid gives them
            var factor = Number(input.value);
            if (input.value.trim() === "" || !isFinite(factor)) throw new Error("Write a number, for example 3.");
            return [{ examples: [scores], factors: [factor], base: scores }];
          },
          done: function (results) { show(results[0].sweep[0]); },
          back: function () { show(points[picker.select.value].sweep[0]); },
        });

        u.controls(root).append(picker.field, shown, live);
        root.querySelector(".scalecore-fallback").hidden = true;
        show(points[first].sweep[0]);
      });
    },
  };
})();
