// Prompt preview: htmx renders as you type (hx-trigger on the form's fields).
// The results carry the last valid input (last_good, form="preview-form"),
// so while the JSON is half typed the server keeps showing its renderings.
// htmx swaps what base.html's htmx-config says (responseHandling): the
// preview's own 413 into the results (it says so with HX-Retarget), a body
// past the app's request cap (413) or an outage (503) into #request-refused.
// Any other refusal of a render is handled here: the old renderings stay
// and a note says the input was refused.
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
    if (!isPreviewRequest(evt) || !evt.detail.xhr || evt.detail.shouldSwap) {
      return;
    }
    if (evt.detail.xhr.status >= 400) {
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

  // The save form (its own form, so Enter in the case name saves) carries
  // copies of the input as last rendered. A person who types and saves
  // within the render delay would save the copies; send what is typed now.
  var INPUT_FIELDS = ["channel_context", "document_id", "extracted_data"];

  function setupSave() {
    var saveForm = document.getElementById("golden-save-form");
    var previewForm = document.getElementById("preview-form");
    if (!saveForm || !previewForm) {
      return;
    }
    saveForm.addEventListener("formdata", function (evt) {
      INPUT_FIELDS.forEach(function (name) {
        var field = previewForm.elements.namedItem(name);
        if (field && "value" in field) {
          evt.formData.set(name, field.value);
        }
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setupSave);
  } else {
    setupSave();
  }
})();
