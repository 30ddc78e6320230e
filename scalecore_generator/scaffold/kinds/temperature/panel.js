/* The temperature panel: pick a baked temperature (instant: all of them are in data.js), or
 * compute any other one live, in Python, with the function that baked them.
 * A classic script on the shared panel base (globalThis.scalecore.util) and the shared views
 * (globalThis.scalecoreViews): it works from file://.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  var u = S.util;
  var el = u.el;

  /* The weights as the shared bars view (views.js): the same chart any kind can draw. */
  function view(point) {
    var box = el("div", { class: "temperature-bars", "data-temperature": String(point.temperature) }, [
      el("p", null, "Temperature " + u.fmt(point.temperature) + ": entropy " + u.fmt(point.entropy) + " nats."),
      el("div"),
    ]);
    box.lastChild.innerHTML = globalThis.scalecoreViews.bars({
      labels: point.scores.map(function (score) { return "score " + u.fmt(score); }), values: point.weights,
      label: "Softmax weights at temperature " + u.fmt(point.temperature),
    });
    return box;
  }

  S.kinds.temperature = {
    hydrate: function (root, context) {
      return u.panelData(root, "temperature").then(function (points) {
        var shown = el("div", { class: "temperature-view" });
        var say = u.announcer(root);
        function show(point) {
          shown.replaceChildren(view(point));
          say("Temperature " + u.fmt(point.temperature) + ": the largest weight is " +
            Math.max.apply(null, point.weights).toFixed(3) + ".");
        }
        var keys = Object.keys(points);
        var first = keys.filter(function (key) { return points[key].temperature === context.options.temperature; })[0] || keys[0];
        var picker = u.labelledSelect("Temperature", keys.map(function (key) {
          return { value: key, label: u.fmt(points[key].temperature) };
        }), first, function (key) { show(points[key]); });

        var input = el("input", { type: "number", min: "0.01", step: "any", value: "3", class: "scalecore-input",
          "aria-label": "Any temperature" });
        var message = el("p", { class: "scalecore-live__message", "aria-live": "polite" });
        var progress = u.progressView();
        var live = el("form", { class: "scalecore-live" }, [input,
          el("button", { type: "submit", class: "scalecore-button" }, "Compute live"), progress.node, message]);
        live.addEventListener("submit", function (event) {
          event.preventDefault();
          var temperature = Number(input.value);
          message.textContent = "Computing in Python\u2026";
          u.manifestOf(root)
            .then(function (manifest) { return u.live().then(function (m) { return m.client(manifest, { onProgress: progress.update }); }); })
            .then(function (client) { return client.compute("temperature", [{ scores: points[first].scores, temperature: temperature }]); })
            .then(function (results) {
              show(results[0]);
              root.setAttribute("data-temperature-live", String(temperature));
              message.textContent = "Live: computed in your browser.";
            }, function (error) { message.textContent = error.message; });
        });
        if (!u.isHttp()) live.replaceChildren(u.needsHttp("Live mode", root));

        u.controls(root).append(picker.field, shown, live);
        root.querySelector(".scalecore-fallback").hidden = true;
        show(points[first]);
      });
    },
  };
})();
