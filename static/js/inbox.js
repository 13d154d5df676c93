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

  // --- The list updates itself (issue 38 part 3) -----------------------------
  // #inbox-live asks the list's own address every few seconds (htmx's
  // hx-trigger="every Ns"), with If-None-Match: the server answers 304 while
  // the rows did not change. On a 200 only rows whose data-version moved are
  // replaced and rows that left are removed; rows the page does not show yet
  // are counted and announced, never inserted. Ticks, the j/k selection, the
  // focus and the scroll position stay where they are: the focused or
  // selected row is kept, marked, when it leaves, and goes on a later poll.
  function live() {
    return document.getElementById("inbox-live");
  }

  document.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail.elt;
    if (!elt || elt.id !== "inbox-live") return;
    // A hidden tab does not poll; it asks once as soon as it is shown again.
    if (document.visibilityState !== "visible") {
      event.preventDefault();
      return;
    }
    var tag = elt.getAttribute("data-etag");
    if (tag) event.detail.headers["If-None-Match"] = tag;
  });

  document.addEventListener("visibilitychange", function () {
    var elt = live();
    if (elt && document.visibilityState === "visible" && window.htmx) window.htmx.trigger(elt, "inbox:poll");
  });

  function keepTicks(from, to) {
    var old = from.querySelector("input[data-bulk-tick]");
    var fresh = to.querySelector("input[data-bulk-tick]");
    if (old && fresh) fresh.checked = old.checked;
  }

  // The element of ``row`` that has the focus, as a selector that finds its twin in the new row.
  function focusedIn(row) {
    var active = document.activeElement;
    if (!active || !row.contains(active)) return null;
    if (active.classList.contains("row-link")) return ".row-link";
    if (active.hasAttribute("data-bulk-tick")) return "input[data-bulk-tick]";
    return null;
  }

  function markGone(row, elt) {
    if (row.classList.contains("is-gone")) return;
    row.classList.add("is-gone");
    var note = document.createElement("span");
    note.className = "gone-note";
    note.textContent = elt.getAttribute("data-gone") || "";
    var cell = row.querySelector("td");
    if (cell) cell.appendChild(note);
  }

  function announce(elt, count) {
    var text = elt.querySelector(".live-news-text");
    var show = elt.querySelector(".live-news-show");
    if (!text || !show) return;
    var words = count === 1 ? elt.getAttribute("data-new-one") : (elt.getAttribute("data-new-many") || "").replace("{count}", String(count));
    var now = count > 0 ? words : "";
    if (text.textContent !== now) text.textContent = now;
    show.hidden = count === 0;
  }

  function applyLive(elt, html) {
    var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("inbox-results");
    // Not the list (a login page after the session ended): change nothing.
    if (!fresh) return false;
    var incoming = {};
    Array.prototype.forEach.call(fresh.querySelectorAll(".inbox-row[id]"), function (row) {
      incoming[row.id] = row;
    });
    var all = rows();
    var selectedRow = selected >= 0 ? all[selected] : null;
    all.forEach(function (row) {
      var next = incoming[row.id];
      delete incoming[row.id];
      if (!next) {
        if (row === selectedRow || focusedIn(row) || row.contains(document.activeElement)) markGone(row, elt);
        else row.remove();
        return;
      }
      if (next.getAttribute("data-version") === row.getAttribute("data-version")) return;
      var copy = document.importNode(next, true);
      keepTicks(row, copy);
      var focus = focusedIn(row);
      if (row === selectedRow) {
        copy.classList.add("is-selected");
        copy.setAttribute("aria-current", "true");
        selectedRow = copy;
      }
      row.replaceWith(copy);
      if (focus) {
        var twin = copy.querySelector(focus);
        if (twin) twin.focus({ preventScroll: true });
      }
    });
    // The selection follows its row, not its old index, when rows above it left.
    selected = selectedRow ? rows().indexOf(selectedRow) : -1;
    // The counts beside the filters and "N left" (the server's own markup, as the rows).
    Array.prototype.forEach.call(fresh.querySelectorAll("[data-live-text][id]"), function (source) {
      var target = document.getElementById(source.id);
      if (target && target.innerHTML !== source.innerHTML) {
        target.replaceChildren.apply(target, Array.prototype.map.call(source.childNodes, function (node) {
          return document.importNode(node, true);
        }));
      }
    });
    announce(elt, Object.keys(incoming).length);
    document.dispatchEvent(new CustomEvent("inbox:rows-changed"));
    return true;
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var elt = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (!elt || elt.id !== "inbox-live") return;
    event.detail.shouldSwap = false;
    var xhr = event.detail.xhr;
    if (!xhr || xhr.status !== 200) return;
    if (applyLive(elt, xhr.responseText)) {
      var tag = xhr.getResponseHeader("ETag");
      if (tag) elt.setAttribute("data-etag", tag);
    }
  });

  // New rows after a swap: the old selection index means nothing any more.
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.target && event.target.id === "inbox-results") selected = -1;
  });
  document.addEventListener("htmx:historyRestore", function () {
    selected = -1;
  });
})();
