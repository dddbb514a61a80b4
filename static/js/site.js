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

  // A code block or table wider than the text column scrolls sideways, and a keyboard user can scroll it only
  // once it takes the focus (WCAG 2.1.1). Only the blocks that overflow at the current width get a tab stop, so
  // the short ones cost nobody a key press. Without this file Chromium and Firefox focus such scrollers anyway.
  var scrollFrame = 0;
  function reachScrollableBlocks() {
    scrollFrame = 0;
    document.querySelectorAll(".prose pre, .prose table").forEach(function (block) {
      var overflows = block.scrollWidth > block.clientWidth + 1;
      if (overflows && !block.hasAttribute("tabindex")) {
        block.setAttribute("tabindex", "0");
        block.setAttribute("data-scroll-stop", "");
      } else if (!overflows && block.hasAttribute("data-scroll-stop")) {
        block.removeAttribute("tabindex");
        block.removeAttribute("data-scroll-stop");
      }
    });
  }
  reachScrollableBlocks();  // deferred: the document is parsed and laid out on first use of scrollWidth
  window.addEventListener("resize", function () {
    if (!scrollFrame) { scrollFrame = window.requestAnimationFrame(reachScrollableBlocks); }
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
