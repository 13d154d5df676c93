// Inbox list: keyboard selection.
// Filtering, the debounced search and the partial swap are declared on the
// form with htmx attributes (see templates/inbox/list.html), and the server
// pushes the list's short URL (HX-Push-Url); this file only adds what markup
// cannot: j/k to move the selection, Enter to open it, / to search (Esc
// leaves the search box), ? for the list of keys.
(function () {
  "use strict";

  var selected = -1;
  // Inputs that take no typed text: j and k still move the selection there.
  var NOT_TYPED = ["checkbox", "radio", "button", "submit", "reset", "file", "range", "color", "image"];

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("#inbox-results .inbox-row"));
  }

  function select(index) {
    var all = rows();
    if (all.length === 0) return;
    selected = Math.max(0, Math.min(index, all.length - 1));
    all.forEach(function (row, i) {
      row.classList.toggle("is-selected", i === selected);
      if (i === selected) row.setAttribute("aria-current", "true");
      else row.removeAttribute("aria-current");
    });
    var link = all[selected].querySelector(".row-link");
    if (link) link.focus();
  }

  // bulk.js ticks rows (x, Shift+J/K) and moves the same selection.
  window.reviewApp = window.reviewApp || {};
  window.reviewApp.inboxList = {
    select: select,
    selected: function () {
      return selected;
    },
    rows: rows,
  };

  // Typing into a text box or textarea: the keys are letters there. A menu,
  // a checkbox or a button takes no text, so the list's keys work on them.
  function typingIn(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    if (tag === "textarea" || target.isContentEditable) return true;
    return tag === "input" && NOT_TYPED.indexOf((target.type || "text").toLowerCase()) < 0;
  }

  function interactive(target) {
    if (!target || !target.tagName) return false;
    return ["a", "button", "input", "select", "textarea", "summary"].indexOf(target.tagName.toLowerCase()) >= 0;
  }

  function helpDialog() {
    return document.getElementById("keyboard-help");
  }

  function openHelp() {
    var dialog = helpDialog();
    if (dialog && !dialog.open && typeof dialog.showModal === "function") dialog.showModal();
  }

  // Esc in the search box leaves the box, as in the answer form: the search
  // stays as typed (a type="search" box would otherwise empty itself and
  // search for nothing), and j/k work again at once.
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.key !== "Escape" || !target || target.id !== "id_q") return;
    event.preventDefault();
    target.blur();
  });

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (typingIn(event.target) || !document.getElementById("inbox-results")) return;
    var dialog = helpDialog();
    if (dialog && dialog.open) return; // Esc and the Close button belong to the dialog
    if (event.key === "j") {
      select(selected + 1);
      event.preventDefault();
    } else if (event.key === "k") {
      select(selected < 0 ? 0 : selected - 1);
      event.preventDefault();
    } else if (event.key === "/") {
      var search = document.getElementById("id_q");
      if (search) {
        search.focus();
        search.select();
        event.preventDefault();
      }
    } else if (event.key === "?") {
      openHelp();
      event.preventDefault();
    } else if (event.key === "h" && selected >= 0 && document.body.hasAttribute("data-next-free")) {
      // Put the selected row on hold: its item page, at the hold form (a bookkeeper's key).
      var held = rows()[selected];
      var holdLink = held && held.querySelector(".row-link");
      if (holdLink) {
        window.location.assign(holdLink.href.split("#")[0] + "#hold-form");
        event.preventDefault();
      }
    } else if (event.key === "Enter" && selected >= 0) {
      // A focused link, button or menu answers Enter itself (the row link opens).
      if (interactive(event.target)) return;
      var row = rows()[selected];
      var link = row && row.querySelector(".row-link");
      if (link) {
        window.location.assign(link.href);
        event.preventDefault();
      }
    }
  });

  // Browsers without invoker commands (command="show-modal") get the same from a click.
  if (!("commandForElement" in HTMLButtonElement.prototype)) {
    document.addEventListener("click", function (event) {
      var button = event.target && event.target.closest ? event.target.closest(".keyboard-help-open") : null;
      if (button) openHelp();
    });
  }

  // The filters' error slots arrive out of band with the results: keep each
  // control's aria-invalid in step with whether its slot holds an error.
  document.addEventListener("htmx:afterSettle", function () {
    var form = document.getElementById("inbox-filters");
    if (!form) return;
    Array.prototype.forEach.call(form.querySelectorAll(".filter-bar .field-errors"), function (slot) {
      var control = document.getElementById(slot.id.replace(/_error$/, ""));
      if (!control) return;
      if (slot.querySelector(".error")) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    });
  });

  // New rows after a swap: the old selection index means nothing any more.
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.target && event.target.id === "inbox-results") selected = -1;
  });
  document.addEventListener("htmx:historyRestore", function () {
    selected = -1;
  });
})();
