// Prompt preview: htmx renders as you type (hx-trigger on the form's fields).
// htmx 2 does not swap 4xx answers. The preview answers a too-large input
// with 413 and a message meant for the results region, so that one is
// swapped in; any other refusal (Django answers 400 itself for a body past
// its upload limit) is handled here: the old renderings stay and a note says
// the input was refused.
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
    if (!isPreviewRequest(evt) || !evt.detail.xhr) {
      return;
    }
    var status = evt.detail.xhr.status;
    if (status === 413) {
      evt.detail.shouldSwap = true;
      evt.detail.isError = false;
    } else if (status >= 400) {
      evt.detail.shouldSwap = false;
      evt.detail.isError = false;
      showRequestError(true);
    }
  });

  document.addEventListener("htmx:afterSwap", function (evt) {
    if (isPreviewRequest(evt)) {
      showRequestError(false);
    }
  });

  document.addEventListener("htmx:sendError", function (evt) {
    if (isPreviewRequest(evt)) {
      showRequestError(true);
    }
  });
})();
