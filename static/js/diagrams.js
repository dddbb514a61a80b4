// Progressive enhancement of the interactive diagrams; every diagram works without this file.
(function () {
  "use strict";
})();
