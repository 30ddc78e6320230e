/* The mentor's numbers: the baked values a question names (a measure and its setting, read from the
 * kinds' quote trees, the paths {{ baked: }} quotes), each as the page prints it, with the link to
 * its panel in the state it was baked in. numbers() and printed() are the Mentor's methods
 * (mentor-core.js). Loaded after mentor-words.js; the same file in the page and in Node. */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory(require("./mentor-words.js"));
  else root.scalecoreMentorNumbers = factory(root.scalecoreMentorWords);
})(typeof self !== "undefined" ? self : this, function (W) {
  "use strict";
  var words = W.words, terms = W.terms, stem = W.stem, STOPWORDS = W.STOPWORDS, S = W.settings;

  function leaves(node, path, out, rows) {
    rows = rows || {};
    if (typeof node === "number") {
      out.push({ path: path, value: node, rows: rows });
    } else if (Array.isArray(node)) {
      // rows of records that number themselves (layers: [{layer: 1, ...}, ...]): a reader names the row
      // at index 2 "layer 3", as the page does ("After layer 3"), never by its index
      var word = String(path[path.length - 1] || "").replace(/s$/, "");
      node.forEach(function (value, i) {
        var record = value && typeof value === "object" && !Array.isArray(value);
        var own = record && typeof value[word] === "number" ? value[word] : null;
        var named = rows;
        if (record) {
          named = {};
          Object.keys(rows).forEach(function (k) { named[k] = rows[k]; });
          // a row without a number of its own by the list's last word and its place from 1, as the panels label them
          // ("per_head/2": head 3)
          named[path.length] = own !== null ? { word: word, number: own, own: true } :
            { word: word.split("_").pop(), number: i + 1, own: false };
        }
        leaves(value, path.concat(String(i)), out, named);
      });
    } else if (node && typeof node === "object") {
      Object.keys(node).forEach(function (key) { leaves(node[key], path.concat(key), out, rows); });
    }
    return out;
  }

  // ("size" as in "what size", "the size of": not a measure's own name, "the gradient size")
  var COUNTING = /\bhow many\b|\bnumber of\b|\bcount(?:s|ed)?\b|\bhow (?:big|large|long)\b|\bwhat size\b|\bsize of\b|\btotal\b/;
  function countedAs(name, text) {
    var word = name.replace(/_/g, "[_ ]").replace(/s$/, "");
    return new RegExp("\\b(?:how many|number of|count of)\\s+(?:[\\w-]+\\s+){0,2}" + word + "s?\\b|\\b" + word + "s?\\s+count").test(text);
  }
  var ORDINALS = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth"];
  var CARDINALS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
  /* The rows a question names by their word ("layer 3", "the third layer", "3rd layer", "layer #3"): {word: [numbers]},
     and the question's text with those references taken out (their number names no other setting: "layer 2" is no
     seed 2). */
  function rowReferences(text, rowWords) {
    var out = {};
    Object.keys(rowWords).forEach(function (word) {
      var w = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      var add = function (n) { (out[word] = out[word] || []).push(n); return " " + word + " "; };
      var plural = rowWords[word] ? "s?" : ""; // "layers 3" (rows of their own number); "heads 4" is 4 heads, not head 4
      text = text.replace(new RegExp("\\b" + w + plural + "(?:'s)?\\s*(?:#|no\\.?\\s*|number\\s+)?(\\d+)\\b", "g"), function (_, n) { return add(Number(n)); })
        .replace(new RegExp("\\b(\\d+)(?:st|nd|rd|th)\\s+" + w + "\\b", "g"), function (_, n) { return add(Number(n)); })
        .replace(new RegExp("\\b(" + ORDINALS.join("|") + ")\\s+" + w + "\\b", "g"), function (_, o) { return add(ORDINALS.indexOf(o)); })
        // "after six layers", "after 6 layers": the last of them
        .replace(new RegExp("\\b(after|through|past)\\s+(\\d+|" + CARDINALS.join("|") + ")\\s+" + w + "s\\b", "g"), function (_, a, n) {
          return rowWords[word] ? a + add(/^\d+$/.test(n) ? Number(n) : CARDINALS.indexOf(n)) : _;
        });
    });
    return { rows: out, text: text };
  }

  /* How a path segment can be named in a question: its words ("mean_row_max" -> mean, row,
     max), or the segment itself ("kjv", "norm+init+scale", "100"). */
  function segmentTerms(segment) {
    return String(segment).toLowerCase().split(/[_\-\s]+/).filter(Boolean).map(stem);
  }

  function named(segment, asked) {
    var whole = String(segment).toLowerCase();
    // a guard set the question names is that set only ("init and scale" is init+scale, not init)
    if (asked.guards && (whole === "none" || isGuardSet(whole))) {
      return whole === asked.guards;
    }
    if (asked.whole[whole] || asked.whole[stem(whole)]) return true;
    if (whole.indexOf("+") > 0) return false; // a guard set is named whole ("norm+init+scale")
    var parts = segmentTerms(segment); // our own names: "mean" in mean_row_max is not a stop word
    return parts.length > 0 && parts.every(function (t) { return asked.terms[t]; });
  }

  /* A mean named as the page names it in its tables, without the word mean ("row-max" for mean_row_max, "entropy" for
     mean_entropy): the rest of its words. */
  function meanOf(segment, asked) {
    var parts = segmentTerms(segment);
    return parts[0] === "mean" && parts.length > 1 && parts.slice(1).every(function (t) { return asked.terms[t]; });
  }

  /* A spread (the site's measure of a size: a standard deviation) named by the rest of its words when the question asks
     how big something is in a row it names, a cell of a table ("how large is the stream after layer 3": stream_spread). */
  function sizeOf(segment, asked) {
    var parts = segmentTerms(segment);
    return asked.size && parts.length > 1 && parts[parts.length - 1] === "spread" &&
      parts.slice(0, -1).every(function (t) { return asked.terms[t]; });
  }

  /* A measure named by its column in the panel's table, as the reader sees it ("Attention adds" for
     attention_update_spread: the build's data.labels, read from the tables the page shows), two words or more. */
  function labelled(labels, segment, asked) {
    return !labels || !labels[segment] ? 0 : labels[segment].reduce(function (most, label) {
      var parts = segmentTerms(String(label).replace(/[^\p{L}\p{N}]+/gu, " "));
      return parts.length > 1 && parts.every(function (t) { return asked.terms[t]; }) ? Math.max(most, parts.length) : most;
    }, 0); // the words of the longest label the question names (0: none)
  }

  /* An axis's setting "none" named by what the question says is absent: a word holding the axis's name ("without
     LayerNorm", "no normalisation" for the axis norm). */
  function absentAxis(axis, asked) {
    if (!axis || axis.length < 4) return false;
    return Object.keys(asked.absent).some(function (w) { return w.indexOf(axis) >= 0; });
  }

  /* A guard set as a reader names it: "with init and scale", "norm, init and scale on", "scale only",
     "all three guards", "no guards" (the names of Scalecore's guard sets: the active guards in the order
     norm, init, scale joined by "+", or "none"). A guard after "no", "not" or "without" is off. */
  var GUARDS = ["norm", "init", "scale"];
  function isGuardSet(name) { return name.split("+").every(function (g) { return GUARDS.indexOf(g) >= 0; }); }
  var ALL_GUARDS = "(?:all|every|each)(?: of)?(?: the)?(?: three| 3)? guards?";
  var ALL_OFF = new RegExp("\\b" + ALL_GUARDS + " (?:(?:is|are|being) )?(?:(?:switched|turned|set|left|toggled) )?" +
    "(?:off|disabled|unchecked)\\b|\\b(?:switch|turn|disable|untick|uncheck)(?:ed|ing|s)?(?: off)? " + ALL_GUARDS + "\\b");
  function guardSet(text) {
    if (ALL_OFF.test(text)) return ["none"]; // "every guard switched off" names no guard on
    if (/\b(?:all (?:three |the |3 )?guards|every guard|each guard|all three)\b/.test(text)) return [GUARDS.join("+")];
    if (/\b(?:no|without(?: any)?(?: the)?) guards?\b|\bguards? (?:all )?off\b/.test(text)) return ["none"];
    var on = {};
    var switchedOff = {};
    var list = words(text);
    list.forEach(function (w, i) {
      if (GUARDS.indexOf(w) < 0) return;
      var before = list.slice(Math.max(0, i - 2), i).join(" ");
      // "turn off norm", "init off", "without norm", "no scale"
      if (/\b(off|disable|disabled|untick|uncheck|remove|no|not|without)\b/.test(before) || /^(off)$/.test(list[i + 1] || "")) {
        switchedOff[w] = true;
        return;
      }
      on[w] = true;
    });
    var set = GUARDS.filter(function (g) { return on[g]; });
    // a guard switched off, and none named on, leaves the others on: the reader turns it off among the panels' switches
    // ("8 heads on wordnet, and turn off norm" is init+scale; it was norm, the guard turned off, as "without norm" was)
    if (!set.length && Object.keys(switchedOff).length) set = GUARDS.filter(function (g) { return !switchedOff[g]; });
    return set.length ? [set.join("+")] : [];
  }

  /* The baked numbers a question names: its last segment (the measure) must be named in full,
     and the more of its other segments the question names, the better. An unnamed setting
     takes the tree's first value (seed 0, the first corpus), which the answer states. */
  function numbers(question) {
    var text = String(question).toLowerCase().replace(/\s*\+\s*/g, "+").replace(/\b([a-z_]+)\s*=\s*(\d)/g, "$1 $2");
    // "what does the gradient size mean?" asks what it signifies, not for an average over the seeds
    if (/\b(?:do|does|did)\b/.test(text)) text = text.replace(/\bmean(?=\s*(?:[?.!,;]|$|\s+(?:in|for|here|exactly|when|if|by)\b))/g, "signify");
    if (!this.facts) this.facts = leaves(this.data.facts || {}, [], []);
    // a number with a decimal point the reader read off a panel ("is 2.18 good or bad?") names no setting: its digits
    // were seed 2 and 18; one that is a setting's own value (a baked 0.5) still names it
    if (!this.axisValues) {
      var axisValues = this.axisValues = {};
      var axesOf = this.data.axes || {};
      this.facts.forEach(function (fact) {
        (axesOf[fact.path[0]] || []).forEach(function (name, i) { axisValues[fact.path[i + 1]] = true; });
      });
    }
    var settingValues = this.axisValues;
    text = text.replace(/\b\d+\.\d+\b/g, function (decimal) { return settingValues[decimal] ? decimal : " "; });
    if (!this.rowWords) {
      var rowWords = this.rowWords = {}; // {word: whether its plural names rows too ("layers 3"; not "heads 4", an axis)}
      var axisNames = {};
      Object.keys(this.data.axes || {}).forEach(function (kind) { this.data.axes[kind].forEach(function (n) { axisNames[n] = true; }); }, this);
      this.facts.forEach(function (fact) {
        Object.keys(fact.rows).forEach(function (k) {
          var word = fact.rows[k].word; // a row numbered by its place is never named in the plural ("heads 4": 4 heads)
          rowWords[word] = (rowWords[word] !== false) && fact.rows[k].own && !axisNames[word] && !axisNames[word + "s"];
        });
      });
    }
    var referred = rowReferences(text, this.rowWords);
    text = referred.text;
    // what the question says is absent: the words after "no", "without", "not" ("without LayerNorm": the axis norm's
    // setting "none"; "no layer norm")
    var absent = {};
    words(text).forEach(function (w, i, list) {
      if (/^(no|without|not)$/.test(w)) list.slice(i + 1, i + 3).forEach(function (v) { absent[v] = true; });
    });
    var asked = { terms: {}, whole: {}, rows: referred.rows, absent: absent,
      size: Object.keys(referred.rows).length > 0 && /\bhow (big|large|small|huge|wide)\b|\bsize\b/.test(text) };
    words(text).forEach(function (w) {
      asked.whole[w] = true; // a guard set names itself only: "norm+init+scale" does not name "norm"
      if (w.indexOf("+") < 0) asked.terms[stem(w)] = true;
      // a name written with underscores names each of its words too: "sqrt(d_k)" names the spread sqrt_d_k
      if (w.indexOf("_") > 0) w.split("_").forEach(function (part) { if (part) asked.terms[stem(part)] = true; });
    });
    // "mean" that is a measure's first word ("mean row-max", "mean entropy") names that measure, not the mean over
    // the seeds (wantsMean; "what is mean row-max?" was answered with the seeds' means)
    if (!this.meanNames) {
      var meanNames = {};
      this.facts.forEach(function (fact) {
        var last = fact.path[fact.path.length - 1];
        if (/^mean_[a-z_]+$/.test(last)) meanNames[last.slice(5).replace(/_/g, "[_ -]")] = true;
      });
      this.meanNames = Object.keys(meanNames).length ? new RegExp("\\bmean[_ -](?:" + Object.keys(meanNames).join("|") + ")\\b", "g") : null;
    }
    var wantsMean = /\b(mean|average|averaged|over (all )?seeds)\b/.test(this.meanNames ? text.replace(this.meanNames, " ") : text);
    var counting = COUNTING.test(text);
    // a setting given by its value under a root ("divide by the square root of 32": d_model is 32 here) names the
    // setting: the spread sqrt_d_model, not the sqrt_d_k of the scale guard (a fresh reader's)
    var self = this;
    (words(text).join(" ").match(/\bsqrt (\d+)\b/g) || []).forEach(function (found) {
      var value = Number(found.split(" ")[1]);
      self.facts.forEach(function (fact) {
        if (fact.path[0] === "settings" && fact.path.length === 2 && fact.value === value && /_/.test(fact.path[1])) {
          segmentTerms(fact.path[1]).forEach(function (t) { asked.terms[t] = true; });
        }
      });
    });
    // a guard set written as the site writes it ("init+scale", "none") is the one asked for; else the guards named
    var written = Object.keys(asked.whole).some(function (w) { return w === "none" || isGuardSet(w) && w.indexOf("+") > 0; });
    asked.guards = written ? null : guardSet(text)[0] || null;
    if (asked.guards) asked.whole[asked.guards] = true;
    // a corpus by a reader's word for it ("the bible", "the big corpus"), when the question names none by its name
    var names = (this.data.corpora || []).map(function (c) { return c.name; });
    // a corpus by the first words of its title ("king james" for kjv, the King James Version), which the module's own
    // text uses too, so that they are no alias of it (mentor-core.js, corpusAliases)
    (this.data.corpora || []).forEach(function (c) {
      var title = words(String(c.title || "").toLowerCase()).slice(0, 2);
      if (title.length === 2 && title.every(function (w) { return w.length > 2 && !STOPWORDS[w]; }) &&
        text.indexOf(title.join(" ")) >= 0) asked.whole[c.name] = true;
    });
    if (this.expand && !names.some(function (n) { return asked.whole[n]; })) {
      var corpora = this.expand(question);
      Object.keys(corpora).forEach(function (t) { if (typeof corpora[t] === "string") asked.whole[corpora[t]] = true; });
    }
    var axes = this.data.axes || {};
    var labels = this.data.labels || {};
    if (!this.countNames) { // the facts' names that count something ("heads", "tokens"): whole-number leaves
      var counts = this.countNames = {};
      this.facts.forEach(function (fact) {
        var last = fact.path[fact.path.length - 1];
        if (Number.isInteger(fact.value) && /^[a-z][a-z_]{2,}$/.test(last)) counts[last] = true;
      });
    }
    var bound = boundAxes(text, axes, this.countNames);
    var corpusNames = {};
    names.forEach(function (n) { corpusNames[n] = true; });
    var best = [];
    var top = 0;
    // whether the question names a measure, once per kind and measure (a module's facts are tens of thousands: a
    // layer's heads), before anything else of a fact is read
    var namedOnce = Object.create(null);
    var isNamed = function (segment) { // named(segment, asked), once per segment
      return segment in namedOnce ? namedOnce[segment] : (namedOnce[segment] = named(segment, asked));
    };
    var measures = Object.create(null);
    var measured = function (kind, last) {
      var key = kind + "\u0000" + last;
      if (!(key in measures)) {
        var column = labelled(labels[kind], last, asked);
        measures[key] = /^\d+$/.test(last) || !(named(last, asked) || column || meanOf(last, asked) || sizeOf(last, asked)) ? null :
          { column: column };
      }
      return measures[key];
    };
    this.facts.forEach(function (fact, order) {
      var last = fact.path[fact.path.length - 1];
      var measure = measured(fact.path[0], last);
      if (!measure) return;
      // a number the question gives an axis ("seed 1", "4 heads") is that axis's value, and no other axis's
      // ... nor looks as if it were: "2 heads" gives no seed 2, where the seed is not named
      if ((axes[fact.path[0]] || []).some(function (name, i) {
        var value = fact.path[i + 1];
        if (!/^\d+$/.test(value || "")) return false;
        return bound[name] !== undefined ? value !== bound[name] : Boolean(bound.by[value]) && bound.by[value] !== name;
      })) return;
      var column = measure.column;
      // a count (a whole number of things: a corpus's tokens) is asked for as one ("how many tokens", "the number of
      // tokens", "token count"), not by its word alone ("how much attention does a token give its top token" was
      // answered with demo's 90 tokens), nor where the question gives it ("the 10 token sentence")
      // (a count in a group the question names is that group's: "how many multiply-adds do the scores cost": cost/scores)
      var group = fact.path.length > 2 + (axes[fact.path[0]] || []).length ? fact.path[fact.path.length - 2] : null;
      var inGroup = group && !/^\d+$/.test(group) && !corpusNames[group] && isNamed(group);
      if (Number.isInteger(fact.value) && /s$/.test(last) && (!(countedAs(last, text) || inGroup) || bound.counted[last] !== undefined)) return;
      if (fact.rows[fact.path.length - 2] && fact.rows[fact.path.length - 2].word === last) return; // a row's own number
      // an axis repeated as a value (variance/100/d = 100, multihead/demo/0/8/init/heads = 8, .../seed = 0); not a
      // value that happens to equal a setting (a mean row-max of exactly 1 at seed 1)
      if (fact.path[fact.path.length - 2] === String(fact.value) || (axes[fact.path[0]] || []).indexOf(last) >= 0) return;
      if (bound.counted[last] === String(fact.value)) return; // a count the question states ("with 4 heads"), not asks
      var score = 0;
      var names = axes[fact.path[0]] || [];
      var unnamedRows = 0;
      for (var i = 0; i < fact.path.length - 1; i++) {
        var row = fact.rows[i];
        if (fact.rows[i + 1]) continue; // the rows' list ("layers") is named by naming its row
        if (row) { // a row by its own number; a number past the axes (a layer of encoder/kjv/all/none/3/...) as a row's
          if ((asked.rows[row.word] || []).indexOf(row.number) >= 0) score += 1;
          else unnamedRows += 1;
        } else if (i > names.length && /^\d+$/.test(fact.path[i]) && Object.keys(asked.rows).some(function (w) {
          return asked.rows[w].indexOf(Number(fact.path[i])) >= 0; })) {
          score += 1;
        } else if (i <= names.length && bound.by[fact.path[i]] && bound.by[fact.path[i]] !== names[i - 1]) {
          // a number the question gives another axis ("2 heads") names no seed 2
        } else if (((fact.path[i] !== "mean" || wantsMean) && isNamed(fact.path[i])) ||
          (fact.path[i] === "none" && absentAxis(names[i - 1], asked))) {
          score += 1;
        }
      }
      // a question that names no setting asks for a number only as a count or a total of a measure it names in full
      // ("the total number of multiply-adds for one layer": 47,360, the same in every state), given once
      if (score === 0 && !(counting && isNamed(last))) return;
      // a measure of a row the question does not name comes after the same measure of the whole ("mean row-max with 4
      // heads": the layer's summary, not head 1's)
      score -= 0.05 * unnamedRows;
      if (!isNamed(last) && !column) score -= 0.5; // a measure named in full goes first ("word row-max": word_row_max)
      // ... and of two named in full, the one of more words the question says ("score spread": score_spread, not scores)
      // (a column's label counts as its name: "attention adds" is attention_update_spread, not the stream_spread of
      // "the stream")
      else score += 0.1 * (Math.max(isNamed(last) ? segmentTerms(last).length : 0, column) - 1);
      if (score > top) { top = score; best = []; }
      if (score === top) best.push({ path: fact.path, value: fact.value, rows: fact.rows, order: order });
    });
    // A mean over seeds is given when the question asks for a mean or an average (wantsMean), else the seed's own.
    var own = best.filter(function (fact) { return fact.path.slice(1, -1).indexOf("mean") < 0; });
    if (!wantsMean && own.length) best = own; // a seed's own among all the best, not only among the first three
    // Of numbers the question names equally, those of the states the page's panels show first: a setting the question
    // leaves out is the one the reader sees ("mean row-max with 4 heads on demo": the guards every panel there shows,
    // norm+init+scale, not init, init+scale and none, first in the tree's order, none of which is on the page)
    var panels = this.data.panels || {};
    var shownBy = function (fact) {
      return (panels[fact.path[0]] || []).filter(function (panel) { return shows(panel, fact.path, axes[fact.path[0]]); }).length;
    };
    best = best.map(function (fact, i) { return { fact: fact, shown: shownBy(fact), i: i }; })
      .sort(function (a, b) { return b.shown - a.shown || a.i - b.i; }).map(function (e) { return e.fact; });
    // the same measure with the same value under other settings is one number: those settings do not change it (the
    // cost of the scores is 3,200 under every guard set, and was given three times)
    var given = {};
    best = best.filter(function (fact) {
      var same = fact.path[fact.path.length - 1] + " " + fact.value;
      if (given[same]) return false;
      given[same] = true;
      return true;
    }).slice(0, 3);
    return best.map(function (fact) {
      return { path: fact.path.join("/"), value: fact.value, text: self.printed(fact.value),
        label: described(fact, axes[fact.path[0]] || [], labels[fact.path[0]]),
        panel: panelFor(panels[fact.path[0]], fact.path, axes[fact.path[0]], fact.rows) };
    });
  };

  var OVER = { mean: "mean over the %s", lowest: "lowest over the %s", highest: "highest over the %s", all: "over every %" };
  /* What a baked value is, in the words of the page's panels, not its path: the measure as the
     panel's table names it, then each setting by its axis ("corpus kjv, seed 0, guards
     init+scale"; a seed's "mean" is "mean over the seeds"), then the rows it is in ("layer 3").
     "mean_row_max for scale-guards · kjv · 0 · init+scale · mean_row_max" told a reader nothing. */
  function described(fact, names, labels) {
    var path = fact.path;
    var last = path[path.length - 1];
    var label = labels && labels[last] && labels[last][0] ? String(labels[last][0]) : null;
    var measure = [last.replace(/_/g, " ")];
    var parts = [];
    names.forEach(function (name, i) {
      var value = path[i + 1];
      if (value !== undefined) parts.push(OVER[value] ? OVER[value].replace("%", name) : name + " " + value);
    });
    for (var i = names.length + 1; i < path.length - 1; i++) {
      if (/^\d+$/.test(path[i + 1] || "")) continue; // a list ("layers") is named by its row
      var row = fact.rows[i];
      // a row by its own number ("layer 3"), else by the list's last word and its place, from 1 ("per_head/2": "head 3")
      if (row) parts.push(row.word + " " + row.number);
      else if (/^\d+$/.test(path[i])) parts.push(path[i - 1].split("_").pop().replace(/s$/, "") + " " + (Number(path[i]) + 1));
      // a group's name only where the measure's own is one word ("spread sqrt d k mean"; "mean row max", not "summary
      // mean row max": a fresh reader read "summary" as an internal name)
      else if (!label && segmentTerms(last).length === 1) measure.splice(measure.length - 1, 0, path[i].replace(/_/g, " "));
    }
    return (label || measure.join(" ")) + (parts.length ? ", " + parts.join(", ") : "");
  }

  /* The numbers a question gives an axis by its name, before or after it ("seed 1", "seed=1", "4 heads", "heads 4"):
     {axis: "number"}. Without it "4 heads ... seed 1" named heads 1 (its "1") as well as heads 4. A number given a
     count that is no axis (the encoder's fixed "4 heads") is no axis's either: bound.by names it, bound.counted
     {count: "number"}; "with 4 heads" on the encoder page was seed 4. */
  function boundAxes(text, axes, counts) {
    var bound = {};
    Object.keys(axes).forEach(function (kind) {
      axes[kind].forEach(function (name) {
        var word = String(name).replace(/s$/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        if (word.length < 3) return; // "d": too short to find as a word
        var found = new RegExp("\\b" + word + "s?\\s*(?:=|:|of)?\\s*(\\d+)\\b|\\b(\\d+)\\s+" + word + "s?\\b").exec(text);
        if (found) bound[name] = found[1] || found[2];
      });
    });
    Object.defineProperty(bound, "by", { value: {} }); // {number: the axis it was given}
    Object.defineProperty(bound, "counted", { value: {} });
    Object.keys(bound).forEach(function (name) { bound.by[bound[name]] = name; });
    Object.keys(counts || {}).forEach(function (name) {
      if (bound[name] !== undefined) return;
      var word = name.replace(/_/g, "[_ ]").replace(/s$/, "");
      var found = new RegExp("\\b" + word + "s?\\s*(?:=|:)?\\s*(\\d+)\\b|\\b(\\d+)\\s+" + word + "s?\\b").exec(text);
      if (!found || bound.by[found[1] || found[2]]) return;
      bound.counted[name] = found[1] || found[2];
      bound.by[bound.counted[name]] = name;
    });
    return bound;
  }

  /* A baked value as the page prints it: the number of the module's text that is this value to
     the digits it shows (0.9999 stays 0.9999, never 1.00), the most digits first, written as the page writes it
     (7,903,577); else as the panels' read-outs print a measure (views.js, measure): three significant digits with
     their zeros (0.182, 1.00), a size of 100 or more whole, from 1,000 in groups of three digits as the tables print it
     (27,534), one under 0.001 as 1.34 × 10⁻⁵. (Four digits, trailing zeros off, read "0.2361" beside the panel's
     "0.236": a fresh reader's finding.) */
  function printed(value) {
    if (!this.printedNumbers) {
      var seen = {};
      this.data.passages.forEach(function (p) {
        (p.plain || [p.text]).join(" ").replace(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d+/g, function (s) {
          var bare = s.replace(/,/g, "");
          if (!seen[bare] || s.length > seen[bare].length) seen[bare] = s; // as written: "7,903,577" is 7903577
          return s;
        });
      });
      this.printedAs = seen;
      this.printedNumbers = Object.keys(seen).sort(function (a, b) {
        return (b.split(".")[1] || "").length - (a.split(".")[1] || "").length;
      });
    }
    var found = this.printedNumbers.find(function (s) {
      var decimals = (s.split(".")[1] || "").length;
      // a whole number as printed (a spread of 27,533.8 printed 27,534: ",.0f")
      if (!decimals) return (Number.isInteger(value) || Math.abs(value) >= 100) && Number(s) === Math.round(value) && value >= 10;
      return decimals >= 2 && Number(s) === Number(value.toFixed(decimals));
    });
    if (found) return this.printedAs[found];
    var size = Math.abs(value);
    if (Number.isInteger(value) || size >= 100) return grouped(Math.round(value)); // 27,533.8: 27,534
    if (value !== 0 && size < 1e-3) {
      var parts = value.toExponential(2).split("e");
      return parts[0] + " \u00d7 10" + String(Number(parts[1])).split("").map(function (c) { return SUPERSCRIPT[c]; }).join("");
    }
    return value.toPrecision(3);
  }

  var SUPERSCRIPT = { "-": "\u207b", 0: "\u2070", 1: "\u00b9", 2: "\u00b2", 3: "\u00b3", 4: "\u2074", 5: "\u2075",
    6: "\u2076", 7: "\u2077", 8: "\u2078", 9: "\u2079" };

  /* A whole number in groups of three digits from 1,000 (Python's ",.0f", the panels' tables). */
  function grouped(n) {
    return Math.abs(n) < 1000 ? String(n) : String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  };

  /* The first of a kind's panels ([{link, offers: {axis: [values]}}], the module page's first)
     that can show the state a fact was baked in: one whose offers hold the fact's value on every
     axis they name (a panel whose guards are locked shows no other guard set). A mean over an
     axis (lowest, all...) is no state of a panel that does not offer it: the panel would show its
     default seed's number beside the answer's mean (0.395 for 0.377: a fresh reader's). None when
     no panel can show the state. */
  function panelFor(panels, path, names, rows) {
    var found = (panels || []).filter(function (panel) { return shows(panel, path, names); })[0];
    return found ? panelAt(found.link, path, names, rows) : null;
  }

  /* Whether a panel can show the state a fact was baked in (see panelFor). */
  function shows(panel, path, names) {
    var offers = panel.offers || {};
    return (names || []).every(function (name, i) {
      var value = path[i + 1];
      if (OVER[value]) return Boolean(offers[name] && offers[name].indexOf(value) >= 0);
      return !offers[name] || offers[name].indexOf(value) >= 0;
    });
  }

  /* The link to the panel of a fact, carrying the state the fact was baked in (the panels'
     address: ?<panel key>.<axis>=<value>, see panels.js); the panel takes what it offers and
     leaves the rest at its defaults. Without the panel base (no page), the bare link. */
  function panelAt(link, path, names, rows) {
    if (!link) return null;
    var base = globalThis.scalecore && globalThis.scalecore.util;
    var at = link.split("#");
    if (!names || !base || !base.stateKey || !at[1]) return link;
    var key = base.stateKey({ id: at[1] });
    var query = [];
    names.slice(0, path.length - 2).forEach(function (name, i) {
      if (OVER[path[i + 1]]) return; // a mean (lowest, all...) over the axis is no state of the panel: its default stays
      query.push(encodeURIComponent(key + "." + name) + "=" + encodeURIComponent(path[i + 1]).replace(/%2B/g, "+"));
    });
    // a row's number ("layer 3"): a panel that stacks its rows shows that many ("layers=3": a stack of 3 is the first
    // three layers of a deeper one) and reads that row closely ("layer=3"); a row numbered by its place ("head 3") only the
    // latter ("heads" is an axis); a panel without such controls ignores them
    Object.keys(rows || {}).forEach(function (at) {
      var row = rows[at];
      if (row.own) query.push(encodeURIComponent(key + "." + row.word + "s") + "=" + row.number);
      query.push(encodeURIComponent(key + "." + row.word) + "=" + row.number);
    });
    return at[0] + (query.length ? "?" + query.join("&") : "") + "#" + at[1];
  }

  return { numbers: numbers, printed: printed, panelAt: panelAt, panelFor: panelFor };
});
