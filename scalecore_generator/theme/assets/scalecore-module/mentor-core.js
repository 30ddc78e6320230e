/* The mentor's answers: retrieval over a module's own sources, with no server and no model.
 *
 * Given the module's data (scalecore_generator/mentor.py: passages, outline, facts, panels) and a
 * question, answer() returns what the mentor can stand behind:
 *   - numbers: values the site baked, when the question names one (a measure and its setting);
 *   - check:   the self-check whose question is closest, with its explanation;
 *   - passages: the best few passages, each with its section and the terms that matched;
 *   - found: false when nothing relevant is there (the page then offers the outline).
 * Every part carries its source. The same file runs in the page and in Node (the question-set
 * evaluation in benchmarks/mentor.py), so what is measured is what readers get.
 *
 * Full-text search is MiniSearch (BM25, prefix and fuzzy matching), self-hosted; what is ours is
 * only the glue: which terms count, when a self-check is "close", and how a question names a
 * number of the quote trees.
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.scalecoreMentorCore = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var STOP = ("a about after again all also am an and any are as at be because been before being between both but " +
    "by can could did do does doing done each few for from further had has have having he her here hers him his how i " +
    "if in into is it its itself just me more most my no nor not now of off on once only or other our out over own " +
    "same she should so some such than that the their them then there these they this those through to too under " +
    "until up very was we were what when where which while who whom why will with would you your yours explain " +
    "tell please mean means meant happen happens happened does work works get gets value values number many much " +
    "measure measures measured").split(" ");
  var STOPWORDS = {};
  STOP.forEach(function (word) { STOPWORDS[word] = true; });
  var MAX_PASSAGES = 3;

  /* A word as the index keeps it: lower case, a plural's s dropped ("heads" finds "head"). */
  function stem(word) {
    var w = word.toLowerCase();
    if (w.length > 4 && /ies$/.test(w)) return w.slice(0, -3) + "y";
    if (w.length > 3 && /[^s]s$/.test(w)) return w.slice(0, -1);
    return w;
  }

  /* The words of a text, lower case; a root sign and "square root (of)" are both "sqrt", so a
     question typed in words finds a formula read from the page. */
  function words(text) {
    var plain = String(text).toLowerCase().replace(/\u221a/g, " sqrt ").replace(/square roots?(?: of)?/g, "sqrt");
    return plain.match(/[\p{L}\p{N}_]+(?:[+'][\p{L}\p{N}_]+)*/gu) || [];
  }

  /* The content terms of a text: words without stop words, stemmed, each once. */
  function terms(text) {
    var seen = {};
    var out = [];
    words(String(text).replace(/\s*\+\s*/g, "+")).forEach(function (word) {
      word.split(/[+']/).concat(word.indexOf("+") > 0 ? [word] : []).forEach(function (part) {
        var t = stem(part);
        if (t && !STOPWORDS[part] && !STOPWORDS[t] && !seen[t]) {
          seen[t] = true;
          out.push(t);
        }
      });
    });
    return out;
  }

  function processTerm(term) {
    var t = stem(term);
    return STOPWORDS[term.toLowerCase()] || STOPWORDS[t] ? null : t;
  }

  /* ------------------------------------------------------------------ the index */

  function Mentor(data, MiniSearch) {
    this.data = data;
    this.MiniSearch = MiniSearch;
    this.index = new MiniSearch({
      fields: ["text", "section", "label"],
      storeFields: ["text", "section", "label", "anchor", "page", "parts", "source"],
      processTerm: processTerm,
      tokenize: function (text) { return words(text); },
      searchOptions: { boost: { section: 1.5, label: 1.2 }, prefix: function (t) { return t.length > 3; },
        fuzzy: function (t) { return t.length > 5 ? 0.2 : false; }, combineWith: "OR" }
    });
    this.index.addAll(data.passages);
    this.checks = data.passages.filter(function (p) { return p.parts && p.parts.question; });
  }

  /* The passages that answer the question, best first, with the terms each matched. Extra
     passages (the reader's files) join the search for this question only. */
  Mentor.prototype.search = function (question, extra) {
    var added = (extra || []).filter(function (p) { return p && p.text; });
    if (added.length) this.index.addAll(added);
    try {
      return this.index.search(question);
    } finally {
      if (added.length) this.index.removeAll(added);
    }
  };

  /* The self-check a question is close to: most of the question's content terms are in the
     self-check's own question (not only in its answer or explanation). */
  Mentor.prototype.closestCheck = function (question) {
    var asked = terms(question);
    if (asked.length < 2) return null;
    var best = null;
    this.checks.forEach(function (check) {
      var own = {};
      terms(check.parts.question).forEach(function (t) { own[t] = true; });
      var shared = asked.filter(function (t) { return own[t]; }).length;
      var score = shared / asked.length;
      if (score >= 0.6 && (!best || score > best.score)) best = { check: check, score: score };
    });
    return best;
  };

  /* ------------------------------------------------------------------ numbers */

  function leaves(node, path, out) {
    if (typeof node === "number") {
      out.push({ path: path, value: node });
    } else if (Array.isArray(node)) {
      node.forEach(function (value, i) { leaves(value, path.concat(String(i)), out); });
    } else if (node && typeof node === "object") {
      Object.keys(node).forEach(function (key) { leaves(node[key], path.concat(key), out); });
    }
    return out;
  }

  /* How a path segment can be named in a question: its words ("mean_row_max" -> mean, row,
     max), or the segment itself ("kjv", "norm+init+scale", "100"). */
  function segmentTerms(segment) {
    return String(segment).toLowerCase().split(/[_\-\s]+/).filter(Boolean).map(stem);
  }

  function named(segment, asked) {
    var whole = String(segment).toLowerCase();
    if (asked.whole[whole] || asked.whole[stem(whole)]) return true;
    if (whole.indexOf("+") > 0) return false; // a guard set is named whole ("norm+init+scale")
    var parts = segmentTerms(segment); // our own names: "mean" in mean_row_max is not a stop word
    return parts.length > 0 && parts.every(function (t) { return asked.terms[t]; });
  }

  /* The baked numbers a question names: its last segment (the measure) must be named in full,
     and the more of its other segments the question names, the better. An unnamed setting
     takes the tree's first value (seed 0, the first corpus), which the answer states. */
  Mentor.prototype.numbers = function (question) {
    var text = String(question).toLowerCase().replace(/\s*\+\s*/g, "+").replace(/\b([a-z_]+)\s*=\s*(\d)/g, "$1 $2");
    var asked = { terms: {}, whole: {} };
    words(text).forEach(function (w) {
      asked.whole[w] = true; // a guard set names itself only: "norm+init+scale" does not name "norm"
      if (w.indexOf("+") < 0) asked.terms[stem(w)] = true;
    });
    if (!this.facts) this.facts = leaves(this.data.facts || {}, [], []);
    var best = [];
    var top = 0;
    this.facts.forEach(function (fact, order) {
      var last = fact.path[fact.path.length - 1];
      if (/^\d+$/.test(last) || !named(last, asked)) return;
      if (fact.path.indexOf(String(fact.value)) >= 0) return; // an axis repeated as a value (d = 100)
      var score = 0;
      for (var i = 0; i < fact.path.length - 1; i++) if (named(fact.path[i], asked)) score += 1;
      if (score === 0) return;
      if (score > top) { top = score; best = []; }
      if (score === top && best.length < 3) best.push({ path: fact.path, value: fact.value, order: order });
    });
    var panels = this.data.panels || {};
    return best.map(function (fact) {
      return { path: fact.path.join("/"), value: fact.value, panel: panels[fact.path[0]] || null };
    });
  };

  /* ------------------------------------------------------------------ the answer */

  function matchedTerms(result) {
    return Object.keys(result.match || {}).sort();
  }

  /* The matched terms as the reader wrote them ("heads", not the index's "head"); a term that
     matched only by prefix or fuzzily keeps the index's spelling. */
  function asWritten(terms, question) {
    var spelled = {};
    words(question).forEach(function (word) {
      word.split(/[+']/).forEach(function (part) {
        if (!spelled[stem(part)]) spelled[stem(part)] = part;
      });
    });
    return terms.map(function (term) { return spelled[term] || term; });
  }

  Mentor.prototype.answer = function (question, extra) {
    var asked = terms(question);
    var results = asked.length ? this.search(question, extra) : [];
    // A passage counts when it matches at least half of the question's content terms (at least
    // one): one shared common word is not an answer.
    var needed = Math.max(1, Math.ceil(asked.length / 2));
    var relevant = results.filter(function (r) { return matchedTerms(r).length >= needed; });
    var close = this.closestCheck(question);
    var numbers = this.numbers(question);
    var titles = this.data.pages || {};
    var passages = relevant.slice(0, MAX_PASSAGES).map(function (r) {
      return { text: r.text, section: r.section, label: r.label, anchor: r.anchor, page: r.page,
        pageTitle: titles[r.page] || "",
        source: r.source || null, terms: asWritten(matchedTerms(r), question), score: r.score, parts: r.parts || null };
    });
    if (close) { // the self-check first, and not again among the passages
      passages = passages.filter(function (p) { return p.anchor !== close.check.anchor || p.page !== close.check.page; });
    }
    return {
      question: String(question),
      terms: asked,
      numbers: numbers,
      check: close ? { question: close.check.parts.question, answer: close.check.parts.answer || "",
        explanation: close.check.parts.explanation || "", anchor: close.check.anchor, page: close.check.page,
        section: close.check.section } : null,
      passages: passages,
      found: Boolean(close || numbers.length || passages.length),
      outline: this.data.outline || []
    };
  };

  /* A reader's file as passages: each page's paragraphs, joined up to about 600 characters.
     ``pages`` is the file's text page by page (a text file is one page). */
  function filePassages(name, pages) {
    var out = [];
    pages.forEach(function (text, i) {
      var chunks = [];
      var chunk = "";
      String(text).split(/\n\s*\n/).forEach(function (paragraph) {
        paragraph = paragraph.replace(/\s+/g, " ").trim();
        if (!paragraph) return;
        if (chunk && chunk.length + paragraph.length > 600) {
          chunks.push(chunk);
          chunk = "";
        }
        chunk = chunk ? chunk + " " + paragraph : paragraph;
        while (chunk.length > 900) {
          chunks.push(chunk.slice(0, 600));
          chunk = chunk.slice(600);
        }
      });
      if (chunk) chunks.push(chunk);
      chunks.forEach(function (text) {
        out.push({ id: "file:" + name + ":" + out.length, text: text, section: name,
          label: "Your file, page " + (i + 1), anchor: "", page: "", source: { file: name, page: i + 1 } });
      });
    });
    return out;
  }

  /* What the optional local model is given: the sources of one answer and the question, and
     nothing else. Short on purpose: a small model in WebAssembly reads a few hundred tokens a
     second at best, and more text gives it more to get wrong. */
  var SYSTEM = "You answer a reader's question about a lesson on attention in Transformers. Use only the " +
    "numbered sources. If they do not answer the question, say that you do not know. Answer in at most three sentences.";

  function clip(text, size) {
    text = String(text).replace(/\s+/g, " ").trim();
    return text.length > size ? text.slice(0, size).replace(/\s+\S*$/, "") + " …" : text;
  }

  function prompt(answer) {
    var sources = [];
    answer.numbers.forEach(function (fact) { sources.push("The baked value of " + fact.path + " is " + fact.value + "."); });
    if (answer.check) {
      sources.push(clip(answer.check.question + " " + answer.check.answer + " " + answer.check.explanation, 500));
    }
    answer.passages.slice(0, answer.check ? 1 : 2).forEach(function (p) { sources.push(clip(p.text, 450)); });
    var user = "Sources:\n" + sources.map(function (text, i) { return "[" + (i + 1) + "] " + text; }).join("\n") +
      "\n\nQuestion: " + clip(answer.question, 300);
    return [{ role: "system", content: SYSTEM }, { role: "user", content: user }];
  }

  return { Mentor: Mentor, terms: terms, filePassages: filePassages, stem: stem, prompt: prompt };
});
