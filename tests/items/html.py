"""Reading the item page's HTML the way a browser does, with the stdlib parser."""

from __future__ import annotations

from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: dict[str, list[str]] = {}
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self._open: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag in VOID:
            return
        element_id = attributes.get("id")
        self._open.append((tag, element_id))
        if element_id is not None:
            self.texts[element_id] = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            open_tag, _ = self._open.pop()
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        for _, element_id in self._open:
            if element_id is not None:
                self.texts[element_id].append(data)


class Page:
    def __init__(self, html: str) -> None:
        parser = _Page()
        parser.feed(html)
        parser.close()
        self._parser = parser

    def has(self, element_id: str) -> bool:
        return element_id in self._parser.texts

    def text(self, element_id: str) -> str:
        """The element's text content, as ``textContent`` gives it in a browser.

        The HTML spec drops one newline right after ``<pre>`` (the template
        writes one so a text that starts with a newline survives); the stdlib
        parser does not, so it is dropped here.
        """
        text = "".join(self._parser.texts[element_id])
        tag = next(t for t, attrs in self._parser.tags if attrs.get("id") == element_id)
        if tag == "pre" and text.startswith("\n"):
            text = text[1:]
        return text

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self._parser.tags if tag == name]

    def all_tags(self) -> list[tuple[str, dict[str, str | None]]]:
        return list(self._parser.tags)


def page_of(response) -> Page:  # type: ignore[no-untyped-def]
    return Page(response.content.decode())
