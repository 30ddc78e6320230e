/* The mentor's sentence encoder in the reader's browser: the question's vector, from the same int8
 * all-MiniLM-L6-v2 the build embedded the module's passages with (build_tools/mentor_model.py;
 * the build's side is scalecore_generator/mentor/encoder.py's word_pieces and Encoder). onnxruntime-web's
 * wasm backend runs it, one thread, served by the site (assets/scalecore/models/mentor-encoder/),
 * fetched only when the reader reaches the question box; mentor.js falls back to the static
 * word-piece table (mentor-embeddings.js) where it cannot load. The model and the wasm are
 * published gzip-compressed only (model.onnx.gz 18.3 MB, the wasm's 3.7 MB: 22 MB sent by a host
 * that compresses nothing, was 38): decoded here, and onnxruntime is given their bytes.
 *
 * A classic script (globalThis.scalecoreMentorEncoder) and a CommonJS module (Node: the mentor
 * benchmark and tests/test_mentor_encoder.py run it as the page does).
 */
(function (root, factory) {
  var api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.scalecoreMentorEncoder = api;
})(typeof globalThis !== "undefined" ? globalThis : this, function () {
  "use strict";

  var CJK = [[0x4E00, 0x9FFF], [0x3400, 0x4DBF], [0x20000, 0x2A6DF], [0x2A700, 0x2B73F], [0x2B740, 0x2B81F],
    [0x2B820, 0x2CEAF], [0xF900, 0xFAFF], [0x2F800, 0x2FA1F]];

  function isPunctuation(ch, cp) {
    return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126) ||
      /\p{P}/u.test(ch);
  }

  /* BERT's uncased tokenizer, as the model's tokenizer.json sets it, and as word_pieces in
     scalecore_generator/mentor/encoder.py does it: clean text, CJK characters apart, accents stripped, lower
     case; split at white space and punctuation; WordPiece, longest match first (a word over 100
     characters is unknown); "[CLS] ... [SEP]", at most maxTokens ids. */
  function wordPieces(text, ids, maxTokens) {
    var chars = [];
    for (var ch of String(text)) {
      var cp = ch.codePointAt(0);
      if (cp === 0 || cp === 0xFFFD) continue;
      if (ch === "\t" || ch === "\n" || ch === "\r" || /\p{Zs}/u.test(ch)) chars.push(" ");
      else if (/\p{C}/u.test(ch)) continue;
      else if (CJK.some(function (r) { return cp >= r[0] && cp <= r[1]; })) chars.push(" " + ch + " ");
      else chars.push(ch);
    }
    var clean = chars.join("").normalize("NFD").replace(/\p{Mn}/gu, "").toLowerCase();
    var words = [];
    clean.split(/\s+/).forEach(function (chunk) {
      var word = "";
      for (var c of chunk) {
        if (isPunctuation(c, c.codePointAt(0))) {
          if (word) words.push(word);
          words.push(c);
          word = "";
        } else word += c;
      }
      if (word) words.push(word);
    });
    var unknown = ids.get("[UNK]");
    var out = [];
    words.forEach(function (word) {
      var points = Array.from(word);
      if (points.length > 100) { out.push(unknown); return; }
      var found = [];
      for (var start = 0; start < points.length;) {
        var end = points.length, id;
        for (; end > start; end--) {
          id = ids.get((start ? "##" : "") + points.slice(start, end).join(""));
          if (id !== undefined) break;
        }
        if (end === start) { found = [unknown]; break; }
        found.push(id);
        start = end;
      }
      out.push.apply(out, found);
    });
    return [ids.get("[CLS]")].concat(out.slice(0, (maxTokens || 256) - 2), [ids.get("[SEP]")]);
  }

  function vocabulary(text) {
    var ids = new Map();
    String(text).split("\n").forEach(function (piece, i) { if (piece && !ids.has(piece)) ids.set(piece, i); });
    return ids;
  }

  /* ort: onnxruntime-web's namespace (the classic script's globalThis.ort, or require() in Node);
     model: the .onnx file's bytes; vocab: vocab.txt's text. Resolves to an Encoder. */
  function Encoder(ort, session, ids, maxTokens) {
    this.ort = ort;
    this.session = session;
    this.ids = ids;
    this.maxTokens = maxTokens || 256;
    this.queue = Promise.resolve(); // one run at a time: a session is not re-entrant
  }

  Encoder.create = function (ort, model, vocab, options) {
    options = options || {};
    ort.env.wasm.numThreads = 1; // no worker, no cross-origin isolation needed; the build's onnxruntime runs one thread too
    if (options.paths) ort.env.wasm.wasmPaths = options.paths; // {mjs, wasm}: the site's own copies
    if (options.wasmBinary) ort.env.wasm.wasmBinary = options.wasmBinary; // the wasm's bytes: onnxruntime fetches none
    return ort.InferenceSession.create(model, { executionProviders: ["wasm"], graphOptimizationLevel: "all" })
      .then(function (session) {
        var encoder = new Encoder(ort, session, vocabulary(vocab), options.maxTokens);
        // One run before the first question: onnxruntime's first run prepares its kernels (at 4x CPU
        // throttling 150 ms that the first answer would otherwise wait for).
        return encoder.embed("ready").then(function () { return encoder; });
      });
  };

  /* In the page: onnxruntime-web's script, then the model and its vocabulary, from the site
     (info: the module data's "encoder", site paths; url(sitePath): the page's address of one;
     loadScript(src): a promise). Rejects where any of it cannot load (a page opened from disk
     cannot fetch): the mentor then uses the static table. */
  Encoder.load = function (info, url, loadScript) {
    if (location.protocol === "file:") return Promise.reject(new Error("a page opened from disk cannot fetch the model"));
    var at = function (sitePath) { return new URL(url(sitePath), document.baseURI).href; };
    var get = function (sitePath, how) {
      return fetch(at(sitePath)).then(function (response) {
        if (!response.ok) throw new Error("could not load " + sitePath + " (" + response.status + ")");
        return response[how]();
      });
    };
    var bytes = function (sitePath) {
      return get(sitePath, "arrayBuffer").then(function (buffer) { return /\.gz$/.test(sitePath) ? gunzip(buffer) : buffer; });
    };
    // the passages' vectors too, where the build wrote them beside the module's script (the encoder's alone use them)
    return Promise.all([loadScript(url(info.runtime)), bytes(info.model), get(info.vocab, "text"), bytes(info.wasm),
      info.vectors ? get(info.vectors, "arrayBuffer") : null])
      .then(function (got) {
        if (typeof ort === "undefined") throw new Error("onnxruntime-web did not load");
        return Encoder.create(ort, new Uint8Array(got[1]), got[2], { paths: { mjs: at(info.module) },
          wasmBinary: new Uint8Array(got[3]), maxTokens: info.max_tokens }).then(function (encoder) {
          encoder.vectors = got[4];
          return encoder;
        });
      });
  };

  /* A published .gz file's bytes, decoded (DecompressionStream): the rule of the full stack's
     parts (assets/worker-fullstack.js). A host that decoded it itself (Content-Encoding: gzip)
     handed over the raw bytes, which do not begin with gzip's 1f 8b: taken as they are. */
  function gunzip(buffer) {
    var head = new Uint8Array(buffer, 0, Math.min(2, buffer.byteLength));
    if (head[0] !== 0x1f || head[1] !== 0x8b) return Promise.resolve(buffer);
    if (typeof DecompressionStream !== "function") return Promise.reject(new Error("this browser has no DecompressionStream"));
    return new Response(new Blob([buffer]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
  }

  Encoder.prototype.pieces = function (text) { return wordPieces(text, this.ids, this.maxTokens); };

  /* The unit vector of a text (Float32Array of 384). */
  Encoder.prototype.embed = function (text) {
    var self = this;
    var ids = this.pieces(text);
    var run = this.queue.then(function () {
      var input = new self.ort.Tensor("int64", BigInt64Array.from(ids.map(function (i) { return BigInt(i); })), [1, ids.length]);
      return self.session.run({ input_ids: input });
    }).then(function (out) { return Float32Array.from(out.embedding.data); });
    this.queue = run.catch(function () {});
    return run;
  };

  return { Encoder: Encoder, wordPieces: wordPieces, vocabulary: vocabulary, gunzip: gunzip };
});
