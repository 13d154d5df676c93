// Item page: copy the agent view exactly, j/k for the next/previous item
// in the list the user came from, e to correct an answer given in the app. The page works without this file: the
// copy button stays hidden and the prev/next links are ordinary links.
(function () {
  "use strict";

  function setupCopy(button) {
    var source = document.getElementById(button.getAttribute("data-copy-from"));
    var status = button.parentElement.querySelector(".copy-status");
    if (!source || !navigator.clipboard || !window.isSecureContext) {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      // textContent is exactly the text the model receives: the browser
      // dropped only the newline the template puts right after <pre>.
      navigator.clipboard.writeText(source.textContent).then(
        function () {
          if (status) status.textContent = status.getAttribute("data-copied-text");
        },
        function () {
          if (status) status.textContent = status.getAttribute("data-failed-text");
        }
      );
    });
  }

  function isTyping(target) {
    if (!target || !target.closest) return false;
    return Boolean(target.closest("input, textarea, select, [contenteditable]"));
  }

  // e: correct the answer given in the app (the form folded in "Correct this answer").
  function openCorrection() {
    var amend = document.getElementById("answer-amend");
    if (!amend) return false;
    amend.open = true;
    var field = amend.querySelector("form input:not([type=hidden]), form textarea, form select");
    if (field) field.focus();
    amend.scrollIntoView({ block: "start" });
    return true;
  }

  // "h": the hold form's first field (reason); the queue's "h" opens the item at #hold-form.
  function focusHold() {
    var field = document.querySelector("#hold-form select, #hold-form input:not([type=hidden])");
    if (!field) return false;
    field.scrollIntoView({ block: "center" });
    field.focus();
    return true;
  }

  function setupKeys() {
    document.addEventListener("keydown", function (event) {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      if (isTyping(event.target)) return;
      if (event.key === "e" && openCorrection()) {
        event.preventDefault();
        return;
      }
      if (event.key === "h" && focusHold()) {
        event.preventDefault();
        return;
      }
      var rel = event.key === "j" ? "next" : event.key === "k" ? "prev" : null;
      if (!rel) return;
      var link = document.querySelector('.item-nav a[data-nav="' + rel + '"]');
      if (!link) return;
      event.preventDefault();
      window.location.assign(link.href);
    });
  }

  function init() {
    if (window.location.hash === "#hold-form") {
      focusHold();
      // The browser's own scroll to #hold-form (a form: not focusable) moves the
      // focus to the page itself once the page has loaded, after this ran: the
      // queue's "h" then left the keyboard on <body>. Focus the field again after it.
      window.addEventListener("load", function () {
        window.setTimeout(focusHold, 0);
      }, { once: true });
    }
    document.querySelectorAll("button[data-copy-from]").forEach(setupCopy);
    setupKeys();
    // "Correct it" in the toast after a save links here with #answer-form.
    if (window.location.hash === "#answer-form") openCorrection();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
