/* The self-check panel: the block renders a <details> (it works without JavaScript); this script
 * remembers in this browser that the reader revealed the answer, and says so next time.
 * The key is the check's stable id (data-scalecore-id: a hash of its question, or the author's
 * id). Ids used to be positions on the page (data-scalecore-legacy-id): an answer remembered
 * under that old id is moved to the stable one the first time the check is seen, and the old
 * key removed, so a self-check inserted later cannot inherit it.
 * A classic script, loaded by panels.js for pages with a self-check: it works from file://.
 */
(function () {
  "use strict";

  var S = globalThis.scalecore;
  var el = S.util.el;

  /* ---------------------------------------------------------------- self-checks */

  /* The block renders a <details>; remember that the reader revealed the answer. */
  function storageKey(root) {
    return S.constants.REVEALED_PREFIX + (root.getAttribute("data-scalecore-id") || root.id || "");
  }

  S.kinds["self-check"] = {
    hydrate: function (root) {
      var details = root.matches("details") ? root : root.querySelector("details");
      if (!details) return;
      var key = storageKey(root);
      var store = null;
      try {
        store = window.localStorage;
      } catch (error) {
        store = null; // storage refused (privacy settings, file:// in some browsers)
      }
      var summary = details.querySelector("summary");
      function seen() {
        root.classList.add("scalecore-self-check--seen");
        if (summary && !summary.querySelector(".scalecore-seen")) {
          summary.appendChild(el("span", { class: "scalecore-seen" }, "(answer seen before)"));
        }
      }
      var legacy = root.getAttribute("data-scalecore-legacy-id");
      if (store && legacy) {
        try {
          var old = S.constants.REVEALED_PREFIX + legacy;
          if (store.getItem(old) === "1") store.setItem(key, "1");
          store.removeItem(old);
        } catch (error) {
          /* full or refused: nothing to move */
        }
      }
      if (store && store.getItem(key) === "1") seen();
      // Revealed now: remembered for the next visit, which says "(answer seen before)"; not said
      // in this one (a reader who had just opened it for the first time read "seen before").
      details.addEventListener("toggle", function () {
        if (!details.open) return;
        try {
          if (store) store.setItem(key, "1");
        } catch (error) {
          /* full or refused: the reveal still works */
        }
      });
    },
  };

})();
