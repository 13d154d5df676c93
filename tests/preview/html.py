"""Reading the text a browser would show for one element of a page."""

from __future__ import annotations

from html.parser import HTMLParser

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Collector(HTMLParser):
    """Collects the text inside every element whose attribute matches."""

    def __init__(self, attr: str, value: str) -> None:
        super().__init__(convert_charrefs=True)
        self.attr, self.value = attr, value
        self.found: list[str] = []
        self._stack: list[tuple[str, int | None]] = []  # (tag, index into found or None)
        self._open: list[int] = []
        self._after_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._after_pre = tag == "pre"
        if tag in _VOID:
            return
        values = dict(attrs).get(self.attr) or ""
        hit = self.value in values.split() if self.attr == "class" else values == self.value
        index = None
        if hit:
            index = len(self.found)
            self.found.append("")
            self._open.append(index)
        self._stack.append((tag, index))

    def handle_endtag(self, tag: str) -> None:
        self._after_pre = False
        while self._stack:
            open_tag, index = self._stack.pop()
            if index is not None:
                self._open.remove(index)
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._after_pre:
            # A browser drops the one newline right after <pre>.
            self._after_pre = False
            data = data.removeprefix("\n")
        for index in self._open:
            self.found[index] += data


def texts(html: str, *, id: str | None = None, cls: str | None = None) -> list[str]:
    collector = _Collector("id", id) if id is not None else _Collector("class", cls or "")
    collector.feed(html)
    collector.close()
    return collector.found


def text_of(html: str, element_id: str) -> str:
    found = texts(html, id=element_id)
    assert len(found) == 1, f"expected one element #{element_id}, found {len(found)}"
    return found[0]


class _FormCollector(HTMLParser):
    """What a browser submits for one form: its own fields and those naming it with ``form=``."""

    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.action: str | None = None
        self.fields: list[tuple[str, str]] = []
        self.submit_buttons: list[dict[str, str | None]] = []
        self.order: list[str] = []  # names of the form's fields and buttons, in document order
        self._in_form = False
        self._textarea: tuple[str, list[str]] | None = None

    def _owned(self, attrs: dict[str, str | None]) -> bool:
        owner = attrs.get("form")
        return owner == self.form_id if owner is not None else self._in_form

    def handle_starttag(self, tag: str, attr_list: list[tuple[str, str | None]]) -> None:
        attrs = dict(attr_list)
        if tag == "form" and attrs.get("id") == self.form_id:
            self._in_form = True
            self.action = attrs.get("action")
            return
        if not self._owned(attrs):
            return
        name = attrs.get("name")
        if tag == "input":
            kind = (attrs.get("type") or "text").lower()
            if kind == "submit":
                self.submit_buttons.append(attrs)
                self.order.append(f"submit:{name or ''}")
            elif name:
                self.fields.append((name, attrs.get("value") or ""))
                self.order.append(name)
        elif tag == "button":
            if (attrs.get("type") or "submit").lower() == "submit":
                self.submit_buttons.append(attrs)
                self.order.append(f"submit:{name or ''}")
        elif tag == "textarea" and name:
            self._textarea = (name, [])
            self.order.append(name)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._in_form:
            self._in_form = False
        if tag == "textarea" and self._textarea is not None:
            name, parts = self._textarea
            # A browser drops the one newline right after <textarea>.
            self.fields.append((name, "".join(parts).removeprefix("\n")))
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._textarea[1].append(data)


def form_of(html: str, form_id: str, *, fragment: bool = False) -> _FormCollector:
    """The fields of form ``form_id``; a ``fragment`` (an htmx answer) may hold only fields naming it."""
    collector = _FormCollector(form_id)
    collector.feed(html)
    collector.close()
    assert fragment or collector.action is not None, f"no form #{form_id}"
    return collector
