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
