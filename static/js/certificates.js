// The verification page: if the URL carries the QR code's signed summary in its fragment (which browsers never
// send to a server), ask the server to check it against the issuer's keys and show the answer. Without
// JavaScript the page still verifies the certificate itself; only this extra check needs the script.
(function () {
  "use strict";
  var target = document.getElementById("qr-check");
  var fragment = window.location.hash.slice(1);
  if (!target || !fragment || !target.dataset.checkUrl) { return; }
  var url = target.dataset.checkUrl + "?qr=" + encodeURIComponent(fragment);
  fetch(url, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
    .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
    .then(function (html) {
      var parsed = new DOMParser().parseFromString(html, "text/html").getElementById("qr-check");
      if (parsed) { target.replaceWith(parsed); }
    })
    .catch(function () { /* the certificate's own verdict is already on the page */ });
})();
