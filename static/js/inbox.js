// Inbox list: keyboard selection and tidy shareable URLs.
// Filtering, the debounced search and the partial swap are declared on the
// form with htmx attributes (see templates/inbox/list.html); this file only
// adds what markup cannot: j/k to move the selection, Enter to open it.
(function () {
  "use strict";

  var selected = -1;

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

  function typingIn(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    return tag === "input" || tag === "select" || tag === "textarea" || target.isContentEditable;
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (typingIn(event.target) || !document.getElementById("inbox-results")) return;
    if (event.key === "j") {
      select(selected + 1);
      event.preventDefault();
    } else if (event.key === "k") {
      select(selected < 0 ? 0 : selected - 1);
      event.preventDefault();
    } else if (event.key === "Enter" && selected >= 0) {
      // A focused row link opens itself; only act when focus is elsewhere.
      if (event.target && event.target.classList && event.target.classList.contains("row-link")) return;
      var row = rows()[selected];
      var link = row && row.querySelector(".row-link");
      if (link) {
        window.location.assign(link.href);
        event.preventDefault();
      }
    }
  });

  // New rows after a swap: the old selection index means nothing any more.
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.target && event.target.id === "inbox-results") selected = -1;
  });
  document.addEventListener("htmx:historyRestore", function () {
    selected = -1;
  });

  // htmx keeps a copy of the page's HTML for Back. Typed values live in the
  // DOM properties, not in the HTML, so write them into the attributes first;
  // otherwise Back would show the old rows under the newer search text.
  document.addEventListener("htmx:beforeHistorySave", function () {
    var form = document.getElementById("inbox-filters");
    if (!form) return;
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.type === "checkbox" || el.type === "radio") {
        if (el.checked) el.setAttribute("checked", "");
        else el.removeAttribute("checked");
      } else if (el.tagName === "SELECT") {
        Array.prototype.forEach.call(el.options, function (option) {
          if (option.selected) option.setAttribute("selected", "");
          else option.removeAttribute("selected");
        });
      } else if (el.tagName === "INPUT") {
        el.setAttribute("value", el.value);
      }
    });
  });

  // Leave empty filters out of the request, so the pushed URL is the short
  // link a person would share (?state=needs_answer, not ?q=&type=&...).
  document.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail.elt;
    if (!elt || elt.id !== "inbox-filters") return;
    var data = event.detail.formData;
    if (!data) return;
    var empty = [];
    data.forEach(function (value, key) {
      if (data.getAll(key).every(function (v) { return v === ""; }) && empty.indexOf(key) < 0) empty.push(key);
    });
    empty.forEach(function (key) { data.delete(key); });
  });
})();
