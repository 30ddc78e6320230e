// The scratch console: a Python editor whose code runs in the site's Pyodide worker.
//
// Ctrl/Cmd+Enter runs, Alt+Up/Down walks the history, Tab indents (Escape then Tab leaves the
// editor). Output streams in as the code prints, as text (never HTML). Stop interrupts Python
// where the page is cross-origin isolated, else restarts the worker. The page never waits on
// Python: everything runs in the worker, and output is painted at most once per frame.
//
// A module, imported by panels.js only for pages with a console, over http.

import { connect, StoppedError } from "./live.js";

const S = globalThis.scalecore;
const u = S.util;
const el = u.el;
const timings = S.timings;

const MAX_OUTPUT = 200000; // characters kept in the output; older ones are dropped
const HISTORY_SIZE = 50;


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
    this.queued = { text: [], scheduled: false };
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
    box.append(
      el("div", { class: "scalecore-console" }, [
        el("label", { for: editorId, class: "scalecore-console__label" }, "Python code"),
        this.editor,
        el("p", { id: helpId, class: "scalecore-console__help" },
          "Ctrl+Enter (\u2318+Enter) runs \u00b7 Alt+\u2191/\u2193 walks the history \u00b7 Tab indents (Escape, then Tab, leaves the editor). " +
          "scalecore is imported, and load_table(\"demo\") gives this site's embedding table for a corpus."),
        el("div", { class: "scalecore-console__bar" }, [this.runButton, this.stopButton, this.clearButton, this.status]),
        this.progress.node,
        this.output,
      ]),
    );
    for (const node of this.root.querySelectorAll(".scalecore-fallback, [data-scalecore-fallback]")) node.hidden = true;
    this.editor.addEventListener("keydown", (event) => this.keydown(event));
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
    this.queued.text.push([kind, text]);
    if (this.queued.scheduled) return;
    this.queued.scheduled = true;
    requestAnimationFrame(() => this.paint());
  }

  paint() {
    this.queued.scheduled = false;
    const parts = this.queued.text;
    if (!parts.length) return;
    this.queued.text = [];
    const atBottom = this.output.scrollHeight - this.output.scrollTop - this.output.clientHeight < 24;
    const fragment = document.createDocumentFragment();
    let last = this.output.lastChild;
    for (const [kind, text] of parts) {
      if (last && last.dataset && last.dataset.stream === kind && last.parentNode === this.output) {
        last.textContent += text; // same stream as the previous chunk: one span, fewer nodes
        continue;
      }
      last = el("span", { class: "scalecore-console__" + kind, "data-stream": kind });
      last.textContent = text;
      fragment.appendChild(last);
    }
    this.output.appendChild(fragment);
    this.trim();
    if (atBottom) this.output.scrollTop = this.output.scrollHeight;
  }

  trim() {
    let size = this.output.textContent.length;
    while (size > MAX_OUTPUT && this.output.firstChild) {
      const first = this.output.firstChild;
      const excess = size - MAX_OUTPUT;
      if (first.textContent.length > excess) {
        first.textContent = "\u2026" + first.textContent.slice(excess + 1);
        break;
      }
      size -= first.textContent.length;
      first.remove();
    }
  }

  clear() {
    this.queued.text = [];
    this.output.replaceChildren();
    this.announce("Output cleared.");
  }

  /* ---------------------------------------------------------------- running */

  client() {
    if (!this.live) {
      this.live = connect(this.manifest, { onProgress: this.progress.update });
      this.live.onRestart(() => {
        if (!this.root.isConnected) return;
        if (!this.stopping) this.write("note", "(Python was restarted: variables defined earlier are gone.)\n");
      });
    }
    return this.live;
  }

  setRunning(running) {
    this.running = running;
    this.runButton.disabled = running;
    this.stopButton.disabled = !running;
    this.root.toggleAttribute("data-scalecore-running", running);
  }

  async run() {
    if (this.running) return;
    const code = this.editor.value;
    if (!code.trim()) return;
    this.remember(code);
    this.write("input", code.replace(/\s+$/, "").split("\n").map((line, i) => (i ? "... " : ">>> ") + line).join("\n") + "\n");
    this.setRunning(true);
    let live;
    try {
      live = this.client();
    } catch (error) {
      this.write("stderr", error.message + "\n");
      this.setRunning(false);
      return;
    }
    // While Python starts, the progress indicator speaks for itself.
    this.status.textContent = live.progress.stage === "ready" ? "Running\u2026" : "";
    this.announce(live.progress.stage === "ready" ? "Running." : "Starting Python, then running.");
    live.ready().then(() => {
      if (this.running && !this.status.textContent) this.status.textContent = "Running\u2026";
    }, () => {});
    const started = performance.now();
    try {
      const answer = await live.call("run", { code, session: this.session }, {
        onStream: (stream, text) => this.write(stream, text),
      });
      const ms = performance.now() - started;
      timings.lastConsoleRunMs = ms;
      const said = { ok: "Done", error: "Finished with an error", interrupted: "Stopped", exit: "Finished (SystemExit)" }[answer.outcome] || "Done";
      this.status.textContent = said + " in " + formatMs(answer.ms) + ".";
    } catch (error) {
      if (error instanceof StoppedError) {
        this.write("note", "Stopped. This page is not cross-origin isolated, so Python cannot be interrupted in place: " +
          "it was restarted, and the variables you defined are gone.\n");
        this.status.textContent = "Stopped; Python restarted.";
      } else {
        this.write("stderr", error.message + "\n");
        this.status.textContent = "Python could not run the code.";
      }
    } finally {
      if (this.queued.scheduled || this.queued.text.length) this.paint(); // output first, then "done"
      this.setRunning(false);
      this.stopping = false;
      this.announce(this.status.textContent);
    }
  }

  async stop() {
    if (!this.running || !this.live) return;
    this.stopping = true;
    this.status.textContent = "Stopping\u2026";
    const asked = performance.now();
    const { mode } = await this.live.stop();
    timings.lastStopMs = performance.now() - asked;
    timings.lastStopMode = mode;
  }
}

function formatMs(ms) {
  return ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(1) + " s";
}
