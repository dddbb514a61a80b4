// Progressive enhancement of the interactive diagrams; every diagram works without this file.
//
// htmx swaps a diagram's chart region, and its fields region out of band (templates/diagrams/_form.html). Around
// each swap this file keeps the figure exactly where it was on screen (Chromium's scroll anchoring would
// otherwise move the page by the height difference, up to a whole section), keeps focus inside the figure when
// the focused link is gone (the "Previous step" link at step 0), announces the new result in the figure's polite
// live region, and keeps the address of the lab and of a diagram's own page in step with every diagram's state
// (replaceState: one history entry per page, so Back leaves the lab, and reload or a shared link restore it),
// and the language switcher's links with it. The hidden inputs that carry the other diagrams' states for a
// browser without JavaScript are removed: the address carries them here, and htmx would send them along.
//
// A deferred figure's body arrives as the text of a <noscript> (app/web/diagram_pages.py) and is made into the
// figure when it is in the window; once the reader scrolls, touches or clicks, when it comes within a screen and a
// half, and the rest one by one whenever the browser is idle (so that a screen reader or find-in-page soon has
// every figure); all of them at the first key press (so that Tab reaches every control in order) and before
// printing.
(function () {
  "use strict";

  var before = new WeakMap(); // figure -> {top, focus} just before its swap

  function figureOf(element) {
    return element && element.closest ? element.closest("figure.dg") : null;
  }

  // The share link names only the fields that differ from the defaults ("?topology.gpu_b=6#diagram-topology");
  // written out in full, and without a bare "?" when there are none.
  function tidyShareLink(figure) {
    var link = figure.querySelector(".dg-share-link");
    if (!link) return;
    var url = new URL(link.getAttribute("href"), window.location.href);
    link.href = url.origin + url.pathname + url.search + url.hash; // url.search is "" for a bare "?"
  }

  function keepAddress(figure) {
    var page = figure.closest("[data-dg-address]");
    if (!page) return;
    var params = new URLSearchParams();
    page.querySelectorAll("figure.dg .dg-share-link").forEach(function (link) {
      new URL(link.href, window.location.href).searchParams.forEach(function (value, name) {
        params.append(name, value);
      });
    });
    var query = params.toString();
    var address = window.location.pathname + (query ? "?" + query : "") + "#" + figure.id;
    window.history.replaceState(window.history.state, "", address);
    document.querySelectorAll(".language-switcher a[hreflang]").forEach(function (link) {
      var target = new URL(link.getAttribute("href"), window.location.href);
      link.setAttribute("href", target.pathname + (query ? "?" + query : "") + target.hash);
    });
  }

  // A figure's requests queue (hx-sync "queue last", not "replace": htmx logs an aborted request as a console
  // error). A response to values the reader has changed since is not shown: its fields region would put the old
  // values back, and the queued request, which carries the new ones, is sent as soon as this one is done.
  function valuesOf(form) { return new URLSearchParams(new FormData(form)).toString(); }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    if (form instanceof HTMLFormElement && figureOf(form)) event.detail.xhr.dgSent = valuesOf(form);
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    var figure = figureOf(event.detail.target);
    if (!figure) return;
    var form = event.detail.requestConfig && event.detail.requestConfig.elt;
    var sent = event.detail.xhr && event.detail.xhr.dgSent;
    if (form instanceof HTMLFormElement && typeof sent === "string" && sent !== valuesOf(form)) {
      event.detail.shouldSwap = false;
      return;
    }
    var focused = document.activeElement;
    before.set(figure, {
      top: figure.getBoundingClientRect().top,
      focus: focused && figure.contains(focused) ? focused.id : "",
    });
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var figure = figureOf(event.target);
    var state = figure && before.get(figure);
    if (!state) return;
    var moved = figure.getBoundingClientRect().top - state.top;
    if (Math.abs(moved) >= 0.5) window.scrollBy(0, moved);
    if (state.focus && !figure.contains(document.activeElement)) {
      var fallback = document.getElementById(state.focus) || figure.querySelector("[data-dg-focus]");
      if (fallback) fallback.focus({ preventScroll: true });
    }
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    var figure = figureOf(event.target);
    if (!figure || !before.has(figure)) return;
    before.delete(figure);
    var xhr = event.detail.xhr;
    if (!xhr || xhr.status !== 200) return;
    var chart = figure.querySelector(".dg-chart");
    var status = figure.querySelector(".dg-status");
    if (chart && status) status.textContent = chart.getAttribute("data-summary") || "";
    tidyShareLink(figure);
    keepAddress(figure);
  });

  function holderOf(figure) {
    return figure.querySelector(":scope > noscript.dg-deferred");
  }

  function build(figure) {
    var holder = holderOf(figure);
    if (!holder) return;
    var range = document.createRange();
    range.selectNode(holder);
    holder.replaceWith(range.createContextualFragment(holder.textContent));
    if (window.htmx) window.htmx.process(figure);
    tidyShareLink(figure);
  }

  // Until the reader scrolls, touches or clicks, only a figure already in the window is built: the work of the
  // ones below waits until someone reads on, instead of landing on the phone while the page is still loading.
  var whenIdle = window.requestIdleCallback || function (callback) { return window.setTimeout(callback, 200); };
  // (No :has() here: where a browser lacks it, the selector would throw and leave every figure unbuilt.)
  var holders = document.querySelectorAll("figure.dg > noscript.dg-deferred");
  var deferred = Array.prototype.map.call(holders, function (holder) { return holder.parentElement; });
  var readingEvents = ["scroll", "pointerdown", "touchstart"];
  var nearing = null;
  var readingOn = false;
  function buildAll() {
    deferred.forEach(build);
    deferred = [];
    if (nearing) nearing.disconnect();
    document.removeEventListener("keydown", buildAll, true);
  }
  function watch() {
    if (nearing) nearing.disconnect();
    nearing = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        var box = entry.boundingClientRect;
        var inWindow = box.top < window.innerHeight && box.bottom > 0;
        if (!entry.isIntersecting || !(readingOn || inWindow)) return;
        nearing.unobserve(entry.target);
        build(entry.target);
      });
    }, { rootMargin: "150% 0px" });
    deferred.forEach(function (figure) { nearing.observe(figure); });
  }
  function buildTheRestWhenIdle() {
    var waiting = deferred.filter(holderOf);
    if (!waiting.length) return;
    whenIdle(function () {
      build(waiting[0]);
      buildTheRestWhenIdle();
    });
  }
  function startReading() {
    if (readingOn) return;
    readingOn = true;
    readingEvents.forEach(function (type) { window.removeEventListener(type, startReading, true); });
    watch(); // observing again reports every figure once more, now with the reader's margin
    buildTheRestWhenIdle();
  }
  if (deferred.length) {
    if ("IntersectionObserver" in window) {
      watch();
      readingEvents.forEach(function (type) {
        window.addEventListener(type, startReading, { capture: true, passive: true });
      });
      document.addEventListener("keydown", buildAll, true);
      window.addEventListener("beforeprint", buildAll);
    } else {
      buildAll();
    }
  }

  document.querySelectorAll("figure.dg").forEach(tidyShareLink);
  document.querySelectorAll("input[data-dg-carry]").forEach(function (input) {
    input.remove();
  });
})();
