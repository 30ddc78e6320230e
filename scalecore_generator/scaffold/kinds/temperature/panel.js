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
      el("p", null, "Temperature " + point.temperature + ": entropy " + u.fmt(point.entropy) + " nats."),
      el("div"),
    ]);
    box.lastChild.innerHTML = globalThis.scalecoreViews.bars({
      labels: point.scores.map(function (score) { return "score " + u.fmt(score); }), values: point.weights,
      label: "Softmax weights at temperature " + point.temperature,
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
          say("Temperature " + point.temperature + ": the largest weight is " +
            Math.max.apply(null, point.weights).toFixed(3) + ".");
        }
        var keys = Object.keys(points);
        var first = keys.filter(function (key) { return points[key].temperature === context.options.temperature; })[0] || keys[0];
        // "temperature" names the picker in the page's address (?p2.temperature=2.0): a reload,
        // Back, Forward and "Copy a link to this view" keep the reader's choice.
        var picker = u.labelledSelect("Temperature", keys.map(function (key) {
          return { value: key, label: String(points[key].temperature) };
        }), first, function (key) {
          live.say(""); // the live result's message and its way back go with it
          live.showBack(false);
          showBaked(points[key]);
        }, "temperature");
        // While a live result is shown, the picker says its value is not the one on screen.
        var liveNote = el("p", { class: "temperature-live-note", id: u.nextId("temperature-live-note"), hidden: true });
        picker.field.append(liveNote);
        picker.select.setAttribute("aria-describedby", liveNote.id);
        function showBaked(point) {
          liveNote.hidden = true;
          root.removeAttribute("data-temperature-live");
          root.setAttribute("data-scalecore-source", "baked"); // what "Copy a link to this view" reads
          show(point);
        }

        // The "Compute live" disclosure (u.liveForm): its form, the runtime's progress, its messages,
        // and what a page opened from disk says. points() gives the compute function's parameters.
        var input = el("input", { type: "number", min: "0.01", step: "any", value: "3", class: "scalecore-input" });
        var live = u.liveForm(root, {
          kind: "temperature",
          what: "the weights",
          run: "Compute", // the form's own button: "Compute live" opens the form
          fields: [{ label: "Any temperature", input: input }],
          points: function () {
            var temperature = Number(input.value);
            if (input.value.trim() === "" || !(temperature > 0)) throw new Error("Write a temperature above 0, for example 3.");
            return [{ scores: points[first].scores, temperature: temperature }];
          },
          done: function (results) {
            show(results[0]);
            root.setAttribute("data-temperature-live", String(results[0].temperature));
            root.setAttribute("data-scalecore-source", "live");
            liveNote.textContent = "Shown: temperature " + results[0].temperature + ", computed live. Pick one " +
              "here to show its baked weights.";
            liveNote.hidden = false;
          },
          back: function () { showBaked(points[picker.select.value]); },
        });

        u.controls(root).append(picker.field, shown, live);
        root.querySelector(".scalecore-fallback").hidden = true;
        show(points[first]);
      });
    },
  };
})();
