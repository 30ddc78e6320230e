/* The mentor's words: how a question and a passage are cut into the terms the index keeps (stop
 * words out, a few English endings off), what a question asks for (its language, its kind, the two
 * sides of a difference), and the mentor's settings object S, which every part of the mentor reads
 * (mentor-core.js fills it; benchmarks/mentor.py measures others through tests/mentor/answer.js).
 * Loaded before mentor-meaning.js, mentor-numbers.js and mentor-core.js; the same file in the page
 * and in Node. */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.scalecoreMentorWords = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";
  var STOP = ("a about after again all also am an and any are as at be because been before being between both but " +
    "by can could did do does doing done each few for from further had has have having he her here hers him his how i " +
    "if in into is it its itself just me more most my no nor not now of off on once only or other our out over own " +
    "same she should so some such than that the their them then there these they this those through to too under " +
    "until up very was we were what when where which while who whom why will with would you your yours explain " +
    "tell please mean means meant happen happens happened does work works get gets value values number many much " +
    "measure measures measured near nearly almost really actually every " +
    "t s don doesn didn isn aren wasn weren won couldn wouldn shouldn hasn haven " +
    "whats thats hows whys come thing things stuff basically exactly anyway someone against instead simply " +
    "like im pls plz show shows shown showing dont doesnt didnt isnt arent cant wont wouldnt shouldnt couldnt ive youre supposed").split(" ");
  /* The mentor's settings, in one object: benchmarks/mentor.py measures others through
     tests/mentor/answer.js (MENTOR_SETTINGS), and the page uses these. */
  var S = {};
  var STOPWORDS = {};
  STOP.forEach(function (word) { STOPWORDS[word] = true; });
  // The passages an answer shows. Round 9: 3 -> 4, key facts +11 of 532 development questions for 302 -> 410 words an
  // answer (with round 9's other settings; 5 passages: +3 more for 489 words, not taken).
  S.MAX_PASSAGES = 4;

  // Numbers written as words, from four: "one" is also a pronoun ("which one"), and "two" and "three" count
  // things a page names in words ("the three guards"), where a digit would match every "1, 2, 3" of its examples.
  var NUMBER_WORDS = { four: "4", five: "5", six: "6", seven: "7", eight: "8", nine: "9",
    ten: "10", eleven: "11", twelve: "12", twenty: "20", hundred: "100", thousand: "1000" };

  /* A word as the index keeps it: lower case, with the few English endings that split one idea
     across its forms taken off ("saturates", "saturated", "saturation" -> "saturat"; "heads" ->
     "head"). Written here rather than taken from a Porter stemmer package: these six rules are
     all the mentor needs, and they never touch identifiers such as d_k or W_Q. */
  function stem(word) {
    var w = word.toLowerCase().replace(/'s$/, "");
    if (w === "zero") return "0"; // "near zero" finds "approaches 0"
    if (NUMBER_WORDS[w]) return NUMBER_WORDS[w]; // "by ten" finds "by 10"
    if (/[_\d]/.test(w) || w.length <= 3) return w;
    if (/ie[sd]$/.test(w) && w.length > 4) w = w.slice(0, -3) + "y"; // "multiplied", "multiplies" -> "multiply"
    else if (/sses$/.test(w)) w = w.slice(0, -2);
    else if (/[^su]s$/.test(w)) w = w.slice(0, -1);
    var before = w;
    if (/ations?$/.test(w) && w.length > 7) w = w.replace(/ations?$/, "at");
    else if (/ions?$/.test(w) && w.length > 6) w = w.replace(/ions?$/, "");
    else if (/ing$/.test(w) && w.length > 5 && /[aeiouy]/.test(w.slice(0, -3))) w = w.slice(0, -3);
    else if (/ed$/.test(w) && w.length > 4 && /[aeiouy]/.test(w.slice(0, -2))) w = w.slice(0, -2);
    else if (/ly$/.test(w) && w.length > 5) w = w.slice(0, -2);
    if (w !== before && w.length >= 5 && /([bdfgklmnprt])\1$/.test(w)) w = w.slice(0, -1); // "scaled" -> "scal", "running" -> "run"
    if (/[^aeiou]e$/.test(w) && w.length > 4) w = w.slice(0, -1); // "saturate" -> "saturat"
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


  /* The plain text of a sentence (a list of texts and {m: formula}): what is searched and scored. */
  function plain(sentence, math) {
    return sentence.map(function (part) {
      return typeof part === "string" ? part : (math[part.m] ? math[part.m].text : "");
    }).join("").replace(/\s+/g, " ").trim();
  }

  function termSet(text) {
    var set = {};
    terms(text).forEach(function (t) { set[t] = true; });
    if (S.NEGATION && NEGATION.test(text)) set[ABSENT] = true;
    return set;
  }

  /* A condition stated as an absence ("no LayerNorm at all", "without the scale guard") is a term
     of its own, ABSENT, which the sentences that say what is missing ("without normalisation",
     "no guard", "never divided") hold: matched like any other term, weighed by how rare it is. */
  var ABSENT = "\u00acabsent";
  var NEGATION = /\b(no|not|without|never|none|absent|absence|lacks?|lacking|missing|removed?|unnormali[sz]ed|unscaled)\b|n't\b/i;
  var NEGATED = /\b(no|without|never|lacks?|lacking|missing|removes?|removed|drops?|dropped|skips?|skipped)\s+(?:the\s+|a\s+|any\s+)?[\p{L}\p{N}_]/iu;

  /* The page's furniture: words a reader names what they see by (the entropy "readout", the "coloured squares"). The
     module's text need not use them (a panel's readout is a definition list; a heatmap is a figure), and a question
     that names one asks about the lesson, not about some other thing: such a word is no topic the module lacks
     (mentor-core.js: rare, topic), and where the module never writes it, it is no term to search by. */
  var FURNITURE = {};
  ("readout readouts panel panels slider sliders toggle toggles button buttons chart charts graph graphs plot plots " +
    "figure figures picture pictures diagram diagrams heatmap heatmaps widget widgets dropdown checkbox checkboxes " +
    "square squares colour colours coloured color colors colored box boxes bar bars meter meters gauge " +
    "cell cells grid page lesson module").split(" ").forEach(function (w) { FURNITURE[w] = FURNITURE[stem(w)] = true; });

  function askedTerms(question, frequency) {
    var out = terms(question);
    var meant = frequency ? out.filter(function (t) { return !FURNITURE[t] || frequency[t]; }) : out;
    if (meant.length) out = meant; // "how do I read the heatmap?" keeps its one word
    if (S.NEGATION && NEGATED.test(question)) out.push(ABSENT);
    compounds(question, frequency).forEach(function (t) { if (out.indexOf(t) < 0) out.push(t); });
    return out;
  }

  /* A word of the module's that the reader wrote as two ("layer norm", "soft max", "row max"):
     two neighbouring words whose join is a word of the module ("in put" is input; the second
     word not a stop word, so "no thing" stays two). */
  function compounds(question, frequency) {
    if (!S.COMPOUND || !frequency) return [];
    var list = words(question);
    var out = [];
    for (var i = 0; i + 1 < list.length; i++) {
      var joined = stem(list[i] + list[i + 1]);
      if (frequency[joined] && !STOPWORDS[list[i + 1]] && !STOPWORDS[list[i] + list[i + 1]]) out.push(joined);
    }
    return out;
  }


  /* ------------------------------------------------------------------ the question */

  /* Words that mark a language: a question with more of another language's words than of
     English's is in that language. A word list and a script test, written here, rather than a
     language-identification library: such a library ships n-gram profiles of hundreds of
     languages (over 100 kB) and is unreliable on a one-line question, while the mentor only has
     to know whether a question is English, and to say so in the same words every time. */
  var LANGUAGES = {
    English: "the a an is are was what why how when which does do did of to in and not with for this that can would should there",
    French: "le la les un une des est sont pourquoi comment quoi que qui quel quelle dans avec pour sur du au aux ce cette il elle ne pas se fait faut",
    German: "der die das ein eine ist sind warum wie was wer welche und nicht mit für zu den dem des wird werden auf ich bei",
    Spanish: "el los las una es son por qué porque cómo cuál con para del se que en lo al muy también",
    Italian: "il lo gli una è sono perché come cosa che della delle nel con per non si questo questa",
    Portuguese: "o os uma é são por porque como que não com para do da dos das em se isso esta",
    Dutch: "de het een is zijn waarom hoe wat niet met voor van en op dat deze wordt"
  };
  var MARKERS = {};
  Object.keys(LANGUAGES).forEach(function (name) {
    LANGUAGES[name].split(" ").forEach(function (word) { (MARKERS[word] = MARKERS[word] || []).push(name); });
  });

  /* The question's language: null for English (or too little to tell), else its name. */
  function language(question, english) {
    var letters = String(question).match(/\p{L}/gu) || [];
    var latin = letters.filter(function (c) { return /\p{Script=Latin}/u.test(c); }).length;
    if (letters.length >= 2 && latin < letters.length / 2) return "a language other than English";
    var counts = {};
    (String(question).toLowerCase().match(/[\p{L}]+/gu) || []).forEach(function (word) {
      // a marker that is also a word of the module's English ("per word", "how come") marks nothing
      var markers = (MARKERS[word] || []).filter(function (name) { return name === "English" || !(english && english[word]); });
      markers.forEach(function (name) { counts[name] = (counts[name] || 0) + 1; });
    });
    var english = counts.English || 0;
    var best = null;
    Object.keys(counts).forEach(function (name) {
      if (name !== "English" && (!best || counts[name] > counts[best])) best = name;
    });
    return best && counts[best] >= 2 && counts[best] > english ? best : null;
  }

  /* What the question asks for, from its opening words. */
  function kind(question) {
    var q = String(question).toLowerCase().trim();
    if (/\b(difference|differences|differ|differs|different from|distinguish)\b|\bversus\b|\bvs\.?\s|\bcompared? (to|with)\b/.test(q)) return "difference";
    if (/^(why|how come)\b|\bwhy\b|\bwhat(?:'s| is) the (point|purpose|use|benefit|reason)\b|\b(benefit|purpose) of\b/.test(q)) return "why";
    if (/\bwhat (happens|would happen|will happen|changes|goes wrong|would go wrong|breaks|would change)\b|^what if\b|^(if|suppose|imagine|say)\b/.test(q)) return "what-if";
    if (/^(does|do|will|would|can|could|is|are)\b.*\b(if|when|once|after|without)\b/.test(q)) return "what-if";
    if (/^how (much|many|large|big|small|long|often|high|low|wide|far|close|strong|sharp|spread)\b/.test(q)) return "what";
    if (/^how\b/.test(q)) return "how";
    return "what";
  }

  /* The two things a difference question compares, as term lists (null when it names fewer). */
  function sides(question) {
    var q = String(question).replace(/[?.!]+\s*$/, "").replace(/:.*$/, "");
    var match = /between (.+?) and (.+)$/i.exec(q) ||
      /(?:^|\b)(?:how (?:does|do|is|are) |does |is |are )?(.+?) (?:differ from|different from|compared? (?:to|with)|versus|vs\.?) (.+)$/i.exec(q);
    if (!match) return null;
    var a = terms(match[1]), b = terms(match[2]);
    return a.length && b.length ? [a, b] : null;
  }

  return { settings: S, STOPWORDS: STOPWORDS, FURNITURE: FURNITURE, stem: stem, words: words, terms: terms, processTerm: processTerm, plain: plain, termSet: termSet, ABSENT: ABSENT, NEGATION: NEGATION, NEGATED: NEGATED, askedTerms: askedTerms, compounds: compounds, language: language, kind: kind, sides: sides };
});
