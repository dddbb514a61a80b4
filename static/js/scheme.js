// Loaded before the stylesheets paint anything (a plain <script> in <head>, not deferred): the colour scheme the
// reader chose on this browser, kept in localStorage, goes on <html data-scheme> before the first frame, so a
// page never flashes the system's scheme first. The server sends every reader the same bytes; without this file
// (or with storage blocked) the page follows the system's scheme. site.js runs the chooser in the footer.
(function () {
  "use strict";
  var root = document.documentElement;
  root.setAttribute("data-scheme-chooser", "");  // the chooser shows only where it can work, without a shift
  try {
    var chosen = window.localStorage.getItem("scheme");
    if (chosen === "light" || chosen === "dark") { root.setAttribute("data-scheme", chosen); }
  } catch (error) { /* storage refused: the system's scheme */ }
})();
