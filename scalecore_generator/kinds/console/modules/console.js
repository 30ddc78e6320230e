// The scratch console: a Python editor whose code runs in the site's Pyodide worker.
//
// Ctrl/Cmd+Enter runs, Alt+Up/Down walks the history, Tab indents (Escape then Tab leaves the
// editor). Output streams in as the code prints, as text (never HTML). Stop interrupts Python
// where the page is cross-origin isolated, else restarts the worker; input() shows a line for
// the reader's answer where the page is isolated. The page never waits on Python: everything
// runs in the worker, output is painted at most once per frame (requestAnimationFrame), and a
// flood keeps its last MAX_OUTPUT characters, saying how many were cut.
//
// Where the site ships the full scientific stack (plugin option console_full_stack; fullstack.js),
// a picker chooses the runtime (remembered for the site in localStorage), and code that imports
// numpy, pandas, scipy, scikit-learn or matplotlib on Pyodide is offered the full stack, with its
// download size, before it runs. matplotlib's figures arrive from the full stack as PNG bytes and
// are shown as images (blob: URLs, which the page's policy allows for images).
//
// A module of the console kind (its modules/ folder, served at
// assets/scalecore/kinds/console/modules/), imported by its panel.js only for pages with a console,
// over http. The live client and the full stack's client are the site's shared modules, three
// folders up (assets/scalecore/): the same URLs the panels import, so the same instances.

import { connect, prefetch, StoppedError } from "../../../live.js";
import { cannotRun, connectFullStack, fullStack, sizeText } from "../../../fullstack.js";

const S = globalThis.scalecore;
const u = S.util;
const el = u.el;
const timings = S.timings;

const MAX_OUTPUT = 200000; // characters kept in the output; older ones are dropped
const CHUNK = 1024; // characters per block of output (see append)
const PAINT_BUDGET = 8192; // characters painted per frame at most (see paint)
const FLOOD_EVERY_MS = 50; // during a flood, a paint every so often (see schedule)
const TRIM_TO = MAX_OUTPUT - 8 * CHUNK; // where trimming stops (see trim)
const NOTE_EVERY_MS = 500; // how often the note on cut output changes during a flood
const HISTORY_SIZE = 50;
// Imports the full stack has and the site's Pyodide does not: code with one is offered the switch.
const STACK_IMPORT = /^[ \t]*(?:import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*|from[ \t]+)(numpy|pandas|scipy|sklearn|matplotlib)\b/m;
const RUNTIMES = { pyodide: "Pyodide", full: "the full stack" };


export function mountConsole(root, context) {
  return u.manifestOf(root).then((manifest) => new Console(root, context.options || {}, manifest));
}

class Console {
  constructor(root, options, manifest) {
    this.root = root;
    this.manifest = manifest;
    this.session = root.id || root.getAttribute("data-scalecore-id") || u.nextId("scalecore-console");
    this.announce = u.announcer(root);
    this.history = this.loadHistory();
    this.position = this.history.length;
    this.running = false;
    this.queued = { text: [], size: 0, scheduled: false };
    this.waiting = []; // drained() promises
    this.size = 0; // characters in the output
    this.cut = 0; // characters dropped from its top
    this.fullStack = fullStack(manifest); // null where the site does not ship it
    this.choiceKey = "scalecore:console-runtime@" + new URL("..", manifest.url).pathname; // per site
    this.runtime = this.fullStack && this.savedChoice() === "full" && !cannotRun() ? "full" : "pyodide";
    this.fullRuns = []; // snippets run on the full stack since it last started: offered again after Stop
    this.figures = []; // blob: URLs of the figures shown, revoked when the output is cleared
    root.scalecoreConsole = this; // for tests and curious readers
    this.build(options);
  }

  build(options) {
    const box = u.controls(this.root);
    box.replaceChildren();
    const initial = typeof options.code === "string" && options.code.trim() ? options.code : this.fallbackCode();
    const editorId = u.nextId("scalecore-editor");
    const helpId = u.nextId("scalecore-help");
    const rows = Math.max(3, Math.min(40, Number(options.height) || initial.split("\n").length + 1));
    this.editor = el("textarea", {
      id: editorId, class: "scalecore-console__editor", rows, spellcheck: "false", autocapitalize: "off",
      autocomplete: "off", autocorrect: "off", wrap: "off", "aria-describedby": helpId,
    });
    this.editor.value = initial;
    this.runButton = el("button", { type: "button", class: "scalecore-button scalecore-button--primary", onclick: () => this.run() }, "Run");
    this.stopButton = el("button", { type: "button", class: "scalecore-button", disabled: true, onclick: () => this.stop() }, "Stop");
    this.clearButton = el("button", { type: "button", class: "scalecore-button", onclick: () => this.clear() }, "Clear output");
    this.status = el("span", { class: "scalecore-status", role: "status" });
    this.progress = u.progressView();
    // A named, focusable region (a reader can scroll it with the keyboard): aria-label is not
    // allowed on a bare <pre>. Not role="log": streamed output would flood a screen reader; the
    // status line announces when a run ends.
    this.output = el("pre", { class: "scalecore-console__output", tabindex: "0", role: "region", "aria-label": "Console output" });
    this.cutNote = el("p", { class: "scalecore-console__cut", hidden: true });
    box.append(
      el("div", { class: "scalecore-console" }, [
        el("label", { for: editorId, class: "scalecore-console__label" }, "Python code"),
        this.editor,
        el("p", { id: helpId, class: "scalecore-console__help" },
          "Ctrl+Enter (\u2318+Enter) runs \u00b7 Alt+\u2191/\u2193 walks the history \u00b7 Tab indents (Escape, then Tab, leaves the editor). " +
          "scalecore is imported" + (this.manifest.data.corpora.length ? ", and load_table(" +
            JSON.stringify(this.manifest.data.corpora[0].name) + ") gives this site's embedding table for a corpus." : ".")),
        el("div", { class: "scalecore-console__bar" }, [this.examplePicker(), this.runtimePicker(), this.runButton, this.stopButton, this.clearButton, this.status].filter(Boolean)),
        this.offer = el("div", { class: "scalecore-console__offer", role: "note", hidden: true }),
        this.progress.node,
        this.cutNote,
        this.output,
      ]),
    );
    for (const node of this.root.querySelectorAll(".scalecore-fallback, [data-scalecore-fallback]")) node.hidden = true;
    this.editor.addEventListener("keydown", (event) => this.keydown(event));
    // Intent to run code (the editor focused, a pointer over or pressing Run, focus on it):
    // Python starts now (live.js, prefetch), so less is left to wait for after Run.
    // Not while the page waits to reload for isolation (isolate.js holds the panel): the reload
    // would cut the download off, and the reloaded page download it again. A task later: the
    // focus event comes before isolate.js's focusin says it holds the panel.
    const warm = () => setTimeout(() => {
      const isolation = globalThis.scalecoreIsolation;
      if (isolation && isolation.holding) return; // Python starts on the reloaded page
      if (this.runtime === "full") this.client();
      else prefetch(this.manifest);
    }, 0);
    this.editor.addEventListener("focus", warm, { once: true });
    for (const type of ["pointerenter", "pointerdown", "focus"]) this.runButton.addEventListener(type, warm, { once: true });
  }

  /* The examples the block ships (template.html): a picker that puts one in the editor. */
  examplePicker() {
    const examples = Array.from(this.root.querySelectorAll("template[data-scalecore-example]"));
    if (!examples.length) return null;
    const id = u.nextId("scalecore-example");
    const select = el("select", { id, class: "scalecore-console__examples" },
      [el("option", { value: "" }, "Examples\u2026")].concat(examples.map((script, i) =>
        el("option", { value: String(i) }, script.getAttribute("data-scalecore-example")))));
    select.addEventListener("change", () => {
      if (select.value === "") return;
      this.editor.value = examples[Number(select.value)].content.textContent.replace(/\s+$/, "");
      select.value = "";
      // After the change event a customizable select (a phone's menus) closes its list and gives
      // the focus back to itself: the editor takes it on the next frame, after that.
      requestAnimationFrame(() => this.editor.focus());
    });
    return el("span", { class: "scalecore-console__example" }, [
      el("label", { for: id, class: "scalecore-visually-hidden" }, "Load an example into the editor"), select]);
  }

  /* ------------------------------------------------------------ the runtime */

  /* Where the site ships the full stack: a choice between it and Pyodide. */
  runtimePicker() {
    if (!this.fullStack) return null;
    const id = u.nextId("scalecore-runtime");
    this.picker = el("select", { id, class: "scalecore-console__runtime" }, [
      el("option", { value: "pyodide" }, "Pyodide: standard library, starts in seconds"),
      el("option", { value: "full" }, "Full stack: numpy, pandas, scikit-learn, matplotlib (" +
        Math.round(this.fullStack.download / 1e6) + " MB)"),
    ]);
    this.picker.value = this.runtime;
    this.picker.addEventListener("change", () => this.choose(this.picker.value));
    return el("span", { class: "scalecore-console__example" }, [
      el("label", { for: id, class: "scalecore-console__label" }, "Runtime "), this.picker]);
  }

  savedChoice() {
    try {
      return localStorage.getItem(this.choiceKey);
    } catch (error) {
      return null; // storage refused: Pyodide, as on a first visit
    }
  }

  /* Switch runtimes (remembered for the site); false, with the reason shown, where this browser
     cannot run the full stack. */
  choose(runtime) {
    const why = runtime === "full" ? cannotRun() : null;
    if (why) {
      this.showOffer([el("p", null, why)]);
      if (this.picker) this.picker.value = this.runtime;
      return false;
    }
    this.runtime = runtime;
    if (this.picker) this.picker.value = runtime;
    try {
      localStorage.setItem(this.choiceKey, runtime);
    } catch (error) {
      /* storage refused: the choice lasts for this page */
    }
    this.hideOffer();
    this.announce("Runtime: " + RUNTIMES[runtime] + ".");
    return true;
  }

  showOffer(children) {
    this.offer.replaceChildren(...children);
    this.offer.hidden = false;
  }

  hideOffer() {
    this.offer.hidden = true;
    this.offer.replaceChildren();
  }

  /* Code for the full stack, about to run on Pyodide: offer the switch, with its cost. */
  offerFullStack(code, name) {
    const why = cannotRun();
    const button = (label, onclick, primary) =>
      el("button", { type: "button", class: "scalecore-button" + (primary ? " scalecore-button--primary" : ""), onclick }, label);
    const text = why ? `This code imports ${name}, which Pyodide here does not have. ${why}`
      : `This code imports ${name}, which Pyodide here does not have. This site also ships the full scientific ` +
        `stack (numpy, pandas, scipy, scikit-learn, matplotlib): ${sizeText(this.fullStack)}. ` +
        "Variables defined on Pyodide do not carry over.";
    this.showOffer([el("p", null, text), el("div", { class: "scalecore-console__bar" }, [
      why ? null : button("Switch to the full stack and run", () => {
        if (this.choose("full")) this.run(code);
      }, true),
      button("Run on Pyodide", () => {
        this.hideOffer();
        this.run(code, { onPyodide: true });
      }, Boolean(why)),
    ].filter(Boolean))]);
    this.announce("This code needs the full stack: see the offer under the buttons.");
  }

  /* After Stop restarted the full stack: its earlier snippets, offered again. */
  offerRerun() {
    const snippets = this.fullRuns.slice();
    this.fullRuns = [];
    if (!snippets.length) return;
    const again = el("button", { type: "button", class: "scalecore-button", onclick: async () => {
      this.hideOffer();
      for (const code of snippets) {
        if (!(await this.run(code))) break; // stopped again, or an error: the rest would fail
      }
    } }, `Run the ${snippets.length === 1 ? "earlier snippet" : snippets.length + " earlier snippets"} again`);
    this.showOffer([el("p", null, "Python was restarted, so what earlier snippets defined is gone. " +
      "To bring it back, run them again, in order."), again]);
  }

  /* The code the block shows without JS, if any: the reader starts from the same text. */
  fallbackCode() {
    const code = this.root.querySelector(".scalecore-fallback pre code");
    return code ? code.textContent.replace(/\n$/, "") : "";
  }

  keydown(event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      this.run();
    } else if (event.altKey && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
      event.preventDefault();
      this.walkHistory(event.key === "ArrowUp" ? -1 : 1);
    } else if (event.key === "Escape") {
      this.escaped = true;
    } else if (event.key === "Tab" && !event.shiftKey && !this.escaped && !event.ctrlKey && !event.altKey && !event.metaKey) {
      event.preventDefault();
      this.editor.setRangeText("    ", this.editor.selectionStart, this.editor.selectionEnd, "end");
    } else {
      this.escaped = false;
    }
  }

  loadHistory() {
    try {
      const saved = JSON.parse(sessionStorage.getItem("scalecore:console-history") || "[]");
      return Array.isArray(saved) ? saved.filter((item) => typeof item === "string") : [];
    } catch (error) {
      return [];
    }
  }

  remember(code) {
    if (this.history[this.history.length - 1] !== code) this.history.push(code);
    this.history = this.history.slice(-HISTORY_SIZE);
    this.position = this.history.length;
    this.draft = "";
    try {
      sessionStorage.setItem("scalecore:console-history", JSON.stringify(this.history));
    } catch (error) {
      /* storage refused: the history lasts for this page only */
    }
  }

  walkHistory(step) {
    if (!this.history.length) return;
    if (this.position === this.history.length) this.draft = this.editor.value;
    this.position = Math.max(0, Math.min(this.history.length, this.position + step));
    this.editor.value = this.position === this.history.length ? this.draft || "" : this.history[this.position];
    this.editor.setSelectionRange(this.editor.value.length, this.editor.value.length);
  }

  /* ---------------------------------------------------------------- output */

  write(kind, text) {
    this.queue([{ stream: kind, text }], 0);
  }

  /* Output parts from the worker ([{stream, text}], in order) and how much it cut before them. */
  queue(parts, cut) {
    const queued = this.queued;
    if (cut) { // the worker dropped text: what waits here and what is shown are older still
      this.cut += cut + queued.size;
      queued.text = [];
      queued.size = 0;
      this.forgetShown();
    }
    for (const { stream, text, bytes } of parts) {
      if (stream === "image") { // a figure: one place in the output, counted as one character
        queued.text.push([stream, bytes]);
        queued.size += 1;
        continue;
      }
      if (!text) continue;
      queued.text.push([stream, text]);
      queued.size += text.length;
    }
    if (queued.size > MAX_OUTPUT) { // only the last MAX_OUTPUT characters can show, even of one long line
      while (queued.size > MAX_OUTPUT) {
        const first = queued.text[0];
        const length = first[0] === "image" ? 1 : first[1].length;
        const drop = Math.min(queued.size - MAX_OUTPUT, length);
        if (drop === length) queued.text.shift();
        else first[1] = first[1].slice(drop);
        queued.size -= drop;
        this.cut += drop;
      }
      this.forgetShown();
    }
    this.schedule();
  }

  /* Text was cut after what is shown: what is shown goes too, so the output stays one piece (the
     last lines, without a gap in them). */
  forgetShown() {
    if (!this.size) return;
    this.cut += this.size;
    this.size = 0;
    this.output.replaceChildren();
  }

  /* At most PAINT_BUDGET characters a frame: a flood is painted over several frames (older text
     waiting meanwhile is cut if more than MAX_OUTPUT arrives), so no frame is long. */
  paint() {
    const queued = this.queued;
    queued.scheduled = false;
    if (!queued.text.length) return this.settle();
    const atBottom = this.output.scrollHeight - this.output.scrollTop - this.output.clientHeight < 24;
    let budget = PAINT_BUDGET;
    while (queued.text.length && budget > 0) {
      const item = queued.text[0];
      const [kind, text] = item;
      if (kind === "image") {
        queued.text.shift();
        this.appendFigure(text);
        queued.size -= 1;
        budget -= 1;
        continue;
      }
      let end = text.length;
      if (end > budget) { // up to a line's end within the budget, if there is one
        end = text.lastIndexOf("\n", budget - 1) + 1 || budget;
        item[1] = text.slice(end);
      } else {
        queued.text.shift();
      }
      this.append(kind, end === text.length ? text : text.slice(0, end));
      queued.size -= end;
      budget -= end;
    }
    this.trim();
    if (atBottom) this.output.scrollTop = this.output.scrollHeight;
    this.holdSize();
    if (queued.text.length) this.schedule(FLOOD_EVERY_MS);
    else this.settle();
  }

  /* Paint on the next frame; while a flood lasts (more is queued than a paint takes), on the
     first frame after `later` ms: every frame of a long page costs a few ms to lay out and
     paint however little changed, so a flood gets few, fuller frames. */
  schedule(later = 0) {
    if (this.queued.scheduled) return;
    this.queued.scheduled = true;
    const frame = () => requestAnimationFrame(() => this.paint());
    if (later) setTimeout(frame, later);
    else frame();
  }

  /* Resolves once everything queued is on the page. */
  drained() {
    if (!this.queued.text.length) return Promise.resolve();
    this.schedule();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  settle() {
    this.sayCut(true);
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  /* The output is a column of blocks of about CHUNK characters, each ending a line, each laid out
     only while it is on screen (content-visibility: auto): painting a frame of a flood costs the
     new text, not the 200,000 characters kept. Within a block, one span per stream. */
  append(kind, text) {
    this.size += text.length;
    let at = 0;
    while (at < text.length) {
      let chunk = this.output.lastElementChild;
      if (!chunk || !chunk.classList.contains("scalecore-console__chunk") || (chunk.scalecoreSize >= CHUNK && chunk.scalecoreEnds)) {
        chunk = el("span", { class: "scalecore-console__chunk" });
        chunk.scalecoreSize = 0;
        chunk.scalecoreLines = 0;
        this.output.appendChild(chunk);
      }
      let end = text.length;
      const room = CHUNK - chunk.scalecoreSize;
      if (end - at > room) { // fill the block up to the end of a line
        const newline = text.indexOf("\n", at + Math.max(room, 1) - 1);
        end = newline < 0 ? text.length : newline + 1;
      }
      const piece = text.slice(at, end);
      const last = chunk.lastChild;
      if (last && last.dataset.stream === kind) last.firstChild.appendData(piece);
      else chunk.appendChild(el("span", { class: "scalecore-console__" + kind, "data-stream": kind }, piece));
      chunk.scalecoreSize += piece.length;
      chunk.scalecoreEnds = piece.endsWith("\n");
      for (let i = piece.indexOf("\n"); i >= 0; i = piece.indexOf("\n", i + 1)) chunk.scalecoreLines += 1;
      chunk.style.containIntrinsicBlockSize = "auto " + (1.4 * Math.max(1, chunk.scalecoreLines)).toFixed(1) + "em";
      at = end;
    }
  }

  /* A figure (PNG bytes from the full stack) as an image of its own in the output: an <img> of
     a blob: URL, never markup. */
  appendFigure(bytes) {
    const url = URL.createObjectURL(new Blob([bytes], { type: "image/png" }));
    this.figures.push(url);
    this.output.appendChild(el("img", { class: "scalecore-console__figure", src: url, alt: "A figure drawn by matplotlib" }));
    this.size += 1;
  }

  /* Drop the oldest output beyond MAX_OUTPUT characters, whole blocks at a time (down to
     TRIM_TO, so the top of the box changes once every few frames, not every frame), and say how
     much is gone. */
  trim() {
    if (this.size <= MAX_OUTPUT) return;
    while (this.size > TRIM_TO && this.output.firstChild !== this.output.lastChild) {
      const first = this.output.firstChild;
      const length = first.textContent.length;
      first.remove();
      this.size -= length;
      this.cut += length;
    }
    this.sayCut(false);
  }

  /* The note above the output: at most every NOTE_EVERY_MS while a flood lasts (a change of
     text outside the output box lays the page out again), and when the output settles. */
  sayCut(now) {
    if (!this.cut) return;
    const at = performance.now();
    if (!now && at - (this.cutSaid || 0) < NOTE_EVERY_MS) return;
    this.cutSaid = at;
    this.cutNote.hidden = false;
    this.cutNote.textContent = `${this.cut.toLocaleString("en")} characters of earlier output were cut: ` +
      `the console keeps at most the last ${MAX_OUTPUT.toLocaleString("en")}.`;
  }

  /* Once the output fills its box, the box keeps its height and contains its layout, so new
     lines never lay out the page around it. */
  holdSize() {
    if (this.full || this.output.scrollHeight <= this.output.clientHeight) return;
    this.full = true;
    this.output.classList.add("scalecore-console__output--full");
  }

  clear() {
    this.queued.text = [];
    this.queued.size = 0;
    this.settle();
    this.output.replaceChildren();
    for (const url of this.figures.splice(0)) URL.revokeObjectURL(url);
    this.output.classList.remove("scalecore-console__output--full");
    this.full = false;
    this.size = 0;
    this.cut = 0;
    this.cutNote.hidden = true;
    this.announce("Output cleared.");
  }

  /* ---------------------------------------------------------------- input() */

  /* input() waits in the worker: a line in the output, with the prompt and a field for the
     answer, which goes back to Python on Enter. The prompt is this run's output only. */
  async ask(prompt) {
    await this.drained(); // everything printed before the prompt, first (the worker waits meanwhile)
    if (!this.running || this.asking) return; // stopped meanwhile
    const id = u.nextId("scalecore-input");
    const field = el("input", {
      id, type: "text", class: "scalecore-console__answer", autocomplete: "off", spellcheck: "false",
      "aria-label": "Answer to Python's input()" + (prompt.trim() ? ": " + prompt.trim() : ""),
    });
    const line = el("span", { class: "scalecore-console__prompt", "data-stream": "prompt" }, [prompt, field]);
    this.output.appendChild(line);
    this.output.scrollTop = this.output.scrollHeight;
    this.asking = { line, field, prompt };
    field.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      const answer = field.value;
      this.endAsking(answer + "\n");
      this.live.answer(answer);
      this.editor.focus();
    });
    field.focus();
    this.status.textContent = "Waiting for your input\u2026";
    var asked = prompt.trim() || "a line of input";
    // "your name?" keeps its own mark: "Python asks: your name?. Type..." read oddly (a fresh reader)
    this.announce("Python asks: " + asked + (/[.?!:]$/.test(asked) ? "" : ".") + " Type the answer, then Enter.");
  }

  /* The input line becomes plain text: the prompt and what was answered (or nothing, if the
     run stopped while it waited). */
  endAsking(tail) {
    if (!this.asking) return;
    const { line, prompt } = this.asking;
    this.asking = null;
    line.replaceChildren(prompt + tail);
    this.size += line.textContent.length;
    if (this.running) this.status.textContent = "Running\u2026";
  }

  /* ---------------------------------------------------------------- running */

  /* The client of the chosen runtime (live.js for Pyodide, fullstack.js for the full stack). */
  client() {
    if (this.runtime === "full") {
      if (!this.full) {
        this.full = connectFullStack(this.manifest, { onProgress: this.progress.update });
        this.full.onRestart(() => {
          if (this.root.isConnected && !this.stopping) this.write("note", "(Python was restarted: variables defined earlier are gone.)\n");
        });
      }
      this.live = this.full;
      return this.live;
    }
    if (!this.pyodide) {
      this.pyodide = connect(this.manifest, { onProgress: this.progress.update });
      this.pyodide.onRestart(() => {
        if (!this.root.isConnected) return;
        if (!this.stopping) this.write("note", "(Python was restarted: variables defined earlier are gone.)\n");
      });
    }
    this.live = this.pyodide;
    return this.live;
  }

  setRunning(running) {
    this.running = running;
    this.runButton.disabled = running;
    this.stopButton.disabled = !running;
    this.root.toggleAttribute("data-scalecore-running", running);
  }

  /* Run the editor's code (or `code`); resolves true when it ran to the end without an error. */
  async run(code = this.editor.value, { onPyodide = false } = {}) {
    if (this.running) return false;
    if (!code.trim()) return false;
    const needs = this.fullStack && this.runtime === "pyodide" && !onPyodide ? STACK_IMPORT.exec(code) : null;
    if (needs) {
      this.offerFullStack(code, needs[1]);
      return false;
    }
    if (this.runtime === "full" && !this.offer.hidden && !this.offer.querySelector("button")) this.hideOffer();
    this.remember(code);
    const echo = code.replace(/\s+$/, "").split("\n").map((line, i) => (i ? "... " : ">>> ") + line).join("\n") + "\n";
    // A run starts on a line of its own, whatever the last one printed (print(x, end="")).
    const last = this.queued.text.length ? this.queued.text[this.queued.text.length - 1][1] : this.output.textContent;
    this.write("input", (last && !last.endsWith("\n") ? "\n" : "") + echo);
    this.setRunning(true);
    let live;
    try {
      await u.keptForOffline("The console's Python"); // offline and never started here: said at once
      live = this.client();
    } catch (error) {
      this.write("stderr", error.message + "\n");
      this.setRunning(false);
      return;
    }
    // While Python starts, the progress indicator speaks for itself.
    this.status.textContent = live.progress.stage === "ready" ? "Running\u2026" : "";
    // The status is role="status": what it shows is said once by it, never again by the panel's
    // live region (a screen reader heard "Python could not run the code." twice).
    if (live.progress.stage !== "ready") this.announce("Starting Python, then running.");
    live.ready().then(() => {
      if (this.running && !this.status.textContent) this.status.textContent = "Running\u2026";
    }, () => {});
    const started = performance.now();
    let finished = false;
    try {
      const answer = await live.call("run", { code, session: this.session }, {
        onStream: (parts, cut) => this.queue(parts, cut),
        onInput: (prompt) => this.ask(prompt),
      });
      const ms = performance.now() - started;
      timings.lastConsoleRunMs = ms;
      const said = { ok: "Done", error: "Finished with an error", interrupted: "Stopped", exit: "Finished (SystemExit)" }[answer.outcome] || "Done";
      this.status.textContent = said + " in " + formatMs(answer.ms) + ".";
      finished = answer.outcome === "ok";
      if (live === this.full && finished) this.fullRuns.push(code);
    } catch (error) {
      if (error instanceof StoppedError) {
        this.write("note", "Stopped. " + WHY_RESTARTED[error.reason] + " the variables you defined are gone.\n");
        this.status.textContent = "Stopped; Python restarted.";
        if (live === this.full) this.offerRerun();
      } else {
        this.write("stderr", u.unreachable("The console's Python", error).message + "\n");
        this.status.textContent = "Python could not run the code.";
      }
    } finally {
      this.endAsking("\n"); // stopped while input() waited: the prompt stays with this run
      await this.drained(); // output first, then "done"
      this.setRunning(false);
      this.stopping = false;
    }
    return finished;
  }

  async stop() {
    if (!this.running || !this.live) return;
    this.stopping = true;
    this.status.textContent = "Stopping\u2026";
    const asked = performance.now();
    const { mode, reason } = await this.live.stop();
    timings.lastStopMs = performance.now() - asked;
    timings.lastStopMode = mode;
    timings.lastStopReason = reason || null;
  }
}

// What the reader is told when Stop restarted Python (live.js, StoppedError).
const WHY_RESTARTED = {
  "not isolated": "This page is not cross-origin isolated, so Python cannot be interrupted in place: it was restarted, and",
  stuck: "Python did not answer the interrupt within two seconds (it was busy outside the interpreter), so it was restarted, and",
  starting: "Python was still starting, so it was started again, and",
  "full stack": "The full stack cannot be interrupted in place: it was restarted (from the module already " +
    "downloaded and compiled, so within a second), and",
};

function formatMs(ms) {
  return ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(1) + " s";
}
