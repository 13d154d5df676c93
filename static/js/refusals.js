// A request the server refuses as a whole (a body too large: 413; a
// database that does not answer: 503) is answered with a short message that
// htmx swaps into #request-refused (base.html's htmx-config,
// responseHandling), so the reason is shown in place while the form and
// what was typed in it stay. This clears that reason once a later request
// succeeds.
(function () {
  "use strict";

  var REGION = "#request-refused";

  // A later successful request clears the old reason.
  document.addEventListener("htmx:afterRequest", function (evt) {
    var xhr = evt.detail && evt.detail.xhr;
    var region = document.querySelector(REGION);
    if (region && xhr && xhr.status < 400) {
      region.textContent = "";
    }
  });
})();
