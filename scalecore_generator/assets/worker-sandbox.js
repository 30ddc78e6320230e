// The console's box: what Python in the Python worker (worker.js) can reach, and how the page
// tells the worker's own messages from anything else.
//
// Console code runs in Pyodide inside the worker, and Python sees the worker's globals:
// `import js` is globalThis, and pyodide.ffi / pyodide_js reach the same objects. Two functions
// keep that code in its box:
//
//   connectPage(onMessage) -> post
//       The page transfers one end of a MessageChannel in its init message; the worker talks to
//       the page only through it, and the port lives in this module's closure, never on
//       globalThis. The page listens to that port only (live.js, privateChannel): a message
//       Python sends with self.postMessage (or js.postMessage) is ignored, so it can never pass
//       for a progress, ready, stream or result message of the site.
//   confine()
//       Run once Pyodide has loaded and before any other Python (the wheel, the prelude, any
//       request). From then on every API that sends a request is limited to the site's own
//       origin (and the package mirror's, when the site has one): fetch, XMLHttpRequest, WebSocket, WebSocketStream, EventSource, WebTransport,
//       importScripts, Cache.add/addAll and navigator.sendBeacon (where it exists). Refused
//       outright: what would run code outside this box (Worker, SharedWorker, and eval, the
//       Function constructors and setTimeout/setInterval with a string of code, any of which
//       could run a dynamic import() from another origin), BroadcastChannel (messages to the
//       site's other pages), FontFace and Notification (they load URLs), and the storage the
//       site's pages keep (indexedDB, caches, navigator.storage.getDirectory: the mentor keeps
//       the files a reader attached there, and code pasted into the console must not read
//       them). Uncaught errors are
//       kept in the worker (logged there): an error event must not become a page message.
//       Pyodide's own later fetches (same origin) and load_table() keep working.
//
// How the wrapping holds:
// - The originals are kept in this module's closures only. A wrapper is written on every
//   object of the global's prototype chain that had the name (Chromium has fetch both on the
//   global and on WorkerGlobalScope.prototype) and on the interfaces' prototype.constructor,
//   as non-writable, non-configurable properties: assigning, `delete`, defineProperty or
//   Object.getPrototypeOf(...) cannot bring an original back.
// - The wrappers call only intrinsics captured when this module loaded (before any Python):
//   Reflect.apply/construct, the URL and Request getters, MessageEvent's data getter,
//   MessagePort.prototype.postMessage, ... A prototype method Python patches later therefore
//   never receives an original, an unchecked URL or the port. A URL is read once (a Python
//   object's str() could change between a check and a use) and passed on as the checked string.
// - A page-level CSP does not cover a worker loaded from a URL, so nothing here relies on one.
//
// Known limits (a best effort, stated plainly):
// - A request to the site's own origin that the site's server redirects elsewhere is followed:
//   the site's own server is trusted (a static host has no open redirect).
// - Storage is closed by name (indexedDB, caches, the origin's private file system): a storage
//   API a later browser adds is not covered until it is listed here.
// - Console code and live mode share one interpreter: console code can change what later live
//   computations return (it can monkeypatch scalecore). Such answers reach the page only as the
//   answer to the page's own request, shown as text where that answer goes; Stop (a restart,
//   where the page is not cross-origin isolated) gives a fresh interpreter.
// - Busy loops and memory are not limited here (Stop is for those), and a network API a later
//   browser adds is not covered until it is listed here.

const G = globalThis;
const { apply, construct, defineProperty, getOwnPropertyDescriptor, getPrototypeOf, setPrototypeOf, ownKeys } = Reflect;
const defineOrThrow = Object.defineProperty;
const getter = (object, name) => getOwnPropertyDescriptor(object, name).get;
const URL_ = URL;
const hrefOf = getter(URL.prototype, "href");
const originOf = getter(URL.prototype, "origin");
const requestURL = getter(Request.prototype, "url");
const dataOf = getter(MessageEvent.prototype, "data");
const errorMessageOf = getter(ErrorEvent.prototype, "message");
const preventDefault = Event.prototype.preventDefault;
const addEventListener = EventTarget.prototype.addEventListener;
const removeEventListener = EventTarget.prototype.removeEventListener;
const MessagePort_ = MessagePort;
const postOnPort = MessagePort.prototype.postMessage;
const promiseReject = Promise.reject;
const Promise_ = Promise;
const console_ = console;
const warn = console.warn;
const Error_ = Error;
const TypeError_ = TypeError;

// The worker's own origin is the site's (the page loads worker.js from the site).
const ORIGIN = G.location.origin;
const SOCKET_ORIGIN = "ws" + ORIGIN.slice(4); // "http:" becomes "ws:", "https:" becomes "wss:"
const BASE = G.location.href;

class BlockedError extends Error_ {
  constructor(message) {
    super(message);
    defineProperty(this, "name", { __proto__: null, value: "SecurityError", writable: true, configurable: true });
  }
}

// ------------------------------------------------------------------------------- the page

let connected = false;

/* Talk to the page over the port it sends in its init message. onMessage(data) gets the init
   message ({type: "init", payload}) and then every request; returns post(message). */
export function connectPage(onMessage) {
  if (connected) throw new Error_("connectPage() runs once");
  connected = true;
  let port = null;
  const first = (event) => {
    const data = apply(dataOf, event, []);
    if (port !== null || !data || data.type !== "init" || !(data.port instanceof MessagePort_)) return;
    port = data.port;
    apply(removeEventListener, G, ["message", first]);
    port.onmessage = (message) => onMessage(apply(dataOf, message, []));
    onMessage({ type: "init", payload: data.payload });
  };
  apply(addEventListener, G, ["message", first]);
  return (message) => {
    if (port !== null) apply(postOnPort, port, [message]);
  };
}

// ------------------------------------------------------------------------------- the network

/* The checked form of a URL argument: a genuine Request of this origin as it is, anything
   else as the absolute URL string of this origin it names; throws for any other origin. */
function sameOrigin(input, api, socket = false) {
  let text;
  let request = false;
  try {
    text = apply(requestURL, input, []); // only a genuine Request has one; its URL is fixed
    request = true;
  } catch (notRequest) {
    text = `${input}`; // read once
  }
  let url;
  try {
    url = construct(URL_, [text, BASE]);
  } catch (invalid) {
    throw new TypeError_(`${api}: ${JSON.stringify(text)} is not a valid URL`);
  }
  const origin = apply(originOf, url, []);
  const href = apply(hrefOf, url, []);
  if (origin === "null" || (origin !== ORIGIN && !(socket && origin === SOCKET_ORIGIN) && !isAlsoAllowed(origin))) {
    throw new BlockedError(`${api}: requests to other origins are blocked here; ${href} is not on this ` +
      `site (${ORIGIN}), the only origin code in the console can reach`);
  }
  return request ? input : href;
}

function refusal(api, why) {
  return new BlockedError(`${api} is blocked here: ${why}. Code in the console can only reach this site (${ORIGIN}).`);
}

/* value, on every object of the global's prototype chain that has `name`, for good. */
function lockGlobal(name, value) {
  for (let object = G; object !== null; object = getPrototypeOf(object)) {
    if (getOwnPropertyDescriptor(object, name) !== undefined) lock(object, name, value);
  }
}

/* A getter that throws, in place of the accessor G[name] on every object of the chain, for good. */
function lockGlobalGetter(name, get) {
  for (let object = G; object !== null; object = getPrototypeOf(object)) {
    const old = getOwnPropertyDescriptor(object, name);
    if (old !== undefined) {
      defineOrThrow(object, name, { __proto__: null, get: rename(get, `get ${name}`), set: undefined,
        enumerable: old.enumerable, configurable: false });
    }
  }
}

function lock(object, name, value) {
  const old = getOwnPropertyDescriptor(object, name);
  defineOrThrow(object, name, { __proto__: null, value, writable: false, enumerable: old ? old.enumerable : false, configurable: false });
}

function rename(fn, name) {
  defineOrThrow(fn, "name", { __proto__: null, value: name, configurable: true });
  return fn;
}

/* A constructor in place of G[name]: `check(args)` runs first (it throws to refuse). Instances
   keep the original prototype; its `constructor` becomes the wrapper, so no instance or
   prototype leads back to the original. */
function replaceConstructor(name, check) {
  const Original = G[name];
  if (typeof Original !== "function") return;
  const Wrapper = rename(function (...args) {
    if (new.target === undefined) throw new TypeError_(`Failed to construct '${name}': Please use the 'new' operator.`);
    check(args);
    return construct(Original, args);
  }, name);
  Wrapper.prototype = Original.prototype;
  setPrototypeOf(Wrapper, getPrototypeOf(Original));
  for (const key of ownKeys(Original)) { // constants such as WebSocket.OPEN
    if (key !== "prototype" && key !== "length" && key !== "name") defineOrThrow(Wrapper, key, getOwnPropertyDescriptor(Original, key));
  }
  lock(Original.prototype, "constructor", Wrapper);
  lockGlobal(name, Wrapper);
}

/* A method in place of object[name], same rule. */
function replaceMethod(object, name, make) {
  for (let owner = object; owner !== null; owner = getPrototypeOf(owner)) {
    const descriptor = getOwnPropertyDescriptor(owner, name);
    if (descriptor === undefined) continue;
    if (typeof descriptor.value === "function") lock(owner, name, rename(make(descriptor.value), name));
    return;
  }
}

let confined = false;
let alsoAllowed = []; // origins besides the site's: the package mirror a deployer configured

function isAlsoAllowed(origin) {
  for (let i = 0; i < alsoAllowed.length; i += 1) if (alsoAllowed[i] === origin) return true;
  return false;
}

/* Limit what code in this worker can reach (see the top of this file). Once, before user code.
   ``origins``: other origins requests may go to (the site's package mirror, option
   package_mirror), kept in a frozen private copy. */
export function confine(origins = []) {
  if (confined) return;
  confined = true;
  const copy = [];
  for (let i = 0; i < origins.length; i += 1) copy[i] = `${origins[i]}`;
  alsoAllowed = Object.freeze(copy);

  // fetch: a refused URL rejects, like any failed fetch.
  const fetch0 = G.fetch;
  lockGlobal("fetch", rename(function (input, init) {
    let checked;
    try {
      checked = sameOrigin(input, "fetch");
    } catch (error) {
      return apply(promiseReject, Promise_, [error]);
    }
    return apply(fetch0, G, [checked, init]);
  }, "fetch"));

  replaceMethod(XMLHttpRequest.prototype, "open", (open) => function (...args) {
    if (args.length > 1) args[1] = sameOrigin(args[1], "XMLHttpRequest");
    return apply(open, this, args);
  });

  for (const name of ["WebSocket", "WebSocketStream", "EventSource", "WebTransport"]) {
    const socket = name.startsWith("WebSocket"); // ws: and wss: URLs of this host count as its origin
    replaceConstructor(name, (args) => {
      if (args.length > 0) args[0] = sameOrigin(args[0], name, socket);
    });
  }

  if (typeof G.importScripts === "function") {
    const importScripts0 = G.importScripts;
    lockGlobal("importScripts", rename(function (...urls) {
      for (let i = 0; i < urls.length; i += 1) urls[i] = sameOrigin(urls[i], "importScripts");
      return apply(importScripts0, G, urls);
    }, "importScripts"));
  }

  if (G.navigator) {
    replaceMethod(G.navigator, "sendBeacon", (send) => function (...args) {
      if (args.length > 0) args[0] = sameOrigin(args[0], "navigator.sendBeacon");
      return apply(send, this, args);
    });
  }

  if (typeof G.Cache === "function") {
    const add0 = G.Cache.prototype.add;
    replaceMethod(G.Cache.prototype, "add", (add) => function (request) {
      try {
        return apply(add, this, [sameOrigin(request, "Cache.add")]);
      } catch (error) {
        return apply(promiseReject, Promise_, [error]);
      }
    });
    // One add per URL: the original addAll would read our checked list through
    // Array.prototype[Symbol.iterator], which Python may have patched.
    replaceMethod(G.Cache.prototype, "addAll", () => async function (requests) {
      const checked = [];
      for (const request of requests) {
        defineOrThrow(checked, checked.length, { __proto__: null, value: sameOrigin(request, "Cache.addAll"), writable: true, enumerable: true, configurable: true });
      }
      for (let i = 0; i < checked.length; i += 1) await apply(add0, this, [checked[i]]);
    });
  }

  const refuse = (why) => (name) => () => {
    throw refusal(name, why);
  };
  const ownCode = refuse("it would run code outside the console's box");
  for (const name of ["Worker", "SharedWorker"]) replaceConstructor(name, ownCode(name));
  replaceConstructor("BroadcastChannel", refuse("it would send messages to this site's pages")("BroadcastChannel"));
  // The site's storage: what a reader keeps on this site (the mentor's attached files) is
  // theirs, not the console's.
  const kept = "it holds what the reader keeps on this site (such as the files attached to the mentor)";
  for (const name of ["indexedDB", "caches"]) lockGlobalGetter(name, function () { throw refusal(name, kept); });
  if (G.StorageManager) replaceMethod(G.StorageManager.prototype, "getDirectory", () => function () {
    throw refusal("navigator.storage.getDirectory", kept);
  });
  for (const name of ["FontFace", "Notification"]) replaceConstructor(name, refuse("it loads URLs")(name));

  // Code from strings: eval, the four Function constructors, setTimeout/setInterval("code").
  const fromString = "JavaScript from a string could import() code from another origin";
  lockGlobal("eval", rename(function () {
    throw refusal("eval", fromString);
  }, "eval"));
  // eslint-disable-next-line no-empty-function
  for (const sample of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    const prototype = getPrototypeOf(sample);
    const name = prototype.constructor.name; // Function, AsyncFunction, GeneratorFunction, ...
    const Refused = rename(function () {
      throw refusal(name, fromString);
    }, name);
    Refused.prototype = prototype; // `instanceof Function` keeps working
    lock(prototype, "constructor", Refused);
    if (name === "Function") lockGlobal("Function", Refused);
  }
  for (const name of ["setTimeout", "setInterval"]) {
    const original = G[name];
    lockGlobal(name, rename(function (...args) {
      if (typeof args[0] !== "function") throw refusal(`${name} with a string`, fromString);
      return apply(original, G, args);
    }, name));
  }

  // An uncaught error would reach the page as the Worker's error event: keep it here.
  apply(addEventListener, G, ["error", (event) => {
    apply(preventDefault, event, []);
    try {
      apply(warn, console_, ["scalecore: an uncaught error in the Python worker was kept from the page:",
        apply(errorMessageOf, event, [])]);
    } catch (notLogged) { /* a synthetic event, or a console Python replaced */ }
  }, true]);
}
