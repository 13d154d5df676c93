// Suggestions from the company's earlier answers (templates/answers/_suggestions.html).
// A click on one, or Alt+Shift+its number, puts it in the answer form:
//   a participant fills the first row without a name (or a new row), name and company;
//   a purpose replaces the purpose; a context answer replaces the context text.
// The resend form's picker of newer items (templates/answers/_newer_items.html):
// a click puts the item's id in "Id of the newer item" and chooses "replaced".
// Alt+Shift+digit is free: answer.js's Alt+digit (the resend choices) and
// Alt+D require Shift up, and the list's keys take no modifier.
(function () {
  "use strict";
  if (window.reviewApp && window.reviewApp.suggestions) return; // loaded twice on one page
  window.reviewApp = window.reviewApp || {};
  window.reviewApp.suggestions = true;

  function setValue(field, value) {
    if (!field) return false;
    field.value = value;
    // The live preview and the error slots listen for input.
    field.dispatchEvent(new Event("input", { bubbles: true }));
    return true;
  }

  function emptyRow(form) {
    var rows = form.querySelectorAll("[data-participant-rows] [data-participant-row]");
    for (var i = 0; i < rows.length; i++) {
      var name = rows[i].querySelector('input[name$="-name"]');
      if (!rows[i].hidden && name && !name.value.trim()) return rows[i];
    }
    var add = form.querySelector("[data-add-participant]");
    if (!add) return null;
    add.click(); // answer.js adds a row in place
    var all = form.querySelectorAll("[data-participant-rows] [data-participant-row]");
    var last = all[all.length - 1];
    var lastName = last && last.querySelector('input[name$="-name"]');
    return lastName && !lastName.value.trim() ? last : null;
  }

  function take(button) {
    var form = button.closest("form");
    if (!form) return false;
    var kind = button.getAttribute("data-suggestion");
    var text = button.getAttribute("data-text") || "";
    var field = null;
    if (kind === "participant") {
      var row = emptyRow(form);
      if (!row) return false;
      field = row.querySelector('input[name$="-name"]');
      setValue(field, text);
      setValue(row.querySelector('input[name$="-company"]'), button.getAttribute("data-company") || "");
    } else {
      field = form.querySelector(kind === "purpose" ? '[name="purpose"]' : '[name="text"]');
      setValue(field, text);
    }
    if (field) field.focus();
    return Boolean(field);
  }

  function pick(button) {
    var form = button.closest("form");
    var field = form && form.querySelector('[name="replaced_by"]');
    if (!field) return false;
    var radio = form.querySelector('input[type=radio][name="choice"][value="replaced"]');
    if (radio && !radio.checked) {
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
    }
    setValue(field, button.getAttribute("data-pick-replacement") || "");
    field.focus();
    return true;
  }

  document.addEventListener("click", function (event) {
    if (!(event.target instanceof Element)) return;
    var button = event.target.closest("[data-suggestion]");
    if (button && take(button)) event.preventDefault();
    var newer = event.target.closest("[data-pick-replacement]");
    if (newer && pick(newer)) event.preventDefault();
  });

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    if (!event.altKey || !event.shiftKey || event.ctrlKey || event.metaKey) return;
    if (!/^Digit[1-9]$/.test(event.code)) return;
    var button = document.querySelector('[data-suggestion-key="' + event.code.slice(5) + '"]');
    if (button && take(button)) event.preventDefault();
  });
})();
