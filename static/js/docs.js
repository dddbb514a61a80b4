// Starts Swagger UI on /docs from this file rather than an inline script, which the CSP forbids.
(function () {
  "use strict";
  window.addEventListener("DOMContentLoaded", function () {
    window.SwaggerUIBundle({
      url: document.getElementById("swagger-ui").getAttribute("data-openapi-url"),
      dom_id: "#swagger-ui",
      deepLinking: true,
      tryItOutEnabled: true,
    });
  });
})();
