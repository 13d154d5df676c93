// Shared behaviour for every page. Screen-specific code registers itself on
// window.reviewApp; no inline scripts anywhere (the CSP forbids them).
(function () {
  "use strict";
  window.reviewApp = window.reviewApp || {};
})();
