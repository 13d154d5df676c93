// Bulk answers: ticking rows in the queue, and saving the bulk form.
// Without this file the row checkboxes and the "Answer the ticked items"
// button work as a plain form (GET /answers/bulk/?items=…).
//
// Keys on the list (listed under "Keyboard shortcuts"; j/k/Enter are inbox.js's):
//   x          tick or untick the selected row
//   Shift+J    tick the selected row and the next one (extends the ticks down)
//   Shift+K    the same, upwards
//   b          answer the ticked items together
// On the bulk page:
//   Ctrl+Enter (⌘+Enter)  save for all items
(function () {
  "use strict";

  // Inputs that take no typed text: the list's keys still work there.
  var NOT_TYPED = ["checkbox", "radio", "button", "submit", "reset", "file", "range", "color", "image"];

  function typingIn(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    if (tag === "textarea" || target.isContentEditable) return true;
    return tag === "input" && NOT_TYPED.indexOf((target.type || "text").toLowerCase()) < 0;
  }

  function list() {
    return window.reviewApp && window.reviewApp.inboxList;
  }

  function tickOf(row) {
    return row ? row.querySelector("input[data-bulk-tick]") : null;
  }

  function showCount() {
    var count = document.querySelectorAll("input[data-bulk-tick]:checked").length;
    var out = document.getElementById("bulk-count");
    if (out) out.textContent = String(count);
    var button = document.querySelector("[data-bulk-open]");
    if (button) button.disabled = count === 0;
  }

  function setTick(row, value) {
    var box = tickOf(row);
    if (!box || box.checked === value) return Boolean(box);
    box.checked = value;
    showCount();
    return true;
  }

  // Shift+J / Shift+K: tick where the selection is, move it, tick there too.
  function extend(step) {
    var inbox = list();
    if (!inbox) return false;
    var rows = inbox.rows();
    if (rows.length === 0) return false;
    var at = inbox.selected();
    if (at < 0) {
      inbox.select(0);
      setTick(rows[0], true);
      return true;
    }
    setTick(rows[at], true);
    inbox.select(at + step);
    setTick(rows[inbox.selected()], true);
    return true;
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    var form = document.querySelector("[data-bulk-form]");
    if (form && event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      var save = form.querySelector("[data-bulk-save]");
      if (save) {
        save.click();
        event.preventDefault();
      }
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey || typingIn(event.target)) return;
    if (!document.getElementById("inbox-results") || document.querySelector("dialog[open]")) return;
    var inbox = list();
    var handled = false;
    if (event.key === "x" && inbox && inbox.selected() >= 0) {
      var box = tickOf(inbox.rows()[inbox.selected()]);
      handled = Boolean(box) && setTick(inbox.rows()[inbox.selected()], !box.checked);
    } else if (event.key === "J") {
      handled = extend(1);
    } else if (event.key === "K") {
      handled = extend(-1);
    } else if (event.key === "b") {
      var open = document.querySelector("[data-bulk-open]");
      if (open && !open.disabled) {
        open.click();
        handled = true;
      }
    }
    if (handled) event.preventDefault();
  });

  // A tick is no filter: keep its change from reaching the filter form, whose htmx would reload the list.
  document.addEventListener(
    "change",
    function (event) {
      var target = event.target;
      if (target instanceof Element && target.hasAttribute("data-bulk-tick")) {
        event.stopPropagation();
        showCount();
      }
    },
    true
  );

  document.addEventListener("htmx:afterSwap", showCount);
  // The list's own poll removed rows (a ticked one a colleague answered): inbox.js.
  document.addEventListener("inbox:rows-changed", showCount);
  document.addEventListener("DOMContentLoaded", showCount);
})();
