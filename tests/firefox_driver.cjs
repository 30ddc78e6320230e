/* Debian's firefox-esr, driven over WebDriver BiDi by puppeteer-core, for tests/test_serve_firefox.py.
 *
 *   node tests/firefox_driver.cjs PROFILE_DIR [FIREFOX]
 *
 * One JSON command a line on stdin, one JSON answer a line on stdout ({"ok": true, ...} or
 * {"ok": false, "error": ...}); stdout carries nothing else. Commands:
 *
 *   {"op": "goto", "url": U}                 navigate, until the load event
 *   {"op": "reload"}                         reload, until the load event
 *   {"op": "evaluate", "expression": E}      E's value (a promise is awaited)
 *   {"op": "wait", "expression": E, "timeout": MS}
 *                                            poll E every 100 ms until it is truthy (through the
 *                                            page's own reloads); "elapsed" is how long it took
 *   {"op": "problems"}                       what the page did wrong since the start (below)
 *   {"op": "close"}                          close Firefox and end
 *
 * Watched from the start, in every document the tab loads: Content-Security-Policy violations
 * (a securitypolicyviolation listener installed before any script of the page runs), console
 * errors, uncaught errors, HTTP errors and requests to another origin than the first page's.
 *
 * Expressions are evaluated with BiDi's script.evaluate, never wrapped in new Function(), so a
 * page whose policy forbids eval runs them as written (puppeteer's waitForFunction builds a
 * function from a string, which that policy refuses).
 */
"use strict";

const path = require("path");
const readline = require("readline");

const puppeteer = require(path.join(__dirname, "..", "build_tools", "node_modules", "puppeteer-core"));

const profile = process.argv[2];
const executablePath = process.argv[3] || "/usr/bin/firefox-esr";

const LEAVING = "[logged while the page was being left]";

// Before any script of a document: its policy's violations, reported as console errors, and
// console.error's arguments as text (an Error as its message and stack, which the protocol's
// console entry does not carry), marked when the document was already being left (a reload, a
// navigation): loads the browser cuts off then fail in the page that is going away.
const WATCH = `(() => {
  document.addEventListener("securitypolicyviolation", (e) => console.error("CSP violation: " + e.violatedDirective +
    " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber));
  let leaving = false;
  const leave = () => { if (!leaving) console.debug("${LEAVING}"); leaving = true; };
  addEventListener("beforeunload", leave, true);
  addEventListener("pagehide", leave, true);
  const error = console.error;
  console.error = function (...args) {
    const parts = args.map((a) => a instanceof Error ? String(a) + (a.stack ? "\\n" + a.stack : "") : a);
    return error.apply(this, leaving ? ["${LEAVING}", ...parts] : parts);
  };
})();`;
const NAVIGATING = /context|destroyed|navigat|discarded|no such (frame|node|realm)|realm/i;

const problems = [];
let origin = null;
let browser;
let page;

function answer(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

async function evaluate(expression) {
  return page.evaluate(expression);
}

async function wait(expression, timeout) {
  const started = Date.now();
  let last = null;
  for (;;) {
    try {
      if (await evaluate(expression)) return { elapsed: Date.now() - started };
    } catch (error) {
      last = String(error && error.message || error);
      if (!NAVIGATING.test(last)) throw error;  // a reload in progress is not a failure
    }
    if (Date.now() - started > timeout) {
      throw new Error("timed out after " + timeout + " ms waiting for " + expression + (last ? " (last error: " + last + ")" : ""));
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function run(command) {
  switch (command.op) {
    case "goto":
      if (origin === null) origin = new URL(command.url).origin;
      await page.goto(command.url, { waitUntil: "load", timeout: command.timeout || 60000 });
      return {};
    case "reload":
      await page.reload({ waitUntil: "load", timeout: command.timeout || 60000 });
      return {};
    case "evaluate":
      return { value: await evaluate(command.expression) };
    case "wait":
      return await wait(command.expression, command.timeout || 30000);
    case "problems":
      return { problems: problems.slice() };
    case "close":
      await browser.close();
      return {};
    default:
      throw new Error("unknown command " + command.op);
  }
}

async function main() {
  browser = await puppeteer.launch({ browser: "firefox", executablePath, headless: true, userDataDir: profile,
    defaultViewport: { width: 1280, height: 900 } });
  page = await browser.newPage();
  await page.evaluateOnNewDocument(WATCH);
  // The browser's own reports of a page being left (a load it cut off, which a service worker
  // then failed to answer) carry no mark from the page: the page said it was leaving (WATCH), and
  // what comes before the next document is marked here.
  let left = false;
  page.on("framenavigated", (frame) => { if (frame === page.mainFrame()) left = false; });
  page.on("console", (message) => {
    if (message.type() === "debug" && message.text() === LEAVING) left = true;
    if (message.type() === "error") problems.push("console error: " + message.text());
  });
  page.on("pageerror", (error) => problems.push((left ? "console error: " + LEAVING + " " : "") +
    "uncaught in the page: " + (error && error.message || error)));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push("HTTP " + response.status() + " for " + response.url());
  });
  page.on("request", (request) => {
    const url = request.url();
    if (origin !== null && /^https?:/.test(url) && new URL(url).origin !== origin) problems.push("request to another origin: " + url);
  });
  answer({ ok: true, version: await browser.version() });

  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const command = JSON.parse(line);
    try {
      answer(Object.assign({ ok: true }, await run(command)));
    } catch (error) {
      answer({ ok: false, error: String(error && error.stack || error) });
    }
    if (command.op === "close") break;
  }
  if (browser.connected) await browser.close();
}

main().catch((error) => {
  answer({ ok: false, error: String(error && error.stack || error) });
  process.exit(1);
});
