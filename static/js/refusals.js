// A request the server refuses as a whole (a body too large: 413; a
// database that does not answer: 503) is answered with a short message
// aimed at #request-refused (HX-Retarget, reviewapp/refusals.py). htmx 2
// swaps no 4xx or 5xx answer by itself; these it swaps, so the reason is
// shown in place while the form and what was typed in it stay. Any other
// refusal (one without the retarget, e.g. from the proxy) is left to htmx.
(function () {
  "use strict";

  var REGION = "#request-refused";

  document.addEventListener("htmx:beforeSwap", function (evt) {
    var xhr = evt.detail && evt.detail.xhr;
    if (!xhr || (xhr.status !== 413 && xhr.status !== 503)) {
      return;
    }
    if (xhr.getResponseHeader("HX-Retarget") === REGION) {
      evt.detail.shouldSwap = true;
      evt.detail.isError = false;
    }
  });

  // A later successful request clears the old reason.
  document.addEventListener("htmx:afterRequest", function (evt) {
    var xhr = evt.detail && evt.detail.xhr;
    var region = document.querySelector(REGION);
    if (region && xhr && xhr.status < 400) {
      region.textContent = "";
    }
  });
})();
