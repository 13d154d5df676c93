"""The list's keys: listed on the page and in a dialog; j/k/Enter, / and ? in static/js/inbox.js.

The script's key handling is run in V8 embedded in Python (mini-racer, a
requirements-dev.txt wheel: no Node, no browser, so these run on a machine with
only Python) against a small stand-in for the DOM; the browser journeys are in
tests/e2e. The page's HTML is checked through the test client.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.urls import reverse
from py_mini_racer import MiniRacer

from reviewapp.core import states
from tests import factories
from tests.inbox.helpers import pending

URL = reverse("inbox")
SCRIPT = Path(__file__).resolve().parents[2] / "static" / "js" / "inbox.js"

# A stand-in for the few DOM calls inbox.js makes; each case presses one key
# with focus on one element and reports what the script did.
HARNESS = r"""
const source = SOURCE;

function classList() {
  const set = new Set();
  return {
    toggle: (name, on) => (on ? set.add(name) : set.delete(name)),
    contains: (name) => set.has(name),
    add: (name) => set.add(name),
    has: (name) => set.has(name),
  };
}
function element(tagName, extra) {
  const el = {
    tagName: tagName.toUpperCase(), attributes: {}, classList: classList(), isContentEditable: false,
    setAttribute(name, value) { this.attributes[name] = value; },
    removeAttribute(name) { delete this.attributes[name]; },
    focus() { log.focused = this.name || this.tagName; },
    select() {},
    querySelector() { return null; },
    closest() { return null; },
  };
  return Object.assign(el, extra || {});
}

let log;
function run(key, target, options) {
  options = options || {};
  log = { focused: null, assigned: null, dialogOpened: false, prevented: false };
  const listeners = {};
  const rows = [0, 1, 2].map((i) => {
    const link = element("a", { name: "row" + i, href: "/items/" + i + "/" });
    link.classList.add("row-link");
    return element("tr", { querySelector: () => link });
  });
  const dialog = element("dialog", {
    open: !!options.dialogOpen,
    showModal() { log.dialogOpened = true; this.open = true; },
  });
  const search = element("input", { type: "search", name: "search" });
  const byId = { "inbox-results": element("div"), "keyboard-help": dialog, "id_q": search };
  const document = {
    addEventListener: (type, fn) => { (listeners[type] = listeners[type] || []).push(fn); },
    getElementById: (id) => byId[id] || null,
    querySelectorAll: (selector) => (selector === "#inbox-results .inbox-row" ? rows : []),
  };
  const window = { location: { assign: (href) => { log.assigned = href; } } };
  function HTMLButtonElement() {}
  // A fresh scope for each case, as a page load gives: the script sees only these globals.
  new Function("document", "window", "HTMLButtonElement", source)(document, window, HTMLButtonElement);
  for (const press of options.before || []) {
    const pressed = { key: press, target: element("body"), preventDefault() {} };
    (listeners.keydown || []).forEach((fn) => fn(pressed));
  }
  const event = {
    key, target, altKey: false, ctrlKey: false, metaKey: false, shiftKey: key === "?", defaultPrevented: false,
    preventDefault() { log.prevented = true; },
  };
  (listeners.keydown || []).forEach((fn) => fn(event));
  log.selected = rows.map((row) => row.classList.contains("is-selected"));
  return log;
}

const cases = {
  j_on_body: run("j", element("body")),
  j_in_a_select: run("j", element("select")),
  j_on_a_checkbox: run("j", element("input", { type: "checkbox" })),
  j_on_a_button: run("j", element("button")),
  j_in_the_search_box: run("j", element("input", { type: "search" })),
  j_in_a_date_box: run("j", element("input", { type: "text" })),
  j_in_a_textarea: run("j", element("textarea")),
  j_twice_then_k: run("k", element("body"), { before: ["j", "j", "j"] }),
  slash: run("/", element("body")),
  slash_in_the_search_box: run("/", element("input", { type: "search" })),
  question_mark: run("?", element("body")),
  question_mark_in_a_select: run("?", element("select")),
  j_with_the_dialog_open: run("j", element("body"), { dialogOpen: true }),
  enter_after_j: run("Enter", element("body"), { before: ["j", "j"] }),
  enter_on_a_button_after_j: run("Enter", element("button"), { before: ["j"] }),
};
JSON.stringify(cases);
"""


@pytest.fixture(scope="module")
def pressed() -> dict[str, dict[str, object]]:
    harness = HARNESS.replace("SOURCE", json.dumps(SCRIPT.read_text(encoding="utf-8")), 1)
    return json.loads(MiniRacer().eval(harness))


@pytest.mark.parametrize("case", ["j_on_body", "j_in_a_select", "j_on_a_checkbox", "j_on_a_button"])
def test_j_selects_the_first_row_wherever_focus_is_except_in_text(pressed, case):
    assert pressed[case]["selected"] == [True, False, False], case
    assert pressed[case]["focused"] == "row0"
    assert pressed[case]["prevented"] is True


@pytest.mark.parametrize("case", ["j_in_the_search_box", "j_in_a_date_box", "j_in_a_textarea"])
def test_j_is_a_letter_while_typing(pressed, case):
    assert pressed[case]["selected"] == [False, False, False], case
    assert pressed[case]["prevented"] is False


def test_k_moves_back_up(pressed):
    assert pressed["j_twice_then_k"]["selected"] == [False, True, False]


def test_slash_goes_to_the_search_box_unless_typing_there(pressed):
    assert pressed["slash"]["focused"] == "search"
    assert pressed["slash"]["prevented"] is True
    assert pressed["slash_in_the_search_box"]["prevented"] is False


def test_question_mark_opens_the_list_of_keys(pressed):
    assert pressed["question_mark"]["dialogOpened"] is True
    assert pressed["question_mark_in_a_select"]["dialogOpened"] is True


def test_the_list_keys_rest_while_the_dialog_is_open(pressed):
    assert pressed["j_with_the_dialog_open"]["selected"] == [False, False, False]


def test_enter_opens_the_selected_row_unless_a_control_has_focus(pressed):
    assert pressed["enter_after_j"]["assigned"] == "/items/1/"
    assert pressed["enter_on_a_button_after_j"]["assigned"] is None


@pytest.mark.django_db
def test_the_page_lists_the_keys_in_a_dialog_a_visible_button_opens(qa_client):
    body = qa_client.get(URL).content.decode()
    button = re.search(r"<button [^>]*class=\"button keyboard-help-open\"[^>]*>Help <kbd[^>]*>\?</kbd></button>", body)
    assert button, "no Help button"
    assert 'commandfor="keyboard-help"' in button.group(0)
    assert 'command="show-modal"' in button.group(0)
    assert "hidden" not in button.group(0)
    dialog = re.search(r'<dialog id="keyboard-help".*?</dialog>', body, re.DOTALL)
    assert dialog, "no dialog"
    keys = re.findall(r"<dt><kbd>([^<]+)</kbd></dt>", dialog.group(0))
    assert keys == ["j", "k", "Enter", "/", "?", "Esc"]
    assert '<form method="dialog">' in dialog.group(0)


@pytest.mark.django_db
def test_each_question_type_has_one_wording_on_the_list(qa_client):
    wording = {
        "representation": "Representation (participants and purpose)",
        "context": "What the purchase was for",
        "resend": "A clearer photo",
    }
    assert set(wording) == set(states.QUESTION_TYPES)
    for key in wording:
        factories.make_item(channel_context=pending("moved_to_app", type_=key))
    body = qa_client.get(URL).content.decode()
    for key, text in wording.items():
        assert f'<option value="{key}">{text}</option>' in body
        assert body.count(f'<span class="question-type">{text}</span>') == 1
    shown = set(re.findall(r'<span class="question-type">([^<]+)</span>', body))
    assert shown == set(wording.values())
