"""The text of a web page saved as HTML: its article's paragraphs, a line each.

An editor checking a summary of a news story often has the story as a saved web page. Read as
plain text its tags, scripts and menus would be taken for claims, so a page is read as what a
reader sees of the article: the text of the page's ``<article>`` elements where it has any (else
its ``<main>``, else its body), a line for each paragraph, heading, list item and table cell,
with scripts, styles, navigation, forms and asides left out. Character references are decoded.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: Elements whose content a reader does not read as the page's text.
SKIPPED = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "math",
        "nav",
        "aside",
        "form",
        "button",
        "select",
        "iframe",
        "object",
        "head",
    }
)
#: Elements that end a line of text before and after them.
BLOCKS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "footer",
        "blockquote",
        "pre",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "table",
        "tr",
        "td",
        "th",
        "caption",
        "figure",
        "figcaption",
        "address",
        "hr",
        "br",
        "body",
    }
)
#: Elements with no end tag: never held open.
VOID = frozenset(
    {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "wbr"}
)
#: The parts of a page read, most specific first: the first the page has is read alone.
SCOPES = ("article", "main", "body")

_HTML_START = re.compile(
    rb"\A(?:\xef\xbb\xbf)?\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)\b", re.I | re.S
)


def looks_like_html(raw: bytes) -> bool:
    """Whether a file's first bytes are an HTML document's (a doctype or an ``<html>`` tag)."""
    return bool(_HTML_START.match(raw[:4096]))


def html_text(html: str) -> str:
    """The page's readable text (see the module's docstring); "" when it has none. One pass
    reads every scope; the first the page has is kept (the whole text for a fragment)."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    for scope in SCOPES:
        if reader.found[scope]:
            return reader.text(scope)
    return reader.text(None)


class _Reader(HTMLParser):
    """Collects the text inside each scope's elements (and, under None, everywhere), outside
    skipped ones."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        scopes: tuple[str | None, ...] = (*SCOPES, None)
        self.found = dict.fromkeys(SCOPES, False)
        self.inside = {scope: 0 if scope else 1 for scope in scopes}  # open scope elements
        self.lines: dict[str | None, list[str]] = {scope: [] for scope in scopes}
        self.line: dict[str | None, list[str]] = {scope: [] for scope in scopes}
        self.skipping = 0  # depth of skipped elements open
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED and tag not in VOID:
            self.skipping += 1
        if tag in self.found:
            self.inside[tag] += 1
            self.found[tag] = True
        if tag == "pre":
            self.pre += 1
        if tag in BLOCKS:
            self._break()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in BLOCKS:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if tag in BLOCKS:
            self._break()
        if tag in SKIPPED and self.skipping:
            self.skipping -= 1
        if tag in self.found and self.inside[tag]:
            self.inside[tag] -= 1
        if tag == "pre" and self.pre:
            self.pre -= 1

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        parts = data.split("\n") if self.pre else [re.sub(r"\s+", " ", data)]
        for i, part in enumerate(parts):
            if i:
                self._break()
            for scope, depth in self.inside.items():
                if depth:
                    self.line[scope].append(part)

    def _break(self) -> None:
        for scope, pieces in self.line.items():
            text = "".join(pieces).strip()
            pieces.clear()
            if text:
                self.lines[scope].append(text)

    def text(self, scope: str | None) -> str:
        self._break()
        return "\n".join(self.lines[scope])
