/* The mentor's meaning: a text as a vector, from the static word-piece table (Embedder) or from
 * the sentence encoder's vectors made at build (Vectors), and how near two vectors are. Loaded
 * after mentor-words.js (the settings); the same file in the page and in Node. */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory(require("./mentor-words.js"));
  else root.scalecoreMentorMeaning = factory(root.scalecoreMentorWords);
})(typeof self !== "undefined" ? self : this, function (W) {
  "use strict";
  var S = W.settings;

  /* A question's meaning as a vector, from the static word-piece table distilled from
     all-MiniLM-L6-v2 (build_tools/mentor_embeddings.py, model2vec's method): the text is split
     the way the model's own tokenizer splits it (BERT's basic tokenizer, then WordPiece), and the
     pieces' vectors are averaged. The module's sentences are embedded the same way when the
     mentor loads, so "big corpus" finds kjv's sentences and "cost" finds "multiplications"
     without sharing a word. No network, no neural network at run time: a table lookup a piece. */
  function Embedder(table) {
    this.dims = table.dims;
    this.ids = new Map();
    var vocab = table.vocab.split("\n");
    for (var i = 0; i < vocab.length; i++) this.ids.set(vocab[i], i);
    this.unknown = this.ids.get(table.tokenizer.unknown);
    this.maxChars = table.tokenizer.max_chars;
    this.rows = bytes(table.vectors);
    var scales = bytes(table.scales);
    this.scales = new Float32Array(vocab.length);
    var view = new DataView(scales.buffer, scales.byteOffset, scales.byteLength);
    for (var j = 0; j < vocab.length; j++) this.scales[j] = half(view.getUint16(2 * j, true));
    this.cache = new Map();
  }

  function bytes(base64) {
    if (typeof Buffer !== "undefined" && typeof atob === "undefined") return new Uint8Array(Buffer.from(base64, "base64"));
    var binary = atob(base64);
    var out = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  }

  function half(h) { // IEEE 754 binary16 -> number
    var sign = h & 0x8000 ? -1 : 1, exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff;
    if (exponent === 0) return sign * Math.pow(2, -14) * (fraction / 1024);
    if (exponent === 31) return fraction ? NaN : sign * Infinity;
    return sign * Math.pow(2, exponent - 15) * (1 + fraction / 1024);
  }

  /* BERT's basic tokenizer (lower case, accents off, punctuation split off) and WordPiece's
     longest match first. */
  Embedder.prototype.pieces = function (text) {
    var self = this;
    var clean = String(text).toLowerCase().normalize("NFD").replace(/\p{Mn}/gu, "")
      .replace(/([\p{P}\p{S}]|[\u4e00-\u9fff])/gu, " $1 ");
    var out = [];
    clean.split(/\s+/).forEach(function (word) {
      if (!word) return;
      if (word.length > self.maxChars) { out.push(self.unknown); return; }
      var found = [];
      for (var start = 0; start < word.length;) {
        var end = word.length, id;
        for (; end > start; end--) {
          id = self.ids.get((start ? "##" : "") + word.slice(start, end));
          if (id !== undefined) break;
        }
        if (end === start) { found = [self.unknown]; break; }
        found.push(id);
        start = end;
      }
      out.push.apply(out, found);
    });
    return out;
  };

  /* SIF's weights (Arora, Liang and Ma 2017; model2vec weighs its table the same way): a piece
     counts a / (a + p), p its share of the pieces of the module's own text, so the pieces every
     sentence has ("the", "of", "attention" in a lesson on attention) weigh little. */
  Embedder.prototype.weigh = function (texts, a) {
    var counts = new Map();
    var total = 0;
    var self = this;
    texts.forEach(function (text) {
      self.pieces(text).forEach(function (id) { counts.set(id, (counts.get(id) || 0) + 1); total += 1; });
    });
    this.weights = new Map();
    counts.forEach(function (n, id) { self.weights.set(id, a / (a + n / total)); });
    this.cache = new Map();
  };

  /* The unit vector of a text (null when none of its pieces is known). */
  Embedder.prototype.embed = function (text) {
    var key = String(text);
    if (this.cache.has(key)) return this.cache.get(key);
    var d = this.dims;
    var sum = new Float32Array(d);
    var n = 0;
    var self = this;
    this.pieces(key).forEach(function (id) {
      if (id === self.unknown) return;
      var scale = self.scales[id] * (self.weights && self.weights.has(id) ? self.weights.get(id) : 1), at = id * d;
      for (var k = 0; k < d; k++) sum[k] += ((self.rows[at + k] << 24) >> 24) * scale; // int8
      n += 1;
    });
    var norm = 0;
    for (var k = 0; k < d; k++) norm += sum[k] * sum[k];
    var out = n && norm > 0 ? this.recentre(sum.map(function (v) { return v / Math.sqrt(norm); })) : null;
    this.cache.set(key, out);
    return out;
  };

  /* The sentence encoder's vectors (round 4): the module's passages were embedded at build by the
     int8 all-MiniLM-L6-v2 the browser runs on the question (mentor-encoder.js), and travel in the
     module's data (each passage's "vectors": the passage's own, each sentence's, a self-check's
     question; int8 rows, each with its float32 scale). Nothing is embedded here: a text the build
     did not embed has no vector (a reader's file is searched by its words), and the question's
     vector is given to answer(). */
  function Vectors(data) {
    this.dims = (data.encoder && data.encoder.dims) || 384;
    this.cache = new Map();
    this.model = true;
  }

  Vectors.prototype.embed = function (text) { return this.cache.get(String(text)) || null; };

  /* A passage's packed rows (base64 in the script, or its bytes from the vectors file): [Float32Array]
     (unit length). */
  Vectors.prototype.unpack = function (packed) {
    var raw = typeof packed === "string" ? bytes(packed) : packed;
    var d = this.dims, n = raw.length / (4 + d);
    var view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    var out = [];
    for (var i = 0; i < n; i++) {
      var scale = view.getFloat32(4 * i, true), at = 4 * n + i * d, v = new Float32Array(d), norm = 0;
      for (var k = 0; k < d; k++) { v[k] = ((raw[at + k] << 24) >> 24) * scale; norm += v[k] * v[k]; }
      norm = Math.sqrt(norm);
      for (var j = 0; j < d; j++) v[j] /= norm || 1;
      out.push(v);
    }
    return out;
  };

  /* The passages' vectors from the binary file the build wrote beside the module's script
     (data.encoder.vectors, fetched with the model): each passage's packed rows in turn, ``rows``
     of them (scalecore_generator/mentor/encoder.py's packed_rows). */
  Vectors.attach = function (data, buffer) {
    var d = (data.encoder && data.encoder.dims) || 384, raw = new Uint8Array(buffer), at = 0;
    data.passages.forEach(function (passage) {
      if (!passage.rows) return;
      passage.vectors = raw.subarray(at, at + passage.rows * (4 + d));
      at += passage.rows * (4 + d);
    });
    if (at !== raw.length) throw new Error("the passages' vectors do not match this module's data");
  };

  /* SIF's common component, removed: averaged word vectors share one direction (every sentence
     of a lesson on attention is "about" it), which makes every pair look alike. The mean of the
     module's sentences is taken off every vector, the question's included. */
  Embedder.prototype.centre = function (passages) {
    var d = this.dims;
    var mean = new Float32Array(d);
    var n = 0;
    passages.forEach(function (p) {
      (p.vectors || []).forEach(function (v) {
        if (!v) return;
        for (var k = 0; k < d; k++) mean[k] += v[k];
        n += 1;
      });
    });
    if (!n) return;
    for (var k = 0; k < d; k++) mean[k] /= n;
    this.mean = mean;
    this.cache = new Map();
    var self = this;
    passages.forEach(function (p) {
      p.vectors = (p.vectors || []).map(function (v) { return self.recentre(v); });
      p.vector = self.recentre(p.vector);
    });
  };

  Vectors.prototype.centre = function (passages) { if (S.MODEL_CENTRE) Embedder.prototype.centre.call(this, passages); };
  Vectors.prototype.recentre = function (v) { return Embedder.prototype.recentre.call(this, v); };

  Embedder.prototype.recentre = function (v) {
    if (!v || !this.mean) return v;
    var d = this.dims, norm = 0;
    var out = new Float32Array(d);
    for (var k = 0; k < d; k++) { out[k] = v[k] - this.mean[k]; norm += out[k] * out[k]; }
    if (!(norm > 0)) return null;
    for (var j = 0; j < d; j++) out[j] /= Math.sqrt(norm);
    return out;
  };

  /* How near a passage is to the question: its own vector's cosine, or (mix > 0) that mixed with
     its nearest sentence's (a passage of many sentences may hold the one the question asks). */
  function nearness(vector, passage, mix) {
    var own = cosine(vector, passage.vector);
    if (!mix || !passage.vectors || !passage.vectors.length) return own;
    var best = passage.vectors.reduce(function (m, v) { return v ? Math.max(m, cosine(vector, v)) : m; }, -1);
    return best < -0.5 ? own : (1 - mix) * own + mix * best;
  }

  function cosine(a, b) {
    if (!a || !b) return 0;
    var dot = 0;
    for (var k = 0; k < a.length; k++) dot += a[k] * b[k];
    return dot;
  }


  return { Embedder: Embedder, Vectors: Vectors, nearness: nearness, cosine: cosine };
});
