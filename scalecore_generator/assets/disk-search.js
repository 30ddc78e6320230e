/* Search in a site opened from disk (file://): the built site/ folder or the offline bundle.
 *
 * Material searches in a worker loaded from a URL, which a page opened from disk may not start,
 * so Material hides its search box there. This classic script (it does nothing over http, where
 * Material's search works) shows the box again and searches in the page: the same index Material
 * builds, written by the build as a classic script (search/search_index.js, scalecore_generator/builder/disk_search.py,
 * in the format Material's own offline plugin uses, ``var __index``), and MiniSearch (npm, MIT,
 * served by the site already for the mentor) to rank it. Both load when the reader first types.
 * Results link to the page and the section, as Material's do.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  if (!script || location.protocol !== "file:") return;
  var ROOT = new URL("../../", script.src); // assets/scalecore/disk-search.js -> the site root
  var LIMIT = 20;
  var engine = null; // Promise of a MiniSearch over the site's index

  function load(url) {
    return new Promise(function (resolve, reject) {
      var tag = document.createElement("script");
      tag.src = url;
      tag.onload = resolve;
      tag.onerror = function () { reject(new Error(url)); };
      document.head.appendChild(tag);
    });
  }

  function plain(html) {
    return new DOMParser().parseFromString(html || "", "text/html").body.textContent.replace(/\s+/g, " ").trim();
  }

  function search() {
    if (!engine) {
      engine = (window.__index ? Promise.resolve() : load(new URL("search/search_index.js", ROOT).href))
        .then(function () {
          return window.MiniSearch ? null : load(new URL("assets/scalecore/vendor/minisearch.js", ROOT).href);
        })
        .then(function () {
          var found = new window.MiniSearch({
            fields: ["title", "text"], storeFields: ["location", "title", "text", "page"],
            searchOptions: { boost: { title: 4 }, prefix: true, fuzzy: 0.2, combineWith: "AND" },
          });
          var pages = {}; // a page's title, for its sections' results
          window.__index.docs.forEach(function (doc) {
            if (doc.location.indexOf("#") < 0) pages[doc.location] = plain(doc.title);
          });
          found.addAll(window.__index.docs.map(function (doc, id) {
            var page = doc.location.split("#")[0];
            return { id: id, location: doc.location, title: plain(doc.title), text: plain(doc.text),
              page: doc.location.indexOf("#") < 0 ? "" : pages[page] || "" };
          }));
          return found;
        });
      engine.catch(function () { engine = null; });
    }
    return engine;
  }

  /* A piece of the text around the first word found, with that word marked. */
  function snippet(text, terms) {
    var lower = text.toLowerCase(), at = -1, term = "";
    terms.forEach(function (candidate) {
      var where = lower.indexOf(candidate.toLowerCase());
      if (where >= 0 && (at < 0 || where < at)) { at = where; term = candidate; }
    });
    var paragraph = document.createElement("p");
    if (at < 0) { paragraph.textContent = text.slice(0, 160) + (text.length > 160 ? "…" : ""); return paragraph; }
    var start = Math.max(0, at - 60);
    paragraph.appendChild(document.createTextNode((start ? "…" : "") + text.slice(start, at)));
    paragraph.appendChild(document.createElement("mark")).textContent = text.slice(at, at + term.length);
    var end = Math.min(text.length, at + term.length + 100);
    paragraph.appendChild(document.createTextNode(text.slice(at + term.length, end) + (end < text.length ? "…" : "")));
    return paragraph;
  }

  /* A location as a file: with directory URLs a page is "guide/" (a server answers with its
   * index.html, a disk with a listing of the folder). */
  function onDisk(location) {
    var parts = location.split("#");
    if (parts[0] === "" || parts[0].slice(-1) === "/") parts[0] += "index.html";
    return parts.join("#");
  }

  function show(box, query, results) {
    var meta = box.querySelector(".md-search-result__meta");
    var list = box.querySelector(".md-search-result__list");
    list.textContent = "";
    if (!query) { meta.textContent = "Type to start searching"; return; }
    meta.textContent = results.length === 0 ? "No matching documents"
      : results.length === 1 ? "1 matching document" : results.length + " matching documents";
    results.slice(0, LIMIT).forEach(function (result) {
      var item = list.appendChild(document.createElement("li"));
      item.className = "md-search-result__item";
      var link = item.appendChild(document.createElement("a"));
      link.className = "md-search-result__link";
      link.href = new URL(onDisk(result.location), ROOT).href;
      var article = link.appendChild(document.createElement("article"));
      article.className = "md-search-result__article md-typeset";
      article.appendChild(document.createElement("h1")).textContent = result.title;
      if (result.page) {
        var where = article.appendChild(document.createElement("p"));
        where.className = "scalecore-search__page";
        where.textContent = "In " + result.page;
      }
      article.appendChild(snippet(result.text, result.terms));
    });
  }

  function unavailable(box, error) {
    box.querySelector(".md-search-result__meta").textContent = "Search cannot read this copy's index (" +
      error.message + "): the site was built without the search plugin, or before the build wrote it. " +
      "Build it again, or serve this folder: python3 -m http.server.";
  }

  function setUp() {
    var box = document.querySelector('[data-md-component="search"]');
    var input = box && box.querySelector(".md-search__input");
    var toggle = document.getElementById("__search");
    if (!input || box.getAttribute("data-scalecore-disk-search") !== null) return;
    box.setAttribute("data-scalecore-disk-search", "");
    box.hidden = false;
    var asked = 0;
    function run() {
      var query = input.value.trim(), ticket = ++asked;
      search().then(function (found) {
        if (ticket === asked) show(box, query, query ? found.search(query) : []);
      }, function (error) { unavailable(box, error); });
    }
    input.addEventListener("focus", function () { if (toggle) toggle.checked = true; search(); });
    input.addEventListener("input", run);
    if (toggle) toggle.addEventListener("change", function () { if (toggle.checked) input.focus(); });
    box.querySelector("form").addEventListener("submit", function (event) {
      event.preventDefault();
      var first = box.querySelector(".md-search-result__link");
      if (first) location.href = first.href;
    });
    box.querySelector('button[type="reset"]').addEventListener("click", function () {
      input.value = "";
      show(box, "", []);
    });
  }

  setUp();
})();
