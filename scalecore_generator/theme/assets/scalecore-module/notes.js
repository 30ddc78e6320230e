/* Scalecore module pages: "My notes on this module", a text kept per module in this browser's
 * localStorage ("scalecore.notes.<code>"), exported and imported as .md, and nothing sent anywhere.
 *
 * A note is never lost without the reader being told: notes open in two tabs follow each other
 * (storage events), and when both tabs changed them the reader chooses which text to keep (or
 * both, merged); a save the browser refuses (storage full, or not allowed) is reported, with
 * an export at hand, until a later save succeeds; a file that is not UTF-8 text is not imported
 * (decoded strictly: a UTF-8 byte order mark is dropped; one of UTF-16 refuses the file, saying so).
 * The reader's text is only ever set as a value or textContent, never as HTML.
 *
 * Loaded after module.js, whose storage helpers it shares (window.scalecoreModule); a classic
 * script that works from file:// too, set up again on every page of Material's instant navigation.
 */
(function () {
  "use strict";

  var shared = window.scalecoreModule;
  if (!shared) return; // module.js did not run: no module header on this site
  var PREFIX = shared.PREFIX, load = shared.load, save = shared.save, REFUSALS = shared.REFUSALS;
  var plural = shared.plural, each = shared.each;
  var NOTES_LIMIT = 1024 * 1024; // characters: a notes file, not a book

  /* Where a caret at ``at`` in ``before`` belongs in ``after`` (the other tab's text): the two
     texts differ in one stretch (what the other tab typed, between the longest common start and
     end); a caret before that stretch stays, a caret after it moves with the text behind it.
     Kept by its number instead, a caret at the end of the text stayed in front of the other
     tab's new words, and the reader's next word went in before them: two readers typing in turn
     saw their words stored in reverse. */
  function caretAfter(before, after, at) {
    if (at === before.length) return after.length; // writing at the end: it stays the end
    var prefix = 0;
    var shortest = Math.min(before.length, after.length);
    while (prefix < shortest && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix += 1;
    var suffix = 0;
    while (suffix < shortest - prefix &&
      before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix += 1;
    if (at <= prefix) return at;
    if (at >= before.length - suffix) return at + after.length - before.length;
    return after.length - suffix; // inside what changed: after what the other tab wrote there
  }

  /* ---------------------------------------------------------------- notes */

  // A file as notes: { text } when it is UTF-8 text, decoded strictly (a byte that is not UTF-8
  // refuses the file, never becomes a replacement character; a UTF-8 byte order mark is dropped)
  // and without the control characters only binary files hold; { problem: "utf-16" } when it
  // starts with a UTF-16 byte order mark (FF FE or FE FF: read as UTF-16, any file with those two
  // bytes in front passes for text, of a script the reader never wrote); { problem: "not text" }
  // otherwise.
  function decodeText(buffer) {
    var bytes = new Uint8Array(buffer);
    if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
      return { problem: "utf-16" };
    }
    var text;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes); // drops a UTF-8 byte order mark
    } catch (error) {
      return { problem: "not text" }; // not UTF-8 (or no TextDecoder): not text we can read
    }
    return /[\u0000-\u0008\u000b\u000e-\u001f\ufffe\uffff]/.test(text) ? { problem: "not text" } : { text: text };
  }

  // Two texts in one that loses no line of either: the lines both start and end with, and
  // between them this tab's lines, then the other tab's.
  function merge(mine, theirs) {
    if (!mine.trim() || theirs.indexOf(mine) >= 0) {
      return theirs;
    }
    if (!theirs.trim() || mine.indexOf(theirs) >= 0) {
      return mine;
    }
    var a = mine.split("\n");
    var b = theirs.split("\n");
    var start = 0;
    while (start < a.length && start < b.length && a[start] === b[start]) {
      start += 1;
    }
    var end = 0;
    while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) {
      end += 1;
    }
    return a.slice(0, a.length - end).concat(b.slice(start, b.length - end), a.slice(a.length - end)).join("\n");
  }

  // The notes on screen. Instant navigation swaps pages without a reload, so the window's
  // listeners are added once and always speak to the notes of the page shown now.
  var shownNotes = null;
  var listening = false;

  function listen() {
    if (listening) {
      return;
    }
    listening = true;
    function live() {
      return shownNotes && document.body.contains(shownNotes.section) ? shownNotes : null;
    }
    window.addEventListener("storage", function (event) {
      var notes = live();
      if (notes) {
        notes.storageChanged(event);
      }
    });
    // A tab back from the back-forward cache, or shown again, may have missed storage events.
    function recheck() {
      var notes = live();
      if (notes && !document.hidden) {
        notes.recheck();
      }
    }
    window.addEventListener("pageshow", recheck);
    document.addEventListener("visibilitychange", recheck);
    window.addEventListener("beforeunload", function (event) {
      var notes = live();
      if (notes && notes.unsaved()) { // the browser asks the reader before the text is lost
        event.preventDefault();
        event.returnValue = "";
      }
    });
  }

  function setUpNotes(section, code, title) {
    shownNotes = null;
    if (!section) {
      return;
    }
    var key = "notes." + code;
    var storageKey = PREFIX + key;
    var area = section.querySelector("[data-scalecore-notes-text]");
    var status = section.querySelector("[data-scalecore-notes-status]");
    var file = section.querySelector("[data-scalecore-notes-file]");
    var box = section.querySelector("[data-scalecore-notes-alert]");
    var alertText = section.querySelector("[data-scalecore-notes-alert-text]");
    var alertExport = section.querySelector("[data-scalecore-notes-alert-export]");
    var choice = section.querySelector("[data-scalecore-notes-conflict]");
    var otherSlot = section.querySelector("[data-scalecore-notes-other-slot]");
    var otherArea = null; // added while the reader chooses, so the page has one notes textbox otherwise
    var heading = "# My notes on " + title + " (" + code + ")\n";
    var fileName = "scalecore-notes-" + code.replace(/[^A-Za-z0-9._-]+/g, "-") + ".md";

    var base = "";        // the text this tab last read from storage or wrote to it
    var unsaved = false;  // the text on screen is not in storage (a save failed, or a choice waits)
    var other = null;     // while the reader chooses: the other tab's text
    var refused = null;   // while saves fail: why ("full" or "denied")

    function say(message) {
      status.textContent = message;
    }

    // What storage holds for these notes now ("" for nothing); undefined if it cannot be read.
    function stored() {
      try {
        var value = window.localStorage.getItem(storageKey);
        return value === null ? "" : value;
      } catch (error) {
        return undefined;
      }
    }

    function render() {
      var message = "";
      if (other !== null) {
        message = "These notes changed in another tab while you wrote here. Keep which? " +
          "Nothing is saved until you choose.";
      } else if (refused) {
        message = "Your notes could not be saved: " + REFUSALS[refused] + ". Export them to keep a copy" +
          (refused === "full" ? "; they are saved again as soon as there is room." : ".");
      }
      if (alertText.textContent !== message) { // the same words again are not announced again
        alertText.textContent = message;
      }
      box.setAttribute("data-scalecore-state", other !== null ? "conflict" : refused || "none");
      choice.hidden = other === null;
      if (other === null && otherArea) {
        otherArea.remove();
        otherArea = null;
      }
      alertExport.hidden = other !== null || !refused;
    }

    function commit(text) {
      var why = save(key, text);
      if (why) {
        unsaved = true;
        if (refused !== why) {
          refused = why;
          say(""); // what it said before is old news next to this
          render();
        }
        return false;
      }
      base = text;
      unsaved = false;
      if (refused) {
        refused = null;
        render();
        say("Saved: your notes are kept in this browser again.");
      }
      return true;
    }

    function showOther(theirs) {
      if (!otherArea) {
        otherArea = document.createElement("textarea");
        otherArea.id = "scalecore-notes-other";
        otherArea.className = "scalecore-notes__text scalecore-notes__other";
        otherArea.rows = 5;
        otherArea.readOnly = true;
        otherSlot.appendChild(otherArea);
      }
      otherArea.value = theirs;
    }

    function ask(theirs) {
      other = theirs;
      showOther(theirs);
      unsaved = true;
      say("");
      render();
    }

    // Keep what is on screen, unless another tab saved since this one last did (its storage
    // event may not have arrived yet): then the reader chooses.
    function keep() {
      if (other !== null) {
        unsaved = true;
        return false;
      }
      var now = stored();
      if (now !== undefined && now !== base && now !== area.value) {
        ask(now);
        return false;
      }
      return commit(area.value);
    }

    // Another tab wrote ``now``.
    function otherTabWrote(now) {
      if (now === undefined) {
        return;
      }
      if (other !== null) { // still choosing: show the other tab's latest text
        if (now === area.value) {
          other = null;
          base = now;
          unsaved = false;
          render();
          say("Both tabs now hold the same text.");
        } else {
          other = now;
          showOther(now);
        }
        return;
      }
      if (now === area.value) {
        base = now;
        if (unsaved) {
          unsaved = false;
          refused = null;
          render();
        }
        return;
      }
      if (now === base) {
        return;
      }
      if (!unsaved && area.value === base) { // nothing of this tab's own is lost: follow it
        var focused = document.activeElement === area;
        var before = area.value;
        var start = area.selectionStart;
        var end = area.selectionEnd;
        area.value = now;
        base = now;
        if (focused) {
          area.setSelectionRange(caretAfter(before, now, start), caretAfter(before, now, end));
        }
        say("Updated: these notes were changed in another tab.");
        return;
      }
      ask(now);
    }

    function resolve(which) {
      if (other === null) {
        return;
      }
      var theirs = other;
      var text = which === "mine" ? area.value : which === "other" ? theirs : merge(area.value, theirs);
      other = null;
      area.value = text;
      render();
      area.focus();
      if (commit(text)) {
        say(which === "mine" ? "Kept this tab's text; the other tab's text was replaced." :
          which === "other" ? "Kept the other tab's text; this tab's text was replaced." :
          "Kept both: this tab's lines first, then the other tab's.");
      }
    }

    /* The questions this reader asked the mentor on this module (mentor.js keeps them), as a
       section of the export: the notes and the learning signal travel together. */
    function askedSection() {
      var asked = [];
      try {
        asked = JSON.parse(window.localStorage.getItem("scalecore:mentor:questions:" + code) || "[]");
      } catch (error) {
        asked = [];
      }
      if (!Array.isArray(asked) || !asked.length) {
        return "";
      }
      return "\n\n## My questions to the mentor\n\n" + asked.map(function (entry) {
        var where = (entry.sections || []).map(function (s) { return s.title; }).join("; ");
        return "- " + String(entry.at).slice(0, 16).replace("T", " ") + ": " + String(entry.question).replace(/\s+/g, " ") +
          (where ? " (led to: " + where + ")" : "");
      }).join("\n") + "\n";
    }

    function exportNotes() {
      var text = heading + "\n" + area.value + askedSection();
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
    }

    var first = stored();
    base = first === undefined ? "" : first;
    area.value = base;
    if (first === undefined) {
      refused = "denied";
    }
    render();

    area.addEventListener("input", keep);
    each(section.querySelectorAll("[data-scalecore-notes-keep]"), function (button) {
      button.addEventListener("click", function () {
        resolve(button.getAttribute("data-scalecore-notes-keep"));
      });
    });
    section.querySelector("[data-scalecore-notes-export]").addEventListener("click", exportNotes);
    alertExport.addEventListener("click", exportNotes);

    section.querySelector("[data-scalecore-notes-import]").addEventListener("click", function () {
      file.value = "";
      file.click();
    });
    file.addEventListener("change", function () {
      var chosen = file.files && file.files[0];
      if (!chosen) {
        return;
      }
      if (other !== null) {
        say("Choose which text to keep first; nothing was imported.");
        return;
      }
      if (chosen.size > NOTES_LIMIT * 4) {
        say(chosen.name + " is too large for notes (over 1 MB); nothing was imported.");
        return;
      }
      var reader = new FileReader();
      reader.onload = function () {
        var read = decodeText(reader.result);
        if (read.problem === "utf-16") {
          say(chosen.name + " is UTF-16 text (it starts with UTF-16's byte order mark); notes import UTF-8 only. " +
            "Save it as UTF-8 (in most editors: Save as, encoding UTF-8) and import it again; nothing was imported.");
          return;
        }
        if (read.problem) {
          say(chosen.name + " is not a UTF-8 text file (such as a .md file); nothing was imported.");
          return;
        }
        var text = read.text;
        text = text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n");
        if (text.indexOf(heading) === 0) { // our own export: its heading is not part of the notes
          text = text.slice(heading.length).replace(/^\n/, "");
          var asked = text.lastIndexOf("\n\n## My questions to the mentor\n");
          if (asked >= 0) { // nor is the list of questions, which the mentor keeps on its own
            text = text.slice(0, asked);
          }
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
        keep();
        say("Imported " + chosen.name + ".");
      };
      reader.onerror = function () {
        say(chosen.name + " could not be read; nothing was imported.");
      };
      reader.readAsArrayBuffer(chosen);
    });

    shownNotes = {
      section: section,
      unsaved: function () {
        return unsaved;
      },
      storageChanged: function (event) {
        try {
          if (event.storageArea && event.storageArea !== window.localStorage) {
            return; // sessionStorage
          }
        } catch (error) {
          return;
        }
        if (event.key === storageKey || event.key === null) { // null: another tab cleared storage
          otherTabWrote(event.key === null ? stored() : event.newValue === null ? "" : event.newValue);
        } else if (refused === "full" && other === null) {
          keep(); // another key changed: there may be room now
        }
      },
      recheck: function () {
        var now = stored();
        if (now !== base) {
          otherTabWrote(now);
        }
      }
    };
    listen();
    section.hidden = false;
  }

  // Once per module header, in a task of its own after the page is parsed (as module.js's setUp).
  function setUp() {
    var header = document.querySelector("[data-scalecore-module]");
    if (!header || header.getAttribute("data-scalecore-notes-ready") === "true") {
      return;
    }
    header.setAttribute("data-scalecore-notes-ready", "true");
    var article = header.closest("article") || document.body;
    var heading = article.querySelector("h1");
    var title = heading ? heading.textContent.replace(/\u00b6$/, "").trim() : document.title;
    setUpNotes(article.querySelector("[data-scalecore-notes]"), header.getAttribute("data-scalecore-module"), title);
  }

  shared.onEveryPage(setUp);
})();
