// Answer form: keys, participant rows added and removed in place, errors
// cleared once fixed. Everything is delegated from the document, so it keeps
// working after htmx swaps the panel. Without this file the form still works:
// "Add a participant" posts the form and comes back with a new row, each row
// has a "Remove this row" checkbox, and the server puts the focus (autofocus,
// which htmx also honours in what it swaps in).
//
// Keys (listed on the page, under "Keyboard"):
//   Ctrl+Enter (⌘+Enter)  save; on the denial's confirmation, confirm it
//   Alt+D                 "Not representation…" (opens its confirmation)
//   Alt+1, Alt+2, Alt+3   the resend question's choices, in order
//   Esc                   leave the field; outside a field, back to the list
//                         (on the denial's confirmation: back to the answer)
//   Enter in a one-line field does nothing: it must not add a row or save half an answer.
(function () {
  "use strict";
  if (window.reviewApp && window.reviewApp.answerForm) return; // loaded twice on one page
  window.reviewApp = window.reviewApp || {};
  window.reviewApp.answerForm = true;

  // A touch screen has no keyboard waiting to type: the form's first field
  // taking the focus only scrolled the page past the supplier and the amount
  // (issue 37: the answer page opened 472 px down on a phone). A page loaded
  // with an error keeps its focus on the field that needs fixing.
  if (window.matchMedia("(hover: none), (pointer: coarse)").matches) {
    var firstLoadFocus = function () {
      var focused = document.activeElement;
      var fresh = !document.querySelector("[aria-invalid=true], .answer-conflict, .answer-confirm, .resend-confirm[autofocus]");
      document.querySelectorAll("form[data-answer-form] [autofocus]").forEach(function (field) {
        if (fresh) field.removeAttribute("autofocus");
      });
      if (fresh && focused instanceof HTMLElement && focused.closest("form[data-answer-form]")) {
        focused.blur();
        window.scrollTo(0, 0);
      }
    };
    firstLoadFocus();
    window.addEventListener("load", firstLoadFocus, { once: true });
  }

  // Inputs that take no typed text: Enter there keeps its usual meaning.
  var NOT_TYPED = ["checkbox", "radio", "button", "submit", "reset", "file", "range", "color", "image", "hidden"];

  function isTextField(element) {
    if (!(element instanceof Element)) return false;
    var tag = element.tagName.toLowerCase();
    if (tag === "textarea" || tag === "select" || element.isContentEditable) return true;
    return tag === "input" && NOT_TYPED.indexOf((element.type || "text").toLowerCase()) < 0;
  }

  function isField(element) {
    return element instanceof Element && Boolean(element.closest("input, textarea, select, [contenteditable]"));
  }

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
    row.querySelectorAll("[data-max-chars]").forEach(updateCounter);
    showRemoveButtons(form);
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
    showRemoveButtons(form);
    var next = row.nextElementSibling;
    while (next && next.hidden) next = next.nextElementSibling;
    var focusTarget = (next && next.querySelector("input[type=text]")) || form.querySelector("[data-add-participant]");
    if (focusTarget) focusTarget.focus();
    refreshPreview(form);
  }

  // The only row left has nothing to be removed for (a blank row is no
  // participant): no button, one Tab less from the name to the purpose.
  function showRemoveButtons(form) {
    var rows = Array.prototype.filter.call(form.querySelectorAll("[data-participant-row]"), function (row) {
      return !row.hidden && !row.closest("template");
    });
    rows.forEach(function (row) {
      var button = row.querySelector("[data-remove-participant]");
      if (button) button.hidden = rows.length < 2;
    });
  }

  // A counter beside each field with a limit (data-max-chars; there is no maxlength to cut a paste):
  // "12 / 2000", and past the limit "N characters over the limit" (the form carries the translated
  // words). The server refuses an answer over a limit with the same words; nothing is ever cut.
  function updateCounter(field) {
    var max = parseInt(field.getAttribute("data-max-chars"), 10);
    var form = field.closest("[data-answer-form]");
    if (!max || !form || field.closest("template")) return;
    var id = (field.id || field.name) + "_count";
    var counter = document.getElementById(id);
    if (!counter) {
      counter = document.createElement("p");
      counter.id = id;
      counter.className = "char-count";
      field.insertAdjacentElement("afterend", counter);
    }
    // As the server counts (count.js): UTF-16 code units, line breaks as one, surrounding white space trimmed.
    var length = window.reviewApp.charCount(field.value);
    var over = length - max;
    counter.classList.toggle("is-over", over > 0);
    if (over > 0) {
      var words = form.getAttribute(over === 1 ? "data-over-one" : "data-over-many") || "%(over)s over";
      counter.textContent = words.replace("%(over)s", String(over));
    } else {
      counter.textContent = length + " / " + max;
    }
  }

  function enhance(root) {
    root.querySelectorAll("[data-answer-form] [data-max-chars]").forEach(updateCounter);
    root.querySelectorAll("[data-answer-form] [data-participant-row]").forEach(enhanceRow);
    root.querySelectorAll("[data-answer-form]").forEach(showRemoveButtons);
    // Rows are added here, so the button no longer submits: Save is then the
    // form's first submit button, the one the browser presses on Enter.
    root.querySelectorAll("[data-answer-form] button[data-add-participant]").forEach(function (button) {
      button.type = "button";
    });
  }

  // The form the keys act on: the one holding the focus, else the first one
  // on screen (a correction folded away in <details> is not on screen).
  function activeForm(target) {
    var form = target instanceof Element ? target.closest("[data-answer-form]") : null;
    if (form) return form;
    var forms = document.querySelectorAll("[data-answer-form]");
    for (var i = 0; i < forms.length; i++) {
      if (!forms[i].closest("details:not([open])")) return forms[i];
    }
    return null;
  }

  function press(button) {
    if (!button || button.disabled) return false;
    // A click, so htmx sends it the same way as the button (and without
    // htmx the browser submits the form with the button's action).
    button.click();
    return true;
  }

  function chooseResend(form, index) {
    var radios = form.querySelectorAll('input[type=radio][name="choice"]');
    var radio = radios[index];
    if (!radio || radio.disabled) return false;
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    // Where the choice is completed: the newer item's id, the file, or (readable) nothing more.
    var next = { replaced: "replaced_by", upload: "file" }[radio.value];
    var field = next ? form.querySelector('[name="' + next + '"]') : null;
    (field || radio).focus();
    return true;
  }

  function backToList() {
    var link = document.querySelector('a[data-nav="list"]');
    if (!link) return false;
    window.location.assign(link.href);
    return true;
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
    if (event.defaultPrevented || event.isComposing) return;
    if (document.querySelector("dialog[open]")) return; // a dialog's keys are its own
    var target = event.target;
    var form = activeForm(target);
    var handled = false;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      handled = Boolean(form) && press(form.querySelector("[data-answer-save]"));
    } else if (event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      // event.code: the key's place, whatever the layout (Option+D types "∂" on a Mac).
      if (event.code === "KeyD") {
        handled = Boolean(form) && press(form.querySelector("[data-answer-deny]"));
      } else if (/^Digit[1-9]$/.test(event.code) && form) {
        handled = chooseResend(form, parseInt(event.code.slice(5), 10) - 1);
      }
    } else if (event.key === "Escape" && !event.altKey && !event.ctrlKey && !event.metaKey) {
      var confirmation = document.getElementById("answer-confirm-deny");
      if (confirmation) {
        handled = press(confirmation.querySelector("[data-answer-edit]"));
      } else if (isField(target)) {
        target.blur(); // out of the field: j/k and Esc act on the page again
        handled = true;
      } else if (form) {
        handled = backToList();
      }
    } else if (event.key === "Enter" && !event.shiftKey && !event.altKey && form) {
      // Enter in a one-line field would press the form's default button.
      handled = isTextField(target) && target.tagName.toLowerCase() === "input" && form.contains(target);
    }
    if (handled) event.preventDefault();
  });

  // The live preview also re-checks the errors on screen: it is told which.
  document.addEventListener("htmx:configRequest", function (event) {
    var form = event.detail && event.detail.elt;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-answer-form")) return;
    var names = [];
    form.querySelectorAll('[aria-invalid="true"][name]').forEach(function (field) {
      if (names.indexOf(field.name) < 0) names.push(field.name);
    });
    var group = form.querySelector("#answer-form_error");
    if (group && group.querySelector(".error")) names.push("__all__");
    if (names.length) event.detail.parameters.set("shown_errors", names.join(" "));
  });

  // A slot refilled by the preview: the field's red border and aria-invalid follow it.
  function syncErrors(form) {
    form.querySelectorAll(".field-errors[id^='id_'][id$='_error']").forEach(function (slot) {
      var failing = Boolean(slot.querySelector(".error"));
      var control = document.getElementById(slot.id.replace(/_error$/, ""));
      if (control && control !== slot) {
        if (failing) control.setAttribute("aria-invalid", "true");
        else control.removeAttribute("aria-invalid");
        var wrapper = control.closest(".field");
        if (wrapper) wrapper.classList.toggle("has-error", failing);
      }
    });
  }

  function unchangedFromServer(field) {
    var type = (field.type || "").toLowerCase();
    if (type === "radio" || type === "checkbox") return field.checked === field.defaultChecked;
    if (type === "file") return false;
    return "defaultValue" in field && field.value === field.defaultValue;
  }

  // Forms without a live preview (the resend question): a field's error goes as soon as it is changed.
  function clearOwnError(event) {
    var field = event.target;
    if (!(field instanceof Element) || !field.id) return;
    var form = field.closest("[data-answer-form]");
    if (!form || form.hasAttribute("hx-post")) return;
    // Ctrl+Enter saves with the focus still in the field. htmx inserts the
    // returned form (with its error) before it removes the old one, and moves
    // the focus to the new field: the browser then fires "change" on the OLD
    // field, still in the page. Looking the slot up in the whole document found
    // the NEW form's slot (same id, earlier in the page) and wiped the error
    // just shown. So: only this form's own slot, and only a value that differs
    // from what the server rendered.
    if (unchangedFromServer(field)) return;
    var slotId = (field.type === "radio" ? field.name && "id_" + field.name : field.id) + "_error";
    var slot = form.querySelector('[id="' + slotId + '"]');
    if (slot) slot.textContent = "";
    form.querySelectorAll('[name="' + field.name + '"]').forEach(function (same) {
      same.removeAttribute("aria-invalid");
    });
    var wrapper = field.closest(".field");
    if (wrapper) wrapper.classList.remove("has-error");
  }
  document.addEventListener("change", clearOwnError);
  document.addEventListener("input", clearOwnError);
  document.addEventListener("input", function (event) {
    if (event.target instanceof Element && event.target.hasAttribute("data-max-chars")) updateCounter(event.target);
  });

  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll("form[data-answer-form]").forEach(syncErrors);
  });

  // The page, and every piece htmx swaps in (after a swap htmx itself puts
  // the keyboard where the server marked autofocus).
  document.addEventListener("htmx:load", function (event) {
    enhance(event.target instanceof Element ? event.target : document);
  });
})();
