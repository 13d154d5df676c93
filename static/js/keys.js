// Keys that work on every page: n opens the next free item of the queue
// (a bookkeeper's pages carry its address on <body data-next-free>; the
// server picks the item: the queue's order, skipping items others hold).
// Not while typing, and not with a modifier (Ctrl+N is the browser's).
(function () {
  "use strict";
  if (window.reviewApp && window.reviewApp.pageKeys) return;
  window.reviewApp = window.reviewApp || {};
  window.reviewApp.pageKeys = true;

  function typing(target) {
    return target instanceof Element && Boolean(target.closest("input, textarea, select, [contenteditable]"));
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key !== "n" || typing(event.target) || document.querySelector("dialog[open]")) return;
    var url = document.body && document.body.getAttribute("data-next-free");
    if (!url) return;
    event.preventDefault();
    window.location.assign(url);
  });
})();
