// Progressive enhancement of quizzes and the exam; every quiz works without this file.
(function () {
  "use strict";
})();
