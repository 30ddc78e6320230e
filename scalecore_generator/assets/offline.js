/* Offline reading: registers the site's service worker and offers "Make this site available
 * offline" in the header.
 *
 * The worker (scalecore_generator/builder/service-worker.js, served at the site root) keeps what the
 * reader uses; the dialog states the size of the rest before anything is fetched (the pages, and
 * separately the live runtime, which is most of the bytes), then shows progress. When a newer
 * build's worker has taken over while this page was open, a notice offers one action: reload into
 * the new version (in every open tab of the site).
 *
 * A page a development server serves (mkdocs serve: the build marks it with a scalecore-serve
 * meta) registers no worker: an edit must show on the next reload (builder/service-worker-step-aside.js).
 *
 * A classic, deferred script that does its work when the browser is idle: nothing here holds up
 * the first paint. From disk (file://) there is nothing to install: the dialog says why, in words.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  if (!script) return;
  var ROOT = new URL("../../", script.src); // assets/scalecore/offline.js -> the site root
  var WORKER = new URL("coi-serviceworker.js", ROOT).href;
  var served = /^https?:$/.test(location.protocol);
  var developing = !!document.querySelector('meta[name="scalecore-serve"]');
  var usable = served && !developing && window.isSecureContext && "serviceWorker" in navigator;
  var registration = null;
  // A page the worker did not serve (the first visit, a hard reload) hands it the files it loaded.
  var uncontrolled = usable && !navigator.serviceWorker.controller;
  var status = null; // the worker's last {sizes, saved}
  var saving = false;

  function idle(work) {
    if ("requestIdleCallback" in window) window.requestIdleCallback(work, { timeout: 4000 });
    else setTimeout(work, 200);
  }

  function megabytes(bytes) {
    return (bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0) + " MB";
  }

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    if (text) node.textContent = text;
    return node;
  }

  /* ---- the worker ---------------------------------------------------------------------------- */

  function ask(message) {
    var target = navigator.serviceWorker.controller || (registration && registration.active);
    if (target) target.postMessage(message);
    return !!target;
  }

  function register() {
    navigator.serviceWorker.addEventListener("message", heard);
    navigator.serviceWorker.startMessages();
    navigator.serviceWorker.register(WORKER, { updateViaCache: "none" }).then(function (found) {
      registration = found;
      nudgeWaiting(found);
      watchUpdates();
      return navigator.serviceWorker.ready;
    }).then(function (ready) {
      registration = ready;
      // What this page loaded before the worker controlled it (the first visit) is kept too.
      if (uncontrolled) {
        var used = [location.href].concat(performance.getEntriesByType("resource").map(function (entry) {
          return entry.name;
        }));
        ready.active.postMessage({ type: "keep", urls: used });
      }
      ready.update().catch(function () { /* offline: the worker keeps serving its build */ });
    }).catch(function () { /* refused (private mode, a setting): the site works as before, online */ });
  }

  /* A newer worker that has installed calls skipWaiting() and should take over at once; Chrome
     defers that while the older worker is busy (a page's request that just brought the newer
     build), and with two tabs open it then stayed waiting, and the next navigation in the other
     tab hung on it. Every open page asks a waiting worker again: it takes over at once. */
  function nudgeWaiting(found) {
    function nudge(worker) { if (worker && worker.state === "installed") worker.postMessage({ type: "skip-waiting" }); }
    nudge(found.waiting);
    found.addEventListener("updatefound", function () {
      var installing = found.installing;
      if (installing) installing.addEventListener("statechange", function () { nudge(installing); });
    });
  }

  // The files of a newer build the worker served (site path -> when each was asked for, ms since
  // the epoch): those this page loaded then are of the newer build already.
  var newerFiles = {};
  var SAME_LOAD_MS = 300; // the worker's clock and the page's, for one request (a few ms apart)

  function heard(event) {
    var data = event.data || {};
    if (data.type === "newer-file" && typeof data.path === "string") {
      (newerFiles[data.path] = newerFiles[data.path] || []).push(Number(data.started) || 0);
    }
    if (data.type === "status") { compareBuild(data); if (document.getElementById("scalecore-offline")) showStatus(data); }
    else if (data.type === "progress") showProgress(data);
    else if (data.type === "saved") finished(data);
    else if (data.type === "failed") failed(data);
    else if (data.type === "newer-build" && registration) registration.update().catch(function () {});
  }

  /* ---- updates ------------------------------------------------------------------------------- */

  // A newer build's worker takes over as soon as it is ready (the network answers first, so this
  // page lost nothing): a page of an older build is told, with one action. Which build a page is,
  // its worker said in the page's answer (Server-Timing "scalecore": a build, or "newer" for a page
  // the network gave after a newer build was published, already of that build).
  var pageBuild = (function () {
    var entry = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    var stamp = entry && entry.serverTiming ? entry.serverTiming.filter(function (timing) {
      return timing.name === "scalecore";
    })[0] : null;
    return stamp ? stamp.description : null;
  })();

  function watchUpdates() {
    // A tab left open is told too: the browser looks for a newer worker only when a page is
    // loaded, so this page asks when the reader comes back to it, and every half hour it is shown.
    var update = function () { if (registration) registration.update().catch(function () {}); };
    document.addEventListener("visibilitychange", function () { if (document.visibilityState === "visible") update(); });
    setInterval(function () { if (document.visibilityState === "visible") update(); }, 30 * 60 * 1000);
    var held = !!navigator.serviceWorker.controller;
    if (held && pageBuild === null) adoptBuild(); // the first visit's page, claimed before this ran
    navigator.serviceWorker.addEventListener("controllerchange", function () {
      if (held && pageBuild !== "newer") {
        askedForBuild = "compare";
        ask({ type: "status", since: pageBuild }); // the answer (heard) says the new worker's build and what it changed
      } else if (!held && pageBuild === null) {
        adoptBuild();
      }
      held = true;
    });
  }

  /* The first visit: the page came from the network, of the build whose worker it registered; it
     learns which, to be compared with a later one. */
  function adoptBuild() {
    askedForBuild = "adopt";
    ask({ type: "status" });
  }

  var askedForBuild = null;
  function compareBuild(data) {
    var asked = askedForBuild;
    askedForBuild = null;
    if (asked === "adopt" && data.build) pageBuild = data.build;
    if (asked !== "compare") return;
    if (data.build && data.build === pageBuild) return;
    if (data.build && Array.isArray(data.changed) && !usedAny(data.changed)) { pageBuild = data.build; return; }
    offerUpdate();
  }

  /* Whether this page, or a file it loaded in its older version, is one of these site paths (a
     file it got from the newer build already does not count, nor the search index: a search finds
     the pages either way). Unsure (the browser's list of loaded files full) counts as yes. */
  function usedAny(paths) {
    var loaded = performance.getEntriesByType("resource");
    if (loaded.length >= 250) return true; // the browser's default buffer: it may have dropped some
    var changed = {};
    paths.forEach(function (path) { if (path.indexOf("search/") !== 0) changed[path] = true; });
    if (changed[sitePath(location.href)]) return true;
    return loaded.some(function (entry) {
      var path = sitePath(entry.name);
      return path !== null && changed[path] && !fromNewer(path, performance.timeOrigin + entry.startTime);
    });
  }

  /* Whether the worker said it served the newer build's file at ``path`` for a request made at
     ``asked`` (ms since the epoch): this page's load of it. */
  function fromNewer(path, asked) {
    return (newerFiles[path] || []).some(function (started) { return Math.abs(started - asked) < SAME_LOAD_MS; });
  }

  /* A URL's path in the site (a folder is its index.html), as the worker's listing names it; null elsewhere. */
  function sitePath(url) {
    var parsed = new URL(url, location.href);
    if (parsed.origin !== ROOT.origin || parsed.pathname.indexOf(ROOT.pathname) !== 0) return null;
    var path;
    try { path = decodeURIComponent(parsed.pathname.slice(ROOT.pathname.length)); } catch (error) { return null; }
    return path === "" || path.charAt(path.length - 1) === "/" ? path + "index.html" : path;
  }

  function offerUpdate() {
    if (document.querySelector(".scalecore-update")) return;
    var notice = element("div", { class: "scalecore-update", role: "status" });
    notice.appendChild(element("p", { class: "scalecore-update__text" },
      "This site was updated while this page was open. Reload to read the newest version."));
    var button = element("button", { type: "button", class: "md-button md-button--primary scalecore-update__reload" },
      "Reload to update");
    button.addEventListener("click", function () { location.reload(); });
    notice.appendChild(button);
    document.body.appendChild(notice);
  }

  /* ---- the control and its dialog ------------------------------------------------------------- */

  var ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" aria-hidden="true" focusable="false">' +
    '<path d="M5 20h14v-2H5v2zM19 9h-4V3H9v6H5l7 7 7-7z"/></svg>';

  function dialog() {
    var found = document.getElementById("scalecore-offline");
    if (found) return found;
    var id = "scalecore-offline-title";
    var box = element("dialog", { id: "scalecore-offline", class: "scalecore-offline", "aria-labelledby": id });
    box.appendChild(element("h2", { id: id }, "Make this site available offline"));
    var intro = box.appendChild(element("p", { class: "scalecore-offline__intro" }));
    if (developing) {
      intro.textContent = "This is a preview from a development server (mkdocs serve): pages are not kept, so that " +
        "every edit shows on the next reload. The site that mkdocs build writes offers to save itself here.";
    } else if (!served) {
      intro.textContent = "You are reading a copy of this site from your disk: every page already opens without a " +
        "network. Saving the site in the browser and being told of new versions work when the site is served over http.";
    } else if (!usable) {
      intro.textContent = "This browser does not let the site keep its pages (service workers are off, as in some " +
        "private windows), so pages need the network here.";
    } else {
      intro.textContent = "Pages you have read are kept on this device already. Save the rest to read every page " +
        "without a network; you will be told when a newer version is ready.";
      var choices = box.appendChild(element("fieldset", { class: "scalecore-offline__choices" }));
      choices.appendChild(element("legend", {}, "What to save"));
      [["site", "Pages, styles, fonts and data"], ["runtime", "All of that and the live runtime (Python in the page, the console, the mentor's model where the site has one)"],
        ["stack", "All of that and the console's full scientific stack (numpy, pandas, scikit-learn, matplotlib)"]]
        .forEach(function (choice) {
          var label = choices.appendChild(element("label", { class: "scalecore-offline__choice", "data-choice": choice[0] }));
          var input = label.appendChild(element("input", { type: "radio", name: "scalecore-offline-what", value: choice[0] }));
          if (choice[0] === "site") input.checked = true;
          label.appendChild(element("span", {}, choice[1]));
          label.appendChild(element("span", { class: "scalecore-offline__size", "data-size": choice[0] }, "size: asking…"));
        });
      choices.addEventListener("change", showSaveAction);
      var progress = box.appendChild(element("progress", { class: "scalecore-offline__progress", max: "1", value: "0",
        "aria-label": "Saved so far" }));
      progress.hidden = true;
    }
    box.appendChild(element("p", { class: "scalecore-offline__status", role: "status", "aria-live": "polite" }));
    var actions = box.appendChild(element("div", { class: "scalecore-offline__actions" }));
    if (usable) {
      var save = actions.appendChild(element("button", { type: "button", class: "md-button md-button--primary",
        "data-action": "save" }, "Save for offline"));
      save.disabled = true;
      save.addEventListener("click", startSaving);
    }
    actions.appendChild(element("button", { type: "button", class: "md-button", "data-action": "close" }, "Close"))
      .addEventListener("click", function () { box.close(); });
    document.body.appendChild(box);
    return box;
  }

  function open() {
    var box = dialog();
    if (!box.open) box.showModal();
    if (usable && !saving) {
      // The sizes come from the worker, once it runs (at once, but on the first visit).
      navigator.serviceWorker.ready.then(function () { ask({ type: "status" }); });
    }
  }

  function say(text) {
    var line = document.querySelector(".scalecore-offline__status");
    if (line) line.textContent = text;
  }

  function showStatus(data) {
    if (data.error || !data.sizes) { say("The sizes could not be read: " + (data.error || "no answer") + "."); return; }
    status = data;
    var sizes = data.sizes;
    var box = dialog();
    var missing = 0, total = 0;
    left = {};
    [["site", "Site"], ["runtime", "Runtime"], ["stack", "Stack"]].forEach(function (level) {
      missing += sizes[level[0]] - sizes["kept" + level[1]];
      total += sizes[level[0]];
      left[level[0]] = missing;
      box.querySelector('[data-choice="' + level[0] + '"]').hidden = level[0] !== "site" && sizes[level[0]] === 0;
      box.querySelector('[data-size="' + level[0] + '"]').textContent = missing
        ? megabytes(missing) + " to download (" + megabytes(total) + " in all)" : "saved (" + megabytes(total) + ")";
    });
    showSaveAction();
    if (data.saved) say(SAVED[data.saved.level] || "");
  }

  /* What the chosen level leaves to download, from the worker's last status (null: not heard yet). */
  var left = null;

  /* The save action offers what is left: none while saving or before the sizes are known, and
     "Saved" once the chosen level is on this device (choosing a bigger level offers it again). */
  function showSaveAction() {
    var box = document.getElementById("scalecore-offline");
    var save = box && box.querySelector('[data-action="save"]');
    var chosen = box && box.querySelector('input[name="scalecore-offline-what"]:checked');
    if (!save || !chosen) return;
    var done = left !== null && left[chosen.value] === 0;
    save.disabled = saving || left === null || done;
    save.textContent = done ? "Saved" : "Save for offline";
  }

  var SAVED = {
    site: "Every page of this site opens without a network now (not the live runtime).",
    runtime: "Every page, live mode and the console open without a network now.",
    stack: "Every page, live mode and the console with its full scientific stack open without a network now.",
  };

  function startSaving() {
    var box = dialog();
    var level = box.querySelector('input[name="scalecore-offline-what"]:checked').value;
    saving = true;
    box.querySelector('[data-action="save"]').disabled = true;
    box.querySelector(".scalecore-offline__progress").hidden = false;
    if (!ask({ type: "save", level: level })) { saving = false; say("The site's worker is not running yet."); }
  }

  function showProgress(data) {
    if (!saving) return;  // a late report never hides why saving stopped
    var bar = document.querySelector(".scalecore-offline__progress");
    if (bar) { bar.max = Math.max(data.totalBytes, 1); bar.value = data.bytes; }
    say("Saving: " + data.files + " of " + data.totalFiles + " files, " + megabytes(data.bytes) + " of " +
      megabytes(data.totalBytes) + ".");
  }

  function finished(data) {
    saving = false;
    say("Done: " + SAVED[data.level].charAt(0).toLowerCase() + SAVED[data.level].slice(1));
    ask({ type: "status" });
    var line = document.querySelector(".scalecore-offline__status");
    if (line) line.setAttribute("data-done", "");
  }

  /* Why saving stopped, in the reader's terms: a newer build, the browser's storage full (with what
     it holds), the network gone, or the reason as the worker gave it. What was saved stays. */
  function failed(data) {
    saving = false;
    showSaveAction();
    if (data.newer) { say("A newer version of this site was published meanwhile: reload to update, then save again."); return; }
    if (data.network) { say("Saving stopped: the network could not be reached. What was saved is kept; try again when the network is back."); return; }
    if (!data.quota) { say("Saving stopped: " + String(data.reason).replace(/\.+$/, "") + ". What was saved is kept; try again."); return; }
    var full = "Saving stopped: this browser gives the site no more room on this device";
    var advice = ". What was saved is kept. Free some space (or allow this site more storage), or save less: the pages alone.";
    var estimate = navigator.storage && navigator.storage.estimate ? navigator.storage.estimate() : Promise.reject();
    estimate.then(function (found) {
      say(full + " (" + megabytes(found.usage || 0) + " used of the " + megabytes(found.quota || 0) + " it allows)" + advice);
    }, function () { say(full + advice); });
  }

  /* The button sits in Material's header, before the search button (on every page: instant
     navigation may swap the header's parts, so it is put back when missing). */
  function placeButton() {
    var header = document.querySelector(".md-header__inner");
    if (!header || header.querySelector(".scalecore-offline__button")) return;
    var button = element("button", { type: "button", class: "md-header__button md-icon scalecore-offline__button",
      title: "Make this site available offline", "aria-label": "Make this site available offline",
      "aria-haspopup": "dialog" });
    button.innerHTML = ICON;
    button.addEventListener("click", open);
    var before = header.querySelector('label.md-header__button[for="__search"]') || header.querySelector(".md-search");
    header.insertBefore(button, before && before.parentNode === header ? before : null);
  }

  /* A development server's page: no worker of this site holds it and no cache of this site
     outlives it. A worker a built site left on this origin still controls the page that brought
     the dev server's answer: it is unregistered and the page comes again from the dev server,
     with nothing holding it. The caches go on every dev page, the one after the reload included:
     until the page it controlled was left, the old worker kept what that page loaded (in Firefox,
     the panels' code, stored after the caches had gone once); nothing reaches it once no page is
     held. This site's registrations only (its folder's scope, and the one holding the page):
     another site of the origin keeps its own. */
  function stepAside() {
    if (!navigator.serviceWorker) return;
    var held = !!navigator.serviceWorker.controller;
    var worker = navigator.serviceWorker;
    Promise.all([worker.getRegistration(location.href), worker.getRegistrations()]).then(function (found) {
      var holding = found[0] ? found[0].scope : null; // whatever its scope: the page comes back without it
      return Promise.all(found[1].filter(function (registration) {
        return registration.scope === holding || registration.scope.indexOf(ROOT.href) === 0;
      }).map(function (registration) { return registration.unregister(); }));
    }).then(function () {
      return window.caches ? caches.keys() : [];
    }).then(function (names) {
      // This site's caches (named by its scope, builder/service-worker.js), and older ones that list its files.
      var scoped = "scalecore-" + ROOT.pathname + ":";
      var listing = new URL("offline.json", ROOT).href;
      return Promise.all(names.map(function (name) {
        if (name.indexOf(scoped) === 0) return caches.delete(name);
        if (!/^scalecore-[0-9a-f]{20}$/.test(name)) return null;
        return caches.match(listing, { cacheName: name }).then(function (found) { return found && caches.delete(name); });
      }));
    }).then(function () { if (held) location.reload(); }, function () { /* refused: the step-aside worker does it */ });
  }

  if (developing && served) stepAside();

  idle(function () {
    placeButton();
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe({ next: placeButton });
    }
    if (usable) register();
  });
})();
