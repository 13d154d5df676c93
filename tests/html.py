"""Reading a page's HTML the way a browser does, with the stdlib parser: the one HTML helper of the tests.

``Page(html)`` (or ``page_of(response)``) parses once; then
``page.text("id")`` is an element's ``textContent``, ``page.tags("input")``
the attributes of every ``<input>``, ``page.values()`` what the inputs hold
by name, ``page.with_attribute("autofocus")`` the elements carrying one,
``page.out_of_band()`` what an htmx answer swaps out of band, and
``page.form("id")`` what a browser would submit for one form. The functions
``texts``, ``text_of`` and ``form_of`` do the same on a string.

As in a browser, the one newline right after ``<pre>`` and ``<textarea>``
is not part of the text (the templates write one, so a text that starts
with a newline survives).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Elements whose first newline the HTML parser drops.
_NEWLINE_DROPPED = {"pre", "textarea"}

Attrs = dict[str, str | None]


@dataclass
class Element:
    tag: str
    attrs: Attrs
    # The id of the <form> the element is in, if any (its ``form`` attribute aside).
    in_form: str | None
    parts: list[str] = field(default_factory=list)
    # The elements it is inside, outermost first.
    ancestors: list[Element] = field(default_factory=list, repr=False)

    @property
    def text(self) -> str:
        """The element's ``textContent``."""
        return "".join(self.parts)

    @property
    def form_owner(self) -> str | None:
        """The form the element belongs to: its ``form`` attribute, else the form it is in."""
        owner = self.attrs.get("form")
        return owner if owner is not None else self.in_form

    def has_class(self, name: str) -> bool:
        return name in (self.attrs.get("class") or "").split()


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self._form: str | None = None
        self._drop_newline = False

    def handle_starttag(self, tag: str, attr_list: list[tuple[str, str | None]]) -> None:
        attrs = dict(attr_list)
        element = Element(tag, attrs, self._form, ancestors=list(self._open))
        self.elements.append(element)
        self._drop_newline = tag in _NEWLINE_DROPPED
        if tag == "form":
            self._form = attrs.get("id") or ""
        if tag not in VOID:
            self._open.append(element)

    def handle_startendtag(self, tag: str, attr_list: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, dict(attr_list), self._form, ancestors=list(self._open)))
        self._drop_newline = False

    def handle_endtag(self, tag: str) -> None:
        self._drop_newline = False
        if tag == "form":
            self._form = None
        while self._open:
            if self._open.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._drop_newline:
            self._drop_newline = False
            data = data.removeprefix("\n")
        for element in self._open:
            element.parts.append(data)


@dataclass
class Form:
    """What a browser submits for one form: its own fields and those naming it with ``form=``."""

    action: str | None = None
    fields: list[tuple[str, str]] = field(default_factory=list)
    submit_buttons: list[Attrs] = field(default_factory=list)
    # The names of the form's fields and buttons ("submit:<name>"), in document order.
    order: list[str] = field(default_factory=list)


class Page:
    def __init__(self, html: str) -> None:
        parser = _Parser()
        parser.feed(html)
        parser.close()
        self.elements = parser.elements

    def _by_id(self, element_id: str) -> Element | None:
        return next((e for e in self.elements if e.attrs.get("id") == element_id), None)

    def has(self, element_id: str) -> bool:
        return self._by_id(element_id) is not None

    def text(self, element_id: str) -> str:
        """The text content of the element with this id, as ``textContent`` gives it in a browser."""
        element = self._by_id(element_id)
        if element is None:
            raise KeyError(element_id)
        return element.text

    def words(self, element_id: str) -> str:
        """The element's text with each run of whitespace one space: what a reader sees, line breaks aside."""
        return " ".join(self.text(element_id).split())

    def texts(self, *, id: str | None = None, cls: str | None = None) -> list[str]:
        """The text of every element with this id, or with this class."""
        if id is not None:
            return [e.text for e in self.elements if e.attrs.get("id") == id]
        return [e.text for e in self.elements if e.has_class(cls or "")]

    def table(self, table_id: str) -> list[list[str]]:
        """The text of each cell (``th`` and ``td``) of each row of the table with this id, whitespace trimmed."""
        table = self._by_id(table_id)
        if table is None:
            raise KeyError(table_id)
        rows = [e for e in self.elements if e.tag == "tr" and any(a is table for a in e.ancestors)]
        return [
            [c.text.strip() for c in self.elements if c.tag in ("th", "td") and c.ancestors and c.ancestors[-1] is row]
            for row in rows
        ]

    def children_of(self, element_id: str, tag: str) -> list[Element]:
        """Every ``tag`` element inside the element with this id."""
        parent = self._by_id(element_id)
        return [e for e in self.elements if e.tag == tag and any(a is parent for a in e.ancestors)]

    def tags(self, name: str) -> list[Attrs]:
        return [e.attrs for e in self.elements if e.tag == name]

    def all_tags(self) -> list[tuple[str, Attrs]]:
        return [(e.tag, e.attrs) for e in self.elements]

    def with_attribute(self, attribute: str) -> list[Attrs]:
        """The attributes of every element that carries ``attribute`` (``autofocus``, ``hx-swap-oob``, …)."""
        return [e.attrs for e in self.elements if attribute in e.attrs]

    def values(self, *, type: str | None = None) -> dict[str | None, str | None]:
        """The ``value`` of every ``<input>`` by name (only those of ``type``, e.g. ``"hidden"``, if given)."""
        return {a.get("name"): a.get("value") for a in self.tags("input") if type is None or a.get("type") == type}

    def out_of_band(self) -> dict[str, str]:
        """What an htmx answer swaps out of band: the element's id → its text."""
        return {str(e.attrs["id"]): e.text for e in self.elements if e.attrs.get("hx-swap-oob") is not None}

    def form(self, form_id: str) -> Form:
        form = Form()
        for element in self.elements:
            if element.tag == "form" and element.attrs.get("id") == form_id:
                form.action = element.attrs.get("action")
                continue
            if element.form_owner != form_id:
                continue
            name = element.attrs.get("name")
            kind = (element.attrs.get("type") or ("submit" if element.tag == "button" else "text")).lower()
            if element.tag in ("input", "button") and kind == "submit":
                form.submit_buttons.append(element.attrs)
                form.order.append(f"submit:{name or ''}")
            elif element.tag == "input" and name:
                form.fields.append((name, element.attrs.get("value") or ""))
                form.order.append(name)
            elif element.tag == "textarea" and name:
                form.fields.append((name, element.text))
                form.order.append(name)
        return form


def page_of(response: Any) -> Page:
    return Page(response.content.decode())


def texts(html: str, *, id: str | None = None, cls: str | None = None) -> list[str]:
    return Page(html).texts(id=id, cls=cls)


def text_of(html: str, element_id: str) -> str:
    found = texts(html, id=element_id)
    assert len(found) == 1, f"expected one element #{element_id}, found {len(found)}"
    return found[0]


def form_of(html: str, form_id: str, *, fragment: bool = False) -> Form:
    """The fields of form ``form_id``; a ``fragment`` (an htmx answer) may hold only fields naming it."""
    form = Page(html).form(form_id)
    assert fragment or form.action is not None, f"no form #{form_id}"
    return form
