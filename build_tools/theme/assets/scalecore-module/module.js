/* Scalecore module pages: the reader's side of the module header (build_tools/theme/).
 *
 *   - the audience switch shows the side notes written for one audience (or all of them);
 *   - self-check progress: an answer opened counts as done;
 *   - "My notes on this module": a text kept per module, exported and imported as .md.
 *
 * Everything is kept in this browser's localStorage (keys "scalecore.audience",
 * "scalecore.selfchecks.<code>", "scalecore.notes.<code>") and nothing is sent anywhere.
 * A classic script, no framework, no modules: it works from file:// too. Under Material's
 * instant navigation the page body is swapped without a reload, so it runs again on every page
 * through window.document$; it does nothing on pages without a module header. The reader's
 * text is only ever set as a value or textContent, never as HTML.
 */
(function () {
  "use strict";

  var PREFIX = "scalecore.";
  // Audience codes of the front matter -> the admonition type of their side notes.
  var CALLOUTS = { guest: "guest", "it-ml": "practitioner", "language-pro": "linguist" };
  var NOTES_LIMIT = 1024 * 1024; // characters: a notes file, not a book

  function load(key) {
    try {
      return window.localStorage.getItem(PREFIX + key);
    } catch (error) {
      return null;
    }
  }

  function save(key, value) {
    try {
      if (value === null) {
        window.localStorage.removeItem(PREFIX + key);
      } else {
        window.localStorage.setItem(PREFIX + key, value);
      }
      return true;
    } catch (error) {
      return false;
    }
  }

  // Where the self-check panels keep a revealed answer: "scalecore:revealed:<check id>" = "1".
  var REVEALED = "scalecore:revealed:";

  function revealed(id) {
    try {
      return window.localStorage.getItem(REVEALED + id) === "1";
    } catch (error) {
      return false;
    }
  }

  function forgetRevealed(id) {
    try {
      window.localStorage.removeItem(REVEALED + id);
    } catch (error) {
      /* storage refused: nothing was kept */
    }
  }

  function each(list, callback) {
    Array.prototype.forEach.call(list, callback);
  }

  /* ---------------------------------------------------------------- audience switch */

  function setUpAudience(header, article) {
    var group = header.querySelector("[data-scalecore-audience]");
    if (!group) {
      return;
    }
    var inputs = group.querySelectorAll('input[name="scalecore-audience"]');
    var status = group.querySelector("[data-scalecore-audience-status]");

    function apply(value) {
      var shown = 0;
      var hidden = 0;
      Object.keys(CALLOUTS).forEach(function (audience) {
        var type = CALLOUTS[audience];
        each(article.querySelectorAll(".admonition." + type + ", details." + type), function (box) {
          box.hidden = value !== "all" && value !== audience;
          if (box.hidden) {
            hidden += 1;
          } else {
            shown += 1;
          }
        });
      });
      each(inputs, function (input) {
        input.checked = input.value === value;
      });
      if (!status) {
        return;
      }
      if (value === "all") {
        status.textContent = "";
      } else {
        var chosen = group.querySelector('input[value="' + value + '"]');
        var title = chosen ? chosen.getAttribute("data-scalecore-callout-title") : "";
        status.textContent = "Showing the " + shown + " \u201c" + title + "\u201d notes; " + hidden +
          " notes for other readers are hidden.";
      }
    }

    var values = Array.prototype.map.call(inputs, function (input) {
      return input.value;
    });
    var stored = load("audience");
    apply(values.indexOf(stored) >= 0 ? stored : "all");
    each(inputs, function (input) {
      input.addEventListener("change", function () {
        if (input.checked) {
          save("audience", input.value);
          apply(input.value);
        }
      });
    });
  }

  /* ---------------------------------------------------------------- self-check progress */

  function setUpProgress(header, article, code) {
    var box = header.querySelector("[data-scalecore-progress]");
    var checks = article.querySelectorAll('[data-scalecore-id^="scalecore-selfcheck-"]');
    if (!box || !checks.length) {
      return;
    }
    var key = "selfchecks." + code;
    var text = box.querySelector("[data-scalecore-progress-text]");
    var reset = box.querySelector("[data-scalecore-progress-reset]");
    var ids = Array.prototype.map.call(checks, function (check) {
      return check.getAttribute("data-scalecore-id");
    });
    var done = [];
    try {
      done = JSON.parse(load(key) || "[]");
    } catch (error) {
      done = [];
    }
    if (!Array.isArray(done)) {
      done = [];
    }
    done = done.filter(function (id) {
      return typeof id === "string";
    });
    // The self-check panels (build_tools/assets/panels.js) mark each answer a reader revealed,
    // with "(answer seen before)", under their own key: count those too, so the page agrees.
    ids.forEach(function (id) {
      if (revealed(id) && done.indexOf(id) < 0) {
        done.push(id);
      }
    });

    function render() {
      var count = 0;
      each(checks, function (check) {
        var isDone = done.indexOf(check.getAttribute("data-scalecore-id")) >= 0;
        if (isDone) {
          count += 1;
          check.setAttribute("data-scalecore-done", "true");
        } else {
          check.removeAttribute("data-scalecore-done");
        }
      });
      text.textContent = count + " of " + ids.length + " self-checks done";
      reset.disabled = count === 0;
    }

    each(checks, function (check) {
      var id = check.getAttribute("data-scalecore-id");
      var details = check.querySelector("details.scalecore-selfcheck");
      if (!details) {
        return;
      }
      details.addEventListener("toggle", function () {
        if (details.open && done.indexOf(id) < 0) {
          done.push(id);
          save(key, JSON.stringify(done));
          render();
        }
      });
    });
    reset.addEventListener("click", function () {
      done = [];
      save(key, null);
      ids.forEach(forgetRevealed);
      each(checks, function (check) {
        check.classList.remove("scalecore-self-check--seen");
        each(check.querySelectorAll(".scalecore-seen"), function (mark) {
          mark.remove();
        });
      });
      render();
    });
    box.hidden = false;
    render();
  }

  /* ---------------------------------------------------------------- notes */

  function setUpNotes(section, code, title) {
    if (!section) {
      return;
    }
    var key = "notes." + code;
    var area = section.querySelector("[data-scalecore-notes-text]");
    var status = section.querySelector("[data-scalecore-notes-status]");
    var file = section.querySelector("[data-scalecore-notes-file]");
    var heading = "# My notes on " + title + " (" + code + ")\n";
    var fileName = "scalecore-notes-" + code.replace(/[^A-Za-z0-9._-]+/g, "-") + ".md";

    function say(message) {
      status.textContent = message;
    }

    area.value = load(key) || "";
    area.addEventListener("input", function () {
      if (!save(key, area.value)) {
        say("Your notes could not be saved: this browser does not allow local storage here. " +
            "Export them to keep them.");
      }
    });

    section.querySelector("[data-scalecore-notes-export]").addEventListener("click", function () {
      var text = heading + "\n" + area.value;
      var url = URL.createObjectURL(new Blob([text], { type: "text/markdown;charset=utf-8" }));
      var link = document.createElement("a");
      link.href = url;
      link.download = fileName;
      link.hidden = true;
      document.body.appendChild(link);
      link.click();
      link.remove();
      window.setTimeout(function () {
        URL.revokeObjectURL(url);
      }, 10000);
      say("Exported as " + fileName + ".");
    });

    section.querySelector("[data-scalecore-notes-import]").addEventListener("click", function () {
      file.value = "";
      file.click();
    });
    file.addEventListener("change", function () {
      var chosen = file.files && file.files[0];
      if (!chosen) {
        return;
      }
      if (chosen.size > NOTES_LIMIT * 4) {
        say(chosen.name + " is too large for notes (over 1 MB); nothing was imported.");
        return;
      }
      var reader = new FileReader();
      reader.onload = function () {
        var text = String(reader.result).replace(/^\ufeff/, "").replace(/\r\n?/g, "\n");
        if (text.indexOf(heading) === 0) { // our own export: its heading is not part of the notes
          text = text.slice(heading.length).replace(/^\n/, "");
        }
        if (text.length > NOTES_LIMIT) {
          say(chosen.name + " is too large for notes (over 1 MB); nothing was imported.");
          return;
        }
        if (area.value.trim() && area.value !== text &&
            !window.confirm("Replace your notes on this module with the contents of " + chosen.name + "?")) {
          say("Nothing imported: your notes are unchanged.");
          return;
        }
        area.value = text;
        var kept = save(key, text);
        say("Imported " + chosen.name + "." + (kept ? "" : " It could not be saved in this browser."));
      };
      reader.onerror = function () {
        say(chosen.name + " could not be read; nothing was imported.");
      };
      reader.readAsText(chosen);
    });
    section.hidden = false;
  }

  /* ---------------------------------------------------------------- page set-up */

  function setUp() {
    var header = document.querySelector("[data-scalecore-module]");
    if (!header || header.getAttribute("data-scalecore-ready") === "true") {
      return;
    }
    header.setAttribute("data-scalecore-ready", "true");
    var code = header.getAttribute("data-scalecore-module");
    var article = header.closest("article") || document.body;
    var heading = article.querySelector("h1");
    var title = heading ? heading.textContent.replace(/\u00b6$/, "").trim() : document.title;
    setUpAudience(header, article);
    setUpProgress(header, article, code);
    setUpNotes(article.querySelector("[data-scalecore-notes]"), code, title);
    var tools = header.querySelector("[data-scalecore-tools]");
    if (tools) {
      tools.hidden = false;
    }
  }

  // Material's document$ emits on every page, instant swaps included. From file:// it may
  // complete without emitting (instant navigation is off there), so the plain DOM events run
  // too; setUp does its work once per module header.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe({ next: setUp, error: setUp, complete: setUp });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
