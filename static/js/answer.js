// Answer form: Ctrl+Enter (Cmd+Enter on a Mac) saves; participant rows are
// added and removed in place. Everything is delegated from the document, so
// it keeps working after htmx swaps the panel. Without this file the form
// still works: "Add a participant" posts the form and comes back with a new
// row, and each row has a "Remove this row" checkbox.
(function () {
  "use strict";
  if (window.reviewApp && window.reviewApp.answerForm) return; // loaded twice on one page
  window.reviewApp = window.reviewApp || {};
  window.reviewApp.answerForm = true;

  function refreshPreview(form) {
    // The preview's hx-trigger listens for this as well as for typing
    // ("input changed" would ignore an event whose target has no value).
    form.dispatchEvent(new CustomEvent("answer-rows-changed", { bubbles: true }));
  }

  function addRow(form) {
    var template = form.querySelector("template[data-participant-template]");
    var list = form.querySelector("[data-participant-rows]");
    var total = form.querySelector('input[name="participants-TOTAL_FORMS"]');
    if (!template || !list || !total) return false;
    var index = parseInt(total.value, 10) || 0;
    var html = template.innerHTML.replace(/__prefix__/g, String(index));
    list.insertAdjacentHTML("beforeend", html.trim());
    total.value = String(index + 1);
    var row = list.lastElementChild;
    enhanceRow(row);
    var first = row.querySelector("input[type=text]");
    if (first) first.focus();
    return true;
  }

  function enhanceRow(row) {
    var field = row.querySelector("[data-remove-field]");
    if (!field || row.querySelector("[data-remove-participant]")) return;
    var label = field.querySelector("label");
    var button = document.createElement("button");
    button.type = "button";
    button.className = "button remove-participant";
    button.setAttribute("data-remove-participant", "");
    button.textContent = label ? label.textContent : "×";
    field.hidden = true;
    row.appendChild(button);
  }

  function removeRow(button) {
    var row = button.closest("[data-participant-row]");
    var form = button.closest("form");
    if (!row || !form) return;
    var box = row.querySelector('input[type=checkbox][name$="-DELETE"]');
    if (box) box.checked = true;
    // Hidden, not removed: the formset numbering stays intact and the
    // server skips rows marked for deletion.
    row.hidden = true;
    var next = row.nextElementSibling;
    while (next && next.hidden) next = next.nextElementSibling;
    var focusTarget = (next && next.querySelector("input[type=text]")) || form.querySelector("[data-add-participant]");
    if (focusTarget) focusTarget.focus();
    refreshPreview(form);
  }

  function enhance(root) {
    root.querySelectorAll("[data-answer-form] [data-participant-row]").forEach(enhanceRow);
  }

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!(target instanceof Element)) return;
    var add = target.closest("[data-add-participant]");
    if (add) {
      var form = add.closest("form");
      if (form && addRow(form)) {
        event.preventDefault();
        refreshPreview(form);
      }
      return;
    }
    var remove = target.closest("[data-remove-participant]");
    if (remove) {
      event.preventDefault();
      removeRow(remove);
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    var target = event.target;
    var form = target instanceof Element ? target.closest("[data-answer-form]") : null;
    if (!form) form = document.querySelector("[data-answer-form]");
    // A correction form folded away in <details> is not what the user is typing into.
    if (!form || form.closest("details:not([open])")) return;
    var save = form.querySelector("[data-answer-save]");
    if (!save || save.disabled) return;
    event.preventDefault();
    // A click, so htmx sends it the same way as the button (and without
    // htmx the browser submits the form with action=save).
    save.click();
  });

  function init() {
    enhance(document);
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    enhance(document);
    // After Save or "Not representation" came back with errors, a conflict
    // or the denial's confirmation, put the keyboard where the user has to look. (The live
    // preview is requested by the form itself and must not move the focus.)
    var config = event.detail && event.detail.requestConfig;
    if (!config || !config.elt || config.elt.tagName !== "BUTTON") return;
    var panel = document.getElementById("answer-panel");
    if (!panel) return;
    // A denial waiting for confirmation: the question itself, not its
    // destructive button, so a stray Enter cannot confirm it.
    var first =
      panel.querySelector('[aria-invalid="true"]') ||
      panel.querySelector("#answer-conflict, #answer-form_error, #answer-confirm-deny");
    if (!first) return;
    if (!first.matches("input, textarea, select, button")) first.setAttribute("tabindex", "-1");
    first.focus();
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
