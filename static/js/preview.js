// Prompt preview: htmx renders as you type (hx-trigger on the form's fields).
// htmx 2 does not swap 4xx answers; the preview answers a too-large input with
// 413 and a message meant for the results region, so let that one through,
// and say so plainly when the server refused the input in some other way.
(function () {
  "use strict";

  function isPreviewRequest(evt) {
    var target = evt.detail && evt.detail.target;
    return Boolean(target && target.id === "preview-results");
  }

  function showRequestError(show) {
    var note = document.getElementById("preview-request-error");
    if (note) {
      note.hidden = !show;
    }
  }

  document.addEventListener("htmx:beforeSwap", function (evt) {
    if (!isPreviewRequest(evt)) {
      return;
    }
    if (evt.detail.xhr && evt.detail.xhr.status === 413) {
      evt.detail.shouldSwap = true;
      evt.detail.isError = false;
    }
  });

  document.addEventListener("htmx:afterSwap", function (evt) {
    if (isPreviewRequest(evt)) {
      showRequestError(false);
    }
  });

  document.addEventListener("htmx:responseError", function (evt) {
    if (isPreviewRequest(evt)) {
      showRequestError(true);
    }
  });

  document.addEventListener("htmx:sendError", function (evt) {
    if (isPreviewRequest(evt)) {
      showRequestError(true);
    }
  });
})();
