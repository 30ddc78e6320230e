/* Scalecore module pages: the reader's side of the module header (scalecore_generator/theme/).
 *
 *   - the audience switch shows the side notes written for one audience (or all of them);
 *   - self-check progress: an answer opened counts as done;
 *   - "My notes on this module" (notes.js, with this script's storage helpers);
 *   - the mentor's script (mentor.js) is loaded when its box nears the viewport.
 *
 * Everything is kept in this browser's localStorage (keys "scalecore.audience",
 * "scalecore.selfchecks.<code>", "scalecore.notes.<code>") and nothing is sent anywhere.
 * A note is never lost without the reader being told: notes open in two tabs follow each other
 * (storage events), and when both tabs changed them the reader chooses which text to keep (or
 * both, merged); a save the browser refuses (storage full, or not allowed) is reported, with
 * an export at hand, until a later save succeeds; a file that is not UTF-8 text is not imported
 * (decoded strictly: a UTF-8 byte order mark is dropped; one of UTF-16 refuses the file, saying so).
 * A classic script, no framework, no modules: it works from file:// too. Under Material's
 * instant navigation the page body is swapped without a reload, so it runs again on every page
 * through window.document$; it does nothing on pages without a module header. The reader's
 * text is only ever set as a value or textContent, never as HTML.
 */
(function () {
  "use strict";

  var PREFIX = "scalecore.";
  // Audience code -> the admonition type of its side notes: the site's audiences, as the switch's
  // choices carry them (data-scalecore-callout; pages/module_meta.py).
  var CALLOUTS = {};

  function plural(count, word) {
    return count === 1 ? word : word + "s";
  }

  function load(key) {
    try {
      return window.localStorage.getItem(PREFIX + key);
    } catch (error) {
      return null;
    }
  }

  // Why the browser refused a write: "full" (this site's share of storage is used up) or
  // "denied" (no local storage here: blocked by a setting, a sandbox, a private mode...).
  function refusal(error) {
    var name = error && error.name;
    var code = error && error.code;
    return name === "QuotaExceededError" || name === "NS_ERROR_DOM_QUOTA_REACHED" || code === 22 ||
      code === 1014 ? "full" : "denied";
  }

  var REFUSALS = {
    full: "this browser\u2019s storage for this site is full",
    denied: "this browser does not allow local storage here"
  };

  // Null once kept, else why not ("full" or "denied").
  function save(key, value) {
    try {
      if (value === null) {
        window.localStorage.removeItem(PREFIX + key);
      } else {
        window.localStorage.setItem(PREFIX + key, value);
      }
      return null;
    } catch (error) {
      return refusal(error);
    }
  }

  // Where the self-check panels keep a revealed answer: "<prefix><check id>" = "1", the prefix
  // defined once by the panel base (scalecore_generator/assets/panels.js, loaded on every page
  // before this script). Read when used: this script's own load order does not matter.
  function revealedKey(id) {
    var constants = globalThis.scalecore && globalThis.scalecore.constants;
    if (!constants) throw new Error("the panel base (panels.js) is not loaded");
    return constants.REVEALED_PREFIX + id;
  }

  function revealed(id) {
    try {
      return window.localStorage.getItem(revealedKey(id)) === "1";
    } catch (error) {
      return false;
    }
  }

  function markRevealed(id) {
    try {
      window.localStorage.setItem(revealedKey(id), "1");
    } catch (error) {
      /* storage refused: the count below still includes it this time */
    }
  }

  function forgetRevealed(id) {
    try {
      window.localStorage.removeItem(revealedKey(id));
    } catch (error) {
      /* storage refused: nothing was kept */
    }
  }

  function each(list, callback) {
    Array.prototype.forEach.call(list, callback);
  }

  // What notes.js (loaded after this script, on the same pages) shares with it.
  /* Where this tab keeps the mentor's last question on a module (mentor.js writes it, lastAnswered reads it). */
  function lastKey(code) { return "scalecore:mentor:last:" + code; }
  window.scalecoreModule = { PREFIX: PREFIX, plural: plural, load: load, save: save, REFUSALS: REFUSALS, each: each,
    lastKey: lastKey };

  /* ---------------------------------------------------------------- audience switch */

  function setUpAudience(header, article) {
    var group = header.querySelector("[data-scalecore-audience]");
    if (!group) {
      return;
    }
    var inputs = group.querySelectorAll('input[name="scalecore-audience"]');
    each(inputs, function (input) {
      if (input.hasAttribute("data-scalecore-callout")) CALLOUTS[input.value] = input.getAttribute("data-scalecore-callout");
    });
    var status = group.querySelector("[data-scalecore-audience-status]");
    var problem = group.querySelector("[data-scalecore-audience-problem]");

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
        status.textContent = "Showing the " + shown + " \u201c" + title + "\u201d " + plural(shown, "note") + "; " +
          hidden + " " + plural(hidden, "note") + " for other readers " + (hidden === 1 ? "is" : "are") + " hidden.";
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
          var refused = save("audience", input.value);
          apply(input.value);
          if (problem) {
            problem.textContent = refused ? "This choice applies to this page only: it could not be kept " +
              "for the next pages, because " + REFUSALS[refused] + "." : "";
          }
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
    // Ids used to be positions on the page: progress saved under a check's old id
    // (data-scalecore-legacy-id) moves to its stable id, once (the old keys are then gone).
    var moved = {};
    each(checks, function (check) {
      var old = check.getAttribute("data-scalecore-legacy-id");
      if (old) {
        moved[old] = check.getAttribute("data-scalecore-id");
      }
    });
    var migrated = false;
    Object.keys(moved).forEach(function (old) {
      if (revealed(old)) {
        markRevealed(moved[old]);
      }
      forgetRevealed(old);
    });
    done = done.reduce(function (kept, id) {
      var now = moved[id] || id;
      migrated = migrated || now !== id;
      if (kept.indexOf(now) < 0) {
        kept.push(now);
      }
      return kept;
    }, []);
    if (migrated) {
      save(key, JSON.stringify(done));
    }
    // The self-check panels (scalecore_generator/assets/panels.js) mark each answer a reader revealed,
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
      text.textContent = count + " of " + ids.length + " " + plural(ids.length, "self-check") + " done";
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
      // Nothing else undoes it: asked first, as the notes ask before an import replaces them.
      if (!window.confirm("Forget which self-check answers you have revealed on this page?")) return;
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

  /* ---------------------------------------------------------------- page set-up */

  // The mentor's script (mentor.js) loads when its box nears the viewport, or when the reader
  // reaches the box by keyboard: a reader who never comes to the end of the module pays nothing
  // for it. Once loaded, it follows Material's instant navigation by itself. A question sent
  // before it has loaded (the form has no action: it would reload the page) is sent once it has.
  function setUpMentor(article, code) {
    var section = article.querySelector("[data-scalecore-mentor][data-scalecore-mentor-script]");
    var form = section && section.querySelector("form");
    if (!section || !form || window.scalecoreMentorScript) {
      return;
    }
    var watcher = null;
    var pending = false;
    function ready() {
      return section.getAttribute("data-scalecore-ready") === "true";
    }
    function load() {
      if (watcher) {
        watcher.disconnect();
      }
      if (window.scalecoreMentorScript) {
        return;
      }
      var script = document.createElement("script");
      script.src = section.getAttribute("data-scalecore-mentor-script");
      script.addEventListener("load", function () {
        if (pending && ready()) {
          form.requestSubmit();
        }
      });
      window.scalecoreMentorScript = script;
      document.head.appendChild(script);
    }
    function holdUntilReady(event) {
      if (!ready()) {
        event.preventDefault();
        pending = true;
        load();
      }
    }
    section.hidden = false; // shown now, so that it can be watched; without JavaScript it stays hidden
    section.addEventListener("focusin", load);
    form.addEventListener("submit", holdUntilReady);
    form.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        holdUntilReady(event);
      }
    });
    var again = lastAnswered(code);
    if (again) section.setAttribute("data-scalecore-mentor-again", again); // mentor.js answers it again
    if (!("IntersectionObserver" in window) || again) {
      load();
      return;
    }
    watcher = new IntersectionObserver(function (entries) {
      if (entries.some(function (entry) { return entry.isIntersecting; })) {
        load();
      }
    }, { rootMargin: "100% 0px" });
    watcher.observe(section);
  }

  /* On Back (or Forward) to a page whose mentor answered in this tab, or on its reload, the last question (mentor.js
     writes it: its lastKey), which mentor.js answers again; else null. The script then loads at once, not when the box
     nears: a fresh reader came Back from an answer's panel link to the page's top, where the box is far, and no answer
     came; another reloaded the page and found the answer gone. */
  function lastAnswered(code) {
    var entry = window.performance && performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
    if (!entry || (entry.type !== "back_forward" && entry.type !== "reload")) return null;
    try {
      return window.sessionStorage.getItem(lastKey(code));
    } catch (error) {
      return null; // no storage: nothing to make again
    }
  }

  function setUp() {
    var header = document.querySelector("[data-scalecore-module]");
    if (!header || header.getAttribute("data-scalecore-ready") === "true") {
      return;
    }
    header.setAttribute("data-scalecore-ready", "true");
    var code = header.getAttribute("data-scalecore-module");
    var article = header.closest("article") || document.body;
    setUpAudience(header, article);
    setUpProgress(header, article, code);
    setUpMentor(article, code);
    var tools = header.querySelector("[data-scalecore-tools]");
    if (tools) {
      tools.hidden = false;
    }
  }

  /* Sideways: a box wider than the screen (a display formula, a figure, a table) scrolls in its
     box and says so. While more lies to one side, that edge fades out (data-scalecore-more
     "right", "left" or "both": scalecore.css); the box is a Tab stop named for what it holds
     (role region, as accessible scrolling tables do), so the arrow keys scroll it; and a figure's
     or a table's box has a line above it that says it scrolls. A box that fits is left as it is.
     Boxes are measured only near the viewport (an off-screen block is not laid out:
     pages/offscreen.py), again when they or what they hold change size, and as they scroll. */
  var SIDEWAYS = [
    ["div.arithmatex", "Formula", null],
    [".scalecore-mentor__formula", "Formula", null],
    [".scalecore-scroll-x", "Figure", "Scroll sideways for the rest of the figure \u2192"],
    [".scalecore-table__scroll", "Table", "Scroll sideways for the rest of the table \u2192"],
  ];
  var sidewaysNear = null;

  function measureSideways(box) {
    var extra = box.scrollWidth - box.clientWidth;
    var hint = box.scalecoreHint;
    if (extra <= 1) {
      if (box.hasAttribute("data-scalecore-more")) {
        box.removeAttribute("data-scalecore-more");
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
      if (hint) hint.hidden = true;
      return;
    }
    var left = box.scrollLeft > 1;
    var right = box.scrollLeft < extra - 1;
    var state = left && right ? "both" : left ? "left" : "right";
    if (box.getAttribute("data-scalecore-more") !== state) box.setAttribute("data-scalecore-more", state);
    if (!box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", box.scalecoreWhat + ", wider than the screen: scroll sideways");
    }
    if (box.scalecoreHintText && !hint && box.parentNode) {
      hint = box.scalecoreHint = document.createElement("p");
      hint.className = "scalecore-sideways__hint";
      hint.setAttribute("aria-hidden", "true"); // the box's own name says it
      hint.textContent = box.scalecoreHintText;
      box.parentNode.insertBefore(hint, box);
    }
    if (hint) hint.hidden = false;
  }

  function watchSideways(box, what, hintText) {
    box.scalecoreSideways = true;
    box.scalecoreWhat = what;
    box.scalecoreHintText = hintText;
    var queued = false;
    var again = function () {
      if (queued) return;
      queued = true;
      requestAnimationFrame(function () { queued = false; measureSideways(box); });
    };
    box.addEventListener("scroll", again, { passive: true });
    var started = false;
    var start = function () {
      again(); // each time it nears the viewport: an off-screen block is laid out only then
      if (started) return;
      started = true;
      if ("ResizeObserver" in window) {
        var sizes = new ResizeObserver(again);
        sizes.observe(box);
        Array.prototype.forEach.call(box.children, function (child) { sizes.observe(child); });
      }
      if ("MutationObserver" in window) new MutationObserver(again).observe(box, { childList: true, subtree: true });
      // A formula widens when the math font arrives, and a <math> is no element a ResizeObserver reports.
      if (document.fonts && document.fonts.ready) document.fonts.ready.then(again);
      if (document.readyState !== "complete") window.addEventListener("load", again, { once: true });
    };
    if (sidewaysNear) sidewaysNear.observe(box);
    box.scalecoreStart = start;
    if (!sidewaysNear) start();
  }

  function setUpSideways() {
    if (!sidewaysNear && "IntersectionObserver" in window) {
      sidewaysNear = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (entry.isIntersecting) entry.target.scalecoreStart();
        });
      }, { rootMargin: "50% 0px" });
    }
    var scan = function () {
      SIDEWAYS.forEach(function (kind) {
        Array.prototype.forEach.call(document.querySelectorAll(kind[0]), function (box) {
          if (!box.scalecoreSideways) watchSideways(box, kind[1], kind[2]);
        });
      });
    };
    scan();
    // Panels draw their figures and tables when they hydrate, and the mentor its answers.
    if (!document.body.scalecoreSidewaysScan && "MutationObserver" in window) {
      var pending = false;
      document.body.scalecoreSidewaysScan = new MutationObserver(function () {
        if (pending) return;
        pending = true;
        requestAnimationFrame(function () { pending = false; scan(); });
      });
      document.body.scalecoreSidewaysScan.observe(document.body, { childList: true, subtree: true });
    }
  }

  // Material's document$ emits on every page, instant swaps included. From file:// it may
  // complete without emitting (instant navigation is off there), so the plain DOM events run
  // too; setUp does its work once per module header. It runs in a task of its own: document$
  // first emits inside Material's DOMContentLoaded handler, which mounts Material's components
  // in that same task, and a reader's tap waits for a whole task (see hydrateSoon in hydration.js). notes.js sets up by it too.
  function onEveryPage(setUpPage) {
    function soon() {
      setTimeout(setUpPage, 0);
    }
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe({ next: soon, error: soon, complete: soon });
    }
    if (beforeContentLoaded()) {
      document.addEventListener("DOMContentLoaded", soon);
    } else {
      soon();
    }
  }

  /* Whether the page's DOMContentLoaded is still to come. A deferred script runs once parsing is
     done ("interactive"), and the browser runs other tasks while a later deferred script still
     downloads: a timer set then fired before DOMContentLoaded, inside Material's set-up. */
  function beforeContentLoaded() {
    if (document.readyState === "loading") return true;
    var navigation = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
    return document.readyState === "interactive" && !!navigation && navigation.domContentLoadedEventStart === 0;
  }
  window.scalecoreModule.onEveryPage = onEveryPage;
  onEveryPage(function () {
    setUp();
    setUpSideways();
  });
})();
