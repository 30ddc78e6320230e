/* "Ask the mentor about this module": the form, the answer, the reader's files and questions.
 *
 * Nothing here talks to a server. The answer comes from mentor-core.js over the module's data
 * (a classic script written at build, so it works from file:// too), loaded with MiniSearch the
 * first time the reader comes to the question box: until then the mentor costs this file only.
 * Every text that comes from the reader (a question, a file) or from the data is put in the page
 * with textContent, never as HTML. Formulas are MathML elements built one by one from the trees
 * the build typeset (only MathML element names, no attribute that runs or fetches anything): no
 * markup string is parsed here.
 *
 * Kept in this browser, for this module: the questions asked (with time and the sections they led
 * to: a learning signal, not a grade), and, only when the reader turns the switch on, copies of
 * the files attached (IndexedDB).
 */
(function () {
  "use strict";

  var LIMITS = { files: 5, textBytes: 2 * 1024 * 1024, pdfBytes: 20 * 1024 * 1024, pdfPages: 100,
    imageBytes: 10 * 1024 * 1024, questions: 200, questionLength: 2000 };
  var KEEP_KEY = "scalecore:mentor:keep";
  /* The last answer on each module, for this tab: the theme's instant navigation draws the page
     again (on the first click of a link into the page, and on Back), and the reader who followed
     a link of an answer comes back to the answer, not to an empty box. */
  var LAST = {};
  var DB_NAME = "scalecore-mentor";

  function questionsKey(code) { return "scalecore:mentor:questions:" + code; }
  /* The last question answered on a module in this tab (sessionStorage): a link of an answer that loads a page (a panel
     in the state of a number) leaves it, and Back loads this page anew where the browser keeps no copy of it; the
     answer is made again (answers are the same for the same question), not lost (a fresh reader's finding). */
  var lastKey = window.scalecoreModule.lastKey; // module.js, which loads this script, reads it on Back
  function inTab(work) {
    try { return work(window.sessionStorage); } catch (error) { return null; /* no storage */ }
  }

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      if (name === "text") node.textContent = attributes[name];
      else node.setAttribute(name, attributes[name]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  var MATHML_NS = "http://www.w3.org/1998/Math/MathML";
  var MATHML = ("math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mstyle mpadded mphantom " +
    "munder mover munderover mtable mtr mtd menclose merror mmultiscripts mprescripts none semantics annotation").split(" ");

  /* One typeset formula's tree ([name, {attributes}, child, ...]) as MathML elements. */
  function mathNode(tree) {
    if (typeof tree === "string") return document.createTextNode(tree);
    if (!Array.isArray(tree) || MATHML.indexOf(tree[0]) < 0) return document.createTextNode("");
    var node = document.createElementNS(MATHML_NS, tree[0]);
    var attributes = tree[1] || {};
    Object.keys(attributes).forEach(function (name) {
      if (!/^on/i.test(name) && !/href|src/i.test(name)) node.setAttribute(name, attributes[name]);
    });
    tree.slice(2).forEach(function (child) { node.appendChild(mathNode(child)); });
    return node;
  }

  /* A sentence (texts and {m: formula}) as nodes: texts as text, formulas as the page shows them
     (their plain text when the site was built without typeset math). */
  function sentenceNodes(sentence, math) {
    var out = document.createDocumentFragment();
    (sentence || []).forEach(function (part) {
      if (typeof part === "string") {
        out.appendChild(document.createTextNode(part));
        return;
      }
      var formula = (math || [])[part.m];
      if (!formula) return;
      if (formula.trees && formula.trees.length) formula.trees.forEach(function (tree) {
        // A displayed formula in a box of its own, which scrolls sideways when wider than the answer
        // (module.js says so), as a page's own do; the <math> keeps its role for screen readers.
        var display = Array.isArray(tree) && tree[0] === "math" && tree[1] && tree[1].display === "block";
        out.appendChild(display ? el("span", { class: "scalecore-mentor__formula" }, [mathNode(tree)]) : mathNode(tree));
      });
      else out.appendChild(document.createTextNode(formula.text));
    });
    return out;
  }

  /* Sentences joined by spaces; those ``marked`` ([first, last]: the lead, in its passage) in a <mark>. */
  function sentencesNode(tag, sentences, math, marked, attributes) {
    var node = el(tag, attributes || {});
    (sentences || []).forEach(function (sentence, i) {
      if (i) node.appendChild(document.createTextNode(" "));
      var nodes = sentenceNodes(sentence, math);
      if (marked && i >= marked[0] && i <= marked[1]) {
        var mark = el("mark", { class: "scalecore-mentor__lead-mark" });
        mark.appendChild(nodes);
        node.appendChild(mark);
      } else {
        node.appendChild(nodes);
      }
    });
    return node;
  }

  /* A classic script, once loaded. ``ordered``: run in the order asked among the ordered ones
     (async = false), while all download at once: the core's parts before the core. */
  function loadScript(src, ordered) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      if (ordered) script.async = false;
      script.src = src;
      script.onload = resolve;
      script.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(script);
    });
  }

  function readJSON(key, fallback) {
    try {
      var text = window.localStorage.getItem(key);
      return text ? JSON.parse(text) : fallback;
    } catch (error) {
      return fallback;
    }
  }

  function writeJSON(key, value) {
    try {
      window.localStorage.setItem(key, JSON.stringify(value));
      return true;
    } catch (error) {
      return false;
    }
  }

  /* ------------------------------------------------------------- kept files (IndexedDB) */

  function openStore() {
    return new Promise(function (resolve, reject) {
      if (!window.indexedDB) return reject(new Error("this browser keeps no files for pages"));
      var request = window.indexedDB.open(DB_NAME, 1);
      request.onupgradeneeded = function () {
        request.result.createObjectStore("files", { keyPath: "id", autoIncrement: true }).createIndex("module", "module");
      };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error || new Error("the file store did not open")); };
    });
  }

  function withStore(mode, work) {
    return openStore().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction("files", mode);
        var result = work(tx.objectStore("files"));
        tx.oncomplete = function () { db.close(); resolve(result && result.result !== undefined ? result.result : result); };
        tx.onerror = function () { db.close(); reject(tx.error); };
      });
    });
  }

  /* ------------------------------------------------------------- reading the reader's files */

  /* What is wrong with a file, said when it is attached (null when nothing is): over its size
     limit, a text file that is not UTF-8 text (a binary file named .txt), a PDF without the
     "%PDF-" header. Only the first 64 kB are read to tell; nothing is kept before this says yes. */
  var SNIFF_BYTES = 64 * 1024;
  var CONTROL = /[\u0000-\u0008\u000B\u000E-\u001F\u007F]/; // tab, line feed, form feed and return are text

  function mb(bytes) { return Math.round(bytes / (1024 * 1024)) + " MB"; }

  function problem(file, kind) {
    var limit = { text: LIMITS.textBytes, pdf: LIMITS.pdfBytes, image: LIMITS.imageBytes }[kind];
    if (file.size > limit) {
      return Promise.resolve(file.name + " is larger than " + mb(limit) + (kind === "text" ?
        ": attach the part you want to ask about." : kind === "pdf" ? ": attach a smaller PDF." : ": attach a smaller image."));
    }
    if (kind === "image") return Promise.resolve(null);
    return file.slice(0, kind === "pdf" ? 1024 : SNIFF_BYTES).arrayBuffer().then(function (buffer) {
      var bytes = new Uint8Array(buffer);
      if (kind === "pdf") { // the header may follow a little junk (PDF 32000-1, 7.5.2 as readers apply it)
        var head = String.fromCharCode.apply(null, bytes);
        return head.indexOf("%PDF-") >= 0 ? null : file.name + " is not a PDF (it does not start with %PDF-): it was not attached.";
      }
      var text;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: file.size > SNIFF_BYTES }); // a character cut at 64 kB waits
      } catch (error) {
        return file.name + " is not UTF-8 text (a binary file?): it was not attached.";
      }
      return CONTROL.test(text) ? file.name + " holds control characters, so it is not a text file: it was not attached." : null;
    });
  }

  /* A text file, decoded strictly: a byte that is not UTF-8 is an error, never a replacement character. */
  function readText(file) {
    if (file.size > LIMITS.textBytes) {
      return Promise.reject(new Error(file.name + " is larger than " + mb(LIMITS.textBytes) + ": attach the part you want to ask about."));
    }
    return file.arrayBuffer().then(function (buffer) {
      try {
        return [new TextDecoder("utf-8", { fatal: true }).decode(buffer)];
      } catch (error) {
        throw new Error(file.name + " is not UTF-8 text, so the mentor did not read it.");
      }
    });
  }

  function readPdf(file, pdfUrl, workerUrl) {
    if (file.size > LIMITS.pdfBytes) {
      return Promise.reject(new Error(file.name + " is larger than " + mb(LIMITS.pdfBytes) + ": attach a smaller PDF."));
    }
    if (location.protocol === "file:") {
      return Promise.reject(new Error("PDF files can be read only when the site is served over http (a page " +
        "opened from disk cannot start the PDF reader). Text files work here."));
    }
    // import() resolves a relative URL against this script, not the page: make both absolute.
    return import(new URL(pdfUrl, document.baseURI).href).then(function (pdfjs) {
      pdfjs.GlobalWorkerOptions.workerSrc = new URL(workerUrl, document.baseURI).href;
      return file.arrayBuffer().then(function (buffer) {
        return pdfjs.getDocument({ data: new Uint8Array(buffer), isEvalSupported: false }).promise;
      }).then(function (pdf) {
        var count = Math.min(pdf.numPages, LIMITS.pdfPages);
        var pages = [];
        var chain = Promise.resolve();
        for (var n = 1; n <= count; n++) {
          (function (number) {
            chain = chain.then(function () { return pdf.getPage(number); }).then(function (page) {
              return page.getTextContent();
            }).then(function (content) {
              pages.push(content.items.map(function (item) { return item.str + (item.hasEOL ? "\n" : " "); }).join(""));
            });
          })(n);
        }
        return chain.then(function () {
          pages.truncated = pdf.numPages > count ? pdf.numPages : 0;
          return pages;
        });
      });
    });
  }

  /* ------------------------------------------------------------- the optional local model */

  /* wllama (llama.cpp in WebAssembly) runs the model in its own worker; it is loaded, with the
     model, only when the reader asks for a written reply. One per page. */
  var model = null;

  function loadModel(section, progress) {
    if (model) return model;
    var at = function (name) { return new URL(section.getAttribute(name), document.baseURI).href; };
    model = import(at("data-scalecore-mentor-wllama")).then(function (wllama) {
      var engine = new wllama.Wllama({ default: at("data-scalecore-mentor-wllama-wasm") },
        { logger: { debug: function () {}, log: function () {}, warn: function () {}, error: console.error } });
      return engine.loadModelFromUrl(at("data-scalecore-mentor-model"), {
        n_ctx: 2048, n_gpu_layers: 0,
        progressCallback: function (state) { progress(state.loaded, state.total); }
      }).then(function () { return engine; });
    });
    model.catch(function () { model = null; });
    return model;
  }

  function megabytes(bytes) {
    return Math.round(Number(bytes) / 1e6) + " MB";
  }

  /* ------------------------------------------------------------- the panel */

  function Mentor(section) {
    this.section = section;
    this.code = section.getAttribute("data-scalecore-mentor-code");
    this.page = section.getAttribute("data-scalecore-mentor-page");
    this.root = section.getAttribute("data-scalecore-mentor-root") || "";
    this.form = section.querySelector("[data-scalecore-mentor-form]");
    this.box = section.querySelector("[data-scalecore-mentor-question]");
    this.answerRegion = section.querySelector("[data-scalecore-mentor-answer]");
    this.status = section.querySelector("[data-scalecore-mentor-status]");
    this.fileInput = section.querySelector("[data-scalecore-mentor-files]");
    this.attachedList = section.querySelector("[data-scalecore-mentor-attached]");
    this.keep = section.querySelector("[data-scalecore-mentor-keep]");
    this.keptList = section.querySelector("[data-scalecore-mentor-kept]");
    this.askedList = section.querySelector("[data-scalecore-mentor-asked]");
    this.attached = []; // {file, name, kind: "text"|"pdf"|"image", url}
    this.ready = null;
    var self = this;
    this.keep.checked = readJSON(KEEP_KEY, false) === true;
    this.keep.addEventListener("change", function () {
      writeJSON(KEEP_KEY, self.keep.checked);
      self.say(self.keep.checked ? "Copies of the files you attach from now on will be kept in this browser." :
        "Files you attach from now on are not kept. Copies kept before stay until you delete them.");
    });
    ["focus", "pointerdown"].forEach(function (type) {
      self.box.addEventListener(type, function () { self.load(); }, { once: true });
    });
    this.box.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        self.ask();
      }
    });
    this.form.addEventListener("submit", function (event) {
      event.preventDefault();
      self.ask();
    });
    function attachChosen() {
      if (!self.fileInput.files || !self.fileInput.files.length) return;
      self.attach(Array.prototype.slice.call(self.fileInput.files));
      self.fileInput.value = "";
    }
    this.fileInput.addEventListener("change", attachChosen);
    section.querySelector("[data-scalecore-mentor-forget]").addEventListener("click", function () {
      writeJSON(questionsKey(self.code), []);
      self.renderAsked();
      self.say("Your questions to the mentor on this module were deleted from this browser.");
    });
    this.renderAsked();
    this.renderKept();
    attachChosen(); // files chosen while this script was still on its way (module.js loads it)
    var last = LAST[this.code];
    // Back to this page, or its reload, with a question answered in this tab: module.js read it (it loads this script at once then)
    var asked = !last ? section.getAttribute("data-scalecore-mentor-again") : null;
    if (last) {
      this.load().then(function () { if (!self.answerRegion.firstChild) self.render(last.answer, last.files); });
    } else if (asked) {
      this.answerAgain(asked);
    }
    if (section.contains(document.activeElement)) this.load(); // the reader came to the box before this script
    section.hidden = false;
  }

  Mentor.prototype.say = function (message) {
    this.status.textContent = message;
  };

  /* A site path as a link from this page. The root is MkDocs' relative URL of the site's root
   * ("." or ".." or "../.."), written without a final slash. */
  Mentor.prototype.url = function (sitePath) {
    return this.root ? this.root.replace(/\/?$/, "/") + sitePath : sitePath;
  };

  /* The core, MiniSearch and this module's data, once. */
  Mentor.prototype.load = function () {
    if (this.ready) return this.ready;
    var s = this.section;
    var self = this;
    var started = performance.now();
    // Meaning, when the reader reaches the box: the sentence encoder (mentor-encoder.js and the
    // site's int8 model in onnxruntime-web, 22 MB as published, gzip) where the build embedded the passages, else
    // the word-piece table (mentor-embeddings.js: 5.4 MB, 3.9 MB gzip); without either, words alone.
    var core = s.getAttribute("data-scalecore-mentor-core");
    var beside = function (name) { return core.replace(/mentor-core\.js(\?.*)?$/, name); };
    var table = function () {
      return loadScript(beside("mentor-embeddings.js")).then(function () { return window.scalecoreMentorEmbeddings || null; },
        function () { return null; });
    };
    this.ready = Promise.all([
      loadScript(s.getAttribute("data-scalecore-mentor-search")),
      // the core and its parts (mentor-words.js, mentor-meaning.js, mentor-numbers.js), run in this order
      loadScript(beside("mentor-words.js"), true),
      loadScript(beside("mentor-meaning.js"), true),
      loadScript(beside("mentor-numbers.js"), true),
      loadScript(core, true),
      loadScript(s.getAttribute("data-scalecore-mentor")),
      loadScript(beside("mentor-encoder.js")).catch(function () { return null; })
    ]).then(function () {
      var data = (window.scalecoreMentor || {})[self.page];
      if (!data) throw new Error("this module's mentor data is missing from the site");
      var encoder = data.encoder && window.scalecoreMentorEncoder ?
        window.scalecoreMentorEncoder.Encoder.load(data.encoder, self.url.bind(self), loadScript) : Promise.reject(null);
      return encoder.then(function (model) {
        if (model.vectors) window.scalecoreMentorCore.Vectors.attach(data, model.vectors);
        self.encoder = model;
        return "model";
      }, table).then(function (meaning) {
        s.setAttribute("data-scalecore-mentor-meaning", meaning === "model" ? "encoder" : meaning ? "table" : "words");
        return [data, meaning];
      });
    }).then(function (ready) {
      var data = ready[0];
      var mentor = new window.scalecoreMentorCore.Mentor(data, window.MiniSearch, ready[1],
        self.encoder && self.encoder.ids);
      self.math = data.math || [];
      self.pageTitles = data.pages || {};
      s.setAttribute("data-scalecore-mentor-load-ms", String(Math.round(performance.now() - started)));
      return mentor;
    });
    this.ready.catch(function (error) {
      self.say("The mentor could not start: " + error.message.replace(/[.!?]?$/, "."));
    });
    return this.ready;
  };

  /* ------------------------------------------------------------- files */

  /* Files are checked as they are attached, one after the other (so the count holds): a file
     over its limit, a binary file named .txt or a PDF that is not one is refused at once, and
     nothing of it is kept. ``keep`` (default: the switch as it is now) says whether to keep a copy.
     The checks in flight are this.checking: a question asked meanwhile waits for them. */
  Mentor.prototype.attach = function (files, keep) {
    var self = this;
    if (keep === undefined) keep = this.keep.checked;
    this.checking = (this.checking || Promise.resolve()).then(function () {
      return files.reduce(function (chain, file) {
        return chain.then(function () { return self.attachOne(file, keep); });
      }, Promise.resolve());
    }).then(function () { self.renderAttached(); });
    return this.checking;
  };

  Mentor.prototype.attachOne = function (file, keep) {
    var self = this;
    if (self.attached.length >= LIMITS.files) {
      self.say("At most " + LIMITS.files + " files per question: " + file.name + " was not attached.");
      return Promise.resolve();
    }
    var kind = /^image\//.test(file.type) ? "image" : (/pdf$/i.test(file.type) || /\.pdf$/i.test(file.name)) ? "pdf" :
      (/^text\//.test(file.type) || /\.(txt|md|markdown|csv|tex|py)$/i.test(file.name)) ? "text" : null;
    if (!kind) {
      self.say(file.name + " is not an image, a PDF or a text file, so the mentor cannot use it.");
      return Promise.resolve();
    }
    return problem(file, kind).catch(function (error) {
      return file.name + " could not be read: " + (error && error.message || error) + ".";
    }).then(function (wrong) {
      if (wrong) {
        self.say(wrong);
        return;
      }
      self.attached.push({ file: file, name: file.name, kind: kind });
      self.renderAttached();
      if (keep) self.store(file);
    });
  };

  Mentor.prototype.renderAttached = function () {
    var self = this;
    this.attachedList.textContent = "";
    this.attached.forEach(function (item, i) {
      var remove = el("button", { type: "button", class: "scalecore-button scalecore-button--small",
        text: "Remove", "aria-label": "Remove " + item.name });
      remove.addEventListener("click", function () {
        self.attached.splice(i, 1);
        self.renderAttached();
      });
      self.attachedList.appendChild(el("li", {}, [el("span", { text: item.name + " (" + item.kind + ")" }), remove]));
    });
  };

  Mentor.prototype.store = function (file) {
    var self = this;
    withStore("readwrite", function (store) {
      return store.add({ module: self.code, name: file.name, type: file.type, size: file.size,
        at: new Date().toISOString(), blob: file });
    }).then(function () { self.renderKept(); }, function (error) {
      self.say("This browser refused to keep a copy of " + file.name + ": " + (error && error.message || error) + ".");
    });
  };

  Mentor.prototype.renderKept = function () {
    var self = this;
    withStore("readonly", function (store) {
      return store.index("module").getAll(self.code);
    }).then(function (records) {
      self.keptList.textContent = "";
      (records || []).forEach(function (record) {
        var open = el("a", { href: URL.createObjectURL(record.blob), download: record.name, text: "Open" });
        var again = el("button", { type: "button", class: "scalecore-button scalecore-button--small", text: "Attach again" });
        var remove = el("button", { type: "button", class: "scalecore-button scalecore-button--small", text: "Delete",
          "aria-label": "Delete the kept copy of " + record.name });
        again.addEventListener("click", function () {
          var file = new File([record.blob], record.name, { type: record.type });
          self.attach([file], false); // attaching a kept copy does not keep it twice
        });
        remove.addEventListener("click", function () {
          withStore("readwrite", function (store) { return store.delete(record.id); }).then(function () {
            self.renderKept();
            self.say("Deleted the kept copy of " + record.name + ".");
          });
        });
        self.keptList.appendChild(el("li", {}, [el("span", { text: record.name + " " }), open, again, remove]));
      });
      self.keptList.hidden = !records || !records.length;
    }, function () { self.keptList.hidden = true; });
  };

  /* The attached files as passages: text and PDF are read here; images are shown, not read. */
  Mentor.prototype.readAttached = function () {
    var s = this.section;
    var core = window.scalecoreMentorCore;
    var notes = [];
    var images = [];
    var reads = this.attached.map(function (item) {
      if (item.kind === "image") {
        images.push(item);
        return Promise.resolve([]);
      }
      var read = item.kind === "pdf" ?
        readPdf(item.file, s.getAttribute("data-scalecore-mentor-pdf"), s.getAttribute("data-scalecore-mentor-pdf-worker")) :
        readText(item.file);
      return read.then(function (pages) {
        if (pages.truncated) notes.push(item.name + " has " + pages.truncated + " pages; the first " + LIMITS.pdfPages + " were read.");
        return core.filePassages(item.name, pages);
      }, function (error) {
        notes.push(error.message);
        return [];
      });
    });
    return Promise.all(reads).then(function (lists) {
      return { passages: [].concat.apply([], lists), notes: notes, images: images };
    });
  };

  /* ------------------------------------------------------------- asking */

  Mentor.prototype.ask = function () {
    var question = this.box.value.trim().slice(0, LIMITS.questionLength);
    var self = this;
    if (!question) {
      this.say("Write a question first.");
      this.box.focus();
      return;
    }
    this.say("Looking in this module…");
    var started = performance.now();
    Promise.all([this.load(), this.checking]).then(function (ready) {
      var mentor = ready[0];
      var read = mentor.toEmbed(question); // what the encoder reads: the typos mended as for the search (mentor-core.js)
      return Promise.all([self.readAttached(), self.encoder ? self.encoder.embed(read).catch(function () { return null; }) : null]).then(function (got) {
        var files = got[0];
        var answer = mentor.answer(question, files.passages, got[1]);
        self.render(answer, files);
        LAST[self.code] = { answer: answer, files: files };
        inTab(function (store) { // a question with files is not asked again without them
          if (files.passages.length || files.images.length) store.removeItem(lastKey(self.code));
          else store.setItem(lastKey(self.code), question);
        });
        self.record(answer);
        var ms = Math.round(performance.now() - started);
        self.section.setAttribute("data-scalecore-mentor-ms", String(ms));
        self.say(answer.found ? (answer.uncertain ? "Answered from the closest passages of this module (not certain)." :
          "Answered from this module's sources.") : answer.language ?
          "The mentor reads English only: ask in English and it answers from this module." : "Nothing in this module answers that.");
      });
    }).catch(function (error) {
      self.say("The mentor could not answer: " + (error && error.message || error) + ".");
    });
  };

  /* The answer to a question asked before in this tab, made again on coming Back to the page (see lastKey); not
     recorded again among the reader's questions. */
  Mentor.prototype.answerAgain = function (question) {
    var self = this;
    return Promise.all([this.load(), this.checking]).then(function (ready) {
      var mentor = ready[0];
      var embedding = self.encoder ? self.encoder.embed(mentor.toEmbed(question)).catch(function () { return null; }) : null;
      return Promise.resolve(embedding).then(function (vector) {
        if (self.answerRegion.firstChild) return; // the reader asked something else meanwhile
        var files = { passages: [], notes: [], images: [] };
        var answer = mentor.answer(question, [], vector);
        self.render(answer, files);
        LAST[self.code] = { answer: answer, files: files };
        self.say("Your last question, answered again: " + question);
        // the reader left from the answer: where the browser brought the page back elsewhere (its top, or the
        // address's section), the answer is brought into view; a reload leaves the reader where the page put them
        var entry = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
        var shown = self.answerRegion.getBoundingClientRect();
        if ((!entry || entry.type !== "reload") && (shown.top >= window.innerHeight || shown.bottom <= 0)) {
          self.answerRegion.scrollIntoView({ block: "start" });
        }
      });
    }).catch(function () { /* the box works as before: nothing to show */ });
  };

  /* Where under its anchor a passage stands, so that its link lands on it and not on its section's heading (a fresh
     reader's link to a readout landed at the top of a panel 1,870 px tall, and one to a callout 2,800 px above it): a
     readout is its name's entry in the panel; another passage the first block after the heading, before the next one,
     whose text begins with the passage's first words (letters only: formulas read otherwise in the page). Null where
     none is found: the anchor itself, then. */
  function placeOf(target, passage, mentor) {
    if (!passage || !target) return null;
    if (passage.role === "measure") {
      var names = target.querySelectorAll(".scalecore-readout dt");
      for (var i = 0; i < names.length; i++) {
        if (names[i].textContent.trim() === passage.label) return names[i].parentNode;
      }
      return null;
    }
    var start = letters(passage.text).split(" ").slice(0, 5).join(" ");
    if (start.split(" ").length < 4) return null;
    var level = /^H([1-6])$/.exec(target.tagName);
    var blocks = [target];
    if (level) {
      blocks = [];
      for (var node = target.nextElementSibling; node && !(/^H[1-6]$/.test(node.tagName) && node.tagName[1] <= level[1]);
        node = node.nextElementSibling) blocks.push(node);
    }
    var within = [];
    blocks.forEach(function (block) {
      within.push.apply(within, [block].concat(Array.prototype.slice.call(block.querySelectorAll("p, li, dd, blockquote"))));
    });
    // not the mentor's own quote of it (a link to the page's opening searched the whole page), nor a hidden part
    within = within.filter(function (el) { return !mentor.contains(el) && !el.contains(mentor) && !el.closest("[hidden]"); });
    // a passage opens its block; a lead may stand inside one (the innermost: the paragraph, not its callout)
    // (textContent, not innerText: the browser skips the sections far from the screen (content-visibility), and their
    // innerText is empty: a link to a passage there landed on its heading, the passage 1,400 px below)
    var found = function (inFolds) { // among the parts shown (their shown text), or among the folded ones
      var among = within.filter(function (el) { return folded(el) === inFolds; });
      var at = among.map(function (el) { return letters(inFolds ? el.textContent : shownText(el)).indexOf(start); });
      var opens = among.filter(function (el, i) { return at[i] === 0; });
      var holds = opens.length ? opens : among.filter(function (el, i) { return at[i] > 0; });
      return holds.length ? holds[holds.length - 1] : null;
    };
    var place = found(false);
    if (place) return place;
    // only in a part the page keeps folded (a self-check's answer, under "Show answer"): the reader asked to see the
    // passage the answer quoted, so it is unfolded (a fresh reader landed on a question whose quoted answer stayed shut)
    place = found(true);
    for (var details = place && place.closest("details:not([open])"); details; details = details.parentNode.closest("details:not([open])")) {
      details.open = true;
    }
    return place;
  }
  function shownText(el) { // its text but what closed <details> fold and [hidden] parts hide
    var walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    var out = [];
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!folded(node.parentElement) && !node.parentElement.closest("[hidden]")) out.push(node.nodeValue);
    }
    return out.join("");
  }
  function folded(el) { // inside a closed <details>, and not its summary
    var details = el.closest("details:not([open])");
    return Boolean(details) && !(el.closest("summary") && el.closest("summary").parentNode === details);
  }
  function letters(text) { return String(text).toLowerCase().replace(/[^\p{L}]+/gu, " ").trim(); }

  /* Back from a source the reader followed into the page returns to where they were (the answer). The theme's instant
     navigation took that Back for a new visit to the same page, fetched and drew it again and scrolled to an offset
     noted late (a fresh reader's second Back stayed at the source, 10,000 px from the answer): this Back is the
     mentor's alone, as a panel's is the addresses' (addresses.js; both heard before Material, pages/back-first.js).
     The link clicked is put back where it was on the screen, not at the page's old offset: the sections passed on the
     way were drawn meanwhile, and the page above the answer changed height. One place is kept, the last link's. */
  var cameFrom = null;
  var backFirst = Array.isArray(globalThis.scalecoreBackFirst) ? globalThis.scalecoreBackFirst : null;
  function stopHearing(handler) {
    if (!backFirst) return window.removeEventListener("popstate", handler, true);
    var at = backFirst.indexOf(handler);
    if (at >= 0) backFirst.splice(at, 1);
  }
  function comeBackTo(link) {
    if (cameFrom) stopHearing(cameFrom);
    var place = { href: location.href, link: link, top: link.getBoundingClientRect().top };
    cameFrom = function (event) {
      stopHearing(cameFrom);
      cameFrom = null;
      if (location.href !== place.href || !place.link.isConnected) return;
      event.stopImmediatePropagation();
      requestAnimationFrame(function () { window.scrollBy(0, place.link.getBoundingClientRect().top - place.top); });
    };
    // heard before Material's instant navigation (pages/back-first.js): at the window, listeners run in the order
    // they were added, whatever their phase, and Material's was added before this script ran
    if (backFirst) backFirst.push(cameFrom);
    else window.addEventListener("popstate", cameFrom, true);
  }

  /* Scrolls the page so that the passage ``find()`` gives stands ``top`` px from the viewport's top, and keeps it
     there while the page settles (a second): a panel the scroll brought into view hydrates, and its readouts, drawn
     again at another height, took the passage out of view (the browser's scroll anchoring lost its anchor with the
     replaced nodes; hand-written for that reason). Whoever else scrolls the page (the reader's wheel, keys or
     scrollbar, a script) ends it: the page moved while the passage stayed where it was in it. So does leaving the
     address it was reached by (Back: comeBackTo). */
  function keepInPlace(find, top) {
    var until = performance.now() + 1000;
    var at = location.href;
    var place = find();
    var scrolled = null;
    var inPage = null;
    (function align() {
      if (!place.isConnected) place = find();
      var box = place.getBoundingClientRect();
      var stayed = inPage !== null && Math.abs(box.top + window.scrollY - inPage) < 1;
      if (location.href !== at || (scrolled !== null && Math.abs(window.scrollY - scrolled) >= 1 && stayed)) return;
      if (Math.abs(box.top - top) >= 1) window.scrollTo(0, window.scrollY + box.top - top);
      scrolled = window.scrollY;
      inPage = place.getBoundingClientRect().top + scrolled;
      if (performance.now() < until) requestAnimationFrame(align);
    })();
  }

  /* A link to a section. Into this page, it is its fragment, and a plain click goes there itself:
     the theme's instant navigation draws the page again on the first link into it (and its
     scroll to the section is lost), which would also take the answer away; it lands on the passage
     it quotes (placeOf), and Back from it returns to the answer (comeBackTo). */
  Mentor.prototype.link = function (page, anchor, text, passage) {
    // this page's opening (before its first section) has no section of its own: its title's heading stands for it (a
    // link to the bare page drew the page again, and the answer was gone)
    if (page === this.page && !anchor) {
      var title = document.querySelector(".md-content h1[id]") || document.querySelector("h1[id]");
      anchor = title ? title.id : "";
    }
    var inPage = page === this.page && anchor;
    var section = this.section;
    var link = el("a", { href: inPage ? "#" + anchor : this.url(page) + (anchor ? "#" + anchor : ""), text: text });
    if (inPage) {
      link.addEventListener("click", function (event) {
        var target = document.getElementById(anchor);
        if (!target || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        event.stopPropagation();
        if (location.hash !== "#" + anchor) {
          comeBackTo(link);
          history.pushState(null, "", "#" + anchor);
        }
        // pushState does not make the section the :target, whose scroll margin (Material's) keeps
        // a heading below the fixed header: the same margin, from the header's own bottom.
        var header = document.querySelector(".md-header");
        var below = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
        keepInPlace(function () { return placeOf(target, passage, section) || target; }, below + 0.8 * 16);
      });
    }
    return link;
  };

  Mentor.prototype.render = function (answer, files) {
    var self = this;
    var out = this.answerRegion;
    var math = this.math || [];
    out.textContent = "";
    out.appendChild(el("p", { class: "scalecore-mentor__asked" }, [el("strong", { text: "You asked: " }),
      el("span", { text: answer.question })]));
    files.notes.forEach(function (note) { out.appendChild(el("p", { class: "scalecore-mentor__note", text: note })); });
    files.images.forEach(function (item) {
      var img = el("img", { alt: "Your image " + item.name, class: "scalecore-mentor__image" });
      img.src = URL.createObjectURL(item.file);
      out.appendChild(el("figure", {}, [img, el("figcaption", { text: item.name + ": the mentor cannot read images " +
        "offline. Describe what it shows in your question, or attach its text." })]));
    });
    if (answer.language) {
      out.appendChild(el("p", { class: "scalecore-mentor__refusal", text: "The mentor reads English only, and your " +
        "question looks like it is in " + answer.language + ". Ask it in English and it will answer from this module " +
        "and the ones before it." }));
    }
    if (answer.lead) {
      var lead = answer.lead;
      // a reason is headed as one only where the sentence gives one; what a what-if question asks is what happens
      out.appendChild(el("h3", { text: answer.uncertain ? "The closest the module comes" :
        answer.kind === "what-if" ? "What happens, in short" :
        (answer.kind === "why" || answer.kind === "how") && lead.reason ? "The reason, in short" : "In short" }));
      if (answer.uncertain) {
        out.appendChild(el("p", { class: "scalecore-mentor__uncertain", text: "Not certain: no passage of this module " +
          "or its prerequisites answers this in so many words. These are the passages nearest your question; check " +
          "them against it." }));
      }
      var leadNode = el("p", { class: "scalecore-mentor__lead" }, [sentenceNodes(lead.sentence, math)]);
      out.appendChild(leadNode);
      out.appendChild(el("p", { class: "scalecore-mentor__source" }, [el("span", { text: "From " }),
        lead.source ? el("span", { text: "your file " + lead.source.file }) :
          this.link(lead.page, lead.anchor, this.sectionTitle(lead.page, lead.section, ""), lead)]));
    }
    if (answer.numbers.length) {
      var list = el("ul", { class: "scalecore-mentor__numbers" });
      answer.numbers.forEach(function (fact) {
        var item = el("li", {}, [
          el("strong", { text: fact.text || String(fact.value) }), // as the page prints it (mentor-core.js)
          el("span", { text: " is the " + (fact.label || fact.path.split("/").join(" · ")) })
        ]);
        if (fact.panel) {
          var at = fact.panel.split("#");
          item.appendChild(document.createTextNode(" "));
          item.appendChild(self.link(at[0], at[1], "See it in the panel"));
        }
        list.appendChild(item);
      });
      out.appendChild(el("h3", { text: "From the numbers this site baked" }));
      out.appendChild(list);
    }
    if (answer.check) {
      var c = answer.check;
      var part = function (name) {
        var span = c.spans && c.spans[name];
        return span ? c.sentences.slice(span[0], span[1]) : [[c[name] || ""]];
      };
      out.appendChild(el("h3", { text: answer.lead ? "The self-check it comes from" : "The self-check closest to your question" }));
      var answerLine = sentencesNode("p", part("answer"), math);
      answerLine.insertBefore(el("strong", { text: "Answer: " }), answerLine.firstChild);
      out.appendChild(el("blockquote", { class: "scalecore-mentor__quote" }, [
        sentencesNode("p", part("question"), math), answerLine, sentencesNode("p", part("explanation"), math)]));
      out.appendChild(el("p", { class: "scalecore-mentor__source" }, [el("span", { text: "Source: " }),
        this.link(c.page, c.anchor, "the self-check in " + c.section)]));
    }
    if (answer.passages.length) {
      out.appendChild(el("h3", { text: answer.lead || answer.check ? "The evidence, from the module" :
        answer.numbers.length ? "More from the module" : "From the module" }));
      answer.passages.forEach(function (p) {
        var source = p.source ? el("span", { text: "Your file " + p.source.file + ", page " + p.source.page }) :
          self.link(p.page, p.anchor, self.sectionTitle(p.page, p.section, p.label), p);
        out.appendChild(el("blockquote", { class: "scalecore-mentor__quote" }, [sentencesNode("p", p.sentences, math, p.lead)]));
        out.appendChild(el("p", { class: "scalecore-mentor__source" }, [el("span", { text: "Source: " }), source,
          el("span", { class: "scalecore-mentor__why", text: p.terms.length ? " · it matches " +
            p.terms.map(function (t) { return "“" + t + "”"; }).join(", ") : " · close in meaning to your question" })]));
      });
    }
    if (answer.found && this.section.hasAttribute("data-scalecore-mentor-model")) this.offerModel(answer, out);
    if (!answer.found) {
      if (!answer.language) {
        out.appendChild(el("p", { class: "scalecore-mentor__refusal", text: "Nothing in this module or its " +
          "prerequisites answers this directly, and I answer only from sources." }));
      }
      if (answer.closest.length) {
        out.appendChild(el("p", { text: "The closest sections:" }));
        var closest = el("ul", { class: "scalecore-mentor__closest" });
        answer.closest.forEach(function (section) {
          closest.appendChild(el("li", {}, [self.link(section.page, section.anchor, section.title)]));
        });
        out.appendChild(closest);
      }
      out.appendChild(el("p", { text: "The module covers:" }));
      var outline = el("ul", {});
      answer.outline.forEach(function (section) {
        outline.appendChild(el("li", {}, [self.link(self.page, section.anchor, section.title)]));
      });
      out.appendChild(outline);
    }
  };

  /* A section's name as a link text: its page's title first when it is another page. */
  Mentor.prototype.sectionTitle = function (page, section, label) {
    var other = page !== this.page && this.pageTitles[page];
    return (other ? this.pageTitles[page] + " › " : "") + section + (label ? " (" + label + ")" : "");
  };

  /* A written reply from the local model, on request: it is given only the sources above and
     the question, and its text is labelled as what it is. */
  Mentor.prototype.offerModel = function (answer, out) {
    var s = this.section;
    var size = megabytes(s.getAttribute("data-scalecore-mentor-model-bytes"));
    var box = el("div", { class: "scalecore-mentor__model" });
    var button = el("button", { type: "button", class: "scalecore-button",
      text: "Ask a small local model to write a reply from these sources (" + size + ", downloaded once)" });
    var progress = el("progress", { max: "1", value: "0", "aria-label": "Downloading the local model", hidden: "" });
    var status = el("p", { class: "scalecore-mentor__hint", role: "status" });
    box.appendChild(button);
    box.appendChild(progress);
    box.appendChild(status);
    out.appendChild(box);
    button.addEventListener("click", function () {
      if (location.protocol === "file:") {
        status.textContent = "The local model needs the site served over http (a page opened from disk cannot start it).";
        return;
      }
      button.disabled = true;
      progress.hidden = false;
      status.textContent = "Loading the model (" + size + "; kept in this browser for next time)…";
      var started = performance.now();
      loadModel(s, function (loaded, total) {
        progress.value = total ? loaded / total : 0;
      }).then(function (engine) {
        progress.hidden = true;
        status.textContent = "The model is writing (it runs on this device; this can take a minute)…";
        var writing = performance.now();
        s.setAttribute("data-scalecore-mentor-model-load-ms", String(Math.round(writing - started)));
        // Greedy decoding (the single most likely token each time: the same reply every time), with a
        // penalty on repeats: a model this small loops without it.
        return engine.createChatCompletion({ messages: window.scalecoreMentorCore.prompt(answer), max_tokens: 96,
          top_k: 1, frequency_penalty: 0.6, presence_penalty: 0.3 }).then(function (reply) {
          var text = (reply.choices && reply.choices[0] && reply.choices[0].message.content || "").trim();
          var usage = reply.usage || {};
          s.setAttribute("data-scalecore-mentor-model-ms", String(Math.round(performance.now() - writing)));
          s.setAttribute("data-scalecore-mentor-model-tokens", String(usage.completion_tokens || 0));
          box.textContent = "";
          box.appendChild(el("h3", { text: "Written by a small local model" }));
          box.appendChild(el("p", { class: "scalecore-mentor__hint", text: "SmolLM2-135M-Instruct, running in this " +
            "browser, wrote this from the sources above and nothing else. It can be wrong: the sources are what the " +
            "module says." }));
          box.appendChild(el("blockquote", { class: "scalecore-mentor__quote scalecore-mentor__written",
            text: text || "(the model wrote nothing)" }));
        });
      }).catch(function (error) {
        progress.hidden = true;
        button.disabled = false;
        status.textContent = "The local model could not run here: " + (error && error.message || error) + ".";
      });
    });
  };

  /* ------------------------------------------------------------- the learning signal */

  Mentor.prototype.record = function (answer) {
    var asked = readJSON(questionsKey(this.code), []);
    var sections = [];
    answer.numbers.slice(0, 1).forEach(function (fact) {
      if (fact.panel) sections.push({ title: "the panel for " + (fact.label || fact.path), href: fact.panel });
    });
    if (answer.lead && !answer.check && !answer.lead.source) {
      sections.push({ title: answer.lead.section, href: answer.lead.page + (answer.lead.anchor ? "#" + answer.lead.anchor : "") });
    }
    if (answer.check) sections.push({ title: answer.check.section, href: answer.check.page + "#" + answer.check.anchor });
    answer.passages.forEach(function (p) {
      if (p.page && !p.source && !sections.some(function (s) { return s.title === p.section; })) {
        sections.push({ title: p.section, href: p.page + (p.anchor ? "#" + p.anchor : "") });
      }
    });
    asked.push({ question: answer.question, at: new Date().toISOString(), sections: sections.slice(0, 3),
      found: answer.found });
    if (!writeJSON(questionsKey(this.code), asked.slice(-LIMITS.questions))) {
      this.say("Your question was answered, but this browser refused to keep it.");
    }
    this.renderAsked();
  };

  Mentor.prototype.renderAsked = function () {
    var self = this;
    var asked = readJSON(questionsKey(this.code), []);
    this.askedList.textContent = "";
    asked.slice().reverse().forEach(function (entry) {
      var item = el("li", {}, [el("time", { datetime: entry.at, text: entry.at.slice(0, 16).replace("T", " ") }),
        el("span", { text: " " + entry.question })]);
      (entry.sections || []).forEach(function (s) {
        var at = String(s.href).split("#");
        item.appendChild(document.createTextNode(" → "));
        item.appendChild(self.link(at[0], at[1], s.title));
      });
      self.askedList.appendChild(item);
    });
    this.section.querySelector("[data-scalecore-mentor-history]").hidden = !asked.length;
  };

  function setUp() {
    var section = document.querySelector("[data-scalecore-mentor]");
    if (!section || section.getAttribute("data-scalecore-ready") === "true") return;
    section.setAttribute("data-scalecore-ready", "true");
    new Mentor(section);
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe({ next: setUp, error: setUp, complete: setUp });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
