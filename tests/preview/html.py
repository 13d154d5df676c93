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
