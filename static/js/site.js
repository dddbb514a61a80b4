// Progressive enhancement only: every page works without this file.
(function () {
  "use strict";

  // Keep the section the reader is on when switching language (section ids are the same in every language).
  document.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("a[data-keep-hash]") : null;
    if (link && window.location.hash) {
      link.setAttribute("href", link.getAttribute("href").split("#")[0] + window.location.hash);
    }
  });

  // The table of contents is a closed "On this page" on a narrow screen and an open list beside the text on a
  // wide one, where it marks the section being read (on a phone it is out of sight: nothing to watch).
  var toc = document.querySelector(".toc-details");
  if (toc) {
    var wide = window.matchMedia("(min-width: 72rem)");
    var marking = false;
    var fitToWidth = function () {
      if (!wide.matches) { return; }
      toc.open = true;
      if (!marking) { marking = true; markCurrentSection(toc); }
    };
    fitToWidth();
    wide.addEventListener("change", function () { toc.open = wide.matches; fitToWidth(); });
    toc.addEventListener("toggle", fitToWidth);
  }

  // The section being read is the last one whose top has passed a line a third of the way down the window. The
  // observer fires whenever a section crosses that line (the root margin cuts the rest of the window away), and
  // then the sections' positions are read, which costs nothing then: the browser has just laid them out.
  function markCurrentSection(tocElement) {
    if (!("IntersectionObserver" in window)) { return; }
    var links = new Map();
    tocElement.querySelectorAll('a[href^="#"]').forEach(function (link) {
      links.set(decodeURIComponent(link.hash.slice(1)), link);
    });
    var sections = [];
    links.forEach(function (link, id) {
      var heading = document.getElementById(id);
      if (heading) { sections.push({ id: id, box: heading.closest("section") || heading }); }
    });
    if (!sections.length) { return; }
    var current = null;
    function update() {
      var line = window.innerHeight / 3;
      var found = null;
      sections.forEach(function (section) {
        if (section.box.getBoundingClientRect().top <= line) { found = section.id; }
      });
      if (found === current) { return; }
      if (current !== null) { links.get(current).removeAttribute("aria-current"); }
      if (found !== null) { links.get(found).setAttribute("aria-current", "true"); }
      current = found;
    }
    var observer = new IntersectionObserver(update, { rootMargin: "0px 0px -66% 0px" });
    sections.forEach(function (section) { observer.observe(section.box); });
  }

  // The colour-scheme chooser: "system" forgets the choice; light or dark is kept in this browser
  // (static/js/scheme.js applies it before the next page paints), and other open tabs follow at once.
  var chooser = document.getElementById("scheme-choice");
  if (chooser) {
    var apply = function (scheme) {
      if (scheme === "light" || scheme === "dark") {
        document.documentElement.setAttribute("data-scheme", scheme);
      } else {
        document.documentElement.removeAttribute("data-scheme");
      }
      chooser.value = scheme === "light" || scheme === "dark" ? scheme : "system";
    };
    apply(document.documentElement.getAttribute("data-scheme"));
    chooser.addEventListener("change", function () {
      try {
        if (chooser.value === "system") { window.localStorage.removeItem("scheme"); }
        else { window.localStorage.setItem("scheme", chooser.value); }
      } catch (error) { /* storage refused: the choice lasts for this page only */ }
      apply(chooser.value);
    });
    window.addEventListener("storage", function (event) {
      if (event.key === "scheme" || event.key === null) { apply(event.newValue); }
    });
  }

  // After an HTMX swap, move focus to the swapped region when it asks for it, so keyboard and screen-reader
  // users land on the new content instead of losing their place.
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (!(target instanceof HTMLElement)) { return; }
    var focusTarget = target.querySelector("[data-focus-after-swap]") || (target.hasAttribute("data-focus-after-swap") ? target : null);
    if (focusTarget instanceof HTMLElement) {
      if (!focusTarget.hasAttribute("tabindex")) { focusTarget.setAttribute("tabindex", "-1"); }
      focusTarget.focus({ preventScroll: false });
    }
  });
})();
